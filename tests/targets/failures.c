/*
 * failures: calls that fail record nothing (contract: "a call that fails
 * (NULL / non-zero posix_memalign) records nothing"), interleaved with
 * successful control calls so that a tracer confusing a failed call's entry
 * state with the next call's is caught.
 *
 * Ledger: every site_fail_* is 0 on every metric; the site_ok_* sites are
 * exact (see main).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>

#include "ledger.h"

static volatile size_t vmax = SIZE_MAX;
static volatile size_t vhuge = SIZE_MAX - 100;
static volatile size_t vhalf = SIZE_MAX / 2 + 2;
static volatile size_t vbig_not_overflow = (size_t)PTRDIFF_MAX + 1;

SITE void *site_fail_malloc_max(void)
{
	void *p = malloc(vmax);
	lg_sink = p;
	return p;
}

SITE void *site_fail_malloc_ptrdiff(void)
{
	void *p = malloc(vbig_not_overflow);
	lg_sink = p;
	return p;
}

SITE void *site_fail_calloc_overflow(void)
{
	void *p = calloc(vhalf, 4);
	lg_sink = p;
	return p;
}

SITE void *site_fail_calloc_huge(void)
{
	void *p = calloc(1, vhuge);
	lg_sink = p;
	return p;
}

SITE int site_fail_posix_memalign_einval(void **out)
{
	volatile size_t bad_align = 24; /* not a power of two */
	int r = posix_memalign(out, bad_align, 100);
	lg_sink = *out;
	return r;
}

SITE int site_fail_posix_memalign_einval_small(void **out)
{
	volatile size_t bad_align = 4; /* smaller than sizeof(void *) */
	int r = posix_memalign(out, bad_align, 100);
	lg_sink = *out;
	return r;
}

SITE int site_fail_posix_memalign_enomem(void **out)
{
	int r = posix_memalign(out, 64, vhuge);
	lg_sink = *out;
	return r;
}

SITE void *site_fail_aligned_alloc(void)
{
	void *p = aligned_alloc(64, vhuge);
	lg_sink = p;
	return p;
}

SITE void *site_fail_memalign(void)
{
	void *p = memalign(4096, vhuge);
	lg_sink = p;
	return p;
}

SITE void *site_fail_valloc(void)
{
	void *p = valloc(vhuge);
	lg_sink = p;
	return p;
}

SITE void *site_fail_pvalloc(void)
{
	void *p = pvalloc(vhuge);
	lg_sink = p;
	return p;
}

SITE void *site_fail_realloc_null(void)
{
	void *p = realloc(NULL, vmax);
	lg_sink = p;
	return p;
}

SITE void *site_fail_reallocarray_null(void)
{
	void *p = reallocarray(NULL, vhalf, 8);
	lg_sink = p;
	return p;
}

SITE void *site_ok_malloc(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_ok_calloc(size_t n, size_t m)
{
	void *p = calloc(n, m);
	lg_sink = p;
	return p;
}

SITE int site_ok_posix_memalign(void **out, size_t align, size_t n)
{
	int r = posix_memalign(out, align, n);
	lg_sink = *out;
	return r;
}

static void *keep[256];
static int nkeep;

static void ok_malloc(size_t n, int free_it)
{
	void *p = site_ok_malloc(n);

	lg_check(p != NULL, "malloc(%zu) failed", n);
	lg_alloc("site_ok_malloc", n);
	if (free_it) {
		free(p);
		lg_free("site_ok_malloc", n);
	} else {
		keep[nkeep++] = p;
	}
}

int main(void)
{
	void *p;
	int r, i;

	lg_declare("site_fail_malloc_max");
	lg_declare("site_fail_malloc_ptrdiff");
	lg_declare("site_fail_calloc_overflow");
	lg_declare("site_fail_calloc_huge");
	lg_declare("site_fail_posix_memalign_einval");
	lg_declare("site_fail_posix_memalign_einval_small");
	lg_declare("site_fail_posix_memalign_enomem");
	lg_declare("site_fail_aligned_alloc");
	lg_declare("site_fail_memalign");
	lg_declare("site_fail_valloc");
	lg_declare("site_fail_pvalloc");
	lg_declare("site_fail_realloc_null");
	lg_declare("site_fail_reallocarray_null");

	for (i = 0; i < 5; i++) {
		ok_malloc(100 + (size_t)i, 0);

		p = site_fail_malloc_max();
		lg_check(p == NULL, "malloc(SIZE_MAX) succeeded");
		ok_malloc(200, 1);

		p = site_fail_malloc_ptrdiff();
		lg_check(p == NULL, "malloc(PTRDIFF_MAX+1) succeeded");

		p = site_fail_calloc_overflow();
		lg_check(p == NULL && errno == ENOMEM, "overflowing calloc succeeded");
		p = site_ok_calloc(3, 40);
		lg_check(p != NULL, "calloc(3, 40) failed");
		lg_alloc("site_ok_calloc", 120);
		keep[nkeep++] = p;

		p = site_fail_calloc_huge();
		lg_check(p == NULL, "calloc(1, huge) succeeded");

		p = NULL;
		r = site_fail_posix_memalign_einval(&p);
		lg_check(r == EINVAL, "posix_memalign(24) returned %d, not EINVAL", r);
		p = NULL;
		r = site_fail_posix_memalign_einval_small(&p);
		lg_check(r == EINVAL, "posix_memalign(4) returned %d, not EINVAL", r);
		p = NULL;
		r = site_fail_posix_memalign_enomem(&p);
		lg_check(r == ENOMEM, "posix_memalign(huge) returned %d, not ENOMEM", r);

		p = NULL;
		r = site_ok_posix_memalign(&p, 128, 1000);
		lg_check(r == 0 && p != NULL, "posix_memalign(128, 1000) failed");
		lg_alloc("site_ok_posix_memalign", 1000);
		keep[nkeep++] = p;
		ok_malloc(300, 0);

		p = site_fail_aligned_alloc();
		lg_check(p == NULL, "aligned_alloc(huge) succeeded");
		p = site_fail_memalign();
		lg_check(p == NULL, "memalign(huge) succeeded");
		p = site_fail_valloc();
		lg_check(p == NULL, "valloc(huge) succeeded");
		p = site_fail_pvalloc();
		lg_check(p == NULL, "pvalloc(huge) succeeded");
		p = site_fail_realloc_null();
		lg_check(p == NULL, "realloc(NULL, SIZE_MAX) succeeded");
		p = site_fail_reallocarray_null();
		lg_check(p == NULL, "overflowing reallocarray(NULL) succeeded");
		ok_malloc(400, i % 2);
	}

	lg_sink = keep;
	return lg_write();
}
