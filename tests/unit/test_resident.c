// SPDX-License-Identifier: GPL-2.0
/* resident.c: a mapping's pages in memory, from /proc/PID/pagemap; the
 * schedule that weighs the heap's big mappings */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "heap.h"
#include "resident.h"
#include "test.h"
#include "tracelloc.h"

static const uint64_t FRAMES[] = { 0x401000, 0x402000 };

TEST(resident_measure_own_pages)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = 64 * pg;
	struct resident *r = NULL;
	uint64_t bytes = 1;
	char *p;
	int fd;

	ASSERT_OK(resident__new(&r), "resident__new");
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(p != MAP_FAILED, "mmap");
	madvise(p, len, MADV_NOHUGEPAGE);
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0, "open pagemap");
	ASSERT_OK(resident__measure(r, fd, (uintptr_t)p, len, &bytes), "measure untouched");
	ASSERT_EQ(bytes, 0, "nothing in memory yet");
	memset(p + 3 * pg, 1, 10 * pg);
	ASSERT_OK(resident__measure(r, fd, (uintptr_t)p, len, &bytes), "measure touched");
	ASSERT_EQ(bytes, 10 * pg, "the pages written");
	madvise(p + 3 * pg, 4 * pg, MADV_DONTNEED);
	ASSERT_OK(resident__measure(r, fd, (uintptr_t)p, len, &bytes), "measure given back");
	ASSERT_EQ(bytes, 6 * pg, "the pages given back are not");
	close(fd);
	munmap(p, len);
	resident__destroy(r);
}

/* the heap's big mapping measured in this very process, as a traced one */
TEST(resident_update_weighs_the_heap)
{
	size_t len = 2 * HEAP_WEIGHED_MIN, pg = (size_t)sysconf(_SC_PAGESIZE);
	struct resident_procs procs = { .n = 1, .pids = { getpid() }, .tags = { 0 } };
	struct resident *r = NULL;
	struct heap *h = heap__new();
	char *p;

	ASSERT_OK_PTR(h, "heap__new");
	ASSERT_OK(resident__new(&r), "resident__new");
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(p != MAP_FAILED, "mmap");
	madvise(p, len, MADV_NOHUGEPAGE);
	memset(p, 1, 5 * pg);
	ASSERT_OK(heap__map(h, 1, (uintptr_t)p, len, 1000, FN_MMAP, FRAMES, 2), "heap__map");
	ASSERT_EQ(heap__stats(h)->live_bytes, 0, "before its first measure");
	resident__update(r, h, &procs, 2000, false);
	ASSERT_EQ(heap__stats(h)->live_bytes, 5 * pg, "measured");
	/* not due again so soon: the pages written meanwhile wait */
	memset(p, 1, 7 * pg);
	resident__update(r, h, &procs, 2001, false);
	ASSERT_EQ(heap__stats(h)->live_bytes, 5 * pg, "not measured again at once");
	resident__update(r, h, &procs, 2002, true);
	ASSERT_EQ(heap__stats(h)->live_bytes, 7 * pg, "all measured before output");
	ASSERT_EQ(resident__stats(r)->measures, 2, "two measures");
	/* a process gone before a first measure: its mapping counts whole */
	ASSERT_OK(heap__map(h, 1, (uintptr_t)p + len + 64 * HEAP_WEIGHED_MIN, len, 1000, FN_MMAP,
			    FRAMES, 2), "another");
	procs.n = 0;
	resident__update(r, h, &procs, 3000, false);
	ASSERT_EQ(heap__stats(h)->live_bytes, 7 * pg + len, "counted whole");
	ASSERT_EQ(resident__stats(r)->whole, 1, "one counted whole");
	munmap(p, len);
	heap__destroy(h);
	resident__destroy(r);
}
