// SPDX-License-Identifier: GPL-2.0
/*
 * An allocator of the program's own that is a thin wrapper over malloc,
 * realloc and free (git's xmalloc, xrealloc and free, binutils' and gdb's):
 * each named block is its own memory's whole, and xrealloc reallocs that
 * memory itself. The harness names xmalloc, xrealloc and xfree. Per caller:
 *   site_wrap_keep   3 blocks of 100 bytes, kept
 *   site_wrap_grow   a block of 1000 bytes grown to 5000 by xrealloc, kept
 *   site_wrap_churn  10 blocks of 64 bytes, each grown to 100000 (the
 *                    realloc moves it), then given back by xfree
 * No free is unknown: a block xrealloc moved is the one xfree gives back.
 */
#include <stdlib.h>
#include <string.h>

#include "ledger.h"

__attribute__((noinline, noipa, used, visibility("default")))
void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p)
		abort();
	return p;
}

__attribute__((noinline, noipa, used, visibility("default")))
void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n);

	if (!q)
		abort();
	return q;
}

__attribute__((noinline, noipa, used, visibility("default")))
void xfree(void *p)
{
	free(p);
}

static void *g_keep[3], *g_grown;

SITE void *site_wrap_keep(void) { return xmalloc(100); }

SITE void *site_wrap_grow(void)
{
	void *p = xmalloc(1000);

	lg_alloc("site_wrap_grow", 1000);
	p = xrealloc(memset(p, 1, 1000), 5000);
	lg_free("site_wrap_grow", 1000);
	lg_alloc("site_wrap_grow", 5000);
	return p;
}

SITE void *site_wrap_churn(int i)
{
	void *p = xmalloc(64);

	lg_alloc("site_wrap_churn", 64);
	p = xrealloc(memset(p, 2, 64), 100000 + i);
	lg_free("site_wrap_churn", 64);
	lg_alloc("site_wrap_churn", 100000 + i);
	return p;
}

int main(void)
{
	int i;

	for (i = 0; i < 3; i++) {
		g_keep[i] = site_wrap_keep();
		lg_alloc("site_wrap_keep", 100);
	}
	g_grown = site_wrap_grow();
	for (i = 0; i < 10; i++) {
		xfree(memset(site_wrap_churn(i), 3, 100000 + i));
		lg_free("site_wrap_churn", 100000 + i);
	}
	lg_sink = g_keep[0];
	lg_sink = g_grown;
	return lg_write();
}
