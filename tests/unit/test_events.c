// SPDX-License-Identifier: GPL-2.0
/* events.c: how --ringbuf-size is shared among the CPUs' rings */
#include <stdint.h>

#include "events.h"
#include "test.h"

TEST(ring_bytes_default_by_cpus)
{
	/* 16 MiB shared while that gives each CPU 1 MiB, then 1 MiB each */
	ASSERT_EQ(events__ring_bytes(0, 1), 16 << 20, "1 CPU");
	ASSERT_EQ(events__ring_bytes(0, 2), 8 << 20, "2 CPUs");
	ASSERT_EQ(events__ring_bytes(0, 3), 4 << 20, "3 CPUs: 5.3 MiB rounds down");
	ASSERT_EQ(events__ring_bytes(0, 16), 1 << 20, "16 CPUs");
	ASSERT_EQ(events__ring_bytes(0, 17), 1 << 20, "17 CPUs");
	ASSERT_EQ(events__ring_bytes(0, 256), 1 << 20, "256 CPUs");
}

TEST(ring_bytes_given_total)
{
	ASSERT_EQ(events__ring_bytes(16 << 20, 2), 8 << 20, "16M on 2 CPUs");
	ASSERT_EQ(events__ring_bytes(16 << 20, 64), 256 << 10, "16M on 64 CPUs");
	ASSERT_EQ(events__ring_bytes(1 << 20, 3), 256 << 10, "1M on 3 CPUs");
	ASSERT_EQ(events__ring_bytes(4096, 2), 4096, "never under a page");
	ASSERT_EQ(events__ring_bytes(4096, 1), 4096, "a page on 1 CPU");
}
