#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The soak benchmark (make bench's section 19, or alone: bench/soak.sh): a
# leak hunt of hours on servers nobody here wrote, in minutes. Not a test: it
# prints rows and PASS/FAIL against the targets, side by side in one run.
#
#   PostgreSQL (Debian's, a throwaway server on a Unix socket) under pgbench
#   with a connection per transaction (-C: a backend forked and gone each
#   time) and with 4 connections kept, untraced and then traced by
#   tracelloc --follow-forks -p POSTMASTER --listen, its report on (-i 1);
#   and a python multiprocessing.Pool(maxtasksperchild=1) job (a worker
#   process per task) launched untraced and under tracelloc --follow-forks.
#
# Rows: processes served, traced (exits counted by tracelloc), untraced,
# tracelloc's RSS after warm-up and at the end (growth per 1,000 processes
# that exited), records lost, tps traced / untraced, the connection time
# tracing added, the report's bytes a minute; and the live bytes tracelloc
# gives each of the 4 kept backends against the server's own count of its
# memory (pg_log_backend_memory_contexts' grand total).
#
# Targets: every process traced for SOAK_CONNECTIONS (10,000) and more; RSS
# growth after warm-up under 2 MB per 1,000 exited processes; nothing lost;
# live bytes within 10% of the server's own.
#
# Environment: SOAK_CONNECTIONS (10000), SOAK_WARMUP (1000), SOAK_TASKS
# (2000: the pool's tasks), SOAK_SECONDS (10: the kept connections' runs).
set -u
export LC_ALL=C

cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
TRACELLOC=${TRACELLOC:-$ROOT/tracelloc}
CONNS=${SOAK_CONNECTIONS:-10000}
WARM=${SOAK_WARMUP:-1000}
TASKS=${SOAK_TASKS:-2000}
SECS=${SOAK_SECONDS:-10}
LOGS=${SOAK_LOGS:-$ROOT/build/bench/soak}
ADDR=127.0.0.1:$((30000 + $$ % 20000))

# shellcheck source=scripts/pgserver.sh
. "$ROOT/scripts/pgserver.sh"

die() { echo "soak: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (BPF and uprobes)"
[ -x "$TRACELLOC" ] || die "no $TRACELLOC: build it first"
rm -rf "$LOGS"
mkdir -p "$LOGS" || die "cannot make $LOGS"
chmod 755 "$LOGS"
WORK=$(mktemp -d /tmp/tracelloc-soak.XXXXXX) || die "mktemp"
chmod 755 "$WORK"
TL_PID=
cleanup() {
	[ -n "$TL_PID" ] && kill -INT "$TL_PID" 2>/dev/null
	pg_stop
	rm -rf "$WORK"
}
trap cleanup EXIT

verdict() { if [ "$1" = 1 ]; then echo PASS; elif [ "$1" = 0 ]; then echo FAIL; else echo "N/A "; fi; }
isnum() { [[ $1 =~ ^-?[0-9]+([.][0-9]+)?$ ]]; }
le() { isnum "${1:-x}" && isnum "${2:-x}" || { echo x; return; }; awk -v a="$1" -v b="$2" 'BEGIN { print (a <= b) ? 1 : 0 }'; }
div() { isnum "${1:-x}" && isnum "${2:-x}" && awk -v a="$1" -v b="$2" 'BEGIN { if (b) printf "%.2f", a / b; else print "n/a" }' || echo n/a; }
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
metric() { curl -s --max-time 10 "http://$ADDR/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }
# pgbench's numbers: "tps = N (including reconnection times)", "average connection time = N ms"
tps() { sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$1" | head -n 1; }
conn_ms() { sed -n 's/^average connection time = \([0-9.]*\) ms/\1/p' "$1" | head -n 1; }

# tl_start NAME ARGS: tracelloc in the background, its endpoint up
tl_start() {
	local name=$1 i
	shift
	"$TRACELLOC" "$@" --listen "$ADDR" >"$LOGS/$name.out" 2>"$LOGS/$name.err" </dev/null &
	TL_PID=$!
	for i in $(seq 200); do
		grep -q '^tracelloc: serving ' "$LOGS/$name.err" 2>/dev/null && return 0
		kill -0 "$TL_PID" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

tl_stop() {
	kill -INT "$TL_PID" 2>/dev/null
	wait "$TL_PID" 2>/dev/null
	TL_PID=
}

echo "== 19. soak: servers that fork a process per connection or task (logs in $LOGS)"
pg_start "$WORK/pg" || die "postgres: $PG_WHY"
PER=$((CONNS / 4))
WARM_PER=$((WARM / 4))

# ---- untraced
pg_bench -n -C -c 4 -j 2 -t "$WARM_PER" >"$LOGS/pg-c-untraced.log" 2>&1
pg_bench -n -c 4 -j 2 -T "$SECS" >"$LOGS/pg-untraced.log" 2>&1
U_TPS_C=$(tps "$LOGS/pg-c-untraced.log")
U_CONN=$(conn_ms "$LOGS/pg-c-untraced.log")
U_TPS=$(tps "$LOGS/pg-untraced.log")

# ---- traced: warm-up, then the rest of the connections
tl_start pg --follow-forks -p "$PG_PID" -i 1 || die "tracelloc did not start (see $LOGS/pg.err)"
sessions0=$(pg_sql 'select sum(sessions) from pg_stat_database')
t0=$EPOCHREALTIME
pg_bench -n -C -c 4 -j 2 -t "$WARM_PER" >"$LOGS/pg-c-warm.log" 2>&1
RSS_WARM=$(rss_kib "$TL_PID")
EXITS_WARM=$(metric 'tracelloc_exited_processes_total{comm="postgres"}')
pg_bench -n -C -c 4 -j 2 -t $((PER - WARM_PER)) >"$LOGS/pg-c-traced.log" 2>&1
RSS_END=$(rss_kib "$TL_PID")
sessions1=$(pg_sql 'select sum(sessions) from pg_stat_database')
sleep 1
EXITS=$(metric 'tracelloc_exited_processes_total{comm="postgres"}')
UNTRACED=$(metric tracelloc_untraced_processes_total)
LOST=$(( $(metric 'tracelloc_lost_events_total{kind="alloc"}') + $(metric 'tracelloc_lost_events_total{kind="free"}') ))
STACKS=$(metric tracelloc_stacks)
T_TPS_C=$(tps "$LOGS/pg-c-traced.log")
T_CONN=$(conn_ms "$LOGS/pg-c-traced.log")
# the server's own count: the first look's psql is in it, the last's is not
SERVED=$((sessions1 - sessions0 + 1))

# ---- traced, 4 connections kept: tps, and each backend's live bytes
# against the server's own count, midway
pg_bench -n -c 4 -j 2 -T "$SECS" >"$LOGS/pg-traced.log" 2>&1 &
BENCH=$!
sleep $((SECS / 2))
BACKENDS=$(pg_sql "select pid from pg_stat_activity where application_name = 'pgbench'")
for b in $BACKENDS; do
	pg_sql "select pg_log_backend_memory_contexts($b)" >/dev/null
done
curl -s --max-time 20 "http://$ADDR/debug/pprof/heap" -o "$LOGS/heap.pb.gz"
wait "$BENCH"
T_TPS=$(tps "$LOGS/pg-traced.log")
RSS_LAST=$(rss_kib "$TL_PID")
tl_stop
MINUTES=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", (b - a) / 60 }')
REPORT_KIB=$(( $(stat -c %s "$LOGS/pg.out") / 1024 ))

# live bytes by pid (pprof's pid label) against the contexts' grand totals
LIVE_ROWS=
LIVE_OK=x
if command -v go >/dev/null && [ -s "$LOGS/heap.pb.gz" ]; then
	go tool pprof -sample_index=inuse_space -unit=B -tags "$LOGS/heap.pb.gz" >"$LOGS/heap.tags" 2>&1
	LIVE_OK=1
	sleep 1
	for b in $BACKENDS; do
		ours=$(awk -v p="$b" '$3 == p || $3 == p "B" { v = $1; sub(/B$/, "", v); print v; exit }' "$LOGS/heap.tags")
		theirs=$(grep "\\[$b\\].*Grand total: " "$PG_DIR/log" 2>/dev/null | tail -n 1 |
			sed -n 's/.*Grand total: \([0-9]*\) bytes.*/\1/p')
		[ -z "$theirs" ] && theirs=$(awk -v p="$b" '/Grand total: / && index($0, p) { l = $0 } END { print l }' "$PG_DIR/log" |
			sed -n 's/.*Grand total: \([0-9]*\) bytes.*/\1/p')
		r=$(div "${ours:-x}" "${theirs:-x}")
		LIVE_ROWS="$LIVE_ROWS pid $b: $ours B / $theirs B = ${r}x;"
		isnum "$r" && awk -v r="$r" 'BEGIN { exit !(r >= 0.9 && r <= 1.1) }' || LIVE_OK=0
	done
fi

# ---- python: a pool whose workers serve one task each
cat >"$WORK/pool.py" <<'PY'
import multiprocessing, sys

def task(i):
    # a worker's request: a few objects, one kept for the life of the worker
    keep = [bytearray(4096) for _ in range(4)]
    return len(keep) + i

if __name__ == "__main__":
    n = int(sys.argv[1])
    with multiprocessing.Pool(4, maxtasksperchild=1) as pool:
        done = sum(1 for _ in pool.imap_unordered(task, range(n), chunksize=1))
    print("tasks", done)
PY
PY_BIN=$(command -v python3)
t=$EPOCHREALTIME
"$PY_BIN" "$WORK/pool.py" "$TASKS" >"$LOGS/py-untraced.log" 2>&1
PY_U=$(awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
t=$EPOCHREALTIME
"$TRACELLOC" -i 0 -t 0 --follow-forks -- "$PY_BIN" "$WORK/pool.py" "$TASKS" >"$LOGS/py.out" 2>"$LOGS/py.err"
PY_T=$(awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
PY_PROCS=$(sed -n 's/^==> summary: \([0-9]*\) processes.*/\1/p' "$LOGS/py.out")
PY_EXITS=$(sed -n 's/^    processes that exited: \([0-9]*\),.*/\1/p' "$LOGS/py.out")
PY_LOST=$(sed -n 's/^    lost events: \([0-9]*\) .*/\1/p' "$LOGS/py.out")
PY_UNTRACED=$(sed -n 's/^    processes not traced: \([0-9]*\) .*/\1/p' "$LOGS/py.out")

GROWTH=n/a
if isnum "${RSS_WARM:-x}" && isnum "${RSS_END:-x}" && isnum "${EXITS:-x}" && isnum "${EXITS_WARM:-x}" &&
	[ "$((EXITS - EXITS_WARM))" -gt 0 ]; then
	GROWTH=$(awk -v a="$RSS_WARM" -v b="$RSS_END" -v n="$((EXITS - EXITS_WARM))" \
		'BEGIN { printf "%.3f", (b - a) / 1024 / n * 1000 }')
fi
CONN_ADDED=$(awk -v a="${T_CONN:-0}" -v b="${U_CONN:-0}" 'BEGIN { printf "%.1f", a - b }')

printf '  %-34s %10s %10s %9s %10s %10s %12s %6s %14s\n' workload served traced untraced \
	"RSS warm" "RSS end" "MiB/1000" lost "traced/untr."
printf '  %-34s %10s %10s %9s %9sM %9sM %12s %6s %14s\n' "postgres pgbench -C (a backend each)" \
	"$SERVED" "${EXITS:-?}" "${UNTRACED:-?}" "$((${RSS_WARM:-0} / 1024))" "$((${RSS_END:-0} / 1024))" \
	"$GROWTH" "$LOST" "$(div "${T_TPS_C:-x}" "${U_TPS_C:-x}") tps"
printf '  %-34s %10s %10s %9s %10s %9sM %12s %6s %14s\n' "postgres pgbench, 4 kept" 4 4 0 - \
	"$((${RSS_LAST:-0} / 1024))" - - "$(div "${T_TPS:-x}" "${U_TPS:-x}") tps"
printf '  %-34s %10s %10s %9s %10s %10s %12s %6s %14s\n' "python Pool(maxtasksperchild=1)" \
	"$TASKS tasks" "${PY_EXITS:-?}" "${PY_UNTRACED:-0}" - - - "${PY_LOST:-?}" "$(div "$PY_T" "$PY_U") time"
echo "  postgres: tps untraced ${U_TPS_C:-?} (-C) and ${U_TPS:-?} (kept), traced ${T_TPS_C:-?} and ${T_TPS:-?};" \
     "connection time ${U_CONN:-?} -> ${T_CONN:-?} ms (+$CONN_ADDED ms); stacks at the end ${STACKS:-?};" \
     "report ${REPORT_KIB} KiB in $MINUTES min (-i 1)"
echo "  python: $TASKS tasks, ${PY_PROCS:-?} processes traced in all, $PY_U s untraced, $PY_T s traced"
echo "  live bytes of the kept backends, tracelloc / the server's memory contexts:${LIVE_ROWS:- n/a}"

echo
v=1
{ isnum "${EXITS:-x}" && [ "$EXITS" -ge "$CONNS" ] && [ "$EXITS" = "$SERVED" ] && [ "${UNTRACED:-1}" = 0 ]; } || v=0
echo "$(verdict "$v") soak: every backend traced for $CONNS connections and more: served $SERVED, exits counted ${EXITS:-?}, untraced ${UNTRACED:-?}"
v=$(le "$GROWTH" 2)
echo "$(verdict "$v") soak: tracelloc's RSS after warm-up grows < 2 MiB per 1,000 exited processes: $GROWTH MiB"
v=0
[ "$LOST" = 0 ] && [ "${PY_LOST:-1}" = 0 ] && v=1
echo "$(verdict "$v") soak: nothing lost: postgres $LOST, python ${PY_LOST:-?}"
v=0
[ "${PY_EXITS:-0}" -ge "$TASKS" ] 2>/dev/null && [ "${PY_UNTRACED:-0}" = 0 ] && v=1
echo "$(verdict "$v") soak: every pool worker traced: ${PY_EXITS:-?} exits for $TASKS tasks, untraced ${PY_UNTRACED:-0}"
echo "$(verdict "$LIVE_OK") soak: live bytes of each kept backend within 10% of the server's own count:${LIVE_ROWS:- n/a}"
exit 0
