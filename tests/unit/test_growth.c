// SPDX-License-Identifier: GPL-2.0
/* growth.c: a steady leak ranks above a cache that filled once */
#include "growth.h"
#include "heap.h"
#include "test.h"
#include "tracelloc.h"

static const uint64_t LEAK[] = { 0x401100 };
static const uint64_t CACHE[] = { 0x402200 };

TEST(growth_steady_above_step)
{
	struct heap *h = heap__new();
	struct growth *g = growth__new(10);
	struct growth_stat leak, cache;
	uint32_t i, leak_id, cache_id;
	uint64_t addr = 0x10000;

	ASSERT_OK_PTR(h, "heap__new");
	ASSERT_OK_PTR(g, "growth__new");
	/* the cache: 1 MB in the first interval, then still; the leak: 1 KB an interval */
	for (i = 0; i < 100; i++)
		ASSERT_OK(heap__alloc(h, 1, addr += 0x10000, 10000, 0, FN_MALLOC, CACHE, 1), "cache");
	for (i = 0; i < 20; i++) {
		ASSERT_OK(heap__alloc(h, 1, addr += 0x10000, 1000, 0, FN_MALLOC, LEAK, 1), "leak");
		ASSERT_OK(growth__sample(g, heap__stacks(h), (uint64_t)i * 1000000000ULL), "sample");
	}
	leak_id = stacks__intern(heap__stacks(h), LEAK, 1);
	cache_id = stacks__intern(heap__stacks(h), CACHE, 1);
	growth__stat(g, leak_id, &leak);
	growth__stat(g, cache_id, &cache);
	ASSERT_EQ(growth__samples(g), 10, "the window");
	ASSERT_EQ(leak.intervals, 9, "intervals");
	ASSERT_EQ(leak.grew, 9, "the leak grew in each");
	ASSERT_TRUE(leak.slope > 999 && leak.slope < 1001, "1000 bytes/s (%g)", leak.slope);
	ASSERT_TRUE(leak.span_s > 8.99 && leak.span_s < 9.01, "over 9 s (%g)", leak.span_s);
	ASSERT_EQ(cache.grew, 0, "the cache held still in the window");
	ASSERT_TRUE(growth__score(&leak) > growth__score(&cache), "the leak first");
	/* a stack with nothing live in the window */
	growth__stat(g, 999, &cache);
	ASSERT_EQ(cache.grew, 0, "nothing live: never grew");
	ASSERT_TRUE(cache.slope == 0, "nothing live: flat");
	growth__stat(g, 1 << 20, &cache);
	ASSERT_EQ(cache.intervals, 0, "an id past the rows");
	growth__destroy(g);
	heap__destroy(h);
}
