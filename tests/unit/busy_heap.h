/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A heap that changes while a profile of it is taken or written, as the
 * daemon's does when a writer idles: busy_heap__idle(), called as the
 * profile's idle, plays the events read meanwhile. Each call allocates one
 * byte more on every stack of the heap as built (or, with few, on the next
 * BUSY_FEW of them), and makes new stacks, so the table of stacks grows and
 * moves its frames.
 */
#ifndef TRACELLOC_UNIT_BUSY_HEAP_H
#define TRACELLOC_UNIT_BUSY_HEAP_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "profile.h"
#include "test.h"
#include "tracelloc.h"

#define BUSY_MAX_DEPTH 24
#define BUSY_NEW_STACKS 2000	/* made by each idle call */
#define BUSY_FEW 16		/* and with few */

struct busy_heap {
	struct heap *heap;
	uint32_t nstacks;		/* as built: ids 1..nstacks */
	uint64_t *frames;		/* BUSY_MAX_DEPTH per stack */
	uint32_t *depth;
	uint64_t next_addr;
	uint64_t seed;
	unsigned idle_calls;
	bool few;			/* for writers, that idle every stack */
	uint32_t next;			/* with few: the next stack to allocate on */
	int err;			/* of an allocation in an idle call */
};

/* the i-th stack (from 0): size 16 + i % 100 bytes, allocated once, live */
static inline uint64_t busy_heap__size(uint32_t i)
{
	return 16 + i % 100;
}

static inline uint32_t busy_heap__fn(uint32_t i)
{
	return i % 3 ? FN_MALLOC : FN_NEW;
}

/* nstacks distinct stacks of 1 to BUSY_MAX_DEPTH frames from a pool of 4096
 * return addresses; stack i gets id i + 1. 0 or -ENOMEM */
static inline int busy_heap__init(struct busy_heap *b, uint32_t nstacks)
{
	uint32_t i, j;

	memset(b, 0, sizeof(*b));
	b->seed = 1234;
	b->next_addr = 0x10000000;
	b->heap = heap__new();
	b->frames = calloc((size_t)nstacks * BUSY_MAX_DEPTH, sizeof(*b->frames));
	b->depth = calloc(nstacks, sizeof(*b->depth));
	if (!b->heap || !b->frames || !b->depth)
		return -ENOMEM;
	for (i = 0; i < nstacks; i++) {
		uint64_t *f = b->frames + (size_t)i * BUSY_MAX_DEPTH;

		b->depth[i] = 1 + test__rand(&b->seed) % BUSY_MAX_DEPTH;
		for (j = 0; j < b->depth[i]; j++)
			f[j] = 0x400000 + (test__rand(&b->seed) % 4096) * 16;
		/* the index, spelled in the outermost frames: no two stacks alike */
		if (b->depth[i] < 4)
			b->depth[i] = 4;
		f[b->depth[i] - 3] = 0x900000 + (i & 0xff) * 16;
		f[b->depth[i] - 2] = 0x910000 + (i >> 8 & 0xff) * 16;
		f[b->depth[i] - 1] = 0x920000 + (i >> 16) * 16;
		if (heap__alloc(b->heap, 1, b->next_addr, busy_heap__size(i), 0, busy_heap__fn(i), f,
				(int)b->depth[i]))
			return -ENOMEM;
		b->next_addr += 256;
	}
	b->nstacks = nstacks;
	return 0;
}

static inline const uint64_t *busy_heap__frames(const struct busy_heap *b, uint32_t i,
						uint32_t *n)
{
	*n = b->depth[i];
	return b->frames + (size_t)i * BUSY_MAX_DEPTH;
}

static inline void busy_heap__idle(void *ctx)
{
	struct busy_heap *b = ctx;
	uint64_t f[2];
	uint32_t i;

	uint32_t n = b->few ? BUSY_FEW : b->nstacks, k;

	b->idle_calls++;
	for (k = 0; k < n && !b->err; k++) {
		i = b->few ? b->next++ % b->nstacks : k;
		b->err = heap__alloc(b->heap, 1, b->next_addr, 1, 0, busy_heap__fn(i),
				     b->frames + (size_t)i * BUSY_MAX_DEPTH, (int)b->depth[i]);
		b->next_addr += 256;
	}
	for (i = 0; i < (b->few ? BUSY_FEW : BUSY_NEW_STACKS) && !b->err; i++) {
		f[0] = 0xa00000 + b->idle_calls;
		f[1] = 0xb00000 + i;
		b->err = heap__alloc(b->heap, 1, b->next_addr, 1, 0, FN_MALLOC, f, 2);
		b->next_addr += 256;
	}
}

/* the profile's idle: every call of profile__idle */
static inline void busy_heap__attach(struct busy_heap *b, struct profile_opts *opts)
{
	opts->idle = busy_heap__idle;
	opts->idle_ctx = b;
	opts->idle_every_ns = 1;
}

static inline void busy_heap__destroy(struct busy_heap *b)
{
	heap__destroy(b->heap);
	free(b->frames);
	free(b->depth);
}

#endif
