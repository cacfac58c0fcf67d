// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>

#include <bpf/libbpf.h>

#include "events.h"
#include "heap.h"
#include "tracelloc.h"

struct events {
	struct ring_buffer *rb;
	struct heap *heap;
	uint64_t malformed;
	bool exec_seen;
	uint64_t read_ns;		/* when the last read ended; 0: none yet */
	uint64_t longest_gap_ns;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int handle_alloc(struct events *e, const struct alloc_event *ev, size_t size)
{
	size_t head = offsetof(struct alloc_event, stack);
	int nframes = ev->stack_len;

	if (size < head || (nframes > 0 && size < head + nframes * sizeof(ev->stack[0]))) {
		e->malformed++;
		return 0;
	}
	if (ev->old_addr)
		return heap__realloc_done(e->heap, ev->tid, ev->old_addr, ev->addr, ev->size,
					  ev->ts_ns, ev->fn, (const uint64_t *)ev->stack, nframes);
	return heap__alloc(e->heap, ev->tid, ev->addr, ev->size, ev->ts_ns, ev->fn,
			   (const uint64_t *)ev->stack, nframes);
}

/* ring buffer callback: only updates the heap, no I/O */
static int handle_record(void *ctx, void *data, size_t size)
{
	const struct ptr_event *ev = data;
	struct events *e = ctx;

	if (e->exec_seen)
		return 0;
	if (size < sizeof(*ev)) {
		e->malformed++;
		return 0;
	}
	switch (ev->type) {
	case EVENT_EXEC:
		e->exec_seen = true;
		return 0;
	case EVENT_ALLOC:
		return handle_alloc(e, data, size);
	case EVENT_FREE:
		heap__free(e->heap, ev->tid, ev->addr);
		return 0;
	case EVENT_EXIT_FREE:
		heap__exit_free(e->heap, ev->tid, ev->addr);
		return 0;
	case EVENT_REALLOC_BEGIN:
		heap__realloc_begin(e->heap, ev->tid, ev->addr);
		return 0;
	case EVENT_REALLOC_FAILED:
		heap__realloc_failed(e->heap, ev->tid, ev->addr);
		return 0;
	}
	e->malformed++;
	return 0;
}

struct events *events__new(int ringbuf_map_fd, struct heap *heap)
{
	struct events *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->heap = heap;
	e->rb = ring_buffer__new(ringbuf_map_fd, handle_record, e, NULL);
	if (!e->rb) {
		free(e);
		return NULL;
	}
	return e;
}

void events__destroy(struct events *e)
{
	if (!e)
		return;
	ring_buffer__free(e->rb);
	free(e);
}

int events__fd(const struct events *e)
{
	return ring_buffer__epoll_fd(e->rb);
}

int events__consume(struct events *e)
{
	uint64_t start = now_ns();
	int n;

	if (e->read_ns && start - e->read_ns > e->longest_gap_ns)
		e->longest_gap_ns = start - e->read_ns;
	n = ring_buffer__consume(e->rb);
	e->read_ns = now_ns();
	return n < 0 ? n : 0;
}

bool events__exec_seen(const struct events *e)
{
	return e->exec_seen;
}

uint64_t events__longest_gap_ns(const struct events *e)
{
	return e->longest_gap_ns;
}

uint64_t events__malformed(const struct events *e)
{
	return e->malformed;
}
