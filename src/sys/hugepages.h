/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_HUGEPAGES_H
#define TRACELLOC_HUGEPAGES_H

#include <stddef.h>

/*
 * The daemon's own large, fresh memory (the model's table, a check's
 * arrays, the warm heap) in huge pages where the kernel has them: a page
 * fault costs several microseconds on the virtual machines we measured.
 * Only the whole huge pages inside [p, p + len) are advised, so memory
 * beside the range (another allocation's) is never touched; where huge
 * pages are off, the memory is the same, only slower to fault in.
 */
#define HUGE_PAGE_BYTES (2UL << 20)

void hugepages__advise(void *p, size_t len);

#endif
