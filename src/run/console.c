// SPDX-License-Identifier: GPL-2.0
/* the terminal's side of a run (see console.h) */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "checks.h"
#include "console.h"
#include "events.h"
#include "heap.h"
#include "pools.h"
#include "http.h"
#include "leaks.h"
#include "options.h"
#include "exits.h"
#include "processes.h"
#include "procfs.h"
#include "profile.h"
#include "recording.h"
#include "report.h"
#include "resident.h"
#include "say.h"
#include "text.h"
#include "traced.h"
#include "tracer.h"
#include "tracelloc.h"
#include "tui.h"

struct console {
	const struct options *opts;
	struct traced *traced;
	struct recording *rec;
	struct tracer *tracer;
	struct http *http;
	FILE *report_out;
	struct tui *tui;			/* --tui, once tracing runs */
	struct heap_stats live_line_from;	/* the heap at the last live line */
	struct heap_stats last_report;		/* the heap when the last report was printed */
	bool reported;
	unsigned int report_generation;		/* the recording's, at that report */
	struct checks *checks;
	char leak_line[160];			/* the TUI's: the last check's totals */
};

/* a leak check's result (checks.c): its section, or the live view's line */
static void draw_check(void *ctx, const struct check_result *r)
{
	struct console *c = ctx;
	struct report_opts ro = { .top = c->opts->top ? c->opts->top : 3,
				  .color = isatty(fileno(c->report_out)) && !getenv("NO_COLOR"),
				  .now_ns = clock__now_ns() };
	char lost[32], ind[32];
	int err;

	if (c->tui) {
		report__human_bytes(r->bytes[LEAK_DEFINITE], lost, sizeof(lost));
		report__human_bytes(r->bytes[LEAK_INDIRECT], ind, sizeof(ind));
		snprintf(c->leak_line, sizeof(c->leak_line),
			 "pid %d: %s definitely lost, %s indirectly (%s, stopped %.1f ms)", r->pid,
			 lost, ind, r->report.how, r->report.stopped_ms);
		return;
	}
	err = r->profile ? report__leaks(c->report_out, r->profile, &r->report, &ro) : -ENOMEM;
	if (err)
		say(err, "cannot print the leak check");
}

struct console *console__new(const struct options *o, struct traced *t, struct recording *rec,
			     struct tracer *tracer, struct http *http, struct checks *checks,
			     FILE *report_out)
{
	struct console *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->checks = checks;
	if (checks)
		checks__set_drawer(checks, draw_check, c);
	c->opts = o;
	c->traced = t;
	c->rec = rec;
	c->tracer = tracer;
	c->http = http;
	c->report_out = report_out;
	return c;
}

void console__destroy(struct console *c)
{
	if (!c)
		return;
	tui__destroy(c->tui);
	free(c);
}

void console__announce(struct console *c)
{
	traced__announce(c->traced, stderr);
	if (c->http)
		fprintf(stderr, "tracelloc: serving http://%s/debug/pprof/heap and /metrics\n",
			http__address(c->http));
}

static void print_report(struct console *c)
{
	struct heap *heap = recording__heap(c->rec);
	struct report_opts ro = {
		.top = c->opts->top,
		.min_age_ns = (uint64_t)(c->opts->min_age_s * 1e9),
		.sort = c->opts->sort,
		.color = isatty(fileno(c->report_out)) && !getenv("NO_COLOR"),
		.now_ns = clock__now_ns(),
		.short_lived_ns = (uint64_t)(c->opts->short_lived_ms * 1e6),
		.sizes = c->opts->verbose > 0,
	};
	struct profile *p;
	int err;

	if (!c->opts->top)
		return;
	c->last_report = *heap__stats(heap);
	c->reported = true;
	c->report_generation = recording__generation(c->rec);
	p = recording__snapshot(c->rec, traced__symbolizer(c->traced), false);
	err = p ? report__top(c->report_out, p, heap, &ro) : -ENOMEM;
	if (err)
		say(err, "cannot print the report");
	profile__destroy(p);
}

void console__stream_closed(int fd, char *ending, size_t ending_size)
{
	snprintf(ending, ending_size, "standard %s closed",
		 fd == STDOUT_FILENO ? "output" : "error");
}

/* a report that found its reader gone (EPIPE): the end of the trace, as Ctrl-C */
static bool report_reader_gone(struct console *c, char *ending, size_t ending_size)
{
	struct pollfd pfd = { .fd = fileno(c->report_out) };
	bool gone;

	if (!ferror(c->report_out))
		return false;
	gone = errno == EPIPE ||
	       (poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLERR | POLLHUP)));
	clearerr(c->report_out);
	if (gone)
		console__stream_closed(pfd.fd, ending, ending_size);
	return gone;
}

int console__start_tui(struct console *c)
{
	return tui__new(&c->tui);
}

int console__keys_fd(const struct console *c)
{
	return c->tui ? tui__fd(c->tui) : -1;
}

enum tui_action console__keys(struct console *c)
{
	return tui__keys(c->tui);
}

void console__draw(struct console *c, bool force)
{
	struct profile *p;
	struct loss loss;
	char target[192];
	struct tui_header h = {
		.target = target,
		.traced_s = clock__now_ns() / 1e9 - recording__start_s(c->rec),
	};

	if (!c->tui || (tui__paused(c->tui) && !force))
		return;
	recording__rate(c->rec, &h.calls_per_s, &h.bytes_per_s);
	h.leak_check = c->opts->leak_check;
	h.leak_line = c->leak_line[0] ? c->leak_line : NULL;
	h.mark_ago_s = recording__mark_ns(c->rec) ?
		       (clock__now_ns() - recording__mark_ns(c->rec)) / 1e9 : -1;
	traced__name(c->traced, target, sizeof(target));
	tracer__loss(c->tracer, &loss);
	h.lost = loss.lost_allocs + loss.lost_frees;
	p = recording__snapshot(c->rec, traced__symbolizer(c->traced), false);
	if (!p)
		return;
	/* the header's numbers are the rows' */
	if (recording__suppress_rules(c->rec))
		profile__leave_out_suppressed(p, &p->stats);
	tui__draw(c->tui, p, recording__heap(c->rec), &h, clock__now_ns());
	profile__destroy(p);
}

bool console__tick(struct console *c, uint64_t intervals, char *ending, size_t ending_size)
{
	const struct heap_stats *now = heap__stats(recording__heap(c->rec));
	struct heap_stats shown;
	struct loss loss;
	uint64_t bytes, count;

	if (c->tui) {
		console__draw(c, false);
		return true;
	}
	if (c->opts->interval_s <= 0)
		return true;
	tracer__loss(c->tracer, &loss);
	/* the views' numbers: the stacks the suppressions left out at the last
	 * report are left out here too */
	shown = *now;
	recording__suppressed_live(c->rec, &bytes, &count);
	shown.live_bytes -= bytes < shown.live_bytes ? bytes : shown.live_bytes;
	shown.live_count -= count < shown.live_count ? count : shown.live_count;
	report__live_line(c->report_out, clock__now_ns() / 1e9 - recording__start_s(c->rec), &shown,
			  &c->live_line_from, c->opts->interval_s * intervals, &loss);
	c->live_line_from = *now;
	print_report(c);
	return !report_reader_gone(c, ending, ending_size);
}

void console__marked(struct console *c)
{
	double at = clock__now_ns() / 1e9 - recording__start_s(c->rec);

	if (!c->tui)
		fprintf(stderr, "tracelloc: mark set at %.2f s: from now on each stack shows its live "
			"bytes allocated since\n", at);
}

/* the summary's numbers are the views': what the suppressions left out of
 * them is said apart (every stack decided now, as the files will be) */
static void leave_out_suppressed(struct console *c, struct summary *sum)
{
	struct profile *p = recording__snapshot(c->rec, traced__symbolizer(c->traced), false);
	struct heap_stats *st = &sum->stats;

	if (!p)
		return;
	profile__leave_out_suppressed(p, st);
	sum->suppressed_bytes = p->suppressed.live_bytes;
	sum->suppressed_count = p->suppressed.live_count;
	sum->suppressed_stacks = p->suppressed_stacks;
	profile__destroy(p);
}

/* the big mappings live now: mapped, and counted by their pages in memory */
static void weighed_mappings(const struct console *c, struct summary *sum)
{
	const struct heap *heap = recording__heap(c->rec);
	const struct live_block *b;
	struct heap_weighed *w;
	size_t pos = 0;
	uint64_t addr;

	while ((w = heap__next_weighed(heap, &pos, &addr, &b))) {
		sum->weighed_count++;
		sum->weighed_mapped += b->size;
		sum->weighed_resident += w->resident;
	}
	sum->weighed_whole = recording__resident_stats(c->rec)->whole;
}

static void print_summary(struct console *c, const char *ending)
{
	const struct heap_stats *st = heap__stats(recording__heap(c->rec));
	struct processes *ps = recording__processes(c->rec);
	double start_s = recording__start_s(c->rec);
	struct events *ev = recording__events(c->rec);
	struct summary sum = {
		.pid = traced__first_pid(c->traced),
		.traced_s = recording__traced_s(c->rec),
		.ending = ending,
		.stats = *st,
		.sample_bytes = c->opts->sample_bytes,
		.execs = traced__execs(c->traced),
		.several = traced__several(c->traced),
		.processes = ps ? processes__count(ps) : 0,
		.untraced_processes = traced__untraced(c->traced),
	};

	if (st->peak_ns / 1e9 > start_s)
		sum.peak_at_s = st->peak_ns / 1e9 - start_s;
	if (c->checks) {
		struct checks_totals ct;

		checks__totals(c->checks, &ct);
		sum.leak_checks = ct.checks;
		memcpy(sum.leak_bytes, ct.bytes, sizeof(sum.leak_bytes));
		memcpy(sum.leak_blocks, ct.blocks, sizeof(sum.leak_blocks));
		sum.leak_snapshots = ct.snapshots;
		sum.leak_stopped_ms = ct.max_stopped_ms;
	}
	sum.suppress_rules = recording__suppress_rules(c->rec);
	if (sum.suppress_rules)
		leave_out_suppressed(c, &sum);
	if (recording__pools(c->rec)) {
		sum.named = true;
		pools__own(recording__pools(c->rec), &sum.own_bytes, &sum.own_count);
	}
	if (recording__exits(c->rec))
		sum.exit_rows = exits__rows(recording__exits(c->rec), &sum.nexit_rows);
	sum.retired = recording__retired(c->rec);
	sum.unmerged = recording__unmerged(c->rec);
	sum.py_stacks = events__python_stats(ev)->stacks;
	sum.py_cut = events__python_stats(ev)->cut;
	tracer__loss(c->tracer, &sum.loss);
	weighed_mappings(c, &sum);
	report__summary(c->report_out, &sum);
	if (events__malformed(ev))
		fprintf(stderr, "tracelloc: %llu malformed records ignored\n",
			(unsigned long long)events__malformed(ev));
}

/* -v: what serving pages cost, and how long the ring buffer was left unread at most, at
 * all and while writing */
static void describe_costs(struct console *c)
{
	struct events *ev = recording__events(c->rec);
	const struct http_stats *st;

	if (!c->opts->verbose)
		return;
	if (c->http) {
		st = http__stats(c->http);
		fprintf(stderr, "tracelloc: http: %llu requests, %.1f ms serving them, at most "
			"%.2f ms at once; connections dropped: %llu without headers in time, "
			"%llu for room\n", (unsigned long long)st->requests, st->busy_ns / 1e6,
			st->longest_run_ns / 1e6, (unsigned long long)st->dropped_late,
			(unsigned long long)st->dropped_for_room);
	}
	fprintf(stderr, "tracelloc: the ring buffer was read at least every %.2f ms",
		events__longest_gap_ns(ev) / 1e6);
	if (events__longest_writing_gap_ns(ev))
		fprintf(stderr, ", every %.2f ms while pages and files were written",
			events__longest_writing_gap_ns(ev) / 1e6);
	fputc('\n', stderr);
}

void console__last_report(struct console *c)
{
	struct heap *heap = recording__heap(c->rec);

	tui__destroy(c->tui);
	c->tui = NULL;
	heap__finish(heap);
	/* the last point: the end */
	recording__sample_timeline(c->rec, recording__wants_rss(c->rec) ?
				   traced__rss(c->traced) : 0);
	/* the last periodic report may already say it all (of this heap: an exec
	 * since starts another) */
	if (!c->reported || c->report_generation != recording__generation(c->rec) ||
	    memcmp(&c->last_report, heap__stats(heap), sizeof(c->last_report)))
		print_report(c);
}

void console__summary(struct console *c, const char *ending)
{
	pid_t pid;

	print_summary(c, ending);
	describe_costs(c);
	pid = traced__terminate(c->traced);
	if (pid)
		fprintf(stderr, "tracelloc: sent SIGTERM to pid %d, the command it started\n", pid);
}
