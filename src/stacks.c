// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "stacks.h"

struct stack {
	uint64_t hash;
	size_t frames_off;	/* into the frame arena */
	uint32_t nframes;
	uint32_t fn;
	uint32_t changed_at;	/* the peak version of its last change */
	struct stack_totals totals;
};

struct stacks {
	struct stack *stacks;	/* by id; slot 0 unused */
	struct stack_hist *hists; /* by id, beside stacks */
	uint32_t peak_version;	/* bumped at each new peak; 1 before the first */
	uint32_t count;
	uint32_t stacks_cap;
	uint64_t *arena;	/* frames of all stacks, back to back */
	size_t arena_len;
	size_t arena_cap;
	uint32_t *index;	/* open addressing over ids, 0 = empty */
	size_t index_cap;	/* a power of two */
	/* stacks__guard() */
	uint32_t guard_first, guard_last;
	void (*before_change)(void *ctx, uint32_t id);
	void *guard_ctx;
};

static uint64_t hash_frames(const uint64_t *frames, uint32_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ n;
	uint32_t i;

	for (i = 0; i < n; i++) {
		h ^= frames[i];
		h *= 0x100000001b3ULL;
		h ^= h >> 29;
	}
	return h | 1;
}

struct stacks *stacks__new(void)
{
	struct stacks *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->index_cap = 1024;
	s->index = calloc(s->index_cap, sizeof(*s->index));
	s->stacks_cap = 256;
	s->stacks = calloc(s->stacks_cap, sizeof(*s->stacks));
	s->hists = calloc(s->stacks_cap, sizeof(*s->hists));
	s->peak_version = 1;
	if (!s->index || !s->stacks || !s->hists) {
		stacks__destroy(s);
		return NULL;
	}
	s->count = 0;
	s->guard_first = 1;
	return s;
}

void stacks__destroy(struct stacks *s)
{
	if (!s)
		return;
	free(s->stacks);
	free(s->hists);
	free(s->arena);
	free(s->index);
	free(s);
}

static int grow_index(struct stacks *s)
{
	size_t cap = s->index_cap * 2, i;
	uint32_t *index = calloc(cap, sizeof(*index));
	uint32_t id;

	if (!index)
		return -1;
	for (id = 1; id <= s->count; id++) {
		i = s->stacks[id].hash & (cap - 1);
		while (index[i])
			i = (i + 1) & (cap - 1);
		index[i] = id;
	}
	free(s->index);
	s->index = index;
	s->index_cap = cap;
	return 0;
}

static uint32_t add_stack(struct stacks *s, const uint64_t *frames, uint32_t n, uint64_t hash)
{
	struct stack *st;

	if (s->count + 1 >= s->stacks_cap) {
		uint32_t cap = s->stacks_cap * 2;
		struct stack *grown = realloc(s->stacks, cap * sizeof(*grown));
		struct stack_hist *hists;

		if (!grown)
			return 0;
		s->stacks = grown;
		hists = realloc(s->hists, cap * sizeof(*hists));
		if (!hists)
			return 0;
		s->hists = hists;
		s->stacks_cap = cap;
	}
	if (s->arena_len + n > s->arena_cap) {
		size_t cap = s->arena_cap ? s->arena_cap * 2 : 4096;
		uint64_t *grown;

		while (cap < s->arena_len + n)
			cap *= 2;
		grown = realloc(s->arena, cap * sizeof(*grown));
		if (!grown)
			return 0;
		s->arena = grown;
		s->arena_cap = cap;
	}
	if (n)
		memcpy(s->arena + s->arena_len, frames, n * sizeof(*frames));
	st = &s->stacks[++s->count];
	memset(st, 0, sizeof(*st));
	memset(&s->hists[s->count], 0, sizeof(s->hists[0]));
	st->hash = hash;
	st->frames_off = s->arena_len;
	st->nframes = n;
	s->arena_len += n;
	return s->count;
}

uint32_t stacks__intern(struct stacks *s, const uint64_t *frames, uint32_t nframes)
{
	uint64_t hash = hash_frames(frames, nframes);
	size_t i = hash & (s->index_cap - 1);
	uint32_t id;

	for (; (id = s->index[i]); i = (i + 1) & (s->index_cap - 1)) {
		const struct stack *st = &s->stacks[id];

		if (st->hash == hash && st->nframes == nframes &&
		    (!nframes ||
		     !memcmp(s->arena + st->frames_off, frames, nframes * sizeof(*frames))))
			return id;
	}
	if ((s->count + 1) * 2 > s->index_cap) {
		if (grow_index(s))
			return 0;
		i = hash & (s->index_cap - 1);
		while (s->index[i])
			i = (i + 1) & (s->index_cap - 1);
	}
	id = add_stack(s, frames, nframes, hash);
	if (id)
		s->index[i] = id;
	return id;
}

uint32_t stacks__count(const struct stacks *s)
{
	return s->count;
}

const uint64_t *stacks__frames(const struct stacks *s, uint32_t id, uint32_t *nframes)
{
	if (!id || id > s->count) {
		*nframes = 0;
		return NULL;
	}
	*nframes = s->stacks[id].nframes;
	return *nframes ? s->arena + s->stacks[id].frames_off : NULL;
}

void stacks__set_fn(struct stacks *s, uint32_t id, uint32_t fn)
{
	if (!id || id > s->count || s->stacks[id].fn)
		return;
	if (id >= s->guard_first && id <= s->guard_last)
		s->before_change(s->guard_ctx, id);
	s->stacks[id].fn = fn;
}

uint32_t stacks__fn(const struct stacks *s, uint32_t id)
{
	return id && id <= s->count ? s->stacks[id].fn : 0;
}

struct stack_totals *stacks__totals(struct stacks *s, uint32_t id)
{
	struct stack *st;

	if (!id || id > s->count)
		return NULL;
	if (id >= s->guard_first && id <= s->guard_last)
		s->before_change(s->guard_ctx, id);
	st = &s->stacks[id];
	/* its first change since the latest peak: what it held then */
	if (st->changed_at != s->peak_version) {
		st->totals.peak_bytes = st->totals.live_bytes;
		st->totals.peak_count = st->totals.live_count;
		st->changed_at = s->peak_version;
	}
	return &st->totals;
}

void stacks__new_peak(struct stacks *s)
{
	s->peak_version++;
}

void stacks__at_peak(const struct stacks *s, uint32_t id, uint64_t *bytes, uint64_t *count)
{
	const struct stack *st;

	*bytes = *count = 0;
	if (!id || id > s->count)
		return;
	st = &s->stacks[id];
	if (st->changed_at != s->peak_version) {
		*bytes = st->totals.live_bytes;
		*count = st->totals.live_count;
	} else {
		*bytes = st->totals.peak_bytes;
		*count = st->totals.peak_count;
	}
}

struct stack_hist *stacks__hist(const struct stacks *s, uint32_t id)
{
	return id && id <= s->count ? &s->hists[id] : NULL;
}

unsigned int stack_hist__life_bucket(uint64_t ns)
{
	unsigned int b = ns ? 64 - __builtin_clzll(ns) : 0;	/* bits: ns < 2^b */

	b = b > LIFE_HIST_SHIFT ? b - LIFE_HIST_SHIFT : 0;
	return b < LIFE_HIST_BUCKETS ? b : LIFE_HIST_BUCKETS - 1;
}

unsigned int stack_hist__size_bucket(uint64_t size)
{
	unsigned int b = size ? 64 - __builtin_clzll(size) : 0;

	return b < SIZE_HIST_BUCKETS ? b : SIZE_HIST_BUCKETS - 1;
}

const struct stack_totals *stacks__peek(const struct stacks *s, uint32_t id)
{
	return id && id <= s->count ? &s->stacks[id].totals : NULL;
}

void stacks__guard(struct stacks *s, uint32_t first, uint32_t last,
		   void (*before_change)(void *ctx, uint32_t id), void *ctx)
{
	if (!before_change) {
		first = 1;
		last = 0;
	}
	s->guard_first = first;
	s->guard_last = last;
	s->before_change = before_change;
	s->guard_ctx = ctx;
}

size_t stacks__memory(const struct stacks *s)
{
	return sizeof(*s) + s->stacks_cap * (sizeof(*s->stacks) + sizeof(*s->hists)) +
	       s->arena_cap * sizeof(*s->arena) + s->index_cap * sizeof(*s->index);
}
