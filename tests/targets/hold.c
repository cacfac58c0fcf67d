/*
 * hold: allocates a known heap, then holds it without allocating, so that
 * what a scrape of the running trace shows is exact (tests/pprof.sh).
 *
 *   site_hold_big      4 x malloc(25000), kept             live 100000
 *   site_hold_small   10 x malloc(48), 4 of them freed     live 288, allocated 480
 *   site_hold_array    1 x calloc(100, 33), kept           live 3300
 *
 * Then it writes its ledger (see ledger.h: fopen and fclose allocate and free
 * their own blocks, so the live heap stays the ledger's), writes "ready PID"
 * to $TL_READY and sleeps SECS seconds (argument, default 20) before it
 * exits 0.
 */
#include <stdlib.h>
#include <time.h>

#include "ledger.h"

SITE void *site_hold_big(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_hold_small(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_hold_array(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb, size);
	lg_sink = p;
	return p;
}

static void *keep[16];

int main(int argc, char **argv)
{
	double secs = argc >= 2 ? atof(argv[1]) : 20.0;
	struct timespec rest = { (time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9) };
	void *small[10];
	int i, status;

	for (i = 0; i < 4; i++) {
		keep[i] = site_hold_big(25000);
		lg_check(keep[i] != NULL, "malloc(25000)");
		lg_alloc("site_hold_big", 25000);
	}
	for (i = 0; i < 10; i++) {
		small[i] = site_hold_small(48);
		lg_check(small[i] != NULL, "malloc(48)");
		lg_alloc("site_hold_small", 48);
	}
	for (i = 0; i < 10; i++) {
		if (i % 3 == 0) {	/* 0, 3, 6, 9 */
			free(small[i]);
			lg_free("site_hold_small", 48);
		} else {
			keep[4 + i] = small[i];
		}
	}
	keep[15] = site_hold_array(100, 33);
	lg_check(keep[15] != NULL, "calloc(100, 33)");
	lg_alloc("site_hold_array", 100 * 33);
	lg_sink = keep;

	status = lg_write();
	tl_ready();
	while (nanosleep(&rest, &rest) != 0)
		;
	return status;
}
