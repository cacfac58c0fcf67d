/*
 * realloc: the realloc / reallocarray matrix.
 *
 * Contract: realloc(p, n) success = release of p + one allocation call of n
 * bytes at the realloc's call site (even if the address stays the same);
 * realloc(p, 0) = a free of p, no allocation; realloc(NULL, n) = one
 * allocation call (not also a malloc); a failed realloc records nothing and p
 * stays live with its ORIGINAL site; reallocarray likewise, and an
 * overflowing reallocarray is a failed call.
 *
 * Each *_src site makes the block that the matching realloc site then
 * reallocates.  The ledger is booked next to each call (see ledger.h); the
 * address checks below are self-checks of what glibc did (same address or
 * moved), reported as "KEY 0|1" lines.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>

#include "ledger.h"

#define MALLOC_SITE(name)                                                     \
	SITE void *name(size_t n)                                             \
	{                                                                     \
		void *p = malloc(n);                                          \
		lg_sink = p;                                                  \
		return p;                                                     \
	}

#define REALLOC_SITE(name)                                                    \
	SITE void *name(void *old, size_t n)                                  \
	{                                                                     \
		void *p = realloc(old, n);                                    \
		lg_sink = p;                                                  \
		return p;                                                     \
	}

#define REALLOCARRAY_SITE(name)                                               \
	SITE void *name(void *old, size_t nmemb, size_t size)                 \
	{                                                                     \
		void *p = reallocarray(old, nmemb, size);                     \
		lg_sink = p;                                                  \
		return p;                                                     \
	}

MALLOC_SITE(site_guard)
MALLOC_SITE(site_rmoved_src)
REALLOC_SITE(site_realloc_grow_moved)
MALLOC_SITE(site_rgrowip_src)
REALLOC_SITE(site_realloc_grow_inplace)
MALLOC_SITE(site_rshrink_src)
REALLOC_SITE(site_realloc_shrink)
MALLOC_SITE(site_rsame_src)
REALLOC_SITE(site_realloc_same_size)
MALLOC_SITE(site_rzero_src)
REALLOC_SITE(site_realloc_zero)
REALLOC_SITE(site_realloc_null)
MALLOC_SITE(site_rfail_src)
REALLOC_SITE(site_realloc_fail)
MALLOC_SITE(site_rfail2_src)
REALLOC_SITE(site_realloc_fail2)
REALLOC_SITE(site_realloc_after_fail)
MALLOC_SITE(site_rchain_src)
REALLOC_SITE(site_realloc_chain1)
REALLOC_SITE(site_realloc_chain2)
MALLOC_SITE(site_rmmap_src)
REALLOC_SITE(site_realloc_mmap_grow)
REALLOC_SITE(site_realloc_mmap_shrink)
MALLOC_SITE(site_rarr_src)
REALLOCARRAY_SITE(site_reallocarray)
REALLOCARRAY_SITE(site_reallocarray_null)
MALLOC_SITE(site_rarrovf_src)
REALLOCARRAY_SITE(site_reallocarray_overflow)
REALLOCARRAY_SITE(site_reallocarray_zero)

static volatile size_t huge = SIZE_MAX - 4096; /* > PTRDIFF_MAX: glibc fails at once */
static volatile size_t half = SIZE_MAX / 2 + 2;

static void *keep[64];
static int nkeep;

int main(void)
{
	void *p, *q, *g1, *g2;
	int i;

	/* Churn a little so the blocks below do not all sit at the heap's very
	 * start (irrelevant to the ledger, only makes addresses realistic). */
	for (i = 0; i < 4; i++) {
		keep[nkeep] = site_guard(48);
		lg_alloc("site_guard", 48);
		nkeep++;
	}

	/* grow, moved: a guard right after p forbids growing in place */
	p = site_rmoved_src(100);
	lg_alloc("site_rmoved_src", 100);
	g1 = site_guard(100);
	lg_alloc("site_guard", 100);
	keep[nkeep++] = g1;
	q = site_realloc_grow_moved(p, 5000);
	lg_check(q != NULL, "realloc grow failed");
	lg_free("site_rmoved_src", 100);
	lg_alloc("site_realloc_grow_moved", 5000);
	lg_extra_line("grow_moved %d", q != p);
	lg_check(q != p, "realloc(p, 5000) with a guard after p did not move");
	keep[nkeep++] = q;

	/* shrink in place: glibc splits the chunk, the address stays */
	p = site_rshrink_src(4000);
	lg_alloc("site_rshrink_src", 4000);
	g2 = site_guard(64);
	lg_alloc("site_guard", 64);
	keep[nkeep++] = g2;
	q = site_realloc_shrink(p, 1000);
	lg_check(q != NULL, "realloc shrink failed");
	lg_free("site_rshrink_src", 4000);
	lg_alloc("site_realloc_shrink", 1000);
	lg_extra_line("shrink_inplace %d", q == p);
	lg_check(q == p, "realloc(p, 1000) of a 4000-byte block moved");
	keep[nkeep++] = q;

	/* same size: same address, still a release + an allocation call */
	p = site_rsame_src(300);
	lg_alloc("site_rsame_src", 300);
	q = site_realloc_same_size(p, 300);
	lg_check(q == p, "realloc(p, same size) moved");
	lg_free("site_rsame_src", 300);
	lg_alloc("site_realloc_same_size", 300);
	free(q);
	lg_free("site_realloc_same_size", 300);

	/* grow in place: p is the last chunk before the top chunk */
	p = site_rgrowip_src(200);
	lg_alloc("site_rgrowip_src", 200);
	q = site_realloc_grow_inplace(p, 6000);
	lg_check(q != NULL, "realloc grow in place failed");
	lg_free("site_rgrowip_src", 200);
	lg_alloc("site_realloc_grow_inplace", 6000);
	lg_extra_line("grow_inplace %d", q == p); /* informative only */
	keep[nkeep++] = q;

	/* realloc(p, 0): a free of p, nothing allocated (glibc returns NULL) */
	for (i = 0; i < 3; i++) {
		volatile size_t zero = 0;

		p = site_rzero_src(700);
		lg_alloc("site_rzero_src", 700);
		q = site_realloc_zero(p, zero);
		lg_check(q == NULL, "realloc(p, 0) returned non-NULL");
		lg_free("site_rzero_src", 700);
		lg_declare("site_realloc_zero");
	}

	/* realloc(NULL, n): one allocation call of n bytes (glibc calls malloc
	 * internally: must count once) */
	for (i = 0; i < 4; i++) {
		p = site_realloc_null(NULL, 333);
		lg_check(p != NULL, "realloc(NULL, 333) failed");
		lg_alloc("site_realloc_null", 333);
		if (i == 0) {
			free(p);
			lg_free("site_realloc_null", 333);
		} else {
			keep[nkeep++] = p;
		}
	}

	/* failed realloc: NULL, p stays live with its original site */
	p = site_rfail_src(800);
	lg_alloc("site_rfail_src", 800);
	q = site_realloc_fail(p, huge);
	lg_check(q == NULL, "realloc(p, huge) did not fail");
	lg_declare("site_realloc_fail");
	((char *)p)[799] = 1; /* p is still ours */
	keep[nkeep++] = p;

	/* failed realloc, then a successful realloc of the same block: the
	 * block must still be known (its release is a known free) */
	p = site_rfail2_src(900);
	lg_alloc("site_rfail2_src", 900);
	q = site_realloc_fail2(p, huge);
	lg_check(q == NULL, "realloc(p, huge) did not fail");
	lg_declare("site_realloc_fail2");
	q = site_realloc_after_fail(p, 1800);
	lg_check(q != NULL, "realloc(p, 1800) failed");
	lg_free("site_rfail2_src", 900);
	lg_alloc("site_realloc_after_fail", 1800);
	keep[nkeep++] = q;

	/* a chain: malloc -> realloc -> realloc (crossing the mmap threshold) */
	p = site_rchain_src(10);
	lg_alloc("site_rchain_src", 10);
	q = site_realloc_chain1(p, 20);
	lg_check(q != NULL, "realloc(p, 20) failed");
	lg_free("site_rchain_src", 10);
	lg_alloc("site_realloc_chain1", 20);
	p = site_realloc_chain2(q, 300000);
	lg_check(p != NULL, "realloc(p, 300000) failed");
	lg_free("site_realloc_chain1", 20);
	lg_alloc("site_realloc_chain2", 300000);
	keep[nkeep++] = p;

	/* mmap'd blocks: grow (mremap) and shrink */
	p = site_rmmap_src(200000);
	lg_alloc("site_rmmap_src", 200000);
	q = site_realloc_mmap_grow(p, 400000);
	lg_check(q != NULL, "realloc(p, 400000) failed");
	lg_free("site_rmmap_src", 200000);
	lg_alloc("site_realloc_mmap_grow", 400000);
	p = site_realloc_mmap_shrink(q, 150000);
	lg_check(p != NULL, "realloc(p, 150000) failed");
	lg_free("site_realloc_mmap_grow", 400000);
	lg_alloc("site_realloc_mmap_shrink", 150000);
	keep[nkeep++] = p;

	/* reallocarray success: 100 x 8 = 800 bytes requested */
	p = site_rarr_src(64);
	lg_alloc("site_rarr_src", 64);
	q = site_reallocarray(p, 100, 8);
	lg_check(q != NULL, "reallocarray(p, 100, 8) failed");
	lg_free("site_rarr_src", 64);
	lg_alloc("site_reallocarray", 800);
	keep[nkeep++] = q;

	/* reallocarray(NULL, 10, 12): 120 bytes, once (reallocarray -> realloc
	 * -> malloc inside glibc) */
	p = site_reallocarray_null(NULL, 10, 12);
	lg_check(p != NULL, "reallocarray(NULL, 10, 12) failed");
	lg_alloc("site_reallocarray_null", 120);
	keep[nkeep++] = p;

	/* reallocarray overflow: fails, nothing; p stays with its site */
	p = site_rarrovf_src(48);
	lg_alloc("site_rarrovf_src", 48);
	q = site_reallocarray_overflow(p, half, 4);
	lg_check(q == NULL, "overflowing reallocarray did not fail");
	lg_declare("site_reallocarray_overflow");
	keep[nkeep++] = p;

	/* reallocarray(p, 0, 16) = realloc(p, 0): a free of p */
	p = site_rarrovf_src(56);
	lg_alloc("site_rarrovf_src", 56);
	q = site_reallocarray_zero(p, 0, 16);
	lg_check(q == NULL, "reallocarray(p, 0, 16) returned non-NULL");
	lg_free("site_rarrovf_src", 56);
	lg_declare("site_reallocarray_zero");

	lg_sink = keep;
	return lg_write();
}
