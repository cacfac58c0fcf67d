/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_PROFILE_H
#define TRACELLOC_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heap.h"
#include "stacks.h"
#include "growth.h"
#include "symbolize.h"

struct filter;
struct threads;
struct processes;
struct growth;

/*
 * One model for every output: a read-only snapshot of "stacks with metrics",
 * taken from the heap. Frames are named lazily through the symbolizer, when a
 * writer asks for a stack as it is shown.
 */
enum metric {
	METRIC_LIVE_BYTES,
	METRIC_LIVE_COUNT,
	METRIC_ALLOC_BYTES,
	METRIC_ALLOC_COUNT,
	METRIC_PEAK_BYTES,	/* live when the heap was at its peak */
	METRIC_LEAKED_BYTES,	/* definitely and indirectly lost at the last leak check */
	METRIC_SINCE_MARK,	/* live, allocated since the mark (SIGUSR2, --mark-after) */
	METRIC_EXIT_BYTES,	/* held by processes when they exited (several processes) */
	METRIC_EXIT_COUNT,	/* the blocks of those */
};

struct profile_opts {
	struct symbolizer *symbolizer;	/* NULL: every frame is "[unknown]" */
	struct filter *filter;		/* NULL: show every frame */
	bool allocator_frame;		/* add malloc, calloc, ... as the leaf frame */
	/* the stacks were walked by frame pointers alone (--unwind fp): a walk
	 * through code that uses rbp for data goes on with garbage */
	bool fp_walk;
	/* --per-thread: the names of the thread frames that end the stacks */
	const struct threads *threads;
	/* several processes: their frames end the stacks, and name every frame
	 * (symbolizer is not used then) */
	const struct processes *processes;
	/* --sort growth: each stack's history of live bytes; NULL: none */
	const struct growth *growth;
	/*
	 * Called through profile__idle, at most every idle_every_ns (0: 10 ms),
	 * while a writer works: the daemon reads its events meanwhile. The
	 * snapshot does not change, but the heap does: a writer that walks the
	 * heap itself (the report) sets it aside meanwhile.
	 */
	void (*idle)(void *ctx);
	void *idle_ctx;
	uint64_t idle_every_ns;
};

struct profile_stack {
	uint32_t stack_id;
	uint32_t fn;			/* enum alloc_fn */
	struct stack_totals totals;	/* peak_bytes and peak_count: at the latest peak */
	struct growth_stat growth;	/* all 0 without opts.growth */
	/* definitely and indirectly lost at the last leak check (--leak-check) */
	uint64_t leaked_bytes, leaked_count;
	/* live, allocated since the mark; 0 without one */
	uint64_t since_mark_bytes, since_mark_count;
};

/* a frame as writers show it */
struct shown_frame {
	uint64_t addr;			/* return address; 0 for the allocator frame */
	int32_t frame;			/* index of addr in profile__frames(); -1 when none */
	const struct sym_location *loc;	/* NULL for the allocator frame */
	const char *function;
	const char *file;		/* NULL without debug info */
	int line;
	bool inlined;			/* inlined into the next (outer) frame */
	uint32_t hidden_inside;		/* first frame only: hidden frames inside it */
	uint32_t hidden_outside;	/* frames hidden by filters between this one and the next */
};

struct profile {
	struct profile_stack *stacks;
	size_t count;
	struct heap_stats stats;
	const struct stacks *stack_table;
	struct profile_opts opts;
	struct shown_frame *shown;	/* profile__show's buffer */
	size_t shown_cap;
	uint64_t idle_ns;		/* when opts.idle last ran */
	uint64_t mark_ns;		/* the mark (CLOCK_MONOTONIC); 0: none */
	/* the suppressed stacks, left out of stacks[]: their live totals */
	struct stack_totals suppressed;
	size_t suppressed_stacks;
};

/* st less what the suppressed stacks of p hold and did (the numbers the
 * views show) */
void profile__leave_out_suppressed(const struct profile *p, struct heap_stats *st);

/* each stack's totals at one moment, for what happened in a window since
 * (the endpoint's ?seconds=N) */
struct profile_base;

/* p's totals, kept; NULL when out of memory */
struct profile_base *profile__base(const struct profile *p);
void profile__base_destroy(struct profile_base *b);
/* p's totals minus b's, as Go's delta profiles: what was allocated in the
 * window, and how live memory changed (less live: a negative number, in
 * two's complement, as pprof's int64 values read it); stacks with nothing
 * in the window are left out */
void profile__subtract(struct profile *p, const struct profile_base *b);

/* the stacks of heap as they are now; calls opts->idle while it copies them,
 * a copy as of the call all the same */
struct profile *profile__snapshot(struct heap *heap, const struct profile_opts *opts);
void profile__destroy(struct profile *p);

uint64_t profile__value(const struct profile_stack *s, enum metric metric);
/* raw frames of a stack, innermost first (return addresses); with fp_walk,
 * ending at the first frame outside every module */
const uint64_t *profile__frames(const struct profile *p, const struct profile_stack *s,
				uint32_t *nframes);
/* the stack's thread, "thread NAME" (--per-thread), or NULL */
const char *profile__thread(const struct profile *p, const struct profile_stack *s);
/* the stack's process, "pid 1234 (nginx)" (several processes), or NULL */
const char *profile__process(const struct profile *p, const struct profile_stack *s);
/* its number (src/model/processes.h), 0 without */
uint32_t profile__process_id(const struct profile *p, const struct profile_stack *s);
/* what is known of a frame (its function, inlined calls, file:line) */
const struct sym_location *profile__locate(const struct profile *p, uint64_t frame);
/*
 * A stack as shown: symbolized, inlined calls as frames of their own, hidden
 * frames left out, innermost first. Returns the number of frames (at least
 * 1), 0 when --include leaves the stack out, negative errno. *frames points
 * into a buffer that the next call reuses.
 */
int profile__show(struct profile *p, const struct profile_stack *s,
		  const struct shown_frame **frames);

/* would profile__show() keep the stack (--include)? Without --include, at
 * once: a report over 100,000 stacks names only the ones it prints */
bool profile__kept(struct profile *p, const struct profile_stack *s);

/*
 * For a writer's long loops: calls opts.idle when its time has come. Reading
 * events may move the raw frames of the stack table (profile__frames()), so
 * a writer holds none across this call; what profile__show() returns stays
 * valid until its next call. p may be NULL (a writer with no profile).
 */
void profile__idle(struct profile *p);
/* sorts as qsort_r does, calling profile__idle(p) as it goes; 0 or -ENOMEM */
int profile__sort(struct profile *p, void *base, size_t n, size_t size,
		  int (*cmp)(const void *a, const void *b, void *arg), void *arg);

/* "live", "live-count", "allocated", "count", "peak", "leaked"; -EINVAL for others */
int metric__parse(const char *name, enum metric *metric);

#endif
