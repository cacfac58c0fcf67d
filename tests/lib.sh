# shellcheck shell=bash
# shellcheck disable=SC2034 # variables set here are used by integration.sh
# tests/lib.sh - helpers for tests/integration.sh (sourced, not run).
#
# Layout: the binary is $REPO/tracelloc, the targets $REPO/build/tests/NAME
# (built from tests/targets/NAME.c[pp] by the Makefile).  TRACELLOC=... and
# TL_TARGETS=... override both (for debugging the harness itself).
#
# Every test runs in its own subshell with its own directory $T_DIR; an
# assertion that fails prints a line and bumps T_FAILS; the test fails if
# T_FAILS > 0 at its end.  Every wait has a time limit, and every process a
# test starts in the background is killed when the test ends.

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TL=${TRACELLOC:-$REPO/tracelloc}
TB=${TL_TARGETS:-$REPO/build/tests}
# seconds one tracelloc run may take before it counts as hung
TL_TIMEOUT=${TL_TIMEOUT:-60}
# a suite in several files lists them here (run_suite_tests)
SUITE_FILES=()
# environment under which reuse across threads is likely (see reuse.c)
NO_TCACHE=glibc.malloc.tcache_count=0
ALL_METRICS="live live-count allocated count"
# the metrics each ledger test runs its target with (TL_METRICS="live count"
# for a quicker, weaker run)
METRICS=${TL_METRICS:-$ALL_METRICS}

SUITE_TMP=
T_FAILS=0
T_DIR=
T_PIDS=()
TL_ENV=()

suite_init() {
	SUITE_TMP=$(mktemp -d "${TMPDIR:-/tmp}/tracelloc-it.XXXXXX") || {
		echo "cannot create a temporary directory" >&2
		exit 2
	}
	chmod 755 "$SUITE_TMP"
	trap suite_cleanup EXIT
}

# TL_KEEP=1 keeps the suite's directory (outputs of every run) for a look
suite_cleanup() {
	[ -n "$SUITE_TMP" ] && [ -d "$SUITE_TMP" ] || return 0
	[ "${TL_KEEP:-0}" = 1 ] || rm -rf "$SUITE_TMP"
}

# ---------------------------------------------------------------- asserts

fail() {
	printf '    FAIL: %s\n' "$*"
	T_FAILS=$((T_FAILS + 1))
}

note() {
	printf '    note: %s\n' "$*"
}

# assert_eq GOT WANT WHAT
assert_eq() {
	if [ "$1" != "$2" ]; then
		fail "$3: got '$1', want '$2'"
		return 1
	fi
}

# assert_ne GOT UNWANTED WHAT
assert_ne() {
	if [ "$1" = "$2" ]; then
		fail "$3: got '$1', which it must not be"
		return 1
	fi
}

_is_int() {
	[[ $1 =~ ^-?[0-9]+$ ]]
}

# assert_int_ge GOT MIN WHAT
assert_int_ge() {
	if ! _is_int "$1" || [ "$1" -lt "$2" ]; then
		fail "$3: got '$1', want >= $2"
		return 1
	fi
}

# assert_int_le GOT MAX WHAT
assert_int_le() {
	if ! _is_int "$1" || [ "$1" -gt "$2" ]; then
		fail "$3: got '$1', want <= $2"
		return 1
	fi
}

# assert_between GOT LO HI WHAT   (decimal numbers allowed)
assert_between() {
	if ! [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
		! awk -v g="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(g + 0 >= lo + 0 && g + 0 <= hi + 0) }'; then
		fail "$4: got '$1', want between $2 and $3"
		return 1
	fi
}

# assert_match STRING ERE WHAT
assert_match() {
	if ! [[ $1 =~ $2 ]]; then
		fail "$3: '$1' does not match /$2/"
		return 1
	fi
}

# assert_file FILE WHAT: FILE exists and is not empty
assert_file() {
	if [ ! -s "$1" ]; then
		fail "$2: $1 is missing or empty"
		return 1
	fi
}

# assert_grep FILE ERE WHAT: some line of FILE matches
assert_grep() {
	if ! grep -Eq -- "$2" "$1" 2>/dev/null; then
		fail "$3: no line of $(basename "$1") matches /$2/"
		return 1
	fi
}

# assert_no_grep FILE ERE WHAT: no line of FILE matches
assert_no_grep() {
	local hit
	hit=$(grep -E -m1 -- "$2" "$1" 2>/dev/null)
	if [ -n "$hit" ]; then
		fail "$3: $(basename "$1") has '$hit'"
		return 1
	fi
}

# show the first lines of a file (for failure diagnostics)
show() {
	local f=$1 n=${2:-10}
	if [ -f "$f" ]; then
		echo "      --- $(basename "$f") (first $n lines) ---"
		head -n "$n" "$f" | cut -c1-200 | sed 's/^/      | /'
	else
		echo "      --- $(basename "$f"): no such file ---"
	fi
}

# ---------------------------------------------------------------- summary

# parse_summary FILE: sets SUM_PID SUM_TRACED SUM_END SUM_CALLS SUM_CALL_BYTES
# SUM_FREES SUM_UNKNOWN SUM_LIVE SUM_LIVE_BYTES SUM_LOST SUM_FAILED and
# SUM_HEADERS (how many "==> summary:" lines).  Returns 1 (after a failed
# assertion) when there is no summary.
parse_summary() {
	local f=$1 hdr
	SUM_PID='' SUM_TRACED='' SUM_END='' SUM_CALLS='' SUM_CALL_BYTES='' SUM_FREES=''
	SUM_UNKNOWN='' SUM_LIVE='' SUM_LIVE_BYTES='' SUM_LOST='' SUM_FAILED=
	SUM_HEADERS=$(grep -c '^==> summary: ' "$f" 2>/dev/null)
	SUM_HEADERS=${SUM_HEADERS:-0}
	hdr=$(grep -m1 '^==> summary: ' "$f" 2>/dev/null)
	if [ -z "$hdr" ]; then
		fail "no '==> summary:' line on stdout"
		show "$f"
		return 1
	fi
	SUM_PROCESSES=''
	if [[ $hdr =~ ^==\>\ summary:\ pid\ ([0-9]+),\ traced\ ([0-9]+(\.[0-9]+)?)\ s,\ (.*)$ ]]; then
		SUM_PID=${BASH_REMATCH[1]}
		SUM_TRACED=${BASH_REMATCH[2]}
		SUM_END=${BASH_REMATCH[4]}
	elif [[ $hdr =~ ^==\>\ summary:\ ([0-9]+)\ processes,\ traced\ ([0-9]+(\.[0-9]+)?)\ s,\ (.*)$ ]]; then
		SUM_PROCESSES=${BASH_REMATCH[1]}
		SUM_TRACED=${BASH_REMATCH[2]}
		SUM_END=${BASH_REMATCH[4]}
	else
		fail "summary header not as in the contract: '$hdr'"
	fi
	SUM_CALLS=$(_sum_field "$f" 'allocation calls' count)
	SUM_CALL_BYTES=$(_sum_field "$f" 'allocation calls' bytes)
	SUM_FREES=$(_sum_field "$f" 'frees' count)
	SUM_UNKNOWN=$(_sum_field "$f" 'unknown frees' count)
	SUM_LIVE=$(_sum_field "$f" 'live allocations' count)
	SUM_LIVE_BYTES=$(_sum_field "$f" 'live allocations' bytes)
	SUM_LOST=$(_sum_field "$f" 'lost events' count)
	SUM_FAILED=$(_sum_field "$f" 'failed stacks' count)
	local k v
	for k in SUM_CALLS SUM_CALL_BYTES SUM_FREES SUM_UNKNOWN SUM_LIVE SUM_LIVE_BYTES SUM_LOST SUM_FAILED; do
		v=${!k}
		_is_int "$v" || fail "summary field $k missing or not a number: '$v'"
	done
	return 0
}

# _sum_field FILE KEY count|bytes: the value of "KEY: N" or of the
# "(B bytes" that follows it, from the lines after the summary header.
_sum_field() {
	awk -v key="$2" -v what="$3" '
		/^==> summary: / { in_sum = 1; next }
		!in_sum { next }
		{
			line = $0
			sub(/^[ \t]+/, "", line)
			if (substr(line, 1, length(key) + 2) != key ": ")
				next
			rest = substr(line, length(key) + 3)
			if (what == "count") {
				if (match(rest, /^[0-9]+/))
					print substr(rest, 1, RLENGTH)
			} else if (match(rest, /\([0-9]+ bytes/)) {
				v = substr(rest, RSTART + 1, RLENGTH - 1)
				sub(/ bytes/, "", v)
				print v
			}
			exit
		}' "$1"
}

# check_invariant: live allocations = allocation calls - frees (after parse_summary)
check_invariant() {
	local what=$1
	if _is_int "$SUM_CALLS" && _is_int "$SUM_FREES" && _is_int "$SUM_LIVE"; then
		assert_eq "$SUM_LIVE" "$((SUM_CALLS - SUM_FREES))" \
			"$what: live allocations = allocation calls ($SUM_CALLS) - frees ($SUM_FREES)"
		if _is_int "$SUM_LIVE_BYTES" && _is_int "$SUM_CALL_BYTES"; then
			assert_int_le "$SUM_LIVE_BYTES" "$SUM_CALL_BYTES" "$what: live bytes <= allocated bytes"
		fi
	fi
}

# ---------------------------------------------------------------- folded files

# fold_sum FILE FRAME: sum of the values of the lines whose stack has FRAME
# as a whole ';'-separated frame.  FRAME starting with '~' is an extended
# regular expression matched against each frame.  Prints 0 if none.
fold_sum() {
	[ -f "$1" ] || {
		echo 0
		return
	}
	FOLD_WANT=$2 awk '
		BEGIN { want = ENVIRON["FOLD_WANT"]; isre = substr(want, 1, 1) == "~"; re = substr(want, 2); s = 0 }
		{
			if (!match($0, / [0-9]+$/))
				next
			stack = substr($0, 1, RSTART - 1)
			val = substr($0, RSTART + 1) + 0
			n = split(stack, fr, ";")
			for (i = 1; i <= n; i++)
				if ((isre && fr[i] ~ re) || (!isre && fr[i] == want)) {
					s += val
					break
				}
		}
		END { printf "%.0f\n", s }' "$1"
}

# fold_total FILE: sum of all values
fold_total() {
	awk '{ if (match($0, / [0-9]+$/)) s += substr($0, RSTART + 1) } END { printf "%.0f\n", s }' "$1" 2>/dev/null || echo 0
}

# fold_lines FILE FRAME: the lines that fold_sum would add up
fold_lines() {
	FOLD_WANT=$2 awk '
		BEGIN { want = ENVIRON["FOLD_WANT"]; isre = substr(want, 1, 1) == "~"; re = substr(want, 2) }
		{
			if (!match($0, / [0-9]+$/))
				next
			n = split(substr($0, 1, RSTART - 1), fr, ";")
			for (i = 1; i <= n; i++)
				if ((isre && fr[i] ~ re) || (!isre && fr[i] == want)) {
					print
					break
				}
		}' "$1"
}

# summary value that the folded total of METRIC must equal (after parse_summary)
summary_for_metric() {
	case $1 in
	live) echo "$SUM_LIVE_BYTES" ;;
	live-count) echo "$SUM_LIVE" ;;
	allocated) echo "$SUM_CALL_BYTES" ;;
	count) echo "$SUM_CALLS" ;;
	esac
}

# check_ledger EXPECT FOLDED METRIC WHAT: every "METRIC SITE N" line of the
# expect file must equal fold_sum(FOLDED, SITE).  Fails if the expect file
# has no line for METRIC with a non-zero value (nothing would be tested).
check_ledger() {
	local exp=$1 fg=$2 metric=$3 what=$4 m site want got nonzero=0 n=0
	while read -r m site want; do
		[ "$m" = "$metric" ] || continue
		n=$((n + 1))
		[ "$want" != 0 ] && nonzero=1
		got=$(fold_sum "$fg" "$site")
		if ! assert_eq "$got" "$want" "$what: $metric of $site"; then
			fold_lines "$fg" "$site" | head -5 | sed 's/^/      | /'
		fi
	done <"$exp"
	[ "$n" -gt 0 ] || fail "$what: expect file has no '$metric' line"
	[ "$nonzero" = 1 ] || fail "$what: expect file has no non-zero '$metric' line"
}

# expect_value EXPECT KEY...: value of the line "KEY... VALUE" of an expect file
expect_value() {
	local f=$1
	shift
	EXP_KEY="$*" awk '{ v = $NF; $NF = ""; sub(/ +$/, ""); if ($0 == ENVIRON["EXP_KEY"]) { print v; exit } }' "$f"
}

# check_expect_file FILE WHAT: the target ran, wrote its ledger, and its own
# self-checks passed
check_expect_file() {
	if [ ! -s "$1" ]; then
		fail "$2: target wrote no expect file (did it run?)"
		return 1
	fi
	assert_no_grep "$1" '^error ' "$2: target self-check" || return 1
}

# ---------------------------------------------------------------- processes

# register_pid PID: killed (SIGKILL) when the test ends
register_pid() {
	T_PIDS+=("$1")
}

kill_registered() {
	local p
	for p in "${T_PIDS[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	T_PIDS=()
}

# need_target NAME: the target binary exists
# go from Debian, installed only when missing (root only)
need_go() {
	command -v go >/dev/null 2>&1 && return 0
	[ "$(id -u)" = 0 ] || return 1
	echo "# installing golang-go"
	export DEBIAN_FRONTEND=noninteractive
	{ apt-get install -y -qq --no-install-recommends golang-go ||
		{ apt-get update -qq && apt-get install -y -qq --no-install-recommends golang-go; }
	} >/dev/null 2>&1
	command -v go >/dev/null 2>&1
}

need_target() {
	if [ ! -x "$TB/$1" ]; then
		fail "target $TB/$1 is missing (build it with: make targets)"
		return 1
	fi
}

# tl_run NAME ARGS...: run tracelloc in the foreground (with a time limit)
# with the environment TL_ENV (an array of VAR=VALUE, reset afterwards).
# stdout -> $T_DIR/NAME.out, stderr -> $T_DIR/NAME.err, exit status -> TL_RC.
tl_run() {
	local name=$1
	shift
	timeout -k 5 "$TL_TIMEOUT" env "${TL_ENV[@]}" "$TL" "$@" \
		>"$T_DIR/$name.out" 2>"$T_DIR/$name.err" </dev/null
	TL_RC=$?
	TL_ENV=()
	if [ "$TL_RC" = 124 ] || [ "$TL_RC" = 137 ]; then
		fail "tracelloc $* did not end within ${TL_TIMEOUT}s (killed)"
		show "$T_DIR/$name.err"
	fi
	return 0
}

# tl_bg NAME ARGS...: start tracelloc in the background (SIGINT and SIGTERM
# at their default disposition, as from a terminal); sets TL_PID.
tl_bg() {
	local name=$1
	shift
	env --default-signal=INT,TERM "${TL_ENV[@]}" "$TL" "$@" \
		>"$T_DIR/$name.out" 2>"$T_DIR/$name.err" </dev/null &
	TL_PID=$!
	TL_ENV=()
	register_pid "$TL_PID"
}

# wait_pid PID SECS: wait for a background child of this shell; its exit
# status goes to WAIT_RC (or 'timeout' after killing it).
wait_pid() {
	local pid=$1 secs=$2 end
	end=$(($(date +%s%N) + secs * 1000000000))
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$(date +%s%N)" -ge "$end" ]; then
			kill -KILL "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			WAIT_RC=timeout
			return 1
		fi
		sleep 0.05
	done
	wait "$pid" 2>/dev/null
	WAIT_RC=$?
	return 0
}

# wait_for_grep FILE ERE SECS [PID]: wait until a line of FILE matches;
# returns 1 on timeout, and 2 as soon as PID (if given) has ended
wait_for_grep() {
	local f=$1 re=$2 secs=$3 pid=${4:-} end
	end=$(($(date +%s%N) + secs * 1000000000))
	until grep -Eq -- "$re" "$f" 2>/dev/null; do
		[ "$(date +%s%N)" -ge "$end" ] && return 1
		if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
			grep -Eq -- "$re" "$f" 2>/dev/null && return 0
			return 2
		fi
		sleep 0.02
	done
	return 0
}

# pid_alive PID: the process exists and is not a zombie
pid_alive() {
	local st
	[ -r "/proc/$1/stat" ] || return 1
	st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# start_target NAME ARGS...: start a target in the background, wait for its
# "ready PID" line ($TL_READY); sets TGT_PID.  The target's extra environment
# comes from TGT_ENV (array, reset afterwards).
start_target() {
	local name=$1
	shift
	rm -f "$T_DIR/$name.ready"
	env TL_READY="$T_DIR/$name.ready" "${TGT_ENV[@]}" "$TB/$name" "$@" \
		>"$T_DIR/$name.tout" 2>"$T_DIR/$name.terr" </dev/null &
	TGT_PID=$!
	TGT_ENV=()
	register_pid "$TGT_PID"
	if ! wait_for_grep "$T_DIR/$name.ready" '^ready [0-9]+$' 10 "$TGT_PID"; then
		fail "target $name did not get ready within 10 s"
		return 1
	fi
	return 0
}
TGT_ENV=()

# elapsed time helpers
now_ns() { date +%s%N; }
secs_since() { awk -v a="$1" -v b="$(now_ns)" 'BEGIN { printf "%.2f\n", (b - a) / 1e9 }'; }

# ---------------------------------------------------------------- composite checks

# check_normal_end NAME END_RE WHAT: tracelloc exited 0, printed exactly one
# summary whose end matches END_RE, and said "attached to pid <pid>"
check_normal_end() {
	local name=$1 end_re=$2 what=$3
	assert_eq "$TL_RC" 0 "$what: tracelloc exit status" || show "$T_DIR/$name.err"
	parse_summary "$T_DIR/$name.out" || return 1
	assert_eq "$SUM_HEADERS" 1 "$what: number of summary lines"
	assert_match "$SUM_END" "$end_re" "$what: how the run ended"
	if [ -n "$SUM_PROCESSES" ]; then
		assert_grep "$T_DIR/$name.err" "^tracelloc: attached to pid [0-9]+:" \
			"$what: 'tracelloc: attached to pid' on stderr"
		return 0
	fi
	assert_grep "$T_DIR/$name.err" "^tracelloc: attached to pid $SUM_PID([^0-9]|$)" \
		"$what: 'tracelloc: attached to pid $SUM_PID' on stderr"
	return 0
}

# ledger_test TARGET [ENV...] [-- ARGS]: run TARGET in launch mode once per
# metric (with tracelloc's options $TL_ARGS) and check, for each run:
#  - tracelloc exits 0, one summary, "target exited with status 0",
#    "attached to pid" line, lost events 0, failed stacks 0;
#  - the target wrote its expect file with no self-check error;
#  - every per-site expectation of that metric, exactly;
#  - unknown frees as the target predicts (see ledger.h);
#  - live allocations = allocation calls - frees;
#  - the folded file's total equals the summary's number for the metric.
# Outputs: $T_DIR/METRIC.{out,err,fg,exp}.  (The runs are sequential: with
# the time tracelloc spends detaching its probes, running them concurrently
# gains nothing.)
ledger_test() {
	local target=$1
	shift
	need_target "$target" || return
	local envs=() m
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	[ "${1:-}" = -- ] && shift
	for m in $METRICS; do
		TL_ENV=(TL_EXPECT="$T_DIR/$m.exp" "${envs[@]}")
		# shellcheck disable=SC2086 # TL_ARGS: tracelloc options, split on spaces
		tl_run "$m" $TL_ARGS -m "$m" -f "$T_DIR/$m.fg" -- "$TB/$target" "$@"
		ledger_check_one "$target" "$m"
	done
}

ledger_check_one() {
	local target=$1 m=$2 what="$1 -m $2" want total
	check_normal_end "$m" '^target exited with status 0$' "$what" || return
	assert_eq "$SUM_LOST" 0 "$what: lost events"
	assert_eq "$SUM_FAILED" 0 "$what: failed stacks"
	check_expect_file "$T_DIR/$m.exp" "$what" || return
	assert_file "$T_DIR/$m.fg" "$what: folded file" || return
	check_ledger "$T_DIR/$m.exp" "$T_DIR/$m.fg" "$m" "$what"
	want=$(expect_value "$T_DIR/$m.exp" summary unknown-frees)
	[ -n "$want" ] && assert_eq "$SUM_UNKNOWN" "$want" "$what: unknown frees"
	check_invariant "$what"
	total=$(fold_total "$T_DIR/$m.fg")
	assert_eq "$total" "$(summary_for_metric "$m")" "$what: total of the folded file = the summary's $m"
}

# bad_input WHAT ARGS...: tracelloc ARGS must fail cleanly: non-zero exit,
# not killed by a signal / not hung, exactly one line on stderr and it
# starts with "tracelloc:", no summary on stdout.  If $MARKER is set (see
# marker_cmd in integration.sh: the command is a target run with TL_EXPECT
# pointing there), the command must not have run.
bad_input() {
	local what=$1
	shift
	tl_run bad "$@"
	bad_input_check "$what"
}

bad_input_check() {
	local what=$1 nlines first
	if [ "$TL_RC" = 0 ]; then
		fail "$what: tracelloc exited 0"
	elif [ "$TL_RC" -ge 124 ]; then
		fail "$what: tracelloc ended with status $TL_RC (killed by a signal, crashed or hung)"
	fi
	nlines=$(wc -l <"$T_DIR/bad.err")
	# a last line without '\n' counts too
	[ -s "$T_DIR/bad.err" ] && [ -n "$(tail -c1 "$T_DIR/bad.err")" ] && nlines=$((nlines + 1))
	assert_eq "$nlines" 1 "$what: number of lines on stderr" || show "$T_DIR/bad.err"
	first=$(head -n1 "$T_DIR/bad.err")
	assert_match "$first" '^tracelloc: .' "$what: stderr line"
	assert_no_grep "$T_DIR/bad.out" '^==> summary' "$what: no summary on stdout"
	if [ -n "${MARKER:-}" ] && [ -e "$MARKER" ]; then
		fail "$what: the command was run although the input is bad"
	fi
}

# ---------------------------------------------------------------- sanitizers

# sanitizer_check WHAT: under tests/run.sh sanitize, the sanitizers of
# tracelloc and of the unit tests write any report to a file in
# $TL_SANITIZER_LOGS; returns 1 (after showing them, and removing them) if
# there is one. Without TL_SANITIZER_LOGS there is nothing to check.
sanitizer_check() {
	local f rc=0
	[ -n "${TL_SANITIZER_LOGS:-}" ] || return 0
	for f in "$TL_SANITIZER_LOGS"/report.*; do
		[ -e "$f" ] || continue
		printf '    FAIL: %s: sanitizer report %s\n' "$1" "$(basename "$f")"
		head -n 40 "$f" | cut -c1-200 | sed 's/^/      | /'
		rm -f "$f"
		rc=1
	done
	return "$rc"
}

# ---------------------------------------------------------------- runner

# run_suite_tests SCRIPT WHAT [REGEX | -l]: runs every test_* function that
# SCRIPT defines (or the files of SUITE_FILES, in that order), in order (none
# can be left out), each in a subshell with its own T_DIR; ends with "N
# passed, N failed" and fails if any test did
run_suite_tests() {
	local script=$1 what=$2 filter=${3:-} t t0 rc el passed=0 failed=0 suite_t0
	local -a all failed_names=() files=("$1")

	[ "${#SUITE_FILES[@]}" -gt 0 ] && files=("${SUITE_FILES[@]}")
	mapfile -t all < <(sed -nE 's/^test_([a-z0-9_]+)\(\) \{.*/\1/p' "${files[@]}")
	if [ "$filter" = -l ]; then
		for t in "${all[@]}"; do
			printf '%-30s %s\n' "$t" "$(grep -h -m1 "^test_$t() {" "${files[@]}" | sed -n 's/.*{ *# *//p')"
		done
		return 0
	fi
	if [ "$(id -u)" != 0 ]; then
		echo "$what tests need root (BPF uprobes)"
		echo "0 passed, 1 failed"
		return 1
	fi
	if [ ! -x "$TL" ]; then
		echo "no tracelloc binary at $TL (run make)"
		echo "0 passed, 1 failed"
		return 1
	fi

	suite_init
	suite_t0=$(now_ns)
	for t in "${all[@]}"; do
		if [ -n "$filter" ] && ! [[ $t =~ $filter ]]; then
			continue
		fi
		t0=$(now_ns)
		(
			T_FAILS=0
			T_PIDS=()
			T_DIR=$SUITE_TMP/$t
			mkdir -p "$T_DIR"
			trap kill_registered EXIT
			"test_$t"
			kill_registered
			sanitizer_check "$t" || T_FAILS=$((T_FAILS + 1))
			exit $((T_FAILS > 0 ? 1 : 0))
		)
		rc=$?
		el=$(secs_since "$t0")
		if [ "$rc" = 0 ]; then
			passed=$((passed + 1))
			printf 'ok   %-30s (%ss)\n' "$t" "$el"
		else
			failed=$((failed + 1))
			failed_names+=("$t")
			printf 'FAIL %-30s (%ss)\n' "$t" "$el"
		fi
	done
	echo "# $(secs_since "$suite_t0") s${failed_names[*]:+; failed: ${failed_names[*]}}"
	[ "${TL_KEEP:-0}" = 1 ] && echo "# outputs kept in $SUITE_TMP"
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
}
