/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_HEAP_H
#define TRACELLOC_HEAP_H

#include <stdbool.h>
#include <stdint.h>

#include "stacks.h"
#include "tracelloc.h"

/*
 * The live heap of the target as seen through its allocator calls: live blocks
 * by address, per-stack totals (in stacks), and the process-wide ledger.
 */
struct heap;

struct heap_stats {
	uint64_t alloc_calls;
	uint64_t alloc_bytes;
	uint64_t frees;		/* releases of blocks allocated while traced */
	uint64_t unknown_frees;	/* releases of blocks we never saw allocated */
	uint64_t live_count;
	uint64_t live_bytes;
	uint64_t failed_stacks;	/* allocations whose stack could not be captured */
	uint64_t reused_live;	/* allocation at a live address: its free was lost */
	uint64_t exit_cache_frees; /* glibc returning a dead thread's cached chunks */
	/* a followed child's copies of its parent's live blocks at its fork:
	 * live, but no allocation call of anyone's */
	uint64_t inherited_count;
	uint64_t inherited_bytes;
	/* several processes: what those that exited held then (their blocks
	 * leave the live set at the exit) */
	uint64_t exit_count;
	uint64_t exit_bytes;
	/* the highest live bytes so far, the live blocks then, and when
	 * (CLOCK_MONOTONIC; 0: no allocation yet) */
	uint64_t peak_live_bytes;
	uint64_t peak_live_count;
	uint64_t peak_ns;
	/* allocations with no block (Go's heap): counted at their stacks, in
	 * alloc_calls and alloc_bytes too, never live */
	uint64_t blockless_calls;
	uint64_t blockless_bytes;
};

struct live_block {
	uint64_t size;
	uint64_t birth_ns;
	uint32_t stack_id;
	uint32_t fn;		/* enum alloc_fn (the record's), and LIVE_* flags */
};
/* a copy of a parent's block a fork gave a followed child (no call of its own) */
#define LIVE_INHERITED (1U << 30)

/*
 * A mapping the program makes of at least this many bytes counts by its
 * pages in memory, not its size: runtimes map big areas and touch little
 * of them (Go's arena index, 32 MiB, is mostly never written). Below it, a
 * mapping counts whole, as the program asked for it.
 */
#define HEAP_WEIGHED_MIN WEIGHED_MAP_MIN
/* the most frames a stack has: the native ones with Python's in place of
 * the eval loop's, the thread's and the process's */
#define HEAP_MAX_FRAMES (MAX_STACK_DEPTH + PY_MAX_FRAMES + 2)

/* such a mapping's measure */
struct heap_weighed {
	uint64_t resident;	/* bytes in memory (or swapped out) when measured */
	uint64_t measured_ns;	/* when (CLOCK_MONOTONIC); 0: not yet */
	uint32_t measures;
};

struct heap *heap__new(void);
/* blocks are samples, one per sample_bytes allocated on average: every total
 * becomes an estimate, each block weighed by the odds of its sampling */
void heap__set_sampling(struct heap *h, uint64_t sample_bytes);
/* a freed block that lived less than ns is short-lived (default 1 ms) */
void heap__set_short_lived(struct heap *h, uint64_t ns);
/* per stack, log2 histograms of lifetimes and sizes (struct stack_hist):
 * an extra cache line per record for a trace of many stacks, so only for
 * the views that show them */
void heap__set_histograms(struct heap *h, bool on);
/* the time of the record being handled (CLOCK_MONOTONIC): frees are at it */
void heap__set_clock(struct heap *h, uint64_t now_ns);
void heap__destroy(struct heap *h);

/* frames innermost first; nframes < 0: the capture failed (errno) */
int heap__alloc(struct heap *h, uint32_t tid, uint64_t addr, uint64_t size, uint64_t birth_ns,
		uint32_t fn, const uint64_t *frames, int nframes);
/* an allocation with no block to free (Go's, whose GC frees it unseen):
 * allocated and counted at its stack, never live */
int heap__alloc_blockless(struct heap *h, uint64_t size, uint32_t fn, const uint64_t *frames,
			  int nframes);
void heap__free(struct heap *h, uint32_t tid, uint64_t addr);
/* EVENT_FREE_AGAIN: frees addr if it is live; true if it was */
bool heap__free_again(struct heap *h, uint64_t addr);
/* a free by an exiting thread: of a block not live, it is glibc emptying the
 * thread's cache of chunks the program freed already */
void heap__exit_free(struct heap *h, uint32_t tid, uint64_t addr);
/* realloc(addr, ...) began on tid: addr leaves the live set until the call ends */
void heap__realloc_begin(struct heap *h, uint32_t tid, uint64_t addr);
/* it failed: addr is live again, with its original stack and age */
void heap__realloc_failed(struct heap *h, uint32_t tid, uint64_t addr);
/* it succeeded: a new block (heap__alloc) replaces old_addr */
int heap__realloc_done(struct heap *h, uint32_t tid, uint64_t old_addr, uint64_t addr,
		       uint64_t size, uint64_t birth_ns, uint32_t fn, const uint64_t *frames,
		       int nframes);

/* a mapping a runtime makes for its own heap, whose objects its
 * allocator's calls count (Go's, with runtime.mallocgc traced): held, by
 * its pages in memory as any mapping, but no allocation call */
int heap__map_held(struct heap *h, uint64_t addr, uint64_t len, uint64_t birth_ns, uint32_t fn,
		   const uint64_t *frames, int nframes);
/* an anonymous mapping of len bytes (whole pages) at addr, made by the
 * application: a block like the others, but one that munmap may take apart */
int heap__map(struct heap *h, uint32_t tid, uint64_t addr, uint64_t len, uint64_t birth_ns,
	      uint32_t fn, const uint64_t *frames, int nframes);
/* pages [addr, addr + len) are no longer mapped: the mappings there shrink
 * or go; pages no block holds are not counted (the allocator's, a file's) */
int heap__unmap(struct heap *h, uint64_t addr, uint64_t len);
/* [addr, addr + len) mapped with PROT_NONE by the application: address
 * space, no memory (what was there goes, as for heap__map) */
int heap__reserve(struct heap *h, uint64_t addr, uint64_t len);
/* mprotect(PROT_NONE) there: the pages of its mappings go (as
 * heap__unmap), and are reserved from then */
int heap__decommit(struct heap *h, uint64_t addr, uint64_t len);
/* mprotect made [addr, addr + len) accessible: the reserved pages there
 * are memory from now, a block per piece at this stack */
int heap__commit(struct heap *h, uint32_t tid, uint64_t addr, uint64_t len, uint64_t birth_ns,
		 uint32_t fn, const uint64_t *frames, int nframes);

/* an allocation whose stack could not be taken, given to heap__alloc with
 * the frames it has anyway (its process's) */
void heap__failed_stack(struct heap *h);
/* the blocks whose address carries tag (src/model/processes.h) are gone, with
 * their process's memory (an exec): no longer live, not counted as frees */
void heap__drop_tag(struct heap *h, uint64_t tag, uint64_t tag_mask);
/* the same for a process that exited: what each block held counts as its
 * stack's held at exit (exit_bytes, exit_count), the sums in *bytes, *count */
void heap__exit_tag(struct heap *h, uint64_t tag, uint64_t tag_mask, uint64_t *bytes,
		    uint64_t *count);
/*
 * A fork: every live block of tag `from` is live in the child too, at the
 * same address under tag `to`, its stack's frames passed through
 * retag(ctx, frames, n, out) (room for n). The copies count as the child's
 * live blocks but not as its calls. Negative errno.
 */
typedef void (*heap_retag_fn)(void *ctx, const uint64_t *frames, uint32_t n, uint64_t *out);
int heap__copy_tag(struct heap *h, uint64_t from, uint64_t to, uint64_t tag_mask,
		   heap_retag_fn retag, void *ctx);
/* tracing ended: blocks set aside by reallocs that did not return are live */
void heap__finish(struct heap *h);

/* the big mapping at addr had resident bytes in memory at now_ns: it counts
 * them from now; -ENOENT if it is not one (any more) */
int heap__set_resident(struct heap *h, uint64_t addr, uint64_t resident, uint64_t now_ns);
size_t heap__weighed_count(const struct heap *h);
/* iteration over the big mappings and their blocks: start with *pos = 0 */
struct heap_weighed *heap__next_weighed(const struct heap *h, size_t *pos, uint64_t *addr,
					const struct live_block **b);
/* what the live block at addr counts for in the totals (heap__weigh, or a
 * big mapping's bytes in memory) */
void heap__block_weight(const struct heap *h, uint64_t addr, const struct live_block *b,
			uint64_t *bytes, uint64_t *count);

/* the live block's bytes: its size, or a big mapping's bytes in memory */
uint64_t heap__block_bytes(const struct heap *h, uint64_t addr, const struct live_block *b);

const struct heap_stats *heap__stats(const struct heap *h);
struct stacks *heap__stacks(struct heap *h);
/* iteration over live blocks: start with *pos = 0 */
/* what a live block of size bytes stands for in the totals (sampled: more) */
void heap__weigh(const struct heap *h, uint64_t size, uint64_t *bytes, uint64_t *count);
const struct live_block *heap__next_live(const struct heap *h, size_t *pos, uint64_t *addr);
size_t heap__memory(const struct heap *h);

#endif
