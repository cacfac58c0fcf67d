/*
 * aligned: posix_memalign, aligned_alloc, memalign, valloc, pvalloc.
 *
 * The size that counts is the one the caller requested (pvalloc(100) counts
 * 100 bytes, not the page glibc really reserves).  With an alignment no
 * larger than malloc's own (16 on x86-64) glibc serves the call through an
 * internal call to malloc: such a nested call must count once, as the outer
 * call.  In glibc 2.36 aligned_alloc and memalign are the same function
 * (one address, two symbols): each call must still count once.
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>

#include "ledger.h"

SITE int site_posix_memalign(void **out, size_t align, size_t n)
{
	int r = posix_memalign(out, align, n);
	lg_sink = *out;
	return r;
}

SITE int site_posix_memalign_small(void **out, size_t align, size_t n)
{
	int r = posix_memalign(out, align, n);
	lg_sink = *out;
	return r;
}

SITE int site_posix_memalign_big(void **out, size_t align, size_t n)
{
	int r = posix_memalign(out, align, n);
	lg_sink = *out;
	return r;
}

SITE void *site_aligned_alloc(size_t align, size_t n)
{
	void *p = aligned_alloc(align, n);
	lg_sink = p;
	return p;
}

SITE void *site_aligned_alloc_small(size_t align, size_t n)
{
	void *p = aligned_alloc(align, n);
	lg_sink = p;
	return p;
}

SITE void *site_memalign(size_t align, size_t n)
{
	void *p = memalign(align, n);
	lg_sink = p;
	return p;
}

SITE void *site_memalign_small(size_t align, size_t n)
{
	void *p = memalign(align, n);
	lg_sink = p;
	return p;
}

SITE void *site_valloc(size_t n)
{
	void *p = valloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_pvalloc(size_t n)
{
	void *p = pvalloc(n);
	lg_sink = p;
	return p;
}

static void *keep[64];
static int nkeep;

static int aligned_to(const void *p, size_t a)
{
	return p != NULL && ((uintptr_t)p % a) == 0;
}

/* book an allocation, then free it or keep it */
static void book(const char *site, void *p, size_t n, int free_it)
{
	lg_alloc(site, n);
	if (free_it) {
		free(p);
		lg_free(site, n);
	} else {
		keep[nkeep++] = p;
	}
}

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;
	int i, r;

	for (i = 0; i < 3; i++) {
		p = NULL;
		r = site_posix_memalign(&p, 4096, 10000);
		lg_check(r == 0 && aligned_to(p, 4096), "posix_memalign(4096, 10000)");
		book("site_posix_memalign", p, 10000, i == 1);
	}
	for (i = 0; i < 4; i++) {
		p = NULL;
		r = site_posix_memalign_small(&p, 16, 100);
		lg_check(r == 0 && aligned_to(p, 16), "posix_memalign(16, 100)");
		book("site_posix_memalign_small", p, 100, i % 2);
	}
	p = NULL;
	r = site_posix_memalign_big(&p, 64, 200000);
	lg_check(r == 0 && aligned_to(p, 64), "posix_memalign(64, 200000)");
	book("site_posix_memalign_big", p, 200000, 0);

	for (i = 0; i < 3; i++) {
		p = site_aligned_alloc(64, 640);
		lg_check(aligned_to(p, 64), "aligned_alloc(64, 640)");
		book("site_aligned_alloc", p, 640, i == 0);
	}
	for (i = 0; i < 2; i++) {
		p = site_aligned_alloc_small(16, 48);
		lg_check(aligned_to(p, 16), "aligned_alloc(16, 48)");
		book("site_aligned_alloc_small", p, 48, 0);
	}

	for (i = 0; i < 2; i++) {
		p = site_memalign(256, 1000);
		lg_check(aligned_to(p, 256), "memalign(256, 1000)");
		book("site_memalign", p, 1000, 0);
	}
	for (i = 0; i < 3; i++) {
		p = site_memalign_small(8, 24);
		lg_check(aligned_to(p, 8), "memalign(8, 24)");
		book("site_memalign_small", p, 24, i == 2);
	}

	for (i = 0; i < 2; i++) {
		p = site_valloc(5000);
		lg_check(aligned_to(p, (size_t)page), "valloc(5000)");
		book("site_valloc", p, 5000, i == 0);
	}
	for (i = 0; i < 2; i++) {
		p = site_pvalloc(100);
		lg_check(aligned_to(p, (size_t)page), "pvalloc(100)");
		/* the caller asked for 100 bytes: 100 counts */
		book("site_pvalloc", p, 100, 0);
	}

	lg_sink = keep;
	return lg_write();
}
