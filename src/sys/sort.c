// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sort.h"

/* merges the sorted runs a[0..na) and b[0..nb) into out, ticking as it goes */
static void merge_runs(const char *a, size_t na, const char *b, size_t nb, char *out, size_t size,
		       sort_cmp_fn cmp, void *arg, void (*tick)(void *ctx), void *tick_ctx)
{
	size_t done = 0;

	while (na && nb) {
		/* the left run first on ties: the merge keeps equal elements in order */
		if (cmp(b, a, arg) < 0) {
			memcpy(out, b, size);
			b += size;
			nb--;
		} else {
			memcpy(out, a, size);
			a += size;
			na--;
		}
		out += size;
		if (++done % SORT_TICK_EVERY == 0 && tick)
			tick(tick_ctx);
	}
	/* the rest of either run is in order already: one copy */
	memcpy(out, na ? a : b, (na ? na : nb) * size);
}

int sort__chunked(void *base, size_t n, size_t size, sort_cmp_fn cmp, void *arg,
		  void (*tick)(void *ctx), void *tick_ctx)
{
	char *from = base, *to, *tmp, *swap;
	size_t i, width;

	for (i = 0; i < n; i += SORT_TICK_EVERY) {
		qsort_r(from + i * size, n - i < SORT_TICK_EVERY ? n - i : SORT_TICK_EVERY, size,
			cmp, arg);
		if (tick)
			tick(tick_ctx);
	}
	if (n <= SORT_TICK_EVERY)
		return 0;
	tmp = malloc(n * size);
	if (!tmp)
		return -ENOMEM;
	/* each pass merges pairs of runs from one buffer into the other */
	to = tmp;
	for (width = SORT_TICK_EVERY; width < n; width *= 2) {
		for (i = 0; i < n; i += 2 * width) {
			size_t na = n - i < width ? n - i : width;
			size_t nb = n - i - na < width ? n - i - na : width;

			merge_runs(from + i * size, na, from + (i + na) * size, nb, to + i * size, size,
				   cmp, arg, tick, tick_ctx);
		}
		swap = from;
		from = to;
		to = swap;
	}
	if (from != (char *)base)
		memcpy(base, from, n * size);
	free(tmp);
	return 0;
}
