#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A long run (make longrun): bench/churn with 2 threads at full speed, 5-deep
# stacks, traced by tracelloc -p for DURATION seconds (600 unless
# LONGRUN_SECS says otherwise). Every 10 s it prints the daemon's resident
# memory, its CPU use over the last 10 s, and the live line's counts, so a
# steady target shows a flat curve; at the end, the summary with every lost
# event. Not a test: it prints, and exits non-zero only if it could not run.
set -u
export LC_ALL=C
cd "$(dirname "$0")/.." || exit 1
SECS=${LONGRUN_SECS:-600}
OUT=build/longrun
mkdir -p "$OUT" || exit 1
[ "$(id -u)" = 0 ] || { echo "longrun: needs root" >&2; exit 1; }
[ -x ./tracelloc ] || { echo "longrun: build tracelloc first (make)" >&2; exit 1; }
gcc -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -pthread -o "$OUT/churn" bench/churn.c ||
	exit 1

# iterations enough for SECS at the traced rate; the churn ends first only
# if tracing got much faster
"$OUT/churn" -t 2 -d 5 -n 2000000000 >"$OUT/churn.out" 2>&1 &
cpid=$!
trap 'kill "$cpid" "${tpid:-}" 2>/dev/null' EXIT
until grep -q '^ready' "$OUT/churn.out"; do
	kill -0 "$cpid" 2>/dev/null || { echo "longrun: churn did not start" >&2; exit 1; }
	sleep 0.05
done
./tracelloc -p "$cpid" -i 10 -t 0 -f "$OUT/longrun.fg" >"$OUT/tracelloc.out" 2>"$OUT/tracelloc.err" &
tpid=$!
until grep -q 'attached to pid' "$OUT/tracelloc.err"; do
	kill -0 "$tpid" 2>/dev/null || { echo "longrun: $(tail -1 "$OUT/tracelloc.err")" >&2; exit 1; }
	sleep 0.05
done
kill -USR1 "$cpid"

cpu_ns() { awk '{ s += $1 } END { print s }' /proc/"$1"/task/*/schedstat; }
echo "== tracelloc long run: $SECS s, churn -t 2 -d 5 at full speed, $(nproc) CPUs, kernel $(uname -r)"
printf '%8s %10s %10s %8s  %s\n' "t (s)" "RSS (MiB)" "HWM (MiB)" "CPU" "last live line"
start=$SECONDS prev=$(cpu_ns "$tpid")
while [ $((SECONDS - start)) -lt "$SECS" ]; do
	sleep 10
	kill -0 "$tpid" 2>/dev/null || { echo "longrun: tracelloc ended early" >&2; break; }
	cur=$(cpu_ns "$tpid")
	rss=$(awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' /proc/"$tpid"/status)
	hwm=$(awk '/^VmHWM/ { printf "%.1f", $2 / 1024 }' /proc/"$tpid"/status)
	printf '%8d %10s %10s %7.1f%%  %s\n' $((SECONDS - start)) "$rss" "$hwm" \
		"$(awk -v a="$prev" -v b="$cur" 'BEGIN { print (b - a) / 1e7 / 10 }')" \
		"$(grep 'live:' "$OUT/tracelloc.out" | tail -1 | cut -c1-110)"
	prev=$cur
done
kill -INT "$tpid"
wait "$tpid"
kill "$cpid" 2>/dev/null
sed -n '/^==> summary/,$p' "$OUT/tracelloc.out"
