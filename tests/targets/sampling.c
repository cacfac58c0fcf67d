/*
 * sampling: enough bytes at a few sites for --sample-bytes estimates to be
 * measured against the exact ledger: small blocks (rarely sampled, heavily
 * weighted), mid-size ones, blocks larger than the sampling period, and a
 * site whose blocks are all freed.
 */
#include <stdlib.h>

#include "ledger.h"

SITE void *site_sample_small(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_sample_mid(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_sample_large(size_t n)
{
	void *p = calloc(1, n);
	lg_sink = p;
	return p;
}

SITE void *site_sample_freed(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

int main(void)
{
	int i;

	for (i = 0; i < 40000; i++) {
		void *p;

		lg_check(site_sample_small(64) != NULL, "malloc(64)");
		lg_alloc("site_sample_small", 64);
		if (i % 4 == 0) {
			lg_check(site_sample_mid(1000) != NULL, "malloc(1000)");
			lg_alloc("site_sample_mid", 1000);
		}
		if (i % 40 == 0) {
			lg_check(site_sample_large(40000) != NULL, "calloc(40000)");
			lg_alloc("site_sample_large", 40000);
		}
		p = site_sample_freed(512);
		lg_check(p != NULL, "malloc(512)");
		lg_alloc("site_sample_freed", 512);
		free(p);
		lg_free("site_sample_freed", 512);
	}
	return lg_write();
}
