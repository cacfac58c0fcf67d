#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/runtimes.sh: section 20 of make bench (bench/run.sh), or alone. One
# row per runtime whose frames tracelloc names (docs/usage.md, Allocators):
#
#   python  bench/runtimes/objects.py: N objects kept in work(), under
#           pyenv's CPython (pymalloc probed); tracelloc's live objects under
#           work() against Python's own tracemalloc (memray, the peer the
#           issue names, does not install here: no PyPI, no Debian package)
#   go      bench/runtimes/objects.go: N make([]byte, 64) in main.work; its
#           calls against Go's own heap profile at MemProfileRate=1
#   node    bench/runtimes/buffers.js: N Buffer.allocUnsafeSlow(1000) in
#           work(); its calls under work (named from node's perf map), and
#           the native part against heaptrack on the same command: the calls
#           under node's array buffer allocator, and every allocation call
#
# and for each: the share of the workload's stacks that reach the program's
# entry (_start, or a goroutine's runtime.goexit), and the workload's own time
# traced against untraced and against the empty-probe floor (--empty-probes),
# medians of RUNTIME_RUNS (3), each run's ratio paired with its neighbours.
#
# Environment: TRACELLOC (./tracelloc), RUNTIME_LOGS (build/bench/last/runtimes),
# RUNTIME_RUNS, RUNTIME_PY_N (100000), RUNTIME_GO_N (200000), RUNTIME_NODE_N (2000).
# Prints PASS/FAIL/N/A lines for bench/run.sh's targets.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TL=${TRACELLOC:-$ROOT/tracelloc}
LOGS=${RUNTIME_LOGS:-$ROOT/build/bench/last/runtimes}
RUNS=${RUNTIME_RUNS:-3}
PY_N=${RUNTIME_PY_N:-100000}
GO_N=${RUNTIME_GO_N:-200000}
NODE_N=${RUNTIME_NODE_N:-2000}
mkdir -p "$LOGS"

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "n/a" }'; }
# the workload's TIME line in a log
wtime() { awk '$1 == "TIME" { print $2 }' "$1" | tail -1; }
# sum of the folded stacks of $1 that match the awk regex $2
fsum() { awk -v re="$2" '{ if (!match($0, / [0-9]+$/)) next; if ($0 ~ re) s += substr($0, RSTART + 1) } END { printf "%.0f\n", s }' "$1"; }

# times NAME CMD...: RUNS of the command untraced, under the floor and traced
# (-m count), back to back; sets T_UN, T_FLOOR, T_FULL (medians of the
# workload's own time) and R_FULL, R_FLOOR (medians of the paired ratios)
times() {
	local name=$1 i un fl fu
	shift
	: >"$LOGS/$name.ratios"
	for i in $(seq "$RUNS"); do
		"$@" >"$LOGS/$name-un.out" 2>&1
		"$TL" --empty-probes -i 0 -t 0 -- "$@" >"$LOGS/$name-floor.out" 2>&1
		"$TL" -i 0 -t 0 -m count -f "$LOGS/$name-c.fg" -- "$@" >"$LOGS/$name-full.out" 2>&1
		un=$(wtime "$LOGS/$name-un.out")
		fl=$(wtime "$LOGS/$name-floor.out")
		fu=$(wtime "$LOGS/$name-full.out")
		echo "$un $fl $fu $(ratio "$fu" "$un") $(ratio "$fl" "$un")" >>"$LOGS/$name.ratios"
	done
	T_UN=$(awk '{ printf "%.4f\n", $1 }' "$LOGS/$name.ratios" | median)
	T_FLOOR=$(awk '{ printf "%.4f\n", $2 }' "$LOGS/$name.ratios" | median)
	T_FULL=$(awk '{ printf "%.4f\n", $3 }' "$LOGS/$name.ratios" | median)
	R_FULL=$(awk '{ print $4 }' "$LOGS/$name.ratios" | median)
	R_FLOOR=$(awk '{ print $5 }' "$LOGS/$name.ratios" | median)
}

# the share of the workload's calls (stacks matching $2) whose stack starts
# at $3, in percent
reach() {
	local all whole
	all=$(fsum "$1" "$2")
	whole=$(fsum "$1" "^$3.*$2")
	awk -v a="$all" -v w="$whole" 'BEGIN { if (a > 0) printf "%.1f", 100 * w / a; else print "n/a" }'
}

row() { printf '  %-7s %-44s %9s %9s %-19s %6s %8s %8s %7s %6s %7s\n' "$@"; }
# the µs tracing added to each call: (traced - untraced) / calls
per_call() { awk -v t="$1" -v u="$2" -v n="$3" 'BEGIN { if (n > 0 && t > 0) printf "%.2f", (t - u) * 1e6 / n; else print "n/a" }'; }

verdicts=()
verdict() { if [ "$1" = 1 ]; then echo PASS; elif [ "$1" = 0 ]; then echo FAIL; else echo "N/A "; fi; }

echo "20. Runtimes: each workload's calls as tracelloc counts them against the runtime's own count or a"
echo "    peer's, the share of its stacks that reach the program's entry, and the workload's own time"
echo "    (the loop, timed by the program) traced against untraced and the empty-probe floor"
row runtime workload tracelloc peer "(peer)" entry% untraced traced ratio floor "us/call"

# ---------------------------------------------------------------- python
PY=
for p in /root/.pyenv/versions/3.12.*/bin/python3.12 /root/.pyenv/versions/3.11.*/bin/python3.11; do
	[ -x "$p" ] && [ -z "$PY" ] && PY=$p
done
if [ -n "$PY" ]; then
	pyver=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
	times py "$PY" "$ROOT/bench/runtimes/objects.py" "$PY_N"
	"$TL" -i 0 -t 0 -m live -f "$LOGS/py-live.fg" -- "$PY" "$ROOT/bench/runtimes/objects.py" "$PY_N" \
		>"$LOGS/py-live.out" 2>&1
	"$PY" "$ROOT/bench/runtimes/objects.py" "$PY_N" tracemalloc >"$LOGS/py-peer.out" 2>&1
	ours=$(( $(fsum "$LOGS/py-live.fg" ';work;') / 16 ))
	peer=$(awk '$1 == "PEER" { print $2 }' "$LOGS/py-peer.out")
	ent=$(reach "$LOGS/py-live.fg" ';work;' '_start;')
	row python "$pyver (pyenv), $PY_N objects kept in work()" "$ours" "${peer:-?}" "tracemalloc, live" \
		"$ent" "$T_UN" "$T_FULL" "$R_FULL" "$R_FLOOR" "$(per_call "$T_FULL" "$T_UN" "$PY_N")"
	v=$([ "$ours" = "$PY_N" ] && [ "${peer:-}" = "$PY_N" ] && echo 1 || echo 0)
	verdicts+=("$(verdict "$v") python: the objects kept in work() as tracelloc and tracemalloc count them, both $PY_N: $ours and ${peer:-?}")
else
	row python "no pyenv CPython 3.11 or 3.12 here" - - - - - - - - -
	verdicts+=("N/A  python: no pyenv CPython 3.11 or 3.12 here")
fi

# ---------------------------------------------------------------- go
if command -v go >/dev/null 2>&1; then
	GOBIN_OBJ="$LOGS/objects-go"
	GOCACHE="$LOGS/go-cache" CGO_ENABLED=0 go build -o "$GOBIN_OBJ" "$ROOT/bench/runtimes/objects.go" \
		>"$LOGS/go-build.out" 2>&1
fi
if [ -x "${GOBIN_OBJ:-}" ]; then
	gover=$(go version | awk '{ print $3 }')
	times go "$GOBIN_OBJ" "$GO_N"
	"$GOBIN_OBJ" "$GO_N" -memprofile >"$LOGS/go-peer.out" 2>&1
	ours=$(fsum "$LOGS/go-c.fg" ';main\.work;')
	peer=$(awk '$1 == "PEER" { print $2 }' "$LOGS/go-peer.out")
	ent=$(reach "$LOGS/go-c.fg" ';main\.work;' 'runtime\.goexit')
	row go "$gover, $GO_N make([]byte, 64) in main.work" "$ours" "${peer:-?}" "MemProfile, rate 1" \
		"$ent" "$T_UN" "$T_FULL" "$R_FULL" "$R_FLOOR" "$(per_call "$T_FULL" "$T_UN" "$GO_N")"
	v=$([ "$ours" = "$GO_N" ] && [ "${peer:-}" = "$GO_N" ] && echo 1 || echo 0)
	verdicts+=("$(verdict "$v") go: main.work's calls as tracelloc and Go's heap profile count them, both $GO_N: $ours and ${peer:-?}")
else
	row go "no go here" - - - - - - - - -
	verdicts+=("N/A  go: no go here")
fi

# ---------------------------------------------------------------- node
if command -v node >/dev/null 2>&1; then
	NODE=(node --perf-basic-prof --interpreted-frames-native-stack)
	nodever=$(node --version)
	times node "${NODE[@]}" "$ROOT/bench/runtimes/buffers.js" "$NODE_N"
	ours=$(fsum "$LOGS/node-c.fg" ';JS:[~^*+]?work [^;]*buffers\.js:[0-9]+:[0-9]+;.*AllocateUninitialized')
	ent=$(reach "$LOGS/node-c.fg" ';JS:[~^*+]?work [^;]*buffers\.js' '_start;')
	native=$(fsum "$LOGS/node-c.fg" 'AllocateUninitialized')
	total=$(sed -n 's/^    allocation calls: \([0-9]*\) .*/\1/p' "$LOGS/node-full.out")
	if command -v heaptrack >/dev/null 2>&1; then
		rm -f "$LOGS"/ht.*
		heaptrack -o "$LOGS/ht" "${NODE[@]}" "$ROOT/bench/runtimes/buffers.js" "$NODE_N" \
			>"$LOGS/node-ht.out" 2>&1
		heaptrack_print -f "$LOGS"/ht.*zst --flamegraph-cost-type allocations -F "$LOGS/ht.fg" \
			>"$LOGS/ht.txt" 2>&1
		hnative=$(fsum "$LOGS/ht.fg" 'AllocateUninitialized')
		htotal=$(sed -n 's/^calls to allocation functions: \([0-9]*\) .*/\1/p' "$LOGS/ht.txt" | tail -1)
	fi
	row node "$nodever, $NODE_N Buffer.allocUnsafeSlow in work()" "$ours" "-" "(JS: none names)" \
		"$ent" "$T_UN" "$T_FULL" "$R_FULL" "$R_FLOOR" "$(per_call "$T_FULL" "$T_UN" "$NODE_N")"
	row "" "  native: under node's array buffer allocator" "$native" "${hnative:-?}" "heaptrack" - - - - - -
	row "" "  native: every allocation call" "${total:-?}" "${htotal:-?}" "heaptrack" - - - - - -
	v=$([ "$ours" = "$NODE_N" ] && echo 1 || echo 0)
	verdicts+=("$(verdict "$v") node: work()'s calls, named from node's perf map: $ours of $NODE_N")
	r=$(ratio "${native:-0}" "${hnative:-0}")
	v=$(awk -v r="$r" 'BEGIN { if (r == "n/a") print "x"; else print (r >= 0.95 && r <= 1.05) ? 1 : 0 }')
	verdicts+=("$(verdict "$v") node: the calls under node's array buffer allocator within 5% of heaptrack's: $native and ${hnative:-?} ($r)")
else
	row node "no node here" - - - - - - - - -
	verdicts+=("N/A  node: no node here")
fi
echo "  (entry%: of the workload's calls, those whose stack reaches _start or, in Go, runtime.goexit;"
echo "  times in seconds, medians of $RUNS; ratio and floor: traced and --empty-probes over untraced,"
echo "  each run paired. Logs: $LOGS)"
printf '%s\n' "${verdicts[@]}"
exit 0
