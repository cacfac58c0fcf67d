/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_CLOCK_H
#define TRACELLOC_CLOCK_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in ns: the clock of the BPF records' ts_ns too */
static inline uint64_t clock__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

#endif
