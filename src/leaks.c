// SPDX-License-Identifier: GPL-2.0
/* a conservative mark-and-sweep over one instant of the target (see leaks.h) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "leaks.h"

/* the scan's states: a block is marked once per state it reaches */
enum {
	UNREACHED,
	POSSIBLE,		/* reached through an interior pointer */
	REACHED,		/* reached through a pointer to its start */
	IN_CLIQUE,		/* unreached, reached from a clique's leader */
};

#define NO_CLIQUE UINT32_MAX
/* memory is read this much at a time */
#define CHUNK_BYTES (64 << 10)

struct leaks {
	leaks_read_fn read;
	void *ctx;
	struct leak_block *blocks;
	size_t n, cap;
	bool sealed;
	/* blocks to scan */
	uint32_t *work;
	size_t nwork, work_cap;
	uint64_t *buf;		/* CHUNK_BYTES */
	uint64_t bytes_read;
	/* while cliques are made: the leader, and the state a reached block takes */
	uint32_t leader;
};

struct leaks *leaks__new(leaks_read_fn read, void *ctx)
{
	struct leaks *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	l->read = read;
	l->ctx = ctx;
	l->buf = malloc(CHUNK_BYTES);
	if (!l->buf) {
		free(l);
		return NULL;
	}
	return l;
}

void leaks__destroy(struct leaks *l)
{
	if (!l)
		return;
	free(l->blocks);
	free(l->work);
	free(l->buf);
	free(l);
}

int leaks__add(struct leaks *l, uint64_t addr, uint64_t size, uint64_t key, uint32_t stack_id)
{
	struct leak_block *b;

	if (l->sealed)
		return -EINVAL;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 1024;

		b = realloc(l->blocks, cap * sizeof(*b));
		if (!b)
			return -ENOMEM;
		l->blocks = b;
		l->cap = cap;
	}
	l->blocks[l->n++] = (struct leak_block){
		.addr = addr, .size = size ? size : 1, .key = key, .stack_id = stack_id,
		.clique = NO_CLIQUE,
	};
	return 0;
}

static int by_addr(const void *a, const void *b)
{
	const struct leak_block *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int leaks__seal(struct leaks *l)
{
	size_t i, n = 0;

	if (l->n)
		qsort(l->blocks, l->n, sizeof(*l->blocks), by_addr);
	/* a block that overlaps the one before it is a record the model got
	 * wrong (lost): the first keeps its bytes */
	for (i = 0; i < l->n; i++) {
		if (n && l->blocks[i].addr < l->blocks[n - 1].addr + l->blocks[n - 1].size)
			continue;
		l->blocks[n++] = l->blocks[i];
	}
	l->n = n;
	l->sealed = true;
	return 0;
}

/* the index of the first block that starts above addr */
static size_t above(const struct leaks *l, uint64_t addr)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->blocks[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct leak_block *find(const struct leaks *l, uint64_t addr)
{
	size_t lo = above(l, addr);

	if (!lo || addr - l->blocks[lo - 1].addr >= l->blocks[lo - 1].size)
		return NULL;
	return &l->blocks[lo - 1];
}

const struct leak_block *leaks__find(const struct leaks *l, uint64_t addr)
{
	return find(l, addr);
}

bool leaks__any_in(const struct leaks *l, uint64_t start, uint64_t end)
{
	size_t i = above(l, start);

	/* one that starts in the range, or the one before it, reaching into it */
	return (i < l->n && l->blocks[i].addr < end) || find(l, start);
}

static int push(struct leaks *l, const struct leak_block *b)
{
	if (l->nwork == l->work_cap) {
		size_t cap = l->work_cap ? l->work_cap * 2 : 1024;
		uint32_t *w = realloc(l->work, cap * sizeof(*w));

		if (!w)
			return -ENOMEM;
		l->work = w;
		l->work_cap = cap;
	}
	l->work[l->nwork++] = (uint32_t)(b - l->blocks);
	return 0;
}

/* word may point into a block: mark it, and scan it later if it is new */
static int visit(struct leaks *l, uint64_t word)
{
	struct leak_block *b;

	if (word < 4096 || !(b = find(l, word)))
		return 0;
	if (l->leader != NO_CLIQUE) {
		/* making cliques: every unreached block this leader reaches */
		if (b->state != UNREACHED && b->state != IN_CLIQUE)
			return 0;
		if (b->clique == l->leader || (uint32_t)(b - l->blocks) == l->leader)
			return 0;
		b->state = IN_CLIQUE;
		b->clique = l->leader;
		return push(l, b);
	}
	if (word == b->addr) {
		if (b->state == REACHED)
			return 0;
		b->state = REACHED;
	} else {
		if (b->state != UNREACHED)
			return 0;
		b->state = POSSIBLE;
	}
	return push(l, b);
}

/* the aligned words of [start, end); skip_blocks: not those inside blocks */
static int scan_range(struct leaks *l, uint64_t start, uint64_t end, bool skip_blocks)
{
	uint64_t at = (start + 7) & ~7ULL;
	ssize_t got;
	size_t i;
	int err;

	while (at + 8 <= end) {
		uint64_t len = end - at < CHUNK_BYTES ? (end - at) & ~7ULL : CHUNK_BYTES;

		if (skip_blocks) {
			struct leak_block *b = find(l, at);
			size_t k;

			if (b) {
				at = (b->addr + b->size + 7) & ~7ULL;
				continue;
			}
			/* up to the next block */
			k = above(l, at);
			if (k < l->n && l->blocks[k].addr < at + len)
				len = (l->blocks[k].addr - at) & ~7ULL;
			if (!len) {
				at = l->blocks[k].addr;
				continue;
			}
		}
		got = l->read(l->ctx, at, l->buf, len);
		if (got <= 0) {
			/* unreadable: the rest of its page is too */
			at = (at | 4095) + 1;
			continue;
		}
		l->bytes_read += got;
		for (i = 0; i < (size_t)got / 8; i++)
			if ((err = visit(l, l->buf[i])))
				return err;
		at += got & ~7ULL;
	}
	return 0;
}

/* every block marked and not scanned yet, scanned */
static int drain(struct leaks *l)
{
	int err;

	while (l->nwork) {
		struct leak_block *b = &l->blocks[l->work[--l->nwork]];

		err = scan_range(l, b->addr, b->addr + b->size, false);
		if (err)
			return err;
	}
	return 0;
}

int leaks__root_range(struct leaks *l, uint64_t start, uint64_t end, bool skip_blocks)
{
	int err;

	l->leader = NO_CLIQUE;
	err = scan_range(l, start, end, skip_blocks);
	return err ? err : drain(l);
}

int leaks__root_word(struct leaks *l, uint64_t word)
{
	int err;

	l->leader = NO_CLIQUE;
	err = visit(l, word);
	return err ? err : drain(l);
}

int leaks__classify(struct leaks *l)
{
	int err = 0;
	size_t i;

	for (i = 0; i < l->n; i++) {
		struct leak_block *b = &l->blocks[i];

		if (b->state != UNREACHED && b->state != IN_CLIQUE)
			continue;
		/* in a clique already: its leader (or a later one) accounts */
		if (b->clique != NO_CLIQUE)
			continue;
		l->leader = (uint32_t)i;
		err = push(l, b);
		if (!err)
			err = drain(l);
		if (err)
			break;
	}
	l->leader = NO_CLIQUE;
	l->nwork = 0;
	for (i = 0; i < l->n; i++) {
		struct leak_block *b = &l->blocks[i];

		switch (b->state) {
		case REACHED:
			b->cls = LEAK_REACHABLE;
			break;
		case POSSIBLE:
			b->cls = LEAK_POSSIBLE;
			break;
		default:
			b->cls = b->clique == NO_CLIQUE ? LEAK_DEFINITE : LEAK_INDIRECT;
		}
	}
	return err;
}

size_t leaks__count(const struct leaks *l)
{
	return l->n;
}

const struct leak_block *leaks__block(const struct leaks *l, size_t i)
{
	return i < l->n ? &l->blocks[i] : NULL;
}

void leaks__totals(const struct leaks *l, uint64_t bytes[LEAK__COUNT], uint64_t blocks[LEAK__COUNT])
{
	size_t i;

	memset(bytes, 0, LEAK__COUNT * sizeof(*bytes));
	memset(blocks, 0, LEAK__COUNT * sizeof(*blocks));
	for (i = 0; i < l->n; i++) {
		bytes[l->blocks[i].cls] += l->blocks[i].size;
		blocks[l->blocks[i].cls]++;
	}
}

uint64_t leaks__bytes_read(const struct leaks *l)
{
	return l->bytes_read;
}

const char *leaks__class_name(enum leak_class c)
{
	static const char *const names[LEAK__COUNT] = {
		[LEAK_REACHABLE] = "still reachable",
		[LEAK_POSSIBLE] = "possibly lost",
		[LEAK_INDIRECT] = "indirectly lost",
		[LEAK_DEFINITE] = "definitely lost",
	};

	return c < LEAK__COUNT ? names[c] : "?";
}
