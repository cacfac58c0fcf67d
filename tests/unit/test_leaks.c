// SPDX-License-Identifier: GPL-2.0
/* leaks.c: the classes of valgrind's memcheck over a memory image made by
 * hand: reachable, possibly (interior), a lost list, a lost cycle, a
 * pointer kept only xor-ed, roots that hold blocks of their own */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "leaks.h"
#include "test.h"

#define BASE 0x100000ULL
#define SPACE (64 << 10)

struct image {
	uint64_t words[SPACE / 8];
};

static ssize_t read_image(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct image *im = ctx;

	if (addr < BASE || addr >= BASE + SPACE)
		return -EFAULT;
	if (len > BASE + SPACE - addr)
		len = BASE + SPACE - addr;
	memcpy(buf, (char *)im->words + (addr - BASE), len);
	return (ssize_t)len;
}

static void put(struct image *im, uint64_t addr, uint64_t word)
{
	im->words[(addr - BASE) / 8] = word;
}

static enum leak_class class_of(const struct leaks *l, uint64_t addr)
{
	const struct leak_block *b = leaks__find(l, addr);

	return b ? (enum leak_class)b->cls : LEAK__COUNT;
}

/* blocks of 64 bytes at BASE + 0x1000 * i; the root is [BASE, BASE + 0x100) */
#define BLOCK(i) (BASE + 0x1000ULL * (i))

static struct leaks *image_leaks(struct image *im, int nblocks)
{
	struct leaks *l = leaks__new(read_image, im);
	int i;

	for (i = 1; i <= nblocks && l; i++)
		if (leaks__add(l, BLOCK(i), 64, BLOCK(i), i))
			return NULL;
	if (l)
		leaks__seal(l);
	return l;
}

TEST(leaks_classes)
{
	static struct image im;
	uint64_t bytes[LEAK__COUNT], blocks[LEAK__COUNT];
	struct leaks *l;

	memset(&im, 0, sizeof(im));
	/* 1 reached from the root, 2 from 1 */
	put(&im, BASE + 0x10, BLOCK(1));
	put(&im, BLOCK(1) + 8, BLOCK(2));
	/* 3 only through its middle; what 3 points at the start of is only
	 * possibly reached too (memcheck's is_prior_definite) */
	put(&im, BASE + 0x18, BLOCK(3) + 24);
	put(&im, BLOCK(3), BLOCK(4));
	/* 13 through its middle, and later (a register) through its start:
	 * reached, and 14, which it points at the start of, with it */
	put(&im, BASE + 0x40, BLOCK(13) + 8);
	put(&im, BLOCK(13) + 16, BLOCK(14));
	/* a lost list, head at the highest address: 7 -> 6 -> 5 */
	put(&im, BLOCK(7), BLOCK(6));
	put(&im, BLOCK(6), BLOCK(5));
	/* a lost cycle: 8 <-> 9 */
	put(&im, BLOCK(8) + 16, BLOCK(9));
	put(&im, BLOCK(9) + 16, BLOCK(8));
	/* 10 kept only xor-ed: no scanner sees it */
	put(&im, BASE + 0x20, BLOCK(10) ^ 0x5a5a5a5a5a5aULL);
	/* 11 reached from a register; 12 a misaligned word only */
	{
		uint64_t w = BLOCK(12);

		memcpy((char *)im.words + 0x29, &w, sizeof(w));
	}
	l = image_leaks(&im, 14);
	ASSERT_TRUE(l != NULL, "leaks__new");
	ASSERT_OK(leaks__root_range(l, BASE, BASE + 0x100, false), "the root range");
	ASSERT_OK(leaks__root_word(l, BLOCK(11) + 8), "a register, into 11's middle");
	/* the scan's state 1 is POSSIBLE (leaks.c) */
	ASSERT_EQ(leaks__find(l, BLOCK(14))->state, 1, "14: possibly reached, before 13's start is");
	ASSERT_OK(leaks__root_word(l, BLOCK(13)), "a register, to 13's start");
	ASSERT_OK(leaks__classify(l), "classify");
	ASSERT_EQ(class_of(l, BLOCK(1)), LEAK_REACHABLE, "1: from the root");
	ASSERT_EQ(class_of(l, BLOCK(2)), LEAK_REACHABLE, "2: from 1");
	ASSERT_EQ(class_of(l, BLOCK(3)), LEAK_POSSIBLE, "3: through its middle only");
	ASSERT_EQ(class_of(l, BLOCK(4)), LEAK_POSSIBLE, "4: from 3's, to its start: only possibly");
	ASSERT_EQ(class_of(l, BLOCK(13)), LEAK_REACHABLE, "13: its start, after its middle");
	ASSERT_EQ(class_of(l, BLOCK(14)), LEAK_REACHABLE, "14: from 13 once 13 was reached");
	ASSERT_EQ(class_of(l, BLOCK(7)), LEAK_DEFINITE, "7: the lost list's head");
	ASSERT_EQ(class_of(l, BLOCK(6)), LEAK_INDIRECT, "6: a node");
	ASSERT_EQ(class_of(l, BLOCK(5)), LEAK_INDIRECT, "5: a node, a leader until 7 came");
	ASSERT_EQ(class_of(l, BLOCK(8)), LEAK_DEFINITE, "8: the cycle's first");
	ASSERT_EQ(class_of(l, BLOCK(9)), LEAK_INDIRECT, "9: the rest of the cycle");
	ASSERT_EQ(class_of(l, BLOCK(10)), LEAK_DEFINITE, "10: xor-ed");
	ASSERT_EQ(class_of(l, BLOCK(11)), LEAK_POSSIBLE, "11: a register into its middle");
	ASSERT_EQ(class_of(l, BLOCK(12)), LEAK_DEFINITE, "12: a misaligned word is no pointer");
	leaks__totals(l, bytes, blocks);
	ASSERT_EQ(blocks[LEAK_DEFINITE], 4, "7, 8, 10, 12");
	ASSERT_EQ(blocks[LEAK_INDIRECT], 3, "5, 6, 9");
	ASSERT_EQ(bytes[LEAK_REACHABLE], 4 * 64, "1, 2, 13, 14");
	ASSERT_EQ(blocks[LEAK_POSSIBLE], 3, "3, 4, 11");
	leaks__destroy(l);
}

TEST(leaks_root_that_holds_blocks)
{
	static struct image im;
	struct leaks *l;

	memset(&im, 0, sizeof(im));
	/* the range [BLOCK(1), BLOCK(4)) is a root with blocks in it (an arena
	 * under -p): its words outside the blocks are roots, not theirs */
	put(&im, BLOCK(1) + 0x800, BLOCK(3));	/* between blocks: a root */
	put(&im, BLOCK(2), BLOCK(5));		/* inside block 2, which nothing reaches */
	l = image_leaks(&im, 5);
	ASSERT_TRUE(l != NULL, "leaks__new");
	ASSERT_TRUE(!leaks__any_in(l, BLOCK(1) - 0x100, BLOCK(1)), "no block below the first");
	ASSERT_TRUE(leaks__any_in(l, BLOCK(1) + 8, BLOCK(1) + 16), "a range inside a block");
	ASSERT_TRUE(leaks__any_in(l, BLOCK(2) - 8, BLOCK(2) + 1), "one that reaches into one");
	ASSERT_TRUE(!leaks__any_in(l, BLOCK(5) + 64, BLOCK(6)), "none past the last");
	ASSERT_OK(leaks__root_range(l, BLOCK(1), BLOCK(4), true), "the arena");
	ASSERT_OK(leaks__classify(l), "classify");
	ASSERT_EQ(class_of(l, BLOCK(3)), LEAK_REACHABLE, "3: from the arena's own words");
	ASSERT_EQ(class_of(l, BLOCK(2)), LEAK_DEFINITE, "2: its bytes are no root");
	ASSERT_EQ(class_of(l, BLOCK(5)), LEAK_INDIRECT, "5: from 2 only");
	ASSERT_EQ(class_of(l, BLOCK(1)), LEAK_DEFINITE, "1: nothing points at it");
	leaks__destroy(l);
}

TEST(leaks_unreadable_and_overlapping)
{
	static struct image im;
	struct leaks *l = leaks__new(read_image, &im);

	memset(&im, 0, sizeof(im));
	ASSERT_TRUE(l != NULL, "leaks__new");
	/* a block outside the image cannot be read: it is scanned as empty */
	ASSERT_OK(leaks__add(l, BASE + SPACE + 0x1000, 64, 1, 1), "outside");
	ASSERT_OK(leaks__add(l, BLOCK(1), 64, 2, 2), "a block");
	ASSERT_OK(leaks__add(l, BLOCK(1) + 32, 64, 3, 3), "one overlapping it (a lost record)");
	ASSERT_OK(leaks__seal(l), "seal");
	ASSERT_EQ(leaks__count(l), 2, "the overlap dropped");
	put(&im, BASE, BASE + SPACE + 0x1000);
	ASSERT_OK(leaks__root_range(l, BASE - 0x2000, BASE + 0x100, false), "a root partly unreadable");
	ASSERT_OK(leaks__classify(l), "classify");
	ASSERT_EQ(class_of(l, BASE + SPACE + 0x1000), LEAK_REACHABLE, "reached past the unreadable pages");
	ASSERT_EQ(class_of(l, BLOCK(1)), LEAK_DEFINITE, "the block");
	leaks__destroy(l);
}

TEST(leaks_sorted_by_address)
{
	struct leaks *l = leaks__new(read_image, NULL);
	uint64_t x = 88172645463325252ULL, prev = 0;
	size_t i;

	ASSERT_TRUE(l != NULL, "leaks__new");
	/* addresses that differ in every 16-bit digit, in no order */
	for (i = 0; i < 5000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		ASSERT_OK(leaks__add(l, (x & 0x7fffffffffffULL) & ~0xfULL, 8, i, (uint32_t)i), "add");
	}
	ASSERT_OK(leaks__seal(l), "seal");
	ASSERT_GT(leaks__count(l), 4900, "few overlaps among random addresses");
	for (i = 0; i < leaks__count(l); i++) {
		ASSERT_TRUE(leaks__block(l, i)->addr > prev || i == 0, "sorted at %zu", i);
		prev = leaks__block(l, i)->addr;
	}
	leaks__destroy(l);
}

TEST(leaks_lost_by_stack)
{
	static struct image im;
	struct leak_stack *lost;
	struct leaks *l = leaks__new(read_image, &im);
	size_t n;

	memset(&im, 0, sizeof(im));
	ASSERT_TRUE(l != NULL, "leaks__new");
	/* stack 7: two lost blocks (a list's head and node); stack 9: one kept */
	ASSERT_OK(leaks__add(l, BLOCK(1), 64, 0, 7), "head");
	ASSERT_OK(leaks__add(l, BLOCK(2), 32, 0, 7), "node");
	ASSERT_OK(leaks__add(l, BLOCK(3), 16, 0, 9), "kept");
	ASSERT_OK(leaks__seal(l), "seal");
	put(&im, BLOCK(1), BLOCK(2));
	put(&im, BASE, BLOCK(3));
	ASSERT_OK(leaks__root_range(l, BASE, BASE + 8, false), "root");
	ASSERT_OK(leaks__classify(l), "classify");
	ASSERT_OK(leaks__lost_by_stack(l, &lost, &n), "lost_by_stack");
	ASSERT_EQ(n, 2, "stack 7 lost something in two classes, stack 9 nothing");
	ASSERT_EQ(lost[0].stack_id, 7, "stack 7");
	ASSERT_EQ(lost[0].cls, LEAK_INDIRECT, "its classes in order: indirectly first");
	ASSERT_EQ(lost[0].bytes, 32, "the node");
	ASSERT_EQ(lost[1].stack_id, 7, "stack 7 again");
	ASSERT_EQ(lost[1].cls, LEAK_DEFINITE, "then definitely");
	ASSERT_EQ(lost[1].bytes, 64, "the head");
	ASSERT_EQ(lost[1].count, 1, "one block");
	free(lost);
	leaks__destroy(l);
}

TEST(leaks_next_chunk_header_is_no_pointer)
{
	static struct image im;
	struct leaks *l = leaks__new(read_image, &im);

	memset(&im, 0, sizeof(im));
	ASSERT_TRUE(l != NULL, "leaks__new");
	/* 100 bytes: a 112-byte chunk, the next one's header at +96, inside
	 * it (where glibc's arena points, at the top chunk); 24 bytes: a
	 * 32-byte chunk, the next header at +16 */
	ASSERT_OK(leaks__add(l, BLOCK(1), 100, 1, 1), "add 1");
	ASSERT_OK(leaks__add(l, BLOCK(2), 100, 2, 2), "add 2");
	ASSERT_OK(leaks__add(l, BLOCK(3), 24, 3, 3), "add 3");
	ASSERT_OK(leaks__seal(l), "seal");
	put(&im, BASE + 0x10, BLOCK(1) + 96);
	put(&im, BASE + 0x18, BLOCK(2) + 88);
	put(&im, BASE + 0x20, BLOCK(3) + 16);
	ASSERT_OK(leaks__root_range(l, BASE, BASE + 0x100, false), "the root range");
	ASSERT_OK(leaks__classify(l), "classify");
	ASSERT_EQ(class_of(l, BLOCK(1)), LEAK_DEFINITE, "1: the next chunk's header reaches nothing");
	ASSERT_EQ(class_of(l, BLOCK(2)), LEAK_POSSIBLE, "2: a word before it does");
	ASSERT_EQ(class_of(l, BLOCK(3)), LEAK_DEFINITE, "3: a small one's too");
	leaks__destroy(l);
}

/* a stream over an image of 1 MiB: what is asked is queued, taken in
 * order; the pages asked and not taken are counted against the limit */
#define S_BASE 0x40000000ULL
#define S_SPACE (1 << 20)
#define S_PAGES 64

struct fake_stream {
	uint8_t *image;
	uint8_t *queue;
	size_t queued, taken, queue_cap;
	size_t asks, takes, fail_at;	/* fail_at: the take that fails (0: none) */
	size_t pages_out, max_pages_out;
	size_t range_pages[1024], nranges, first_range;
	uint64_t range_len[1024];
};

static size_t span_pages(uint64_t at, uint64_t len)
{
	return (size_t)((at + len - 1) / 4096 - at / 4096 + 1);
}

static ssize_t read_s_image(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct fake_stream *f = ctx;

	if (addr < S_BASE || addr >= S_BASE + S_SPACE)
		return -EFAULT;
	if (len > S_BASE + S_SPACE - addr)
		len = S_BASE + S_SPACE - addr;
	memcpy(buf, f->image + (addr - S_BASE), len);
	return (ssize_t)len;
}

static int fake_ask(void *ctx, const struct iovec *r, size_t n)
{
	struct fake_stream *f = ctx;
	size_t i;

	f->asks++;
	for (i = 0; i < n; i++) {
		uint64_t at = (uint64_t)(uintptr_t)r[i].iov_base;

		if (at < S_BASE || at + r[i].iov_len > S_BASE + S_SPACE ||
		    f->queued + r[i].iov_len > f->queue_cap || f->nranges == 1024)
			return -EFAULT;
		memcpy(f->queue + f->queued, f->image + (at - S_BASE), r[i].iov_len);
		f->queued += r[i].iov_len;
		f->range_len[f->nranges] = r[i].iov_len;
		f->range_pages[f->nranges++] = span_pages(at, r[i].iov_len);
		f->pages_out += span_pages(at, r[i].iov_len);
	}
	if (f->pages_out > f->max_pages_out)
		f->max_pages_out = f->pages_out;
	return 0;
}

static int fake_take(void *ctx, void *buf, size_t len)
{
	struct fake_stream *f = ctx;

	if (++f->takes == f->fail_at)
		return -ETIMEDOUT;
	if (f->taken + len > f->queued)
		return -EIO;
	memcpy(buf, f->queue + f->taken, len);
	f->taken += len;
	/* the ranges taken whole free their pages */
	while (f->first_range < f->nranges && len >= f->range_len[f->first_range]) {
		len -= f->range_len[f->first_range];
		f->pages_out -= f->range_pages[f->first_range++];
	}
	return 0;
}

static void s_put(struct fake_stream *f, uint64_t addr, uint64_t word)
{
	memcpy(f->image + (addr - S_BASE), &word, sizeof(word));
}

/* big blocks streamed (one cut in three pieces), small ones beside them
 * read through their windows, a lost pair among them; fail_at: the take
 * that fails (the scan goes on through the read function); b2_start: a
 * register points at b2's start once b2 was scanned as possibly reached,
 * so that b2 and what it reached are scanned again, as reached */
static void streamed_scan(size_t fail_at, bool b2_start)
{
	const uint64_t b1 = S_BASE + 0x1000, b2 = S_BASE + 0x20010, b3 = S_BASE + 0x80000,
		       s1 = S_BASE + 0x90000, l1 = S_BASE + 0xa0000, l2 = S_BASE + 0xb0000;
	struct fake_stream f = { .fail_at = fail_at, .queue_cap = 4 * S_SPACE };
	struct leaks_stream s = { .ask = fake_ask, .take = fake_take, .ctx = &f,
				  .max_ranges = 255, .pages = S_PAGES };
	uint64_t bytes[LEAK__COUNT], blocks[LEAK__COUNT];
	struct leaks *l;

	f.image = calloc(1, S_SPACE);
	f.queue = malloc(f.queue_cap);
	ASSERT_TRUE(f.image && f.queue, "memory");
	s_put(&f, S_BASE + 0x10, b1);			/* the root: b1 */
	s_put(&f, b1 + (64 << 10) - 8, b2 + 8);		/* b1's last word: b2's middle */
	s_put(&f, b2 + (300 << 10) - 16, b3);		/* deep in b2's last piece: b3 */
	s_put(&f, b3 + 4000, s1);			/* b3's middle: s1, a small one */
	s_put(&f, l1 + 8, l2);				/* lost: l1 -> l2 */
	l = leaks__new(read_s_image, &f);
	ASSERT_TRUE(l != NULL, "leaks__new");
	ASSERT_OK(leaks__add(l, b1, 64 << 10, 1, 1), "b1");
	ASSERT_OK(leaks__add(l, b2, 300 << 10, 2, 2), "b2");
	ASSERT_OK(leaks__add(l, b3, 8 << 10, 3, 3), "b3");
	ASSERT_OK(leaks__add(l, s1, 64, 4, 4), "s1");
	ASSERT_OK(leaks__add(l, l1, 16 << 10, 5, 5), "l1");
	ASSERT_OK(leaks__add(l, l2, 4 << 10, 6, 6), "l2");
	ASSERT_OK(leaks__seal(l), "seal");
	ASSERT_OK(leaks__stream(l, &s), "the stream");
	ASSERT_OK(leaks__root_range(l, S_BASE, S_BASE + 0x100, false), "the root");
	if (b2_start) {
		ASSERT_OK(leaks__root_word(l, b2), "a register, to b2's start");
		ASSERT_OK(leaks__classify(l), "classify");
		ASSERT_EQ(class_of(l, b2), LEAK_REACHABLE, "b2: its start, after its middle");
		ASSERT_EQ(class_of(l, b3), LEAK_REACHABLE, "b3: from b2, scanned again as reached");
		ASSERT_EQ(class_of(l, s1), LEAK_REACHABLE, "s1: from b3");
		/* b2 and b3 streamed twice: once possibly reached, once reached */
		ASSERT_EQ(f.taken, (64 << 10) + 2 * (300 << 10) + 2 * (8 << 10) + (16 << 10) + (4 << 10),
			  "b2 and b3 streamed again");
		leaks__destroy(l);
		free(f.image);
		free(f.queue);
		return;
	}
	ASSERT_OK(leaks__classify(l), "classify");
	ASSERT_EQ(class_of(l, b1), LEAK_REACHABLE, "b1: from the root");
	ASSERT_EQ(class_of(l, b2), LEAK_POSSIBLE, "b2: through its middle");
	ASSERT_EQ(class_of(l, b3), LEAK_POSSIBLE, "b3: from b2's last piece, b2 only possibly reached");
	ASSERT_EQ(class_of(l, s1), LEAK_POSSIBLE, "s1: from b3");
	ASSERT_EQ(class_of(l, l1), LEAK_DEFINITE, "l1: lost");
	ASSERT_EQ(class_of(l, l2), LEAK_INDIRECT, "l2: from l1");
	leaks__totals(l, bytes, blocks);
	ASSERT_EQ(blocks[LEAK_REACHABLE], 1, "b1");
	ASSERT_EQ(blocks[LEAK_POSSIBLE], 3, "b2, b3, s1");
	ASSERT_TRUE(f.max_pages_out <= S_PAGES, "never more pages asked than the stream holds");
	if (!fail_at) {
		ASSERT_FALSE(leaks__stream_failed(l), "the stream worked");
		/* b1 (17 pages) and b2 (76) in batches of 32 pages; b3, l1, l2 */
		ASSERT_TRUE(f.asks >= 4, "b2 cut into pieces: more asks than blocks");
		ASSERT_EQ(f.taken, f.queued, "every byte asked for taken");
		ASSERT_EQ(f.taken, (64 << 10) + (300 << 10) + (8 << 10) + (16 << 10) + (4 << 10),
			  "each large block's bytes streamed once");
		ASSERT_EQ(leaks__bytes_streamed(l), f.taken, "the bytes streamed, counted");
	} else {
		ASSERT_TRUE(leaks__stream_failed(l), "the stream given up");
	}
	leaks__destroy(l);
	free(f.image);
	free(f.queue);
}

TEST(leaks_streamed)
{
	streamed_scan(0, false);
}

TEST(leaks_stream_fails_midway)
{
	streamed_scan(2, false);
}

/* a large block scanned as possibly reached, then reached: scanned again */
TEST(leaks_streamed_upgrade)
{
	streamed_scan(0, true);
}
