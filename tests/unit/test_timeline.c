// SPDX-License-Identifier: GPL-2.0
/* timeline.c: points over a long trace, bands, and what the page says */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "profile.h"
#include "test.h"
#include "timeline.h"
#include "tracelloc.h"

TEST(timeline_thins_and_writes)
{
	struct heap *h = heap__new();
	struct timeline *t = timeline__new();
	uint64_t frames[1];
	struct profile *p;
	char *page = NULL;
	size_t len = 0;
	FILE *out;
	int i;

	ASSERT_OK_PTR(h, "heap__new");
	ASSERT_OK_PTR(t, "timeline__new");
	/* twelve stacks, each a block a second */
	for (i = 0; i < 2500; i++) {
		frames[0] = 0x401000 + (i % 12) * 16;
		ASSERT_OK(heap__alloc(h, 1, 0x10000 + i * 64, 100 + i % 12, i, FN_MALLOC, frames, 1),
			  "alloc");
		ASSERT_OK(timeline__sample(t, heap__stacks(h), i, i ? 0 : 4096), "sample");
	}
	p = profile__snapshot(h, NULL);
	ASSERT_OK_PTR(p, "snapshot");
	out = open_memstream(&page, &len);
	ASSERT_OK_PTR(out, "memstream");
	ASSERT_OK(timeline__write(out, t, p, "a <title> & more"), "write");
	fclose(out);
	ASSERT_TRUE(strstr(page, "<title>a &lt;title&gt; &amp; more</title>") != NULL, "the title, escaped");
	/* ten bands of stacks and the rest */
	ASSERT_TRUE(strstr(page, "data-band=\"10\"") != NULL, "the rest, band 10");
	ASSERT_TRUE(strstr(page, "data-band=\"11\"") == NULL, "no band 11");
	/* at most TIMELINE_POINTS points, the last one kept */
	{
		const char *at = strstr(page, "var T=["), *end = at ? strchr(at, ']') : NULL;
		int n = 1;

		ASSERT_OK_PTR(end, "the points");
		for (; at < end; at++)
			n += *at == ',';
		ASSERT_TRUE(n <= TIMELINE_POINTS && n > TIMELINE_POINTS / 2, "points: %d", n);
		ASSERT_TRUE(strstr(page, ",2499.000]") != NULL, "the last point stays");
	}
	/* evenly spread: every gap the same but the last (to the newest sample) */
	{
		const char *at = strstr(page, "var T=[") + strlen("var T=[");
		double prev = -1, gap = -1, v;
		int n = 0, uneven = 0;
		char *end;

		for (;; at = end + 1) {
			v = strtod(at, &end);
			if (end == at)
				break;
			if (*end == ']')
				break;	/* the newest: any gap */
			if (prev >= 0 && gap < 0)
				gap = v - prev;
			else if (prev >= 0 && v - prev != gap)
				uneven++;
			prev = v;
			n++;
		}
		ASSERT_EQ(uneven, 0, "gaps unlike the first (%.0f s) among %d points", gap, n);
		ASSERT_TRUE(gap > 1, "thinned: a point every %.0f samples", gap);
	}
	/* an RSS of 0 (the processes gone) keeps the one before */
	ASSERT_TRUE(strstr(page, "R=[4096,4096,") != NULL, "RSS carried over");
	free(page);
	profile__destroy(p);
	timeline__destroy(t);
	heap__destroy(h);
}
