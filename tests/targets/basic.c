/*
 * basic: malloc / calloc / free, some blocks freed and some leaked, malloc(0),
 * free(NULL) (must not be counted), and blocks above the mmap threshold.
 *
 * Ledger (all exact; see ledger.h):
 *   site_malloc_leak     5 x malloc(1000), all leaked
 *   site_malloc_freed   10 x malloc(2048), all freed
 *   site_malloc_mixed   24 x malloc(64*(i+1)), the even i freed
 *   site_calloc_leak     3 x calloc(4, 256), leaked
 *   site_calloc_freed    7 x calloc(10, 10), freed
 *   site_malloc_zero     3 x malloc(0), one freed (live 0 bytes, live-count 2)
 *   site_malloc_big      2 x malloc(300000) (mmap'd chunks), one freed
 *   site_deep_alloc      1 x malloc(555), leaked, called 300 frames deep
 *                        (deeper than a tracer keeps: the stack is cut at
 *                        the outer end, the leaf frames must stay)
 *   free(NULL) x 50      nothing (checked by the harness: unknown frees 0,
 *                        live allocations = calls - frees)
 */
#include <stdlib.h>

#include "ledger.h"

SITE void *site_malloc_leak(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_malloc_freed(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_malloc_mixed(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_calloc_leak(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb, size);
	lg_sink = p;
	return p;
}

SITE void *site_calloc_freed(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb, size);
	lg_sink = p;
	return p;
}

SITE void *site_malloc_zero(void)
{
	volatile size_t zero = 0;
	void *p = malloc(zero);
	lg_sink = p;
	return p;
}

SITE void *site_malloc_big(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

SITE void *site_deep_alloc(size_t n)
{
	void *p = malloc(n);
	lg_sink = p;
	return p;
}

static volatile int deep_guard;

/* recursion that the compiler can neither inline nor turn into a loop */
SITE void *deep_recurse(int depth)
{
	void *p;

	if (depth == 0)
		return site_deep_alloc(555);
	p = deep_recurse(depth - 1);
	deep_guard++;
	return p;
}

/* not an allocation site: free(NULL) must record nothing */
SITE void free_null(void)
{
	void *volatile null = NULL;
	free(null);
	lg_sink = null;
}

static void *leaked[64];
static int nleaked;

static void keep(void *p)
{
	leaked[nleaked++] = p;
}

int main(void)
{
	int i;
	void *p;

	for (i = 0; i < 5; i++) {
		p = site_malloc_leak(1000);
		lg_check(p != NULL, "malloc(1000) failed");
		lg_alloc("site_malloc_leak", 1000);
		keep(p);
	}

	for (i = 0; i < 10; i++) {
		p = site_malloc_freed(2048);
		lg_check(p != NULL, "malloc(2048) failed");
		lg_alloc("site_malloc_freed", 2048);
		free(p);
		lg_free("site_malloc_freed", 2048);
	}

	for (i = 0; i < 24; i++) {
		size_t n = 64 * (size_t)(i + 1);

		p = site_malloc_mixed(n);
		lg_check(p != NULL, "malloc(%zu) failed", n);
		lg_alloc("site_malloc_mixed", n);
		if (i % 2 == 0) {
			free(p);
			lg_free("site_malloc_mixed", n);
		} else {
			keep(p);
		}
	}

	for (i = 0; i < 3; i++) {
		p = site_calloc_leak(4, 256);
		lg_check(p != NULL && ((unsigned char *)p)[1023] == 0, "calloc(4,256)");
		lg_alloc("site_calloc_leak", 1024);
		keep(p);
	}

	for (i = 0; i < 7; i++) {
		p = site_calloc_freed(10, 10);
		lg_check(p != NULL, "calloc(10,10) failed");
		lg_alloc("site_calloc_freed", 100);
		free(p);
		lg_free("site_calloc_freed", 100);
	}

	for (i = 0; i < 3; i++) {
		p = site_malloc_zero();
		/* glibc returns a unique minimum-size block for malloc(0) */
		lg_check(p != NULL, "malloc(0) returned NULL");
		lg_alloc("site_malloc_zero", 0);
		if (i == 1) {
			free(p);
			lg_free("site_malloc_zero", 0);
		} else {
			keep(p);
		}
	}

	p = site_malloc_big(300000);
	lg_check(p != NULL, "malloc(300000) failed");
	lg_alloc("site_malloc_big", 300000);
	keep(p);
	p = site_malloc_big(300000);
	lg_check(p != NULL, "malloc(300000) failed");
	lg_alloc("site_malloc_big", 300000);
	free(p);
	lg_free("site_malloc_big", 300000);

	p = deep_recurse(300);
	lg_check(p != NULL, "malloc(555)");
	lg_alloc("site_deep_alloc", 555);
	keep(p);

	for (i = 0; i < 50; i++)
		free_null();

	lg_sink = leaked; /* keep the leaked blocks reachable */
	return lg_write();
}
