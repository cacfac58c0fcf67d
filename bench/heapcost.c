// SPDX-License-Identifier: GPL-2.0
/*
 * What the daemon's model costs per record: malloc and free records through
 * the heap (src/model/heap.c) as the ring buffer's callback hands them over, with
 * STACKS distinct 12-frame stacks and LIVE live blocks, in ns per record.
 *
 *   heapcost [STACKS [LIVE [RECORDS]]]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "heap.h"
#include "tracelloc.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

int main(int argc, char **argv)
{
	uint32_t nstacks = argc > 1 ? atoi(argv[1]) : 64;
	uint64_t live = argc > 2 ? atoll(argv[2]) : 100000;
	uint64_t records = argc > 3 ? atoll(argv[3]) : 4000000, i, r = 88172645463325252ULL;
	uint64_t *frames = calloc((size_t)nstacks * 12, sizeof(*frames)), *addrs, t0, t;
	struct heap *h = heap__new();

	addrs = calloc(live, sizeof(*addrs));
	if (!frames || !h || !addrs)
		return 1;
	for (i = 0; i < (uint64_t)nstacks * 12; i++)
		frames[i] = 0x400000 + next(&r) % 0x100000;
	/* the live set first */
	for (i = 0; i < live; i++) {
		addrs[i] = 0x10000000 + i * 64;
		heap__set_clock(h, i);
		heap__alloc(h, 1, addrs[i], 16 + next(&r) % 4000, i, FN_MALLOC,
			    frames + (next(&r) % nstacks) * 12, 12);
	}
	t0 = now_ns();
	for (i = 0; i < records / 2; i++) {
		uint64_t k = next(&r) % live, ts = live + i;

		heap__set_clock(h, ts);
		heap__free(h, 1, addrs[k]);
		heap__alloc(h, 1, addrs[k], 16 + next(&r) % 4000, ts, FN_MALLOC,
			    frames + (next(&r) % nstacks) * 12, 12);
	}
	t = now_ns() - t0;
	printf("heapcost: stacks=%u live=%llu records=%llu ns_per_record=%.1f\n", nstacks,
	       (unsigned long long)live, (unsigned long long)records, (double)t / records);
	heap__destroy(h);
	return 0;
}
