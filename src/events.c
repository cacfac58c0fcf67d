// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>

#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "events.h"
#include "heap.h"
#include "tracelloc.h"

/* The records read from one CPU's ring and not handled yet: each is a u64
 * length, then the record, padded to 8 bytes. */
struct queue {
	struct events *e;
	unsigned char *buf;
	size_t head, tail, cap;
};

struct events {
	struct ring_buffer *rb;
	int *ring_fds;
	int rings_map_fd;		/* the BPF array of maps holding the rings */
	pthread_t publisher;
	bool publishing;		/* publisher runs or waits to be joined */
	int publish_err;
	struct queue *queues;
	struct head *heads;		/* merge()'s heap, one slot per ring */
	int nrings;
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

/* one record, in time order: only updates the heap, no I/O */
static int handle_record(struct events *e, const void *data, size_t size)
{
	const struct ptr_event *ev = data;

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

/* ring buffer callback: the record waits in its CPU's queue for the merge */
static int queue_record(void *ctx, void *data, size_t size)
{
	struct queue *q = ctx;
	size_t need = sizeof(uint64_t) + ((size + 7) & ~(size_t)7);
	uint64_t len = size;

	if (q->tail + need > q->cap) {
		size_t cap = q->cap ? q->cap : 1 << 16;
		unsigned char *buf;

		while (q->tail + need > cap)
			cap *= 2;
		buf = realloc(q->buf, cap);
		if (!buf)
			return -ENOMEM;
		q->buf = buf;
		q->cap = cap;
	}
	memcpy(q->buf + q->tail, &len, sizeof(len));
	memcpy(q->buf + q->tail + sizeof(len), data, size);
	q->tail += need;
	return 0;
}

static uint64_t queued_ts(const struct queue *q, size_t *size)
{
	const unsigned char *rec = q->buf + q->head + sizeof(uint64_t);
	uint64_t len, ts = 0;

	memcpy(&len, q->buf + q->head, sizeof(len));
	*size = len;
	if (len >= offsetof(struct ptr_event, ts_ns) + sizeof(ts))
		memcpy(&ts, rec + offsetof(struct ptr_event, ts_ns), sizeof(ts));
	return ts;
}

/* the next record of a queue, in a min-heap by ts: a machine may have
 * hundreds of CPUs, and the merge looks at every one per record otherwise */
struct head {
	uint64_t ts;
	size_t size;
	struct queue *q;
};

static void sift_down(struct head *h, int n, int i)
{
	for (;;) {
		int min = i, l = 2 * i + 1, r = l + 1;
		struct head t;

		if (l < n && h[l].ts < h[min].ts)
			min = l;
		if (r < n && h[r].ts < h[min].ts)
			min = r;
		if (min == i)
			return;
		t = h[i];
		h[i] = h[min];
		h[min] = t;
		i = min;
	}
}

/*
 * Handles the queued records up to `cutoff`, oldest first across the CPUs.
 * A record depends only on records sent before it: a free(p) is sent at
 * free's entry, before another thread's malloc can return p and send that.
 * So a record stamped before the read began has everything it depends on in
 * the queues already, and later ones wait for the next read.
 */
static int merge(struct events *e, uint64_t cutoff)
{
	struct head *h = e->heads;
	int i, n = 0, err = 0;

	for (i = 0; i < e->nrings; i++) {
		struct queue *q = &e->queues[i];

		if (q->head == q->tail)
			continue;
		h[n].q = q;
		h[n].ts = queued_ts(q, &h[n].size);
		n++;
	}
	for (i = n / 2 - 1; i >= 0; i--)
		sift_down(h, n, i);
	while (n && h[0].ts <= cutoff) {
		struct queue *q = h[0].q;

		err = handle_record(e, q->buf + q->head + sizeof(uint64_t), h[0].size);
		q->head += sizeof(uint64_t) + ((h[0].size + 7) & ~(size_t)7);
		if (err)
			break;
		if (q->head == q->tail)
			h[0] = h[--n];
		else
			h[0].ts = queued_ts(q, &h[0].size);
		sift_down(h, n, 0);
	}
	for (i = 0; i < e->nrings; i++) {
		struct queue *q = &e->queues[i];

		if (q->head == q->tail) {
			q->head = q->tail = 0;
		} else if (q->head > q->cap / 2) {
			memmove(q->buf, q->buf + q->head, q->tail - q->head);
			q->tail -= q->head;
			q->head = 0;
		}
	}
	return err;
}

/*
 * Every update of a map-in-map waits for an RCU grace period, 5-15 ms here:
 * a batch waits once, and a thread lets that wait overlap reading the target
 * and loading the programs instead of adding to the attach.
 */
static void *publish_rings(void *arg)
{
	struct events *e = arg;
	__u32 count = e->nrings;
	__u32 *keys;
	int i, err = 0;

	keys = calloc(e->nrings, sizeof(*keys));
	if (!keys) {
		e->publish_err = -ENOMEM;
		return NULL;
	}
	for (i = 0; i < e->nrings; i++)
		keys[i] = i;
	if (bpf_map_update_batch(e->rings_map_fd, keys, e->ring_fds, &count, NULL)) {
		err = -errno;
		/* kernels without batch updates of arrays of maps: one at a time */
		if (err == -EINVAL || err == -524 /* ENOTSUPP */ || err == -EOPNOTSUPP) {
			err = 0;
			for (i = 0; i < e->nrings && !err; i++)
				if (bpf_map_update_elem(e->rings_map_fd, &i, &e->ring_fds[i], BPF_ANY))
					err = -errno;
		}
	}
	free(keys);
	e->publish_err = err;
	return NULL;
}

size_t events__ring_bytes(uint64_t total, int ncpus)
{
	uint64_t share = ncpus > 0 ? total / (uint64_t)ncpus : total;
	size_t bytes = 4096;

	/* a CPU's ring covers that CPU only, so its size is what bounds how
	 * long the daemon may stall: keep 1 MiB each however many CPUs share
	 * the default 16 MiB */
	if (!total)
		share = ncpus > 16 ? 1 << 20 : (16 << 20) / (ncpus > 0 ? ncpus : 1);
	while (bytes * 2 <= share)
		bytes *= 2;
	return bytes;
}

struct events *events__new(int nrings, size_t ring_bytes, struct heap *heap)
{
	LIBBPF_OPTS(bpf_map_create_opts, outer_opts);
	struct events *e = calloc(1, sizeof(*e));
	int i, err = 0;

	if (!e)
		return NULL;
	e->heap = heap;
	e->nrings = nrings;
	e->rings_map_fd = -1;
	e->ring_fds = malloc(nrings * sizeof(*e->ring_fds));
	e->queues = calloc(nrings, sizeof(*e->queues));
	e->heads = calloc(nrings, sizeof(*e->heads));
	if (!e->ring_fds || !e->queues || !e->heads) {
		err = -ENOMEM;
		goto fail;
	}
	for (i = 0; i < nrings; i++)
		e->ring_fds[i] = -1;
	for (i = 0; i < nrings && !err; i++) {
		e->queues[i].e = e;
		e->ring_fds[i] = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "cpu_ring", 0, 0, ring_bytes, NULL);
		if (e->ring_fds[i] < 0)
			err = -errno;
		else if (!e->rb && !(e->rb = ring_buffer__new(e->ring_fds[i], queue_record,
								&e->queues[i], NULL)))
			err = -errno;
		else if (i > 0)
			err = ring_buffer__add(e->rb, e->ring_fds[i], queue_record, &e->queues[i]);
	}
	if (err)
		goto fail;
	outer_opts.inner_map_fd = e->ring_fds[0];
	e->rings_map_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "rings", sizeof(__u32),
					 sizeof(__u32), nrings, &outer_opts);
	if (e->rings_map_fd < 0) {
		err = -errno;
		goto fail;
	}
	err = -pthread_create(&e->publisher, NULL, publish_rings, e);
	if (err)
		goto fail;
	e->publishing = true;
	return e;
fail:
	events__destroy(e);
	errno = -err;
	return NULL;
}

int events__rings_map_fd(const struct events *e)
{
	return e->rings_map_fd;
}

int events__publish(struct events *e)
{
	if (e->publishing) {
		pthread_join(e->publisher, NULL);
		e->publishing = false;
	}
	return e->publish_err;
}

void events__destroy(struct events *e)
{
	int i;

	if (!e)
		return;
	events__publish(e);
	if (e->rings_map_fd >= 0)
		close(e->rings_map_fd);
	ring_buffer__free(e->rb);
	for (i = 0; e->ring_fds && i < e->nrings; i++)
		if (e->ring_fds[i] >= 0)
			close(e->ring_fds[i]);
	for (i = 0; e->queues && i < e->nrings; i++)
		free(e->queues[i].buf);
	free(e->ring_fds);
	free(e->queues);
	free(e->heads);
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
	if (n < 0)
		return n;
	return merge(e, start);
}

int events__flush(struct events *e)
{
	int err = events__consume(e);

	return err ? err : merge(e, UINT64_MAX);
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
