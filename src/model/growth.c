// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "growth.h"

struct growth {
	uint32_t window;
	uint32_t nsamples;	/* taken, at most window */
	uint32_t head;		/* where the next sample goes */
	uint64_t *times;	/* [window], ns */
	/* [stack id][window]: live bytes; floats, a sixth of the memory of
	 * exact counts, ample for a slope */
	float *values;
	uint32_t nstacks;	/* rows allocated: ids below */
};

struct growth *growth__new(uint32_t window)
{
	struct growth *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->window = window < 2 ? 2 : window;
	g->times = calloc(g->window, sizeof(*g->times));
	if (!g->times) {
		free(g);
		return NULL;
	}
	return g;
}

void growth__destroy(struct growth *g)
{
	if (!g)
		return;
	free(g->times);
	free(g->values);
	free(g);
}

static int reserve(struct growth *g, uint32_t nstacks)
{
	uint32_t cap = g->nstacks ? g->nstacks : 1024;
	float *grown;

	if (nstacks < g->nstacks)
		return 0;
	while (cap <= nstacks)
		cap *= 2;
	grown = realloc(g->values, (size_t)cap * g->window * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	/* a stack new since: nothing live in the samples before */
	memset(grown + (size_t)g->nstacks * g->window, 0,
	       (size_t)(cap - g->nstacks) * g->window * sizeof(*grown));
	g->values = grown;
	g->nstacks = cap;
	return 0;
}

int growth__sample(struct growth *g, const struct stacks *s, uint64_t now_ns)
{
	uint32_t n = stacks__count(s), id;
	int err = reserve(g, n);

	if (err)
		return err;
	g->times[g->head] = now_ns;
	for (id = 1; id <= n; id++)
		g->values[(size_t)id * g->window + g->head] = (float)stacks__peek(s, id)->live_bytes;
	g->head = (g->head + 1) % g->window;
	if (g->nsamples < g->window)
		g->nsamples++;
	return 0;
}

void growth__forget(struct growth *g, uint32_t id)
{
	if (id < g->nstacks)
		memset(g->values + (size_t)id * g->window, 0, g->window * sizeof(*g->values));
}

uint32_t growth__samples(const struct growth *g)
{
	return g->nsamples;
}

void growth__stat(const struct growth *g, uint32_t id, struct growth_stat *out)
{
	uint32_t n = g->nsamples, i, at;
	double t0, mt = 0, my = 0, sxy = 0, sxx = 0, t, y, prev = 0;
	const float *row;

	memset(out, 0, sizeof(*out));
	if (n < 2 || id >= g->nstacks)
		return;
	row = g->values + (size_t)id * g->window;
	/* the oldest sample first */
	at = (g->head + g->window - n) % g->window;
	t0 = g->times[at] / 1e9;
	for (i = 0; i < n; i++) {
		mt += g->times[(at + i) % g->window] / 1e9 - t0;
		my += row[(at + i) % g->window];
	}
	mt /= n;
	my /= n;
	for (i = 0; i < n; i++) {
		t = g->times[(at + i) % g->window] / 1e9 - t0 - mt;
		y = row[(at + i) % g->window];
		sxy += t * (y - my);
		sxx += t * t;
		if (i && y > prev)
			out->grew++;
		prev = y;
	}
	out->slope = sxx > 0 ? sxy / sxx : 0;
	out->intervals = n - 1;
	out->span_s = g->times[(at + n - 1) % g->window] / 1e9 - t0;
}

double growth__score(const struct growth_stat *st)
{
	return st->intervals ? st->slope * st->grew / st->intervals : 0;
}
