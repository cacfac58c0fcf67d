#!/bin/bash
# tests/servers.sh - tracelloc on real servers nobody here wrote, as a
# leak hunt in staging runs it: attached to a forking server (PostgreSQL,
# a backend forked per connection) while clients come and go.
#
#   tests/servers.sh [REGEX | -l]
#
# Needs root, $REPO/tracelloc and Debian's postgresql-15 (make deps).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

# shellcheck source=scripts/pgserver.sh
. "$(dirname "$0")/../scripts/pgserver.sh"

# pg_sessions: the sessions the server counted so far, its own number
pg_sessions() {
	pg_sql 'select sum(sessions) from pg_stat_database'
}

# metric NAME: a value from the endpoint's /metrics
metric() {
	curl -s --max-time 5 "http://$ADDR/metrics" | awk -v m="$1" '$1 == m { print $2 }'
}

test_postgres_reconnecting() { # PostgreSQL under pgbench -C, -p of the postmaster with --follow-forks: every backend traced, each exit counted by the server's own count, none live after it, none untraced; the stacks' table stays the size of the call sites
	local before after n stacks_mid stacks_end live
	chmod 755 "$T_DIR"
	pg_start "$T_DIR/pg" || { fail "postgres: $PG_WHY"; [ -n "$PG_LOG" ] && show "$PG_LOG"; pg_stop; return; }
	register_pid "$PG_PID"
	ADDR=127.0.0.1:$((20000 + $$ % 20000))
	tl_bg t -i 0 -t 3 --follow-forks -p "$PG_PID" --listen "$ADDR"
	wait_for_grep "$T_DIR/t.err" "^tracelloc: attached to pid $PG_PID:" 20 ||
		{ fail "postgres: not attached"; show "$T_DIR/t.err"; pg_stop; return; }
	wait_for_grep "$T_DIR/t.err" '^tracelloc: serving ' 10 || { fail "postgres: no endpoint"; pg_stop; return; }
	before=$(pg_sessions)
	# 4 clients x 40 transactions, a connection each (-C); -n: no vacuum
	pg_bench -n -C -c 4 -j 2 -t 40 >"$T_DIR/b1.log" 2>&1 ||
		{ fail "pgbench failed"; show "$T_DIR/b1.log"; }
	stacks_mid=$(metric tracelloc_stacks)
	pg_bench -n -C -c 4 -j 2 -t 40 >"$T_DIR/b2.log" 2>&1 ||
		{ fail "pgbench failed"; show "$T_DIR/b2.log"; }
	after=$(pg_sessions)
	# the server counts a session at its end: the first look's psql is in
	# after - before, the second's is not (its backend exited all the same)
	n=$((after - before + 1))
	sleep 1
	assert_eq "$(metric 'tracelloc_exited_processes_total{comm="postgres"}')" "$n" \
		"postgres: each backend's exit counted (the server counted $((n - 1)) sessions, and the look's own)"
	assert_eq "$(metric tracelloc_untraced_processes_total)" 0 "postgres: no backend untraced"
	assert_eq "$(metric 'tracelloc_lost_events_total{kind="alloc"}')" 0 "postgres: no record lost"
	stacks_end=$(metric tracelloc_stacks)
	# twice the connections, not twice the stacks: the workers' stacks merge
	assert_int_le "$stacks_end" $((stacks_mid + stacks_mid / 2)) \
		"postgres: the stacks' table after 320 connections ($stacks_end) within 1.5x its size after 160 ($stacks_mid)"
	live=$(metric tracelloc_live_bytes)
	assert_int_le "$live" $((64 << 20)) "postgres: live bytes ($live) are the live processes', not the exited backends'"
	kill -INT "$TL_PID"
	wait_pid "$TL_PID" 20
	assert_eq "$WAIT_RC" 0 "postgres: tracelloc exit status"
	assert_no_grep "$T_DIR/t.err" 'cannot trace' "postgres: every backend traced"
	assert_grep "$T_DIR/t.out" "^      postgres: $n exited, " "postgres: the summary's exits by command"
	assert_grep "$T_DIR/t.out" '^==> summary: [0-9]+ processes, traced .*, interrupted$' "postgres: the summary"
	kill -0 "$PG_PID" 2>/dev/null || fail "postgres: the server died"
	pg_sql 'select 1' >/dev/null 2>&1 || fail "postgres: the server does not answer after tracing"
	pg_stop
}

run_suite_tests "$0" servers "${1:-}"
