// SPDX-License-Identifier: GPL-2.0
/* the terminal's side of a run (see console.h) */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "console.h"
#include "events.h"
#include "heap.h"
#include "holds.h"
#include "pools.h"
#include "http.h"
#include "leakcheck.h"
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
	bool found_lost;			/* a leak check found a block lost */
	char leak_line[160];			/* the TUI's: the last check's totals */
	/* the processes checked at their exit: not again at the end */
	pid_t exited[MAX_PROCS];
	size_t nexited;
	/* the last check of each process, for the summary */
	struct checked {
		pid_t pid;
		uint64_t bytes[LEAK__COUNT], blocks[LEAK__COUNT];
		double stopped_ms;
		bool snapshot;
	} checked[MAX_PROCS];
	size_t nchecked;
};

/* the summary keeps the last check of each process */
static void keep_check(struct console *c, pid_t pid, const uint64_t *bytes, const uint64_t *blocks,
		       double stopped_ms, bool snapshot)
{
	struct checked *k = NULL;
	size_t i;

	for (i = 0; i < c->nchecked && !k; i++)
		if (c->checked[i].pid == pid)
			k = &c->checked[i];
	if (!k && c->nchecked < MAX_PROCS)
		k = &c->checked[c->nchecked++];
	if (!k)
		return;
	k->pid = pid;
	memcpy(k->bytes, bytes, sizeof(k->bytes));
	memcpy(k->blocks, blocks, sizeof(k->blocks));
	k->stopped_ms = stopped_ms;
	k->snapshot = snapshot;
}

struct console *console__new(const struct options *o, struct traced *t, struct recording *rec,
			     struct tracer *tracer, struct http *http, FILE *report_out)
{
	struct console *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
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

static void drain(void *ctx)
{
	struct console *c = ctx;

	/* a read handles the records stamped before it began: the second one
	 * those the first found stamped after its start, before the stop */
	traced__consume(c->traced);
	traced__consume(c->traced);
}

/* what each stack lost, for the outputs (-m leaked) */
static void keep_lost(struct console *c, pid_t pid, const struct leaks *l)
{
	struct leak_stack *lost;
	size_t n;
	int err = leaks__lost_by_stack(l, &lost, &n);

	if (!err)
		err = recording__set_leaked(c->rec, pid, lost, n);
	if (err)
		say(err, "cannot keep what the leak check found for the outputs");
	free(lost);
}

static bool suppressed(void *ctx, uint32_t stack_id)
{
	const struct console *c = ctx;

	return recording__suppressed(c->rec, stack_id);
}

/* the snapshot's clone is no fork to follow */
static void quiet(void *ctx, pid_t pid, bool on)
{
	struct console *c = ctx;

	tracer__ignore_forks(c->tracer, on ? pid : 0);
}

/* the process is stopped for another tracelloc's leak check, or its
 * tracer let go of it meanwhile: worth another try (a debugger is not).
 * Another tracelloc is known by its map of held processes, whatever its
 * name; asked once per tracer, as this is asked each millisecond */
static bool tracer_passing(pid_t pid)
{
	static pid_t last_tracer;
	static bool last_is;
	pid_t tracer = procfs__tracer(pid);

	if (tracer <= 0)
		return true;
	if (tracer != last_tracer) {
		last_tracer = tracer;
		last_is = holds__of_tracelloc(tracer);
	}
	return last_is;
}

static int sig_stacks(void *ctx, pid_t pid, uint64_t *sp, size_t max)
{
	struct console *c = ctx;

	return tracer__sig_stacks(c->tracer, pid, sp, max);
}

/* one process: stopped, scanned (or a snapshot of it while it goes on),
 * let go, and its section printed */
static void check_process(struct console *c, pid_t pid, uint64_t tag, bool live)
{
	struct leakcheck_opts lo = { .pid = pid, .tag = tag, .drain = drain, .quiet = quiet,
				     .sig_stacks = sig_stacks, .ctx = c, .snapshot = live,
				     .attached_late = !c->opts->command,
				     .held = live && traced__held(c->traced, pid),
				     .pools = recording__pools(c->rec) };
	struct report_opts ro = { .top = c->opts->top ? c->opts->top : 3,
				  .color = isatty(fileno(c->report_out)) && !getenv("NO_COLOR") };
	uint64_t bytes[LEAK__COUNT], blocks[LEAK__COUNT];
	struct leak_report lr;
	struct leakcheck *lc;
	struct profile *p;
	char comm[64], name[160];
	pid_t tracer;
	int err, tries;

	err = leakcheck__run(&lo, recording__heap(c->rec), &lc);
	/* another tracelloc's check of it: milliseconds, then our turn, taken
	 * at once: at an exit, its SIGCONT follows its detach closely (a
	 * thread we stopped first stays stopped for us) */
	for (tries = 0; err == -EPERM && tries < 1000 && tracer_passing(pid); tries++) {
		usleep(1000);
		err = leakcheck__run(&lo, recording__heap(c->rec), &lc);
	}
	if (tries && (err == -ESRCH || err == -ENOENT)) {
		say(0, "leak check: pid %d ended while another tracelloc checked it: unscanned here",
		    pid);
	} else if (err == -EPERM && (tracer = procfs__tracer(pid)) > 0) {
		procfs__comm(tracer, comm, sizeof(comm));
		say(0, "leak check: pid %d is traced by another tracer, pid %d (%s): it cannot be "
		    "scanned", pid, tracer, text__escape(comm, name, sizeof(name)));
	} else if (err == -EPERM) {
		say(0, "leak check: pid %d is traced by another tracer: it cannot be scanned", pid);
	} else if (err == -ESRCH) {
		say(0, "leak check: pid %d ended before its libc's _exit (a signal, a raw exit): its "
		    "memory went with it, unscanned", pid);
	} else if (err) {
		say(err, "leak check of pid %d", pid);
	}
	if (err)
		return;
	if (leakcheck__sig_stacks_err(lc))
		say(leakcheck__sig_stacks_err(lc), "leak check of pid %d: cannot read its threads' "
		    "alternate signal stacks (a block only the kernel holds may be called lost)",
		    pid);
	lr = (struct leak_report){ .pid = pid, .how = leakcheck__how(lc),
				   .stopped_ms = leakcheck__stopped_ms(lc),
				   .scan_ms = leakcheck__scan_ms(lc),
				   .attached_late = leakcheck__attached_late(lc),
				   .leaks = leakcheck__leaks(lc) };
	/* first: the stacks' verdicts, so the suppressed ones leave the classes */
	p = recording__snapshot(c->rec, traced__symbolizer(c->traced), false);
	leaks__suppress(leakcheck__leaks(lc), suppressed, c, &lr.suppressed_bytes,
			&lr.suppressed_blocks);
	leaks__totals(lr.leaks, bytes, blocks);
	c->found_lost |= blocks[LEAK_DEFINITE] + blocks[LEAK_INDIRECT] > 0;
	keep_check(c, pid, bytes, blocks, lr.stopped_ms, !strcmp(lr.how, "snapshot"));
	keep_lost(c, pid, lr.leaks);
	ro.now_ns = clock__now_ns();
	if (c->tui) {
		char lost[32], ind[32];

		report__human_bytes(bytes[LEAK_DEFINITE], lost, sizeof(lost));
		report__human_bytes(bytes[LEAK_INDIRECT], ind, sizeof(ind));
		snprintf(c->leak_line, sizeof(c->leak_line),
			 "pid %d: %s definitely lost, %s indirectly (%s, stopped %.1f ms)", pid, lost,
			 ind, lr.how, lr.stopped_ms);
		err = 0;
	} else {
		err = p ? report__leaks(c->report_out, p, &lr, &ro) : -ENOMEM;
	}
	if (err)
		say(err, "cannot print the leak check");
	if (c->opts->verbose)
		fprintf(stderr, "tracelloc: leak check of pid %d: %llu of %llu bytes read were "
			"streamed by the snapshot itself%s\n", pid,
			(unsigned long long)leaks__bytes_streamed(lr.leaks),
			(unsigned long long)leaks__bytes_read(lr.leaks),
			leaks__stream_failed(lr.leaks) ? " (the stream failed: the rest read from "
			"/proc/PID/mem)" : "");
	profile__destroy(p);
	leakcheck__destroy(lc);
}

static bool checked_at_exit(const struct console *c, pid_t pid)
{
	size_t i;

	for (i = 0; i < c->nexited; i++)
		if (c->exited[i] == pid)
			return true;
	return false;
}

void console__leak_check(struct console *c)
{
	uint64_t tag;
	pid_t pid;
	size_t i;

	if (!c->opts->leak_check)
		return;
	for (i = 0; i < MAX_PROCS; i++)
		if (traced__process(c->traced, i, &pid, &tag) && !checked_at_exit(c, pid))
			check_process(c, pid, tag, true);
}

void console__exit_check(void *ctx, pid_t pid, uint64_t tag)
{
	struct console *c = ctx;

	if (!c->opts->leak_check)
		return;
	check_process(c, pid, tag, false);
	if (c->nexited < MAX_PROCS)
		c->exited[c->nexited++] = pid;
}

void console__marked(struct console *c)
{
	double at = clock__now_ns() / 1e9 - recording__start_s(c->rec);

	if (!c->tui)
		fprintf(stderr, "tracelloc: mark set at %.2f s: from now on each stack shows its live "
			"bytes allocated since\n", at);
}

unsigned int console__leak_totals(const struct console *c, uint64_t *bytes, uint64_t *blocks)
{
	size_t i, k;

	for (k = 0; k < LEAK__COUNT; k++)
		bytes[k] = blocks[k] = 0;
	for (i = 0; i < c->nchecked; i++)
		for (k = 0; k < LEAK__COUNT; k++) {
			bytes[k] += c->checked[i].bytes[k];
			blocks[k] += c->checked[i].blocks[k];
		}
	return (unsigned int)c->nchecked;
}

bool console__found_lost(const struct console *c)
{
	return c->found_lost;
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
	size_t i;

	if (st->peak_ns / 1e9 > start_s)
		sum.peak_at_s = st->peak_ns / 1e9 - start_s;
	sum.leak_checks = console__leak_totals(c, sum.leak_bytes, sum.leak_blocks);
	sum.suppress_rules = recording__suppress_rules(c->rec);
	if (sum.suppress_rules)
		leave_out_suppressed(c, &sum);
	for (i = 0; i < c->nchecked; i++) {
		sum.leak_snapshots += c->checked[i].snapshot;
		if (c->checked[i].stopped_ms > sum.leak_stopped_ms)
			sum.leak_stopped_ms = c->checked[i].stopped_ms;
	}
	if (recording__pools(c->rec)) {
		sum.named = true;
		pools__own(recording__pools(c->rec), &sum.own_bytes, &sum.own_count);
	}
	if (recording__exits(c->rec))
		sum.exit_rows = exits__rows(recording__exits(c->rec), &sum.nexit_rows);
	sum.retired = recording__retired(c->rec);
	sum.unmerged = recording__unmerged(c->rec);
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

void console__finish(struct console *c, const char *ending)
{
	struct heap *heap = recording__heap(c->rec);
	pid_t pid;

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
	console__leak_check(c);
	print_summary(c, ending);
	describe_costs(c);
	pid = traced__terminate(c->traced);
	if (pid)
		fprintf(stderr, "tracelloc: sent SIGTERM to pid %d, the command it started\n", pid);
}
