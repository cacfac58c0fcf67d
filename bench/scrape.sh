#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Does scraping the endpoint cost events? Two targets, each traced twice by
# tracelloc --listen: once left alone, once while curl fetches
# /debug/pprof/heap, one request after another. Not a test: numbers only.
#
# 1. bench/churn (2 threads, malloc 5 frames below the loop, at full speed)
#    under tracelloc -p: many small pages. Prints, for each run: lost events,
#    allocation calls seen/made, the scrapes and their latency (curl's
#    time_total), the longest the daemon's event loop was held by the
#    endpoint and the longest the ring buffers went unread (its -v lines).
# 2. bench/manystacks: 2^DEPTH distinct stacks leaked (DEPTH + 5 frames
#    deep), then 2 threads call malloc and free at full speed for SECS
#    seconds, launched by tracelloc: pages of a million stacks, fetched while
#    the target goes on allocating. A first page, before the leak, reads the
#    debug information it names. Prints the pages, the time to serve one,
#    their size, the calls the target made meanwhile, lost events, the
#    longest the ring buffers went unread in the whole run (-v), and while
#    the first page and the pages of the leak were written (-vv): those
#    should stay under 50 ms.
#
#   bench/scrape.sh [ITERATIONS [DEPTH [SECS]]]
#       ITERATIONS per churn thread, default 1500000 (~10 s traced), 0: skip 1;
#       DEPTH default 20 (1048576 stacks), 0: skip 2; SECS default 20
#
# Needs root, ./tracelloc (make; or $TRACELLOC) and curl. Logs: build/bench/scrape/.
set -u
export LC_ALL=C
cd "$(dirname "$0")/.." || exit 1

ITER=${1:-1500000}
DEPTH=${2:-20}
SECS=${3:-20}
OUT=build/bench/scrape
TL=${TRACELLOC:-./tracelloc}
mkdir -p "$OUT" || exit 1
gcc -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -pthread -o build/bench/churn \
	bench/churn.c || exit 1
gcc -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -pthread -o build/bench/manystacks \
	bench/manystacks.c || exit 1

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

# late_reads ERR FROM TO: the longest -vv "went unread for N ms while a page
# or file was written" between the lines matching FROM and TO ("<50" when none:
# tracelloc names only those over 50 ms; "?" from a tracelloc that does not)
late_reads() {
	grep -q 'while pages and files were written' "$1" || { printf '?'; return; }
	awk -v from="$2" -v to="$3" '
		$0 ~ from { on = 1 } $0 ~ to { on = 0 }
		on && /went unread for .* while a page or file was written/ {
			for (i = 1; i <= NF; i++) if ($i == "for") v = $(i + 1) + 0
			if (v > max) max = v
		}
		END { if (max) printf "%.1f", max; else printf "<50" }' "$1"
}

# run_leak TAG SCRAPE(0|1)
run_leak() {
	local tag=$1 scrape=$2 tl target url lost gap calls start last=0 t
	$TL --listen 0 -vv -i 0 -t 0 -- build/bench/manystacks "$DEPTH" "$SECS" 2 \
		>"$OUT/$tag.out" 2>"$OUT/$tag.err" &
	tl=$!
	pids+=("$tl")
	wait_for "$OUT/$tag.err" '^manystacks: ready' 30 || { echo "$tag: manystacks did not start"; return 1; }
	wait_for "$OUT/$tag.err" '^tracelloc: serving http://' 30 || { echo "$tag: tracelloc did not start"; return 1; }
	url=$(grep -m1 -oE 'http://[^/]+' "$OUT/$tag.err")
	target=$(grep -m1 -oE 'attached to pid [0-9]+' "$OUT/$tag.err" | grep -oE '[0-9]+$')
	: >"$OUT/$tag.times"
	# a first page, of a few stacks, reads the debug information they name
	[ "$scrape" = 1 ] && curl -s -m 60 -o /dev/null "$url/debug/pprof/heap"
	kill -USR1 "$target"
	wait_for "$OUT/$tag.err" '^manystacks: leaked' 300 || { echo "$tag: no leak"; return 1; }
	start=$EPOCHREALTIME
	while kill -0 "$tl" 2>/dev/null && ! grep -q '^manystacks: churn' "$OUT/$tag.err"; do
		# a page that would end after the target is not started: it would be cut
		t=$(awk -v s="$start" -v n="$EPOCHREALTIME" -v l="$last" -v S="$SECS" \
			'BEGIN { print (n - s + 1.5 * l + 1 < S) }')
		if [ "$scrape" = 1 ] && [ "$t" = 1 ]; then
			curl -s -m 120 -o "$OUT/$tag.pb.gz" -w '%{http_code} %{time_total} %{size_download}\n' \
				"$url/debug/pprof/heap" >>"$OUT/$tag.times" 2>/dev/null
			last=$(awk 'END { print $2 + 0 }' "$OUT/$tag.times")
		else
			sleep 0.05
		fi
	done
	wait "$tl" 2>/dev/null
	lost=$(awk '/lost events:/ { print $3; exit }' "$OUT/$tag.out")
	calls=$(grep -m1 -oE 'calls=[0-9]+' "$OUT/$tag.err" | cut -d= -f2)
	gap=$(grep -m1 -oE 'read at least every [0-9.]+ ms' "$OUT/$tag.err" | grep -oE '[0-9.]+')
	printf '  %-12s %10s' "$tag" "${calls:-?}"
	if [ -s "$OUT/$tag.times" ]; then
		awk '$1 != 200 { bad++ } $1 == 200 { mb = $3 / 1048576 }
			END { printf " %6d %6d %6.1f", NR - bad, bad, mb }' "$OUT/$tag.times"
		awk '$1 == 200 { print $2 * 1000 }' "$OUT/$tag.times" | sort -n |
			awk '{ t[++n] = $1 } END { printf " %8.0f %8.0f", t[int(n * 0.5) + 1], t[n] }'
		printf ' %12s %8s %9s %9s\n' "${lost:-?}" "${gap:-?}" \
			"$(late_reads "$OUT/$tag.err" '^tracelloc: serving' '^manystacks: leaked')" \
			"$(late_reads "$OUT/$tag.err" '^manystacks: leaked' '^manystacks: churn')"
	else
		printf ' %6s %6s %6s %8s %8s %12s %8s %9s %9s\n' - - - - - "${lost:-?}" "${gap:-?}" - -
	fi
}

if [ "$ITER" -gt 0 ]; then
	echo "bench/churn: 2 threads, malloc 5 frames deep, $ITER iterations each, tracelloc -p --listen"
	printf '  %-12s %10s %12s %16s %8s %6s %8s %8s %8s %8s %8s\n' run "churn" "lost events" \
		"calls seen/made" scrapes failed "p50 ms" "p99 ms" "max ms" "held ms" "gap ms"
	run alone 0
	run scraped 1
	echo "(held ms: the longest the event loop spent in the endpoint at once, the first profile included;"
	echo " gap ms: the longest the ring buffers went unread)"
fi
if [ "$DEPTH" -gt 0 ]; then
	[ "$ITER" -gt 0 ] && echo
	echo "bench/manystacks: $((1 << DEPTH)) stacks leaked, $((DEPTH + 5)) frames deep, then 2 threads" \
		"malloc and free for $SECS s; tracelloc --listen"
	printf '  %-12s %10s %6s %6s %6s %8s %8s %12s %8s %9s %9s\n' run "calls" pages failed "MiB" \
		"p50 ms" "max ms" "lost events" "gap ms" "1st page" "leak"
	run_leak leak-alone 0
	run_leak leak-scraped 1
	echo "(calls: the churn's malloc and free calls, while the pages were fetched; pages: of the leak,"
	echo " one after another, MiB and ms each; gap ms: the longest the ring buffers went unread in the"
	echo " whole run, leak included; 1st page, leak: the longest while a page was written, the first page"
	echo " (before the leak: it reads libc's debug information) and the pages of the leak)"
fi
