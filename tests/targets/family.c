/*
 * family: the allocator's standard API, built once per allocator family
 * (build/tests/family with glibc's, family_jemalloc, family_tcmalloc,
 * family_tcmalloc_minimal and family_mimalloc linked against Debian's
 * libraries, which then replace malloc for the whole process). The ledger
 * is the same under each.
 *
 * Ledger (all exact; see ledger.h):
 *   fam_malloc     4 x malloc(100), 1 freed
 *   fam_calloc     2 x calloc(10, 30), leaked
 *   fam_realloc    realloc(NULL, 64), grown to 4000 (moved or not), then
 *                  shrunk to 48: one live block of 48
 *   fam_memalign   posix_memalign(64, 256), aligned_alloc(128, 384),
 *                  memalign(256, 512), leaked
 *   fam_free_all   3 x malloc(70), all freed again
 * and the program's own mappings, as mapping.h books them.
 */
#define _GNU_SOURCE	/* mremap */
#include <malloc.h>
#include <stdlib.h>

#include "ledger.h"
#include "mapping.h"

SITE void *fam_malloc(size_t n)
{
	void *p = malloc(n);

	lg_sink = p;
	return p;
}

SITE void *fam_calloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	lg_sink = p;
	return p;
}

SITE void *fam_realloc(void *old, size_t n)
{
	void *p = realloc(old, n);

	lg_sink = p;
	return p;
}

SITE void *fam_memalign(int which)
{
	void *p = NULL;

	if (which == 0 && posix_memalign(&p, 64, 256) != 0)
		p = NULL;
	else if (which == 1)
		p = aligned_alloc(128, 384);
	else if (which == 2)
		p = memalign(256, 512);
	lg_sink = p;
	return p;
}

SITE void *fam_free_all(size_t n)
{
	void *p = malloc(n);

	lg_sink = p;
	return p;
}

int main(void)
{
	static const size_t aligned[] = { 256, 384, 512 };
	void *keep[4], *p;
	int i;

	for (i = 0; i < 4; i++) {
		keep[i] = fam_malloc(100);
		lg_check(keep[i] != NULL, "malloc(100) failed");
		lg_alloc("fam_malloc", 100);
	}
	free(keep[2]);
	lg_free("fam_malloc", 100);

	for (i = 0; i < 2; i++) {
		lg_check(fam_calloc(10, 30) != NULL, "calloc failed");
		lg_alloc("fam_calloc", 300);
	}

	p = fam_realloc(NULL, 64);
	lg_check(p != NULL, "realloc(NULL, 64) failed");
	p = fam_realloc(p, 4000);
	lg_check(p != NULL, "realloc to 4000 failed");
	p = fam_realloc(p, 48);
	lg_check(p != NULL, "realloc to 48 failed");
	/* each realloc's block is the realloc's: one live block of 48 */
	lg_alloc("fam_realloc", 64);
	lg_free("fam_realloc", 64);
	lg_alloc("fam_realloc", 4000);
	lg_free("fam_realloc", 4000);
	lg_alloc("fam_realloc", 48);

	for (i = 0; i < 3; i++) {
		lg_check(fam_memalign(i) != NULL, "aligned allocation %d failed", i);
		lg_alloc("fam_memalign", aligned[i]);
	}

	for (i = 0; i < 3; i++) {
		p = fam_free_all(70);
		lg_check(p != NULL, "malloc(70) failed");
		lg_alloc("fam_free_all", 70);
		free(p);
		lg_free("fam_free_all", 70);
	}
	mapping_exercise();
	return lg_write();
}
