#!/bin/bash
# tests/peers.sh - the leak check on its peers' own cases: LeakSanitizer's
# (LLVM compiler-rt, test/lsan/TestCases) and valgrind's (memcheck/tests/
# leak-*.c), ported to tests/peers/ (each file names its origin), built
# plain, no sanitizer. Each runs under --leak-check, checked at its exit, and
# a few by -p. A case's header says the peer's answer ("peer:": LSan's
# detected or not, valgrind's bytes/blocks by class) and ours ("want:",
# exact); where they differ, "differs:" says why. The table: case, peer,
# ours, agree.
#
#   tests/peers.sh [REGEX | -l]
#
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

PB=${TL_PEERS:-$REPO/build/tests/peers}

# header CASE KEY: the value of " * KEY: " in the case's source
header() {
	sed -n "s/^ \\* $2: //p" "$REPO/tests/peers/$1.c" | head -n 1
}

# classes FILE [FIRST]: the leak checks' classes in FILE, summed over its
# checks (FIRST: the first check's alone), as "definitely B/N indirectly B/N
# possibly B/N reachable B/N"
classes() {
	awk -v first="${2:-}" '/^leak check of pid / { if (first && seen++) exit }
	     /^ +definitely lost: / { k = "definitely" } /^ +indirectly lost: / { k = "indirectly" }
	     /^ +possibly lost: / { k = "possibly" } /^ +still reachable: / { k = "reachable" }
	     k { s = $0; sub(/^[^:]*: /, "", s); split(s, w, " "); gsub(",", "", w[1]); gsub(",", "", w[4])
		 b[k] += w[1]; n[k] += w[4]; k = "" }
	     END { printf "definitely %d/%d indirectly %d/%d possibly %d/%d reachable %d/%d\n",
		   b["definitely"], n["definitely"], b["indirectly"], n["indirectly"],
		   b["possibly"], n["possibly"], b["reachable"], n["reachable"] }' "$1"
}

# field "KEY B/N ..." KEY: B/N
field() {
	awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }' <<<"$1"
}

# agrees PEER OURS: the peer's answer is ours (LSan: detected is any block
# definitely or indirectly lost; valgrind: each class it gives, exactly)
agrees() {
	local peer=$1 ours=$2 lost k
	lost=$(($(field "$ours" definitely | cut -d/ -f2) + $(field "$ours" indirectly | cut -d/ -f2)))
	case $peer in
	detected) [ "$lost" -gt 0 ] ;;
	"not detected") [ "$lost" = 0 ] ;;
	*)
		for k in definitely indirectly possibly reachable; do
			[ -z "$(field "$peer" $k)" ] || [ "$(field "$peer" $k)" = "$(field "$ours" $k)" ] || return 1
		done
		;;
	esac
}

# check_case CASE WHAT OUTFILE: ours as the case's want says, and the table's row
check_case() {
	local c=$1 what=$2 out=$3 want peer ours k agree
	want=$(header "$c" want)
	peer=$(header "$c" peer)
	ours=$(classes "$out" "$(header "$c" check)")
	assert_grep "$out" '^leak check of pid [0-9]+ ' "$c ($what): checked" || return
	for k in definitely indirectly possibly reachable; do
		[ -z "$(field "$want" $k)" ] && continue
		assert_eq "$(field "$ours" $k)" "$(field "$want" $k)" "$c ($what): $k lost (bytes/blocks)"
	done
	agree=yes
	agrees "$peer" "$ours" || agree="no: $(header "$c" differs | cut -c1-60)..."
	printf '# %-38s %-10s %-14s %-44s %s\n' "$c" "$what" "$peer" "$ours" "$agree" | sed 's/ *$//'
	[ "$agree" = yes ] || [ -n "$(header "$c" differs)" ] ||
		fail "$c ($what): ours ($ours) differs from the peer's ($peer) and the case says not why"
}

# wait_exists FILE SECS PID: until FILE exists; 1 on timeout or once PID ended
wait_exists() {
	local end=$(($(date +%s%N) + $2 * 1000000000))
	until [ -e "$1" ]; do
		[ "$(date +%s%N)" -ge "$end" ] && return 1
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.02
	done
}

# run_case CASE WHAT [TRACELLOC OPTIONS...]: tracelloc on the case, to its
# end; a case checked while it runs (check: running) is checked then, by
# SIGUSR1, and goes on to its exit once the check is printed
run_case() {
	local c=$1 what=$2 tpid=
	shift 2
	rm -f "$T_DIR/$c.ready" "$T_DIR/$c.done" "$T_DIR/$c.go"
	export PEER_READY=$T_DIR/$c.ready PEER_DONE=$T_DIR/$c.done
	if [ "$what" = -p ]; then
		PEER_GO=$T_DIR/$c.go "$PB/$c" >/dev/null 2>&1 </dev/null &
		tpid=$!
		register_pid "$tpid"
		set -- "$@" -p "$tpid"
	else
		set -- "$@" -- "$PB/$c"
	fi
	tl_bg "$c" --leak-check -i 0 -t 5 "$@"
	unset PEER_READY PEER_DONE
	if [ -n "$tpid" ]; then
		wait_for_grep "$T_DIR/$c.err" "^tracelloc: attached to pid $tpid:" 20 "$TL_PID" ||
			{ fail "$c: not attached"; show "$T_DIR/$c.err"; }
		touch "$T_DIR/$c.go"
	fi
	if [ -n "$(header "$c" check)" ]; then
		if wait_exists "$T_DIR/$c.ready" 30 "$TL_PID"; then
			kill -USR1 "$TL_PID"
			wait_for_grep "$T_DIR/$c.out" '^ +still reachable: ' 30 "$TL_PID" ||
				fail "$c ($what): no check while it ran"
		else
			fail "$c ($what): never ready"
		fi
		touch "$T_DIR/$c.done"
	fi
	wait_pid "$TL_PID" 60
	assert_eq "$WAIT_RC" 0 "$c ($what): tracelloc's exit status" || show "$T_DIR/$c.err"
}

table_head() {
	printf '# %-38s %-10s %-14s %-44s %s\n' case run peer ours agree
}

test_peer_cases_launched() { # every case of LeakSanitizer's and valgrind's ported, launched under --leak-check and checked where its peer checks (LSan: at the exit; valgrind: while it runs, by SIGUSR1): ours exact as each case wants, and agreeing with the peer's answer where the case does not say why not
	local src c
	table_head
	for src in "$REPO"/tests/peers/lsan_*.c "$REPO"/tests/peers/vg_*.c; do
		c=$(basename "$src" .c)
		[ -x "$PB/$c" ] || { fail "$c: not built (make targets)"; continue; }
		# shellcheck disable=SC2046 # the case's extra options are words
		run_case "$c" launched $(header "$c" args)
		check_case "$c" launched "$T_DIR/$c.out"
	done
}

test_peer_cases_attached() { # a few cases by -p (tracelloc attached before the case allocates): the same answers
	local c
	table_head
	for c in lsan_use_stacks_threaded lsan_use_registers lsan_use_tls_static lsan_pointer_to_self vg_leak_cases vg_leak_tree; do
		run_case "$c" -p
		check_case "$c" -p "$T_DIR/$c.out"
	done
}

run_suite_tests "$0" peers "${1:-}"
