/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_ARRAY_H
#define TRACELLOC_ARRAY_H

#include <errno.h>
#include <stdlib.h>

/* items (of size bytes each, *cap of them) with room for need, doubled
 * from first (or *cap) as often as it takes; NULL when out of memory, the
 * array as it was */
static inline void *array__grow(void *items, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t n = *cap ? *cap : first;
	void *grown;

	if (need <= *cap)
		return items;
	while (n < need)
		n *= 2;
	grown = realloc(items, n * size);
	if (grown)
		*cap = n;
	return grown;
}

/* a growing array arr of *cap elements with room for need: 0, or -ENOMEM */
#define ARRAY_RESERVE(arr, cap, need, first)                                          \
	({                                                                             \
		void *grown_ = array__grow((arr), (cap), (need), sizeof(*(arr)), (first)); \
		grown_ ? ((arr) = grown_, 0) : -ENOMEM;                                    \
	})

#endif
