#!/bin/bash
# tests/pprof.sh - the pprof profile (--pprof FILE) and the scrape endpoint
# (--listen ADDR:PORT), checked with the real consumer, `go tool pprof`, and
# curl, against targets that know their own ledgers (tests/targets/ledger.h):
#
#   basic    (tests/targets/basic.c)    every metric of every call site, exactly
#   inline   (tests/targets/inline.c)   inlined frames, their lines
#   hold     (tests/targets/hold.c)     a known heap, held while it is scraped
#   churn    (tests/targets/churn.c)    3 threads churning while scraped
#   leakstacks (tests/targets/leakstacks.c) 262144 stacks leaked, scraped
#                                       while 2 threads allocate
#
#   tests/pprof.sh            run every test
#   tests/pprof.sh REGEX      run the tests whose name matches REGEX
#   tests/pprof.sh -l         list the tests
#   TL_KEEP=1 tests/pprof.sh  keep every run's output (path printed)
#
# Needs root, $REPO/tracelloc and $REPO/build/tests/* (make tracelloc
# targets), curl, ss and python3 (tests/slow_clients.py). Installs Debian's
# golang-go when `go` is missing.
# Ends with the line "N passed, N failed" (tests, not assertions) and exits
# non-zero if a test failed.

cd "$(dirname "$0")/.." || exit 2
# shellcheck source=tests/lib.sh
. tests/lib.sh

# ================================================================ helpers

# go tool pprof with everything in $T_DIR and nothing fetched: no toolchain
# download, no module proxy, no symbolization (the profile names its frames)
gopprof() {
	env HOME="$T_DIR" GOTOOLCHAIN=local GOPROXY=off GOFLAGS= GOCACHE="$T_DIR/gocache" \
		PPROF_TMPDIR="$T_DIR/pprof" timeout 60 go tool pprof -symbolize=none "$@"
}

# pprof_top NAME SAMPLE_INDEX SOURCE: `go tool pprof -top` in bytes (counts
# read as "NB"), every node shown, to $T_DIR/NAME.top; SAMPLE_INDEX '' for
# the profile's default
pprof_top() {
	local name=$1 si=$2 src=$3
	gopprof -top -unit=B -nodefraction=0 -nodecount=100000 ${si:+-sample_index=$si} "$src" \
		>"$T_DIR/$name.top" 2>"$T_DIR/$name.top.err" ||
		{
			fail "go tool pprof -top ${si:+-sample_index=$si} $src failed"
			show "$T_DIR/$name.top.err" 5
			return 1
		}
}

# top_cum FILE FUNCTION: the cum column of FUNCTION in -top output (0 when
# it is not listed)
top_cum() {
	FN=$2 awk '
		/^ *flat +flat% +sum% +cum +cum%/ { table = 1; next }
		table {
			name = $0
			sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, "", name)
			if (name == ENVIRON["FN"]) { v = $4; sub(/B$/, "", v); print v; found = 1; exit }
		}
		END { if (!found) print 0 }' "$1"
}

# top_total FILE: the total of the -top header ("... of 860B total")
top_total() {
	grep -m1 -oE ' of [0-9]+B total' "$1" | grep -oE '[0-9]+'
}

# top_functions FILE: the function names of -top output, one a line
top_functions() {
	awk '/^ *flat +flat% +sum% +cum +cum%/ { table = 1; next }
		table { sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, ""); print }' "$1"
}

# traces FILE: the samples of `go tool pprof -traces` output, one a line:
# "VALUE leaf;caller;...;outermost"
traces() {
	awk '
		function flush() { if (n) print value " " stack; n = 0; stack = "" }
		/^-----------\+/ { flush(); inblock = 1; next }
		!inblock { next }
		{
			line = $0
			if (n == 0) {
				sub(/^ +/, "", line)
				value = line; sub(/ .*/, "", value); sub(/B$/, "", value)
				sub(/^[^ ]+ +/, "", line)
			} else {
				sub(/^ +/, "", line)
			}
			stack = n ? stack ";" line : line
			n++
		}
		END { flush() }' "$1"
}

# traces_sum FILE PREFIX: the sum of the -traces samples whose stack starts
# (at the leaf) with the ';'-separated frames PREFIX, as whole frames
traces_sum() {
	traces "$1" | PREFIX=$2 awk '
		{ v = $1; s = substr($0, length($1) + 2) ";" }
		index(s, ENVIRON["PREFIX"] ";") == 1 { sum += v }
		END { printf "%d\n", sum }'
}

# ledger_value EXPECT METRIC SITE: one number of a ledger
ledger_value() {
	expect_value "$1" "$2" "$3"
}

# line_of EXPECT KEY: the "line KEY N" of an expect file
line_of() {
	expect_value "$1" line "$2"
}

# ledger_sum EXPECT METRIC: the sum of a metric over every site of a ledger
ledger_sum() {
	awk -v m="$2" '$1 == m { s += $3 } END { printf "%d\n", s }' "$1"
}

# pprof's sample types and the ledger metrics they must equal
SAMPLE_INDICES="inuse_space inuse_objects alloc_space alloc_objects"
declare -A LEDGER_METRIC=([inuse_space]=live [inuse_objects]=live-count
	[alloc_space]=allocated [alloc_objects]=count)

# check_top_ledger TOP EXPECT SAMPLE_INDEX WHAT: every site of the ledger has
# its cum (every stack through it) exactly as the ledger says
check_top_ledger() {
	local top=$1 exp=$2 si=$3 what=$4 metric=${LEDGER_METRIC[$3]} m site want n=0 nonzero=0
	while read -r m site want; do
		[ "$m" = "$metric" ] || continue
		n=$((n + 1))
		[ "$want" != 0 ] && nonzero=1
		assert_eq "$(top_cum "$top" "$site")" "$want" "$what: $si of $site (go tool pprof -top, cum)"
	done <"$exp"
	[ "$n" -gt 0 ] && [ "$nonzero" = 1 ] || fail "$what: no non-zero '$metric' in the ledger"
}

# summary numbers the totals of each sample index must equal (after parse_summary)
summary_for_index() {
	case $1 in
	inuse_space) echo "$SUM_LIVE_BYTES" ;;
	inuse_objects) echo "$SUM_LIVE" ;;
	alloc_space) echo "$SUM_CALL_BYTES" ;;
	alloc_objects) echo "$SUM_CALLS" ;;
	esac
}

# start_listening NAME TARGET [TRACELLOC ARGS...] -- [TARGET ARGS...]: launch
# TARGET under tracelloc --listen (loopback, any port unless ARGS say) in the
# background, wait for the target's "ready" and the "serving" line; sets
# TL_PID, URL (http://HOST:PORT) and PORT
start_listening() {
	local name=$1 target=$2 opts=() line
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	[ "${1:-}" = -- ] && shift
	case " ${opts[*]} " in
	*" --listen "*) ;;
	*) opts+=(--listen 0) ;;
	esac
	rm -f "$T_DIR/$name.ready"
	TL_ENV=(TL_EXPECT="$T_DIR/$name.exp" TL_READY="$T_DIR/$name.ready")
	tl_bg "$name" -t 0 -i 0 "${opts[@]}" -- "$TB/$target" "$@"
	if ! wait_for_grep "$T_DIR/$name.err" '^tracelloc: serving http://' 10 "$TL_PID"; then
		fail "$name: no 'serving' line from tracelloc"
		show "$T_DIR/$name.err"
		return 1
	fi
	line=$(grep -m1 '^tracelloc: serving http://' "$T_DIR/$name.err")
	URL=$(grep -oE 'http://[^/]+' <<<"$line")
	PORT=${URL##*:}
	if ! wait_for_grep "$T_DIR/$name.ready" '^ready [0-9]+$' 10 "$TL_PID"; then
		fail "$name: target $target did not get ready"
		return 1
	fi
	return 0
}

# stop_listening NAME: SIGINT to tracelloc, which must end as interrupted
stop_listening() {
	kill -INT "$TL_PID" 2>/dev/null
	wait_pid "$TL_PID" 20
	TL_RC=$WAIT_RC
	check_normal_end "$1" '^interrupted$' "$1"
}

# ================================================================ the file

test_file_ledger() { # --pprof: each site's inuse/alloc space/objects exactly, per go tool pprof -top; totals = summary
	need_target basic || return
	TL_ENV=(TL_EXPECT="$T_DIR/b.exp")
	tl_run b -t 0 -i 0 --pprof "$T_DIR/b.pb.gz" -- "$TB/basic"
	check_normal_end b '^target exited with status 0$' basic || return
	assert_eq "$SUM_LOST" 0 "basic: lost events"
	check_expect_file "$T_DIR/b.exp" basic || return
	assert_file "$T_DIR/b.pb.gz" "basic: pprof file" || return
	assert_eq "$(head -c2 "$T_DIR/b.pb.gz" | od -An -tx1 | tr -d ' ')" 1f8b "basic: gzip magic"
	local si
	for si in $SAMPLE_INDICES; do
		pprof_top "b-$si" "$si" "$T_DIR/b.pb.gz" || return
		check_top_ledger "$T_DIR/b-$si.top" "$T_DIR/b.exp" "$si" basic
		assert_eq "$(top_total "$T_DIR/b-$si.top")" "$(summary_for_index "$si")" \
			"basic: $si total (go tool pprof) = the summary's"
	done
	# the default sample type is Go's heap profile's
	pprof_top b-default '' "$T_DIR/b.pb.gz" || return
	assert_grep "$T_DIR/b-default.top" '^Type: inuse_space$' "basic: default sample type"
	assert_grep "$T_DIR/b-default.top" "^File: basic$" "basic: the main binary names the profile"
}

test_leak_check_outputs() { # --leak-check: pprof's leaked_space per site (go tool pprof), /metrics's gauges per class, exact for tests/targets/lost.c
	need_target lost || return
	start_listening lk lost --leak-check --pprof "$T_DIR/lk.pb.gz" -- || return
	kill -USR1 "$TL_PID"
	wait_for_grep "$T_DIR/lk.out" '^ +still reachable: ' 20 "$TL_PID" || { fail "lost: no check on SIGUSR1"; return; }
	sleep 0.3
	curl -s -o "$T_DIR/lk.metrics" "$URL/metrics"
	assert_grep "$T_DIR/lk.metrics" '^tracelloc_leak_bytes\{class="definitely_lost"\} 1612$' "/metrics: definitely lost bytes"
	assert_grep "$T_DIR/lk.metrics" '^tracelloc_leak_blocks\{class="indirectly_lost"\} 3$' "/metrics: indirectly lost blocks"
	assert_grep "$T_DIR/lk.metrics" '^tracelloc_leak_bytes\{class="possibly_lost"\} 688$' "/metrics: possibly lost bytes"
	assert_grep "$T_DIR/lk.metrics" '^tracelloc_leak_bytes\{class="still_reachable"\} 3600$' "/metrics: still reachable bytes"
	assert_grep "$T_DIR/lk.metrics" '^tracelloc_leak_checks 1$' "/metrics: one process checked"
	# the heap page carries what was lost, by stack
	pprof_top lkurl leaked_space "$URL/debug/pprof/heap" || return
	assert_eq "$(top_total "$T_DIR/lkurl.top")" 1788 "/debug/pprof/heap: leaked_space, definitely and indirectly lost"
	kill -INT "$TL_PID"
	wait_pid "$TL_PID" 30 || fail "lost: tracelloc did not end"
	pprof_top lkfile leaked_space "$T_DIR/lk.pb.gz" || return
	local site want
	for want in site_dropped:1000 site_xor:500 site_list_head:64 site_list_node:128 site_cycle:96 site_global:0; do
		site=${want%:*}
		assert_eq "$(top_cum "$T_DIR/lkfile.top" "$site")" "${want#*:}" "--pprof leaked_space: $site"
	done
	pprof_top lkobj leaked_objects "$T_DIR/lk.pb.gz" || return
	assert_eq "$(top_cum "$T_DIR/lkobj.top" site_list_node)" 2 "--pprof leaked_objects: the list's two nodes"
}

test_baseline_mark() { # SIGUSR2 sets the mark: only what stays of what was allocated since counts in -m since-mark, pprof's since_mark_space and the report, exact; a cache before the mark and a burst freed after it do not
	need_target marked || return
	rm -f "$T_DIR/mk.ready" "$T_DIR/mk.ready.done"
	TL_ENV=(TL_READY="$T_DIR/mk.ready")
	tl_bg mk -i 0 -t 5 -m since-mark -f "$T_DIR/mk.fg" --pprof "$T_DIR/mk.pb.gz" -- "$TB/marked"
	wait_for_grep "$T_DIR/mk.ready" '^ready [0-9]+$' 20 "$TL_PID" || { fail "marked: not ready"; return; }
	local tpid site want
	tpid=$(awk '{ print $2 }' "$T_DIR/mk.ready")
	kill -USR2 "$TL_PID"
	wait_for_grep "$T_DIR/mk.err" '^tracelloc: mark set at [0-9.]+ s: from now on each stack shows its live bytes allocated since$' 10 "$TL_PID" ||
		{ fail "SIGUSR2: no mark set"; return; }
	kill -USR1 "$tpid"
	for _ in $(seq 100); do [ -e "$T_DIR/mk.ready.done" ] && break; sleep 0.1; done
	[ -e "$T_DIR/mk.ready.done" ] || fail "marked: the second phase did not end"
	sleep 0.3
	kill -INT "$TL_PID"
	wait_pid "$TL_PID" 30 || fail "marked: tracelloc did not end"
	# folded stacks of what was allocated since the mark and lives on: the leak only
	assert_eq "$(sed -E 's/^.*;([^;]+) ([0-9]+)$/\1 \2/' "$T_DIR/mk.fg" | sort | tr '\n' ' ')" "site_leak 2000 " \
		"-m since-mark: the leak's blocks since the mark, and nothing else"
	# the report: each allocator's share since the mark
	assert_grep "$T_DIR/mk.out" '^==> [0-9]+ top allocators out of [0-9]+ for a total of .* \(mark set [0-9.]+ s ago\)$' \
		"the report says when the mark was set"
	assert_grep "$T_DIR/mk.out" '^ +[0-9]+: 9[.,]77 KiB live in 10 allocations, 10 allocation calls; since the mark 0 B in 0$' \
		"the report: the cache, nothing since the mark"
	assert_grep "$T_DIR/mk.out" '^ +[0-9]+: 1[.,]95 KiB live in 20 allocations, 20 allocation calls; since the mark 1[.,]95 KiB in 20$' \
		"the report: the leak, all of it since the mark" || show "$T_DIR/mk.out" 30
	# pprof: since_mark_space by site
	pprof_top mkp since_mark_space "$T_DIR/mk.pb.gz" || return
	for want in site_leak:2000 site_cache:0 site_burst:0; do
		site=${want%:*}
		assert_eq "$(top_cum "$T_DIR/mkp.top" "$site")" "${want#*:}" "--pprof since_mark_space: $site"
	done
	pprof_top mko since_mark_objects "$T_DIR/mk.pb.gz" || return
	assert_eq "$(top_cum "$T_DIR/mko.top" site_leak)" 20 "--pprof since_mark_objects: the leak's 20 blocks"
	kill "$tpid" 2>/dev/null
	# --mark-after: the same, the mark set by a timer
	rm -f "$T_DIR/ma.ready" "$T_DIR/ma.ready.done"
	TL_ENV=(TL_READY="$T_DIR/ma.ready")
	tl_bg ma -i 0 -t 0 --mark-after 0.5 -m since-mark -f "$T_DIR/ma.fg" -- "$TB/marked"
	wait_for_grep "$T_DIR/ma.ready" '^ready [0-9]+$' 20 "$TL_PID" || { fail "marked: not ready"; return; }
	tpid=$(awk '{ print $2 }' "$T_DIR/ma.ready")
	wait_for_grep "$T_DIR/ma.err" '^tracelloc: mark set at 0\.[5-9][0-9] s: ' 10 "$TL_PID" ||
		{ fail "--mark-after 0.5: no mark set"; return; }
	kill -USR1 "$tpid"
	for _ in $(seq 100); do [ -e "$T_DIR/ma.ready.done" ] && break; sleep 0.1; done
	kill -INT "$TL_PID"
	wait_pid "$TL_PID" 30 || fail "marked: tracelloc did not end"
	assert_eq "$(sed -E 's/^.*;([^;]+) ([0-9]+)$/\1 \2/' "$T_DIR/ma.fg" | sort | tr '\n' ' ')" "site_leak 2000 " \
		"--mark-after: the leak's blocks since the mark, and nothing else"
	kill "$tpid" 2>/dev/null
	# without a mark: no such sample type, and -m since-mark is all 0
	tl_run nm -i 0 -t 0 --pprof "$T_DIR/nm.pb.gz" -- /bin/true
	gopprof -sample_index=since_mark_space -top "$T_DIR/nm.pb.gz" >"$T_DIR/nm.top" 2>&1
	assert_grep "$T_DIR/nm.top" 'since_mark_space' "without a mark: pprof has no since_mark_space (it says so)"
}

test_endpoint_delta() { # /debug/pprof/allocs?seconds=N (go tool pprof -seconds): only what was allocated in the window, exactly; a bad window: 400 with a reason
	need_target marked || return
	start_listening dl marked -- || return
	local tpid code
	tpid=$(awk '{ print $2 }' "$T_DIR/dl.ready")
	# the window opens; in it the target allocates its leak (20 x 100 B) and burst (50 x 500 B, freed)
	gopprof -seconds 3 -top -unit=B -nodefraction=0 -sample_index=alloc_space \
		"$URL/debug/pprof/allocs" >"$T_DIR/dl.top" 2>"$T_DIR/dl.top.err" &
	local gp=$!
	sleep 1
	kill -USR1 "$tpid"
	wait "$gp" || { fail "go tool pprof -seconds 3 failed"; show "$T_DIR/dl.top.err" 5; }
	assert_eq "$(top_total "$T_DIR/dl.top")" 27000 "?seconds=3: alloc_space in the window, the leak's and the burst's"
	assert_eq "$(top_cum "$T_DIR/dl.top" site_leak)" 2000 "?seconds=3: site_leak"
	assert_eq "$(top_cum "$T_DIR/dl.top" site_burst)" 25000 "?seconds=3: site_burst"
	assert_eq "$(top_cum "$T_DIR/dl.top" site_cache)" 0 "?seconds=3: the cache, allocated before the window"
	assert_grep "$T_DIR/dl.top.err" 'Fetching profile over HTTP' "go tool pprof fetched it"
	# a window with nothing in it, through curl, for its inuse_space
	curl -s -o "$T_DIR/dl2.pb.gz" "$URL/debug/pprof/heap?seconds=1"
	pprof_top dl2 inuse_space "$T_DIR/dl2.pb.gz" || return
	assert_grep "$T_DIR/dl2.top" '^Showing nodes accounting for 0, 0% of 0 total$' "?seconds=1 with nothing allocated: nothing"
	code=$(curl -s -o "$T_DIR/dl.400" -w '%{http_code}' "$URL/debug/pprof/allocs?seconds=301")
	assert_eq "$code" 400 "?seconds=301: refused"
	assert_grep "$T_DIR/dl.400" '^seconds: a whole number of seconds from 1 to 300$' "?seconds=301: why"
	stop_listening dl
}

test_metrics_suppressed() { # --suppressions: /metrics's live bytes are the views' (the suppressed stack left out, as in the summary)
	need_target lost || return
	printf 'leak:site_xor\n' >"$T_DIR/ms.supp"
	start_listening ms lost --suppressions "$T_DIR/ms.supp" -- || return
	local v
	curl -s -o "$T_DIR/ms.metrics" "$URL/metrics"
	v=$(sed -n 's/^tracelloc_live_bytes \([0-9]*\)$/\1/p' "$T_DIR/ms.metrics")
	stop_listening ms
	parse_summary "$T_DIR/ms.out" || return
	assert_grep "$T_DIR/ms.out" '^    suppressed: 500 bytes in 1 allocations, 1 stack, by 2 rules$' "the summary: site_xor left out"
	assert_eq "$v" "$SUM_LIVE_BYTES" "/metrics: live bytes = the summary's, without site_xor's 500"
}

test_file_thread_label() { # --per-thread: each sample has a thread label; go tool pprof -tags sums them exactly
	need_target pool || return
	TL_ENV=(TL_EXPECT="$T_DIR/t.exp")
	tl_run t -i 0 -t 0 --per-thread --pprof "$T_DIR/t.pb.gz" -- "$TB/pool"
	check_normal_end t '^target exited with status 0$' "--per-thread --pprof" || return
	go tool pprof -sample_index=inuse_space -tags "$T_DIR/t.pb.gz" >"$T_DIR/tags" 2>&1
	assert_grep "$T_DIR/tags" '^ *2\.9kB \( *[0-9.]+%\): worker$' "--per-thread: pprof's thread label of the workers (3 x 1000 live)"
	assert_grep "$T_DIR/tags" '^ *600\.0B \( *[0-9.]+%\): io$' "--per-thread: pprof's thread label of io (2 x 300)"
	assert_grep "$T_DIR/tags" '^ *70\.0B \( *[0-9.]+%\): late$' "--per-thread: pprof's thread label of late"
	go tool pprof -sample_index=inuse_space -tagfocus=thread=io -top "$T_DIR/t.pb.gz" >"$T_DIR/io" 2>&1
	assert_grep "$T_DIR/io" '^Showing nodes accounting for 600B, ' "--per-thread: -tagfocus=thread=io keeps io's 600 bytes alone"
	assert_grep "$T_DIR/io" '^ *600B +[0-9.]+% +[0-9.]+% +600B +[0-9.]+% +site_io$' "--per-thread: -tagfocus=thread=io: site_io"
}

test_file_pid_label() { # several processes: each sample has a pid label, and the process as its root frame; -tags sums what each held at its exit exactly
	need_target prefork || return
	local pid want
	rm -f "$T_DIR/f.exp"
	TL_ENV=(TL_EXPECT="$T_DIR/f.exp")
	tl_run f -i 0 -t 0 --follow-forks --pprof "$T_DIR/f.pb.gz" -- "$TB/prefork"
	check_normal_end f 'all traced processes exited$' "--follow-forks --pprof" || return
	go tool pprof -sample_index=exit_space -unit=B -tags "$T_DIR/f.pb.gz" >"$T_DIR/tags" 2>&1
	assert_grep "$T_DIR/tags" '^ pid: Total ' "--follow-forks: pprof has a pid label"
	# what each held at its exit, less the copies of its parent's blocks
	while read -r pid want; do
		assert_grep "$T_DIR/tags" "^ *${want}\\.0B \\( *[0-9.]+%\\): ${pid}B?\$" "--follow-forks: pprof's pid label of $pid ($want B held at exit)"
	done < <(awk '/^proc / && $6 == 1 { s[$2] += $4 } END { for (p in s) print p, s[p] }' "$T_DIR/f.exp")
	go tool pprof -sample_index=exit_space -traces "$T_DIR/f.pb.gz" >"$T_DIR/traces" 2>&1
	assert_grep "$T_DIR/traces" '^ +pid [0-9]+ \(prefork\) exited$' "--follow-forks: the process frame is the root of the traces"
}

# the n-th top allocator's stack in a report file's last "top allocators"
# section (lines up to the next entry), as one line
nth_allocator() {
	awk -v n="$2" '
		/^==> [0-9]+ top allocators / { sec = 1; k = 0; delete e; next }
		/^==> / || /^\[/ { sec = 0 }
		sec && /^ +[0-9]+: / { k++ }
		sec && k { e[k] = e[k] " " $0 }
		END { print e[n] }' "$1"
}

test_leak_views() { # growth, peak, short-lived and snapshots tell a leak from a cache, a burst and churn; exact against the target's ledger
	need_target phases || return
	local site want got a b
	mkdir -p "$T_DIR/snaps"
	TL_ENV=(TL_EXPECT="$T_DIR/g.exp")
	tl_run g -i 0.2 -t 2 --sort growth --growth-window 10 -m peak -f "$T_DIR/g.fg" \
		--pprof "$T_DIR/g.pb.gz" --snapshot-every 1 "$T_DIR/snaps" -- "$TB/phases"
	check_normal_end g '^target exited with status 0$' "leak views" || return
	# growth: the steady leak first, the cache (which filled once) below it
	assert_match "$(nth_allocator "$T_DIR/g.out" 1)" 'site_leak' "--sort growth: the leak first"
	assert_match "$(nth_allocator "$T_DIR/g.out" 1)" 'grew in (9|10)/(9|10) intervals' "--sort growth: the leak grew in every interval"
	assert_match "$(nth_allocator "$T_DIR/g.out" 2)" 'site_cache' "--sort growth: the cache second"
	assert_match "$(nth_allocator "$T_DIR/g.out" 2)" '\+0 B/s over .*grew in 0/' "--sort growth: the cache held still"
	assert_grep "$T_DIR/g.out" '^==> 2 top allocators out of [0-9]+ for a total of .*, by growth$' "--sort growth: the header says the order"
	# peak: each site as the target held it at its highest
	for site in site_leak site_cache site_burst; do
		want=$(expect_value "$T_DIR/g.exp" peak "$site" | head -1)
		want=$(awk -v s="$site" '$1 == "peak" && $2 == s { print $3 }' "$T_DIR/g.exp")
		assert_eq "$(fold_sum "$T_DIR/g.fg" "$site")" "$want" "-m peak: $site at the peak"
	done
	assert_eq "$(fold_sum "$T_DIR/g.fg" site_churn)" 0 "-m peak: nothing of the churn at the peak"
	got=$(sed -nE 's/^    peak: [0-9]+ live allocations \(([0-9]+) bytes.*/\1/p' "$T_DIR/g.out")
	assert_eq "$(fold_total "$T_DIR/g.fg")" "$got" "-m peak: the folded total is the summary's peak"
	gopprof -sample_index=peak_space -unit=B -top "$T_DIR/g.pb.gz" >"$T_DIR/peak.top" 2>&1
	assert_grep "$T_DIR/peak.top" '^ +1000000B .* site_burst$' "pprof peak_space: the burst"
	# snapshots: a pair diffed shows the leak's growth, and nothing else grew
	a=$(ls "$T_DIR"/snaps/heap-*.pb.gz | head -1)
	b=$(ls "$T_DIR"/snaps/heap-*.pb.gz | tail -1)
	assert_eq "$(ls "$T_DIR"/snaps/heap-*.fg | wc -l)" "$(ls "$T_DIR"/snaps/heap-*.pb.gz | wc -l)" "snapshots: folded stacks beside each profile"
	if [ "$a" != "$b" ]; then
		gopprof -sample_index=inuse_space -unit=B -top -diff_base "$a" "$b" >"$T_DIR/diff.top" 2>&1
		assert_grep "$T_DIR/diff.top" '^ +[1-9][0-9]*000B .* site_leak$' "snapshots: -diff_base shows the leak grew"
		assert_no_grep "$T_DIR/diff.top" 'site_cache|site_burst' "snapshots: -diff_base: nothing else"
	else
		fail "snapshots: fewer than two in 3.5 s"
	fi
	# short-lived: every churn call, none of the others
	tl_run s -i 0 -t 1 --sort short-lived --short-lived 50 -- "$TB/phases"
	assert_match "$(nth_allocator "$T_DIR/s.out" 1)" 'short-lived \(under 50 ms\): 2000 of 2000 calls \(100%\); 2000 freed' \
		"--sort short-lived: the churn, every call"
	assert_match "$(nth_allocator "$T_DIR/s.out" 1)" 'site_churn' "--sort short-lived: the churn's stack"
	assert_grep "$T_DIR/s.out" '^==> 1 top allocators out of 1 for a total of .*, by short-lived allocations$' \
		"--sort short-lived: only the churn had short-lived blocks"
	# --snapshot-keep: the newest N stay
	rm -rf "$T_DIR/keep"
	mkdir "$T_DIR/keep"
	tl_run k -i 0 -t 0 --snapshot-every 0.5 "$T_DIR/keep" --snapshot-keep 2 -- "$TB/phases"
	assert_eq "$(ls "$T_DIR"/keep | wc -l)" 4 "--snapshot-keep 2: two profiles and their folded stacks"
	# a missing directory is made at the first snapshot; one in a missing
	# directory is refused before tracing, with one line
	rm -rf "$T_DIR/made"
	tl_run made -i 0 -t 0 --snapshot-every 0.5 "$T_DIR/made/" -- "$TB/phases"
	assert_eq "$TL_RC" 0 "--snapshot-every into a missing directory: traced"
	assert_eq "$(stat -c %F "$T_DIR/made" 2>&1)" directory "--snapshot-every: the missing directory made"
	assert_eq "$(ls "$T_DIR"/made/heap-*.pb.gz 2>/dev/null | wc -l)" "$(ls "$T_DIR"/made/heap-*.fg 2>/dev/null | wc -l)" \
		"--snapshot-every: folded stacks beside each profile in the directory made"
	assert_match "$(ls "$T_DIR"/made | wc -l)" '^([2-9]|[1-9][0-9]+)$' "--snapshot-every: snapshots in the directory made"
	tl_run bad -i 0 --snapshot-every 1 "$T_DIR/nodir/snaps" -- "$TB/phases"
	assert_eq "$TL_RC" 1 "--snapshot-every into a missing directory's directory: refused"
	assert_grep "$T_DIR/bad.err" "^tracelloc: cannot make $T_DIR/nodir/snaps for the snapshots: No such file or directory\$" \
		"--snapshot-every: one line"
	assert_eq "$(wc -l < "$T_DIR/bad.err")" 1 "--snapshot-every refused: that line alone"
	tl_run file -i 0 --snapshot-every 1 "$T_DIR/bad.err/snaps" -- "$TB/phases"
	assert_grep "$T_DIR/file.err" "^tracelloc: cannot write snapshots into $T_DIR/bad.err/snaps: Not a directory\$" \
		"--snapshot-every in a file: refused, one line"
}

test_file_traces_inline() { # -traces: inlined frames in order with exact bytes; -raw: several lines of one location, at the target's own lines
	need_target inline || return
	TL_ENV=(TL_EXPECT="$T_DIR/i.exp")
	tl_run i -t 0 -i 0 --pprof "$T_DIR/i.pb.gz" -- "$TB/inline"
	check_normal_end i '^target exited with status 0$' inline || return
	check_expect_file "$T_DIR/i.exp" inline || return
	gopprof -traces -sample_index=inuse_space "$T_DIR/i.pb.gz" >"$T_DIR/i.traces" 2>&1 ||
		fail "go tool pprof -traces failed"
	assert_eq "$(traces_sum "$T_DIR/i.traces" 'helper_inner (inline);helper_outer (inline);site_inline_chain;main')" \
		"$(ledger_value "$T_DIR/i.exp" live site_inline_chain)" "inline: -traces, bytes of the chain of two inlined helpers"
	assert_eq "$(traces_sum "$T_DIR/i.traces" 'helper_inner (inline);site_inline_single;main')" \
		"$(ledger_value "$T_DIR/i.exp" live site_inline_single)" "inline: -traces, bytes of one inlined helper"
	assert_eq "$(traces_sum "$T_DIR/i.traces" 'site_inline_none;main')" \
		"$(ledger_value "$T_DIR/i.exp" live site_inline_none)" "inline: -traces, bytes of no inlined helper"
	gopprof -traces -sample_index=alloc_objects "$T_DIR/i.pb.gz" >"$T_DIR/i.traces-count" 2>&1
	assert_eq "$(traces_sum "$T_DIR/i.traces-count" 'helper_inner (inline);helper_outer (inline);site_inline_chain;main')" \
		"$(ledger_value "$T_DIR/i.exp" count site_inline_chain)" "inline: -traces, calls of the chain"

	# -raw: one location, three lines: the malloc in helper_inner, inlined at
	# its call in helper_outer, inlined at its call in site_inline_chain
	gopprof -raw "$T_DIR/i.pb.gz" >"$T_DIR/i.raw" 2>&1 || fail "go tool pprof -raw failed"
	local file want
	file=$(grep -m1 -oE ' helper_inner [^ ]*inline\.c:' "$T_DIR/i.raw" | sed -E 's/^ helper_inner //; s/:$//')
	assert_match "$file" 'tests/targets/inline\.c$' "inline: the source file of helper_inner" || return
	want="helper_inner $file:$(line_of "$T_DIR/i.exp" inner_malloc)|helper_outer $file:$(line_of "$T_DIR/i.exp" outer_inner)|site_inline_chain $file:$(line_of "$T_DIR/i.exp" chain_outer)"
	assert_eq "$(raw_location_with "$T_DIR/i.raw" helper_outer)" "$want" \
		"inline: the location of the inlined chain (-raw, lines innermost first)"
	want="helper_inner $file:$(line_of "$T_DIR/i.exp" inner_malloc)|site_inline_single $file:$(line_of "$T_DIR/i.exp" single_inner)"
	assert_eq "$(raw_location_with "$T_DIR/i.raw" site_inline_single)" "$want" \
		"inline: the location of one inlined helper"
}

# raw_location_with RAW FUNCTION: the lines ("FUNCTION FILE:LINE|...") of the
# first location of -raw output that has a line of FUNCTION
raw_location_with() {
	FN=$2 awk '
		/^Locations$/ { inloc = 1; next }
		/^Mappings$/ { inloc = 0 }
		!inloc { next }
		/^ *[0-9]+: 0x/ {
			if (hit) { print lines; exit }
			lines = ""; sub(/^ *[0-9]+: 0x[0-9a-f]+ M=[0-9]+ /, "")
		}
		{
			sub(/^ +/, ""); sub(/ s=[0-9]+$/, "")
			lines = lines == "" ? $0 : lines "|" $0
			split($0, f, " ")
			if (f[1] == ENVIRON["FN"]) hit = 1
		}
		END { if (hit && lines != "") print lines }' "$1" | head -1
}

test_file_mappings() { # mapping start/limit/offset = the target's executable mapping, build-ids = the files' (SIGUSR1 writes the file)
	need_target hold || return
	command -v readelf >/dev/null || { fail "readelf missing (binutils)"; return; }
	TL_ENV=(TL_EXPECT="$T_DIR/h.exp" TL_READY="$T_DIR/h.ready")
	tl_bg h -t 0 -i 0 --pprof "$T_DIR/h.pb.gz" -- "$TB/hold" 30
	wait_for_grep "$T_DIR/h.ready" '^ready [0-9]+$' 10 "$TL_PID" || {
		fail "hold did not get ready"
		return
	}
	local pid libc
	pid=$(awk '{ print $2 }' "$T_DIR/h.ready")
	cp "/proc/$pid/maps" "$T_DIR/h.maps"
	# SIGUSR1: the outputs now, while tracing goes on
	kill -USR1 "$TL_PID"
	for _ in $(seq 100); do
		[ -s "$T_DIR/h.pb.gz" ] && break
		sleep 0.05
	done
	assert_file "$T_DIR/h.pb.gz" "hold: pprof file written on SIGUSR1" || return
	assert_eq "$(pid_alive "$TL_PID" && echo yes)" yes "hold: tracelloc goes on after SIGUSR1"
	gopprof -raw "$T_DIR/h.pb.gz" >"$T_DIR/h.raw" 2>&1 || fail "go tool pprof -raw failed"
	kill -INT "$TL_PID"
	wait_pid "$TL_PID" 20

	local target want
	target=$(realpath "$TB/hold")
	want="$(exec_mapping "$T_DIR/h.maps" "$target") $target $(build_id "$target") [FN][FL][LN][IN]"
	assert_eq "$(raw_mapping "$T_DIR/h.raw" "$target")" "$want" \
		"hold: the target's mapping in -raw (start/limit/offset of its executable mapping, build-id)" ||
		show "$T_DIR/h.raw" 40
	libc=$(awk '$2 ~ /x/ && $6 ~ /\/libc\.so/ { print $6; exit }' "$T_DIR/h.maps")
	want="$(exec_mapping "$T_DIR/h.maps" "$libc") $libc $(build_id "$libc")"
	assert_eq "$(raw_mapping "$T_DIR/h.raw" "$libc" | cut -d' ' -f1-3)" "$want" "hold: libc's mapping in -raw"
	# locations point into their mappings
	assert_grep "$T_DIR/h.raw" '^ +[0-9]+: 0x[0-9a-f]+ M=[0-9]+ site_hold_big ' "hold: a location of site_hold_big with its mapping"
}

# exec_mapping MAPS PATH: "0xSTART/0xEND/0xOFFSET" of the executable mapping
# of PATH in a copy of /proc/PID/maps, as pprof -raw prints a mapping
exec_mapping() {
	awk -v p="$2" '$2 ~ /x/ && $6 == p {
		split($1, r, "-")
		printf "0x%s/0x%s/0x%s\n", r[1], r[2], $3
		exit
	}' "$1" | sed -E 's/0x0+([0-9a-f])/0x\1/g'
}

# raw_mapping RAW PATH: the mapping of PATH in -raw output, without its number
raw_mapping() {
	awk -v p="$2" '/^Mappings$/ { inmap = 1; next }
		inmap && $3 == p { sub(/^[0-9]+: /, ""); print; exit }' "$1"
}

# build_id FILE: the GNU build-id of an ELF file, in hex
build_id() {
	readelf -n "$1" 2>/dev/null | awk '/Build ID:/ { print $3; exit }'
}

test_file_filters() { # --exclude and --include shape the pprof profile as they shape the other outputs
	need_target basic || return
	TL_ENV=(TL_EXPECT="$T_DIR/x.exp")
	tl_run x -t 0 -i 0 --exclude '^site_malloc_leak$' --pprof "$T_DIR/x.pb.gz" -- "$TB/basic"
	check_normal_end x '^target exited with status 0$' "--exclude" || return
	pprof_top x inuse_space "$T_DIR/x.pb.gz" || return
	assert_eq "$(top_functions "$T_DIR/x.top" | grep -cx site_malloc_leak)" 0 "--exclude: site_malloc_leak hidden"
	assert_eq "$(top_total "$T_DIR/x.top")" "$SUM_LIVE_BYTES" "--exclude: its bytes still count"

	TL_ENV=(TL_EXPECT="$T_DIR/n.exp")
	tl_run n -t 0 -i 0 --include '^site_calloc_leak$' --pprof "$T_DIR/n.pb.gz" -- "$TB/basic"
	check_normal_end n '^target exited with status 0$' "--include" || return
	pprof_top n inuse_space "$T_DIR/n.pb.gz" || return
	assert_eq "$(top_total "$T_DIR/n.top")" "$(ledger_value "$T_DIR/n.exp" live site_calloc_leak)" \
		"--include: only the stacks through site_calloc_leak"
}

# ================================================================ the endpoint

test_endpoint_pages() { # --listen: /, /metrics (exact live bytes), /debug/pprof/heap and /allocs through go tool pprof, 404, 405; loopback
	need_target hold || return
	start_listening h hold -- 30 || return
	local exp=$T_DIR/h.exp code site
	check_expect_file "$exp" hold || return

	code=$(curl -s -o "$T_DIR/index.html" -w '%{http_code}' "$URL/")
	assert_eq "$code" 200 "GET /"
	assert_grep "$T_DIR/index.html" 'href="/debug/pprof/heap"' "the index links the heap profile"
	assert_grep "$T_DIR/index.html" 'href="/metrics"' "the index links /metrics"

	code=$(curl -s -o "$T_DIR/metrics" -w '%{http_code}' "$URL/metrics")
	assert_eq "$code" 200 "GET /metrics"
	assert_grep "$T_DIR/metrics" "^tracelloc_live_bytes $(ledger_sum "$exp" live)\$" \
		"/metrics: live bytes = the ledger's $(ledger_sum "$exp" live)" || show "$T_DIR/metrics" 40
	assert_grep "$T_DIR/metrics" "^tracelloc_live_allocations $(ledger_sum "$exp" live-count)\$" \
		"/metrics: live allocations = the ledger's"
	assert_grep "$T_DIR/metrics" '^tracelloc_lost_events_total\{kind="alloc"\} 0$' "/metrics: lost events"
	assert_grep "$T_DIR/metrics" '^tracelloc_untraced_children_total 0$' "/metrics: no child left untraced"
	assert_grep "$T_DIR/metrics" '^# TYPE tracelloc_allocation_rate_bytes gauge$' "/metrics: allocation rate"
	assert_grep "$T_DIR/metrics" "^tracelloc_target_info\\{pid=\"$(awk '{ print $2 }' "$T_DIR/h.ready")\"\\} 1\$" \
		"/metrics: the pid traced"

	# the heap profile, fetched by pprof itself and by curl
	pprof_top url inuse_space "$URL/debug/pprof/heap" || return
	assert_grep "$T_DIR/url.top" '^Type: inuse_space$' "go tool pprof $URL/debug/pprof/heap: type"
	check_top_ledger "$T_DIR/url.top" "$exp" inuse_space "go tool pprof URL"
	code=$(curl -s -o "$T_DIR/heap.pb.gz" -w '%{http_code} %{content_type}' "$URL/debug/pprof/heap")
	assert_eq "$code" "200 application/octet-stream" "GET /debug/pprof/heap"
	pprof_top heap inuse_objects "$T_DIR/heap.pb.gz" || return
	check_top_ledger "$T_DIR/heap.top" "$exp" inuse_objects "curl /debug/pprof/heap | go tool pprof"

	curl -s -o "$T_DIR/allocs.pb.gz" "$URL/debug/pprof/allocs"
	pprof_top allocs '' "$T_DIR/allocs.pb.gz" || return
	assert_grep "$T_DIR/allocs.top" '^Type: alloc_space$' "/debug/pprof/allocs: default sample type"
	for site in site_hold_big site_hold_small site_hold_array; do
		assert_eq "$(top_cum "$T_DIR/allocs.top" "$site")" "$(ledger_value "$exp" allocated "$site")" \
			"/debug/pprof/allocs: alloc_space of $site"
	done

	assert_eq "$(curl -s -o /dev/null -w '%{http_code}' "$URL/debug/pprof/goroutine")" 404 "unknown path"
	assert_eq "$(curl -s -o /dev/null -w '%{http_code}' "$URL/nope")" 404 "unknown path"
	assert_eq "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$URL/metrics")" 405 "POST"

	# loopback only
	ss -Hltn "sport = :$PORT" >"$T_DIR/ss" 2>&1
	assert_eq "$(awk '{ print $4 }' "$T_DIR/ss" | tr '\n' ' ')" "127.0.0.1:$PORT " "listening sockets on port $PORT"
	stop_listening h
	assert_eq "$SUM_LIVE_BYTES" "$(ledger_sum "$exp" live)" "summary: live bytes"
}

test_endpoint_address_given() { # --listen ADDR:PORT binds as given (127.0.0.2 here); --listen PORT binds loopback
	need_target hold || return
	start_listening a hold --listen 127.0.0.2:0 -- 30 || return
	assert_match "$URL" '^http://127\.0\.0\.2:[0-9]+$' "the address served" || return
	ss -Hltn "sport = :$PORT" >"$T_DIR/ss" 2>&1
	assert_eq "$(awk '{ print $4 }' "$T_DIR/ss" | tr '\n' ' ')" "127.0.0.2:$PORT " "listening socket"
	assert_grep <(curl -s "$URL/metrics") "^tracelloc_live_bytes $(ledger_sum "$T_DIR/a.exp" live)\$" \
		"/metrics at 127.0.0.2"
	stop_listening a

	# a port of our own choosing, free now: --listen PORT is 127.0.0.1:PORT
	local port
	port=$(free_port) || return
	start_listening p hold --listen "$port" -- 30 || return
	assert_eq "$URL" "http://127.0.0.1:$port" "--listen $port"
	ss -Hltn "sport = :$port" >"$T_DIR/ss" 2>&1
	assert_eq "$(awk '{ print $4 }' "$T_DIR/ss" | tr '\n' ' ')" "127.0.0.1:$port " "listening socket"
	stop_listening p
}

# free_port: a TCP port no socket of this host uses now
free_port() {
	local p
	for p in $(shuf -i 20000-59999 -n 50); do
		[ -z "$(ss -Htan "sport = :$p" 2>/dev/null)" ] && echo "$p" && return 0
	done
	fail "no free port found"
	return 1
}

test_endpoint_bad_listen() { # a bad address and a port in use: one line, non-zero exit, nothing run
	need_target hold || return
	MARKER=$T_DIR/marker
	TL_ENV=(TL_EXPECT="$MARKER")
	bad_input "--listen 1.2.3:80" --listen 1.2.3:80 -- "$TB/hold" 1
	assert_grep "$T_DIR/bad.err" "invalid --listen '1.2.3:80'" "the bad address named"
	TL_ENV=(TL_EXPECT="$MARKER")
	bad_input "--listen 70000" --listen 70000 -- "$TB/hold" 1

	start_listening first hold -- 30 || return
	TL_ENV=(TL_EXPECT="$MARKER")
	bad_input "port in use" --listen "$PORT" -- "$TB/hold" 1
	assert_grep "$T_DIR/bad.err" "^tracelloc: cannot listen on 127\.0\.0\.1:$PORT: Address already in use$" \
		"port in use: the message"
	# the first one still serves
	assert_eq "$(curl -s -o /dev/null -w '%{http_code}' "$URL/metrics")" 200 "the first server, after the second failed"
	stop_listening first
}

# raw_status REQUEST: the status line the endpoint at $PORT answers to
# REQUEST (a printf format: \0 is a NUL byte), sent as is
raw_status() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	timeout 5 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
		printf "$2" >&3
		head -n1 <&3 | tr -d "\r"' raw "$PORT" "$1"
}

test_endpoint_nul_path() { # /metrics%00, /metrics%00x and a raw NUL byte in the request line: 404 or 400, never the page
	need_target hold || return
	start_listening n hold -- 30 || return
	local path req
	for path in /metrics%00 /metrics%00x /debug/pprof/heap%00 /%00; do
		assert_eq "$(curl -s -o /dev/null -w '%{http_code}' "$URL$path")" 404 "GET $path"
	done
	# the same requests with and without a NUL, so that the helper is seen to work
	assert_eq "$(raw_status 'GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n')" \
		"HTTP/1.1 200 OK" "GET /metrics, sent raw"
	for req in 'GET /metrics\0 HTTP/1.1' 'GET /metrics\0x HTTP/1.1' 'GET /metrics\0HTTP/1.1 HTTP/1.1' \
		'GET\0 /metrics HTTP/1.1' 'GET /metrics?x=\0 HTTP/1.1'; do
		assert_eq "$(raw_status "$req"'\r\nHost: t\r\nConnection: close\r\n\r\n')" \
			"HTTP/1.1 400 Bad Request" "request line '$req' (\\0: a NUL byte)"
	done
	stop_listening n
}

test_endpoint_slow_clients() { # 200 clients trickling headers and 50 idle ones, back when dropped: /metrics answers in < 1 s, exactly; all of them dropped
	need_target hold || return
	start_listening sl hold -v -- 30 || return
	local exp=$T_DIR/sl.exp slow_pid end live opened closed open failed late room
	check_expect_file "$exp" hold || return
	live=$(ledger_sum "$exp" live)
	# for 6 s, then until tracelloc has dropped every one (at most 6 s more)
	python3 tests/slow_clients.py "$PORT" 200 50 6 >"$T_DIR/slow.out" 2>"$T_DIR/slow.err" &
	slow_pid=$!
	register_pid "$slow_pid"
	if ! wait_for_grep "$T_DIR/slow.out" '^ready$' 10 "$slow_pid"; then
		fail "the slow clients did not connect"
		show "$T_DIR/slow.err"
		return 1
	fi
	: >"$T_DIR/probes"
	end=$(($(date +%s%N) + 5000000000))
	while [ "$(date +%s%N)" -lt "$end" ]; do
		: >"$T_DIR/probe"
		curl -s -m 3 -o "$T_DIR/probe" -w '%{http_code} %{time_total} ' "$URL/metrics" >>"$T_DIR/probes"
		awk '$1 == "tracelloc_live_bytes" { v = $2 } END { print v + 0 }' "$T_DIR/probe" \
			>>"$T_DIR/probes"
	done
	note "$(wc -l <"$T_DIR/probes") probes, the slowest in" \
		"$(awk '$2 > m { m = $2 } END { print m + 0 }' "$T_DIR/probes") s"
	assert_int_ge "$(wc -l <"$T_DIR/probes")" 10 "probes in 5 s"
	assert_eq "$(awk '$1 != 200' "$T_DIR/probes" | wc -l)" 0 "probes not answered 200" ||
		show "$T_DIR/probes" 10
	assert_eq "$(awk '$2 >= 1' "$T_DIR/probes" | wc -l)" 0 "probes answered in 1 s or more"
	assert_eq "$(awk -v l="$live" '$3 != l' "$T_DIR/probes" | wc -l)" 0 \
		"probes whose live bytes are not the ledger's $live"
	wait_pid "$slow_pid" 20
	# opened N closed N open N failed N answered N
	read -r _ opened _ closed _ open _ failed _ < <(grep '^opened ' "$T_DIR/slow.out")
	note "slow clients: $(grep '^opened ' "$T_DIR/slow.out")"
	assert_int_ge "$opened" 250 "slow connections opened"
	assert_eq "$closed" "$opened" "slow connections closed by tracelloc"
	assert_eq "$open" 0 "slow connections left open"
	assert_eq "$failed" 0 "slow connections that could not connect"
	stop_listening sl
	# every one of them dropped by tracelloc itself, and counted
	read -r late room < <(sed -nE 's/.*connections dropped: ([0-9]+) without headers in time, ([0-9]+) for room$/\1 \2/p' \
		"$T_DIR/sl.err")
	assert_eq "$((late + room))" "$opened" "connections tracelloc dropped (-v: $late late, $room for room)"
	assert_int_ge "$late" 1 "connections dropped at their deadline"
	assert_int_ge "$room" 1 "connections dropped for room"
	assert_eq "$SUM_LIVE_BYTES" "$live" "summary: live bytes"
}

test_scrape_under_churn() { # curl scrapes /debug/pprof/heap as fast as it can while 3 threads churn: no event lost, ledger exact
	need_target churn || return
	start_listening c churn -v --pprof "$T_DIR/c.pb.gz" -- 50000 || return
	local end=$((SECONDS + 30))
	# until the target ends (tracelloc with it), at most 30 s; 10 requests
	# per curl, one after the other
	: >"$T_DIR/scrapes"
	while kill -0 "$TL_PID" 2>/dev/null && [ "$SECONDS" -lt "$end" ]; do
		curl -s -m 5 -o "$T_DIR/scrape.pb.gz" -w '%{http_code} %{size_download}\n' \
			"$URL/debug/pprof/heap?n=[1-10]" >>"$T_DIR/scrapes" 2>/dev/null
	done
	wait_pid "$TL_PID" 30
	TL_RC=$WAIT_RC
	check_normal_end c '^target exited with status 0$' "churn, scraped" || return
	note "$(awk '$1 == 200 && $2 > 0' "$T_DIR/scrapes" | wc -l) scrapes;" \
		"$(grep -E '^tracelloc: (http|the ring buffer)' "$T_DIR/c.err" | sed 's/^tracelloc: //' | tr '\n' ' ')"
	assert_int_ge "$(awk '$1 == 200 && $2 > 0' "$T_DIR/scrapes" | wc -l)" 20 \
		"churn: scrapes answered with a profile while it ran"
	# the requests after tracelloc ended (with its target) find no server
	assert_eq "$(awk '$1 == 200 { ok = NR } { code[NR] = $1 }
		END { for (i = 1; i < ok; i++) if (code[i] != 200) n++; print n + 0 }' "$T_DIR/scrapes")" 0 \
		"churn: failed scrapes while tracelloc ran"
	assert_eq "$(head -c2 "$T_DIR/scrape.pb.gz" | od -An -tx1 | tr -d ' ')" 1f8b "churn: a scrape is gzip"
	assert_eq "$SUM_LOST" 0 "churn, scraped: lost events"
	check_expect_file "$T_DIR/c.exp" churn || return
	local si
	for si in inuse_space alloc_objects; do
		pprof_top "c-$si" "$si" "$T_DIR/c.pb.gz" || return
		check_top_ledger "$T_DIR/c-$si.top" "$T_DIR/c.exp" "$si" "churn, scraped"
	done
	check_invariant "churn, scraped"
}

test_scrape_large_leak() { # a page of 262144 stacks while 2 threads allocate: no event lost, the rings read every 100 ms while written, the leak exact
	need_target leakstacks || return
	local levels=18 target gap n
	start_listening l leakstacks -vv -- "$levels" 6 || return
	target=$(awk '{ print $2 }' "$T_DIR/l.ready")
	# a first page, before the leak, reads the debug information the
	# stacks name (libc's: 100-250 ms in one go, once)
	curl -s -m 30 -o /dev/null "$URL/debug/pprof/heap"
	kill -USR1 "$target"
	if ! wait_for_grep "$T_DIR/l.err" '^leakstacks: leaked' 30 "$TL_PID"; then
		fail "leakstacks did not leak"
		return
	fi
	assert_eq "$(curl -s -m 30 -o "$T_DIR/l.pb.gz" -w '%{http_code}' "$URL/debug/pprof/heap")" 200 \
		"large leak: the page"
	wait_pid "$TL_PID" 30
	TL_RC=$WAIT_RC
	check_normal_end l '^target exited with status 0$' "large leak, scraped" || return
	assert_eq "$SUM_LOST" 0 "large leak, scraped: lost events"
	check_invariant "large leak, scraped"
	check_expect_file "$T_DIR/l.exp" leakstacks || return
	note "$(grep -E '^tracelloc: (http|the ring buffer was)' "$T_DIR/l.err" | sed 's/^tracelloc: //' | tr '\n' ' ')"
	assert_grep "$T_DIR/l.err" 'read at least every [0-9.]+ ms, every [0-9.]+ ms while pages and files were written' \
		"large leak: -v says how long the rings went unread while pages were written"
	# -vv names every gap over 50 ms: those while the page of the leak was
	# written stay under 100 (the bound is 50; room for a loaded machine)
	gap=$(awk '/^leakstacks: leaked/ { on = 1 }
		on && /went unread for .* while a page or file was written/ {
			for (i = 1; i <= NF; i++) if ($i == "for") v = $(i + 1) + 0
			if (v > max) max = v
		}
		END { printf "%d\n", max }' "$T_DIR/l.err")
	assert_int_le "$gap" 99 "large leak: longest ms the rings went unread while the page was written"
	pprof_top l-inuse inuse_space "$T_DIR/l.pb.gz" || return
	pprof_top l-objects inuse_objects "$T_DIR/l.pb.gz" || return
	n=$(ledger_value "$T_DIR/l.exp" live-count site_stacks_leak)
	assert_eq "$n" $((1 << levels)) "large leak: blocks in the ledger"
	assert_eq "$(top_cum "$T_DIR/l-inuse.top" site_stacks_leak)" \
		"$(ledger_value "$T_DIR/l.exp" live site_stacks_leak)" "large leak, the page: inuse_space of site_stacks_leak"
	assert_eq "$(top_cum "$T_DIR/l-objects.top" site_stacks_leak)" "$n" \
		"large leak, the page: inuse_objects of site_stacks_leak"
}

test_metrics_rate() { # /metrics: allocation rate of a target that allocates 100 bytes every 20 ms
	need_target sleeper || return
	start_listening s sleeper -i 1 -- 8 || return
	sleep 2.2
	curl -s "$URL/metrics" >"$T_DIR/metrics"
	local calls bytes
	calls=$(awk '$1 == "tracelloc_allocation_rate_calls" { print $2 }' "$T_DIR/metrics")
	bytes=$(awk '$1 == "tracelloc_allocation_rate_bytes" { print $2 }' "$T_DIR/metrics")
	# 50 a second (20 ms sleeps), 51 when the second holds one more, fewer when late
	assert_between "$calls" 40 51 "allocation calls per second over the last interval"
	# both printed to 3 decimals
	assert_eq "$(awk -v c="$calls" -v b="$bytes" 'BEGIN { d = b - 100 * c; print (d < 0 ? -d : d) < 0.06 }')" 1 \
		"allocated bytes per second = 100 x calls per second ($bytes, $calls)"
	stop_listening s
}

# Debian's Prometheus, installed when missing (a test of its own needs it)
need_prometheus() {
	command -v prometheus >/dev/null 2>&1 && return 0
	[ "$(id -u)" = 0 ] || return 1
	echo "pprof: installing prometheus"
	export DEBIAN_FRONTEND=noninteractive
	{ apt-get install -y -qq --no-install-recommends prometheus ||
		{ apt-get update -qq && apt-get install -y -qq --no-install-recommends prometheus; }
	} >/dev/null 2>&1
	command -v prometheus >/dev/null 2>&1
}

# prom_value PORT QUERY: the value of an instant query, through Prometheus' API
prom_value() {
	curl -s "http://127.0.0.1:$1/api/v1/query" --data-urlencode "query=$2" |
		sed -nE 's/.*"value":\[[0-9.]+,"([0-9.e+-]+)"\].*/\1/p'
}

test_prometheus_scrape() { # Debian's Prometheus scrapes --listen: tracelloc_live_bytes arrives and matches the target's live bytes
	need_target waiter || return
	local pport=$((19000 + $$ % 1000)) want got i prom_pid
	if ! need_prometheus; then
		fail "prometheus (Debian's) is missing and cannot be installed"
		return
	fi
	mkfifo "$T_DIR/go"
	start_listening w waiter -i 1 -- 5 "$T_DIR/go" 60 || return
	cat >"$T_DIR/prometheus.yml" <<-EOF
	global:
	  scrape_interval: 1s
	scrape_configs:
	  - job_name: tracelloc
	    static_configs:
	      - targets: ['127.0.0.1:$PORT']
	EOF
	prometheus --config.file="$T_DIR/prometheus.yml" --storage.tsdb.path="$T_DIR/prom" \
		--web.listen-address="127.0.0.1:$pport" >"$T_DIR/prometheus.log" 2>&1 &
	prom_pid=$!
	register_pid "$prom_pid"
	echo go >"$T_DIR/go"
	# what the target holds: its start block and 5 x 500 bytes, nothing else
	want=$((512 + 5 * 500))
	for i in $(seq 60); do
		got=$(prom_value "$pport" 'tracelloc_live_bytes{job="tracelloc"}')
		[ "$got" = "$want" ] && break
		sleep 0.5
	done
	assert_eq "$got" "$want" "Prometheus: tracelloc_live_bytes as scraped"
	assert_eq "$(curl -s "$URL/metrics" | awk '$1 == "tracelloc_live_bytes" { print $2 }')" "$want" \
		"/metrics: tracelloc_live_bytes"
	assert_eq "$(prom_value "$pport" 'up{job="tracelloc"}')" 1 "Prometheus: the target is up"
	assert_eq "$(prom_value "$pport" 'tracelloc_peak_live_bytes{job="tracelloc"}')" "$want" \
		"Prometheus: the peak (a heap that only grew: what it holds)"
	kill "$prom_pid" 2>/dev/null
	wait "$prom_pid" 2>/dev/null
	stop_listening w
}

# ================================================================ runner

if [ "${1:-}" != -l ] && ! need_go; then
	echo "go (Debian's golang-go) is missing and cannot be installed"
	echo "pprof: 0 passed, 1 failed"
	exit 1
fi
run_suite_tests "$0" pprof "${1:-}"
