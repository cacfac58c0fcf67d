#!/bin/bash
# The whole suite: unit tests, then integration tests that trace real processes.
# Ends with one line "N passed, N failed" summing both.
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
		return
	fi
	passed=$(grep -oE '[0-9]+ passed' <<<"$counts" | grep -oE '[0-9]+')
	failed=$(grep -oE '[0-9]+ failed' <<<"$counts" | grep -oE '[0-9]+')
	total_passed=$((total_passed + passed))
	total_failed=$((total_failed + failed))
}

run_suite unit build/tests/unit
run_suite integration tests/integration.sh
run_suite reports tests/reports.sh
run_suite svg_browser tests/svg_browser.sh
run_suite pprof tests/pprof.sh

echo
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
