// SPDX-License-Identifier: GPL-2.0
/* A seed for the allocator scan: a tiny library that calls itself libc.so.6
 * (-Wl,-soname) and defines the allocator family, test-and-branch entry first. */
#include <stddef.h>

static char arena[1 << 12];
static size_t used;

void *malloc(size_t size)
{
	void *p = arena + used;

	if (!size || size > sizeof(arena) - used)
		return NULL;
	used += size;
	return p;
}

/* cppcheck-suppress constParameter ; free's own prototype */
void free(void *p)
{
	if (!p)
		return;
	used = 0;
}

void *calloc(size_t n, size_t size)
{
	return malloc(n * size);
}

void *realloc(void *p, size_t size)
{
	free(p);
	return malloc(size);
}
