#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Does scraping the endpoint cost events? bench/churn (2 threads, malloc 5
# frames below the loop, at full speed) runs under tracelloc -p --listen,
# twice: once left alone, once while curl fetches /debug/pprof/heap as fast
# as it can, one request after another. Prints, for each run: lost events,
# allocation calls seen/made, the scrapes and their latency (curl's
# time_total), the longest the daemon's event loop was held by the endpoint
# and the longest the ring buffer went unread (its -v lines). Not a test:
# numbers only.
#
#   bench/scrape.sh [ITERATIONS]    per thread; default 1500000 (~10 s traced)
#
# Needs root, ./tracelloc (make) and curl. Logs: build/bench/scrape/.
set -u
export LC_ALL=C
cd "$(dirname "$0")/.." || exit 1

ITER=${1:-1500000}
OUT=build/bench/scrape
TL=./tracelloc
mkdir -p "$OUT" || exit 1
gcc -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -pthread -o build/bench/churn \
	bench/churn.c || exit 1

pids=()
stop_all() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
}
trap stop_all EXIT

wait_for() { # FILE ERE SECS
	local i
	for ((i = 0; i < $3 * 50; i++)); do
		grep -Eq -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.02
	done
	return 1
}

# run TAG SCRAPE(0|1)
run() {
	local tag=$1 scrape=$2 churn tl url lost seen made held gap
	build/bench/churn -t 2 -d 5 -n "$ITER" -w -l 300 >"$OUT/$tag.churn" 2>&1 &
	churn=$!
	pids+=("$churn")
	wait_for "$OUT/$tag.churn" '^ready' 30 || { echo "$tag: churn did not start"; return 1; }
	$TL -p "$churn" --listen 0 -v -i 0 -t 0 >"$OUT/$tag.out" 2>"$OUT/$tag.err" &
	tl=$!
	pids+=("$tl")
	wait_for "$OUT/$tag.err" '^tracelloc: serving http://' 30 || { echo "$tag: tracelloc did not start"; return 1; }
	url=$(grep -m1 -oE 'http://[^/]+' "$OUT/$tag.err")
	kill -USR1 "$churn"
	: >"$OUT/$tag.times"
	while kill -0 "$churn" 2>/dev/null && ! grep -q '^churn:' "$OUT/$tag.churn"; do
		if [ "$scrape" = 1 ]; then
			# 20 requests per curl, one after another on one connection
			curl -s -m 10 -o /dev/null -w '%{http_code} %{time_total}\n' \
				"$url/debug/pprof/heap?n=[1-20]" >>"$OUT/$tag.times" 2>/dev/null
		else
			sleep 0.05
		fi
	done
	kill -INT "$tl" 2>/dev/null
	wait "$tl" 2>/dev/null
	wait "$churn" 2>/dev/null
	lost=$(awk '/lost events:/ { print $3; exit }' "$OUT/$tag.out")
	seen=$(awk '/allocation calls:/ { print $3; exit }' "$OUT/$tag.out")
	made=$(grep -m1 -oE 'mallocs=[0-9]+' "$OUT/$tag.churn" | cut -d= -f2)
	held=$(grep -m1 -oE 'at most [0-9.]+ ms' "$OUT/$tag.err" | grep -oE '[0-9.]+')
	gap=$(grep -m1 -oE 'read at least every [0-9.]+ ms' "$OUT/$tag.err" | grep -oE '[0-9.]+')
	printf '  %-12s %8s s %12s %16s' "$tag" \
		"$(grep -m1 -oE 'wall_s=[0-9.]+' "$OUT/$tag.churn" | cut -d= -f2)" "${lost:-?}" "$seen/$made"
	if [ -s "$OUT/$tag.times" ]; then
		awk '$1 != 200 { bad++ } END { printf " %8d %6d", NR - bad, bad }' "$OUT/$tag.times"
		awk '$1 == 200 { print $2 * 1000 }' "$OUT/$tag.times" | sort -n |
			awk '{ t[++n] = $1 }
				END { printf " %8.2f %8.2f %8.2f", t[int(n * 0.5) + 1], t[int(n * 0.99) + 1], t[n] }' 
	else
		printf ' %8s %6s %8s %8s %8s' - - - - -
	fi
	printf ' %8s %8s\n' "${held:--}" "${gap:-?}"
}

echo "bench/churn: 2 threads, malloc 5 frames deep, $ITER iterations each, tracelloc -p --listen"
printf '  %-12s %10s %12s %16s %8s %6s %8s %8s %8s %8s %8s\n' run "churn" "lost events" \
	"calls seen/made" scrapes failed "p50 ms" "p99 ms" "max ms" "held ms" "gap ms"
run alone 0
run scraped 1
echo "(held ms: the longest the event loop spent in the endpoint at once, the first profile included;"
echo " gap ms: the longest the ring buffers went unread, pages being written read it every 10 ms)"
