#!/bin/bash
# tests/integration.sh - integration tests of tracelloc against the targets
# in tests/targets (which know their own ledgers; see tests/targets/ledger.h).
#
#   tests/integration.sh            run every test
#   tests/integration.sh REGEX      run the tests whose name matches REGEX
#   tests/integration.sh -l         list the tests
#   TL_KEEP=1 tests/integration.sh  keep every run's output (path printed)
#   TL_METRICS="live count" ...     ledger tests with fewer metrics (quicker)
#
# Needs root, $REPO/tracelloc and $REPO/build/tests/* (make tracelloc targets).
# Ends with the line "N passed, N failed" (tests, not assertions) and exits
# non-zero if a test failed.

cd "$(dirname "$0")/.." || exit 2
# shellcheck source=tests/lib.sh
. tests/lib.sh

# the tests, one file per area (tests/integration/*.sh), in this order
SUITE_FILES=()
for part in ledgers families leakcheck attach damaged endings formats outputs runtimes bad_input; do
	# shellcheck source=/dev/null
	. "tests/integration/$part.sh"
	SUITE_FILES+=("tests/integration/$part.sh")
done

run_suite_tests "$0" integration "${1:-}"
