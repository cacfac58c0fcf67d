// SPDX-License-Identifier: GPL-2.0
/* sort.c: a sort in steps, against qsort */
#include <stdlib.h>

#include "sort.h"
#include "test.h"

struct item {
	uint32_t key;
	uint32_t tag;
};

static int by_key(const void *a, const void *b, void *arg)
{
	const struct item *x = a, *y = b;

	(void)arg;
	return x->key < y->key ? -1 : x->key > y->key;
}

static int by_key_tag(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->tag < y->tag ? -1 : x->tag > y->tag;
}

static void count_tick(void *ctx)
{
	(*(unsigned *)ctx)++;
}

TEST(sort_chunked_sorts_as_qsort)
{
	/* around the chunk and its doublings, and a run of odd ones */
	static const size_t sizes[] = { 0, 1, 2, 4095, 4096, 4097, 8191, 8192, 8193, 12289,
					65536, 100003 };
	uint64_t seed = 99;
	size_t s, i;

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t n = sizes[s];
		struct item *got = malloc((n ? n : 1) * sizeof(*got));
		struct item *want = malloc((n ? n : 1) * sizeof(*want));
		/* many equal keys in some rounds, all distinct in others */
		uint32_t range = s % 2 ? 50 : UINT32_MAX;
		unsigned ticks = 0;

		ASSERT_TRUE(got && want, "malloc");
		for (i = 0; i < n; i++) {
			got[i].key = (uint32_t)(test__rand(&seed) % range);
			got[i].tag = (uint32_t)i;
		}
		memcpy(want, got, n * sizeof(*got));
		qsort(want, n, sizeof(*want), by_key_tag);
		ASSERT_OK(sort__chunked(got, n, sizeof(*got), by_key, NULL, count_tick, &ticks),
			  "sort of %zu", n);
		for (i = 0; i < n; i++)
			ASSERT_EQ(got[i].key, want[i].key, "%zu items: key %zu", n, i);
		/* the same items: sorting the result by (key, tag) gives want */
		qsort(got, n, sizeof(*got), by_key_tag);
		for (i = 0; i < n; i++)
			ASSERT_EQ(got[i].tag, want[i].tag, "%zu items: item %zu kept", n, i);
		/* a tick every chunk sorted, and every SORT_TICK_EVERY merged per pass */
		ASSERT_GE(ticks, n / SORT_TICK_EVERY, "%zu items: ticks", n);
		if (n > SORT_TICK_EVERY)
			ASSERT_GE(ticks, 2 * (n / SORT_TICK_EVERY) - 1, "%zu items: ticks of the merges", n);
		/* no tick: the same sort */
		ASSERT_OK(sort__chunked(want, n, sizeof(*want), by_key, NULL, NULL, NULL), "no tick");
		free(got);
		free(want);
	}
}
