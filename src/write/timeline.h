/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_TIMELINE_H
#define TRACELLOC_TIMELINE_H

#include <stdint.h>
#include <stdio.h>

#include "profile.h"
#include "stacks.h"

/*
 * --timeline: live bytes over the whole trace, one point per interval: each
 * stack's live bytes (those that hold any), and the traced processes' RSS.
 * Written as one self-contained HTML page with an SVG chart: the top 10
 * stacks stacked, the rest as one band, the RSS as a line. A long trace
 * keeps at most TIMELINE_POINTS points: past that, every other one goes.
 */
struct timeline;

#define TIMELINE_POINTS 1000
#define TIMELINE_BANDS 10

struct timeline *timeline__new(void);
void timeline__destroy(struct timeline *t);
/* a point at at_s (seconds since tracing began); negative errno */
int timeline__sample(struct timeline *t, const struct stacks *s, double at_s, uint64_t rss_bytes);
/* the page; p names the stacks (a snapshot of the same heap) */
int timeline__write(FILE *out, const struct timeline *t, struct profile *p, const char *title);

#endif
