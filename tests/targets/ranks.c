/*
 * ranks: allocators whose order differs with each --sort key
 * (tests/reports.sh).  Each site is called from one place in main (loop
 * bounds are volatile so that no loop is unrolled into several call sites).
 *
 *   site             calls              live bytes   live allocations   allocation calls
 *   site_rank_big    1 x malloc(50000)       50000          1                  1
 *   site_rank_mid    10 x malloc(1000),       5000          5                 10
 *                    5 freed
 *   site_rank_many   40 x malloc(16)           640         40                 40
 *   site_rank_churny 200 x malloc(64),          64          1                200
 *                    199 freed
 *
 *   --sort live:   big, mid, many, churny
 *   --sort allocs: churny, many, mid, big
 *   --sort count:  many, mid, then big and churny (1 each)
 * Ledger: see ledger.h.
 */
#include <stdlib.h>

#include "ledger.h"

SITE void *site_rank_big(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_rank_mid(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_rank_many(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_rank_churny(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

static void *keep[64];

int main(void)
{
	volatile int n_mid = 10, n_many = 40, n_churny = 200;
	void *prev = NULL;
	int i;

	keep[0] = site_rank_big(50000);
	lg_alloc("site_rank_big", 50000);

	for (i = 0; i < n_mid; i++) {
		void *p = site_rank_mid(1000);

		lg_alloc("site_rank_mid", 1000);
		if (i % 2) {
			free(p);
			lg_free("site_rank_mid", 1000);
		} else {
			keep[1 + i / 2] = p;
		}
	}

	for (i = 0; i < n_many; i++) {
		keep[10 + i] = site_rank_many(16);
		lg_alloc("site_rank_many", 16);
	}

	for (i = 0; i < n_churny; i++) {
		void *p = site_rank_churny(64);

		lg_alloc("site_rank_churny", 64);
		if (prev) {
			free(prev);
			lg_free("site_rank_churny", 64);
		}
		prev = p;
	}
	keep[60] = prev;

	lg_sink = keep;
	return lg_write();
}
