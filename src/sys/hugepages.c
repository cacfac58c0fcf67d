// SPDX-License-Identifier: GPL-2.0
#include <stdint.h>
#include <sys/mman.h>

#include "hugepages.h"

void hugepages__advise(void *p, size_t len)
{
	uintptr_t start = ((uintptr_t)p + HUGE_PAGE_BYTES - 1) & ~(HUGE_PAGE_BYTES - 1);
	uintptr_t end = ((uintptr_t)p + len) & ~(HUGE_PAGE_BYTES - 1);

	if (end > start)
		madvise((void *)start, end - start, MADV_HUGEPAGE);
}
