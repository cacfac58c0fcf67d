// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "exits.h"
#include "profile.h"
#include "leaks.h"
#include "pyframes.h"
#include "report.h"
#include "processes.h"
#include "text.h"
#include "tracelloc.h"

#define BOLD(o) ((o)->color ? "\033[1m" : "")
#define SIZE(o) ((o)->color ? "\033[1;33m" : "")
#define DIM(o) ((o)->color ? "\033[2m" : "")
#define RESET(o) ((o)->color ? "\033[0m" : "")

void report__human_bytes(uint64_t bytes, char *buf, size_t size)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double value = bytes;
	int unit = -1;

	if (bytes < 1024) {
		snprintf(buf, size, "%" PRIu64 " B", bytes);
		return;
	}
	/* 1023.5 KiB would print as "1024 KiB": switch units before rounding does */
	while (value >= 1023.5 && unit < 3) {
		value /= 1024;
		unit++;
	}
	snprintf(buf, size, value < 10 ? "%.2f %s" : value < 100 ? "%.1f %s" : "%.0f %s", value,
		 units[unit]);
}

void report__live_line(FILE *out, double elapsed_s, const struct heap_stats *now,
		       const struct heap_stats *prev, double interval_s, const struct loss *loss)
{
	char live[32];

	report__human_bytes(now->live_bytes, live, sizeof(live));
	fprintf(out,
		"[%7.1fs] live: %" PRIu64 " allocations, %s | %.0f allocs/s, %.0f frees/s | lost: %" PRIu64
		"\n",
		elapsed_s, now->live_count, live,
		(now->alloc_calls - prev->alloc_calls) / interval_s,
		(now->frees + now->unknown_frees - prev->frees - prev->unknown_frees) / interval_s,
		loss->lost_allocs + loss->lost_frees);
	fflush(out);
}

/* the lines of the summary's exits shown by name; the rest added up */
#define EXIT_LINES 10

static void print_exits(FILE *out, const struct summary *s)
{
	uint64_t procs = 0, bytes = 0, blocks = 0;
	char held[32], most[32];
	size_t i;

	for (i = 0; i < s->nexit_rows; i++) {
		procs += s->exit_rows[i].processes;
		bytes += s->exit_rows[i].bytes;
		blocks += s->exit_rows[i].blocks;
	}
	report__human_bytes(bytes, held, sizeof(held));
	fprintf(out, "    processes that exited: %" PRIu64 ", holding %" PRIu64 " bytes (%s) in %"
		PRIu64 " blocks at their exits (no longer live; -m exit shows their stacks)\n",
		procs, bytes, held, blocks);
	for (i = 0; i < s->nexit_rows && i < EXIT_LINES; i++) {
		const struct exit_row *r = &s->exit_rows[i];

		report__human_bytes(r->bytes, held, sizeof(held));
		report__human_bytes(r->max_bytes, most, sizeof(most));
		fputs("      ", out);
		text__put(out, r->comm);
		fprintf(out, ": %" PRIu64 " exited, %s in %" PRIu64 " blocks held at exit (%s the most "
			"one held)\n", r->processes, held, r->blocks, most);
	}
	if (s->nexit_rows > EXIT_LINES)
		fprintf(out, "      and %zu more commands\n", s->nexit_rows - EXIT_LINES);
	if (s->unmerged)
		fprintf(out, "    exited processes whose stacks were dropped: %" PRIu64 " of %" PRIu64
			" merged into their commands' (no room for more commands and programs; their "
			"exits are counted above)\n", s->unmerged, s->retired);
}

void report__summary(FILE *out, const struct summary *s)
{
	const struct heap_stats *st = &s->stats;
	char alloc_h[32], live_h[32], peak_h[32], own_h[32], mapped_h[32], resident_h[32];
	char inherited_h[32], blockless_h[32];
	uint64_t cut;

	report__human_bytes(st->alloc_bytes, alloc_h, sizeof(alloc_h));
	report__human_bytes(st->live_bytes, live_h, sizeof(live_h));
	if (s->several)
		fprintf(out, "==> summary: %zu processes, traced %.2f s, ", s->processes,
			s->traced_s);
	else
		fprintf(out, "==> summary: pid %d, traced %.2f s, ", s->pid, s->traced_s);
	/* the ending may name the target's programs */
	text__put(out, s->ending);
	fputc('\n', out);
	if (s->untraced_processes || s->loss.untraced_procs)
		fprintf(out, "    processes not traced: %" PRIu64 " (%" PRIu64 " when %d were traced at "
			"once already, %" PRIu64 " with no room to hold them)\n",
			s->untraced_processes + s->loss.untraced_procs, s->untraced_processes,
			MAX_PROCS, s->loss.untraced_procs);
	if (s->loss.untraced_forks)
		fprintf(out, "    child processes not traced: %" PRIu64 " (--follow-forks traces them)\n",
			s->loss.untraced_forks);
	if (s->loss.ptraced)
		fprintf(out, "    stops not made, as a debugger or strace traced the process: %" PRIu64
			"\n", s->loss.ptraced);
	if (s->execs) {
		fputs("    exec: ", out);
		text__put(out, s->execs);
		fputs(" (the numbers are the last program's)\n", out);
	}
	if (s->sample_bytes)
		fprintf(out, "    sampling: one sample per %" PRIu64 " bytes on average; the numbers "
			"below are estimates\n", s->sample_bytes);
	fprintf(out, "    allocation calls: %" PRIu64 " (%" PRIu64 " bytes, %s)\n", st->alloc_calls,
		st->alloc_bytes, alloc_h);
	fprintf(out, "    frees: %" PRIu64 "\n", st->frees);
	fprintf(out, "    unknown frees: %" PRIu64 " (blocks allocated before tracing began)\n",
		st->unknown_frees);
	fprintf(out, "    live allocations: %" PRIu64 " (%" PRIu64 " bytes, %s)\n", st->live_count,
		st->live_bytes, live_h);
	if (st->inherited_count) {
		report__human_bytes(st->inherited_bytes, inherited_h, sizeof(inherited_h));
		fprintf(out, "    inherited at fork: %" PRIu64 " (%" PRIu64 " bytes, %s): blocks the "
			"children began with, copies of their parents' (no allocation call)\n",
			st->inherited_count, st->inherited_bytes, inherited_h);
	}
	if (s->nexit_rows)
		print_exits(out, s);
	if (s->weighed_count) {
		report__human_bytes(s->weighed_mapped, mapped_h, sizeof(mapped_h));
		report__human_bytes(s->weighed_resident, resident_h, sizeof(resident_h));
		fprintf(out, "    of which the program's mappings of 1 MiB or more: %" PRIu64 ", %s mapped, "
			"counted by their pages in memory when last measured: %s\n",
			s->weighed_count, mapped_h, resident_h);
	}
	if (st->blockless_calls) {
		report__human_bytes(st->blockless_bytes, blockless_h, sizeof(blockless_h));
		fprintf(out, "    of the allocation calls, Go's: %" PRIu64 " (%" PRIu64 " bytes, %s) at "
			"runtime.mallocgc, allocations only: its GC frees them without a call, and "
			"what it holds is in the runtime's mappings\n", st->blockless_calls,
			st->blockless_bytes, blockless_h);
	}
	if (s->weighed_whole)
		fprintf(out, "    mappings counted whole: %" PRIu64 " (their process ended before their "
			"pages were measured)\n", s->weighed_whole);
	if (s->named) {
		report__human_bytes(s->own_bytes, own_h, sizeof(own_h));
		fprintf(out, "    held by named allocators' own memory: %" PRIu64 " bytes (%s) in %"
			PRIu64 " piece%s\n", s->own_bytes, own_h, s->own_count,
			s->own_count == 1 ? "" : "s");
	}
	if (st->peak_live_bytes) {
		report__human_bytes(st->peak_live_bytes, peak_h, sizeof(peak_h));
		fprintf(out, "    peak: %" PRIu64 " live allocations (%" PRIu64 " bytes, %s), %.2f s "
			"into the trace\n", st->peak_live_count, st->peak_live_bytes, peak_h,
			s->peak_at_s);
	}
	fprintf(out, "    lost events: %" PRIu64 " (%" PRIu64 " allocations, %" PRIu64
		" frees; ring buffer full)\n",
		s->loss.lost_allocs + s->loss.lost_frees, s->loss.lost_allocs, s->loss.lost_frees);
	fprintf(out, "    failed stacks: %" PRIu64 "\n", st->failed_stacks);
	if (s->loss.sampled_full)
		fprintf(out, "    samples not tracked: %" PRIu64 " (the table of sampled blocks was full)\n",
			s->loss.sampled_full);
	cut = s->loss.cut_no_table + s->loss.cut_rule + s->loss.cut_unreadable + s->loss.cut_depth;
	if (cut)
		fprintf(out, "    stacks cut short: %" PRIu64 " (no table %" PRIu64 ", rule %" PRIu64
			", unreadable %" PRIu64 ", depth %" PRIu64 ")\n", cut, s->loss.cut_no_table,
			s->loss.cut_rule, s->loss.cut_unreadable, s->loss.cut_depth);
	if (s->py_stacks || s->loss.lost_py)
		fprintf(out, "    python stacks: %" PRIu64 " (cut at %d Python frames: %" PRIu64
			", frames lost: %" PRIu64 ", ring buffer full)\n", s->py_stacks, PY_MAX_FRAMES,
			s->py_cut, s->loss.lost_py);
	if (s->loss.untraced_calls)
		fprintf(out, "    untraced calls: %" PRIu64 " (no per-thread state)\n",
			s->loss.untraced_calls);
	if (st->reused_live)
		fprintf(out, "    reused live addresses: %" PRIu64 " (their free was lost)\n",
			st->reused_live);
	if (s->suppressed_stacks)
		fprintf(out, "    suppressed: %" PRIu64 " bytes in %" PRIu64 " allocations, %zu stack%s, "
			"by %zu rule%s\n", s->suppressed_bytes, s->suppressed_count,
			s->suppressed_stacks, s->suppressed_stacks == 1 ? "" : "s", s->suppress_rules,
			s->suppress_rules == 1 ? "" : "s");
	if (s->leak_checks)
		fprintf(out, "    leak check: definitely lost %" PRIu64 " bytes in %" PRIu64 " blocks, "
			"indirectly %" PRIu64 " in %" PRIu64 ", possibly %" PRIu64 " in %" PRIu64
			" (target stopped for %.2f ms at most, %s)\n",
			s->leak_bytes[LEAK_DEFINITE], s->leak_blocks[LEAK_DEFINITE],
			s->leak_bytes[LEAK_INDIRECT], s->leak_blocks[LEAK_INDIRECT],
			s->leak_bytes[LEAK_POSSIBLE], s->leak_blocks[LEAK_POSSIBLE], s->leak_stopped_ms,
			s->leak_snapshots == s->leak_checks ? "snapshot" :
			s->leak_snapshots ? "snapshot or stopped scan" : "stopped scan");
	fflush(out);
}

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path;
}

static void print_frame(FILE *out, const struct shown_frame *f, const struct report_opts *o)
{
	const char *module = f->loc ? base_name(f->loc->module) : NULL;

	/* every name here is the target's own (symbols, files, its comm): escaped */
	if (!f->loc) {	/* the allocator frame, or a process or thread frame */
		fprintf(out, "        %18s ", "");
		text__put(out, f->function);
		fputc('\n', out);
		return;
	}
	/* CPython's own frame: the function and its line in the script */
	if (SYM_LAYER(f->addr) == PY_SYM_LAYER) {
		fprintf(out, "        %18s ", "[python]");
		text__put(out, f->function);
		if (f->file) {
			fputc(' ', out);
			text__put(out, f->file);
			fprintf(out, ":%d", f->line);
		}
		fputc('\n', out);
		return;
	}
	if (f->inlined)
		fprintf(out, "        %18s %s[inlined]%s ", "", DIM(o), RESET(o));
	else
		fprintf(out, "        0x%016" PRIx64 " ", SYM_ADDR(f->addr));
	text__put(out, f->function);
	if (!f->inlined && f->loc->symbol)
		fprintf(out, "+0x%" PRIx64, f->loc->offset);
	if (module) {
		fputs(" (", out);
		text__put(out, module);
		fputc(')', out);
	}
	if (f->file) {
		fputc(' ', out);
		text__put(out, f->file);
		fprintf(out, ":%d", f->line);
	}
	fputc('\n', out);
}

static void print_hidden(FILE *out, uint32_t n)
{
	if (n)
		fprintf(out, "         (%u filtered out)\n", n);
}

static int print_stack(FILE *out, struct profile *p, const struct profile_stack *s,
		       const struct report_opts *o)
{
	const struct shown_frame *frames;
	int n = profile__show(p, s, &frames), i;

	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		if (i == 0)
			print_hidden(out, frames[0].hidden_inside);
		print_frame(out, &frames[i], o);
		print_hidden(out, frames[i].hidden_outside);
	}
	return 0;
}

/* is a stack shown at all (--include)? cached per stack id for one report */
/* "64-128 us", the lifetimes of a log2 bucket (see struct stack_hist) */
static void format_life_bucket(unsigned int b, char *buf, size_t size)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };
	double lo = b ? (double)(1ULL << (b + LIFE_HIST_SHIFT - 1)) : 0;
	double hi = (double)(1ULL << (b + LIFE_HIST_SHIFT));
	unsigned int u = 0;

	while (u < 3 && hi >= 1000 * 10) {
		lo /= 1000;
		hi /= 1000;
		u++;
	}
	if (b == LIFE_HIST_BUCKETS - 1)
		snprintf(buf, size, "over %.0f %s", lo, units[u]);
	else if (!b)
		snprintf(buf, size, "under %.0f %s", hi, units[u]);
	else
		snprintf(buf, size, "%.0f-%.0f %s", lo, hi, units[u]);
}

/* the lines under a top allocator that its sort key, or -v, asks for */
static void print_details(FILE *out, struct profile *p, const struct profile_stack *s,
			  const struct report_opts *o)
{
	const struct stack_hist *hist = p->stack_table ? stacks__hist(p->stack_table, s->stack_id)
						       : NULL;
	const struct growth_stat *g = &s->growth;
	uint64_t half, seen;
	char size[32], life[32];
	unsigned int b;

	if (o->sort == SORT_GROWTH) {
		report__human_bytes((uint64_t)(g->slope > 0 ? g->slope : 0), size, sizeof(size));
		fprintf(out, "        %s+%s/s%s over %.0f s, grew in %u/%u intervals\n", SIZE(o), size,
			RESET(o), g->span_s, g->grew, g->intervals);
	}
	if (o->sort == SORT_PEAK) {
		report__human_bytes(s->totals.peak_bytes, size, sizeof(size));
		fprintf(out, "        at the peak: %s%s%s in %" PRIu64 " allocations\n", SIZE(o), size,
			RESET(o), s->totals.peak_count);
	}
	if (o->sort == SORT_SHORT_LIVED && hist && s->totals.freed) {
		for (b = 0, seen = 0; b < LIFE_HIST_BUCKETS; b++)
			seen += hist->life[b];
		for (b = 0, half = 0; b < LIFE_HIST_BUCKETS && 2 * (half + hist->life[b]) < seen; b++)
			half += hist->life[b];
		format_life_bucket(b < LIFE_HIST_BUCKETS ? b : LIFE_HIST_BUCKETS - 1, life,
				   sizeof(life));
		fprintf(out, "        short-lived (under %.3g ms): %" PRIu64 " of %" PRIu64
			" calls (%.0f%%); %" PRIu64 " freed, median lifetime %s\n",
			o->short_lived_ns / 1e6, s->totals.short_lived, s->totals.alloc_count,
			s->totals.alloc_count ? 100.0 * s->totals.short_lived / s->totals.alloc_count : 0,
			s->totals.freed, life);
	}
	if (o->sizes && hist) {
		fprintf(out, "        sizes:");
		for (b = 0; b < SIZE_HIST_BUCKETS; b++) {
			if (!hist->size[b])
				continue;
			if (!b)
				fprintf(out, " 0 B: %u", hist->size[b]);
			else if (b == SIZE_HIST_BUCKETS - 1)
				fprintf(out, " %llu B and more: %u", 1ULL << (b - 1), hist->size[b]);
			else
				fprintf(out, " %llu-%llu B: %u", 1ULL << (b - 1), (1ULL << b) - 1,
					hist->size[b]);
		}
		fputc('\n', out);
	}
}

/* a copy: events read while the report prints may free the block */
struct block_pick {
	uint64_t addr;
	struct live_block block;
	/* what it holds: a big mapping, its pages in memory (heap__block_bytes) */
	uint64_t bytes;
};

/* per stack, for one report: live totals of the blocks old enough */
struct stack_view {
	const struct profile_stack *stack;
	uint64_t live_bytes;
	uint64_t live_count;
	int8_t shown;		/* -1 not known yet */
};

static double sort_key(const struct stack_view *v, enum report_sort sort)
{
	switch (sort) {
	case SORT_ALLOC_CALLS: return v->stack->totals.alloc_count;
	case SORT_LIVE_COUNT: return v->live_count;
	case SORT_GROWTH: return growth__score(&v->stack->growth);
	case SORT_PEAK: return v->stack->totals.peak_bytes;
	case SORT_SHORT_LIVED: return v->stack->totals.short_lived;
	case SORT_LIVE_BYTES: break;
	}
	return v->live_bytes;
}

/* how the top allocators are ordered, after their header */
static const char *const sort_names[] = {
	[SORT_LIVE_BYTES] = "",
	[SORT_ALLOC_CALLS] = ", by allocation calls",
	[SORT_LIVE_COUNT] = ", by live allocations",
	[SORT_GROWTH] = ", by growth",
	[SORT_PEAK] = ", by live bytes at the peak",
	[SORT_SHORT_LIVED] = ", by short-lived allocations",
};

static int by_key_desc(const void *a, const void *b, void *arg)
{
	const enum report_sort *sort_by = arg;
	double x = sort_key(a, *sort_by), y = sort_key(b, *sort_by);

	if (x != y)
		return x < y ? 1 : -1;
	return (int)((const struct stack_view *)a)->stack->stack_id -
	       (int)((const struct stack_view *)b)->stack->stack_id;
}

static bool view_shown(struct profile *p, struct stack_view *v)
{
	if (v->shown < 0)
		v->shown = profile__kept(p, v->stack);
	return v->shown;
}

static void format_age(uint64_t ns, char *buf, size_t size)
{
	double s = ns / 1e9;

	if (s < 100)
		snprintf(buf, size, "%.2f s", s);
	else if (s < 3600)
		snprintf(buf, size, "%dm%02ds", (int)(s / 60), (int)s % 60);
	else
		snprintf(buf, size, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
}

/* what each thread name (--per-thread) or process holds and did, by live bytes */
struct thread_line {
	const char *name;
	uint64_t live_bytes, live_count, calls;
};

static int by_live_desc(const void *a, const void *b)
{
	const struct thread_line *x = a, *y = b;

	return x->live_bytes != y->live_bytes ? (x->live_bytes < y->live_bytes ? 1 : -1)
					      : strcmp(x->name, y->name);
}

#define GROUP_LINES 50

static int print_groups(FILE *out, struct profile *p, const struct report_opts *o,
			const char *what, bool hide_empty,
			const char *(*name_of)(const struct profile *, const struct profile_stack *))
{
	struct thread_line *lines = NULL, *grown;
	size_t n = 0, i, j, shown;
	char size[32];

	for (i = 0; i < p->count; i++) {
		const char *name = name_of(p, &p->stacks[i]);

		if (!name)
			return 0;
		for (j = 0; j < n && lines[j].name != name; j++)
			;
		if (j == n) {
			grown = realloc(lines, (n + 1) * sizeof(*lines));
			if (!grown) {
				free(lines);
				return -ENOMEM;
			}
			lines = grown;
			lines[n++] = (struct thread_line){ .name = name };
		}
		lines[j].live_bytes += p->stacks[i].totals.live_bytes;
		lines[j].live_count += p->stacks[i].totals.live_count;
		lines[j].calls += p->stacks[i].totals.alloc_count;
	}
	if (n)
		qsort(lines, n, sizeof(*lines), by_live_desc);
	/* processes that hold nothing (exited, their blocks gone) are counted,
	 * not listed; and a server's thousands are cut at GROUP_LINES */
	for (shown = n; hide_empty && shown && !lines[shown - 1].live_count; shown--)
		;
	fprintf(out, "%s==> %zu %s by live bytes%s\n", BOLD(o), shown, what, RESET(o));
	for (i = 0; i < shown && i < GROUP_LINES; i++) {
		report__human_bytes(lines[i].live_bytes, size, sizeof(size));
		fputs("    ", out);
		text__put(out, lines[i].name);
		fprintf(out, ": %s%s%s live in %" PRIu64 " allocations, %" PRIu64
			" allocation calls\n", SIZE(o), size, RESET(o), lines[i].live_count,
			lines[i].calls);
	}
	if (shown > GROUP_LINES)
		fprintf(out, "    and %zu more %s\n", shown - GROUP_LINES, what);
	if (shown < n)
		fprintf(out, "    and %zu more %s with nothing live\n", n - shown, what);
	free(lines);
	return 0;
}

/* the largest live blocks old enough, and their totals */
struct top_blocks {
	struct block_pick *picks;	/* o->top of them, largest first */
	size_t npicks;
	uint64_t total;
	uint64_t eligible;
};

/* one pass over the live blocks: per-stack totals of the old enough ones,
 * and the largest (insertion into a short sorted list); no events are read
 * meanwhile, they would change the heap under it */
static void walk_live(struct profile *p, const struct heap *heap, const struct report_opts *o,
		      struct stack_view **by_id, uint32_t max_id, struct top_blocks *t)
{
	void (*idle)(void *ctx) = p->opts.idle;
	const struct live_block *b;
	size_t pos = 0, j;
	uint64_t addr;

	p->opts.idle = NULL;
	while ((b = heap__next_live(heap, &pos, &addr))) {
		struct stack_view *v = b->stack_id <= max_id ? by_id[b->stack_id] : NULL;

		uint64_t bytes;

		if (!v || o->now_ns - b->birth_ns < o->min_age_ns || !view_shown(p, v))
			continue;
		bytes = heap__block_bytes(heap, addr, b);
		v->live_bytes += bytes;
		v->live_count++;
		t->total += bytes;
		t->eligible++;
		/* the largest by what they hold, not by what they reserve */
		if (!o->top ||
		    (t->npicks == (size_t)o->top && t->picks[t->npicks - 1].bytes >= bytes))
			continue;
		j = t->npicks < (size_t)o->top ? t->npicks++ : t->npicks - 1;
		while (j > 0 && t->picks[j - 1].bytes < bytes) {
			t->picks[j] = t->picks[j - 1];
			j--;
		}
		t->picks[j].addr = addr;
		t->picks[j].block = *b;
		t->picks[j].bytes = bytes;
	}
	p->opts.idle = idle;
}

static int print_allocations(FILE *out, struct profile *p, const struct report_opts *o,
			     const struct top_blocks *t, struct stack_view *const *by_id)
{
	char size[32], mapped[64], age[32];
	size_t i;
	int err;

	report__human_bytes(t->total, size, sizeof(size));
	fprintf(out, "%s==> %zu top allocations out of %" PRIu64 " for a total of %s%s\n", BOLD(o),
		t->npicks, t->eligible, size, RESET(o));
	for (i = 0; i < t->npicks; i++) {
		const struct live_block *pb = &t->picks[i].block;

		report__human_bytes(t->picks[i].bytes, size, sizeof(size));
		mapped[0] = '\0';
		if (t->picks[i].bytes != pb->size) {
			char whole[32];

			report__human_bytes(pb->size, whole, sizeof(whole));
			snprintf(mapped, sizeof(mapped), " in memory of %s mapped", whole);
		}
		format_age(o->now_ns > pb->birth_ns ? o->now_ns - pb->birth_ns : 0, age, sizeof(age));
		fprintf(out, "    0x%" PRIx64 ": %s%s%s%s, %s old\n", t->picks[i].addr & ~PROC_MASK,
			SIZE(o), size, RESET(o), mapped, age);
		err = print_stack(out, p, by_id[pb->stack_id]->stack, o);
		if (err)
			return err;
	}
	return 0;
}

/* the allocators: stacks with something to show for the sort key (the
 * growing ones for growth); views is reordered */
static int print_allocators(FILE *out, struct profile *p, const struct report_opts *o,
			    struct stack_view *views, size_t count, uint64_t total)
{
	bool by_calls = o->sort == SORT_ALLOC_CALLS || o->sort == SORT_SHORT_LIVED ||
			o->sort == SORT_PEAK;
	size_t nviews = 0, i;
	char size[32];
	int err;

	for (i = 0; i < count; i++) {
		/* growth: the stacks that hold something rank too, a cache below a leak */
		bool holds = o->sort == SORT_GROWTH && views[i].live_bytes > 0;

		if ((sort_key(&views[i], o->sort) > 0 || holds) &&
		    (!by_calls || view_shown(p, &views[i])))
			views[nviews++] = views[i];
	}
	err = profile__sort(p, views, nviews, sizeof(*views), by_key_desc, (void *)&o->sort);
	if (err)
		return err;
	report__human_bytes(total, size, sizeof(size));
	fprintf(out, "%s==> %zu top allocators out of %zu for a total of %s%s%s", BOLD(o),
		nviews < (size_t)o->top ? nviews : (size_t)o->top, nviews, size,
		sort_names[o->sort], RESET(o));
	if (p->mark_ns)
		fprintf(out, " (mark set %.1f s ago)", o->now_ns > p->mark_ns ?
			(o->now_ns - p->mark_ns) / 1e9 : 0);
	fputc('\n', out);
	for (i = 0; i < nviews && i < (size_t)o->top; i++) {
		report__human_bytes(views[i].live_bytes, size, sizeof(size));
		fprintf(out, "    %2zu: %s%s%s live in %" PRIu64 " allocations, %" PRIu64
			" allocation calls", i + 1, SIZE(o), size, RESET(o), views[i].live_count,
			views[i].stack->totals.alloc_count);
		/* what stayed of what was allocated since the baseline mark */
		if (p->mark_ns) {
			report__human_bytes(views[i].stack->since_mark_bytes, size, sizeof(size));
			fprintf(out, "; since the mark %s in %" PRIu64, size,
				views[i].stack->since_mark_count);
		}
		fputc('\n', out);
		print_details(out, p, views[i].stack, o);
		err = print_stack(out, p, views[i].stack, o);
		if (err)
			return err;
	}
	return 0;
}

/* a row of the stacks held at exit: one call site of one program */
struct held_row {
	const struct profile_stack *s;	/* the one that held the most: shown */
	uint64_t bytes, blocks, calls;
	size_t stacks;
};

static int by_held_desc(const void *a, const void *b, void *arg)
{
	const struct held_row *x = a, *y = b;

	(void)arg;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x->s->stack_id < y->s->stack_id ? -1 : x->s->stack_id > y->s->stack_id;
}

/* the frames of a stack less their processes' numbers, hashed */
static uint64_t site_hash(const struct profile *p, const struct profile_stack *s)
{
	uint32_t n, i;
	const uint64_t *f = profile__frames(p, s, &n);
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ s->fn ^ ((uint64_t)n << 32);

	for (i = 0; i < n; i++)
		h = (h ^ (f[i] & ~PROC_MASK)) * 0x100000001b3ULL;
	return h;
}

/* the same call site in processes that name their frames alike (a fork's
 * children, the keeper of those that ended: one symbolizer, one layout) */
static bool same_site(const struct profile *p, const struct profile_stack *x,
		      const struct profile_stack *y)
{
	const struct processes *ps = p->opts.processes;
	const struct symbolizer *sx, *sy;
	const uint64_t *fx, *fy;
	uint32_t nx, ny, i;

	if (!ps || x->fn != y->fn)
		return false;
	sx = processes__symbolizer(ps, profile__process_id(p, x));
	sy = processes__symbolizer(ps, profile__process_id(p, y));
	if (!sx || sx != sy)
		return false;
	fx = profile__frames(p, x, &nx);
	fy = profile__frames(p, y, &ny);
	if (nx != ny)
		return false;
	for (i = 0; i < nx; i++)
		if ((fx[i] ^ fy[i]) & ~PROC_MASK)
			return false;
	return true;
}

/* several processes: the stacks of what the exited ones held at their
 * exits (no longer live): a leak in a worker that lives for one request.
 * A call site of one program is one row, whether its processes were
 * merged into their command's keeper yet or not */
static int print_held_at_exit(FILE *out, struct profile *p, const struct report_opts *o)
{
	struct held_row *rows;
	size_t *slots, nslots, n = 0, nrows = 0, i, k;
	uint64_t total = 0;
	char size[32];
	int err = 0;

	for (i = 0; i < p->count; i++)
		n += p->stacks[i].totals.exit_bytes > 0;
	if (!n)
		return 0;
	nslots = 2 * n;
	rows = calloc(n, sizeof(*rows));
	slots = calloc(nslots, sizeof(*slots));
	if (!rows || !slots) {
		free(rows);
		free(slots);
		return -ENOMEM;
	}
	for (i = 0; i < p->count; i++) {
		const struct profile_stack *s = &p->stacks[i];
		struct held_row *r = NULL;

		if (!s->totals.exit_bytes || !profile__kept(p, s))
			continue;
		/* slots hold row + 1; 0 is empty */
		for (k = site_hash(p, s) % nslots; slots[k]; k = (k + 1) % nslots)
			if (same_site(p, rows[slots[k] - 1].s, s)) {
				r = &rows[slots[k] - 1];
				break;
			}
		if (!r) {
			r = &rows[nrows++];
			slots[k] = nrows;
			r->s = s;
		} else if (s->totals.exit_bytes > r->s->totals.exit_bytes) {
			r->s = s;
		}
		r->bytes += s->totals.exit_bytes;
		r->blocks += s->totals.exit_count;
		r->calls += s->totals.alloc_count;
		r->stacks++;
		total += s->totals.exit_bytes;
	}
	free(slots);
	err = profile__sort(p, rows, nrows, sizeof(*rows), by_held_desc, NULL);
	report__human_bytes(total, size, sizeof(size));
	if (!err)
		fprintf(out, "%s==> %zu top stacks held at exit out of %zu for a total of %s, by "
			"the processes that exited%s\n", BOLD(o),
			nrows < (size_t)o->top ? nrows : (size_t)o->top, nrows, size, RESET(o));
	for (i = 0; !err && i < nrows && i < (size_t)o->top; i++) {
		report__human_bytes(rows[i].bytes, size, sizeof(size));
		fprintf(out, "    %2zu: %s%s%s held at exit in %" PRIu64 " blocks, %" PRIu64
			" allocation calls", i + 1, SIZE(o), size, RESET(o), rows[i].blocks,
			rows[i].calls);
		if (rows[i].stacks > 1)
			fprintf(out, " (one call site in %zu stacks: processes that exited lately keep "
				"their own until merged into their command's)", rows[i].stacks);
		fputc('\n', out);
		err = print_stack(out, p, rows[i].s, o);
	}
	free(rows);
	return err;
}

int report__top(FILE *out, struct profile *p, const struct heap *heap,
		const struct report_opts *o)
{
	struct top_blocks t = { .picks = calloc(o->top ? o->top : 1, sizeof(*t.picks)) };
	struct stack_view *views = calloc(p->count + 1, sizeof(*views));
	struct stack_view **by_id = NULL;
	uint32_t max_id = 0;
	int err = 0;
	size_t i;

	if (!t.picks || !views) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < p->count; i++)
		if (p->stacks[i].stack_id > max_id)
			max_id = p->stacks[i].stack_id;
	by_id = calloc(max_id + 1, sizeof(*by_id));
	if (!by_id) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < p->count; i++) {
		views[i].stack = &p->stacks[i];
		views[i].shown = -1;
		by_id[p->stacks[i].stack_id] = &views[i];
	}
	if (p->opts.processes)
		err = print_groups(out, p, o, "processes", true, profile__process);
	if (!err && p->opts.threads)
		err = print_groups(out, p, o, "threads", false, profile__thread);
	if (err)
		goto out;
	walk_live(p, heap, o, by_id, max_id, &t);
	err = print_allocations(out, p, o, &t, by_id);
	if (!err)
		err = print_allocators(out, p, o, views, p->count, t.total);
	if (!err && p->opts.processes)
		err = print_held_at_exit(out, p, o);
	if (!err)
		fflush(out);
out:
	free(by_id);
	free(views);
	free(t.picks);
	return err;
}

/* bytes with thousands separated, as valgrind writes them: "10,864" */
static void format_count(uint64_t n, char *buf, size_t size)
{
	char digits[32];
	size_t len, i, o = 0;

	len = (size_t)snprintf(digits, sizeof(digits), "%" PRIu64, n);
	for (i = 0; i < len && o + 2 < size; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
}

static int by_lost_desc(const void *a, const void *b)
{
	const struct leak_stack *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	if (x->stack_id != y->stack_id)
		return x->stack_id < y->stack_id ? -1 : 1;
	return x->cls < y->cls ? -1 : x->cls > y->cls;
}

static const struct profile_stack *stack_of(const struct profile *p, uint32_t stack_id)
{
	size_t i;

	for (i = 0; i < p->count; i++)
		if (p->stacks[i].stack_id == stack_id)
			return &p->stacks[i];
	return NULL;
}

int report__leaks(FILE *out, struct profile *p, const struct leak_report *r,
		  const struct report_opts *o)
{
	static const enum leak_class order[] = { LEAK_DEFINITE, LEAK_INDIRECT, LEAK_POSSIBLE,
						 LEAK_REACHABLE };
	uint64_t bytes[LEAK__COUNT], blocks[LEAK__COUNT];
	char num[32], age[32];
	struct leak_stack *lines;
	size_t i, n = 0;
	int err;

	leaks__totals(r->leaks, bytes, blocks);
	report__human_bytes(leaks__bytes_read(r->leaks), num, sizeof(num));
	fprintf(out, "\nleak check of pid %d (%s: the target was stopped %.2f ms, %s read in "
		"%.2f ms):\n", r->pid, r->how, r->stopped_ms, num, r->scan_ms);
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		format_count(bytes[order[i]], num, sizeof(num));
		fprintf(out, "    %15s: %s bytes in %" PRIu64 " blocks\n",
			leaks__class_name(order[i]), num, blocks[order[i]]);
	}
	if (r->suppressed_blocks) {
		format_count(r->suppressed_bytes, num, sizeof(num));
		fprintf(out, "         suppressed: %s bytes in %" PRIu64 " blocks, in no class\n", num,
			r->suppressed_blocks);
	}
	if (r->attached_late)
		fprintf(out, "    blocks from before the attach are unknown: the allocator's memory "
			"outside the known blocks was taken for roots, so a block that only "
			"those point at is never called lost\n");
	err = leaks__lost_by_stack(r->leaks, &lines, &n);
	if (err)
		return err;
	qsort(lines, n, sizeof(*lines), by_lost_desc);
	if (n)
		fprintf(out, "  lost, by stack:\n");
	for (i = 0; i < n && (int)i < o->top && !err; i++) {
		const struct profile_stack *s = stack_of(p, lines[i].stack_id);

		format_count(lines[i].bytes, num, sizeof(num));
		format_age(o->now_ns > lines[i].oldest_key ? o->now_ns - lines[i].oldest_key : 0, age,
			   sizeof(age));
		fprintf(out, "    %s bytes %s in %" PRIu64 " blocks, the oldest %s old\n", num,
			leaks__class_name(lines[i].cls), lines[i].count, age);
		if (s)
			err = print_stack(out, p, s, o);
	}
	free(lines);
	fflush(out);
	return err;
}
