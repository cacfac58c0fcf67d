// SPDX-License-Identifier: GPL-2.0
/* the heap and what is kept beside it (see recording.h) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "events.h"
#include "exits.h"
#include "filter.h"
#include "growth.h"
#include "heap.h"
#include "leaks.h"
#include "options.h"
#include "processes.h"
#include "profile.h"
#include "recording.h"
#include "resident.h"
#include "pools.h"
#include "suppress.h"
#include "say.h"
#include "symbolize.h"
#include "threads.h"
#include "timeline.h"

struct recording {
	const struct options *opts;
	struct events *events;
	struct heap *heap;
	struct resident *resident;	/* the big mappings' pages in memory */
	uint64_t weigh_next_ns;		/* when one is due next (UINT64_MAX: none) */
	struct pools *pools;		/* the program's own allocators', else NULL */
	struct growth *growth;		/* --sort growth or --tui, else NULL */
	struct timeline *timeline;	/* --timeline, else NULL */
	struct threads *threads;	/* --per-thread, else NULL */
	struct processes *processes;	/* several, else NULL */
	struct exits *exits;		/* several: the processes that exited, by command */
	uint64_t retired;		/* numbers retired (several) */
	uint64_t unmerged;		/* of those, with no keeper: their stacks dropped */
	struct filter *filter;
	unsigned int generation;
	void (*idle)(void *ctx);
	void *idle_ctx;
	double start_s, stopped_s;
	/* the last leak check of each process: what each stack lost, by stack id */
	struct leaked {
		uint32_t stack_id;
		pid_t pid;
		uint64_t bytes, count;
	} *leaked;
	size_t nleaked;
	/* allocation rate over the last tick, for /metrics and the TUI */
	struct heap_stats rate_from;
	uint64_t rate_from_ns;
	double calls_per_s, bytes_per_s;
	uint64_t mark_ns;		/* the baseline mark; 0: none */
	/* --suppressions and the built-in rule; each stack's verdict by id:
	 * 0 not decided yet, KEPT, SUPPRESSED (a stack never changes) */
	struct suppressions *supp;
	uint8_t *verdicts;
	size_t nverdicts;
};

enum { VERDICT_NONE, VERDICT_KEPT, VERDICT_SUPPRESSED };

static struct heap *new_heap(const struct options *o)
{
	struct heap *h = heap__new();

	if (!h)
		return NULL;
	heap__set_sampling(h, o->sample_bytes);
	heap__set_short_lived(h, (uint64_t)(o->short_lived_ms * 1e6));
	/* the median lifetime (--sort short-lived) and the sizes (-v) */
	heap__set_histograms(h, o->sort == SORT_SHORT_LIVED || o->verbose);
	return h;
}

static const uint64_t *map_frames(void *ctx, uint16_t gen, const uint64_t *frames,
				  uint32_t nframes, uint64_t *buf)
{
	/* no symbolizer of its own (a fork's child sharing): its maps are its parent's */
	if (!ctx)
		return frames;
	return symbolizer__map_frames(ctx, gen, frames, nframes, buf);
}

static uint32_t merge_python(void *ctx, const uint64_t *frames, uint32_t nframes,
			     const struct py_frame *py, uint32_t npy, uint64_t *out, uint32_t room)
{
	return symbolizer__merge_python(ctx, frames, nframes, py, npy, out, room);
}

/* the filters of the command line, checked before anything is touched */
int recording__filter(const struct options *o, struct filter **out)
{
	size_t i;

	*out = filter__new(o->default_filters);
	if (!*out)
		return say(-ENOMEM, "cannot build the filters");
	for (i = 0; i < o->nexcludes; i++)
		if (filter__exclude(*out, o->excludes[i]))
			return say(0, "invalid --exclude '%s'", o->excludes[i]);
	for (i = 0; i < o->nincludes; i++)
		if (filter__include(*out, o->includes[i]))
			return say(0, "invalid --include '%s'", o->includes[i]);
	return 0;
}

int recording__suppressions(const struct options *o, struct suppressions **out)
{
	char why[128];
	size_t i;
	int line, err;

	*out = suppress__new(o->default_suppressions);
	if (!*out)
		return say(-ENOMEM, "cannot build the suppressions");
	for (i = 0; i < o->nsuppressions; i++) {
		err = suppress__load(*out, o->suppressions[i], &line, why, sizeof(why));
		if (err == -EINVAL && !line)
			return say(0, "--suppressions %s: %s", o->suppressions[i], why);
		if (err == -EINVAL)
			return say(0, "%s:%d: %s", o->suppressions[i], line, why);
		if (err)
			return say(err, "cannot read the suppressions %s", o->suppressions[i]);
	}
	return 0;
}

int recording__new(const struct options *o, bool several, int ncpus, size_t ring_bytes,
		   struct filter *filter, struct suppressions *supp, struct recording **out)
{
	struct recording *r = calloc(1, sizeof(*r));

	*out = r;
	if (!r) {
		filter__destroy(filter);
		suppress__destroy(supp);
		return say(-ENOMEM, "cannot start");
	}
	r->opts = o;
	r->filter = filter;
	r->supp = supp;
	r->weigh_next_ns = UINT64_MAX;
	r->heap = new_heap(o);
	if (!r->heap || resident__new(&r->resident))
		return say(-ENOMEM, "cannot start");
	if ((o->sort == SORT_GROWTH || o->tui) && !(r->growth = growth__new(o->growth_window)))
		return say(-ENOMEM, "cannot start");
	if (o->output_paths[OUTPUT_TIMELINE] && !(r->timeline = timeline__new()))
		return say(-ENOMEM, "cannot start");
	r->events = events__new(ncpus, ring_bytes, r->heap);
	if (!r->events)
		return say(-errno, "cannot create the BPF ring buffers");
	if (o->named.count && !(r->pools = pools__new(r->heap)))
		return say(-ENOMEM, "cannot start");
	events__set_pools(r->events, r->pools);
	events__follow_exec(r->events, !o->no_follow_exec);
	events__set_frames_fn(r->events, map_frames);
	events__set_python_fn(r->events, merge_python);
	if (o->per_thread) {
		r->threads = threads__new();
		if (!r->threads)
			return say(-ENOMEM, "cannot start");
		events__set_threads(r->events, r->threads);
	}
	if (several && (!(r->processes = processes__new()) || !(r->exits = exits__new())))
		return say(-ENOMEM, "cannot start");
	return 0;
}

/* the heap after the events that fill it, the symbolizers (processes) before */
void recording__destroy(struct recording *r)
{
	if (!r)
		return;
	free(r->leaked);
	free(r->verdicts);
	suppress__destroy(r->supp);
	threads__destroy(r->threads);
	growth__destroy(r->growth);
	timeline__destroy(r->timeline);
	filter__destroy(r->filter);
	processes__destroy(r->processes);
	exits__destroy(r->exits);
	events__destroy(r->events);
	pools__destroy(r->pools);
	heap__destroy(r->heap);
	resident__destroy(r->resident);
	free(r);
}

bool recording__weighs(const struct recording *r)
{
	return heap__weighed_count(r->heap) > 0;
}

void recording__weigh(struct recording *r, const struct resident_procs *procs, bool all)
{
	r->weigh_next_ns = resident__update(r->resident, r->heap, procs, clock__now_ns(), all);
}

int recording__weigh_in_ms(const struct recording *r, int most)
{
	uint64_t now = clock__now_ns(), ms;

	if (!recording__weighs(r) || r->weigh_next_ns == UINT64_MAX)
		return most;
	ms = r->weigh_next_ns > now ? (r->weigh_next_ns - now + 999999) / 1000000 : 0;
	return ms < (uint64_t)most ? (int)ms : most;
}

const struct resident_stats *recording__resident_stats(const struct recording *r)
{
	return resident__stats(r->resident);
}

struct events *recording__events(const struct recording *r)
{
	return r->events;
}

struct pools *recording__pools(const struct recording *r)
{
	return r->pools;
}

struct heap *recording__heap(const struct recording *r)
{
	return r->heap;
}

struct processes *recording__processes(const struct recording *r)
{
	return r->processes;
}

struct timeline *recording__timeline(const struct recording *r)
{
	return r->timeline;
}

unsigned int recording__generation(const struct recording *r)
{
	return r->generation;
}

void recording__set_idle(struct recording *r, void (*fn)(void *ctx), void *ctx)
{
	r->idle = fn;
	r->idle_ctx = ctx;
}

static int by_stack_id(const void *a, const void *b)
{
	const struct leaked *x = a, *y = b;

	return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

int recording__set_leaked(struct recording *r, pid_t pid, const struct leak_stack *lost, size_t n)
{
	struct leaked *grown;
	size_t i, kept = 0;

	/* the process's earlier check goes */
	for (i = 0; i < r->nleaked; i++)
		if (r->leaked[i].pid != pid)
			r->leaked[kept++] = r->leaked[i];
	r->nleaked = kept;
	grown = realloc(r->leaked, (kept + n + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	r->leaked = grown;
	/* a line per class: one entry per stack (lines of a stack are adjacent) */
	for (i = 0; i < n; i++) {
		struct leaked *last = r->nleaked > kept ? &r->leaked[r->nleaked - 1] : NULL;

		if (last && last->stack_id == lost[i].stack_id) {
			last->bytes += lost[i].bytes;
			last->count += lost[i].count;
			continue;
		}
		r->leaked[r->nleaked++] = (struct leaked){ lost[i].stack_id, pid, lost[i].bytes,
							   lost[i].count };
	}
	qsort(r->leaked, r->nleaked, sizeof(*r->leaked), by_stack_id);
	return 0;
}

/* what the last checks found lost, on each stack of p */
static void add_leaked(const struct recording *r, struct profile *p)
{
	size_t i;

	for (i = 0; i < p->count && r->nleaked; i++) {
		struct leaked key = { .stack_id = p->stacks[i].stack_id };
		const struct leaked *l = bsearch(&key, r->leaked, r->nleaked, sizeof(*l),
						 by_stack_id);

		if (l) {
			p->stacks[i].leaked_bytes = l->bytes;
			p->stacks[i].leaked_count = l->count;
		}
	}
}

/* each stack's live blocks born since the mark (one pass over them) */
static void add_since_mark(const struct recording *r, struct profile *p)
{
	const struct live_block *b;
	uint32_t max_id = 0, *at;
	size_t pos = 0, i;
	uint64_t addr;

	p->mark_ns = r->mark_ns;
	if (!r->mark_ns)
		return;
	for (i = 0; i < p->count; i++)
		if (p->stacks[i].stack_id > max_id)
			max_id = p->stacks[i].stack_id;
	at = calloc(max_id + 1, sizeof(*at));
	if (!at)
		return;
	/* index + 1 of each stack id's entry */
	for (i = 0; i < p->count; i++)
		at[p->stacks[i].stack_id] = (uint32_t)i + 1;
	while ((b = heap__next_live(r->heap, &pos, &addr)))
		if (b->birth_ns >= r->mark_ns && b->stack_id <= max_id && at[b->stack_id]) {
			uint64_t bytes, count;

			heap__block_weight(r->heap, addr, b, &bytes, &count);
			p->stacks[at[b->stack_id] - 1].since_mark_bytes += bytes;
			p->stacks[at[b->stack_id] - 1].since_mark_count += count;
		}
	free(at);
}

void recording__mark(struct recording *r, uint64_t now_ns)
{
	r->mark_ns = now_ns;
}

uint64_t recording__mark_ns(const struct recording *r)
{
	return r->mark_ns;
}

/* a stack's verdict, decided once from its frames as shown */
static int verdict(struct recording *r, struct profile *p, const struct profile_stack *s)
{
	const struct shown_frame *frames;
	struct suppress_walk w;
	int n, i;

	if (s->stack_id >= r->nverdicts) {
		size_t cap = (s->stack_id + 1) * 2;
		uint8_t *grown = realloc(r->verdicts, cap);

		if (!grown)
			return VERDICT_KEPT;
		memset(grown + r->nverdicts, 0, cap - r->nverdicts);
		r->verdicts = grown;
		r->nverdicts = cap;
	}
	if (r->verdicts[s->stack_id])
		return r->verdicts[s->stack_id];
	suppress__begin(r->supp, &w);
	n = profile__show(p, s, &frames);
	/* the allocator's frame and a thread's or a process's have no address */
	for (i = 0; i < n; i++)
		if (frames[i].addr)
			suppress__frame(&w, frames[i].function, frames[i].file,
					frames[i].loc ? frames[i].loc->module : NULL);
	r->verdicts[s->stack_id] = suppress__end(&w) ? VERDICT_SUPPRESSED : VERDICT_KEPT;
	return r->verdicts[s->stack_id];
}

/* the suppressed stacks leave p; their live totals are said apart */
static void suppress(struct recording *r, struct profile *p)
{
	size_t i, kept = 0;

	for (i = 0; i < p->count; i++) {
		const struct profile_stack *s = &p->stacks[i];

		if (verdict(r, p, s) == VERDICT_SUPPRESSED) {
			p->suppressed.live_bytes += s->totals.live_bytes;
			p->suppressed.live_count += s->totals.live_count;
			p->suppressed.alloc_bytes += s->totals.alloc_bytes;
			p->suppressed.alloc_count += s->totals.alloc_count;
			p->suppressed.freed += s->totals.freed;
			p->suppressed.peak_bytes += s->totals.peak_bytes;
			p->suppressed.peak_count += s->totals.peak_count;
			p->suppressed_stacks++;
			continue;
		}
		p->stacks[kept++] = *s;
	}
	p->count = kept;
}

bool recording__suppressed(const struct recording *r, uint32_t stack_id)
{
	return stack_id < r->nverdicts && r->verdicts[stack_id] == VERDICT_SUPPRESSED;
}

void recording__suppressed_live(const struct recording *r, uint64_t *bytes, uint64_t *count)
{
	const struct stacks *stacks = heap__stacks(r->heap);
	const struct stack_totals *t;
	size_t id;

	*bytes = *count = 0;
	for (id = 1; id < r->nverdicts; id++) {
		if (r->verdicts[id] != VERDICT_SUPPRESSED || !(t = stacks__peek(stacks, (uint32_t)id)))
			continue;
		*bytes += t->live_bytes;
		*count += t->live_count;
	}
}

size_t recording__suppress_rules(const struct recording *r)
{
	return r->supp ? suppress__count(r->supp) : 0;
}

struct profile *recording__snapshot(struct recording *r, struct symbolizer *sym, bool for_writer)
{
	struct profile_opts popts = {
		.symbolizer = r->processes ? NULL : sym,
		.processes = r->processes,
		.filter = r->filter,
		.allocator_frame = for_writer && r->opts->allocator_frame,
		.fp_walk = r->opts->unwind == UNWIND_MODE_FP,
		.threads = r->threads,
		.growth = r->growth,
		.idle = r->idle,
		.idle_ctx = r->idle_ctx,
	};

	struct profile *p = profile__snapshot(r->heap, &popts);

	if (p) {
		if (r->supp && suppress__count(r->supp))
			suppress(r, p);
		add_leaked(r, p);
		add_since_mark(r, p);
	}
	return p;
}

int recording__reset(struct recording *r)
{
	struct heap *heap = new_heap(r->opts);
	struct pools *pools = NULL;

	if (!heap || (r->pools && !(pools = pools__new(heap)))) {
		heap__destroy(heap);
		return -ENOMEM;
	}
	pools__destroy(r->pools);
	r->pools = pools;
	events__set_pools(r->events, pools);
	/* the old program's stacks are gone: so is their history */
	if (r->growth) {
		growth__destroy(r->growth);
		r->growth = growth__new(r->opts->growth_window);
	}
	heap__destroy(r->heap);
	r->heap = heap;
	events__set_heap(r->events, heap);
	memset(&r->rate_from, 0, sizeof(r->rate_from));
	r->generation++;
	return 0;
}

void recording__drop_process(struct recording *r, uint32_t idx, const char *how)
{
	heap__drop_tag(r->heap, PROC_TAG(idx), PROC_MASK);
	if (r->pools)
		pools__drop_tag(r->pools, PROC_TAG(idx), PROC_MASK);
	processes__ended(r->processes, idx, how);
}

void recording__process_exited(struct recording *r, uint32_t idx)
{
	const char *comm = processes__comm(r->processes, idx);
	uint64_t bytes = 0, count = 0;

	if (!comm || processes__ending(r->processes, idx))
		return;
	heap__exit_tag(r->heap, PROC_TAG(idx), PROC_MASK, &bytes, &count);
	if (r->pools)
		pools__drop_tag(r->pools, PROC_TAG(idx), PROC_MASK);
	if (exits__add(r->exits, comm, bytes, count))
		say(-ENOMEM, "cannot count the exit of process %s", comm);
	processes__ended(r->processes, idx, "exited");
}

struct exits *recording__exits(const struct recording *r)
{
	return r->exits;
}

uint64_t recording__retired(const struct recording *r)
{
	return r->retired;
}

uint64_t recording__unmerged(const struct recording *r)
{
	return r->unmerged;
}

/* frame for frame, another process's number where one's was: a fork's
 * child's, a retired process's keeper's */
struct retag_ctx {
	uint32_t to;
};

static void retag_frames(void *ctx, const uint64_t *frames, uint32_t n, uint64_t *out)
{
	const struct retag_ctx *rc = ctx;
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (IS_PROCESS_FRAME(frames[i]))
			out[i] = PROCESS_FRAME(rc->to);
		else if (IS_THREAD_FRAME(frames[i]))
			out[i] = frames[i];
		else
			out[i] = (frames[i] & ~PROC_MASK) | PROC_TAG(rc->to);
	}
}

/* the leak checks' stacks that are released */
static void forget_leaked(struct recording *r, const uint8_t *released, uint32_t nstacks)
{
	size_t i, kept = 0;

	for (i = 0; i < r->nleaked; i++)
		if (r->leaked[i].stack_id > nstacks || !released[r->leaked[i].stack_id])
			r->leaked[kept++] = r->leaked[i];
	r->nleaked = kept;
}

#define RETIRE_BATCH 256

size_t recording__retire(struct recording *r, size_t keep)
{
	struct stacks *stacks = heap__stacks(r->heap);
	uint32_t victims[RETIRE_BATCH], keeper[PROC_MAX + 1] = {};
	uint8_t retiring[PROC_MAX + 1] = {}, *released;
	uint64_t buf[2 * HEAP_MAX_FRAMES];
	uint32_t nstacks, id, n, into, i, root;
	const char *ending;
	const uint64_t *raw;
	size_t count;
	int k;

	/* the timeline keeps stacks by id from its first point on */
	if (!r->processes || r->timeline)
		return 0;
	count = processes__to_retire(r->processes, keep, victims, RETIRE_BATCH);
	if (!count)
		return 0;
	nstacks = stacks__count(stacks);
	released = calloc(nstacks + 1, sizeof(*released));
	if (!released)
		return 0;
	for (i = 0; i < count; i++) {
		/* an exit took its blocks already; another ending may have left
		 * them (an exec not followed): they go with its stacks */
		ending = processes__ending(r->processes, victims[i]);
		if (!ending || strcmp(ending, "exited")) {
			heap__drop_tag(r->heap, PROC_TAG(victims[i]), PROC_MASK);
			if (r->pools)
				pools__drop_tag(r->pools, PROC_TAG(victims[i]), PROC_MASK);
		}
		k = processes__keeper(r->processes, victims[i]);
		keeper[victims[i]] = k > 0 ? (uint32_t)k : 0;
		r->unmerged += k <= 0;
		retiring[victims[i]] = 1;
	}
	for (id = 1; id <= nstacks; id++) {
		raw = stacks__frames(stacks, id, &n);
		if (!n || !IS_PROCESS_FRAME(raw[n - 1]))
			continue;
		root = processes__frame_process(raw[n - 1]);
		if (root > PROC_MAX || !retiring[root])
			continue;
		if (keeper[root] && n <= sizeof(buf) / sizeof(buf[0])) {
			/* the keeper's number where the process's was, as a fork's child's */
			retag_frames(&(struct retag_ctx){ .to = keeper[root] }, raw, n, buf);
			into = stacks__intern(stacks, buf, n);
			if (into)
				stacks__merge(stacks, id, into);
		}
		stacks__release(stacks, id);
		released[id] = 1;
		if (r->growth)
			growth__forget(r->growth, id);
		if (id < r->nverdicts)
			r->verdicts[id] = VERDICT_NONE;
	}
	forget_leaked(r, released, nstacks);
	free(released);
	for (i = 0; i < count; i++)
		processes__retire(r->processes, victims[i], keeper[victims[i]]);
	r->retired += count;
	return count;
}

int recording__copy_process(struct recording *r, uint32_t from, uint32_t to)
{
	struct retag_ctx rc = { .to = to };
	int err;

	err = heap__copy_tag(r->heap, PROC_TAG(from), PROC_TAG(to), PROC_MASK, retag_frames, &rc);
	if (!err && r->pools)
		err = pools__copy_tag(r->pools, PROC_TAG(from), PROC_TAG(to), PROC_MASK);
	return err;
}

void recording__begin(struct recording *r)
{
	r->start_s = clock__now_ns() / 1e9;
	r->rate_from_ns = clock__now_ns();
}

void recording__stop(struct recording *r)
{
	r->stopped_s = clock__now_ns() / 1e9;
}

double recording__start_s(const struct recording *r)
{
	return r->start_s;
}

double recording__traced_s(const struct recording *r)
{
	return (r->stopped_s ? r->stopped_s : clock__now_ns() / 1e9) - r->start_s;
}

bool recording__wants_rss(const struct recording *r)
{
	return r->timeline != NULL;
}

void recording__sample_timeline(struct recording *r, uint64_t rss_bytes)
{
	if (r->timeline && timeline__sample(r->timeline, heap__stacks(r->heap),
					    clock__now_ns() / 1e9 - r->start_s, rss_bytes))
		say(-ENOMEM, "cannot keep the timeline");
}

static void update_rate(struct recording *r)
{
	const struct heap_stats *now = heap__stats(r->heap);
	uint64_t t = clock__now_ns();
	double elapsed_s = (t - r->rate_from_ns) / 1e9;

	if (elapsed_s <= 0)
		return;
	r->calls_per_s = (now->alloc_calls - r->rate_from.alloc_calls) / elapsed_s;
	r->bytes_per_s = (now->alloc_bytes - r->rate_from.alloc_bytes) / elapsed_s;
	r->rate_from = *now;
	r->rate_from_ns = t;
}

void recording__tick(struct recording *r, uint64_t rss_bytes)
{
	if (r->growth && growth__sample(r->growth, heap__stacks(r->heap), clock__now_ns()))
		say(-ENOMEM, "cannot keep the growth of the stacks");
	recording__sample_timeline(r, rss_bytes);
	update_rate(r);
}

void recording__rate(const struct recording *r, double *calls_per_s, double *bytes_per_s)
{
	*calls_per_s = r->calls_per_s;
	*bytes_per_s = r->bytes_per_s;
}
