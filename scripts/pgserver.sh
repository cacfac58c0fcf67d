# shellcheck shell=bash
# A throwaway PostgreSQL server for the tests and the soak benchmark
# (tests/servers.sh, bench/soak.sh): Debian's postgresql-15, started as the
# postgres user in a directory of the caller's, on a Unix socket there alone
# (no TCP port), with no worker that comes on its own (no autovacuum, no
# parallel workers): every backend is a client's. Sourced.
#
#   pg_start DIR    sets PG (its bin directory), PG_DIR, PG_PID; 1 on failure,
#                   with PG_WHY and the log to show in PG_LOG
#   pg_stop
#   pg_sql SQL      psql's unaligned answer
#   pg_bench ARGS   pgbench against it (output on stdout)

pg_bin() {
	local d
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
	[ -n "$d" ] && [ -x "$d/postgres" ] && [ -x "$d/pgbench" ] && echo "$d"
}

# the server refuses to run as root
as_pg() {
	runuser -u postgres -- "$@"
}

pg_start() {
	PG_DIR=$1
	PG_LOG=
	PG=$(pg_bin)
	[ -n "$PG" ] || { PG_WHY="no PostgreSQL (make deps installs postgresql-15)"; return 1; }
	id postgres >/dev/null 2>&1 || { PG_WHY="no postgres user"; return 1; }
	mkdir -p "$PG_DIR" && chown postgres "$PG_DIR" || { PG_WHY="cannot make $PG_DIR"; return 1; }
	PG_LOG=$PG_DIR/initdb.log
	as_pg "$PG/initdb" -D "$PG_DIR/data" -A trust >"$PG_LOG" 2>&1 || { PG_WHY="initdb failed"; return 1; }
	PG_LOG=$PG_DIR/log
	as_pg "$PG/pg_ctl" -D "$PG_DIR/data" -l "$PG_LOG" -w -o \
		"-k $PG_DIR -c listen_addresses= -p 5432 -c autovacuum=off -c max_parallel_workers_per_gather=0" \
		start >/dev/null 2>&1 || { PG_WHY="the server did not start"; return 1; }
	PG_PID=$(head -n 1 "$PG_DIR/data/postmaster.pid")
	PG_LOG=$PG_DIR/init.log
	as_pg "$PG/pgbench" -h "$PG_DIR" -i -s 1 postgres >"$PG_LOG" 2>&1 || { PG_WHY="pgbench -i failed"; return 1; }
}

pg_stop() {
	[ -n "${PG_DIR:-}" ] && [ -n "${PG:-}" ] &&
		as_pg "$PG/pg_ctl" -D "$PG_DIR/data" -m immediate stop >/dev/null 2>&1
	return 0
}

pg_sql() {
	as_pg "$PG/psql" -h "$PG_DIR" -At -c "$1" postgres
}

pg_bench() {
	as_pg "$PG/pgbench" -h "$PG_DIR" "$@" postgres
}
