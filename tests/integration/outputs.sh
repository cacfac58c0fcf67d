# shellcheck shell=bash
# tests/integration/outputs.sh - where outputs go: files, devices, FIFOs, the endpoint (sourced by tests/integration.sh)

# check_basic_counts FILE WHAT: FILE is basic's folded output with -m count,
# whole: every site's calls as basic.c makes them, 55 in all
check_basic_counts() {
	local fg=$1 what=$2 site want
	check_folded_format "$fg" "$what" || return
	for site in site_malloc_mixed:24 site_malloc_freed:10 site_calloc_freed:7 site_malloc_leak:5 \
		site_calloc_leak:3 site_malloc_zero:3 site_malloc_big:2 site_deep_alloc:1; do
		want=${site#*:}
		site=${site%:*}
		assert_eq "$(fold_sum "$fg" "$site")" "$want" "$what: calls of $site"
	done
	assert_eq "$(fold_total "$fg")" 55 "$what: calls in all"
}

# device_id PATH: "character special file 1,3" for /dev/null
device_id() {
	stat -c '%F %t,%T' "$1" 2>&1
}

test_output_devices() { # --pprof/--flamegraph to a char device: written to, never replaced (the real /dev/null too); /dev/full: ENOSPC
	need_target basic || return
	if ! { mknod "$T_DIR/null" c 1 3 && mknod "$T_DIR/full" c 1 7; }; then
		fail "devices: mknod"
		return
	fi
	tl_run n -m count --pprof "$T_DIR/null" -f "$T_DIR/null" -- "$TB/basic"
	check_normal_end n '^target exited with status 0$' "a copy of /dev/null"
	assert_eq "$(device_id "$T_DIR/null")" "character special file 1,3" "a copy of /dev/null stays the device"
	assert_no_grep "$T_DIR/n.err" 'cannot' "a copy of /dev/null: no complaint"
	tl_run r -m count --pprof /dev/null -f /dev/null -- "$TB/basic"
	if ! assert_eq "$(device_id /dev/null)" "character special file 1,3" "the real /dev/null stays the device"; then
		rm -f /dev/null && mknod -m 666 /dev/null c 1 3
	fi
	check_normal_end r '^target exited with status 0$' "/dev/null"
	# the device's own reason, not the writer's "Input/output error"
	tl_run f -m count -f "$T_DIR/full" -- "$TB/basic"
	assert_eq "$TL_RC" 1 "a copy of /dev/full: exit status"
	assert_grep "$T_DIR/f.err" "^tracelloc: cannot write $T_DIR/full: No space left on device\$" \
		"a copy of /dev/full: the line says why" || show "$T_DIR/f.err"
	assert_eq "$(device_id "$T_DIR/full")" "character special file 1,7" "a copy of /dev/full stays the device"
	parse_summary "$T_DIR/f.out"
}

test_output_fifo() { # a FIFO with a reader gets the exact folded content; with none, one line at the end, no hang
	need_target basic || return
	local reader t0
	mkfifo "$T_DIR/fifo" || {
		fail "fifo: mkfifo"
		return
	}
	# killed by the harness if it is still waiting (for a FIFO that was replaced)
	cat "$T_DIR/fifo" >"$T_DIR/read.fg" &
	reader=$!
	register_pid "$reader"
	tl_run w -m count -f "$T_DIR/fifo" -- "$TB/basic"
	check_normal_end w '^target exited with status 0$' "fifo"
	wait_pid "$reader" 10 || fail "fifo: the reader did not see the end"
	check_basic_counts "$T_DIR/read.fg" "what the FIFO's reader got"
	[ -p "$T_DIR/fifo" ] || fail "fifo: no longer a FIFO"
	# nobody reads: the check at the start cannot know, the write says so at once
	t0=$(now_ns)
	tl_run nr -m count -f "$T_DIR/fifo" -- "$TB/basic"
	assert_between "$(secs_since "$t0")" 0 20 "fifo with no reader: seconds tracelloc ran"
	assert_eq "$TL_RC" 1 "fifo with no reader: exit status"
	assert_grep "$T_DIR/nr.err" "^tracelloc: cannot write $T_DIR/fifo: no reader\$" "fifo with no reader: the line" ||
		show "$T_DIR/nr.err"
	[ -p "$T_DIR/fifo" ] || fail "fifo with no reader: no longer a FIFO"
}

test_output_stdout() { # -f /dev/stdout into a pipe, -f -, -f >(cat): the folded lines alone there, the report on stderr
	need_target basic || return
	local reader
	timeout -k 5 "$TL_TIMEOUT" "$TL" -m count -f /dev/stdout -- "$TB/basic" 2>"$T_DIR/p.err" </dev/null |
		cat >"$T_DIR/p.out"
	TL_RC=${PIPESTATUS[0]}
	assert_eq "$TL_RC" 0 "/dev/stdout: exit status" || show "$T_DIR/p.err"
	check_basic_counts "$T_DIR/p.out" "/dev/stdout into a pipe"
	parse_summary "$T_DIR/p.err"
	assert_grep "$T_DIR/p.err" '^==> [0-9]+ top allocators' "/dev/stdout: the report on stderr"
	# -: standard output, a regular file here
	tl_run d -m count -f - -- "$TB/basic"
	assert_eq "$TL_RC" 0 "-: exit status"
	check_basic_counts "$T_DIR/d.out" "-f -"
	parse_summary "$T_DIR/d.err"
	# a process substitution: /dev/fd/N, a pipe
	tl_run ps -m count -f >(cat >"$T_DIR/ps.fg") -- "$TB/basic"
	reader=$!
	register_pid "$reader"
	wait_pid "$reader" 10 || fail ">(cat): the reader did not see the end"
	assert_eq "$TL_RC" 0 ">(cat): exit status" || show "$T_DIR/ps.err"
	check_basic_counts "$T_DIR/ps.fg" "-f >(cat)"
	parse_summary "$T_DIR/ps.out"
}

test_output_own_symlink() { # a link of the user's own, even in a sticky dir: followed, the link stays, its target replaced whole
	need_target basic || return
	local d=$T_DIR/sticky left
	mkdir -p "$d" "$T_DIR/real" && chmod 1777 "$d"
	echo "stale;old_stack 999999999" >"$T_DIR/real/out.fg"
	ln -s "$T_DIR/real/out.fg" "$d/out.fg"
	tl_run l -m count -f "$d/out.fg" -- "$TB/basic"
	check_normal_end l '^target exited with status 0$' "own symlink"
	[ -L "$d/out.fg" ] || fail "own symlink: no longer a symlink"
	assert_eq "$(readlink "$d/out.fg")" "$T_DIR/real/out.fg" "own symlink: its text"
	check_basic_counts "$T_DIR/real/out.fg" "own symlink: its target"
	left=$(cd "$T_DIR/real" && find . -mindepth 1 | sed 's|^\./||' | sort | tr '\n' ' ')
	assert_eq "$left" "out.fg " "own symlink: files beside its target (no temp file)"
}

test_output_full_disk() { # --svg and -f on a full filesystem: the folded file written whole, one line "No space left on device", exit 1
	need_target basic || return
	local m=$T_DIR/full left
	mkdir -p "$m"
	if ! mount -t tmpfs -o size=64k tracelloc-test "$m"; then
		fail "full disk: cannot mount a tmpfs"
		return
	fi
	# 12 KiB left: the folded file (2 KiB) fits, the SVG (38 KiB) does not
	dd if=/dev/zero of="$m/fill" bs=4k count=13 status=none
	tl_run s -m count --svg "$m/out.svg" -f "$m/out.fg" -- "$TB/basic"
	assert_eq "$TL_RC" 1 "full disk: exit status"
	parse_summary "$T_DIR/s.out"
	assert_eq "$(grep -c . "$T_DIR/s.err")" 2 "full disk: lines on stderr (attached, one failure)" ||
		show "$T_DIR/s.err"
	assert_grep "$T_DIR/s.err" "^tracelloc: cannot write $m/out.svg: No space left on device\$" \
		"full disk: the SVG's line says why"
	check_basic_counts "$m/out.fg" "full disk: the folded file"
	left=$(cd "$m" && find . -mindepth 1 | sed 's|^\./||' | sort | tr '\n' ' ')
	assert_eq "$left" "fill out.fg " "full disk: files (no SVG, no temp file)"
	umount "$m" || fail "full disk: umount"
}

# head_pipe NAME stdout|stderr ARGS...: tracelloc ARGS, that stream piped
# to head -1, or to grep -m 1 of $HEAD_UNTIL (stdout to NAME.out, stderr to
# NAME.err otherwise); each end's
# time in NAME.end and NAME.head_end, tracelloc's status in NAME.rc
head_pipe() {
	local name=$1 stream=$2
	shift 2
	{
		if [ "$stream" = stdout ]; then
			timeout -k 5 "$TL_TIMEOUT" "$TL" "$@" 2>"$T_DIR/$name.err" </dev/null
		else
			timeout -k 5 "$TL_TIMEOUT" "$TL" "$@" 2>&1 >"$T_DIR/$name.out" </dev/null
		fi
		echo $? >"$T_DIR/$name.rc"
		now_ns >"$T_DIR/$name.end"
	} | {
		# HEAD_UNTIL: the reader closes the pipe after the first line that
		# matches it, not after the first line
		if [ -n "${HEAD_UNTIL:-}" ]; then
			grep -m 1 -E "$HEAD_UNTIL" >"$T_DIR/$name.head"
		else
			head -1 >"$T_DIR/$name.head"
		fi
		now_ns >"$T_DIR/$name.head_end"
	}
}

# head_check NAME WHAT: tracelloc ended within 3 s of head, with status 0
head_check() {
	local name=$1 what=$2 el
	el=$(awk -v a="$(cat "$T_DIR/$name.head_end")" -v b="$(cat "$T_DIR/$name.end")" \
		'BEGIN { printf "%.2f", (b - a) / 1e9 }')
	note "$what: tracelloc ended ${el}s after head"
	assert_between "$el" 0 3 "$what: seconds tracelloc ran after head ended"
	assert_eq "$(cat "$T_DIR/$name.rc")" 0 "$what: exit status"
}

test_head_closes_stdout() { # tracelloc | head -1 (a 20 s target): ends when head has, outputs still written, exit 0
	need_target sleeper || return
	head_pipe h stdout -i 0.1 -f "$T_DIR/h.fg" -- "$TB/sleeper" 20
	head_check h "| head -1"
	assert_grep "$T_DIR/h.head" '^\[ *[0-9]+\.[0-9]s\] live: ' "| head -1: head got a live line"
	assert_eq "$(fold_sum "$T_DIR/h.fg" site_sleeper_start)" 4096 "| head -1: the folded file, written"
	assert_no_grep "$T_DIR/h.err" 'cannot|Broken pipe' "| head -1: no complaint about the closed pipe"
	# -f -: the folded lines on stdout, the reports on stderr, which closes
	# after the first live line (after "attached", the target may not have
	# run yet when tracelloc sees the pipe closed)
	HEAD_UNTIL='live: ' head_pipe e stderr -i 0.1 -f - -- "$TB/sleeper" 20
	head_check e "2>&1 >file | grep -m 1"
	assert_grep "$T_DIR/e.head" '^\[ *[0-9]+\.[0-9]s\] live: ' "2>&1 >file | grep -m 1: it got stderr's live line"
	assert_eq "$(fold_sum "$T_DIR/e.out" site_sleeper_start)" 4096 "2>&1 >file | grep -m 1: the folded lines on stdout"
	assert_no_grep "$T_DIR/e.out" '^==> |live: ' "2>&1 >file | grep -m 1: no report on stdout"
}

test_summary_invariant() { # live allocations = allocation calls - frees (launch mode)
	need_target basic || return
	need_target realloc || return
	need_target threads || return
	local t
	for t in basic realloc threads; do
		tl_run "$t" -- "$TB/$t"
		check_normal_end "$t" '^target exited with status 0$' "$t" || continue
		check_invariant "$t"
		assert_eq "$SUM_UNKNOWN" 0 "$t: unknown frees (traced from the start)"
		assert_int_ge "$SUM_CALLS" 1 "$t: allocation calls"
		assert_int_ge "$SUM_FREES" 1 "$t: frees"
	done
}

test_metrics() { # each --flamegraph-metric value, default = live, hard-coded values
	need_target basic || return
	local m
	# long options; the default metric is live
	tl_run def --flamegraph "$T_DIR/def.fg" -- "$TB/basic"
	check_normal_end def '^target exited with status 0$' "default metric" || return
	for m in $ALL_METRICS; do
		tl_run "$m" --flamegraph-metric "$m" --flamegraph "$T_DIR/$m.fg" -- "$TB/basic"
		check_normal_end "$m" '^target exited with status 0$' "--flamegraph-metric $m" || continue
		assert_eq "$(fold_total "$T_DIR/$m.fg")" "$(summary_for_metric "$m")" \
			"--flamegraph-metric $m: total of the folded file = the summary's $m"
	done
	# values written here by hand (not from the target's own ledger):
	# site_malloc_zero: 3 x malloc(0), 1 freed -> live 0 B, 2 live, 0 B, 3 calls
	# site_malloc_mixed: malloc(64*(i+1)), i = 0..23, the even i freed
	#   -> live 64*(2+4+...+24) = 9984 B, 12 live, 64*300 = 19200 B, 24 calls
	# site_calloc_leak: 3 x calloc(4, 256) -> 3072 B live, 3 live, 3072 B, 3 calls
	assert_eq "$(fold_sum "$T_DIR/def.fg" site_malloc_mixed)" 9984 "default metric: site_malloc_mixed (= live bytes)"
	assert_eq "$(fold_sum "$T_DIR/live.fg" site_malloc_mixed)" 9984 "live: site_malloc_mixed"
	assert_eq "$(fold_sum "$T_DIR/live-count.fg" site_malloc_mixed)" 12 "live-count: site_malloc_mixed"
	assert_eq "$(fold_sum "$T_DIR/allocated.fg" site_malloc_mixed)" 19200 "allocated: site_malloc_mixed"
	assert_eq "$(fold_sum "$T_DIR/count.fg" site_malloc_mixed)" 24 "count: site_malloc_mixed"
	assert_eq "$(fold_sum "$T_DIR/live.fg" site_malloc_zero)" 0 "live: site_malloc_zero"
	assert_eq "$(fold_sum "$T_DIR/live-count.fg" site_malloc_zero)" 2 "live-count: site_malloc_zero"
	assert_eq "$(fold_sum "$T_DIR/allocated.fg" site_malloc_zero)" 0 "allocated: site_malloc_zero"
	assert_eq "$(fold_sum "$T_DIR/count.fg" site_malloc_zero)" 3 "count: site_malloc_zero"
	assert_eq "$(fold_sum "$T_DIR/count.fg" site_malloc_freed)" 10 "count: site_malloc_freed"
	assert_eq "$(fold_sum "$T_DIR/live.fg" site_malloc_freed)" 0 "live: site_malloc_freed"
	assert_eq "$(fold_sum "$T_DIR/allocated.fg" site_calloc_leak)" 3072 "allocated: site_calloc_leak"
	# a line whose value is 0 is not written
	assert_no_grep "$T_DIR/live.fg" '(^|;)site_malloc_zero [0-9]+$' "live: no line for site_malloc_zero (0 bytes)"
}

# tui_screen SOCK: what tracelloc's tmux pane shows now
tui_screen() {
	tmux -L "$1" capture-pane -p 2>/dev/null
}

# tui_wait SOCK ERE SECS: until the pane shows a line that matches
tui_wait() {
	local i
	for i in $(seq $(($3 * 10))); do
		tui_screen "$1" | grep -Eq -- "$2" && return 0
		sleep 0.1
	done
	return 1
}

test_tui() { # --tui in an 80x24 tmux pane: header, table, the selected stack; j, s, /, p, w, q; refused without a terminal
	local sock="tlt$$" before after
	if ! command -v tmux >/dev/null; then
		fail "--tui: tmux is not installed (scripts/install-deps.sh installs it)"
		return
	fi
	tl_run nt --tui -- "$TB/sleeper" 1
	assert_eq "$TL_RC" 1 "--tui without a terminal: refused"
	assert_grep "$T_DIR/nt.err" '^tracelloc: --tui needs a terminal: standard input and output are not one$' \
		"--tui without a terminal: one line"
	tmux -L "$sock" new-session -d -x 80 -y 24 \
		"'$TL' --tui -i 0.3 -f '$T_DIR/t.fg' -- '$REPO/build/demo'; echo tracelloc-rc=\$?; sleep 30"
	if ! tui_wait "$sock" '^stack \(innermost\) +live +count +calls +growth/s oldest$' 10; then
		fail "--tui: no table within 10 s"
		tui_screen "$sock" | sed 's/^/      | /'
		tmux -L "$sock" kill-server 2>/dev/null
		return
	fi
	tui_wait "$sock" '^open_session ' 5
	tui_screen "$sock" >"$T_DIR/s1"
	assert_grep "$T_DIR/s1" '^tracelloc: pid [0-9]+, .*build/demo, traced [0-9]+ s$' "--tui: the header names the target"
	assert_grep "$T_DIR/s1" '^live [0-9.]+ [KMG]?i?B \([0-9]+ blocks\) \| [0-9]+ calls/s .* \| peak .* \| lost 0$' \
		"--tui: live, rates, peak and lost in the header"
	assert_grep "$T_DIR/s1" '^sort: live$' "--tui: sorted by live bytes"
	assert_grep "$T_DIR/s1" '^-- selected stack -' "--tui: the selected stack below the table"
	assert_grep "$T_DIR/s1" '^  open_session  scripts/demo.c:44$' "--tui: the first row (the leaking payloads) selected, whole"
	assert_eq "$(wc -l <"$T_DIR/s1")" 24 "--tui: 24 lines"
	assert_eq "$(awk 'length > 80' "$T_DIR/s1" | wc -l)" 0 "--tui: no line wider than 80 columns"
	tmux -L "$sock" send-keys j
	sleep 0.5
	tui_screen "$sock" >"$T_DIR/s2"
	assert_no_grep "$T_DIR/s2" '^  open_session  scripts/demo.c:44$' "--tui: j selects the next stack"
	tmux -L "$sock" send-keys s
	tui_wait "$sock" '^sort: calls$' 3
	assert_grep <(tui_screen "$sock") '^sort: calls$' "--tui: s sorts by calls"
	tmux -L "$sock" send-keys / r e a d _ Enter
	tui_wait "$sock" 'filter: read_' 3
	tui_screen "$sock" >"$T_DIR/s3"
	assert_grep "$T_DIR/s3" '^sort: calls \| filter: read_$' "--tui: / filters"
	assert_grep "$T_DIR/s3" '^read_request ' "--tui: the filter keeps read_request"
	assert_no_grep "$T_DIR/s3" '^(open_session|index_session) ' "--tui: the filter hides the others"
	tmux -L "$sock" send-keys p
	tui_wait "$sock" 'PAUSED' 3
	before=$(tui_screen "$sock" | head -2)
	sleep 1.2
	after=$(tui_screen "$sock" | head -2)
	assert_eq "$after" "$before" "--tui: p pauses the display"
	tmux -L "$sock" send-keys w
	sleep 0.5
	assert_grep "$T_DIR/t.fg" 'open_session' "--tui: w writes the output files now"
	tmux -L "$sock" send-keys p
	tmux -L "$sock" resize-window -x 100 -y 30
	tui_wait "$sock" '^-- selected stack -{82}$' 3
	tui_screen "$sock" >"$T_DIR/s5"
	assert_eq "$(wc -l <"$T_DIR/s5")" 30 "--tui: resized to 30 lines"
	assert_grep "$T_DIR/s5" '^-- selected stack -{82}$' "--tui: redrawn at the new width"
	tmux -L "$sock" send-keys q
	tui_wait "$sock" 'tracelloc-rc=' 10
	tui_screen "$sock" >"$T_DIR/s4"
	assert_grep "$T_DIR/s4" '^tracelloc-rc=0$' "--tui: q ends tracelloc, status 0"
	assert_grep "$T_DIR/s4" '^==> summary: pid [0-9]+, traced .* interrupted$' "--tui: q ends as Ctrl-C does, with a summary"
	tmux -L "$sock" kill-server 2>/dev/null
}

test_tui_leak_check() { # --tui --leak-check: l checks now; the lost column and the totals line, exact for tests/targets/lost.c
	local sock="tll$$" row
	command -v tmux >/dev/null || { fail "--tui: tmux is not installed"; return; }
	need_target lost || return
	rm -f "$T_DIR/tl.ready"
	tmux -L "$sock" new-session -d -x 120 -y 40 \
		"TL_READY='$T_DIR/tl.ready' '$TL' --tui --leak-check -i 0.3 -- '$TB/lost'; echo tracelloc-rc=\$?; sleep 30"
	if ! tui_wait "$sock" '^stack \(innermost\) +live +count +calls +growth/s +oldest +lost$' 10; then
		fail "--tui --leak-check: no table with a lost column within 10 s"
		tui_screen "$sock" | sed 's/^/      | /'
		tmux -L "$sock" kill-server 2>/dev/null
		return
	fi
	wait_for_grep "$T_DIR/tl.ready" '^ready [0-9]+$' 10 || fail "lost: not ready"
	sleep 0.5
	assert_grep <(tui_screen "$sock") 'l leak check' "--tui --leak-check: the key l is shown"
	tmux -L "$sock" send-keys l
	tui_wait "$sock" 'definitely lost' 10
	# (a capture may come halfway through a redraw: the rows asked for first)
	tui_wait "$sock" '^site_global .* 0 B$' 5
	tui_wait "$sock" '^site_dropped .* 1000 B$' 5
	tui_screen "$sock" >"$T_DIR/l1"
	assert_grep "$T_DIR/l1" '^sort: live \| pid [0-9]+: 1\.57 KiB definitely lost, 176 B indirectly \(snapshot, stopped [0-9.]+ ms\)$' \
		"--tui: l checks now, the totals in the header" || sed 's/^/      | /' "$T_DIR/l1"
	row=$(grep -E '^site_dropped ' "$T_DIR/l1")
	assert_match "$row" ' 1000 B$' "--tui: site_dropped's lost bytes in the lost column"
	row=$(grep -E '^site_global ' "$T_DIR/l1")
	assert_match "$row" ' 0 B$' "--tui: site_global lost nothing"
	# m: the baseline mark, a column of what stays of what was allocated since
	tmux -L "$sock" send-keys m
	tui_wait "$sock" 'mark [0-9]+ s ago' 5
	tui_wait "$sock" '^site_dropped .* 0 B +1000 B$' 5
	tui_screen "$sock" >"$T_DIR/l2"
	assert_grep "$T_DIR/l2" '^sort: live \| mark [0-9]+ s ago \| pid [0-9]+: ' "--tui: m sets the mark, the header says when"
	assert_grep "$T_DIR/l2" '^stack \(innermost\) +live +count +calls +growth/s +oldest +since mark +lost$' \
		"--tui: a since-mark column"
	row=$(grep -E '^site_dropped ' "$T_DIR/l2")
	assert_match "$row" ' 0 B +1000 B$' "--tui: nothing of site_dropped since the mark (allocated before)"
	tmux -L "$sock" send-keys q
	tui_wait "$sock" 'tracelloc-rc=' 10
	assert_grep <(tui_screen "$sock") '^tracelloc-rc=0$' "--tui --leak-check: q ends tracelloc, status 0"
	tmux -L "$sock" kill-server 2>/dev/null
}

test_debuginfod() { # a stripped target's names from Debian's debuginfod on loopback (DEBUGINFOD_URLS), said at start; --no-debuginfod asks none
	need_target basic || return
	command -v debuginfod >/dev/null || { fail "debuginfod is missing (scripts/install-deps.sh installs it)"; return; }
	local d=$T_DIR/dgi port bid dpid code i
	mkdir -p "$d/dbg"
	cp "$TB/basic" "$d/basic"
	objcopy --only-keep-debug "$d/basic" "$d/dbg/basic.debug" && strip --strip-all "$d/basic" ||
		{ fail "cannot make a stripped target"; return; }
	bid=$(readelf -n "$d/basic" | sed -n 's/.*Build ID: //p')
	for i in 1 2 3 4 5; do
		port=$((20000 + RANDOM % 20000))
		debuginfod -p "$port" -d "$d/db$i.sqlite" -F "$d/dbg" >"$d/server.log" 2>&1 &
		dpid=$!
		for _ in $(seq 50); do
			code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/buildid/$bid/debuginfo")
			[ "$code" = 200 ] && break 2
			pid_alive "$dpid" || break
			sleep 0.2
		done
		kill "$dpid" 2>/dev/null
		wait "$dpid" 2>/dev/null
	done
	[ "$code" = 200 ] || { fail "debuginfod did not serve the debug file"; show "$d/server.log" 5; return; }
	TL_ENV=(DEBUGINFOD_URLS="http://127.0.0.1:$port" DEBUGINFOD_CACHE_PATH="$d/cache")
	tl_run dg -i 0 -t 1 -- "$d/basic"
	assert_eq "$TL_RC" 0 "debuginfod: exit status"
	assert_grep "$T_DIR/dg.err" "^tracelloc: debug info of stripped files from debuginfod: http://127.0.0.1:$port \\(--no-debuginfod: none\\)$" \
		"debuginfod: the servers said at start"
	assert_grep "$T_DIR/dg.out" ' site_malloc_big\+0x[0-9a-f]+ \(basic\) tests/targets/basic.c:[0-9]+$' \
		"debuginfod: the stripped target's frames named, with lines"
	TL_ENV=(DEBUGINFOD_URLS="http://127.0.0.1:$port" DEBUGINFOD_CACHE_PATH="$d/cache2")
	tl_run dn --no-debuginfod -i 0 -t 1 -- "$d/basic"
	assert_no_grep "$T_DIR/dn.out" 'site_malloc_big' "--no-debuginfod: not asked"
	assert_no_grep "$T_DIR/dn.err" 'debuginfod' "--no-debuginfod: nothing said"
	assert_grep "$T_DIR/dn.out" '\[unknown\] \(basic\)$' "--no-debuginfod: the stripped frames unnamed"
	kill "$dpid" 2>/dev/null
	wait "$dpid" 2>/dev/null
}

test_debuginfod_silent() { # a debuginfod server that takes connections and never answers: a bounded wait, one line saying so, the frames keep their addresses
	need_target basic || return
	local d=$T_DIR/dgs port spid i t0 el
	mkdir -p "$d"
	cp "$TB/basic" "$d/basic"
	strip --strip-all "$d/basic" || { fail "cannot make a stripped target"; return; }
	# listens, and never accepts or answers (a firewall that drops the replies)
	python3 -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
print(s.getsockname()[1], flush=True); time.sleep(120)' >"$d/port" &
	spid=$!
	register_pid "$spid"
	for i in $(seq 50); do [ -s "$d/port" ] && break; sleep 0.1; done
	port=$(cat "$d/port")
	[ -n "$port" ] || { fail "debuginfod silent: no listener"; return; }
	TL_ENV=(DEBUGINFOD_URLS="http://127.0.0.1:$port" DEBUGINFOD_CACHE_PATH="$d/cache")
	t0=$(now_ns)
	tl_run s -i 0 -t 1 -- "$d/basic"
	el=$(secs_since "$t0")
	assert_eq "$TL_RC" 0 "debuginfod silent: exit status"
	assert_between "$el" 0 12 "debuginfod silent: the run's seconds, the wait bounded (it was 40 s and more)"
	assert_eq "$(grep -c 'debuginfod servers did not answer in time' "$T_DIR/s.err")" 1 \
		"debuginfod silent: said once"
	assert_grep "$T_DIR/s.err" "^tracelloc: the debuginfod servers did not answer in time \\([0-9.]+ s: http://127.0.0.1:$port\\): no more are asked, and the frames of stripped files keep their addresses\$" \
		"debuginfod silent: the line names the server"
	assert_grep "$T_DIR/s.out" '\[unknown\] \(basic\)$' "debuginfod silent: the stripped frames keep their addresses"
	kill "$spid" 2>/dev/null
}

test_install() { # make install/uninstall under DESTDIR and PREFIX: binary, man page with every option of --help, completion
	local root="$T_DIR/root" opt missing=""
	make -s install DESTDIR="$root" PREFIX=/usr >"$T_DIR/i.out" 2>&1
	assert_eq "$?" 0 "make install: exit status" || show "$T_DIR/i.out"
	assert_eq "$("$root/usr/sbin/tracelloc" --version | head -1 | cut -d' ' -f1)" tracelloc "install: the binary runs"
	assert_grep <("$root/usr/sbin/tracelloc" --version) '^tracelloc [0-9.]+ \(libbpf [0-9]+\.[0-9]+, libdw [0-9.]+\)$' \
		"--version: with the libbpf and libdw it was built with"
	groff -man -Tascii -P -cbou -rLL=200n "$root/usr/share/man/man8/tracelloc.8" >"$T_DIR/man.txt" 2>"$T_DIR/man.err"
	assert_grep "$T_DIR/man.txt" '^NAME' "man page: renders"
	for opt in $("$root/usr/sbin/tracelloc" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
		grep -qF -- "$opt" "$T_DIR/man.txt" || missing="$missing $opt"
	done
	assert_eq "$missing" "" "man page: every option of --help"
	assert_grep "$T_DIR/man.txt" 'EXIT STATUS' "man page: exit status"
	assert_eq "$(bash -c ". '$root/usr/share/bash-completion/completions/tracelloc' && complete -p tracelloc")" \
		"complete -F _tracelloc tracelloc" "bash completion: registered"
	assert_eq "$(PATH="$root/usr/sbin:$PATH" bash -c ". '$root/usr/share/bash-completion/completions/tracelloc'
		COMP_WORDS=(tracelloc --follow-f); COMP_CWORD=1; _tracelloc; echo \${COMPREPLY[*]}")" \
		"--follow-forks" "bash completion: a long option"
	make -s uninstall DESTDIR="$root" PREFIX=/usr >/dev/null 2>&1
	assert_eq "$(find "$root" -type f | wc -l)" 0 "make uninstall: nothing left"
}

test_help_version() { # -h and -V exit 0 and print something
	tl_run h -h
	assert_eq "$TL_RC" 0 "-h: exit status"
	assert_grep "$T_DIR/h.out" 'tracelloc' "-h: usage on stdout"
	tl_run v -V
	assert_eq "$TL_RC" 0 "-V: exit status"
	assert_grep "$T_DIR/v.out" 'tracelloc' "-V: version on stdout"
}
