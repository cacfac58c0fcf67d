// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>

#include "heap.h"
#include "table.h"

struct heap {
	struct table *live;	/* addr -> struct live_block */
	struct table *in_realloc; /* tid -> struct pending_block */
	struct stacks *stacks;
	struct heap_stats stats;
};

/* a block handed to a realloc that has not returned yet */
struct pending_block {
	uint64_t addr;
	struct live_block block;
};

struct heap *heap__new(void)
{
	struct heap *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->live = table__new(sizeof(struct live_block));
	h->in_realloc = table__new(sizeof(struct pending_block));
	h->stacks = stacks__new();
	if (!h->live || !h->in_realloc || !h->stacks) {
		heap__destroy(h);
		return NULL;
	}
	return h;
}

void heap__destroy(struct heap *h)
{
	if (!h)
		return;
	table__destroy(h->live);
	table__destroy(h->in_realloc);
	stacks__destroy(h->stacks);
	free(h);
}

static void release(struct heap *h, const struct live_block *b)
{
	struct stack_totals *t = stacks__totals(h->stacks, b->stack_id);

	if (t) {
		t->live_bytes -= b->size;
		t->live_count--;
	}
	h->stats.live_bytes -= b->size;
	h->stats.live_count--;
}

static void restore(struct heap *h, uint64_t addr, const struct live_block *b)
{
	struct live_block *slot = table__upsert(h->live, addr, NULL);
	struct stack_totals *t = stacks__totals(h->stacks, b->stack_id);

	if (!slot)
		return;
	*slot = *b;
	if (t) {
		t->live_bytes += b->size;
		t->live_count++;
	}
	h->stats.live_bytes += b->size;
	h->stats.live_count++;
}

int heap__alloc(struct heap *h, uint32_t tid, uint64_t addr, uint64_t size, uint64_t birth_ns,
		uint32_t fn, const uint64_t *frames, int nframes)
{
	struct stack_totals *totals;
	struct live_block *b;
	uint32_t stack_id;
	bool existed;

	(void)tid;
	if (nframes < 0) {
		h->stats.failed_stacks++;
		nframes = 0;
	}
	stack_id = stacks__intern(h->stacks, frames, nframes);
	if (!stack_id)
		return -ENOMEM;
	b = table__upsert(h->live, addr, &existed);
	if (!b)
		return -ENOMEM;
	if (existed) {
		/* the free of the previous block at addr never reached us */
		h->stats.reused_live++;
		release(h, b);
	}
	b->size = size;
	b->birth_ns = birth_ns;
	b->stack_id = stack_id;
	b->fn = fn;

	stacks__set_fn(h->stacks, stack_id, fn);
	totals = stacks__totals(h->stacks, stack_id);
	totals->live_bytes += size;
	totals->live_count++;
	totals->alloc_bytes += size;
	totals->alloc_count++;
	h->stats.alloc_calls++;
	h->stats.alloc_bytes += size;
	h->stats.live_bytes += size;
	h->stats.live_count++;
	return 0;
}

void heap__free(struct heap *h, uint32_t tid, uint64_t addr)
{
	struct pending_block *pending;
	struct live_block b;

	if (!table__remove(h->live, addr, &b)) {
		release(h, &b);
		h->stats.frees++;
		return;
	}
	/* realloc(p, 0) ends with a free of the block its begin set aside */
	pending = table__lookup(h->in_realloc, tid);
	if (pending && pending->addr == addr) {
		table__remove(h->in_realloc, tid, NULL);
		h->stats.frees++;
		return;
	}
	h->stats.unknown_frees++;
}

void heap__exit_free(struct heap *h, uint32_t tid, uint64_t addr)
{
	struct live_block b;

	if (table__remove(h->live, addr, &b)) {
		h->stats.exit_cache_frees++;
		return;
	}
	release(h, &b);
	h->stats.frees++;
}

void heap__realloc_begin(struct heap *h, uint32_t tid, uint64_t addr)
{
	struct pending_block *pending;
	struct live_block b;
	bool existed;

	if (table__remove(h->live, addr, &b))
		return;	/* not ours: the end of the call counts the unknown free */
	release(h, &b);
	pending = table__upsert(h->in_realloc, tid, &existed);
	if (!pending)
		return;
	if (existed)	/* the end of an earlier realloc on this thread was lost */
		restore(h, pending->addr, &pending->block);
	pending->addr = addr;
	pending->block = b;
}

void heap__realloc_failed(struct heap *h, uint32_t tid, uint64_t addr)
{
	struct pending_block pending;

	if (table__remove(h->in_realloc, tid, &pending))
		return;
	/* a mismatch means an event was lost; the set-aside block is live either way */
	restore(h, pending.addr, &pending.block);
}

int heap__realloc_done(struct heap *h, uint32_t tid, uint64_t old_addr, uint64_t addr,
		       uint64_t size, uint64_t birth_ns, uint32_t fn, const uint64_t *frames,
		       int nframes)
{
	struct pending_block pending;

	if (old_addr) {
		if (table__remove(h->in_realloc, tid, &pending)) {
			/* the begin event was lost, or old_addr predates us */
			heap__free(h, tid, old_addr);
		} else if (pending.addr == old_addr) {
			h->stats.frees++;
		} else {
			restore(h, pending.addr, &pending.block);
			heap__free(h, tid, old_addr);
		}
	}
	return heap__alloc(h, tid, addr, size, birth_ns, fn, frames, nframes);
}

void heap__finish(struct heap *h)
{
	struct pending_block *pending;
	size_t pos = 0;
	uint64_t tid;

	while ((pending = table__next(h->in_realloc, &pos, &tid)))
		restore(h, pending->addr, &pending->block);
	table__clear(h->in_realloc);
}

const struct heap_stats *heap__stats(const struct heap *h)
{
	return &h->stats;
}

struct stacks *heap__stacks(struct heap *h)
{
	return h->stacks;
}

const struct live_block *heap__next_live(const struct heap *h, size_t *pos, uint64_t *addr)
{
	return table__next(h->live, pos, addr);
}

size_t heap__memory(const struct heap *h)
{
	return sizeof(*h) + table__memory(h->live) + table__memory(h->in_realloc) +
	       stacks__memory(h->stacks);
}
