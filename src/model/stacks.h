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
	/* live when the heap was at its peak: as stored, see stacks__at_peak() */
	uint64_t peak_bytes;
	uint64_t peak_count;
	/* its blocks that were freed, and those of them that lived shorter
	 * than the short-lived threshold (see struct stack_hist) */
	uint64_t freed;
	uint64_t short_lived;
	/* held when its process exited: no longer live (several processes) */
	uint64_t exit_bytes;
	uint64_t exit_count;
};

/* log2 histograms of one stack: lifetimes of its freed blocks (bucket 0:
 * under 2^LIFE_HIST_SHIFT ns, bucket i: [2^(i+SHIFT-1), 2^(i+SHIFT)) ns, the
 * last one open), and requested sizes (bucket i: [2^(i-1), 2^i) bytes,
 * bucket 0: 0 bytes, the last one open) */
#define LIFE_HIST_BUCKETS 24
#define LIFE_HIST_SHIFT 10
#define SIZE_HIST_BUCKETS 24
struct stack_hist {
	uint32_t life[LIFE_HIST_BUCKETS];
	uint32_t size[SIZE_HIST_BUCKETS];
};
unsigned int stack_hist__life_bucket(uint64_t ns);
unsigned int stack_hist__size_bucket(uint64_t size);

struct stacks *stacks__new(void);
void stacks__destroy(struct stacks *s);

/* id of the stack (innermost frame first), interned on first sight; 0 on ENOMEM */
uint32_t stacks__intern(struct stacks *s, const uint64_t *frames, uint32_t nframes);
/* ids are 1..count; a released id has no frames and no totals until it is
 * interned again */
uint32_t stacks__count(const struct stacks *s);
/* the stacks held now: count less the released ids not reused yet */
uint32_t stacks__held(const struct stacks *s);
/*
 * The stack goes: nothing refers to it any more (no live block, no copy of
 * it), so its id and memory serve the next stack interned. Its raw frames
 * (stacks__frames) of every stack may move. A table that keeps something by
 * id tells a reused id by its serial.
 */
void stacks__release(struct stacks *s, uint32_t id);
/* from's totals and histograms added to into's (peaks aside: a merge is
 * of stacks no longer live) */
void stacks__merge(struct stacks *s, uint32_t from, uint32_t into);
/* a number no other interning of any id had: 0 for no stack */
uint64_t stacks__serial(const struct stacks *s, uint32_t id);
const uint64_t *stacks__frames(const struct stacks *s, uint32_t id, uint32_t *nframes);
/* the totals of a stack, to change: see stacks__guard(); NULL for no stack */
struct stack_totals *stacks__totals(struct stacks *s, uint32_t id);
/* the totals of a stack, to read */
const struct stack_totals *stacks__peek(const struct stacks *s, uint32_t id);
/*
 * The peak: the heap calls stacks__new_peak() when its live bytes reach a
 * new high, after the change that made it. A stack keeps the peak version
 * of its last change: one not changed since the latest peak holds now what
 * it held then, and its first change after a newer peak saves its value
 * first (in stacks__totals()). O(1) per change.
 */
void stacks__new_peak(struct stacks *s);
/* what the stack held at the latest peak */
void stacks__at_peak(const struct stacks *s, uint32_t id, uint64_t *bytes, uint64_t *count);
/* its histograms, to change or read; NULL for no stack */
struct stack_hist *stacks__hist(const struct stacks *s, uint32_t id);
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
