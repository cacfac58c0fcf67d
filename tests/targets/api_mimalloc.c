/*
 * api_mimalloc: mimalloc's own API (mi_*), linked against Debian's
 * libmimalloc.so.2 (build/tests/api_mimalloc).
 *
 * Ledger (all exact; see ledger.h):
 *   mx_malloc          mi_malloc(77), leaked; mi_malloc(33), mi_free'd
 *   mx_zalloc          2 x mi_zalloc(120), leaked
 *   mx_aligned         mi_malloc_aligned(256, 64), leaked
 *   mx_calloc_aligned  mi_calloc_aligned(4, 50, 32): 200, leaked
 *   mx_ra_src          mi_malloc_aligned(100, 64), moved on: 0 live
 *   mx_realloc_aligned mi_realloc_aligned(p, 1000, 64): 1000 live
 *   mx_zfree           mi_zalloc_aligned(64, 16), mi_free'd: 0 live
 */
#include <mimalloc.h>

#include "ledger.h"

SITE void *mx_malloc(size_t n)
{
	void *p = mi_malloc(n);

	lg_sink = p;
	return p;
}

SITE void *mx_zalloc(size_t n)
{
	void *p = mi_zalloc(n);

	lg_sink = p;
	return p;
}

SITE void *mx_aligned(size_t n, size_t align)
{
	void *p = mi_malloc_aligned(n, align);

	lg_sink = p;
	return p;
}

SITE void *mx_calloc_aligned(size_t count, size_t n, size_t align)
{
	void *p = mi_calloc_aligned(count, n, align);

	lg_sink = p;
	return p;
}

SITE void *mx_ra_src(size_t n)
{
	void *p = mi_malloc_aligned(n, 64);

	lg_sink = p;
	return p;
}

SITE void *mx_realloc_aligned(void *p, size_t n)
{
	void *q = mi_realloc_aligned(p, n, 64);

	lg_sink = q;
	return q;
}

SITE void *mx_zfree(size_t n)
{
	void *p = mi_zalloc_aligned(n, 16);

	lg_sink = p;
	return p;
}

int main(void)
{
	void *p;
	int i;

	lg_check(mx_malloc(77) != NULL, "mi_malloc(77) failed");
	lg_alloc("mx_malloc", 77);
	p = mx_malloc(33);
	lg_check(p != NULL, "mi_malloc(33) failed");
	lg_alloc("mx_malloc", 33);
	mi_free(p);
	lg_free("mx_malloc", 33);

	for (i = 0; i < 2; i++) {
		lg_check(mx_zalloc(120) != NULL, "mi_zalloc failed");
		lg_alloc("mx_zalloc", 120);
	}
	lg_check(mx_aligned(256, 64) != NULL, "mi_malloc_aligned failed");
	lg_alloc("mx_aligned", 256);
	lg_check(mx_calloc_aligned(4, 50, 32) != NULL, "mi_calloc_aligned failed");
	lg_alloc("mx_calloc_aligned", 200);

	p = mx_ra_src(100);
	lg_check(p != NULL, "mi_malloc_aligned(100) failed");
	lg_alloc("mx_ra_src", 100);
	p = mx_realloc_aligned(p, 1000);
	lg_check(p != NULL, "mi_realloc_aligned failed");
	lg_free("mx_ra_src", 100);
	lg_alloc("mx_realloc_aligned", 1000);

	p = mx_zfree(64);
	lg_check(p != NULL, "mi_zalloc_aligned failed");
	lg_alloc("mx_zfree", 64);
	mi_free(p);
	lg_free("mx_zfree", 64);
	return lg_write();
}
