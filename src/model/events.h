/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_EVENTS_H
#define TRACELLOC_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct heap;

/* Consumer of the BPF ring buffers, one per CPU: merges their records in time
 * order and decodes them into the heap. */
struct events;

/* the size of each CPU's ring, a power of two of at least a page: its share of
 * `total` bytes (--ringbuf-size), or with total 0, of 16 MiB but at least
 * 1 MiB */
size_t events__ring_bytes(uint64_t total, int ncpus);
/* creates the rings, ring_bytes each, and the BPF array of maps that holds
 * them, which it starts filling in the background; NULL with errno set */
struct events *events__new(int nrings, size_t ring_bytes, struct heap *heap);
/* the array of rings, for the BPF object to reuse instead of creating it */
int events__rings_map_fd(const struct events *e);
/* waits until the array holds every ring; negative errno */
int events__publish(struct events *e);
void events__destroy(struct events *e);

/* gives the frames of a stack taken in maps generation gen as they are to be
 * interned: frames, or buf (room for nframes) */
typedef const uint64_t *(*events_frames_fn)(void *ctx, uint16_t gen, const uint64_t *frames,
					    uint32_t nframes, uint64_t *buf);
/* every stack goes through fn, with its process's ctx, before the heap sees it */
void events__set_frames_fn(struct events *e, events_frames_fn fn);
/*
 * The records of the process in slot are read from now on: frames go
 * through fn with frames_ctx; tag is or'ed into every address and frame
 * (0 with one process), and process_frame (not 0) ends every stack. Records
 * of a slot not set are dropped.
 */
void events__set_slot(struct events *e, uint16_t slot, uint64_t tag, uint64_t process_frame,
		      void *frames_ctx);
void events__clear_slot(struct events *e, uint16_t slot);

/* gives the frames of a stack with the Python frames py merged in, into
 * out (room frames): the count; 0 leaves frames as they are */
struct py_frame;
typedef uint32_t (*events_python_fn)(void *ctx, const uint64_t *frames, uint32_t nframes,
				     const struct py_frame *py, uint32_t npy, uint64_t *out,
				     uint32_t room);
void events__set_python_fn(struct events *e, events_python_fn fn);
/* the process in slot (set) runs Python: its stacks go through the
 * python fn with ctx */
void events__set_python(struct events *e, uint16_t slot, void *ctx);
/* the process in slot has Go's heap traced (runtime.mallocgc): its
 * mappings are the runtime's, held but no allocation calls */
void events__set_go_heap(struct events *e, uint16_t slot, bool on);
struct events_python_stats {
	uint64_t stacks;	/* stacks with Python frames merged in */
	uint64_t cut;		/* Python stacks deeper than PY_MAX_FRAMES, cut there */
};
const struct events_python_stats *events__python_stats(const struct events *e);

/* an fd that polls readable when records wait */
int events__fd(const struct events *e);
/* reads every record that waits and handles those stamped before the read
 * began (later ones may depend on records not read yet); negative errno */
int events__consume(struct events *e);
/* reads and handles every record: at the end of the trace */
int events__flush(struct events *e);
/* the target called exec, and is not followed: records after that one are not read */
bool events__exec_seen(const struct events *e);
struct threads;
/* --per-thread: names of threads go to threads, and every stack ends with
 * its thread's frame */
void events__set_threads(struct events *e, struct threads *threads);
/* with follow, an exec does not end the trace: reading stops at its record
 * (events__exec_pending) until events__resume() */
void events__follow_exec(struct events *e, bool follow);
bool events__exec_pending(const struct events *e);
/* an exec or a fork, whose record reading stopped after */
struct events_pending {
	uint32_t type;		/* EVENT_EXEC, EVENT_FORK, EVENT_FORK_PARENT, EVENT_COMM_EXEC */
	uint16_t slot;		/* the process that called exec, the parent */
	uint32_t tid;
	uint64_t addr;		/* EVENT_COMM_EXEC: the new process's pid */
	/* the forks (struct fork_event) */
	uint32_t child, child_own, flags;
};
bool events__pending(const struct events *e, struct events_pending *pend);
/* the heap records go to from now on */
/* the program's own allocators' records go there too; NULL: none */
struct pools;
void events__set_pools(struct events *e, struct pools *pools);
void events__set_heap(struct events *e, struct heap *heap);
/* reading goes on past the pending record */
void events__resume(struct events *e);
/* the main thread exited while others ran on */
bool events__main_exited(const struct events *e);
/* records the daemon could not make sense of (should stay 0) */
uint64_t events__malformed(const struct events *e);
/* the longest time between the ends of two reads, when ring space is given
 * back, from the first on: how long a full ring would have had to wait */
uint64_t events__longest_gap_ns(const struct events *e);
/* the daemon writes a page or a file (writing), or has done so: gaps that end
 * while it writes, or at the first read after, count apart too */
void events__writing(struct events *e, bool writing);
/* the longest of those: what writing costs the rings; 0 when none ended */
uint64_t events__longest_writing_gap_ns(const struct events *e);
/* the gap that the last read ended, and whether it counted as writing */
uint64_t events__last_gap_ns(const struct events *e, bool *writing);

#endif
