#!/bin/bash
# The whole suite: unit tests, then integration tests that trace real processes.
# Ends with one line "N passed, N failed" summing every suite of every pass.
#
#   tests/run.sh                    ./tracelloc and build/tests/unit
#   tests/run.sh sanitize           build/sanitize/{tracelloc,tests/unit}, built
#                                   with make SANITIZE=1, under ASan and UBSan
#   tests/run.sh plain sanitize     both, one after the other
set -u
cd "$(dirname "$0")/.."

total_passed=0
total_failed=0

# runs a suite, echoing its output, and adds up its closing "N passed, N failed"
run_suite() {
	local name=$1 log counts passed failed
	shift
	log=$(mktemp)
	"$@" 2>&1 | tee "$log"
	counts=$(grep -E '([a-z]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	rm -f "$log"
	if [ -z "$counts" ]; then
		echo "$name: no result line: counted as one failure"
		total_failed=$((total_failed + 1))
	else
		passed=$(grep -oE '[0-9]+ passed' <<<"$counts" | grep -oE '[0-9]+')
		failed=$(grep -oE '[0-9]+ failed' <<<"$counts" | grep -oE '[0-9]+')
		total_passed=$((total_passed + passed))
		total_failed=$((total_failed + failed))
	fi
	# reports that no test of the suite claimed (see sanitizer_check in lib.sh)
	if [ -n "${TL_SANITIZER_LOGS:-}" ] && ! sanitizer_check "$name"; then
		total_failed=$((total_failed + 1))
	fi
}

# the sanitizers write their reports to files in $TL_SANITIZER_LOGS, which the
# suites look at after each test (stderr is often checked line by line, or not
# kept): a report is a failure, and so is the non-zero exit it causes
sanitizer_env() {
	TL_SANITIZER_LOGS=$(mktemp -d "${TMPDIR:-/tmp}/tracelloc-san.XXXXXX") || exit 2
	# the unprivileged runs of test_bad_not_root write here too
	chmod 1777 "$TL_SANITIZER_LOGS"
	export TL_SANITIZER_LOGS
	export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:detect_leaks=1:log_path=$TL_SANITIZER_LOGS/report"
	export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$TL_SANITIZER_LOGS/report"
}

# shellcheck source=tests/lib.sh
. tests/lib.sh

# run_pass PASS NPASSES
run_pass() {
	local pass=$1 unit
	case $pass in
	plain)
		export TRACELLOC=$PWD/tracelloc
		unit=build/tests/unit
		;;
	sanitize)
		export TRACELLOC=$PWD/build/sanitize/tracelloc
		unit=build/sanitize/tests/unit
		sanitizer_env
		;;
	*)
		echo "run.sh: no pass '$pass' (plain or sanitize)" >&2
		exit 2
		;;
	esac
	if [ "$2" -gt 1 ] || [ "$pass" != plain ]; then
		printf '\n======== %s\n' "$pass"
	fi
	run_suite unit "$unit"
	run_suite integration tests/integration.sh
	run_suite safety tests/safety.sh
	run_suite reports tests/reports.sh
	run_suite svg_browser tests/svg_browser.sh
	run_suite pprof tests/pprof.sh
	run_suite servers tests/servers.sh
	run_suite peers tests/peers.sh
	if [ -n "${TL_SANITIZER_LOGS:-}" ]; then
		rm -rf "$TL_SANITIZER_LOGS"
		unset TL_SANITIZER_LOGS ASAN_OPTIONS UBSAN_OPTIONS
	fi
}

[ $# -gt 0 ] || set -- plain
for pass in "$@"; do
	run_pass "$pass" $#
done

echo
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
