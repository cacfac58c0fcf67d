// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "heap.h"
#include "tracelloc.h"
#include "ranges.h"
#include "table.h"

/* a stack's frames, and its thread's and process's */
#define MAX_COPY_FRAMES HEAP_MAX_FRAMES

struct heap {
	uint64_t sample_bytes;	/* 0: every call is seen; else blocks are samples */
	uint64_t now_ns;	/* heap__set_clock() */
	uint64_t short_lived_ns;
	bool histograms;	/* heap__set_histograms() */
	struct table *live;	/* addr -> struct live_block */
	struct table *in_realloc; /* tid -> struct pending_block */
	struct ranges *mappings; /* the pages of the blocks that are mappings */
	/* the program's address space reserved with PROT_NONE: no memory
	 * until an mprotect makes pages of it accessible */
	struct ranges *reserved;
	/* addr -> struct heap_weighed: the program's big mappings, counted by
	 * their pages in memory (heap__set_resident) */
	struct table *weighed;
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
	h->mappings = ranges__new();
	h->reserved = ranges__new();
	h->weighed = table__new(sizeof(struct heap_weighed));
	h->short_lived_ns = 1000000;
	if (!h->live || !h->in_realloc || !h->stacks || !h->mappings ||
	    !h->reserved || !h->weighed) {
		heap__destroy(h);
		return NULL;
	}
	return h;
}

void heap__set_sampling(struct heap *h, uint64_t sample_bytes)
{
	h->sample_bytes = sample_bytes;
}

void heap__set_short_lived(struct heap *h, uint64_t ns)
{
	h->short_lived_ns = ns;
}

void heap__set_histograms(struct heap *h, bool on)
{
	h->histograms = on;
}

void heap__set_clock(struct heap *h, uint64_t now_ns)
{
	h->now_ns = now_ns;
}

/* live bytes went up: a new peak? (stacks__new_peak) */
static void check_peak(struct heap *h, uint64_t when_ns)
{
	if (h->stats.live_bytes <= h->stats.peak_live_bytes)
		return;
	h->stats.peak_live_bytes = h->stats.live_bytes;
	h->stats.peak_live_count = h->stats.live_count;
	h->stats.peak_ns = when_ns;
	stacks__new_peak(h->stacks);
}

void heap__destroy(struct heap *h)
{
	if (!h)
		return;
	table__destroy(h->live);
	table__destroy(h->in_realloc);
	stacks__destroy(h->stacks);
	ranges__destroy(h->mappings);
	ranges__destroy(h->reserved);
	table__destroy(h->weighed);
	free(h);
}

/*
 * What one block stands for. Traced in full: itself. Sampled: a block of s
 * bytes was sampled with probability 1 - exp(-s/N), so it stands for
 * 1 / that many blocks like it. Recomputed from the size on release, so no
 * block stores its weight.
 */
static void weigh(const struct heap *h, uint64_t size, uint64_t *bytes, uint64_t *count)
{
	double w;

	if (!h->sample_bytes) {
		*bytes = size;
		*count = 1;
		return;
	}
	w = 1.0 / -expm1(-(double)(size ? size : 1) / h->sample_bytes);
	*bytes = llround(size * w);
	*count = llround(w);
}

void heap__weigh(const struct heap *h, uint64_t size, uint64_t *bytes, uint64_t *count)
{
	weigh(h, size, bytes, count);
}

static uint64_t weight_count(const struct heap *h, uint64_t size)
{
	uint64_t bytes, count;

	weigh(h, size, &bytes, &count);
	return count;
}

static bool weighable(const struct live_block *b)
{
	uint32_t fn = b->fn & 0xff;

	return b->size >= HEAP_WEIGHED_MIN &&
	       (fn == FN_MMAP || fn == FN_MREMAP || fn == FN_MPROTECT);
}

/* what the block at addr counts for: a big mapping, its pages in memory
 * as last measured (none before the first measurement) */
static void block_weight(const struct heap *h, uint64_t addr, const struct live_block *b,
			 uint64_t *bytes, uint64_t *count)
{
	const struct heap_weighed *w;

	weigh(h, b->size, bytes, count);
	if (!weighable(b))
		return;
	w = table__lookup(h->weighed, addr);
	*bytes = w ? w->resident : 0;
}

void heap__block_weight(const struct heap *h, uint64_t addr, const struct live_block *b,
			uint64_t *bytes, uint64_t *count)
{
	block_weight(h, addr, b, bytes, count);
}

uint64_t heap__block_bytes(const struct heap *h, uint64_t addr, const struct live_block *b)
{
	const struct heap_weighed *w;

	if (!weighable(b))
		return b->size;
	w = table__lookup(h->weighed, addr);
	return w ? w->resident : 0;
}

/* a big mapping is live at addr: measured as resident bytes of it, or due */
static void weigh_from(struct heap *h, uint64_t addr, const struct live_block *b,
		       uint64_t resident)
{
	struct heap_weighed *w;

	if (!weighable(b))
		return;
	w = table__upsert(h->weighed, addr, NULL);
	if (w)
		*w = (struct heap_weighed){ .resident = resident < b->size ? resident : b->size };
}

/* the block at addr is no longer live; its stack's totals, or NULL */
static struct stack_totals *release(struct heap *h, uint64_t addr, const struct live_block *b)
{
	struct stack_totals *t = stacks__totals(h->stacks, b->stack_id);
	uint64_t bytes, count;

	block_weight(h, addr, b, &bytes, &count);
	if (weighable(b))
		table__remove(h->weighed, addr, NULL);
	if (t) {
		t->live_bytes -= bytes;
		t->live_count -= count;
	}
	h->stats.live_bytes -= bytes;
	h->stats.live_count -= count;
	return t;
}

/* a block is gone for good: a free (or as many as it stands for), at the
 * time of the record; t: its stack's totals, as release() gave them */
static void count_free(struct heap *h, const struct live_block *b, struct stack_totals *t)
{
	uint64_t count = weight_count(h, b->size);
	uint64_t life = h->now_ns > b->birth_ns ? h->now_ns - b->birth_ns : 0;

	h->stats.frees += count;
	if (!t)
		return;
	t->freed += count;
	if (life < h->short_lived_ns)
		t->short_lived += count;
	if (h->histograms)
		stacks__hist(h->stacks, b->stack_id)->life[stack_hist__life_bucket(life)]++;
}

static void free_block(struct heap *h, uint64_t addr, const struct live_block *b)
{
	count_free(h, b, release(h, addr, b));
}

/* b is live at addr again (or anew: a copy, a piece); a big mapping counts
 * resident bytes until measured */
static void restore_weighed(struct heap *h, uint64_t addr, const struct live_block *b,
			    uint64_t resident)
{
	struct live_block *slot = table__upsert(h->live, addr, NULL);
	struct stack_totals *t = stacks__totals(h->stacks, b->stack_id);
	uint64_t bytes, count;

	if (!slot)
		return;
	*slot = *b;
	weigh_from(h, addr, b, resident);
	block_weight(h, addr, b, &bytes, &count);
	if (t) {
		t->live_bytes += bytes;
		t->live_count += count;
	}
	h->stats.live_bytes += bytes;
	h->stats.live_count += count;
	check_peak(h, h->now_ns > b->birth_ns ? h->now_ns : b->birth_ns);
}

static void restore(struct heap *h, uint64_t addr, const struct live_block *b)
{
	restore_weighed(h, addr, b, 0);
}

/* the stack of a record, interned; 0 when out of memory */
static uint32_t record_stack(struct heap *h, const uint64_t *frames, int nframes)
{
	if (nframes < 0) {
		h->stats.failed_stacks++;
		nframes = 0;
	}
	return stacks__intern(h->stacks, frames, nframes);
}

/* an allocation call of size at the stack: its totals and its histogram */
static void count_call(struct heap *h, uint32_t stack_id, uint32_t fn, uint64_t size)
{
	struct stack_totals *totals = stacks__totals(h->stacks, stack_id);
	uint64_t bytes, count;

	weigh(h, size, &bytes, &count);
	stacks__set_fn(h->stacks, stack_id, fn);
	totals->alloc_bytes += bytes;
	totals->alloc_count += count;
	h->stats.alloc_calls += count;
	h->stats.alloc_bytes += bytes;
	if (h->histograms)
		stacks__hist(h->stacks, stack_id)->size[stack_hist__size_bucket(size)]++;
}

/* a live block; counted as an allocation call or not (a runtime's own
 * mapping, whose objects its allocator's calls count) */
static int add_block(struct heap *h, uint64_t addr, uint64_t size, uint64_t birth_ns, uint32_t fn,
		     const uint64_t *frames, int nframes, bool a_call)
{
	struct stack_totals *totals;
	uint32_t stack_id = record_stack(h, frames, nframes);
	uint64_t bytes, count;
	struct live_block *b;
	bool existed;

	if (!stack_id)
		return -ENOMEM;
	b = table__upsert(h->live, addr, &existed);
	if (!b)
		return -ENOMEM;
	if (existed) {
		/* the free of the previous block at addr never reached us */
		h->stats.reused_live++;
		release(h, addr, b);
	}
	b->size = size;
	b->birth_ns = birth_ns;
	b->stack_id = stack_id;
	b->fn = fn;

	if (a_call)
		count_call(h, stack_id, fn, size);
	else
		stacks__set_fn(h->stacks, stack_id, fn);
	/* a big mapping of the program's: none of it in memory yet */
	weigh_from(h, addr, b, 0);
	block_weight(h, addr, b, &bytes, &count);
	totals = stacks__totals(h->stacks, stack_id);
	totals->live_bytes += bytes;
	totals->live_count += count;
	h->stats.live_bytes += bytes;
	h->stats.live_count += count;
	check_peak(h, birth_ns);
	return 0;
}

int heap__alloc(struct heap *h, uint32_t tid, uint64_t addr, uint64_t size, uint64_t birth_ns,
		uint32_t fn, const uint64_t *frames, int nframes)
{
	(void)tid;
	return add_block(h, addr, size, birth_ns, fn, frames, nframes, true);
}

int heap__alloc_blockless(struct heap *h, uint64_t size, uint32_t fn, const uint64_t *frames,
			  int nframes)
{
	uint32_t stack_id = record_stack(h, frames, nframes);
	uint64_t bytes, count;

	if (!stack_id)
		return -ENOMEM;
	count_call(h, stack_id, fn, size);
	weigh(h, size, &bytes, &count);
	h->stats.blockless_calls += count;
	h->stats.blockless_bytes += bytes;
	return 0;
}

void heap__free(struct heap *h, uint32_t tid, uint64_t addr)
{
	struct pending_block *pending;
	struct live_block b;

	if (!table__remove(h->live, addr, &b)) {
		free_block(h, addr, &b);
		return;
	}
	/* realloc(p, 0) ends with a free of the block its begin set aside */
	pending = table__lookup(h->in_realloc, tid);
	if (pending && pending->addr == addr) {
		count_free(h, &pending->block, stacks__totals(h->stacks, pending->block.stack_id));
		table__remove(h->in_realloc, tid, NULL);
		return;
	}
	h->stats.unknown_frees++;
}

bool heap__free_again(struct heap *h, uint64_t addr)
{
	struct live_block b;

	/* not live: the free function the last free called, that free's
	 * record already sent; live: a block another thread got back since */
	if (table__remove(h->live, addr, &b))
		return false;
	free_block(h, addr, &b);
	return true;
}

void heap__exit_free(struct heap *h, uint32_t tid, uint64_t addr)
{
	struct live_block b;

	if (table__remove(h->live, addr, &b)) {
		h->stats.exit_cache_frees++;
		return;
	}
	free_block(h, addr, &b);
}

void heap__realloc_begin(struct heap *h, uint32_t tid, uint64_t addr)
{
	struct pending_block *pending;
	struct live_block b;
	bool existed;

	if (table__remove(h->live, addr, &b))
		return;	/* not ours: the end of the call counts the unknown free */
	release(h, addr, &b);
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
			count_free(h, &pending.block, stacks__totals(h->stacks, pending.block.stack_id));
		} else {
			restore(h, pending.addr, &pending.block);
			heap__free(h, tid, old_addr);
		}
	}
	return heap__alloc(h, tid, addr, size, birth_ns, fn, frames, nframes);
}

/* a mapping lost pages: smaller, maybe keyed anew, or gone */
static void lose_pages(void *ctx, uint64_t key, uint64_t lost, uint64_t new_key)
{
	struct heap *h = ctx;
	const struct heap_weighed *w;
	struct stack_totals *t;
	struct live_block b;
	uint64_t resident;

	/* not live: free() was called on it, or its record was lost */
	if (table__remove(h->live, key, &b))
		return;
	w = table__lookup(h->weighed, key);
	resident = w ? w->resident : 0;
	t = release(h, key, &b);
	if (!new_key || lost >= b.size) {
		count_free(h, &b, t);
		return;
	}
	b.size -= lost;
	/* at most what it had in memory, until measured again */
	restore_weighed(h, new_key, &b, resident);
}

static void forget(void *ctx, uint64_t key, uint64_t lost, uint64_t new_key)
{
}

int heap__unmap(struct heap *h, uint64_t addr, uint64_t len)
{
	int err = ranges__cut(h->reserved, addr, addr + len, forget, NULL);

	return err ? err : ranges__cut(h->mappings, addr, addr + len, lose_pages, h);
}

int heap__reserve(struct heap *h, uint64_t addr, uint64_t len)
{
	int err = heap__unmap(h, addr, len);

	return err ? err : ranges__add(h->reserved, addr, addr + len);
}

/* the parts of [addr, addr + len) that r covers: *parts, malloc'ed */
static ssize_t parts_of(const struct ranges *r, uint64_t addr, uint64_t len, uint64_t **parts)
{
	size_t n = ranges__within(r, addr, addr + len, NULL, 0);

	*parts = NULL;
	if (!n)
		return 0;
	*parts = malloc(2 * n * sizeof(**parts));
	if (!*parts)
		return -ENOMEM;
	return (ssize_t)ranges__within(r, addr, addr + len, *parts, n);
}

int heap__decommit(struct heap *h, uint64_t addr, uint64_t len)
{
	uint64_t *parts;
	ssize_t n = parts_of(h->mappings, addr, len, &parts), i;
	int err = n < 0 ? (int)n : 0;

	if (!err)
		err = ranges__cut(h->mappings, addr, addr + len, lose_pages, h);
	for (i = 0; !err && i < n; i++)
		err = ranges__add(h->reserved, parts[2 * i], parts[2 * i + 1]);
	free(parts);
	return err;
}

int heap__commit(struct heap *h, uint32_t tid, uint64_t addr, uint64_t len, uint64_t birth_ns,
		 uint32_t fn, const uint64_t *frames, int nframes)
{
	uint64_t *parts;
	ssize_t n = parts_of(h->reserved, addr, len, &parts), i;
	int err = n < 0 ? (int)n : 0;

	if (!err)
		err = ranges__cut(h->reserved, addr, addr + len, forget, NULL);
	for (i = 0; !err && i < n; i++) {
		uint64_t start = parts[2 * i], end = parts[2 * i + 1];

		err = heap__alloc(h, tid, start, end - start, birth_ns, fn, frames, nframes);
		if (!err)
			err = ranges__add(h->mappings, start, end);
	}
	free(parts);
	return err;
}

static int map_block(struct heap *h, uint64_t addr, uint64_t len, uint64_t birth_ns, uint32_t fn,
		     const uint64_t *frames, int nframes, bool a_call)
{
	/* MAP_FIXED replaced what was there */
	int err = heap__unmap(h, addr, len);

	if (!err)
		err = add_block(h, addr, len, birth_ns, fn, frames, nframes, a_call);
	if (!err)
		err = ranges__add(h->mappings, addr, addr + len);
	return err;
}

int heap__map(struct heap *h, uint32_t tid, uint64_t addr, uint64_t len, uint64_t birth_ns,
	      uint32_t fn, const uint64_t *frames, int nframes)
{
	(void)tid;
	return map_block(h, addr, len, birth_ns, fn, frames, nframes, true);
}

int heap__map_held(struct heap *h, uint64_t addr, uint64_t len, uint64_t birth_ns, uint32_t fn,
		   const uint64_t *frames, int nframes)
{
	return map_block(h, addr, len, birth_ns, fn, frames, nframes, false);
}

void heap__failed_stack(struct heap *h)
{
	h->stats.failed_stacks++;
}

/* the live blocks of a tag, with their addresses: collected before the
 * table changes under an iteration */
static size_t blocks_of(const struct heap *h, uint64_t tag, uint64_t mask, uint64_t **addrs,
			struct live_block **blocks)
{
	const struct live_block *b;
	size_t pos = 0, n = 0, cap = 0;
	uint64_t addr;
	void *grown;

	*addrs = NULL;
	*blocks = NULL;
	while ((b = table__next(h->live, &pos, &addr))) {
		if ((addr & mask) != tag)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			grown = realloc(*addrs, cap * sizeof(**addrs));
			if (!grown)
				return SIZE_MAX;
			*addrs = grown;
			grown = realloc(*blocks, cap * sizeof(**blocks));
			if (!grown)
				return SIZE_MAX;
			*blocks = grown;
		}
		(*addrs)[n] = addr;
		(*blocks)[n++] = *b;
	}
	return n;
}

/* the blocks of a tag leave the live set; held: each counts as its stack's
 * held at exit, and in *bytes and *count */
static void leave_tag(struct heap *h, uint64_t tag, uint64_t tag_mask, bool held,
		      uint64_t *bytes, uint64_t *count)
{
	struct live_block *blocks, b;
	struct stack_totals *t;
	uint64_t *addrs, was_bytes = h->stats.live_bytes, was_count = h->stats.live_count;
	size_t n, i;

	n = blocks_of(h, tag, tag_mask, &addrs, &blocks);
	for (i = 0; n != SIZE_MAX && i < n; i++) {
		uint64_t live_bytes = h->stats.live_bytes, live_count = h->stats.live_count;

		if (table__remove(h->live, addrs[i], &b))
			continue;
		t = release(h, addrs[i], &b);
		/* a copy of its parent's block is the parent's doing: not held */
		if (b.fn & LIVE_INHERITED) {
			was_bytes -= live_bytes - h->stats.live_bytes;
			was_count -= live_count - h->stats.live_count;
		} else if (held && t) {
			t->exit_bytes += live_bytes - h->stats.live_bytes;
			t->exit_count += live_count - h->stats.live_count;
		}
	}
	ranges__drop_tag(h->mappings, tag, tag_mask);
	ranges__drop_tag(h->reserved, tag, tag_mask);
	free(addrs);
	free(blocks);
	if (held) {
		h->stats.exit_bytes += was_bytes - h->stats.live_bytes;
		h->stats.exit_count += was_count - h->stats.live_count;
	}
	if (bytes)
		*bytes = was_bytes - h->stats.live_bytes;
	if (count)
		*count = was_count - h->stats.live_count;
}

void heap__drop_tag(struct heap *h, uint64_t tag, uint64_t tag_mask)
{
	leave_tag(h, tag, tag_mask, false, NULL, NULL);
}

void heap__exit_tag(struct heap *h, uint64_t tag, uint64_t tag_mask, uint64_t *bytes,
		    uint64_t *count)
{
	leave_tag(h, tag, tag_mask, true, bytes, count);
}

int heap__copy_tag(struct heap *h, uint64_t from, uint64_t to, uint64_t tag_mask,
		   heap_retag_fn retag, void *ctx)
{
	uint64_t *addrs, frames[MAX_COPY_FRAMES];
	const struct heap_weighed *w;
	struct live_block *blocks;
	uint32_t *ids = NULL, nstacks = stacks__count(h->stacks), id, nframes;
	uint64_t live_count = h->stats.live_count, live_bytes = h->stats.live_bytes;
	const uint64_t *old;
	size_t n, i;
	int err = 0;

	n = blocks_of(h, from, tag_mask, &addrs, &blocks);
	if (n == SIZE_MAX) {
		err = -ENOMEM;
		goto out;
	}
	/* each stack of the parent's has its child's twin, interned once */
	ids = calloc(nstacks + 1, sizeof(*ids));
	if (!ids) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n && !err; i++) {
		struct live_block *b = &blocks[i];

		if (b->stack_id > nstacks) {
			err = -EINVAL;
			break;
		}
		if (!ids[b->stack_id]) {
			old = stacks__frames(h->stacks, b->stack_id, &nframes);
			if (nframes > MAX_COPY_FRAMES)
				nframes = MAX_COPY_FRAMES;
			retag(ctx, old, nframes, frames);
			id = stacks__intern(h->stacks, frames, nframes);
			if (!id) {
				err = -ENOMEM;
				break;
			}
			stacks__set_fn(h->stacks, id, stacks__fn(h->stacks, b->stack_id));
			ids[b->stack_id] = id;
		}
		b->stack_id = ids[b->stack_id];
		b->fn |= LIVE_INHERITED;
		/* the child's pages are the parent's, until one of them writes */
		w = table__lookup(h->weighed, addrs[i]);
		restore_weighed(h, (addrs[i] & ~tag_mask) | to, b, w ? w->resident : 0);
	}
	h->stats.inherited_count += h->stats.live_count - live_count;
	h->stats.inherited_bytes += h->stats.live_bytes - live_bytes;
	if (!err)
		err = ranges__copy_tag(h->mappings, from, to, tag_mask);
	if (!err)
		err = ranges__copy_tag(h->reserved, from, to, tag_mask);
out:
	free(ids);
	free(addrs);
	free(blocks);
	return err;
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

int heap__set_resident(struct heap *h, uint64_t addr, uint64_t resident, uint64_t now_ns)
{
	struct heap_weighed *w = table__lookup(h->weighed, addr);
	const struct live_block *b = table__lookup(h->live, addr);
	struct stack_totals *t;
	uint64_t before;

	if (!w || !b)
		return -ENOENT;
	if (resident > b->size)
		resident = b->size;
	before = w->resident;
	w->resident = resident;
	w->measured_ns = now_ns;
	w->measures++;
	t = stacks__totals(h->stacks, b->stack_id);
	if (t)
		t->live_bytes += resident - before;
	h->stats.live_bytes += resident - before;
	if (resident > before)
		check_peak(h, now_ns);
	return 0;
}

size_t heap__weighed_count(const struct heap *h)
{
	return table__count(h->weighed);
}

struct heap_weighed *heap__next_weighed(const struct heap *h, size_t *pos, uint64_t *addr,
					const struct live_block **b)
{
	struct heap_weighed *w;

	while ((w = table__next(h->weighed, pos, addr))) {
		*b = table__lookup(h->live, *addr);
		if (*b)
			return w;
	}
	return NULL;
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
	       table__memory(h->weighed) +
	       stacks__memory(h->stacks) + ranges__memory(h->mappings) +
	       ranges__memory(h->reserved);
}
