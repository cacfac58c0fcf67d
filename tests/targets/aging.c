/*
 * aging: blocks allocated at known times, for --min-age and the periodic
 * report (tests/reports.sh).
 *
 *   t = 0      site_aging_old     4 x malloc(1000), one freed at once: 3 kept
 *   sleep 1.5 s
 *   t = 1.5 s  site_aging_young   2 x malloc(4000), kept
 *   sleep 0.4 s, exit (t = 1.9 s)
 *
 * So at the end the old blocks are ~1.9 s old and the young ones ~0.4 s; a
 * report made before t = 1.5 s holds the 3 old blocks only.  The young
 * blocks are the larger ones: sorted by size they would come first.
 * Ledger: see ledger.h.
 */
#include <stdlib.h>
#include <time.h>

#include "ledger.h"

SITE void *site_aging_old(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_aging_young(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) != 0)
		;
}

static void *keep[8];

int main(void)
{
	volatile int n_old = 4, n_young = 2;
	int i;

	for (i = 0; i < n_old; i++) {
		keep[i] = site_aging_old(1000);
		lg_alloc("site_aging_old", 1000);
	}
	free(keep[0]);
	keep[0] = NULL;
	lg_free("site_aging_old", 1000);

	sleep_s(1.5);

	for (i = 0; i < n_young; i++) {
		keep[4 + i] = site_aging_young(4000);
		lg_alloc("site_aging_young", 4000);
	}

	sleep_s(0.4);
	lg_sink = keep;
	return lg_write();
}
