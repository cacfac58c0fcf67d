#!/bin/bash
# tests/safety.sh - tracelloc never harms the host: whatever ends it, no
# process it stopped stays stopped; only what it stopped is continued.
#
#   tests/safety.sh [REGEX | -l]
#
# TL_KILL_ROUNDS sets how many random SIGKILLs each storm takes (20; 5 under
# the sanitizers, whose slower daemon changes nothing the BPF side does).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

KILL_ROUNDS=${TL_KILL_ROUNDS:-$([ -n "${TL_SANITIZER_LOGS:-}" ] && echo 5 || echo 20)}
# how much longer the sanitized daemon may take where a test bounds a time
# (LeakSanitizer scans its memory as it exits)
SLOW=$([ -n "${TL_SANITIZER_LOGS:-}" ] && echo 5 || echo 1)
# how long after tracelloc's SIGKILL every stop it made must be gone
RELEASE_SECS=1.1

# stopped_count PID...: how many of these processes are stopped (state T)
stopped_count() {
	local pid n=0
	for pid in "$@"; do
		[ "$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)" = T ] && n=$((n + 1))
	done
	echo "$n"
}

# describe_stopped PID...: state, pending signals and tracer of each stopped one
describe_stopped() {
	local pid
	for pid in "$@"; do
		[ "$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)" = T ] || continue
		echo "pid $pid: $(grep -E '^(SigPnd|ShdPnd|SigBlk|TracerPid)' "/proc/$pid/status" | tr '\t\n' '  ')"
	done
}

# pids_named NAME: the processes whose comm is NAME
pids_named() {
	pgrep -x "$1" || true
}

# random_delay LO_MS SPAN_MS: a random number of seconds in [LO, LO + SPAN)
random_delay() {
	awk -v lo="$1" -v span="$2" -v r="$RANDOM" 'BEGIN { printf "%.3f\n", (lo + r % span) / 1000 }'
}

# name_storm NAME COUNT EVERY: in the background (STORM_PID), COUNT copies
# of the sleeper target called NAME, one every EVERY seconds, each living 0.2 s
name_storm() {
	cp "$TB/sleeper" "$T_DIR/$1"
	(
		for _ in $(seq "$2"); do
			"$T_DIR/$1" 0.2 </dev/null >/dev/null 2>&1 &
			sleep "$3"
		done
	) &
	STORM_PID=$!
	register_pid "$STORM_PID"
}

# kill_round NAME DELAY: SIGKILL to the tracelloc started last after DELAY s,
# then the time its stops have to go
kill_round() {
	sleep "$2"
	kill -KILL "$TL_PID" 2>/dev/null
	wait_pid "$TL_PID" 10
	sleep "$RELEASE_SECS"
}

# forks_again PID: PID has a child now, or within 2 s
forks_again() {
	local _
	for _ in $(seq 20); do
		pgrep -P "$1" >/dev/null && return 0
		sleep 0.1
	done
	return 1
}

test_killed_fork_storm() { # --follow-forks -p of a forking parent, SIGKILL at random moments: no child left stopped, the parent never hangs
	need_target forkstorm || return
	local i sp delay left total=0 hung=0
	start_target forkstorm 600 4 || return
	sp=$TGT_PID
	for i in $(seq "$KILL_ROUNDS"); do
		delay=$(random_delay 100 1000)
		tl_bg k$i -i 0 -t 0 --follow-forks -p "$sp"
		kill_round k$i "$delay" 2>/dev/null
		# shellcheck disable=SC2046
		left=$(stopped_count $(pgrep -P "$sp"))
		if [ "$left" != 0 ]; then
			note "round $i, killed after $delay s: $left children stopped"
			total=$((total + left))
			pkill -CONT -P "$sp"
		fi
		# the parent reaps its children: it must go on forking (within 2 s:
		# forks wait while the kernel takes probes out of processes)
		forks_again "$sp" || hung=$((hung + 1))
	done
	assert_eq "$total" 0 "fork storm: children left stopped after $KILL_ROUNDS SIGKILLs"
	assert_eq "$hung" 0 "fork storm: rounds after which the parent no longer forked"
	assert_eq "$(stopped_count "$sp")" 0 "fork storm: the parent is not stopped"
}

test_killed_exec_chain() { # a launched command through a chain of execs, SIGKILL at random moments: it runs on, never stopped
	need_target execchain || return
	local i name="tlx$$" delay left total=0 pids
	cp "$TB/execchain" "$T_DIR/$name"
	for i in $(seq "$KILL_ROUNDS"); do
		delay=$(random_delay 50 800)
		tl_bg e$i -i 0 -t 0 -- "$T_DIR/$name" 60 2
		kill_round e$i "$delay" 2>/dev/null
		pids=$(pids_named "$name")
		# shellcheck disable=SC2086
		left=$(stopped_count $pids)
		if [ "$left" != 0 ]; then
			note "round $i, killed after $delay s: $left stopped"
			# shellcheck disable=SC2086
			note "$(describe_stopped $pids)"
			total=$((total + left))
		fi
		# shellcheck disable=SC2086
		[ -z "$pids" ] || kill -KILL $pids 2>/dev/null
	done
	assert_eq "$total" 0 "exec chain: commands left stopped after $KILL_ROUNDS SIGKILLs"
}

test_killed_comm_storm() { # --comm NAME while processes of that name start every 20 ms, SIGKILL at random moments: none left stopped
	need_target sleeper || return
	local i name="tlc$$" delay left total=0
	name_storm "$name" 3000 0.02
	for i in $(seq "$KILL_ROUNDS"); do
		delay=$(random_delay 100 1000)
		tl_bg c$i -i 0 -t 0 --comm "$name"
		kill_round c$i "$delay" 2>/dev/null
		# shellcheck disable=SC2046
		left=$(stopped_count $(pids_named "$name"))
		if [ "$left" != 0 ]; then
			note "round $i, killed after $delay s: $left stopped"
			total=$((total + left))
			pkill -CONT -x "$name"
		fi
	done
	kill "$STORM_PID" 2>/dev/null
	pkill -KILL -x "$name"
	assert_eq "$total" 0 "--comm storm: processes left stopped after $KILL_ROUNDS SIGKILLs"
}

test_killed_snapshot() { # SIGKILL while leak checks make snapshots again and again: the thread that made them computes on unharmed, no SIGCHLD, no child of the target, no copy left
	need_target snapped || return
	local i tp delay stuck=0 traced=0 children=0 st
	rm -f "$T_DIR/sk.ready"
	TL_READY="$T_DIR/sk.ready" "$TB/snapped" >"$T_DIR/sk.tout" 2>&1 &
	tp=$!
	wait_for_grep "$T_DIR/sk.ready" '^ready [0-9]+$' 20 "$tp" || { fail "snapped: not ready"; return; }
	for i in $(seq "$KILL_ROUNDS"); do
		delay=$(random_delay 0 300)
		tl_bg sk$i -i 0 -t 0 --leak-check -p "$tp"
		wait_for_grep "$T_DIR/sk$i.err" "attached to pid $tp" 20 "$TL_PID" || fail "round $i: no attach"
		( while kill -USR1 "$TL_PID" 2>/dev/null; do sleep 0.01; done ) &
		local usr1=$!
		kill_round sk$i "$delay" 2>/dev/null
		wait "$usr1" 2>/dev/null
		st=$(awk '{ print $3 }' "/proc/$tp/stat" 2>/dev/null)
		[ "$st" = T ] || [ "$st" = t ] && { stuck=$((stuck + 1)); kill -CONT "$tp"; }
		pid_alive "$tp" || { fail "snapshots killed: the target died in round $i: $(cat "$T_DIR/sk.tout")"; return; }
		[ "$(awk '/^TracerPid:/ { print $2 }' "/proc/$tp/status")" = 0 ] || traced=$((traced + 1))
		# the helper is reaped by the thread that made it, at once
		[ -z "$(pgrep -P "$tp")" ] || children=$((children + 1))
	done
	assert_eq "$stuck" 0 "snapshots killed: rounds after which the target was left stopped"
	assert_eq "$traced" 0 "snapshots killed: rounds after which it was left traced"
	assert_eq "$children" 0 "snapshots killed: rounds after which it had a child"
	rm -f "$T_DIR/sk.ready.out"
	kill -USR1 "$tp"
	wait_for_grep "$T_DIR/sk.ready.out" '^sigchld ' 10 "$tp" || fail "snapped: no answer"
	assert_match "$(cat "$T_DIR/sk.ready.out")" '^sigchld 0 wait 10 wall 10 errors 0 rounds [1-9][0-9]*$' \
		"snapshots killed: its sums right, no SIGCHLD, nothing to wait for"
	# copies let go when tracelloc died run only their exit; init reaps them
	for i in $(seq 40); do
		[ "$(pgrep -x snapped | grep -cvx "$tp")" = 0 ] && break
		sleep 0.25
	done
	assert_eq "$(pgrep -x snapped | grep -cvx "$tp")" 0 "snapshots killed: no copy left"
	kill "$tp"
}

test_killed_streaming() { # SIGKILL while a snapshot streams its memory to the scan: the copy dies with tracelloc, the target runs on, never left stopped or traced
	need_target lostbig || return
	local i j tp usr1 during=0 stuck=0 traced=0 left=0 st
	for i in $(seq $(((KILL_ROUNDS + 1) / 2))); do
		TL_ENV=(TL_READY="$T_DIR/ks$i.ready")
		tl_bg ks$i -i 0 -t 0 --leak-check -- "$TB/lostbig" 64
		wait_for_grep "$T_DIR/ks$i.ready" '^ready [0-9]+$' 30 "$TL_PID" || { fail "round $i: not ready"; return; }
		tp=$(awk '{ print $2 }' "$T_DIR/ks$i.ready")
		( while kill -USR1 "$TL_PID" 2>/dev/null; do sleep 0.01; done ) &
		usr1=$!
		# till a copy is there: a scan of 64 MiB under way
		for j in $(seq 400); do
			[ "$(pgrep -x lostbig | grep -cvx "$tp")" -gt 0 ] && break
			sleep 0.005
		done
		[ "$(pgrep -x lostbig | grep -cvx "$tp")" -gt 0 ] && during=$((during + 1))
		kill_round ks$i "$(random_delay 0 20)" 2>/dev/null
		wait "$usr1" 2>/dev/null
		pid_alive "$tp" || { fail "streaming killed: the target died in round $i"; return; }
		st=$(awk '{ print $3 }' "/proc/$tp/stat" 2>/dev/null)
		[ "$st" = T ] || [ "$st" = t ] && stuck=$((stuck + 1))
		[ "$(awk '/^TracerPid:/ { print $2 }' "/proc/$tp/status")" = 0 ] || traced=$((traced + 1))
		for j in $(seq 20); do
			[ "$(pgrep -x lostbig | grep -cvx "$tp")" = 0 ] && break
			sleep 0.1
		done
		[ "$(pgrep -x lostbig | grep -cvx "$tp")" = 0 ] || left=$((left + 1))
		kill -KILL "$tp"
	done
	assert_int_ge "$during" 1 "streaming killed: rounds killed with a copy there"
	assert_eq "$stuck" 0 "streaming killed: rounds after which the target was left stopped"
	assert_eq "$traced" 0 "streaming killed: rounds after which it was left traced"
	assert_eq "$left" 0 "streaming killed: rounds after which a copy was left"
}

test_killed_leak_check() { # SIGKILL while leak checks stop the target again and again (SIGUSR1), and while a command is held at exit: never left stopped, traced or unreaped
	need_target lost || return
	local i tp delay stuck=0 traced=0 st
	start_target lost || return
	tp=$TGT_PID
	for i in $(seq "$KILL_ROUNDS"); do
		delay=$(random_delay 0 300)
		tl_bg lk$i -i 0 -t 0 --leak-check -p "$tp"
		# (SIGUSR1 before its signals are set up would end tracelloc, or the
		# shell it is forked from)
		wait_for_grep "$T_DIR/lk$i.err" "attached to pid $tp" 20 "$TL_PID" || fail "round $i: no attach"
		# a check every 10 ms: SIGKILL lands in one often
		( while kill -USR1 "$TL_PID" 2>/dev/null; do sleep 0.01; done ) &
		local usr1=$!
		kill_round lk$i "$delay" 2>/dev/null
		wait "$usr1" 2>/dev/null
		st=$(awk '{ print $3 }' "/proc/$tp/stat" 2>/dev/null)
		[ "$st" = T ] || [ "$st" = t ] && { stuck=$((stuck + 1)); kill -CONT "$tp"; }
		if ! pid_alive "$tp"; then
			wait "$tp" 2>/dev/null
			fail "leak checks killed: the target died in round $i (status $?): $(cat "$T_DIR/lost.terr")"
			return
		fi
		[ "$(awk '/^TracerPid:/ { print $2 }' "/proc/$tp/status")" = 0 ] || traced=$((traced + 1))
	done
	assert_eq "$stuck" 0 "leak checks killed: rounds after which the target was left stopped"
	assert_eq "$traced" 0 "leak checks killed: rounds after which it was left traced"
	pid_alive "$tp" || fail "leak checks killed: the target died"
	kill "$tp"
	# a command held at its exit when tracelloc dies: it exits all the same
	stuck=0
	for i in $(seq 5); do
		rm -f "$T_DIR/lx.ready"
		TL_ENV=(TL_READY="$T_DIR/lx.ready")
		tl_bg lx$i -i 0 -t 0 --leak-check -- "$TB/lost" exit
		wait_for_grep "$T_DIR/lx.ready" '^ready [0-9]+$' 20 "$TL_PID" || { fail "lost exit: not ready"; continue; }
		tp=$(awk '{ print $2 }' "$T_DIR/lx.ready")
		kill -KILL "$TL_PID" 2>/dev/null
		wait_pid "$TL_PID" 10
		sleep "$RELEASE_SECS"
		sleep 0.5
		pid_alive "$tp" && { stuck=$((stuck + 1)); kill -KILL "$tp"; }
	done
	assert_eq "$stuck" 0 "held at exit, tracelloc killed: commands that did not end"
}

test_duration_many_processes() { # --duration with 60 processes of --comm's name: it ends on time; closing their probes waits for no one
	need_target sleeper || return
	local i name="tld$$" pids="" t0 t1 over
	cp "$TB/sleeper" "$T_DIR/$name"
	for i in $(seq 60); do
		"$T_DIR/$name" 30 </dev/null >/dev/null 2>&1 &
		register_pid "$!"
		pids="$pids $!"
	done
	sleep 0.5
	tl_bg d -i 0 -t 0 --comm "$name" -d 2
	if ! wait_for_grep "$T_DIR/d.err" '^tracelloc: attached' 20 "$TL_PID"; then
		fail "--comm with 60 processes: no attached line"
		show "$T_DIR/d.err"
	fi
	t0=$(now_ns)
	wait_pid "$TL_PID" 30
	t1=$(now_ns)
	# shellcheck disable=SC2086
	kill -KILL $pids 2>/dev/null
	assert_eq "$WAIT_RC" 0 "--comm with 60 processes, -d 2: exit status"
	assert_grep "$T_DIR/d.out" '^==> summary: 60 processes, traced 2\.[0-9]+ s, duration elapsed' \
		"--comm with 60 processes: the summary"
	# from the attached line to the exit: the 2 s, and what the end takes
	over=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 - 2 }')
	assert_match "$(awk -v o="$over" -v k="$SLOW" 'BEGIN { print (o < 1.5 * k) ? "prompt" : "late by " o " s" }')" \
		'^prompt$' "--comm with 60 processes: ended within $((SLOW * 3 / 2)) s of its duration (probes closed at once)"
}

test_sigterm_fork_storm_prompt() { # SIGTERM during a fork storm under --follow-forks: tracelloc ends within a second, its summary's time is when tracing stopped
	need_target forkstorm || return
	local t0 t1 took traced
	tl_bg f -i 0 -t 0 --follow-forks -- "$TB/forkstorm" 20 10 50
	if ! wait_for_grep "$T_DIR/f.err" '^tracelloc: attached' 10 "$TL_PID"; then
		fail "fork storm: tracelloc did not attach"
		return
	fi
	sleep 2
	t0=$(now_ns)
	kill -TERM "$TL_PID"
	wait_pid "$TL_PID" 30
	t1=$(now_ns)
	pkill -KILL -f "$TB/forkstorm" 2>/dev/null
	took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
	assert_match "$(awk -v t="$took" -v k="$SLOW" 'BEGIN { print (t < k) ? "prompt" : "took " t " s" }')" \
		'^prompt$' "fork storm: SIGTERM to exit within $SLOW s"
	traced=$(sed -n 's/^==> summary: .*traced \([0-9.]*\) s, interrupted.*/\1/p' "$T_DIR/f.out")
	assert_match "${traced:-none}" '^[0-9.]+$' "fork storm: the summary says how long it traced"
	assert_match "$(awk -v t="${traced:-0}" -v k="$SLOW" 'BEGIN { print (t >= 1.5 && t < 2 + 1.5 * k) ? "ok" : "traced " t " s" }')" \
		'^ok$' "fork storm: the summary's time ends at the signal (about 2 s after attach)"
}

test_sigint_comm_storm() { # a clean SIGINT while processes of --comm's name start: every one held goes on
	need_target sleeper || return
	local i name="tli$$" left total=0
	name_storm "$name" 1000 0.01
	for i in 1 2 3; do
		tl_bg s$i -i 0 -t 0 --comm "$name"
		wait_for_grep "$T_DIR/s$i.err" "^tracelloc: tracing processes called $name" 10 || fail "--comm: not started"
		sleep 0.5
		kill -INT "$TL_PID"
		wait_pid "$TL_PID" 20
		assert_eq "$WAIT_RC" 0 "SIGINT round $i: tracelloc exit status"
		sleep 0.3
		# shellcheck disable=SC2046
		left=$(stopped_count $(pids_named "$name"))
		total=$((total + left))
		pkill -CONT -x "$name"
	done
	kill "$STORM_PID" 2>/dev/null
	pkill -KILL -x "$name"
	assert_eq "$total" 0 "--comm storm: processes left stopped after a clean SIGINT"
}

test_sighup() { # SIGHUP (a dropped ssh session) ends the trace as SIGTERM does: summary, output file, exit 0
	need_target sleeper || return
	start_target sleeper 20 || return
	tl_bg h -i 0 -p "$TGT_PID" -f "$T_DIR/h.fg"
	wait_for_grep "$T_DIR/h.err" "attached to pid $TGT_PID" 20 "$TL_PID" || { fail "SIGHUP: no attach"; return; }
	sleep 0.3
	kill -HUP "$TL_PID"
	wait_pid "$TL_PID" 20
	assert_eq "$WAIT_RC" 0 "SIGHUP: tracelloc exit status"
	assert_grep "$T_DIR/h.out" '^==> summary: pid [0-9]+, traced .*, interrupted$' "SIGHUP: the summary"
	assert_file "$T_DIR/h.fg" "SIGHUP: the folded file"
	pid_alive "$TGT_PID" || fail "SIGHUP: the target died"
}

test_parent_stops_child() { # a parent that stops its child on purpose (--follow-forks): the child stays stopped
	need_target stopper || return
	tl_run s -i 0 -t 0 --follow-forks -- "$TB/stopper" 3
	assert_eq "$TL_RC" 0 "stopper: tracelloc exit status"
	assert_grep "$T_DIR/s.out" '^ran 0$' "stopper: a child its parent stopped did not run"
	assert_grep "$T_DIR/s.out" '^==> summary: .* target exited with status 0' "stopper: the target's own check"
}

test_guardian_gone() { # no guardian process is left once tracelloc has ended, cleanly or killed
	need_target sleeper || return
	local g
	start_target sleeper 20 || return
	tl_bg g -i 0 -p "$TGT_PID"
	wait_for_grep "$T_DIR/g.err" "attached to pid $TGT_PID" 20 "$TL_PID" || { fail "guardian: no attach"; return; }
	g=$(pgrep -P "$TL_PID" -x tracelloc-guard)
	assert_match "$g" '^[0-9]+$' "guardian: a tracelloc-guard child while tracing"
	kill -INT "$TL_PID"
	wait_pid "$TL_PID" 20
	pid_alive "$g" && fail "guardian: still there after a clean end"
	tl_bg g2 -i 0 -p "$TGT_PID"
	wait_for_grep "$T_DIR/g2.err" "attached to pid $TGT_PID" 20 "$TL_PID" || { fail "guardian: no attach"; return; }
	g=$(pgrep -P "$TL_PID" -x tracelloc-guard)
	kill -KILL "$TL_PID"
	wait_pid "$TL_PID" 20
	sleep 1.5
	pid_alive "$g" && fail "guardian: still there 1.5 s after tracelloc was killed"
	pid_alive "$TGT_PID" || fail "guardian: the target died"
}

test_fork_storm_counted() { # 9 children alive at once, more than 64 over the run, ulimit -n 256: each traced exactly once, no phantom process, nothing uncounted
	need_target forkstorm || return
	local n
	# under a soft limit of 256 descriptors: tracelloc raises it (a traced
	# process holds tens: a link per probe, its files)
	(
		ulimit -Sn 256
		tl_run f -i 0 -t 0 --follow-forks -f "$T_DIR/f.fg" -m count -- "$TB/forkstorm" 1 9
		echo "$TL_RC" >"$T_DIR/f.rc"
	)
	TL_RC=$(cat "$T_DIR/f.rc")
	assert_eq "$TL_RC" 0 "fork storm: tracelloc exit status"
	n=$(sed -n 's/^forked \([0-9]*\)$/\1/p' "$T_DIR/f.out")
	assert_int_ge "$n" 20 "fork storm: children forked"
	assert_grep "$T_DIR/f.out" "^==> summary: $((n + 1)) processes, traced .*target exited with status 0" \
		"fork storm: every child a process of the trace, the parent too"
	assert_no_grep "$T_DIR/f.out" 'processes not traced' "fork storm: none left out"
	assert_eq "$(fold_sum "$T_DIR/f.fg" site_storm_child)" "$n" "fork storm: one call in each child"
	assert_no_grep "$T_DIR/f.fg" 'pid \?' "fork storm: no process without a pid"
}

test_hostile_names() { # comm and thread names with escape sequences and a newline: the text report shows them escaped, never raw
	need_target hostile || return
	tl_run h -i 0 --per-thread --follow-forks -- "$TB/hostile"
	assert_eq "$TL_RC" 0 "hostile names: tracelloc exit status"
	if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$T_DIR/h.out" "$T_DIR/h.err"; then
		fail "hostile names: a control character reached the report raw"
		LC_ALL=C grep -n $'[\x01-\x08\x0b-\x1f\x7f]' "$T_DIR/h.out" "$T_DIR/h.err" | cat -v | head -3
	fi
	assert_grep "$T_DIR/h.out" '^ +thread \\x1b\]0;pwned\\x07$' "hostile names: the main thread's name, escaped"
	assert_grep "$T_DIR/h.out" 'x\\x0a\\x1b\[2Jy' "hostile names: the thread name, escaped, on one line"
	assert_grep "$T_DIR/h.out" 'site_hostile_thread' "hostile names: the thread's stack is reported"
}

# stripped_copy NAME: a copy of the sleeper target at $T_DIR/NAME without its
# debug info, with a .gnu_debuglink to NAME.debug, which is kept aside as
# $T_DIR/NAME.real
stripped_copy() {
	cp "$TB/sleeper" "$T_DIR/$1"
	objcopy --only-keep-debug "$T_DIR/$1" "$T_DIR/$1.debug"
	objcopy --strip-debug --add-gnu-debuglink="$T_DIR/$1.debug" "$T_DIR/$1"
	mv "$T_DIR/$1.debug" "$T_DIR/$1.real"
}

# start_copy PATH ARGS... (through env, unshare...): TGT_PID once it is ready
start_copy() {
	rm -f "$T_DIR/copy.ready"
	TL_READY="$T_DIR/copy.ready" "$@" </dev/null >/dev/null 2>&1 &
	register_pid $!
	wait_for_grep "$T_DIR/copy.ready" '^ready [0-9]+$' 10 || { fail "$1 did not get ready"; return 1; }
	TGT_PID=$(awk '{ print $2 }' "$T_DIR/copy.ready")
	register_pid "$TGT_PID"
}

test_debuglink_fifo() { # the .gnu_debuglink file beside the binary is a FIFO: tracelloc neither opens nor waits on it, and ends
	need_target sleeper || return
	stripped_copy fifoed
	mkfifo "$T_DIR/fifoed.debug"
	start_copy "$T_DIR/fifoed" 20 || return
	tl_run f -i 0 -t 3 -d 1 -p "$TGT_PID"
	assert_eq "$TL_RC" 0 "debuglink FIFO: tracelloc ended, exit status"
	assert_grep "$T_DIR/f.out" ' site_sleeper_tick\+0x[0-9a-f]+ \(fifoed\)$' \
		"debuglink FIFO: the frame named by the symbol table, no line"
	pid_alive "$TGT_PID" || fail "debuglink FIFO: the target died"
}

test_debuglink_mount_namespace() { # in a private mount namespace, a debug file that is a symlink to a path hidden there: the host's file at that path is never read
	need_target sleeper || return
	command -v unshare >/dev/null || { fail "unshare (util-linux) is missing"; return; }
	mkdir -p "$T_DIR/hidden"
	stripped_copy nsprog
	# the host has a valid debug file where the symlink points; the
	# namespace has an empty tmpfs over that directory
	mv "$T_DIR/nsprog.real" "$T_DIR/hidden/nsprog.debug"
	chmod 600 "$T_DIR/hidden/nsprog.debug"
	ln -s "$T_DIR/hidden/nsprog.debug" "$T_DIR/nsprog.debug"
	start_copy unshare -m sh -c "mount -t tmpfs none '$T_DIR/hidden' && exec '$T_DIR/nsprog' 20" || return
	[ "$(readlink "/proc/$TGT_PID/ns/mnt")" != "$(readlink /proc/self/ns/mnt)" ] ||
		{ fail "mount namespace: the target is not in a namespace of its own"; return; }
	tl_run n -i 0 -t 3 -d 1 -p "$TGT_PID"
	assert_eq "$TL_RC" 0 "mount namespace: tracelloc exit status"
	assert_grep "$T_DIR/n.out" ' site_sleeper_tick\+0x[0-9a-f]+ \(nsprog\)' \
		"mount namespace: the frame is reported"
	assert_no_grep "$T_DIR/n.out" 'sleeper\.c:[0-9]+' \
		"mount namespace: no line from the host's file behind the target's symlink"
}

test_deleted_binary_fifo() { # the main thread gone and the binary deleted, a FIFO in its place: attach opens nothing that blocks, and ends
	need_target mainexit || return
	cp "$TB/mainexit" "$T_DIR/gone"
	start_copy "$T_DIR/gone" || return
	rm -f "$T_DIR/gone"
	mkfifo "$T_DIR/gone"
	TL_TIMEOUT=20 tl_run g -i 0 -t 3 -d 1 -p "$TGT_PID"
	assert_eq "$TL_RC" 0 "deleted binary, FIFO in its place: tracelloc exit status"
	assert_grep "$T_DIR/g.err" "^tracelloc: attached to pid $TGT_PID: glibc" "deleted binary: libc is probed"
	kill -0 "$TGT_PID" 2>/dev/null || fail "deleted binary: the target died"
}

run_suite_tests "$0" safety "${1:-}"
