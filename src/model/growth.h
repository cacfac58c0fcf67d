/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_GROWTH_H
#define TRACELLOC_GROWTH_H

#include <stdint.h>

#include "stacks.h"

/*
 * How steadily each stack grows (--sort growth): its live bytes, sampled at
 * every tick over a window of the last N ticks. A leak rises tick after
 * tick; a cache or a pool rises once and holds still. Ranked by the least
 * squares slope in bytes/s, weighted by the share of intervals in which the
 * stack grew.
 */
struct growth;

struct growth_stat {
	double slope;		/* bytes/s over the window, least squares */
	uint32_t grew;		/* intervals in which its live bytes rose */
	uint32_t intervals;	/* intervals in the window (samples - 1) */
	double span_s;		/* from the window's first sample to its last */
};

/* window: samples kept (at least 2); NULL on ENOMEM */
struct growth *growth__new(uint32_t window);
void growth__destroy(struct growth *g);
/* every stack's live bytes now (stacks interned since count from 0); negative errno */
int growth__sample(struct growth *g, const struct stacks *s, uint64_t now_ns);
/* the window of stack id as it is now; all 0 before two samples */
void growth__stat(const struct growth *g, uint32_t id, struct growth_stat *out);
/* what the ranking sorts by: slope x grew / intervals */
double growth__score(const struct growth_stat *st);
/* samples taken (at most the window) */
uint32_t growth__samples(const struct growth *g);
/* the stack id was released: its history goes (the id's next stack starts afresh) */
void growth__forget(struct growth *g, uint32_t id);

#endif
