// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "symbolize.h"

struct profile *profile__snapshot(struct heap *heap, struct symbolizer *symbolizer)
{
	struct stacks *stacks = heap__stacks(heap);
	uint32_t n = stacks__count(stacks), id;
	struct profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->stacks = calloc(n ? n : 1, sizeof(*p->stacks));
	if (!p->stacks) {
		free(p);
		return NULL;
	}
	for (id = 1; id <= n; id++) {
		p->stacks[p->count].stack_id = id;
		p->stacks[p->count].totals = *stacks__totals(stacks, id);
		p->count++;
	}
	p->stats = *heap__stats(heap);
	p->stack_table = stacks;
	p->symbolizer = symbolizer;
	return p;
}

void profile__destroy(struct profile *p)
{
	if (!p)
		return;
	free(p->stacks);
	free(p);
}

uint64_t profile__value(const struct profile_stack *s, enum metric metric)
{
	switch (metric) {
	case METRIC_LIVE_BYTES: return s->totals.live_bytes;
	case METRIC_LIVE_COUNT: return s->totals.live_count;
	case METRIC_ALLOC_BYTES: return s->totals.alloc_bytes;
	case METRIC_ALLOC_COUNT: return s->totals.alloc_count;
	}
	return 0;
}

const uint64_t *profile__frames(const struct profile *p, const struct profile_stack *s,
				uint32_t *nframes)
{
	const uint64_t *frames = stacks__frames(p->stack_table, s->stack_id, nframes);
	uint32_t i;

	/* a frame-pointer walk through code that uses rbp for data goes on with
	 * garbage: stop after the first frame that lies in no module */
	for (i = 0; i < *nframes && p->symbolizer; i++) {
		if (!symbolizer__in_module(p->symbolizer, frames[i])) {
			*nframes = i + 1;
			break;
		}
	}
	return frames;
}

const struct sym_location *profile__locate(const struct profile *p, uint64_t frame)
{
	static const struct sym_frame unknown_frame = { .function = "[unknown]" };
	static const struct sym_location unknown = { .nframes = 1, .frames = &unknown_frame };

	return p->symbolizer ? symbolizer__locate(p->symbolizer, frame) : &unknown;
}

static const char *const metric_names[] = {
	[METRIC_LIVE_BYTES] = "live",
	[METRIC_LIVE_COUNT] = "live-count",
	[METRIC_ALLOC_BYTES] = "allocated",
	[METRIC_ALLOC_COUNT] = "count",
};

int metric__parse(const char *name, enum metric *metric)
{
	size_t i;

	for (i = 0; i < sizeof(metric_names) / sizeof(metric_names[0]); i++) {
		if (!strcmp(name, metric_names[i])) {
			*metric = i;
			return 0;
		}
	}
	return -EINVAL;
}
