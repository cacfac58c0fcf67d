/*
 * static_two: a static executable with two allocators linked in, as a Rust
 * program with tikv-jemallocator is when built for musl: jemalloc under the
 * _rjem_ prefix for the program's own blocks, and the libc's malloc for the
 * rest. The _rjem_ functions here stand in for jemalloc (no crates here),
 * with a heap of their own: each block is freed by its own family. Built with
 * musl-gcc -static (static_two_musl) and gcc -static (static_two_glibc).
 *
 * Ledger (all exact; see ledger.h):
 *   two_rjem     4 x _rjem_mallocx(200), 1 freed by _rjem_sdallocx;
 *                _rjem_rallocx of one to 500
 *   two_libc     3 x malloc(120), 1 freed
 */
#include <stdlib.h>
#include <string.h>

#include "ledger.h"

#define NOINLINE __attribute__((noinline, noipa, used))

/* a heap of its own, as jemalloc's: bump allocation, nothing reused */
static _Alignas(16) char rjem_arena[1 << 16];
static size_t rjem_used;

NOINLINE void *_rjem_mallocx(size_t size, int flags)
{
	void *p;

	(void)flags;
	size = (size + 15) & ~(size_t)15;
	if (size > sizeof(rjem_arena) - rjem_used)
		return NULL;
	p = rjem_arena + rjem_used;
	rjem_used += size;
	return p;
}

NOINLINE void _rjem_sdallocx(void *ptr, size_t size, int flags)
{
	(void)ptr;
	(void)size;
	(void)flags;
}

NOINLINE void *_rjem_rallocx(void *ptr, size_t size, int flags)
{
	void *p = _rjem_mallocx(size, flags);

	if (p)
		memcpy(p, ptr, size);
	return p;
}

SITE void *two_rjem(size_t n)
{
	void *p = _rjem_mallocx(n, 0);

	lg_sink = p;
	return p;
}

SITE void *two_rjem_grow(void *p, size_t n)
{
	void *q = _rjem_rallocx(p, n, 0);

	lg_sink = q;
	return q;
}

SITE void *two_libc(size_t n)
{
	void *p = malloc(n);

	lg_sink = p;
	return p;
}

int main(void)
{
	void *keep[4], *libc[3];
	int i;

	for (i = 0; i < 4; i++) {
		keep[i] = two_rjem(200);
		lg_check(keep[i] != NULL, "_rjem_mallocx failed");
		lg_alloc("two_rjem", 200);
	}
	_rjem_sdallocx(keep[1], 200, 0);
	lg_free("two_rjem", 200);
	keep[2] = two_rjem_grow(keep[2], 500);
	lg_check(keep[2] != NULL, "_rjem_rallocx failed");
	lg_free("two_rjem", 200);
	lg_alloc("two_rjem_grow", 500);

	for (i = 0; i < 3; i++) {
		libc[i] = two_libc(120);
		lg_check(libc[i] != NULL, "malloc failed");
		lg_alloc("two_libc", 120);
	}
	free(libc[0]);
	lg_free("two_libc", 120);
	return lg_write();
}
