// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "filter.h"
#include "allocfns.h"
#include "profile.h"
#include "sort.h"
#include "symbolize.h"
#include "threads.h"
#include "processes.h"
#include "tracelloc.h"

#define IDLE_EVERY_NS 10000000ULL

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14 */
#endif

/*
 * Memory for the snapshot, zeroed, its pages made present beforehand: a
 * fresh page costs a fault, and a million stacks fault 10,000 of them, 160
 * ms on a VM that takes 16 us a fault. Idles between two pieces.
 */
#define POPULATE_STEP (1 << 20)

static void *alloc_present(struct profile *p, size_t size)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), start, end, at, len, i;
	char *mem = calloc(1, size ? size : 1);
	bool populate = true;

	if (!mem)
		return NULL;
	start = ((uintptr_t)mem + page - 1) & ~(page - 1);
	end = ((uintptr_t)mem + size) & ~(page - 1);
	for (at = start; at < end; at += len) {
		len = end - at < POPULATE_STEP ? end - at : POPULATE_STEP;
		/* kernels before 5.14 refuse it: touch the pages instead */
		if (populate && madvise((void *)at, len, MADV_POPULATE_WRITE))
			populate = false;
		for (i = at; !populate && i < at + len; i += page)
			*(volatile char *)i = 0;
		profile__idle(p);
	}
	return mem;
}

static void copy_stack(struct profile *p, uint32_t id)
{
	struct profile_stack *s = &p->stacks[id - 1];

	if (s->stack_id)
		return;
	s->stack_id = id;
	s->fn = stacks__fn(p->stack_table, id);
	s->totals = *stacks__peek(p->stack_table, id);
	stacks__at_peak(p->stack_table, id, &s->totals.peak_bytes, &s->totals.peak_count);
	if (p->opts.growth)
		growth__stat(p->opts.growth, id, &s->growth);
}

static void copy_before_change(void *p, uint32_t id)
{
	copy_stack(p, id);
}

/* stacks copied between two looks at the clock */
#define COPY_STEP 16384

struct profile *profile__snapshot(struct heap *heap, const struct profile_opts *opts)
{
	struct stacks *stacks = heap__stacks(heap);
	struct profile *p = calloc(1, sizeof(*p));
	uint32_t n = stacks__count(stacks), first, last, id;
	size_t cap;

	if (!p)
		return NULL;
	if (opts)
		p->opts = *opts;
	p->stack_table = stacks;
	p->idle_ns = clock__now_ns();
	/* stacks made while the memory is readied fit in the slack, mostly */
	cap = n + n / 8 + 64;
	p->stacks = alloc_present(p, cap * sizeof(*p->stacks));
	n = stacks__count(stacks);
	if (p->stacks && n > cap) {
		free(p->stacks);
		p->stacks = calloc(n, sizeof(*p->stacks));
	}
	if (!p->stacks) {
		free(p);
		return NULL;
	}
	/* The moment of the snapshot. The copy goes on a piece at a time, the
	 * daemon reading events in between: a stack not copied yet is copied
	 * before an event changes it. Stacks made since are not in it. */
	p->stats = *heap__stats(heap);
	p->count = n;
	for (first = 1; first <= n; first = last + 1) {
		last = n - first < COPY_STEP ? n : first + COPY_STEP - 1;
		stacks__guard(stacks, last + 1, n, copy_before_change, p);
		for (id = first; id <= last; id++)
			copy_stack(p, id);
		profile__idle(p);
	}
	stacks__guard(stacks, 1, 0, NULL, NULL);
	/* released ids (processes retired) are no stacks */
	for (id = 0, first = 0; id < n; id++)
		if (stacks__serial(stacks, p->stacks[id].stack_id))
			p->stacks[first++] = p->stacks[id];
	p->count = first;
	return p;
}

void profile__destroy(struct profile *p)
{
	if (!p)
		return;
	free(p->stacks);
	free(p->shown);
	free(p);
}

uint64_t profile__value(const struct profile_stack *s, enum metric metric)
{
	switch (metric) {
	case METRIC_LIVE_BYTES: return s->totals.live_bytes;
	case METRIC_LIVE_COUNT: return s->totals.live_count;
	case METRIC_ALLOC_BYTES: return s->totals.alloc_bytes;
	case METRIC_ALLOC_COUNT: return s->totals.alloc_count;
	case METRIC_PEAK_BYTES: return s->totals.peak_bytes;
	case METRIC_LEAKED_BYTES: return s->leaked_bytes;
	case METRIC_SINCE_MARK: return s->since_mark_bytes;
	case METRIC_EXIT_BYTES: return s->totals.exit_bytes;
	case METRIC_EXIT_COUNT: return s->totals.exit_count;
	}
	return 0;
}

const uint64_t *profile__frames(const struct profile *p, const struct profile_stack *s,
				uint32_t *nframes)
{
	const uint64_t *frames = stacks__frames(p->stack_table, s->stack_id, nframes);
	uint32_t i;

	/* the process's and thread's frames are no code: profile__process()
	 * and profile__thread() tell of them */
	if (*nframes && IS_PROCESS_FRAME(frames[*nframes - 1]))
		(*nframes)--;
	if (*nframes && IS_THREAD_FRAME(frames[*nframes - 1]))
		(*nframes)--;
	/* a frame-pointer walk through code that uses rbp for data goes on with
	 * garbage: stop after the first frame that lies in no module. Not a
	 * walk by the tables, which makes no frame up: a frame in code mapped
	 * and gone between two reads of the maps lies in none the symbolizer
	 * knows, and its callers are real. */
	for (i = 0; i < *nframes && p->opts.fp_walk && (p->opts.symbolizer || p->opts.processes);
	     i++) {
		if (p->opts.processes ? !processes__in_module(p->opts.processes, frames[i])
				      : !symbolizer__in_module(p->opts.symbolizer, frames[i])) {
			*nframes = i + 1;
			break;
		}
	}
	return frames;
}

const char *profile__thread(const struct profile *p, const struct profile_stack *s)
{
	const uint64_t *frames;
	uint32_t n;

	if (!p->opts.threads)
		return NULL;
	frames = stacks__frames(p->stack_table, s->stack_id, &n);
	if (n && IS_PROCESS_FRAME(frames[n - 1]))
		n--;
	return n ? threads__label(p->opts.threads, frames[n - 1]) : NULL;
}

uint32_t profile__process_id(const struct profile *p, const struct profile_stack *s)
{
	const uint64_t *frames;
	uint32_t n;

	if (!p->opts.processes)
		return 0;
	frames = stacks__frames(p->stack_table, s->stack_id, &n);
	return n ? processes__frame_process(frames[n - 1]) : 0;
}

const char *profile__process(const struct profile *p, const struct profile_stack *s)
{
	uint32_t idx = profile__process_id(p, s);

	return idx ? processes__label(p->opts.processes, PROCESS_FRAME(idx)) : NULL;
}

const struct sym_location *profile__locate(const struct profile *p, uint64_t frame)
{
	static const struct sym_frame unknown_frame = { .function = "[unknown]" };
	static const struct sym_location unknown = { .nframes = 1, .frames = &unknown_frame };

	if (p->opts.processes)
		return processes__locate(p->opts.processes, frame);
	return p->opts.symbolizer ? symbolizer__locate(p->opts.symbolizer, frame) : &unknown;
}

/* can every frame be named at once? */
static bool frames_ready(const struct profile *p, const uint64_t *raw, uint32_t nraw)
{
	uint32_t i;

	for (i = 0; i < nraw; i++) {
		if (p->opts.processes ? !processes__ready(p->opts.processes, raw[i]) :
		    p->opts.symbolizer && !symbolizer__ready(p->opts.symbolizer, raw[i]))
			return false;
	}
	return true;
}

void profile__idle(struct profile *p)
{
	uint64_t every;

	if (!p || !p->opts.idle)
		return;
	every = p->opts.idle_every_ns ? p->opts.idle_every_ns : IDLE_EVERY_NS;
	if (clock__now_ns() - p->idle_ns < every)
		return;
	p->opts.idle(p->opts.idle_ctx);
	p->idle_ns = clock__now_ns();
}

static void idle_tick(void *p)
{
	profile__idle(p);
}

int profile__sort(struct profile *p, void *base, size_t n, size_t size,
		  int (*cmp)(const void *a, const void *b, void *arg), void *arg)
{
	return sort__chunked(base, n, size, cmp, arg, idle_tick, p);
}

static const char *const metric_names[] = {
	[METRIC_LIVE_BYTES] = "live",
	[METRIC_LIVE_COUNT] = "live-count",
	[METRIC_ALLOC_BYTES] = "allocated",
	[METRIC_ALLOC_COUNT] = "count",
	[METRIC_PEAK_BYTES] = "peak",
	[METRIC_LEAKED_BYTES] = "leaked",
	[METRIC_SINCE_MARK] = "since-mark",
	[METRIC_EXIT_BYTES] = "exit",
	[METRIC_EXIT_COUNT] = "exit-count",
};

static int reserve_shown(struct profile *p, size_t n)
{
	struct shown_frame *grown;
	size_t cap = p->shown_cap ? p->shown_cap : 64;

	if (n <= p->shown_cap)
		return 0;
	while (cap < n)
		cap *= 2;
	grown = realloc(p->shown, cap * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	p->shown = grown;
	p->shown_cap = cap;
	return 0;
}

/* every frame of the stack as named, allocator frame first and thread and
 * process frames last (*thread, *process: theirs, or NULL); the number of
 * them, or negative errno */
static int name_frames(struct profile *p, const struct profile_stack *s, const char **thread,
		       const char **process)
{
	uint32_t nraw, i, j;
	const uint64_t *raw;
	size_t n = 0;
	int err;

	/* before the frames are fetched: reading events may move them */
	profile__idle(p);
	raw = profile__frames(p, s, &nraw);
	/* a file still loading on the symbolizer's thread: events are read
	 * while it loads (a writer that reads none waits in the lookup) */
	while (p->opts.idle && !frames_ready(p, raw, nraw)) {
		symbolizer__await(IDLE_EVERY_NS / 1000000);
		p->opts.idle(p->opts.idle_ctx);
		p->idle_ns = clock__now_ns();
		raw = profile__frames(p, s, &nraw);
	}
	*thread = profile__thread(p, s);
	*process = profile__process(p, s);
	err = reserve_shown(p, 3 + (nraw ? nraw : 1) * (size_t)SYM_MAX_INLINE);
	if (err)
		return err;
	if (p->opts.allocator_frame)
		p->shown[n++] = (struct shown_frame){ .function = allocfns__name(s->fn), .frame = -1 };
	for (i = 0; i < nraw; i++) {
		const struct sym_location *loc = profile__locate(p, raw[i]);

		for (j = 0; j < loc->nframes; j++)
			p->shown[n++] = (struct shown_frame){
				.addr = raw[i],
				.frame = (int32_t)i,
				.loc = loc,
				.function = loc->frames[j].function,
				.file = loc->frames[j].file,
				.line = loc->frames[j].line,
				.inlined = loc->frames[j].inlined,
			};
	}
	if (!n)
		p->shown[n++] = (struct shown_frame){ .function = "[unknown]", .frame = -1 };
	if (*thread)
		p->shown[n++] = (struct shown_frame){ .function = *thread, .frame = -1 };
	if (*process)
		p->shown[n++] = (struct shown_frame){ .function = *process, .frame = -1 };
	return (int)n;
}

int profile__show(struct profile *p, const struct profile_stack *s,
		  const struct shown_frame **frames)
{
	struct filter *filter = p->opts.filter;
	bool focused = !filter__has_focus(filter);
	const char *thread, *process;
	size_t kept = 0, k, n;
	uint32_t hidden_inside = 0;
	int ret = name_frames(p, s, &thread, &process);

	if (ret < 0)
		return ret;
	n = (size_t)ret;
	/* focus looks at every frame, hidden ones too; then drop the hidden */
	for (k = 0; k < n && !focused; k++)
		focused = filter__focuses(filter, p->shown[k].function);
	if (!focused)
		return 0;
	for (k = 0; k < n; k++) {
		if (filter__hides(filter, p->shown[k].function) &&
		    !(k == 0 && p->opts.allocator_frame) &&
		    !(k >= n - !!thread - !!process)) {
			if (kept)
				p->shown[kept - 1].hidden_outside++;
			else
				hidden_inside++;
			continue;
		}
		p->shown[kept++] = p->shown[k];
		if (kept == 1)
			p->shown[0].hidden_inside = hidden_inside;
	}
	if (!kept) {	/* everything hidden: keep the leaf, so the bytes stay visible */
		p->shown[0] = (struct shown_frame){ .function = "[filtered]", .frame = -1,
						    .hidden_outside = n };
		kept = 1;
	}
	*frames = p->shown;
	return (int)kept;
}

bool profile__kept(struct profile *p, const struct profile_stack *s)
{
	const struct shown_frame *frames;

	/* only --include leaves a stack out: without it, no frame need be named */
	if (!filter__has_focus(p->opts.filter))
		return true;
	return profile__show(p, s, &frames) > 0;
}

int metric__parse(const char *name, enum metric *metric)
{
	size_t i;

	for (i = 0; i < sizeof(metric_names) / sizeof(metric_names[0]); i++) {
		if (!strcmp(name, metric_names[i])) {
			*metric = i;
			return 0;
		}
	}
	return -EINVAL;
}

struct profile_base {
	size_t count;
	struct base_stack {
		uint32_t stack_id;
		struct stack_totals totals;
	} stacks[];
};

static int by_base_id(const void *a, const void *b)
{
	const struct base_stack *x = a, *y = b;

	return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

struct profile_base *profile__base(const struct profile *p)
{
	struct profile_base *b = malloc(sizeof(*b) + p->count * sizeof(b->stacks[0]));
	size_t i;

	if (!b)
		return NULL;
	b->count = p->count;
	for (i = 0; i < p->count; i++)
		b->stacks[i] = (struct base_stack){ p->stacks[i].stack_id, p->stacks[i].totals };
	qsort(b->stacks, b->count, sizeof(b->stacks[0]), by_base_id);
	return b;
}

void profile__base_destroy(struct profile_base *b)
{
	free(b);
}

void profile__subtract(struct profile *p, const struct profile_base *b)
{
	size_t i, kept = 0;

	for (i = 0; i < p->count; i++) {
		struct profile_stack *s = &p->stacks[i];
		struct base_stack key = { .stack_id = s->stack_id };
		const struct base_stack *was = bsearch(&key, b->stacks, b->count,
						       sizeof(b->stacks[0]), by_base_id);

		if (was) {
			s->totals.live_bytes -= was->totals.live_bytes;
			s->totals.live_count -= was->totals.live_count;
			s->totals.alloc_bytes -= was->totals.alloc_bytes;
			s->totals.alloc_count -= was->totals.alloc_count;
			s->totals.peak_bytes -= was->totals.peak_bytes;
			s->totals.peak_count -= was->totals.peak_count;
		}
		if (s->totals.alloc_count || s->totals.live_count || s->totals.live_bytes)
			p->stacks[kept++] = *s;
	}
	p->count = kept;
}

void profile__leave_out_suppressed(const struct profile *p, struct heap_stats *st)
{
	st->live_bytes -= p->suppressed.live_bytes;
	st->live_count -= p->suppressed.live_count;
	st->alloc_bytes -= p->suppressed.alloc_bytes;
	st->alloc_calls -= p->suppressed.alloc_count;
	st->frees -= p->suppressed.freed;
	st->peak_live_bytes -= p->suppressed.peak_bytes;
	st->peak_live_count -= p->suppressed.peak_count;
}
