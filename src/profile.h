/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_PROFILE_H
#define TRACELLOC_PROFILE_H

#include <stdint.h>

#include "heap.h"
#include "stacks.h"
#include "symbolize.h"

struct symbolizer;

/*
 * One model for every output: a read-only snapshot of "stacks with metrics",
 * taken from the heap, with frames named lazily through the symbolizer.
 */
enum metric {
	METRIC_LIVE_BYTES,
	METRIC_LIVE_COUNT,
	METRIC_ALLOC_BYTES,
	METRIC_ALLOC_COUNT,
};

struct profile_stack {
	uint32_t stack_id;
	struct stack_totals totals;
};

struct profile {
	struct profile_stack *stacks;
	size_t count;
	struct heap_stats stats;
	const struct stacks *stack_table;
	struct symbolizer *symbolizer;
};

struct profile *profile__snapshot(struct heap *heap, struct symbolizer *symbolizer);
void profile__destroy(struct profile *p);

uint64_t profile__value(const struct profile_stack *s, enum metric metric);
/* frames of a stack, innermost first (return addresses), ending at the
 * first frame outside every module (shown as "[unknown]") */
const uint64_t *profile__frames(const struct profile *p, const struct profile_stack *s,
				uint32_t *nframes);
/* what is known of a frame (its function, inlined calls, file:line) */
const struct sym_location *profile__locate(const struct profile *p, uint64_t frame);

/* "live", "live-count", "allocated", "count"; -EINVAL for others */
int metric__parse(const char *name, enum metric *metric);

#endif
