// SPDX-License-Identifier: GPL-2.0
/*
 * A program with an allocator of its own: pools that carve blocks out of
 * slabs they take from malloc (4 KiB each, a block bigger than that gets
 * a slab of its own; the first block of a slab is at its very start, where
 * the slab is). The harness names pool_alloc, pool_calloc (count=, size=),
 * pool_realloc, pool_free and pool_destroy (--alloc-fn and the rest). Per
 * caller:
 *   site_keep     10 blocks of 100 bytes, kept
 *   site_free     10 blocks of 200 bytes, each given back by pool_free
 *   site_grow     a block of 50 bytes grown to 300 by pool_realloc, kept
 *   site_zeroed   pool_calloc(6, 25): a block of 150 bytes, kept
 *   site_temp     20 blocks of 64 bytes in a pool then destroyed
 *   site_big      one block of 10000 bytes (a slab of its own), kept
 *   site_pool_new the pools themselves (malloc): the long-lived one kept
 * The slabs are the pools' own memory: the ledger's "own-bytes" and
 * "own-count" lines say what the long-lived pool holds at the end beside
 * its live blocks (its slabs, less those blocks' bytes). With
 * $TL_READY set the program waits for SIGUSR1 first (a run under -p).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ledger.h"

#define SLAB 4096
#define MAX_SLABS 64

struct pool {
	char *slabs[MAX_SLABS];
	size_t sizes[MAX_SLABS];
	int nslabs;
	size_t used;		/* in the last slab */
};

/* the allocator: not inlined, its symbols exported for the probes */
__attribute__((noinline, noipa, used, visibility("default")))
void *pool_alloc(struct pool *p, size_t size)
{
	size_t need = (size + 15) & ~(size_t)15;
	char *slab;

	if (need > SLAB || !p->nslabs || p->used + need > SLAB) {
		if (p->nslabs == MAX_SLABS)
			return NULL;
		p->sizes[p->nslabs] = need > SLAB ? need : SLAB;
		slab = malloc(p->sizes[p->nslabs]);
		if (!slab)
			return NULL;
		p->slabs[p->nslabs++] = slab;
		p->used = 0;
	}
	slab = p->slabs[p->nslabs - 1] + p->used;
	p->used = need > SLAB ? SLAB : p->used + need;
	return slab;
}

__attribute__((noinline, noipa, used, visibility("default")))
void pool_free(struct pool *p, void *ptr)
{
	/* a pool takes its memory back when it is destroyed */
	(void)p;
	(void)ptr;
}

__attribute__((noinline, noipa, used, visibility("default")))
void *pool_realloc(struct pool *p, void *ptr, size_t old, size_t size)
{
	void *moved = pool_alloc(p, size);

	if (moved && ptr)
		memcpy(moved, ptr, old < size ? old : size);
	return moved;
}

/* count blocks of size, zeroed, in one: as calloc */
__attribute__((noinline, noipa, used, visibility("default")))
void *pool_calloc(struct pool *p, size_t count, size_t size)
{
	void *b = pool_alloc(p, count * size);

	return b ? memset(b, 0, count * size) : NULL;
}

__attribute__((noinline, noipa, used, visibility("default")))
void pool_destroy(struct pool *p)
{
	int i;

	for (i = 0; i < p->nslabs; i++)
		free(p->slabs[i]);
	free(p);
}

static void *g_keep[10], *g_grown, *g_big, *g_zeroed;
static struct pool *g_pool;

SITE struct pool *site_pool_new(void)
{
	struct pool *p = calloc(1, sizeof(*p));

	lg_alloc("site_pool_new", sizeof(*p));
	return p;
}

SITE void *site_keep(struct pool *p, size_t n) { return pool_alloc(p, n); }
SITE void *site_free(struct pool *p, size_t n) { return pool_alloc(p, n); }
SITE void *site_temp(struct pool *p, size_t n) { return pool_alloc(p, n); }
SITE void *site_big(struct pool *p, size_t n) { return pool_alloc(p, n); }
SITE void *site_zeroed(struct pool *p) { return pool_calloc(p, 6, 25); }

SITE void *site_grow(struct pool *p)
{
	void *b = pool_alloc(p, 50);

	lg_alloc("site_grow", 50);
	b = pool_realloc(p, b, 50, 300);
	lg_free("site_grow", 50);
	lg_alloc("site_grow", 300);
	return b;
}

int main(void)
{
	struct pool *temp;
	void *freed[10];
	size_t own = 0;
	int i;

	if (getenv("TL_READY")) {
		sigset_t set;
		int sig;

		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		tl_ready();
		sigwait(&set, &sig);
	}
	lg_declare("site_keep");
	lg_declare("site_free");
	lg_declare("site_temp");
	lg_declare("site_big");
	g_pool = site_pool_new();
	for (i = 0; i < 10; i++) {
		g_keep[i] = memset(site_keep(g_pool, 100), 1, 100);
		lg_alloc("site_keep", 100);
	}
	for (i = 0; i < 10; i++) {
		freed[i] = memset(site_free(g_pool, 200), 2, 200);
		lg_alloc("site_free", 200);
	}
	for (i = 0; i < 10; i++) {
		pool_free(g_pool, freed[i]);
		lg_free("site_free", 200);
	}
	g_grown = site_grow(g_pool);
	g_zeroed = site_zeroed(g_pool);
	lg_alloc("site_zeroed", 150);
	temp = site_pool_new();
	for (i = 0; i < 20; i++) {
		memset(site_temp(temp, 64), 3, 64);
		lg_alloc("site_temp", 64);
	}
	pool_destroy(temp);
	lg_free("site_pool_new", sizeof(*temp));
	for (i = 0; i < 20; i++)
		lg_free("site_temp", 64);
	g_big = memset(site_big(g_pool, 10000), 4, 10000);
	lg_alloc("site_big", 10000);
	/* what the pool holds beside the live blocks: its slabs less those */
	for (i = 0; i < g_pool->nslabs; i++)
		own += g_pool->sizes[i];
	own -= 10 * 100 + 300 + 150 + 10000;
	lg_extra_line("own-bytes %zu", own);
	lg_extra_line("own-count %d", g_pool->nslabs);
	lg_sink = g_keep[0];
	lg_sink = g_grown;
	lg_sink = g_zeroed;
	lg_sink = g_big;
	return lg_write();
}
