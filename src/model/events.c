// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>

#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "allocfns.h"
#include "clock.h"
#include "events.h"
#include "threads.h"
#include "heap.h"
#include "pools.h"
#include "tracelloc.h"

/*
 * One CPU's ring, read in place: records are handled straight from the
 * mapped ring, and the consumer position moves past them only then. Records
 * that must wait for the next read (see merge()) wait in the ring. The
 * layout is the kernel's: a page with the consumer position (ours to
 * write), a page with the producer position, then the data, mapped twice in
 * a row so that a record that wraps reads as one piece.
 */
struct ring {
	unsigned long *consumer_pos;
	const unsigned long *producer_pos;
	const unsigned char *data;
	unsigned long mask;
	unsigned long pos;		/* the next record to look at */
	unsigned long end;		/* the producer position when the read began */
	size_t data_map_len;
};

/* a ring's next record, in merge()'s min-heap by ts */
struct head {
	uint64_t ts;
	const void *rec;
	uint32_t len;
	struct ring *r;
};

/* where the records of one slot's process go */
struct slot_sink {
	bool live;
	uint64_t tag;			/* or'ed into addresses and frames */
	uint64_t process_frame;		/* the stack's root; 0: none */
	void *frames_ctx;
	void *python_ctx;		/* events__set_python(); NULL: none */
	/* Go's heap traced at runtime.mallocgc (events__set_go_heap): the
	 * runtime's mappings hold its objects, and are no allocations */
	bool go_heap;
};

/* a thread's Python frames, for the allocation record that follows them */
struct py_pending {
	uint32_t tid;
	uint32_t n;			/* 0: none waits */
	uint64_t ts_ns;
	struct py_frame frames[PY_MAX_FRAMES];
};

struct events {
	int epoll_fd;			/* readable when a ring holds records */
	int *ring_fds;
	struct ring *rings;
	int rings_map_fd;		/* the BPF array of maps holding the rings */
	pthread_t publisher;
	bool publishing;		/* publisher runs or waits to be joined */
	int publish_err;
	struct head *heads;		/* merge()'s heap, one slot per ring */
	int nrings;
	struct heap *heap;
	struct pools *pools;		/* NULL: no named allocator */
	uint64_t malformed;
	bool follow_exec;		/* an exec starts a new heap instead of ending */
	/* an exec or a fork: nothing is read until events__resume() */
	bool pending;
	struct events_pending pend;
	bool main_exited;
	struct slot_sink sinks[MAX_PROCS];
	uint64_t read_ns;		/* when the last read ended; 0: none yet */
	uint64_t longest_gap_ns;
	events_frames_fn frames_fn;
	uint64_t frames_buf[HEAP_MAX_FRAMES];	/* and the thread's and process's frames */
	uint64_t merged_buf[HEAP_MAX_FRAMES];	/* with Python's frames */
	events_python_fn python_fn;
	struct py_pending py[MAX_PROCS];	/* by slot */
	struct events_python_stats py_stats;
	struct threads *threads;	/* --per-thread, else NULL */
	bool writing;			/* see events__writing() */
	bool wrote;			/* writing ended, no read since */
	uint64_t longest_writing_gap_ns;
	uint64_t last_gap_ns;
	bool last_gap_writing;
};

/* the stack with the thread's Python frames, when a record of them came
 * just before (same thread, same time) */
static const uint64_t *with_python(struct events *e, const struct slot_sink *k,
				   const struct alloc_event *ev, const uint64_t *frames,
				   int *nframes)
{
	struct py_pending *py = &e->py[ev->slot & (MAX_PROCS - 1)];
	uint32_t n;

	if (!py->n)
		return frames;
	if (py->tid != ev->tid || py->ts_ns != ev->ts_ns || !k->python_ctx || !e->python_fn) {
		py->n = 0;
		return frames;
	}
	/* the thread, the process and the system call's wrapper keep their room */
	n = e->python_fn(k->python_ctx, frames, *nframes, py->frames, py->n, e->merged_buf,
			 HEAP_MAX_FRAMES - 2);
	py->n = 0;
	if (!n)
		return frames;
	e->py_stats.stacks++;
	*nframes = n;
	return e->merged_buf;
}

static int handle_alloc(struct events *e, const struct slot_sink *k,
			const struct alloc_event *ev, size_t size)
{
	size_t head = offsetof(struct alloc_event, stack);
	const uint64_t *frames = (const uint64_t *)ev->stack;
	uint64_t tag = k->tag, addr, old;
	int nframes = ev->stack_len, i, err;
	unsigned short fn = ev->fn & ~FN_AT_SYSCALL;
	const struct alloc_fn_info *info;
	bool mapping, named;

	if (size < head || (nframes > 0 && size < head + nframes * sizeof(ev->stack[0])) ||
	    nframes > MAX_STACK_DEPTH) {
		e->malformed++;
		return 0;
	}
	mapping = fn == FN_MMAP || fn == FN_MREMAP || fn == FN_MPROTECT;
	/* a stack taken at the system call begins in its wrapper: its caller made it */
	if ((ev->fn & FN_AT_SYSCALL) && nframes > 0) {
		frames++;
		nframes--;
	}
	if (e->frames_fn && nframes > 0)
		frames = e->frames_fn(k->frames_ctx, ev->maps_gen, frames, nframes, e->frames_buf);
	if (nframes >= 0)
		frames = with_python(e, k, ev, frames, &nframes);
	/* several processes: each frame says whose it is */
	if (tag && nframes > 0) {
		for (i = 0; i < nframes; i++)
			e->frames_buf[i] = frames[i] | tag;
		frames = e->frames_buf;
	}
	/* a stack that could not be taken still belongs to its process */
	if (nframes < 0 && k->process_frame) {
		heap__failed_stack(e->heap);
		nframes = 0;
	}
	/* --per-thread: the thread is the stack's outermost frame, under its process */
	if ((e->threads || k->process_frame) && nframes >= 0) {
		if (frames != e->frames_buf)
			memcpy(e->frames_buf, frames, nframes * sizeof(frames[0]));
		if (e->threads)
			e->frames_buf[nframes++] = threads__frame(e->threads, ev->tid);
		if (k->process_frame)
			e->frames_buf[nframes++] = k->process_frame;
		frames = e->frames_buf;
	}
	if (fn == FN_MPROTECT)
		return heap__commit(e->heap, ev->tid, ev->addr | tag, ev->size, ev->ts_ns, fn, frames,
				    nframes);
	if (mapping && k->go_heap)
		return heap__map_held(e->heap, ev->addr | tag, ev->size, ev->ts_ns, fn, frames,
				      nframes);
	if (mapping)
		return heap__map(e->heap, ev->tid, ev->addr | tag, ev->size, ev->ts_ns, fn,
				 frames, nframes);
	info = allocfns__info(fn);
	if (info && info->no_block)
		return heap__alloc_blockless(e->heap, ev->size, fn, frames, nframes);
	addr = ev->addr | tag;
	old = ev->old_addr ? ev->old_addr | tag : 0;
	named = (fn & 0xff) == FN_NAMED;
	/* a named allocator's pool index is as of the block's birth: a block
	 * that was there before (its free lost) is not a pool's any more */
	if (e->pools && (!named || !old))
		pools__forget(e->pools, addr);
	if (old)
		err = heap__realloc_done(e->heap, ev->tid, old, addr, ev->size, ev->ts_ns, fn,
					 frames, nframes);
	else
		err = heap__alloc(e->heap, ev->tid, addr, ev->size, ev->ts_ns, fn, frames, nframes);
	if (err || !e->pools || !named)
		return err;
	if (old)
		return pools__move(e->pools, old, addr, ev->size);
	return pools__block(e->pools, addr, ev->size, ev->pool ? ev->pool | tag : 0);
}

/* an exec or a fork: reading stops after it until events__resume() */
static int hold(struct events *e, const struct ptr_event *ev)
{
	e->pending = true;
	e->pend = (struct events_pending){
		.type = ev->type, .slot = ev->slot, .tid = ev->tid, .addr = ev->addr,
	};
	return 1;
}

static int hold_fork(struct events *e, const struct fork_event *ev, size_t size)
{
	if (size < sizeof(*ev)) {
		e->malformed++;
		return 0;
	}
	e->pending = true;
	e->pend = (struct events_pending){
		.type = ev->type, .slot = ev->slot, .tid = ev->tid, .child = ev->child,
		.child_own = ev->child_own, .flags = ev->flags,
	};
	return 1;
}

/* one record, in time order: only updates the heap, no I/O */
/* pages unmapped, reserved with PROT_NONE, or made PROT_NONE again */
static int handle_range(struct events *e, const void *data, size_t size, uint64_t tag)
{
	const struct ptr_event *ev = data;
	uint64_t len;

	if (size < sizeof(struct range_event)) {
		e->malformed++;
		return 0;
	}
	len = ((const struct range_event *)data)->len;
	if (e->pools && ev->type != EVENT_RESERVE)
		pools__unmap(e->pools, ev->tid, ev->addr | tag, len);
	if (ev->type == EVENT_RESERVE)
		return heap__reserve(e->heap, ev->addr | tag, len);
	if (ev->type == EVENT_DECOMMIT)
		return heap__decommit(e->heap, ev->addr | tag, len);
	return heap__unmap(e->heap, ev->addr | tag, len);
}

/*
 * The records, by kind: the least size a record of the kind has, and what it
 * does to the model. Every record begins with the same fields (struct
 * record_header in tracelloc.h); a record shorter than its kind's size, or
 * of a kind with no row, is counted malformed and goes.
 */
typedef int (*record_fn)(struct events *e, const struct slot_sink *k, const void *data,
			 size_t size, uint64_t tag);

static int on_alloc(struct events *e, const struct slot_sink *k, const void *data, size_t size,
		    uint64_t tag)
{
	/* (its stack's length is checked there) */
	return handle_alloc(e, k, data, size);
}

/* what comes after is the new program's (an exec: its heap first); a
 * process stopped at exit, to be scanned: the daemon's (handle_pending) */
static int on_hold(struct events *e, const struct slot_sink *k, const void *data, size_t size,
		   uint64_t tag)
{
	return hold(e, data);
}

/* the child's copy of the heap is the parent's as of now */
static int on_fork(struct events *e, const struct slot_sink *k, const void *data, size_t size,
		   uint64_t tag)
{
	return hold_fork(e, data, size);
}

static int on_main_exit(struct events *e, const struct slot_sink *k, const void *data,
			size_t size, uint64_t tag)
{
	e->main_exited = true;
	return 0;
}

/* the maps of the new generation, read while they last; held: the
 * process waits, stopped, for the daemon (handle_pending) */
static int on_maps(struct events *e, const struct slot_sink *k, const void *data, size_t size,
		   uint64_t tag)
{
	const struct ptr_event *ev = data;

	if (e->frames_fn)
		e->frames_fn(k->frames_ctx, (uint16_t)ev->addr, NULL, 0, NULL);
	return ev->type == EVENT_MAPS_HELD ? hold(e, ev) : 0;
}

static int release(struct events *e, const struct ptr_event *ev, uint64_t tag)
{
	heap__free(e->heap, ev->tid, ev->addr | tag);
	if (e->pools)
		pools__forget(e->pools, ev->addr | tag);
	return 0;
}

/* a slab of a named allocator's is not the heap's; anything else is a
 * block's release, as a named free's */
static int on_free(struct events *e, const struct slot_sink *k, const void *data, size_t size,
		   uint64_t tag)
{
	const struct ptr_event *ev = data;

	if (e->pools && pools__free_slab(e->pools, ev->tid, ev->addr | tag, 0))
		return 0;
	return release(e, ev, tag);
}

static int on_named_free(struct events *e, const struct slot_sink *k, const void *data,
			 size_t size, uint64_t tag)
{
	return release(e, data, tag);
}

static int on_free_again(struct events *e, const struct slot_sink *k, const void *data,
			 size_t size, uint64_t tag)
{
	const struct ptr_event *ev = data;

	if (e->pools && pools__free_slab(e->pools, ev->tid, ev->addr | tag, 0))
		return 0;
	if (heap__free_again(e->heap, ev->addr | tag) && e->pools)
		pools__forget(e->pools, ev->addr | tag);
	return 0;
}

static int on_slab_free(struct events *e, const struct slot_sink *k, const void *data,
			size_t size, uint64_t tag)
{
	const struct ptr_event *ev = data;

	if (e->pools)
		pools__free_slab(e->pools, ev->tid, ev->addr | tag, 0);
	return 0;
}

static int on_slab_moved(struct events *e, const struct slot_sink *k, const void *data,
			 size_t size, uint64_t tag)
{
	const struct ptr_event *ev = data;

	if (e->pools)
		pools__free_slab(e->pools, ev->tid, ev->addr | tag, ev->addr | tag);
	return 0;
}

static int on_pool_destroy(struct events *e, const struct slot_sink *k, const void *data,
			   size_t size, uint64_t tag)
{
	const struct ptr_event *ev = data;

	if (e->pools)
		pools__destroy_pool(e->pools, ev->tid, ev->addr | tag);
	return 0;
}

static int on_slab(struct events *e, const struct slot_sink *k, const void *data, size_t size,
		   uint64_t tag)
{
	const struct range_event *ev = data;

	return e->pools ? pools__slab(e->pools, ev->addr | tag, ev->len) : 0;
}

static int on_exit_free(struct events *e, const struct slot_sink *k, const void *data,
			size_t size, uint64_t tag)
{
	const struct ptr_event *ev = data;

	heap__exit_free(e->heap, ev->tid, ev->addr | tag);
	if (e->pools)
		pools__forget(e->pools, ev->addr | tag);
	return 0;
}

static int on_realloc_begin(struct events *e, const struct slot_sink *k, const void *data,
			    size_t size, uint64_t tag)
{
	const struct ptr_event *ev = data;

	heap__realloc_begin(e->heap, ev->tid, ev->addr | tag);
	return 0;
}

static int on_realloc_failed(struct events *e, const struct slot_sink *k, const void *data,
			     size_t size, uint64_t tag)
{
	const struct ptr_event *ev = data;

	heap__realloc_failed(e->heap, ev->tid, ev->addr | tag);
	return 0;
}

static int on_thread_name(struct events *e, const struct slot_sink *k, const void *data,
			  size_t size, uint64_t tag)
{
	const struct name_event *ev = data;

	return e->threads ? threads__set_name(e->threads, ev->tid, ev->name, THREAD_NAME_LEN) : 0;
}

static int on_py_frames(struct events *e, const struct slot_sink *k, const void *data,
			size_t size, uint64_t tag)
{
	const struct py_event *ev = data;
	struct py_pending *py = &e->py[ev->slot & (MAX_PROCS - 1)];

	if (ev->nframes > PY_MAX_FRAMES ||
	    size < offsetof(struct py_event, frames) + ev->nframes * sizeof(ev->frames[0])) {
		e->malformed++;
		return 0;
	}
	if (ev->flags & PY_CUT)
		e->py_stats.cut++;
	py->tid = ev->tid;
	py->ts_ns = ev->ts_ns;
	py->n = ev->nframes;
	memcpy(py->frames, ev->frames, ev->nframes * sizeof(ev->frames[0]));
	return 0;
}

static int on_range(struct events *e, const struct slot_sink *k, const void *data, size_t size,
		    uint64_t tag)
{
	return handle_range(e, data, size, tag);
}

static const struct record_kind {
	size_t size;
	record_fn handle;
} kinds[] = {
	[EVENT_ALLOC] = { sizeof(struct ptr_event), on_alloc },
	[EVENT_FREE] = { sizeof(struct ptr_event), on_free },
	[EVENT_REALLOC_BEGIN] = { sizeof(struct ptr_event), on_realloc_begin },
	[EVENT_REALLOC_FAILED] = { sizeof(struct ptr_event), on_realloc_failed },
	[EVENT_EXIT_FREE] = { sizeof(struct ptr_event), on_exit_free },
	[EVENT_EXEC] = { sizeof(struct ptr_event), on_hold },
	[EVENT_MAPS_CHANGE] = { sizeof(struct ptr_event), on_maps },
	[EVENT_MAIN_EXIT] = { sizeof(struct ptr_event), on_main_exit },
	[EVENT_UNMAP] = { sizeof(struct range_event), on_range },
	[EVENT_THREAD_NAME] = { sizeof(struct name_event), on_thread_name },
	[EVENT_FORK] = { sizeof(struct fork_event), on_fork },
	[EVENT_FORK_PARENT] = { sizeof(struct fork_event), on_fork },
	[EVENT_RESERVE] = { sizeof(struct range_event), on_range },
	[EVENT_DECOMMIT] = { sizeof(struct range_event), on_range },
	[EVENT_MAPS_HELD] = { sizeof(struct ptr_event), on_maps },
	[EVENT_EXITING] = { sizeof(struct ptr_event), on_hold },
	[EVENT_NAMED_FREE] = { sizeof(struct ptr_event), on_named_free },
	[EVENT_SLAB] = { sizeof(struct range_event), on_slab },
	[EVENT_SLAB_FREE] = { sizeof(struct ptr_event), on_slab_free },
	[EVENT_POOL_DESTROY] = { sizeof(struct ptr_event), on_pool_destroy },
	[EVENT_FREE_AGAIN] = { sizeof(struct ptr_event), on_free_again },
	[EVENT_SLAB_MOVED] = { sizeof(struct ptr_event), on_slab_moved },
	[EVENT_PY_FRAMES] = { offsetof(struct py_event, frames), on_py_frames },
};

#define SAME_HEADER(type)                                                                  \
	_Static_assert(offsetof(struct type, slot) == offsetof(struct record_header, slot) &&     \
		       offsetof(struct type, tid) == offsetof(struct record_header, tid) &&       \
		       offsetof(struct type, ts_ns) == offsetof(struct record_header, ts_ns),     \
		       #type " begins as every record does")
SAME_HEADER(ptr_event);
SAME_HEADER(alloc_event);
SAME_HEADER(range_event);
SAME_HEADER(name_event);
SAME_HEADER(fork_event);
SAME_HEADER(py_event);

static int handle_record(struct events *e, const void *data, size_t size)
{
	const struct ptr_event *ev = data;
	const struct record_kind *kind;
	const struct slot_sink *k;

	if (size < sizeof(*ev) || ev->slot >= MAX_PROCS) {
		e->malformed++;
		return 0;
	}
	/* a new process, traced from now on */
	if (ev->type == EVENT_COMM_EXEC)
		return hold(e, ev);
	k = &e->sinks[ev->slot];
	/* frees are at the record's time: the blocks' lifetimes */
	heap__set_clock(e->heap, ev->ts_ns);
	/* a process no longer traced (it exited, or exec'ed a program that is
	 * not); one that waits for us is let go all the same (handle_pending) */
	if (!k->live)
		return ev->type == EVENT_MAPS_HELD || ev->type == EVENT_EXITING ? hold(e, ev) : 0;
	kind = ev->type < sizeof(kinds) / sizeof(kinds[0]) ? &kinds[ev->type] : NULL;
	if (!kind || !kind->handle || size < kind->size) {
		e->malformed++;
		return 0;
	}
	return kind->handle(e, k, data, size, k->tag);
}

#define RINGBUF_BUSY_BIT (1U << 31)
#define RINGBUF_DISCARD_BIT (1U << 30)
#define RINGBUF_HDR_SZ 8

static uint64_t record_ts(const uint32_t *hdr, uint32_t size)
{
	uint64_t ts = 0;

	if (size >= offsetof(struct ptr_event, ts_ns) + sizeof(ts))
		memcpy(&ts, (const unsigned char *)hdr + RINGBUF_HDR_SZ +
		       offsetof(struct ptr_event, ts_ns), sizeof(ts));
	return ts;
}

/*
 * A record still being written (a program preempted on a kernel that
 * preempts them) hides the committed records behind it until it is done.
 * One of them may be the allocation of a block whose free sits in another
 * ring: nothing stamped after the earliest of them is handled until they
 * can be.
 */
static void lower_cutoff(const struct ring *r, unsigned long pos, uint64_t *cutoff)
{
	while (pos < r->end) {
		const uint32_t *hdr = (const void *)(r->data + (pos & r->mask));
		uint32_t len = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);
		uint32_t size = len & ~(RINGBUF_BUSY_BIT | RINGBUF_DISCARD_BIT);
		uint64_t ts;

		if (!(len & (RINGBUF_BUSY_BIT | RINGBUF_DISCARD_BIT))) {
			ts = record_ts(hdr, size);
			if (ts && ts - 1 < *cutoff)
				*cutoff = ts - 1;
		}
		pos += (size + RINGBUF_HDR_SZ + 7) & ~7UL;
	}
}

/* the ring's next committed record from r->pos, skipping discarded ones;
 * false when there is none yet */
static bool next_record(struct ring *r, struct head *h, uint64_t *cutoff)
{
	while (r->pos < r->end) {
		const uint32_t *hdr = (const void *)(r->data + (r->pos & r->mask));
		uint32_t len = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);
		uint32_t size = len & ~(RINGBUF_BUSY_BIT | RINGBUF_DISCARD_BIT);

		if (len & RINGBUF_BUSY_BIT) {
			lower_cutoff(r, r->pos + ((size + RINGBUF_HDR_SZ + 7) & ~7UL), cutoff);
			return false;
		}
		if (len & RINGBUF_DISCARD_BIT) {
			r->pos += (size + RINGBUF_HDR_SZ + 7) & ~7UL;
			continue;
		}
		h->r = r;
		h->rec = (const unsigned char *)hdr + RINGBUF_HDR_SZ;
		h->len = size;
		h->ts = record_ts(hdr, size);
		return true;
	}
	return false;
}

static inline void sift_down(struct head *h, int n, int i)
{
	struct head t = h[i];

	for (;;) {
		int min = 2 * i + 1;

		if (min >= n)
			break;
		if (min + 1 < n && h[min + 1].ts < h[min].ts)
			min++;
		if (t.ts <= h[min].ts)
			break;
		h[i] = h[min];
		i = min;
	}
	h[i] = t;
}

/*
 * Handles the records in the rings up to `cutoff`, oldest first across the
 * CPUs. A record depends only on records sent before it: a free(p) is sent
 * at free's entry, before another thread's malloc can return p and send
 * that. So a record stamped before the read began has everything it depends
 * on in the rings already, and later ones wait for the next read.
 */
/* records handled between two releases of ring space within a batch */
#define RELEASE_EVERY 512

/* the kernel may reuse the space of what was handled */
static void release_space(struct events *e)
{
	int i;

	for (i = 0; i < e->nrings; i++)
		__atomic_store_n(e->rings[i].consumer_pos, e->rings[i].pos, __ATOMIC_RELEASE);
}

static int merge(struct events *e, uint64_t cutoff)
{
	struct head *h = e->heads;
	int i, n = 0, err = 0;
	unsigned int handled = 0;

	for (i = 0; i < e->nrings; i++) {
		struct ring *r = &e->rings[i];

		r->end = __atomic_load_n(r->producer_pos, __ATOMIC_ACQUIRE);
		if (next_record(r, &h[n], &cutoff))
			n++;
	}
	for (i = n / 2 - 1; i >= 0; i--)
		sift_down(h, n, i);
	while (n && h[0].ts <= cutoff) {
		struct ring *r = h[0].r;

		err = handle_record(e, h[0].rec, h[0].len);
		if (err < 0)
			break;
		r->pos += (h[0].len + RINGBUF_HDR_SZ + 7) & ~7UL;
		if (err > 0) {
			err = 0;
			break;
		}
		/* a batch can take long on a slow or busy host: give its space
		 * back as it goes, not only at its end, so the rings never wait
		 * for the whole batch */
		if (++handled % RELEASE_EVERY == 0)
			release_space(e);
		if (!next_record(r, &h[0], &cutoff))
			h[0] = h[--n];
		sift_down(h, n, 0);
	}
	release_space(e);
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
	uint64_t cpus = ncpus > 0 ? ncpus : 1, share = total / cpus;
	size_t bytes = 4096;

	/* a CPU's ring covers that CPU only, so its size is what bounds how
	 * long the daemon may stall: keep 1 MiB each however many CPUs share
	 * the default 16 MiB */
	if (!total)
		share = cpus > 16 ? 1 << 20 : (16 << 20) / cpus;
	while (bytes * 2 <= share)
		bytes *= 2;
	return bytes;
}

static int map_ring(struct ring *r, int fd, size_t ring_bytes)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p;

	p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	r->consumer_pos = p;
	r->data_map_len = page + 2 * ring_bytes;
	p = mmap(NULL, r->data_map_len, PROT_READ, MAP_SHARED, fd, page);
	if (p == MAP_FAILED) {
		r->data_map_len = 0;
		return -errno;
	}
	r->producer_pos = p;
	r->data = (const unsigned char *)p + page;
	r->mask = ring_bytes - 1;
	r->pos = *r->consumer_pos;
	return 0;
}

static void unmap_ring(struct ring *r)
{
	if (r->consumer_pos)
		munmap(r->consumer_pos, sysconf(_SC_PAGESIZE));
	if (r->data_map_len)
		munmap((void *)r->producer_pos, r->data_map_len);
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
	e->epoll_fd = -1;
	/* events__destroy() closes what ring_fds holds: -1 until created */
	e->ring_fds = malloc(nrings * sizeof(*e->ring_fds));
	for (i = 0; e->ring_fds && i < nrings; i++)
		e->ring_fds[i] = -1;
	e->rings = calloc(nrings, sizeof(*e->rings));
	e->heads = calloc(nrings, sizeof(*e->heads));
	if (!e->ring_fds || !e->rings || !e->heads) {
		err = -ENOMEM;
		goto fail;
	}
	e->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (e->epoll_fd < 0)
		err = -errno;
	for (i = 0; i < nrings && !err; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = i };

		e->ring_fds[i] = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "cpu_ring", 0, 0, ring_bytes, NULL);
		if (e->ring_fds[i] < 0)
			err = -errno;
		else if (!(err = map_ring(&e->rings[i], e->ring_fds[i], ring_bytes)) &&
			 epoll_ctl(e->epoll_fd, EPOLL_CTL_ADD, e->ring_fds[i], &ev))
			err = -errno;
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
	for (i = 0; e->rings && i < e->nrings; i++)
		unmap_ring(&e->rings[i]);
	for (i = 0; e->ring_fds && i < e->nrings; i++)
		if (e->ring_fds[i] >= 0)
			close(e->ring_fds[i]);
	if (e->epoll_fd >= 0)
		close(e->epoll_fd);
	free(e->ring_fds);
	free(e->rings);
	free(e->heads);
	free(e);
}

void events__set_frames_fn(struct events *e, events_frames_fn fn)
{
	e->frames_fn = fn;
}

void events__set_slot(struct events *e, uint16_t slot, uint64_t tag, uint64_t process_frame,
		      void *frames_ctx)
{
	if (slot >= MAX_PROCS)
		return;
	e->sinks[slot] = (struct slot_sink){
		.live = true, .tag = tag, .process_frame = process_frame, .frames_ctx = frames_ctx,
	};
}

void events__set_python_fn(struct events *e, events_python_fn fn)
{
	e->python_fn = fn;
}

void events__set_go_heap(struct events *e, uint16_t slot, bool on)
{
	if (slot < MAX_PROCS && e->sinks[slot].live)
		e->sinks[slot].go_heap = on;
}

void events__set_python(struct events *e, uint16_t slot, void *ctx)
{
	if (slot < MAX_PROCS && e->sinks[slot].live)
		e->sinks[slot].python_ctx = ctx;
}

const struct events_python_stats *events__python_stats(const struct events *e)
{
	return &e->py_stats;
}

void events__clear_slot(struct events *e, uint16_t slot)
{
	if (slot < MAX_PROCS)
		e->sinks[slot] = (struct slot_sink){ .live = false };
}

int events__fd(const struct events *e)
{
	return e->epoll_fd;
}

/* handles what the rings hold up to cutoff, and keeps the longest time
 * between two releases of ring space */
static int read_rings(struct events *e, uint64_t cutoff)
{
	int err = e->pending ? 0 : merge(e, cutoff);
	uint64_t end = clock__now_ns(), gap = e->read_ns ? end - e->read_ns : 0;

	if (gap > e->longest_gap_ns)
		e->longest_gap_ns = gap;
	e->last_gap_ns = gap;
	e->last_gap_writing = e->writing || e->wrote;
	if (e->last_gap_writing && gap > e->longest_writing_gap_ns)
		e->longest_writing_gap_ns = gap;
	e->wrote = false;
	e->read_ns = end;
	return err;
}

int events__consume(struct events *e)
{
	return read_rings(e, clock__now_ns());
}

int events__flush(struct events *e)
{
	return read_rings(e, UINT64_MAX);
}

bool events__main_exited(const struct events *e)
{
	return e->main_exited;
}

bool events__exec_seen(const struct events *e)
{
	return e->pending && e->pend.type == EVENT_EXEC && !e->follow_exec;
}

void events__set_threads(struct events *e, struct threads *threads)
{
	e->threads = threads;
}

void events__follow_exec(struct events *e, bool follow)
{
	e->follow_exec = follow;
}

bool events__exec_pending(const struct events *e)
{
	return e->pending && e->pend.type == EVENT_EXEC && e->follow_exec;
}

bool events__pending(const struct events *e, struct events_pending *pend)
{
	if (e->pending)
		*pend = e->pend;
	return e->pending;
}

void events__set_pools(struct events *e, struct pools *pools)
{
	e->pools = pools;
}

void events__set_heap(struct events *e, struct heap *heap)
{
	e->heap = heap;
}

void events__resume(struct events *e)
{
	e->pending = false;
}

uint64_t events__longest_gap_ns(const struct events *e)
{
	return e->longest_gap_ns;
}

void events__writing(struct events *e, bool writing)
{
	/* the gap from the end of a write to the next read counts too */
	if (e->writing && !writing)
		e->wrote = true;
	e->writing = writing;
}

uint64_t events__longest_writing_gap_ns(const struct events *e)
{
	return e->longest_writing_gap_ns;
}

uint64_t events__last_gap_ns(const struct events *e, bool *writing)
{
	*writing = e->last_gap_writing;
	return e->last_gap_ns;
}

uint64_t events__malformed(const struct events *e)
{
	return e->malformed;
}
