// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "stacks.h"

struct stack {
	uint64_t hash;		/* 0: a released id */
	uint64_t serial;
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
	size_t arena_dead;	/* frames of released stacks, left in the arena */
	uint32_t *free_ids;	/* released ids, to reuse */
	uint32_t nfree;
	size_t free_cap;
	uint64_t serials;
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
	free(s->free_ids);
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
		if (!s->stacks[id].hash)
			continue;
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

static int grow_arena(struct stacks *s, uint32_t n)
{
	size_t cap = s->arena_cap ? s->arena_cap * 2 : 4096;
	uint64_t *grown;

	if (s->arena_len + n <= s->arena_cap)
		return 0;
	while (cap < s->arena_len + n)
		cap *= 2;
	grown = realloc(s->arena, cap * sizeof(*grown));
	if (!grown)
		return -1;
	s->arena = grown;
	s->arena_cap = cap;
	return 0;
}

static uint32_t add_stack(struct stacks *s, const uint64_t *frames, uint32_t n, uint64_t hash)
{
	struct stack *st;
	uint32_t id;

	if (!s->nfree && s->count + 1 >= s->stacks_cap) {
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
	if (grow_arena(s, n))
		return 0;
	if (n)
		memcpy(s->arena + s->arena_len, frames, n * sizeof(*frames));
	id = s->nfree ? s->free_ids[--s->nfree] : ++s->count;
	st = &s->stacks[id];
	memset(st, 0, sizeof(*st));
	memset(&s->hists[id], 0, sizeof(s->hists[0]));
	st->hash = hash;
	st->serial = ++s->serials;
	st->frames_off = s->arena_len;
	st->nframes = n;
	s->arena_len += n;
	return id;
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
	if ((s->count - s->nfree + 1) * 2 > s->index_cap) {
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

uint32_t stacks__held(const struct stacks *s)
{
	return s->count - s->nfree;
}

/* the arena holds the held stacks' frames alone, in id order */
static void compact_arena(struct stacks *s)
{
	size_t cap = s->arena_len - s->arena_dead + 1, len = 0;
	uint64_t *arena = malloc(cap * sizeof(*arena));
	uint32_t id;

	if (!arena)
		return;
	for (id = 1; id <= s->count; id++) {
		struct stack *st = &s->stacks[id];

		if (!st->hash)
			continue;
		memcpy(arena + len, s->arena + st->frames_off, st->nframes * sizeof(*arena));
		st->frames_off = len;
		len += st->nframes;
	}
	free(s->arena);
	s->arena = arena;
	s->arena_len = len;
	s->arena_cap = cap;
	s->arena_dead = 0;
}

void stacks__release(struct stacks *s, uint32_t id)
{
	size_t i, j, want, cap = s->index_cap;
	struct stack *st;

	if (!id || id > s->count || !s->stacks[id].hash)
		return;
	st = &s->stacks[id];
	/* kept if there is no room: the memory of one stack */
	if (ARRAY_RESERVE(s->free_ids, &s->free_cap, s->nfree + 1, 256))
		return;
	for (i = st->hash & (cap - 1); s->index[i] != id; i = (i + 1) & (cap - 1))
		if (!s->index[i])
			return;
	/* linear probing's deletion: each later entry of the run moves back
	 * into the hole unless its own place lies after the hole */
	for (j = (i + 1) & (cap - 1); s->index[j]; j = (j + 1) & (cap - 1)) {
		want = s->stacks[s->index[j]].hash & (cap - 1);
		if (((j - want) & (cap - 1)) >= ((j - i) & (cap - 1))) {
			s->index[i] = s->index[j];
			i = j;
		}
	}
	s->index[i] = 0;
	s->arena_dead += st->nframes;
	memset(st, 0, sizeof(*st));
	memset(&s->hists[id], 0, sizeof(s->hists[0]));
	s->free_ids[s->nfree++] = id;
	if (s->arena_dead > 65536 && s->arena_dead * 2 > s->arena_len)
		compact_arena(s);
}

void stacks__merge(struct stacks *s, uint32_t from, uint32_t into)
{
	struct stack_totals *t = stacks__totals(s, into);
	const struct stack_totals *f = stacks__peek(s, from);
	struct stack_hist *hf = stacks__hist(s, from), *ht = stacks__hist(s, into);
	unsigned int i;

	if (!t || !f || from == into)
		return;
	t->live_bytes += f->live_bytes;
	t->live_count += f->live_count;
	t->alloc_bytes += f->alloc_bytes;
	t->alloc_count += f->alloc_count;
	t->freed += f->freed;
	t->short_lived += f->short_lived;
	t->exit_bytes += f->exit_bytes;
	t->exit_count += f->exit_count;
	for (i = 0; i < LIFE_HIST_BUCKETS; i++)
		ht->life[i] += hf->life[i];
	for (i = 0; i < SIZE_HIST_BUCKETS; i++)
		ht->size[i] += hf->size[i];
	stacks__set_fn(s, into, stacks__fn(s, from));
}

uint64_t stacks__serial(const struct stacks *s, uint32_t id)
{
	return id && id <= s->count ? s->stacks[id].serial : 0;
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
	       s->arena_cap * sizeof(*s->arena) + s->index_cap * sizeof(*s->index) +
	       s->free_cap * sizeof(*s->free_ids);
}
