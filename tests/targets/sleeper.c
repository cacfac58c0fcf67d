/*
 * sleeper: runs for SECS seconds (argument, default 20) so that --duration,
 * SIGINT and SIGTERM can be tested, allocating a little as it goes.
 *
 *   site_sleeper_start   1 x malloc(4096) at start, kept (live 4096)
 *   site_sleeper_tick    malloc(100) every 20 ms, freed 20 ms later
 *
 * After the start block is allocated it writes "ready PID" to $TL_READY.
 * It exits 0 by itself after SECS, so a test that loses track of it does not
 * leave it running for long.
 */
#include <stdlib.h>
#include <time.h>

#include "ledger.h"

SITE void *site_sleeper_start(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_sleeper_tick(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc >= 2 ? atof(argv[1]) : 20.0;
	double end = now() + secs;
	struct timespec tick = { 0, 20 * 1000 * 1000 };
	void *start, *prev = NULL;

	start = site_sleeper_start(4096);
	lg_sink = start;
	tl_ready();
	while (now() < end) {
		void *p = site_sleeper_tick(100);

		free(prev);
		prev = p;
		nanosleep(&tick, NULL);
	}
	free(prev);
	return 0;
}
