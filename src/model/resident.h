/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_RESIDENT_H
#define TRACELLOC_RESIDENT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "tracelloc.h"

/*
 * The program's big mappings (HEAP_WEIGHED_MIN) weighed by their pages in
 * memory, read from /proc/PID/pagemap while the process lives: each soon
 * after it is made, then again as it ages, and all of them before output.
 */
struct heap;
struct resident;

#define RESIDENT_MAX_PROCS MAX_PROCS

/* the processes traced now: the tag their blocks carry (src/model/processes.h) */
struct resident_procs {
	size_t n;
	bool several;
	pid_t pids[RESIDENT_MAX_PROCS];
	uint64_t tags[RESIDENT_MAX_PROCS];
};

struct resident_stats {
	uint64_t measures;
	/* mappings whose process was gone before their first measure: they
	 * count whole */
	uint64_t whole;
};

int resident__new(struct resident **out);
void resident__destroy(struct resident *r);
/* the bytes of [addr, addr + len) in memory or swapped out, from a pagemap;
 * -ESRCH when the process's memory is gone */
int resident__measure(struct resident *r, int pagemap_fd, uint64_t addr, uint64_t len,
		      uint64_t *bytes);
/* measure the mappings that are due (all: every one, now); when the next
 * is due (UINT64_MAX: none) */
uint64_t resident__update(struct resident *r, struct heap *heap, const struct resident_procs *procs,
			  uint64_t now_ns, bool all);
const struct resident_stats *resident__stats(const struct resident *r);

#endif
