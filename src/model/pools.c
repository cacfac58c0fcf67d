// SPDX-License-Identifier: GPL-2.0
/* the program's own allocators' memory and blocks (see pools.h) */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "heap.h"
#include "pools.h"
#include "table.h"

#define PAGE_SHIFT 12

/* a block's two lists: its pool's, and its first page's */
enum { BY_POOL, BY_PAGE, NLISTS };

struct named_block {
	uint64_t pool;			/* 0: none */
	uint64_t bytes;			/* what it stands for in the heap's totals */
	uint64_t prev[NLISTS];		/* the neighbours' addresses; 0: none */
	uint64_t next[NLISTS];
};

struct pools {
	struct heap *heap;
	struct table *slabs;		/* addr -> uint64_t size */
	struct table *blocks;		/* addr -> struct named_block */
	struct table *heads[NLISTS];	/* pool, page -> uint64_t first block's addr */
	uint64_t slab_bytes;		/* the slabs' */
	uint64_t slab_count;
	uint64_t block_bytes;		/* the named blocks' */
};

struct pools *pools__new(struct heap *heap)
{
	struct pools *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->heap = heap;
	p->slabs = table__new(sizeof(uint64_t));
	p->blocks = table__new(sizeof(struct named_block));
	p->heads[BY_POOL] = table__new(sizeof(uint64_t));
	p->heads[BY_PAGE] = table__new(sizeof(uint64_t));
	if (!p->slabs || !p->blocks || !p->heads[BY_POOL] || !p->heads[BY_PAGE]) {
		pools__destroy(p);
		return NULL;
	}
	return p;
}

void pools__destroy(struct pools *p)
{
	if (!p)
		return;
	table__destroy(p->slabs);
	table__destroy(p->blocks);
	table__destroy(p->heads[BY_POOL]);
	table__destroy(p->heads[BY_PAGE]);
	free(p);
}

static uint64_t list_key(int list, uint64_t addr, const struct named_block *b)
{
	return list == BY_POOL ? b->pool : addr >> PAGE_SHIFT;
}

/* the block at addr, in the table already, goes to the front of its lists */
static int link_block(struct pools *p, uint64_t addr)
{
	struct named_block *b, *first;
	uint64_t *head;
	bool existed;
	int list;

	for (list = 0; list < NLISTS; list++) {
		b = table__lookup(p->blocks, addr);
		if (list == BY_POOL && !b->pool)
			continue;
		head = table__upsert(p->heads[list], list_key(list, addr, b), &existed);
		if (!head)
			return -ENOMEM;
		b->prev[list] = 0;
		b->next[list] = existed ? *head : 0;
		if (b->next[list]) {
			first = table__lookup(p->blocks, b->next[list]);
			if (first)
				first->prev[list] = addr;
		}
		*head = addr;
	}
	return 0;
}

/* the block at addr leaves the table and its lists */
static void unlink_block(struct pools *p, uint64_t addr)
{
	struct named_block b, *n;
	uint64_t key, *head;
	int list;

	if (table__remove(p->blocks, addr, &b))
		return;
	p->block_bytes -= b.bytes;
	for (list = 0; list < NLISTS; list++) {
		if (list == BY_POOL && !b.pool)
			continue;
		key = list_key(list, addr, &b);
		if (b.prev[list]) {
			n = table__lookup(p->blocks, b.prev[list]);
			if (n)
				n->next[list] = b.next[list];
		} else if ((head = table__lookup(p->heads[list], key))) {
			if (b.next[list])
				*head = b.next[list];
			else
				table__remove(p->heads[list], key, NULL);
		}
		if (b.next[list] && (n = table__lookup(p->blocks, b.next[list])))
			n->prev[list] = b.prev[list];
	}
}

/* a block standing for bytes of the heap's totals */
static int add_block(struct pools *p, uint64_t addr, uint64_t bytes, uint64_t pool)
{
	struct named_block *b;
	bool existed;

	unlink_block(p, addr);
	b = table__upsert(p->blocks, addr, &existed);
	if (!b)
		return -ENOMEM;
	b->pool = pool;
	b->bytes = bytes;
	p->block_bytes += bytes;
	return link_block(p, addr);
}

int pools__block(struct pools *p, uint64_t addr, uint64_t size, uint64_t pool)
{
	uint64_t bytes, count;

	/* sampled: a block stands for more */
	heap__weigh(p->heap, size, &bytes, &count);
	return add_block(p, addr, bytes, pool);
}

int pools__move(struct pools *p, uint64_t old_addr, uint64_t addr, uint64_t size)
{
	const struct named_block *b = table__lookup(p->blocks, old_addr);
	uint64_t pool = b ? b->pool : 0;

	unlink_block(p, old_addr);
	return pools__block(p, addr, size, pool);
}

void pools__forget(struct pools *p, uint64_t addr)
{
	unlink_block(p, addr);
}

/* the blocks of one list go, from the heap too */
static void release_list(struct pools *p, int list, uint64_t key, uint32_t tid, uint64_t lo,
			 uint64_t hi, uint64_t keep)
{
	const uint64_t *head = table__lookup(p->heads[list], key);
	uint64_t addr = head ? *head : 0, next;

	while (addr) {
		const struct named_block *b = table__lookup(p->blocks, addr);

		if (!b)
			break;
		next = b->next[list];
		if (addr >= lo && addr < hi && addr != keep) {
			unlink_block(p, addr);
			heap__free(p->heap, tid, addr);
		}
		addr = next;
	}
}

void pools__destroy_pool(struct pools *p, uint32_t tid, uint64_t pool)
{
	release_list(p, BY_POOL, pool, tid, 0, UINT64_MAX, 0);
}

int pools__slab(struct pools *p, uint64_t addr, uint64_t len)
{
	uint64_t *size;
	bool existed;

	size = table__upsert(p->slabs, addr, &existed);
	if (!size)
		return -ENOMEM;
	if (existed)
		p->slab_bytes -= *size;
	else
		p->slab_count++;
	*size = len;
	p->slab_bytes += len;
	return 0;
}

int pools__free_slab(struct pools *p, uint32_t tid, uint64_t addr, uint64_t keep)
{
	uint64_t size, page;

	if (table__remove(p->slabs, addr, &size))
		return 0;
	p->slab_bytes -= size;
	p->slab_count--;
	/* the memory is gone: so are the blocks carved from it */
	for (page = addr >> PAGE_SHIFT; size && page <= (addr + size - 1) >> PAGE_SHIFT; page++)
		release_list(p, BY_PAGE, page, tid, addr, addr + size, keep);
	return 1;
}

void pools__unmap(struct pools *p, uint32_t tid, uint64_t addr, uint64_t len)
{
	uint64_t a, key;
	size_t pos = 0, n = 0, i;
	uint64_t *starts;

	if (!table__count(p->slabs))
		return;
	/* fewer slabs than pages: look at the slabs */
	if (len >> PAGE_SHIFT > table__count(p->slabs)) {
		starts = malloc(table__count(p->slabs) * sizeof(*starts));
		if (!starts)
			return;
		while (table__next(p->slabs, &pos, &key))
			if (key >= addr && key < addr + len)
				starts[n++] = key;
		for (i = 0; i < n; i++)
			pools__free_slab(p, tid, starts[i], 0);
		free(starts);
		return;
	}
	for (a = addr; a < addr + len; a += 1 << PAGE_SHIFT)
		pools__free_slab(p, tid, a, 0);
}

/* the keys of t under tag; the caller frees them */
static uint64_t *keys_of(const struct table *t, uint64_t tag, uint64_t mask, size_t *n)
{
	uint64_t *keys = malloc((table__count(t) + 1) * sizeof(*keys)), key;
	size_t pos = 0;

	*n = 0;
	if (!keys)
		return NULL;
	while (table__next(t, &pos, &key))
		if ((key & mask) == tag)
			keys[(*n)++] = key;
	return keys;
}

void pools__drop_tag(struct pools *p, uint64_t tag, uint64_t mask)
{
	uint64_t *keys, size;
	size_t n, i;

	keys = keys_of(p->slabs, tag, mask, &n);
	for (i = 0; keys && i < n; i++) {
		table__remove(p->slabs, keys[i], &size);
		p->slab_bytes -= size;
		p->slab_count--;
	}
	free(keys);
	keys = keys_of(p->blocks, tag, mask, &n);
	for (i = 0; keys && i < n; i++)
		unlink_block(p, keys[i]);
	free(keys);
}

int pools__copy_tag(struct pools *p, uint64_t from, uint64_t to, uint64_t mask)
{
	const struct named_block *b;
	uint64_t *keys, *size;
	size_t n, i;
	int err = 0;

	keys = keys_of(p->slabs, from, mask, &n);
	if (!keys)
		return -ENOMEM;
	for (i = 0; !err && i < n; i++) {
		size = table__lookup(p->slabs, keys[i]);
		err = pools__slab(p, (keys[i] & ~mask) | to, *size);
	}
	free(keys);
	keys = err ? NULL : keys_of(p->blocks, from, mask, &n);
	if (!keys)
		return err ? err : -ENOMEM;
	for (i = 0; !err && i < n; i++) {
		uint64_t pool;

		b = table__lookup(p->blocks, keys[i]);
		pool = b->pool ? (b->pool & ~mask) | to : 0;
		err = add_block(p, (keys[i] & ~mask) | to, b->bytes, pool);
	}
	free(keys);
	return err;
}

bool pools__next_slab(const struct pools *p, size_t *pos, uint64_t *addr, uint64_t *len)
{
	const uint64_t *size = table__next(p->slabs, pos, addr);

	if (!size)
		return false;
	*len = *size;
	return true;
}

void pools__own(const struct pools *p, uint64_t *bytes, uint64_t *count)
{
	/* the slabs hold the blocks carved from them: what is left is the
	 * allocators' (headers, free lists, slack), so that the blocks and
	 * this add up to what they took, once */
	*bytes = p->slab_bytes > p->block_bytes ? p->slab_bytes - p->block_bytes : 0;
	*count = p->slab_count;
}
