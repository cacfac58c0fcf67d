// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "heap.h"
#include "processes.h"
#include "resident.h"

/* /proc/PID/pagemap: one 64-bit entry per page */
#define PM_PRESENT (1ULL << 63)
#define PM_SWAPPED (1ULL << 62)
#define PM_CHUNK 4096			/* entries per read */

/* the most pages measured by one resident__update() that is not `all`:
 * 4 GiB of mappings, 8 MiB of pagemap, a few ms; the rest waits */
#define PAGES_PER_UPDATE (1UL << 20)

/* a mapping is measured again after a quarter of its age, at least 5 ms
 * and at most 1 s after the last time: the young ones are being touched */
#define MIN_AGAIN_NS 5000000ULL
#define MAX_AGAIN_NS 1000000000ULL

struct resident {
	long page_size;
	struct resident_stats stats;
	uint64_t *buf;
};

int resident__new(struct resident **out)
{
	struct resident *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->page_size = sysconf(_SC_PAGESIZE);
	if (r->page_size <= 0)
		r->page_size = 4096;
	r->buf = malloc(PM_CHUNK * sizeof(*r->buf));
	if (!r->buf) {
		free(r);
		return -ENOMEM;
	}
	*out = r;
	return 0;
}

void resident__destroy(struct resident *r)
{
	if (!r)
		return;
	free(r->buf);
	free(r);
}

int resident__measure(struct resident *r, int pagemap_fd, uint64_t addr, uint64_t len,
		      uint64_t *bytes)
{
	uint64_t first = addr / r->page_size, end = (addr + len + r->page_size - 1) / r->page_size;
	uint64_t pages = 0, at = first;

	while (at < end) {
		size_t want = end - at < PM_CHUNK ? end - at : PM_CHUNK, i, got;
		ssize_t n = pread(pagemap_fd, r->buf, want * sizeof(*r->buf),
				  (off_t)(at * sizeof(*r->buf)));

		if (n < 0)
			return -errno;
		got = (size_t)n / sizeof(*r->buf);
		/* the process exited (its memory gone), or the range ends early */
		if (!got)
			return at == first ? -ESRCH : -EIO;
		for (i = 0; i < got; i++)
			pages += !!(r->buf[i] & (PM_PRESENT | PM_SWAPPED));
		at += got;
	}
	*bytes = pages * r->page_size;
	return 0;
}

/* when the mapping is to be measured next (0: now) */
static uint64_t due_ns(const struct heap_weighed *w, uint64_t birth_ns, uint64_t now_ns)
{
	uint64_t age = now_ns > birth_ns ? now_ns - birth_ns : 0, again = age / 4;

	if (!w->measured_ns)
		return 0;
	if (again < MIN_AGAIN_NS)
		again = MIN_AGAIN_NS;
	if (again > MAX_AGAIN_NS)
		again = MAX_AGAIN_NS;
	return w->measured_ns + again;
}

/* the pagemap of the process whose blocks carry tag; -1 if none */
static int pagemap_of(const struct resident_procs *procs, uint64_t tag, int *fds)
{
	char path[64];
	size_t i;

	for (i = 0; i < procs->n; i++) {
		if (procs->tags[i] != tag)
			continue;
		if (fds[i] == -2) {
			snprintf(path, sizeof(path), "/proc/%d/pagemap", procs->pids[i]);
			fds[i] = open(path, O_RDONLY | O_CLOEXEC);
		}
		return fds[i];
	}
	return -1;
}

uint64_t resident__update(struct resident *r, struct heap *heap, const struct resident_procs *procs,
			  uint64_t now_ns, bool all)
{
	uint64_t next = UINT64_MAX, at;
	const struct live_block *b;
	struct heap_weighed *w;
	uint64_t addr, bytes, budget = PAGES_PER_UPDATE, mask = procs->several ? PROC_MASK : 0;
	int fds[RESIDENT_MAX_PROCS], fd, err;
	size_t pos = 0, i;

	for (i = 0; i < procs->n; i++)
		fds[i] = -2;
	while ((w = heap__next_weighed(heap, &pos, &addr, &b))) {
		at = due_ns(w, b->birth_ns, now_ns);
		if (!all && (!budget || at > now_ns)) {
			if (at < next)
				next = at;
			continue;
		}
		fd = pagemap_of(procs, addr & mask, fds);
		err = fd < 0 ? -ESRCH : resident__measure(r, fd, addr & ~mask, b->size, &bytes);
		if (err) {
			/* gone before it was ever measured: it counts whole, as
			 * the program asked for it; else as last measured */
			if (!w->measured_ns) {
				heap__set_resident(heap, addr, b->size, now_ns);
				r->stats.whole++;
			}
			continue;
		}
		heap__set_resident(heap, addr, bytes, now_ns);
		at = due_ns(w, b->birth_ns, now_ns);
		if (at < next)
			next = at;
		r->stats.measures++;
		budget -= b->size / r->page_size < budget ? b->size / r->page_size : budget;
	}
	for (i = 0; i < procs->n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return next;
}

const struct resident_stats *resident__stats(const struct resident *r)
{
	return &r->stats;
}
