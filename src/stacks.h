/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_STACKS_H
#define TRACELLOC_STACKS_H

#include <stdint.h>
#include <stddef.h>

/*
 * Interned call stacks with their allocation totals: a million live blocks
 * from 50 call sites hold 50 stacks. Stack ids are dense, starting at 1.
 */
struct stacks;

struct stack_totals {
	uint64_t live_bytes;
	uint64_t live_count;
	uint64_t alloc_bytes;
	uint64_t alloc_count;
};

struct stacks *stacks__new(void);
void stacks__destroy(struct stacks *s);

/* id of the stack (innermost frame first), interned on first sight; 0 on ENOMEM */
uint32_t stacks__intern(struct stacks *s, const uint64_t *frames, uint32_t nframes);
/* number of stacks; valid ids are 1..count */
uint32_t stacks__count(const struct stacks *s);
const uint64_t *stacks__frames(const struct stacks *s, uint32_t id, uint32_t *nframes);
/* the totals of a stack, to change: see stacks__guard(); NULL for no stack */
struct stack_totals *stacks__totals(struct stacks *s, uint32_t id);
/* the totals of a stack, to read */
const struct stack_totals *stacks__peek(const struct stacks *s, uint32_t id);
/*
 * For a copy of the totals made a piece at a time, as of one moment: from now
 * on, stacks__totals() and stacks__set_fn() call before_change(ctx, id)
 * before they hand out or change a stack in first..last, so the copy can take
 * it as it was. first > last, or before_change NULL: none.
 */
void stacks__guard(struct stacks *s, uint32_t first, uint32_t last,
		   void (*before_change)(void *ctx, uint32_t id), void *ctx);
/* the allocator function (enum alloc_fn) called from a stack: its return
 * address names one call instruction, so the first one seen is the one */
void stacks__set_fn(struct stacks *s, uint32_t id, uint32_t fn);
uint32_t stacks__fn(const struct stacks *s, uint32_t id);
size_t stacks__memory(const struct stacks *s);

#endif
