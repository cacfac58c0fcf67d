// SPDX-License-Identifier: GPL-2.0
/* heap.c (the ledger), profile.c and folded.c (output of a real heap) */
#include <errno.h>
#include <stdlib.h>

#include "busy_heap.h"
#include "folded.h"
#include "heap.h"
#include "processes.h"
#include "profile.h"
#include "sort.h"
#include "test.h"
#include "tracelloc.h"

static const uint64_t S1[] = { 0x401100, 0x402200, 0x403300 };
static const uint64_t S2[] = { 0x501100, 0x502200 };
static const uint64_t S3[] = { 0x601100 };

/* the live block at addr, or NULL */
static const struct live_block *find_live(const struct heap *h, uint64_t addr)
{
	const struct live_block *b;
	size_t pos = 0;
	uint64_t a;

	while ((b = heap__next_live(h, &pos, &a)))
		if (a == addr)
			return b;
	return NULL;
}

/* the id of an already interned stack (0 if it was not: the caller asserts) */
static uint32_t stack_id(struct heap *h, const uint64_t *frames, uint32_t n)
{
	struct stacks *s = heap__stacks(h);
	uint32_t before = stacks__count(s), id = stacks__intern(s, frames, n);

	return stacks__count(s) == before ? id : 0;
}

#define ASSERT_STATS(h, ac, ab, fr, uf, lc, lb, fs, rl)                              \
	do {                                                                        \
		const struct heap_stats *___s = heap__stats(h);                     \
		ASSERT_EQ(___s->alloc_calls, ac, "stats.alloc_calls");             \
		ASSERT_EQ(___s->alloc_bytes, ab, "stats.alloc_bytes");             \
		ASSERT_EQ(___s->frees, fr, "stats.frees");                         \
		ASSERT_EQ(___s->unknown_frees, uf, "stats.unknown_frees");         \
		ASSERT_EQ(___s->live_count, lc, "stats.live_count");               \
		ASSERT_EQ(___s->live_bytes, lb, "stats.live_bytes");               \
		ASSERT_EQ(___s->failed_stacks, fs, "stats.failed_stacks");         \
		ASSERT_EQ(___s->reused_live, rl, "stats.reused_live");             \
	} while (0)

#define ASSERT_TOTALS(h, frames, lb, lc, ab, ac)                                     \
	do {                                                                        \
		uint32_t ___id = stack_id(h, frames, sizeof(frames) / sizeof(frames[0])); \
		const struct stack_totals *___t = stacks__totals(heap__stacks(h), ___id); \
		ASSERT_OK_PTR(___t, "totals of " #frames);                          \
		ASSERT_EQ(___t->live_bytes, lb, #frames ".live_bytes");            \
		ASSERT_EQ(___t->live_count, lc, #frames ".live_count");            \
		ASSERT_EQ(___t->alloc_bytes, ab, #frames ".alloc_bytes");          \
		ASSERT_EQ(___t->alloc_count, ac, #frames ".alloc_count");          \
	} while (0)

#define ASSERT_LIVE(h, addr, sz, birth, frames, func)                                \
	do {                                                                        \
		const struct live_block *___b = find_live(h, addr);                 \
		ASSERT_OK_PTR(___b, "live block at %#llx", (unsigned long long)(addr)); \
		ASSERT_EQ(___b->size, sz, "size of block %#llx", (unsigned long long)(addr)); \
		ASSERT_EQ(___b->birth_ns, birth, "birth of block %#llx", (unsigned long long)(addr)); \
		ASSERT_EQ(___b->stack_id,                                           \
			  stack_id(h, frames, sizeof(frames) / sizeof(frames[0])),  \
			  "stack of block %#llx", (unsigned long long)(addr));      \
		ASSERT_EQ(___b->fn, func, "fn of block %#llx", (unsigned long long)(addr)); \
	} while (0)

#define ASSERT_NOT_LIVE(h, addr)                                                    \
	ASSERT_NULL(find_live(h, addr), "block %#llx is not live", (unsigned long long)(addr))

/* the sums over live blocks and over stacks agree with the process-wide stats */
static void check_consistent(struct heap *h)
{
	const struct heap_stats *st = heap__stats(h);
	struct stacks *s = heap__stacks(h);
	uint64_t count = 0, bytes = 0, lc = 0, lb = 0, ac = 0, ab = 0;
	const struct live_block *b;
	size_t pos = 0;
	uint64_t addr;
	uint32_t id;

	while ((b = heap__next_live(h, &pos, &addr))) {
		count++;
		bytes += heap__block_bytes(h, addr, b);
	}
	for (id = 1; id <= stacks__count(s); id++) {
		const struct stack_totals *t = stacks__totals(s, id);

		lc += t->live_count;
		lb += t->live_bytes;
		ac += t->alloc_count;
		ab += t->alloc_bytes;
	}
	ASSERT_EQ(count, st->live_count, "live blocks iterated vs stats.live_count");
	ASSERT_EQ(bytes, st->live_bytes, "bytes of live blocks iterated vs stats.live_bytes");
	ASSERT_EQ(lc, st->live_count, "sum of stack live_count vs stats.live_count");
	ASSERT_EQ(lb, st->live_bytes, "sum of stack live_bytes vs stats.live_bytes");
	ASSERT_EQ(ac, st->alloc_calls, "sum of stack alloc_count vs stats.alloc_calls");
	ASSERT_EQ(ab, st->alloc_bytes, "sum of stack alloc_bytes vs stats.alloc_bytes");
}

TEST(heap_alloc_free)
{
	struct heap *h = heap__new();

	ASSERT_OK_PTR(h, "heap__new");
	ASSERT_STATS(h, 0, 0, 0, 0, 0, 0, 0, 0);
	ASSERT_OK(heap__alloc(h, 10, 0x1000, 100, 111, FN_MALLOC, S1, 3), "alloc 0x1000");
	ASSERT_STATS(h, 1, 100, 0, 0, 1, 100, 0, 0);
	ASSERT_TOTALS(h, S1, 100, 1, 100, 1);
	ASSERT_LIVE(h, 0x1000, 100, 111, S1, FN_MALLOC);

	ASSERT_OK(heap__alloc(h, 10, 0x2000, 20, 222, FN_CALLOC, S1, 3), "alloc 0x2000");
	ASSERT_OK(heap__alloc(h, 11, 0x3000, 7, 333, FN_NEW, S2, 2), "alloc 0x3000");
	ASSERT_STATS(h, 3, 127, 0, 0, 3, 127, 0, 0);
	ASSERT_TOTALS(h, S1, 120, 2, 120, 2);
	ASSERT_TOTALS(h, S2, 7, 1, 7, 1);
	ASSERT_EQ(stacks__count(heap__stacks(h)), 2, "stacks interned");

	heap__free(h, 11, 0x1000);	/* any thread may free */
	ASSERT_STATS(h, 3, 127, 1, 0, 2, 27, 0, 0);
	ASSERT_TOTALS(h, S1, 20, 1, 120, 2);
	ASSERT_NOT_LIVE(h, 0x1000);
	ASSERT_LIVE(h, 0x2000, 20, 222, S1, FN_CALLOC);

	heap__free(h, 10, 0x3000);
	ASSERT_STATS(h, 3, 127, 2, 0, 1, 20, 0, 0);
	ASSERT_TOTALS(h, S2, 0, 0, 7, 1);
	ASSERT_HELPER(check_consistent(h));

	/* a freed address may be handed out again */
	ASSERT_OK(heap__alloc(h, 10, 0x1000, 5, 444, FN_MALLOC, S3, 1), "alloc 0x1000 again");
	ASSERT_STATS(h, 4, 132, 2, 0, 2, 25, 0, 0);
	ASSERT_TOTALS(h, S3, 5, 1, 5, 1);
	ASSERT_LIVE(h, 0x1000, 5, 444, S3, FN_MALLOC);
	ASSERT_HELPER(check_consistent(h));
	heap__destroy(h);
	heap__destroy(NULL);
}

TEST(heap_unknown_free)
{
	struct heap *h = heap__new();

	ASSERT_OK_PTR(h, "heap__new");
	heap__free(h, 1, 0xdead0);
	ASSERT_STATS(h, 0, 0, 0, 1, 0, 0, 0, 0);
	ASSERT_OK(heap__alloc(h, 1, 0x1000, 8, 1, FN_MALLOC, S1, 3), "alloc");
	heap__free(h, 1, 0x1000);
	heap__free(h, 1, 0x1000);	/* double free: the second is unknown */
	ASSERT_STATS(h, 1, 8, 1, 2, 0, 0, 0, 0);
	ASSERT_TOTALS(h, S1, 0, 0, 8, 1);
	ASSERT_HELPER(check_consistent(h));
	heap__destroy(h);
}

TEST(heap_free_again)
{
	struct heap *h = heap__new();

	ASSERT_OK_PTR(h, "heap__new");
	ASSERT_OK(heap__alloc(h, 1, 0x1000, 8, 1, FN_MALLOC, S1, 3), "alloc");
	heap__free(h, 1, 0x1000);
	/* the free function that free called, late: nothing, not unknown */
	ASSERT_FALSE(heap__free_again(h, 0x1000), "free again of a block not live");
	ASSERT_STATS(h, 1, 8, 1, 0, 0, 0, 0, 0);
	/* another thread got the block back since: a free */
	ASSERT_OK(heap__alloc(h, 2, 0x1000, 16, 2, FN_MALLOC, S2, 2), "alloc by another thread");
	ASSERT_TRUE(heap__free_again(h, 0x1000), "free again of a live block");
	ASSERT_STATS(h, 2, 24, 2, 0, 0, 0, 0, 0);
	ASSERT_TOTALS(h, S2, 0, 0, 16, 1);
	ASSERT_HELPER(check_consistent(h));
	heap__destroy(h);
}

TEST(heap_alloc_at_live_address)
{
	struct heap *h = heap__new();

	ASSERT_OK_PTR(h, "heap__new");
	ASSERT_OK(heap__alloc(h, 1, 0x1000, 100, 1, FN_MALLOC, S1, 3), "alloc");
	/* the free of the first block was lost: the second replaces it */
	ASSERT_OK(heap__alloc(h, 1, 0x1000, 30, 2, FN_NEW, S2, 2), "alloc at a live address");
	ASSERT_STATS(h, 2, 130, 0, 0, 1, 30, 0, 1);
	ASSERT_TOTALS(h, S1, 0, 0, 100, 1);
	ASSERT_TOTALS(h, S2, 30, 1, 30, 1);
	ASSERT_LIVE(h, 0x1000, 30, 2, S2, FN_NEW);
	ASSERT_HELPER(check_consistent(h));
	/* same stack twice */
	ASSERT_OK(heap__alloc(h, 1, 0x1000, 40, 3, FN_NEW, S2, 2), "alloc at a live address again");
	ASSERT_STATS(h, 3, 170, 0, 0, 1, 40, 0, 2);
	ASSERT_TOTALS(h, S2, 40, 1, 70, 2);
	heap__free(h, 1, 0x1000);
	ASSERT_STATS(h, 3, 170, 1, 0, 0, 0, 0, 2);
	ASSERT_TOTALS(h, S2, 0, 0, 70, 2);
	ASSERT_HELPER(check_consistent(h));
	heap__destroy(h);
}

TEST(heap_realloc_done)
{
	struct heap *h = heap__new();

	ASSERT_OK_PTR(h, "heap__new");
	ASSERT_OK(heap__alloc(h, 7, 0x1000, 100, 10, FN_MALLOC, S1, 3), "alloc");
	heap__realloc_begin(h, 7, 0x1000);
	/* while the call runs the block is set aside */
	ASSERT_STATS(h, 1, 100, 0, 0, 0, 0, 0, 0);
	ASSERT_TOTALS(h, S1, 0, 0, 100, 1);
	ASSERT_NOT_LIVE(h, 0x1000);
	ASSERT_OK(heap__realloc_done(h, 7, 0x1000, 0x2000, 300, 20, FN_REALLOC, S2, 2), "done");
	ASSERT_STATS(h, 2, 400, 1, 0, 1, 300, 0, 0);
	ASSERT_TOTALS(h, S1, 0, 0, 100, 1);
	ASSERT_TOTALS(h, S2, 300, 1, 300, 1);
	ASSERT_NOT_LIVE(h, 0x1000);
	ASSERT_LIVE(h, 0x2000, 300, 20, S2, FN_REALLOC);
	ASSERT_HELPER(check_consistent(h));

	/* grown in place: same address */
	heap__realloc_begin(h, 7, 0x2000);
	ASSERT_OK(heap__realloc_done(h, 7, 0x2000, 0x2000, 500, 30, FN_REALLOC, S2, 2), "in place");
	ASSERT_STATS(h, 3, 900, 2, 0, 1, 500, 0, 0);
	ASSERT_TOTALS(h, S2, 500, 1, 800, 2);
	ASSERT_LIVE(h, 0x2000, 500, 30, S2, FN_REALLOC);

	/* realloc(NULL, n): old_addr 0 is a plain allocation */
	ASSERT_OK(heap__realloc_done(h, 7, 0, 0x3000, 9, 40, FN_REALLOC, S3, 1), "realloc(NULL)");
	ASSERT_STATS(h, 4, 909, 2, 0, 2, 509, 0, 0);
	ASSERT_TOTALS(h, S3, 9, 1, 9, 1);
	ASSERT_HELPER(check_consistent(h));

	/* nothing pending is left behind: a later free of 0x1000 is unknown */
	heap__free(h, 7, 0x1000);
	ASSERT_STATS(h, 4, 909, 2, 1, 2, 509, 0, 0);
	heap__destroy(h);
}

TEST(heap_realloc_failed)
{
	struct heap *h = heap__new();

	ASSERT_OK_PTR(h, "heap__new");
	ASSERT_OK(heap__alloc(h, 7, 0x1000, 100, 10, FN_CALLOC, S1, 3), "alloc");
	ASSERT_OK(heap__alloc(h, 7, 0x5000, 1, 11, FN_MALLOC, S2, 2), "another alloc");
	heap__realloc_begin(h, 7, 0x1000);
	ASSERT_STATS(h, 2, 101, 0, 0, 1, 1, 0, 0);
	heap__realloc_failed(h, 7, 0x1000);
	/* back, with its original stack, age and function */
	ASSERT_STATS(h, 2, 101, 0, 0, 2, 101, 0, 0);
	ASSERT_TOTALS(h, S1, 100, 1, 100, 1);
	ASSERT_LIVE(h, 0x1000, 100, 10, S1, FN_CALLOC);
	ASSERT_HELPER(check_consistent(h));

	/* the pending entry is gone: freeing it now is an ordinary free */
	heap__free(h, 7, 0x1000);
	ASSERT_STATS(h, 2, 101, 1, 0, 1, 1, 0, 0);
	ASSERT_TOTALS(h, S1, 0, 0, 100, 1);

	/* realloc of a block we never saw: begin and failed change nothing */
	heap__realloc_begin(h, 7, 0x9000);
	heap__realloc_failed(h, 7, 0x9000);
	ASSERT_STATS(h, 2, 101, 1, 0, 1, 1, 0, 0);
	ASSERT_NOT_LIVE(h, 0x9000);
	ASSERT_HELPER(check_consistent(h));
	heap__destroy(h);
}

TEST(heap_realloc_to_zero_is_a_free)
{
	struct heap *h = heap__new();

	ASSERT_OK_PTR(h, "heap__new");
	ASSERT_OK(heap__alloc(h, 3, 0x1000, 64, 1, FN_MALLOC, S1, 3), "alloc");
	heap__realloc_begin(h, 3, 0x1000);
	heap__free(h, 3, 0x1000);	/* realloc(p, 0) frees p */
	ASSERT_STATS(h, 1, 64, 1, 0, 0, 0, 0, 0);
	ASSERT_TOTALS(h, S1, 0, 0, 64, 1);
	ASSERT_NOT_LIVE(h, 0x1000);
	/* no pending block is left: a failed event now restores nothing */
	heap__realloc_failed(h, 3, 0x1000);
	ASSERT_STATS(h, 1, 64, 1, 0, 0, 0, 0, 0);
	ASSERT_NOT_LIVE(h, 0x1000);
	ASSERT_HELPER(check_consistent(h));
	heap__destroy(h);
}

TEST(heap_realloc_done_without_begin)
{
	struct heap *h = heap__new();

	ASSERT_OK_PTR(h, "heap__new");
	ASSERT_OK(heap__alloc(h, 4, 0x1000, 50, 1, FN_MALLOC, S1, 3), "alloc");
	/* the begin event was lost: the old block is still live, and is freed */
	ASSERT_OK(heap__realloc_done(h, 4, 0x1000, 0x2000, 80, 2, FN_REALLOC, S2, 2), "done");
	ASSERT_STATS(h, 2, 130, 1, 0, 1, 80, 0, 0);
	ASSERT_TOTALS(h, S1, 0, 0, 50, 1);
	ASSERT_TOTALS(h, S2, 80, 1, 80, 1);
	ASSERT_NOT_LIVE(h, 0x1000);
	ASSERT_LIVE(h, 0x2000, 80, 2, S2, FN_REALLOC);

	/* old block allocated before tracing began: an unknown free */
	ASSERT_OK(heap__realloc_done(h, 4, 0x7000, 0x3000, 16, 3, FN_REALLOCARRAY, S3, 1), "done");
	ASSERT_STATS(h, 3, 146, 1, 1, 2, 96, 0, 0);
	ASSERT_TOTALS(h, S3, 16, 1, 16, 1);
	ASSERT_LIVE(h, 0x3000, 16, 3, S3, FN_REALLOCARRAY);
	ASSERT_HELPER(check_consistent(h));

	/* begin of an unknown block, then done: still one unknown free */
	heap__realloc_begin(h, 4, 0x8000);
	ASSERT_OK(heap__realloc_done(h, 4, 0x8000, 0x4000, 4, 4, FN_REALLOC, S3, 1), "done");
	ASSERT_STATS(h, 4, 150, 1, 2, 3, 100, 0, 0);
	ASSERT_HELPER(check_consistent(h));
	heap__destroy(h);
}

TEST(heap_realloc_lost_end)
{
	struct heap *h = heap__new();

	ASSERT_OK_PTR(h, "heap__new");
	ASSERT_OK(heap__alloc(h, 5, 0x1000, 10, 1, FN_MALLOC, S1, 3), "alloc A");
	ASSERT_OK(heap__alloc(h, 5, 0x2000, 20, 2, FN_MALLOC, S2, 2), "alloc B");
	heap__realloc_begin(h, 5, 0x1000);
	/* the end of realloc(A) was lost: a new begin on the thread puts A back */
	heap__realloc_begin(h, 5, 0x2000);
	ASSERT_STATS(h, 2, 30, 0, 0, 1, 10, 0, 0);
	ASSERT_LIVE(h, 0x1000, 10, 1, S1, FN_MALLOC);
	ASSERT_NOT_LIVE(h, 0x2000);
	ASSERT_OK(heap__realloc_done(h, 5, 0x2000, 0x3000, 40, 3, FN_REALLOC, S3, 1), "done B");
	ASSERT_STATS(h, 3, 70, 1, 0, 2, 50, 0, 0);
	ASSERT_TOTALS(h, S1, 10, 1, 10, 1);
	ASSERT_TOTALS(h, S2, 0, 0, 20, 1);
	ASSERT_HELPER(check_consistent(h));

	/* a done whose old block is not the pending one: the pending one is put back */
	heap__realloc_begin(h, 5, 0x1000);
	ASSERT_OK(heap__realloc_done(h, 5, 0x3000, 0x4000, 1, 4, FN_REALLOC, S3, 1), "done C");
	ASSERT_STATS(h, 4, 71, 2, 0, 2, 11, 0, 0);
	ASSERT_LIVE(h, 0x1000, 10, 1, S1, FN_MALLOC);
	ASSERT_NOT_LIVE(h, 0x3000);
	ASSERT_LIVE(h, 0x4000, 1, 4, S3, FN_REALLOC);
	ASSERT_HELPER(check_consistent(h));

	/* a free of some other unknown block on the thread leaves the pending one be */
	heap__realloc_begin(h, 5, 0x1000);
	heap__free(h, 5, 0xbad0);
	ASSERT_STATS(h, 4, 71, 2, 1, 1, 1, 0, 0);
	ASSERT_OK(heap__realloc_done(h, 5, 0x1000, 0x6000, 12, 5, FN_REALLOC, S1, 3), "done A");
	ASSERT_STATS(h, 5, 83, 3, 1, 2, 13, 0, 0);
	ASSERT_TOTALS(h, S1, 12, 1, 22, 2);
	ASSERT_HELPER(check_consistent(h));
	heap__destroy(h);
}

TEST(heap_failed_stack)
{
	static const uint64_t none[] = { 0 };
	struct heap *h = heap__new();
	uint32_t empty;

	ASSERT_OK_PTR(h, "heap__new");
	ASSERT_OK(heap__alloc(h, 1, 0x1000, 33, 1, FN_MALLOC, NULL, -EFAULT), "alloc, no stack");
	ASSERT_OK(heap__alloc(h, 1, 0x2000, 44, 2, FN_MALLOC, S1, -ENOMEM), "alloc, failed stack");
	ASSERT_STATS(h, 2, 77, 0, 0, 2, 77, 2, 0);
	/* both accounted to the empty stack */
	ASSERT_EQ(stacks__count(heap__stacks(h)), 1, "stacks interned");
	empty = stack_id(h, none, 0);
	ASSERT_EQ(empty, 1, "id of the empty stack");
	ASSERT_EQ(find_live(h, 0x1000) ? find_live(h, 0x1000)->stack_id : 0, empty,
		  "stack of the block without stack");
	ASSERT_EQ(stacks__totals(heap__stacks(h), empty)->live_bytes, 77, "live bytes, empty stack");
	ASSERT_EQ(stacks__totals(heap__stacks(h), empty)->alloc_count, 2, "allocs, empty stack");
	heap__free(h, 1, 0x1000);
	ASSERT_STATS(h, 2, 77, 1, 0, 1, 44, 2, 0);
	ASSERT_EQ(stacks__totals(heap__stacks(h), empty)->live_count, 1, "live count, empty stack");
	/* a zero-length stack that was captured is not a failure */
	ASSERT_OK(heap__alloc(h, 1, 0x3000, 1, 3, FN_MALLOC, NULL, 0), "alloc, empty stack");
	ASSERT_STATS(h, 3, 78, 1, 0, 2, 45, 2, 0);
	/* a failed stack on a realloc */
	heap__realloc_begin(h, 1, 0x2000);
	ASSERT_OK(heap__realloc_done(h, 1, 0x2000, 0x4000, 50, 4, FN_REALLOC, NULL, -EFAULT),
		  "realloc, failed stack");
	ASSERT_STATS(h, 4, 128, 2, 0, 2, 51, 3, 0);
	ASSERT_HELPER(check_consistent(h));
	heap__destroy(h);
}

TEST(heap_two_threads_interleaved_reallocs)
{
	struct heap *h = heap__new();

	ASSERT_OK_PTR(h, "heap__new");
	ASSERT_OK(heap__alloc(h, 100, 0x1000, 10, 1, FN_MALLOC, S1, 3), "alloc A on 100");
	ASSERT_OK(heap__alloc(h, 200, 0x2000, 20, 2, FN_MALLOC, S2, 2), "alloc B on 200");
	ASSERT_OK(heap__alloc(h, 200, 0x3000, 30, 3, FN_MALLOC, S2, 2), "alloc C on 200");

	heap__realloc_begin(h, 100, 0x1000);
	heap__realloc_begin(h, 200, 0x2000);
	ASSERT_STATS(h, 3, 60, 0, 0, 1, 30, 0, 0);
	/* thread 200 fails first, thread 100 succeeds at the address B had */
	heap__realloc_failed(h, 200, 0x2000);
	ASSERT_STATS(h, 3, 60, 0, 0, 2, 50, 0, 0);
	ASSERT_LIVE(h, 0x2000, 20, 2, S2, FN_MALLOC);
	ASSERT_OK(heap__realloc_done(h, 100, 0x1000, 0x4000, 15, 4, FN_REALLOC, S3, 1), "done A");
	ASSERT_STATS(h, 4, 75, 1, 0, 3, 65, 0, 0);
	ASSERT_TOTALS(h, S1, 0, 0, 10, 1);
	ASSERT_TOTALS(h, S2, 50, 2, 50, 2);
	ASSERT_TOTALS(h, S3, 15, 1, 15, 1);
	ASSERT_HELPER(check_consistent(h));

	/* both threads in realloc again; ends in the opposite order */
	heap__realloc_begin(h, 100, 0x4000);
	heap__realloc_begin(h, 200, 0x3000);
	ASSERT_STATS(h, 4, 75, 1, 0, 1, 20, 0, 0);
	ASSERT_OK(heap__realloc_done(h, 200, 0x3000, 0x5000, 31, 5, FN_REALLOC, S2, 2), "done C");
	ASSERT_STATS(h, 5, 106, 2, 0, 2, 51, 0, 0);
	ASSERT_NOT_LIVE(h, 0x4000);	/* still inside thread 100's realloc */
	heap__realloc_failed(h, 100, 0x4000);
	ASSERT_STATS(h, 5, 106, 2, 0, 3, 66, 0, 0);
	ASSERT_LIVE(h, 0x4000, 15, 4, S3, FN_REALLOC);
	ASSERT_LIVE(h, 0x5000, 31, 5, S2, FN_REALLOC);
	ASSERT_TOTALS(h, S2, 51, 2, 81, 3);
	ASSERT_HELPER(check_consistent(h));

	/* thread 200's free of the block thread 100 is reallocating to zero */
	heap__realloc_begin(h, 100, 0x5000);
	heap__free(h, 100, 0x5000);
	ASSERT_STATS(h, 5, 106, 3, 0, 2, 35, 0, 0);
	ASSERT_TOTALS(h, S2, 20, 1, 81, 3);
	ASSERT_HELPER(check_consistent(h));
	heap__destroy(h);
}

/* well-formed random event streams (every realloc ends, all allocations seen)
 * against a model: no unknown frees, no reuse, exact live set */
TEST(heap_random_against_model)
{
	enum { SLOTS = 512, STEPS = 20000, TIDS = 4 };
	static const uint64_t *const stacks[] = { S1, S2, S3 };
	static const int depth[] = { 3, 2, 1 };
	uint64_t size[SLOTS] = {}, seed = 77, allocs = 0, frees = 0, bytes = 0;
	struct heap *h = heap__new();
	size_t step, i, live = 0;
	uint64_t live_bytes = 0;

	ASSERT_OK_PTR(h, "heap__new");
	for (step = 0; step < STEPS; step++) {
		size_t slot = test__rand(&seed) % SLOTS, to = test__rand(&seed) % SLOTS;
		uint32_t tid = 1 + test__rand(&seed) % TIDS;
		int s = test__rand(&seed) % 3, op = test__rand(&seed) % 4;
		uint64_t addr = 0x10000 + slot * 16, new_addr = 0x10000 + to * 16;
		uint64_t sz = 1 + test__rand(&seed) % 4096;

		if (!size[slot]) {
			ASSERT_OK(heap__alloc(h, tid, addr, sz, step, FN_MALLOC, stacks[s], depth[s]),
				  "step %zu: alloc", step);
			size[slot] = sz;
			allocs++, bytes += sz, live++, live_bytes += sz;
		} else if (op == 0) {
			heap__free(h, tid, addr);
			frees++, live--, live_bytes -= size[slot];
			size[slot] = 0;
		} else if (op == 1) {
			heap__realloc_begin(h, tid, addr);
			heap__realloc_failed(h, tid, addr);
		} else if (op == 2 && (!size[to] || to == slot)) {
			heap__realloc_begin(h, tid, addr);
			ASSERT_OK(heap__realloc_done(h, tid, addr, new_addr, sz, step, FN_REALLOC,
						     stacks[s], depth[s]), "step %zu: realloc", step);
			live_bytes -= size[slot];
			size[slot] = 0;
			size[to] = sz;
			allocs++, bytes += sz, frees++, live_bytes += sz;
		} else {
			heap__realloc_begin(h, tid, addr);
			heap__free(h, tid, addr);
			frees++, live--, live_bytes -= size[slot];
			size[slot] = 0;
		}
		if (step % 1000 == 0)
			ASSERT_HELPER(check_consistent(h));
	}
	ASSERT_STATS(h, allocs, bytes, frees, 0, live, live_bytes, 0, 0);
	for (i = 0; i < SLOTS; i++) {
		const struct live_block *b = find_live(h, 0x10000 + i * 16);

		ASSERT_EQ(b ? b->size : 0, size[i], "size of slot %zu", i);
	}
	ASSERT_HELPER(check_consistent(h));
	heap__destroy(h);
}

TEST(heap_memory)
{
	struct heap *h = heap__new();
	size_t m0;
	uint64_t i;

	ASSERT_OK_PTR(h, "heap__new");
	m0 = heap__memory(h);
	ASSERT_GT(m0, 0, "memory of a new heap");
	for (i = 1; i <= 1000; i++)
		ASSERT_OK(heap__alloc(h, 1, i * 16, 1, 0, FN_MALLOC, S1, 3), "alloc %llu",
			  (unsigned long long)i);
	ASSERT_GT(heap__memory(h), m0, "memory grows with the live set");
	heap__destroy(h);
}

/* metrics and profiles */

TEST(metric_parse)
{
	static const struct {
		const char *name;
		enum metric metric;
	} good[] = {
		{ "live", METRIC_LIVE_BYTES },
		{ "live-count", METRIC_LIVE_COUNT },
		{ "allocated", METRIC_ALLOC_BYTES },
		{ "count", METRIC_ALLOC_COUNT },
	};
	static const char *const bad[] = { "", "Live", "live ", "bytes", "live-bytes", "counts",
					   "alloc" };
	enum metric m;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		m = (enum metric)-1;
		ASSERT_OK(metric__parse(good[i].name, &m), "metric__parse(\"%s\")", good[i].name);
		ASSERT_EQ(m, good[i].metric, "metric of \"%s\"", good[i].name);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m = METRIC_ALLOC_COUNT;
		ASSERT_EQ(metric__parse(bad[i], &m), -EINVAL, "metric__parse(\"%s\")", bad[i]);
		ASSERT_EQ(m, METRIC_ALLOC_COUNT, "metric left alone by \"%s\"", bad[i]);
	}
}

TEST(profile_snapshot)
{
	struct heap *h = heap__new();
	struct profile *p;
	size_t i;

	ASSERT_OK_PTR(h, "heap__new");
	ASSERT_OK(heap__alloc(h, 1, 0x1000, 10, 0, FN_MALLOC, S1, 3), "alloc");
	ASSERT_OK(heap__alloc(h, 1, 0x2000, 20, 0, FN_MALLOC, S2, 2), "alloc");
	ASSERT_OK(heap__alloc(h, 1, 0x3000, 40, 0, FN_MALLOC, S2, 2), "alloc");
	heap__free(h, 1, 0x3000);
	p = profile__snapshot(h, NULL);
	ASSERT_OK_PTR(p, "profile__snapshot");
	ASSERT_EQ(p->count, 2, "stacks in the profile");
	ASSERT_EQ(p->stats.alloc_calls, 3, "stats copied");
	for (i = 0; i < p->count; i++) {
		const struct profile_stack *s = &p->stacks[i];
		uint32_t n;
		const uint64_t *f = profile__frames(p, s, &n);

		if (n == 2) {
			ASSERT_TRUE(f && f[0] == S2[0] && f[1] == S2[1], "frames of S2");
			ASSERT_EQ(profile__value(s, METRIC_LIVE_BYTES), 20, "S2 live");
			ASSERT_EQ(profile__value(s, METRIC_LIVE_COUNT), 1, "S2 live-count");
			ASSERT_EQ(profile__value(s, METRIC_ALLOC_BYTES), 60, "S2 allocated");
			ASSERT_EQ(profile__value(s, METRIC_ALLOC_COUNT), 2, "S2 count");
		} else {
			ASSERT_EQ(n, 3, "nframes of S1");
			ASSERT_TRUE(f && f[0] == S1[0] && f[2] == S1[2], "frames of S1");
			ASSERT_EQ(profile__value(s, METRIC_LIVE_BYTES), 10, "S1 live");
		}
	}
	ASSERT_STREQ(profile__locate(p, S1[0])->frames[0].function, "[unknown]", "frame name without symbolizer");
	ASSERT_EQ(profile__locate(p, S1[0])->nframes, 1, "frames of a location without symbolizer");
	/* a snapshot does not move with the heap */
	heap__free(h, 1, 0x2000);
	for (i = 0; i < p->count; i++)
		if (p->stacks[i].totals.alloc_count == 2)
			ASSERT_EQ(p->stacks[i].totals.live_bytes, 20, "snapshot after a free");
	profile__destroy(p);
	profile__destroy(NULL);
	heap__destroy(h);
}

/* folded output of the profile of h, in metric */
static char *folded(struct heap *h, enum metric metric, int *err)
{
	struct profile *p = profile__snapshot(h, NULL);
	char *text = NULL;
	size_t size = 0;
	FILE *out;

	*err = -ENOMEM;
	if (!p)
		return NULL;
	out = open_memstream(&text, &size);
	if (!out) {
		profile__destroy(p);
		return NULL;
	}
	*err = folded__write(out, p, metric);
	fclose(out);
	profile__destroy(p);
	return text;
}

#define ASSERT_FOLDED(h, metric, want)                                              \
	do {                                                                        \
		int ___err;                                                         \
		char *___text = folded(h, metric, &___err);                         \
		bool ___ok = ___text && !strcmp(___text, want);                     \
		if (!___ok)                                                         \
			test__fail_str(__FILE__, __LINE__, "folded " #metric, ___text, want); \
		free(___text);                                                      \
		if (!___ok)                                                         \
			return;                                                     \
		ASSERT_OK(___err, "folded__write " #metric);                        \
	} while (0)

#define U "[unknown]"

TEST(folded_empty)
{
	struct heap *h = heap__new();

	ASSERT_OK_PTR(h, "heap__new");
	ASSERT_FOLDED(h, METRIC_LIVE_BYTES, "");
	ASSERT_FOLDED(h, METRIC_ALLOC_COUNT, "");
	/* everything freed: nothing live, but allocations remain */
	ASSERT_OK(heap__alloc(h, 1, 0x1000, 10, 0, FN_MALLOC, S1, 3), "alloc");
	heap__free(h, 1, 0x1000);
	ASSERT_FOLDED(h, METRIC_LIVE_BYTES, "");
	ASSERT_FOLDED(h, METRIC_LIVE_COUNT, "");
	ASSERT_FOLDED(h, METRIC_ALLOC_BYTES, U ";" U ";" U " 10\n");
	ASSERT_FOLDED(h, METRIC_ALLOC_COUNT, U ";" U ";" U " 1\n");
	heap__destroy(h);
}

TEST(folded_metrics_merge_and_order)
{
	static const uint64_t A1[] = { 0x10 }, A2[] = { 0x11 }, B[] = { 0x20 }, E[] = { 0x30 };
	static const uint64_t C[] = { 0x10, 0x20 }, D[] = { 1, 2, 3 }, F[] = { 4, 5, 6, 7 };
	struct heap *h = heap__new();

	ASSERT_OK_PTR(h, "heap__new");
	/* with no symbolizer every frame is "[unknown]": stacks of one depth merge */
	ASSERT_OK(heap__alloc(h, 1, 0x1000, 100, 0, FN_MALLOC, A1, 1), "A1");
	ASSERT_OK(heap__alloc(h, 1, 0x1010, 50, 0, FN_MALLOC, A2, 1), "A2");
	ASSERT_OK(heap__alloc(h, 1, 0x1020, 30, 0, FN_MALLOC, B, 1), "B");
	heap__free(h, 1, 0x1020);
	ASSERT_OK(heap__alloc(h, 1, 0x1030, 5, 0, FN_MALLOC, E, 1), "E");
	ASSERT_OK(heap__alloc(h, 1, 0x2000, 1000, 0, FN_MALLOC, C, 2), "C");
	ASSERT_OK(heap__alloc(h, 1, 0x3000, 70, 0, FN_MALLOC, D, 3), "D1");
	ASSERT_OK(heap__alloc(h, 1, 0x3010, 120, 0, FN_MALLOC, D, 3), "D2");
	heap__free(h, 1, 0x3000);
	ASSERT_OK(heap__alloc(h, 1, 0x4000, 9, 0, FN_MALLOC, F, 4), "F");
	heap__free(h, 1, 0x4000);

	/* one-frame stacks: 100 + 50 + 0 + 5, each below D's 120, merged above it */
	ASSERT_FOLDED(h, METRIC_LIVE_BYTES,
		      U ";" U " 1000\n"
		      U " 155\n"
		      U ";" U ";" U " 120\n");
	/* ties by the text of the stack */
	ASSERT_FOLDED(h, METRIC_LIVE_COUNT,
		      U " 3\n"
		      U ";" U " 1\n"
		      U ";" U ";" U " 1\n");
	ASSERT_FOLDED(h, METRIC_ALLOC_BYTES,
		      U ";" U " 1000\n"
		      U ";" U ";" U " 190\n"
		      U " 185\n"
		      U ";" U ";" U ";" U " 9\n");
	ASSERT_FOLDED(h, METRIC_ALLOC_COUNT,
		      U " 4\n"
		      U ";" U ";" U " 2\n"
		      U ";" U " 1\n"
		      U ";" U ";" U ";" U " 1\n");

	/* a failed stack is "[unknown]" too, and merges with the one-frame stacks */
	ASSERT_OK(heap__alloc(h, 1, 0x5000, 45, 0, FN_MALLOC, NULL, -EFAULT), "failed stack");
	ASSERT_FOLDED(h, METRIC_LIVE_BYTES,
		      U ";" U " 1000\n"
		      U " 200\n"
		      U ";" U ";" U " 120\n");
	heap__destroy(h);
}

/*
 * A snapshot is one moment of the heap, though it is copied a piece at a
 * time, events changing the heap in between: every stack as it was after the
 * same number of idle calls.
 */
TEST(profile_snapshot_is_one_moment)
{
	const uint32_t nstacks = 60000;
	struct profile_opts opts = {};
	struct profile *p = NULL;
	struct busy_heap b;
	uint32_t i, moment, made;

	ASSERT_OK(busy_heap__init(&b, nstacks), "heap of %u stacks", nstacks);
	busy_heap__attach(&b, &opts);
	p = profile__snapshot(b.heap, &opts);
	ASSERT_OK_PTR(p, "profile__snapshot");
	ASSERT_OK(b.err, "allocations while it was taken");
	/* the memory is readied idling, before the moment; the copy idles after */
	moment = p->stacks[0].totals.alloc_count - 1;
	ASSERT_GE(moment, 1, "idle calls before the moment");
	ASSERT_GE(b.idle_calls, moment + 3, "idle calls while copying");
	made = moment * BUSY_NEW_STACKS;
	ASSERT_EQ(p->count, nstacks + made, "stacks: as built, and those made before the moment");
	for (i = 0; i < nstacks; i++) {
		const struct profile_stack *s = &p->stacks[i];

		ASSERT_EQ(s->stack_id, i + 1, "stack %u: id", i);
		ASSERT_EQ(s->fn, busy_heap__fn(i), "stack %u: allocator", i);
		ASSERT_EQ(s->totals.alloc_count, 1 + moment, "stack %u: allocations", i);
		ASSERT_EQ(s->totals.live_bytes, busy_heap__size(i) + moment, "stack %u: live bytes", i);
	}
	for (i = nstacks; i < p->count; i++)
		ASSERT_EQ(p->stacks[i].totals.alloc_count, 1, "stack %u, made by an idle call", i);
	ASSERT_EQ(p->stats.alloc_calls, nstacks + moment * (nstacks + BUSY_NEW_STACKS),
		  "the heap's calls at the moment");
	/* the heap went on: the snapshot did not */
	ASSERT_EQ(stacks__peek(heap__stacks(b.heap), 1)->alloc_count, 1 + b.idle_calls,
		  "stack 1 in the heap");
	profile__destroy(p);
	busy_heap__destroy(&b);
}

/* folded output written while events arrive is the output of the snapshot */
TEST(folded_while_events_arrive)
{
	struct profile_opts opts = { .allocator_frame = true };
	char *quiet = NULL, *busy = NULL;
	size_t quiet_size = 0, busy_size = 0;
	struct profile *p = NULL;
	struct busy_heap b;
	FILE *out;
	int err;

	ASSERT_OK(busy_heap__init(&b, 30000), "heap");
	b.few = true;
	p = profile__snapshot(b.heap, &opts);
	ASSERT_OK_PTR(p, "profile__snapshot");
	out = open_memstream(&quiet, &quiet_size);
	ASSERT_OK_PTR(out, "open_memstream");
	err = folded__write(out, p, METRIC_LIVE_BYTES);
	fclose(out);
	ASSERT_OK(err, "folded__write, no events");
	busy_heap__attach(&b, &p->opts);
	out = open_memstream(&busy, &busy_size);
	ASSERT_OK_PTR(out, "open_memstream");
	err = folded__write(out, p, METRIC_LIVE_BYTES);
	fclose(out);
	ASSERT_OK(err, "folded__write, events arriving");
	ASSERT_OK(b.err, "allocations while it was written");
	/* one a stack as it is shown, then more as the lines are sorted */
	ASSERT_GE(b.idle_calls, 30000 + 30000 / SORT_TICK_EVERY, "idle calls");
	ASSERT_STREQ(busy, quiet, "the same lines");
	free(quiet);
	free(busy);
	profile__destroy(p);
	busy_heap__destroy(&b);
}

/* the program's own mappings: munmap takes pages, a block lives while one is left */
#define PG 4096ULL

/* a mapping of HEAP_WEIGHED_MIN or more counts its pages in memory */
TEST(heap_big_mapping_weighed)
{
	const uint64_t MB = 1ULL << 20, base = 0x7f0000000000ULL;
	struct heap *h = heap__new();
	const struct live_block *b;
	struct heap_weighed *w;
	size_t pos = 0, n = 0;
	uint64_t addr;

	ASSERT_OK_PTR(h, "heap__new");
	ASSERT_OK(heap__map(h, 1, base, 8 * MB, 100, FN_MMAP, S1, 3), "map 8 MiB");
	ASSERT_OK(heap__map(h, 1, base + 64 * MB, 16 * PG, 100, FN_MMAP, S2, 2), "map 16 pages");
	/* none of the big one in memory yet; the small one whole */
	ASSERT_STATS(h, 2, 8 * MB + 16 * PG, 0, 0, 2, 16 * PG, 0, 0);
	ASSERT_TOTALS(h, S1, 0, 1, 8 * MB, 1);
	ASSERT_EQ(heap__set_resident(h, base + 64 * MB, PG, 200), -ENOENT, "the small one is not weighed");
	ASSERT_OK(heap__set_resident(h, base, 3 * MB, 200), "3 MiB in memory");
	ASSERT_TOTALS(h, S1, 3 * MB, 1, 8 * MB, 1);
	ASSERT_EQ(heap__stats(h)->peak_live_bytes, 3 * MB + 16 * PG, "the peak");
	/* more than mapped cannot be */
	ASSERT_OK(heap__set_resident(h, base, 9 * MB, 300), "9 MiB in memory");
	ASSERT_TOTALS(h, S1, 8 * MB, 1, 8 * MB, 1);
	ASSERT_OK(heap__set_resident(h, base, 4 * MB, 400), "4 MiB in memory");
	while ((w = heap__next_weighed(h, &pos, &addr, &b))) {
		ASSERT_EQ(addr, base, "the weighed one");
		ASSERT_EQ(w->resident, 4 * MB, "its measure");
		ASSERT_EQ(w->measured_ns, 400, "its time");
		ASSERT_EQ(b->size, 8 * MB, "its block");
		n++;
	}
	ASSERT_EQ(n, 1, "one weighed mapping");
	ASSERT_EQ(heap__block_bytes(h, base, find_live(h, base)), 4 * MB, "its bytes");
	/* its last 6 MiB unmapped: at most the 2 MiB left, until measured again */
	ASSERT_OK(heap__unmap(h, base + 2 * MB, 6 * MB), "unmap the tail");
	ASSERT_TOTALS(h, S1, 2 * MB, 1, 8 * MB, 1);
	ASSERT_OK(heap__set_resident(h, base, MB, 500), "1 MiB in memory");
	ASSERT_STATS(h, 2, 8 * MB + 16 * PG, 0, 0, 2, MB + 16 * PG, 0, 0);
	ASSERT_HELPER(check_consistent(h));
	/* gone: nothing left, and no longer weighed */
	ASSERT_OK(heap__unmap(h, base, 2 * MB), "unmap the rest");
	ASSERT_STATS(h, 2, 8 * MB + 16 * PG, 1, 0, 1, 16 * PG, 0, 0);
	ASSERT_EQ(heap__set_resident(h, base, MB, 600), -ENOENT, "gone");
	pos = 0;
	ASSERT_NULL(heap__next_weighed(h, &pos, &addr, &b), "none weighed");
	heap__destroy(h);
}

TEST(heap_map_unmap_pieces)
{
	struct heap *h = heap__new();

	ASSERT_OK_PTR(h, "heap__new");
	ASSERT_OK(heap__map(h, 1, 0x10000, 4 * PG, 100, FN_MMAP, S1, 3), "map 4 pages");
	ASSERT_STATS(h, 1, 4 * PG, 0, 0, 1, 4 * PG, 0, 0);

	/* a hole: still one allocation, keyed where it starts */
	ASSERT_OK(heap__unmap(h, 0x10000 + PG, PG), "unmap page 1");
	ASSERT_STATS(h, 1, 4 * PG, 0, 0, 1, 3 * PG, 0, 0);
	ASSERT_LIVE(h, 0x10000, 3 * PG, 100, S1, FN_MMAP);

	/* the head: the block moves to its lowest page left, age and stack kept */
	ASSERT_OK(heap__unmap(h, 0x10000, PG), "unmap page 0");
	ASSERT_NOT_LIVE(h, 0x10000);
	ASSERT_LIVE(h, 0x10000 + 2 * PG, 2 * PG, 100, S1, FN_MMAP);

	/* a range wider than the block, over pages no one holds: only its pages count */
	ASSERT_OK(heap__unmap(h, 0x8000, 0x10000 + 3 * PG - 0x8000), "unmap up to page 3");
	ASSERT_LIVE(h, 0x10000 + 3 * PG, PG, 100, S1, FN_MMAP);
	ASSERT_STATS(h, 1, 4 * PG, 0, 0, 1, PG, 0, 0);

	ASSERT_OK(heap__unmap(h, 0x10000 + 3 * PG, PG), "unmap the last page");
	ASSERT_STATS(h, 1, 4 * PG, 1, 0, 0, 0, 0, 0);
	ASSERT_TOTALS(h, S1, 0, 0, 4 * PG, 1);
	ASSERT_HELPER(check_consistent(h));

	/* pages no block holds (the allocator's, a file's): nothing happens */
	ASSERT_OK(heap__unmap(h, 0x90000, 8 * PG), "unmap unknown pages");
	ASSERT_STATS(h, 1, 4 * PG, 1, 0, 0, 0, 0, 0);
	heap__destroy(h);
}

TEST(heap_map_fixed_over_two)
{
	struct heap *h = heap__new();

	ASSERT_OK_PTR(h, "heap__new");
	ASSERT_OK(heap__map(h, 1, 0x20000, 6 * PG, 10, FN_MMAP, S1, 3), "reserve 6 pages");
	/* MAP_FIXED over pages 1-2 of it: a block of its own */
	ASSERT_OK(heap__map(h, 1, 0x20000 + PG, 2 * PG, 20, FN_MMAP, S2, 2), "fixed over 1-2");
	ASSERT_STATS(h, 2, 8 * PG, 0, 0, 2, 6 * PG, 0, 0);
	ASSERT_LIVE(h, 0x20000, 4 * PG, 10, S1, FN_MMAP);
	ASSERT_LIVE(h, 0x20000 + PG, 2 * PG, 20, S2, FN_MMAP);

	/* one cut through both: pages 2-4 */
	ASSERT_OK(heap__unmap(h, 0x20000 + 2 * PG, 3 * PG), "unmap 2-4");
	ASSERT_LIVE(h, 0x20000, 2 * PG, 10, S1, FN_MMAP);
	ASSERT_LIVE(h, 0x20000 + PG, PG, 20, S2, FN_MMAP);
	ASSERT_STATS(h, 2, 8 * PG, 0, 0, 2, 3 * PG, 0, 0);

	/* the reservation's head goes: it is keyed at page 5 now, past the other block */
	ASSERT_OK(heap__unmap(h, 0x20000, PG), "unmap page 0");
	ASSERT_LIVE(h, 0x20000 + 5 * PG, PG, 10, S1, FN_MMAP);
	ASSERT_LIVE(h, 0x20000 + PG, PG, 20, S2, FN_MMAP);

	/* a new mapping where page 0 was does not touch either */
	ASSERT_OK(heap__map(h, 1, 0x20000, PG, 30, FN_MMAP, S3, 1), "map page 0 again");
	ASSERT_LIVE(h, 0x20000, PG, 30, S3, FN_MMAP);
	ASSERT_STATS(h, 3, 9 * PG, 0, 0, 3, 3 * PG, 0, 0);

	/* everything at once */
	ASSERT_OK(heap__unmap(h, 0x20000, 6 * PG), "unmap all");
	ASSERT_STATS(h, 3, 9 * PG, 3, 0, 0, 0, 0, 0);
	ASSERT_HELPER(check_consistent(h));
	heap__destroy(h);
}

TEST(heap_map_remap)
{
	struct heap *h = heap__new();

	ASSERT_OK_PTR(h, "heap__new");
	ASSERT_OK(heap__map(h, 1, 0x30000, 4 * PG, 10, FN_MMAP, S1, 3), "map 4 pages");
	/* mremap of its last 2 pages into 3 elsewhere: the old pages leave, the
	 * new block is the mremap's */
	ASSERT_OK(heap__unmap(h, 0x30000 + 2 * PG, 2 * PG), "mremap's old pages");
	ASSERT_OK(heap__map(h, 1, 0x50000, 3 * PG, 20, FN_MREMAP, S2, 2), "mremap's new pages");
	ASSERT_LIVE(h, 0x30000, 2 * PG, 10, S1, FN_MMAP);
	ASSERT_LIVE(h, 0x50000, 3 * PG, 20, S2, FN_MREMAP);
	ASSERT_STATS(h, 2, 7 * PG, 0, 0, 2, 5 * PG, 0, 0);
	ASSERT_HELPER(check_consistent(h));
	heap__destroy(h);
}

/* several processes (src/model/processes.h): a fork copies the parent's blocks
 * under the child's number, an exec drops a number's blocks */
static void retag_to_2(void *ctx, const uint64_t *frames, uint32_t n, uint64_t *out)
{
	uint32_t i;

	(void)ctx;
	for (i = 0; i < n; i++)
		out[i] = IS_PROCESS_FRAME(frames[i]) ? PROCESS_FRAME(2)
						     : (frames[i] & ~PROC_MASK) | PROC_TAG(2);
}

TEST(heap_fork_copy_and_exec_drop)
{
	const uint64_t P1[] = { 0x401100 | PROC_TAG(1), PROCESS_FRAME(1) };
	const uint64_t C2[] = { 0x401100 | PROC_TAG(2), PROCESS_FRAME(2) };
	const uint64_t M1[] = { 0x402200 | PROC_TAG(1), PROCESS_FRAME(1) };
	const uint64_t M2[] = { 0x402200 | PROC_TAG(2), PROCESS_FRAME(2) };
	uint64_t a = 0x1000 | PROC_TAG(1), b = 0x2000 | PROC_TAG(1), map = 0x10000 | PROC_TAG(1);
	struct heap *h = heap__new();

	ASSERT_OK_PTR(h, "heap__new");
	ASSERT_OK(heap__alloc(h, 1, a, 100, 5, FN_MALLOC, P1, 2), "parent: a");
	ASSERT_OK(heap__alloc(h, 1, b, 200, 6, FN_MALLOC, P1, 2), "parent: b");
	ASSERT_OK(heap__map(h, 1, map, 4 * PG, 7, FN_MMAP, M1, 2), "parent: a mapping");
	ASSERT_OK(heap__copy_tag(h, PROC_TAG(1), PROC_TAG(2), PROC_MASK, retag_to_2, NULL), "fork");
	/* the copies are live, under the child's stacks, with their ages; not calls */
	ASSERT_LIVE(h, 0x1000 | PROC_TAG(2), 100, 5, C2, FN_MALLOC | LIVE_INHERITED);
	ASSERT_LIVE(h, 0x2000 | PROC_TAG(2), 200, 6, C2, FN_MALLOC | LIVE_INHERITED);
	ASSERT_LIVE(h, 0x10000 | PROC_TAG(2), 4 * PG, 7, M2, FN_MMAP | LIVE_INHERITED);
	ASSERT_TOTALS(h, C2, 300, 2, 0, 0);
	ASSERT_TOTALS(h, P1, 300, 2, 300, 2);
	ASSERT_STATS(h, 3, 300 + 4 * PG, 0, 0, 6, 600 + 8 * PG, 0, 0);
	ASSERT_HELPER(check_consistent(h));

	/* the child frees its copy and unmaps part of its mapping: the parent's stay */
	heap__free(h, 2, 0x1000 | PROC_TAG(2));
	ASSERT_OK(heap__unmap(h, 0x10000 | PROC_TAG(2), PG), "child: unmap a page");
	ASSERT_LIVE(h, a, 100, 5, P1, FN_MALLOC);
	ASSERT_NOT_LIVE(h, 0x1000 | PROC_TAG(2));
	ASSERT_LIVE(h, 0x10000 | PROC_TAG(2) | PG, 3 * PG, 7, M2, FN_MMAP | LIVE_INHERITED);
	ASSERT_LIVE(h, map, 4 * PG, 7, M1, FN_MMAP);
	ASSERT_EQ(heap__stats(h)->unknown_frees, 0, "the child's free is of a block it holds");

	/* the parent execs: its blocks go, not counted as frees; the child's stay */
	heap__drop_tag(h, PROC_TAG(1), PROC_MASK);
	ASSERT_NOT_LIVE(h, a);
	ASSERT_NOT_LIVE(h, map);
	ASSERT_LIVE(h, 0x2000 | PROC_TAG(2), 200, 6, C2, FN_MALLOC | LIVE_INHERITED);
	ASSERT_TOTALS(h, P1, 0, 0, 300, 2);
	ASSERT_STATS(h, 3, 300 + 4 * PG, 1, 0, 2, 200 + 3 * PG, 0, 0);
	/* its pages are gone too: a new mapping may take them */
	ASSERT_OK(heap__map(h, 1, map, PG, 8, FN_MMAP, M1, 2), "parent: its place mapped anew");
	ASSERT_HELPER(check_consistent(h));
	heap__destroy(h);
}

/* a fork: the child's copy of a big mapping holds the parent's pages, as
 * measured, until measured again; an exec drops the parent's weight */
TEST(heap_fork_copies_the_weight)
{
	const uint64_t M1[] = { 0x402200 | PROC_TAG(1), PROCESS_FRAME(1) };
	const uint64_t M2[] = { 0x402200 | PROC_TAG(2), PROCESS_FRAME(2) };
	uint64_t map = 0x10000000 | PROC_TAG(1), copy = 0x10000000 | PROC_TAG(2);
	struct heap *h = heap__new();

	ASSERT_OK_PTR(h, "heap__new");
	ASSERT_OK(heap__map(h, 1, map, 2 * HEAP_WEIGHED_MIN, 7, FN_MMAP, M1, 2), "parent: a big mapping");
	ASSERT_OK(heap__set_resident(h, map, 5 * PG, 8), "parent: measured");
	ASSERT_OK(heap__copy_tag(h, PROC_TAG(1), PROC_TAG(2), PROC_MASK, retag_to_2, NULL), "fork");
	ASSERT_TOTALS(h, M2, 5 * PG, 1, 0, 0);
	ASSERT_EQ(heap__block_bytes(h, copy, find_live(h, copy)), 5 * PG, "the copy's bytes");
	ASSERT_OK(heap__set_resident(h, copy, 9 * PG, 9), "child: measured");
	ASSERT_TOTALS(h, M1, 5 * PG, 1, 2 * HEAP_WEIGHED_MIN, 1);
	ASSERT_TOTALS(h, M2, 9 * PG, 1, 0, 0);
	heap__drop_tag(h, PROC_TAG(1), PROC_MASK);
	ASSERT_TOTALS(h, M1, 0, 0, 2 * HEAP_WEIGHED_MIN, 1);
	ASSERT_EQ(heap__set_resident(h, map, PG, 10), -ENOENT, "the parent's weight went with it");
	ASSERT_EQ(heap__weighed_count(h), 1, "the child's is left");
	ASSERT_HELPER(check_consistent(h));
	heap__destroy(h);
}

/* the peak: what each stack held when the live bytes were highest, exact
 * whatever came after */
TEST(heap_peak)
{
	struct heap *h = heap__new();
	struct stacks *st;
	uint64_t bytes, count;

	ASSERT_OK_PTR(h, "heap__new");
	st = heap__stacks(h);
	ASSERT_OK(heap__alloc(h, 1, 0x1000, 100, 10, FN_MALLOC, S1, 3), "a");
	ASSERT_OK(heap__alloc(h, 1, 0x2000, 200, 20, FN_MALLOC, S2, 2), "b");
	ASSERT_OK(heap__alloc(h, 1, 0x3000, 300, 30, FN_MALLOC, S2, 2), "c: the peak, 600");
	heap__set_clock(h, 40);
	heap__free(h, 1, 0x2000);
	heap__free(h, 1, 0x3000);
	ASSERT_OK(heap__alloc(h, 1, 0x4000, 400, 50, FN_MALLOC, S3, 1), "d: 500, under the peak");
	ASSERT_OK(heap__alloc(h, 1, 0x5000, 50, 60, FN_MALLOC, S1, 3), "e: 550");
	ASSERT_EQ(heap__stats(h)->peak_live_bytes, 600, "peak bytes");
	ASSERT_EQ(heap__stats(h)->peak_live_count, 3, "peak blocks");
	ASSERT_EQ(heap__stats(h)->peak_ns, 30, "when");
	stacks__at_peak(st, stack_id(h, S1, 3), &bytes, &count);
	ASSERT_EQ(bytes, 100, "S1 at the peak (150 now)");
	ASSERT_EQ(count, 1, "S1 blocks at the peak");
	stacks__at_peak(st, stack_id(h, S2, 2), &bytes, &count);
	ASSERT_EQ(bytes, 500, "S2 at the peak (0 now)");
	stacks__at_peak(st, stack_id(h, S3, 1), &bytes, &count);
	ASSERT_EQ(bytes, 0, "S3 came after the peak");

	/* a new peak: everyone's value now */
	ASSERT_OK(heap__alloc(h, 1, 0x6000, 100, 70, FN_MALLOC, S2, 2), "f: 650, a new peak");
	ASSERT_EQ(heap__stats(h)->peak_live_bytes, 650, "new peak");
	stacks__at_peak(st, stack_id(h, S1, 3), &bytes, &count);
	ASSERT_EQ(bytes, 150, "S1 at the new peak");
	stacks__at_peak(st, stack_id(h, S3, 1), &bytes, &count);
	ASSERT_EQ(bytes, 400, "S3 at the new peak");
	stacks__at_peak(st, stack_id(h, S2, 2), &bytes, &count);
	ASSERT_EQ(bytes, 100, "S2 at the new peak");
	heap__free(h, 1, 0x4000);
	stacks__at_peak(st, stack_id(h, S3, 1), &bytes, &count);
	ASSERT_EQ(bytes, 400, "S3 at the peak, freed since");
	heap__destroy(h);
}

/* short-lived frees and the histograms of lifetimes and sizes */
TEST(heap_short_lived)
{
	struct heap *h = heap__new();
	const struct stack_totals *t;
	const struct stack_hist *hist;
	uint32_t id;

	ASSERT_OK_PTR(h, "heap__new");
	heap__set_short_lived(h, 1000000);
	heap__set_histograms(h, true);
	ASSERT_OK(heap__alloc(h, 1, 0x1000, 100, 1000, FN_MALLOC, S1, 3), "a");
	ASSERT_OK(heap__alloc(h, 1, 0x2000, 3000, 2000, FN_MALLOC, S1, 3), "b");
	ASSERT_OK(heap__alloc(h, 1, 0x3000, 100, 3000, FN_MALLOC, S1, 3), "c");
	heap__set_clock(h, 1000 + 500);		/* a: 500 ns */
	heap__free(h, 1, 0x1000);
	heap__set_clock(h, 2000 + 999999);	/* b: just under 1 ms */
	heap__free(h, 1, 0x2000);
	heap__set_clock(h, 3000 + 5000000);	/* c: 5 ms */
	heap__free(h, 1, 0x3000);
	id = stack_id(h, S1, 3);
	t = stacks__peek(heap__stacks(h), id);
	ASSERT_EQ(t->freed, 3, "freed");
	ASSERT_EQ(t->short_lived, 2, "short-lived: under 1 ms");
	hist = stacks__hist(heap__stacks(h), id);
	ASSERT_EQ(hist->life[0], 1, "under 1024 ns");
	ASSERT_EQ(hist->life[stack_hist__life_bucket(999999)], 1, "~1 ms");
	ASSERT_EQ(stack_hist__life_bucket(999999), 10, "2^19 .. 2^20 ns is bucket 10");
	ASSERT_EQ(hist->life[stack_hist__life_bucket(5000000)], 1, "5 ms");
	ASSERT_EQ(hist->size[stack_hist__size_bucket(100)], 2, "two of 100 bytes");
	ASSERT_EQ(stack_hist__size_bucket(100), 7, "64 .. 127 bytes is bucket 7");
	ASSERT_EQ(hist->size[12], 1, "3000 bytes: 2048 .. 4095");
	ASSERT_EQ(stack_hist__size_bucket(0), 0, "0 bytes");
	ASSERT_EQ(stack_hist__size_bucket(UINT64_MAX), SIZE_HIST_BUCKETS - 1, "the last bucket is open");
	ASSERT_EQ(stack_hist__life_bucket(UINT64_MAX), LIFE_HIST_BUCKETS - 1, "the last lifetime bucket is open");
	heap__destroy(h);
}

/*
 * Address space reserved with PROT_NONE is no memory; pages of it made
 * accessible are, each piece a block at the mprotect's stack; made
 * PROT_NONE again, they go and are reserved again. Pages that are no
 * reservation (a malloc'd buffer) count nothing when made accessible.
 */
TEST(heap_reserve_commit_decommit)
{
	struct heap *h = heap__new();
	uint64_t base = 0x40000;

	ASSERT_OK_PTR(h, "heap__new");
	ASSERT_OK(heap__reserve(h, base, 8 * PG), "reserve 8 pages");
	ASSERT_STATS(h, 0, 0, 0, 0, 0, 0, 0, 0);

	ASSERT_OK(heap__commit(h, 1, base + 2 * PG, 3 * PG, 10, FN_MPROTECT, S1, 3), "commit 2-4");
	ASSERT_LIVE(h, base + 2 * PG, 3 * PG, 10, S1, FN_MPROTECT);
	ASSERT_STATS(h, 1, 3 * PG, 0, 0, 1, 3 * PG, 0, 0);

	/* the same pages again: nothing new */
	ASSERT_OK(heap__commit(h, 1, base + 2 * PG, 3 * PG, 15, FN_MPROTECT, S2, 2), "commit 2-4 again");
	ASSERT_STATS(h, 1, 3 * PG, 0, 0, 1, 3 * PG, 0, 0);

	ASSERT_OK(heap__decommit(h, base + 3 * PG, PG), "decommit 3");
	ASSERT_LIVE(h, base + 2 * PG, 2 * PG, 10, S1, FN_MPROTECT);

	/* 3-4: page 3 is reserved again, page 4 memory already */
	ASSERT_OK(heap__commit(h, 1, base + 3 * PG, 2 * PG, 20, FN_MPROTECT, S2, 2), "commit 3-4");
	ASSERT_LIVE(h, base + 3 * PG, PG, 20, S2, FN_MPROTECT);
	ASSERT_STATS(h, 2, 4 * PG, 0, 0, 2, 3 * PG, 0, 0);

	/* pages no reservation holds: nothing */
	ASSERT_OK(heap__commit(h, 1, 0x90000, 2 * PG, 30, FN_MPROTECT, S3, 1), "commit unknown");
	ASSERT_STATS(h, 2, 4 * PG, 0, 0, 2, 3 * PG, 0, 0);

	/* munmap of the whole reservation: both blocks go, and the reservation */
	ASSERT_OK(heap__unmap(h, base, 8 * PG), "unmap all");
	ASSERT_STATS(h, 2, 4 * PG, 2, 0, 0, 0, 0, 0);
	ASSERT_OK(heap__commit(h, 1, base, 8 * PG, 40, FN_MPROTECT, S3, 1), "commit after unmap");
	ASSERT_STATS(h, 2, 4 * PG, 2, 0, 0, 0, 0, 0);
	ASSERT_HELPER(check_consistent(h));
	heap__destroy(h);
}

/* released stacks: their ids serve again (a new serial), the others are
 * found as before however the index's runs were cut, and the frames stay
 * whole when the arena is compacted */
TEST(stacks_release_and_reuse)
{
	struct stacks *s = stacks__new();
	uint64_t frames[3], serial;
	const uint64_t *got;
	uint32_t ids[5000], id, n, i;

	ASSERT_OK_PTR(s, "stacks__new");
	for (i = 0; i < 5000; i++) {
		frames[0] = 0x400000 + i;
		frames[1] = 0x500000 + (i % 7);
		frames[2] = i;
		ids[i] = stacks__intern(s, frames, 1 + i % 3);
		ASSERT_EQ(ids[i], i + 1, "dense ids");
	}
	/* every other one goes, and the totals and frames of the rest stay */
	stacks__totals(s, ids[1])->alloc_count = 7;
	for (i = 0; i < 5000; i += 2)
		stacks__release(s, ids[i]);
	ASSERT_EQ(stacks__held(s), 2500, "half held");
	ASSERT_EQ(stacks__count(s), 5000, "ids up to the highest");
	for (i = 1; i < 5000; i += 2) {
		frames[0] = 0x400000 + i;
		frames[1] = 0x500000 + (i % 7);
		frames[2] = i;
		ASSERT_EQ(stacks__intern(s, frames, 1 + i % 3), ids[i], "still found: %u", i);
		got = stacks__frames(s, ids[i], &n);
		ASSERT_EQ(n, 1 + i % 3, "its frames' number: %u", i);
		ASSERT_EQ(got[0], 0x400000 + i, "its first frame: %u", i);
	}
	ASSERT_EQ(stacks__peek(s, ids[1])->alloc_count, 7, "a kept stack's totals");
	ASSERT_EQ(stacks__held(s), 2500, "no new stack for a known one");
	ASSERT_NULL(stacks__frames(s, ids[0], &n), "a released id has no frames");
	ASSERT_EQ(stacks__peek(s, ids[0])->alloc_count, 0, "nor totals");
	serial = stacks__serial(s, ids[2]);
	ASSERT_EQ(serial, 0, "nor a serial");
	/* a new stack takes a released id, with a serial none had */
	frames[0] = 0x900000;
	id = stacks__intern(s, frames, 1);
	ASSERT_TRUE(id <= 5000 && id % 2 == 1, "a released id reused: %u", id);
	ASSERT_GT(stacks__serial(s, id), 5000, "a new serial");
	ASSERT_EQ(stacks__intern(s, frames, 1), id, "and found again");
	/* the merge adds what a stack did into another */
	stacks__totals(s, ids[3])->exit_bytes = 40;
	stacks__totals(s, ids[3])->alloc_bytes = 50;
	stacks__merge(s, ids[3], ids[1]);
	ASSERT_EQ(stacks__peek(s, ids[1])->exit_bytes, 40, "merged: held at exit");
	ASSERT_EQ(stacks__peek(s, ids[1])->alloc_bytes, 50, "merged: allocated");
	stacks__destroy(s);
}

/* an exit: the process's blocks leave the live set, each counted as held
 * at exit on its stack, but for the copies of its parent's (a fork's) */
TEST(heap_exit_holds_but_not_inherited)
{
	const uint64_t P1[] = { 0x401100 | PROC_TAG(1), PROCESS_FRAME(1) };
	const uint64_t P2[] = { 0x401200 | PROC_TAG(2), PROCESS_FRAME(2) };
	struct heap *h = heap__new();
	const struct stack_totals *t;
	uint64_t bytes = 0, count = 0;
	uint32_t id;

	ASSERT_OK_PTR(h, "heap__new");
	ASSERT_OK(heap__alloc(h, 1, 0x1000 | PROC_TAG(1), 100, 5, FN_MALLOC, P1, 2), "parent");
	ASSERT_OK(heap__copy_tag(h, PROC_TAG(1), PROC_TAG(2), PROC_MASK, retag_to_2, NULL), "fork");
	ASSERT_OK(heap__alloc(h, 2, 0x3000 | PROC_TAG(2), 30, 6, FN_MALLOC, P2, 2), "child: own");
	ASSERT_OK(heap__alloc(h, 2, 0x4000 | PROC_TAG(2), 40, 6, FN_MALLOC, P2, 2), "child: own");
	heap__exit_tag(h, PROC_TAG(2), PROC_MASK, &bytes, &count);
	ASSERT_EQ(bytes, 70, "held at exit: its own blocks");
	ASSERT_EQ(count, 2, "two of them");
	ASSERT_EQ(heap__stats(h)->live_bytes, 100, "live: the parent's alone");
	ASSERT_EQ(heap__stats(h)->exit_bytes, 70, "the heap's held at exit");
	ASSERT_EQ(heap__stats(h)->exit_count, 2, "in two blocks");
	id = stacks__intern(heap__stacks(h), P2, 2);
	t = stacks__peek(heap__stacks(h), id);
	ASSERT_EQ(t->live_bytes, 0, "the child's stack holds nothing live");
	ASSERT_EQ(t->exit_bytes, 70, "its blocks held at exit");
	ASSERT_EQ(t->exit_count, 2, "two");
	ASSERT_EQ(t->alloc_count, 2, "its calls stay");
	ASSERT_EQ(heap__stats(h)->frees, 0, "an exit frees nothing");
	ASSERT_HELPER(check_consistent(h));
	heap__destroy(h);
}
