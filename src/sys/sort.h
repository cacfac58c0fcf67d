/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_SORT_H
#define TRACELLOC_SORT_H

#include <stddef.h>

typedef int (*sort_cmp_fn)(const void *a, const void *b, void *arg);

/*
 * Sorts as qsort_r does, in steps short enough to call tick(tick_ctx) between
 * them, at least every SORT_TICK_EVERY elements: chunks sorted apart, then
 * merged pairwise. A writer sorting a million rows thus lets the daemon read
 * its events meanwhile. Equal elements keep their order when qsort_r keeps
 * it within a chunk. tick may be NULL. 0 or -ENOMEM (base then unchanged as a
 * set, possibly reordered).
 */
#define SORT_TICK_EVERY 4096

int sort__chunked(void *base, size_t n, size_t size, sort_cmp_fn cmp, void *arg,
		  void (*tick)(void *ctx), void *tick_ctx);

#endif
