/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_POOLS_H
#define TRACELLOC_POOLS_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

struct heap;

/*
 * What the program's own allocators (--alloc-fn and the rest) hold: the
 * memory each took for itself inside its own calls (its slabs: not the
 * program's, counted apart), and which of the heap's blocks are theirs,
 * by pool and by the page they start in, so that a pool's destruction or
 * the release of the slab a block was carved from ends the block too.
 * Addresses are tagged as the heap's (processes.h).
 */
struct pools;

struct pools *pools__new(struct heap *heap);
void pools__destroy(struct pools *p);

/* a named allocator took [addr, addr + len) for itself */
int pools__slab(struct pools *p, uint64_t addr, uint64_t len);
/* addr released by an allocator's free: when it is a slab (1), the named
 * blocks carved from it go with it, but the one at keep (0: none), which a
 * named realloc moves; 0: not a slab */
int pools__free_slab(struct pools *p, uint32_t tid, uint64_t addr, uint64_t keep);
/* pages unmapped: the slabs that start there go, as pools__free_slab */
void pools__unmap(struct pools *p, uint32_t tid, uint64_t addr, uint64_t len);

/* a named allocator's block of size bytes (in the heap already), of pool (0: none) */
int pools__block(struct pools *p, uint64_t addr, uint64_t size, uint64_t pool);
/* a named realloc moved old_addr to addr, now size bytes: of the same pool */
int pools__move(struct pools *p, uint64_t old_addr, uint64_t addr, uint64_t size);
/* the block at addr left the heap otherwise (a free, a new block there) */
void pools__forget(struct pools *p, uint64_t addr);
/* every block of pool goes */
void pools__destroy_pool(struct pools *p, uint32_t tid, uint64_t pool);

/* a process's part goes (an exec), or is copied to another tag (a fork) */
void pools__drop_tag(struct pools *p, uint64_t tag, uint64_t mask);
int pools__copy_tag(struct pools *p, uint64_t from, uint64_t to, uint64_t mask);

/* iteration over the slabs: start with *pos = 0; false at the end */
bool pools__next_slab(const struct pools *p, size_t *pos, uint64_t *addr, uint64_t *len);
/* the named allocators' own memory now: the bytes of their slabs that are
 * not their live blocks (the blocks are the heap's), and how many slabs */
void pools__own(const struct pools *p, uint64_t *bytes, uint64_t *count);

#endif
