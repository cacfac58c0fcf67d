// SPDX-License-Identifier: GPL-2.0
/* the loop of a trace, and its handlers (see run.h) */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "exits.h"
#include "clock.h"
#include "checks.h"
#include "console.h"
#include "events.h"
#include "follow.h"
#include "heap.h"
#include "loop.h"
#include "metrics.h"
#include "options.h"
#include "profile.h"
#include "outputs.h"
#include "pools.h"
#include "recording.h"
#include "resident.h"
#include "report.h"
#include "run.h"
#include "say.h"
#include "stacks.h"
#include "traced.h"
#include "tracer.h"

#define POLL_EVERY_MS 20

/* one trace's loop and timers */
struct run {
	struct run_rooms *r;
	struct loop *loop;
	int tick_fd, end_fd, snap_fd, mark_fd;	/* -1: none */
	char *ending;			/* why it ended */
	size_t ending_size;
};

void run__idle(void *rooms)
{
	struct run_rooms *r = rooms;

	if (r->tracing)
		traced__consume(r->traced);
}

static int write_metrics(FILE *out, struct run_rooms *r)
{
	struct metrics m = {
		.pid = traced__first_pid(r->traced),
		.traced_s = (clock__now_ns() / 1e9) - recording__start_s(r->rec),
		.stats = *heap__stats(recording__heap(r->rec)),
		.stacks = stacks__held(heap__stacks(recording__heap(r->rec))),
		.untraced_processes = traced__untraced(r->traced),
		.sample_bytes = r->opts->sample_bytes,
		.leak_check = r->opts->leak_check,
	};

	{
		struct checks_totals ct;

		checks__totals(r->checks, &ct);
		m.leak_checks = ct.checks;
		memcpy(m.leak_bytes, ct.bytes, sizeof(m.leak_bytes));
		memcpy(m.leak_blocks, ct.blocks, sizeof(m.leak_blocks));
	}
	/* the views' numbers: the suppressed stacks left out (new ones decided now,
	 * before their counts are ever shown, so the counters only grow) */
	if (recording__suppress_rules(r->rec)) {
		struct profile *p = recording__snapshot(r->rec, traced__symbolizer(r->traced), false);

		if (p)
			profile__leave_out_suppressed(p, &m.stats);
		profile__destroy(p);
	}
	if (recording__pools(r->rec)) {
		m.named = true;
		pools__own(recording__pools(r->rec), &m.own_bytes, &m.own_count);
	}
	if (recording__exits(r->rec))
		m.exit_rows = exits__rows(recording__exits(r->rec), &m.nexit_rows);
	recording__rate(r->rec, &m.alloc_calls_per_s, &m.alloc_bytes_per_s);
	tracer__loss(r->tracer, &m.loss);
	return metrics__write(out, &m);
}

static void *run__window(enum http_page page, void *rooms)
{
	struct run_rooms *r = rooms;
	struct profile *p;
	struct profile_base *b;

	traced__consume(r->traced);
	p = recording__snapshot(r->rec, traced__symbolizer(r->traced), false);
	b = p ? profile__base(p) : NULL;
	profile__destroy(p);
	return b;
}

static void run__window_free(void *base)
{
	profile__base_destroy(base);
}

static int run__page(enum http_page page, const void *base, FILE *out, void *rooms)
{
	struct run_rooms *r = rooms;
	struct events *ev = recording__events(r->rec);
	/* the records sent until now first */
	int err = traced__consume(r->traced);

	if (err)
		return err;
	events__writing(ev, true);
	switch (page) {
	case HTTP_PAGE_HEAP:
		err = outputs__pprof(r->outputs, out, PPROF_INUSE, base);
		break;
	case HTTP_PAGE_ALLOCS:
		err = outputs__pprof(r->outputs, out, PPROF_ALLOCS, base);
		break;
	case HTTP_PAGE_METRICS:
		err = write_metrics(out, r);
		break;
	default:
		err = -ENOENT;
	}
	events__writing(ev, false);
	return err;
}

int run__block_signals(struct run_rooms *r)
{
	sigset_t set, blocked;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	/* an ssh session that drops: the trace ends as with SIGTERM */
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	/* a scraper that hangs up mid-page is a failed write, not the end of the trace */
	blocked = set;
	sigaddset(&blocked, SIGPIPE);
	if (sigprocmask(SIG_BLOCK, &blocked, NULL))
		return -errno;
	r->signal_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return r->signal_fd < 0 ? -errno : 0;
}

/* what the output files are made of */
static struct profile *writer_snapshot(void *ctx)
{
	const struct run_rooms *r = ctx;

	return recording__snapshot(r->rec, traced__symbolizer(r->traced), true);
}

static void writer_target_name(void *ctx, char *buf, size_t size)
{
	const struct run_rooms *r = ctx;

	traced__name(r->traced, buf, size);
}

/* before tracing (the recording not made yet), only the paths are looked at */
void run__outputs_opts(struct run_rooms *r, struct outputs_opts *oo)
{
	struct recording *rec = r->rec;

	*oo = (struct outputs_opts){
		.flamegraph_metric = r->opts->flamegraph_metric,
		.sample_bytes = r->opts->sample_bytes,
		.leak_check = r->opts->leak_check,
		.snapshot_dir = r->opts->snapshot_dir,
		.snapshot_keep = r->opts->snapshot_keep,
		.verbose = r->opts->verbose > 0,
		.start_s = rec ? recording__start_s(rec) : 0,
		.timeline = rec ? recording__timeline(rec) : NULL,
		.events = rec ? recording__events(rec) : NULL,
		.snapshot = writer_snapshot,
		.target_name = writer_target_name,
		.ctx = r,
	};
	memcpy(oo->paths, r->opts->output_paths, sizeof(oo->paths));
}

/* the endpoint listens before tracing: a port in use stops tracelloc at once */
int run__listen(struct run_rooms *r)
{
	struct http_opts ho = { .write_page = run__page, .window_begin = run__window,
				.window_free = run__window_free, .ctx = r };
	char addr[64];
	int err;

	if (!r->opts->listen)
		return 0;
	err = http__new((struct sockaddr *)&r->opts->listen_addr, r->opts->listen_addr_len, &ho,
			&r->http);
	if (err) {
		http__format_addr((struct sockaddr *)&r->opts->listen_addr, addr, sizeof(addr));
		return say(err, "cannot listen on %s", addr);
	}
	return 0;
}

static int new_timer(double first_s, double every_s)
{
	struct itimerspec its = {
		.it_value = { (time_t)first_s, (long)((first_s - (time_t)first_s) * 1e9) },
		.it_interval = { (time_t)every_s, (long)((every_s - (time_t)every_s) * 1e9) },
	};
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (timerfd_settime(fd, 0, &its, NULL)) {
		close(fd);
		return -errno;
	}
	return fd;
}

static int handle_pending(struct run *run)
{
	return follow__pending(run->r->follow, run->ending, run->ending_size) ? LOOP_END : LOOP_ON;
}

/* the program's big mappings by their pages in memory: those due (all:
 * every one, before output) */
static void weigh(struct run_rooms *r, bool all)
{
	struct resident_procs procs = { .several = traced__several(r->traced) };
	size_t i;

	if (!recording__weighs(r->rec))
		return;
	for (i = 0; i < MAX_PROCS && procs.n < RESIDENT_MAX_PROCS; i++)
		if (traced__process(r->traced, i, &procs.pids[procs.n], &procs.tags[procs.n]))
			procs.n++;
	recording__weigh(r->rec, &procs, all);
}

/* what came: the records in the rings first, then forks, execs and exits */
static int on_events(void *ctx, int fd)
{
	struct run *run = ctx;
	int err = traced__consume(run->r->traced);

	if (!err)
		weigh(run->r, false);
	return err ? err : handle_pending(run);
}

/* a process exited: an exec or a fork may wait in the rings before the
 * exit; handled first, then the exit (traced__reap) */
static int on_pending(void *ctx, int fd)
{
	return handle_pending(ctx);
}

/* output files now: the TUI's `w`, SIGUSR1; and the leak check (not over
 * the live view) */
static void write_now(struct run_rooms *r)
{
	traced__consume(r->traced);
	weigh(r, true);
	/* first: the files carry what it found (-m leaked) */
	if (!r->opts->tui)
		checks__all(r->checks);
	outputs__write(r->outputs);
}

/* the baseline mark: SIGUSR2, the TUI's m, --mark-after */
static void set_mark(struct run_rooms *r)
{
	recording__mark(r->rec, clock__now_ns());
	console__marked(r->console);
}

/* keys of --tui */
static int on_keys(void *ctx, int fd)
{
	struct run *run = ctx;

	switch (console__keys(run->r->console)) {
	case TUI_QUIT:
		snprintf(run->ending, run->ending_size, "interrupted");
		return LOOP_END;
	case TUI_WRITE:
		write_now(run->r);
		console__draw(run->r->console, true);
		return LOOP_ON;
	case TUI_MARK:
		set_mark(run->r);
		console__draw(run->r->console, true);
		return LOOP_ON;
	case TUI_LEAK_CHECK:
		traced__consume(run->r->traced);
		checks__all(run->r->checks);
		console__draw(run->r->console, true);
		return LOOP_ON;
	case TUI_REDRAW:
		console__draw(run->r->console, true);
		return LOOP_ON;
	case TUI_NONE:
		break;
	}
	return LOOP_ON;
}

static int on_mark(void *ctx, int fd)
{
	struct run *run = ctx;
	uint64_t expirations;

	if (read(fd, &expirations, sizeof(expirations)) > 0)
		set_mark(run->r);
	return LOOP_ON;
}

static int on_signal(void *ctx, int fd)
{
	struct run *run = ctx;
	struct signalfd_siginfo si;

	if (read(fd, &si, sizeof(si)) != sizeof(si))
		return LOOP_ON;
	if (si.ssi_signo == SIGUSR1) {
		write_now(run->r);
		return LOOP_ON;
	}
	if (si.ssi_signo == SIGUSR2) {
		set_mark(run->r);
		console__draw(run->r->console, true);
		return LOOP_ON;
	}
	snprintf(run->ending, run->ending_size, "interrupted");
	return LOOP_END;
}

static int on_duration(void *ctx, int fd)
{
	struct run *run = ctx;

	snprintf(run->ending, run->ending_size, "duration elapsed");
	return LOOP_END;
}

static int on_snapshot(void *ctx, int fd)
{
	struct run *run = ctx;
	uint64_t expirations;

	if (read(fd, &expirations, sizeof(expirations)) < 0)
		return LOOP_ON;
	traced__consume(run->r->traced);
	weigh(run->r, true);
	outputs__snapshot(run->r->outputs);
	return LOOP_ON;
}

/* `tracelloc ... | head`: the end when head has read enough */
static int on_stream_closed(void *ctx, int fd)
{
	struct run *run = ctx;

	console__stream_closed(fd, run->ending, run->ending_size);
	return LOOP_END;
}

static int on_http(void *ctx, int fd)
{
	return LOOP_ON;	/* served after every wait (run__trace) */
}

/* the interval: each process's maps read again, the growth and the
 * timeline sampled; the live line and the report, or the live view */
static int on_tick(void *ctx, int fd)
{
	struct run *run = ctx;
	struct run_rooms *r = run->r;
	uint64_t expirations;

	if (read(fd, &expirations, sizeof(expirations)) < 0)
		return LOOP_ON;
	traced__consume(r->traced);
	weigh(r, false);
	if (handle_pending(run) == LOOP_END ||
	    !traced__refresh(r->traced, run->ending, run->ending_size))
		return LOOP_END;
	recording__tick(r->rec, recording__wants_rss(r->rec) ? traced__rss(r->traced) : 0);
	return console__tick(r->console, expirations, run->ending, run->ending_size) ? LOOP_ON
										      : LOOP_END;
}

/* a timer every every_s (0: once) after first_s, in *fd and the loop */
static int add_timer(struct run *run, double first_s, double every_s, int *fd, loop_fn fn)
{
	*fd = new_timer(first_s, every_s);
	if (*fd < 0)
		return *fd;
	return loop__add(run->loop, *fd, EPOLLIN, fn, run);
}

/* the sources of the loop: a timer is closed by stop_loop */
static int start_loop(struct run *run)
{
	const struct options *o = run->r->opts;
	/* the tick also re-reads the target's maps, so it runs even without a live line */
	double tick_s = o->interval_s > 0 ? o->interval_s : 1;
	int keys_fd = console__keys_fd(run->r->console);
	int err = loop__new(&run->loop);

	if (!err)
		err = loop__add(run->loop, events__fd(recording__events(run->r->rec)), EPOLLIN,
				on_events, run);
	if (!err)
		err = traced__watch(run->r->traced, run->loop, on_pending, run);
	if (!err)
		err = loop__add(run->loop, run->r->signal_fd, EPOLLIN, on_signal, run);
	if (!err)
		err = add_timer(run, tick_s, tick_s, &run->tick_fd, on_tick);
	if (!err && o->duration_s > 0)
		err = add_timer(run, o->duration_s, 0, &run->end_fd, on_duration);
	if (!err && o->mark_after_s > 0)
		err = add_timer(run, o->mark_after_s, 0, &run->mark_fd, on_mark);
	if (!err && o->snapshot_dir)
		err = add_timer(run, o->snapshot_every_s, o->snapshot_every_s, &run->snap_fd,
				on_snapshot);
	if (!err && run->r->http)
		err = loop__add(run->loop, http__fd(run->r->http), EPOLLIN, on_http, run);
	if (!err && keys_fd >= 0)
		err = loop__add(run->loop, keys_fd, EPOLLIN, on_keys, run);
	if (err)
		return err;
	/*
	 * A pipe whose reader has gone reports EPOLLERR (a socket or terminal
	 * EPOLLHUP) whatever events were asked for. Regular files and /dev/null
	 * cannot be polled (EPERM), and never close under us.
	 */
	loop__add(run->loop, STDOUT_FILENO, 0, on_stream_closed, run);
	loop__add(run->loop, STDERR_FILENO, 0, on_stream_closed, run);
	return 0;
}

static void stop_loop(struct run *run)
{
	traced__watch(run->r->traced, NULL, NULL, NULL);
	loop__destroy(run->loop);
	run->loop = NULL;
	if (run->tick_fd >= 0)
		close(run->tick_fd);
	if (run->end_fd >= 0)
		close(run->end_fd);
	if (run->snap_fd >= 0)
		close(run->snap_fd);
	if (run->mark_fd >= 0)
		close(run->mark_fd);
	run->tick_fd = run->end_fd = run->snap_fd = run->mark_fd = -1;
}

int run__trace(struct run_rooms *r, char *ending, size_t ending_size)
{
	struct run run = { .r = r, .tick_fd = -1, .end_fd = -1, .snap_fd = -1, .mark_fd = -1,
			   .ending = ending, .ending_size = ending_size };
	int ret = start_loop(&run);

	if (ret) {
		say(ret, "cannot wait for events");
		stop_loop(&run);
		return 1;
	}
	console__draw(r->console, false);
	r->tracing = true;
	while (ret == LOOP_ON) {
		int wait_ms = r->http ? http__timeout_ms(r->http, POLL_EVERY_MS) : POLL_EVERY_MS;

		/* a young big mapping is measured often: its process may not live long */
		wait_ms = recording__weigh_in_ms(r->rec, wait_ms);

		/* records are sent without a wakeup until a batch gathers: look anyway */
		ret = loop__run_once(run.loop, wait_ms, on_events, &run);
		/* MHD wants a call after every wait, its fd ready or not (its timeouts);
		 * a request is answered here, between two reads of the ring buffer */
		if (r->http)
			http__run(r->http);
	}
	/* what the processes sent before they ended is still in the rings: all of it */
	if (ret == LOOP_END)
		ret = traced__flush(r->traced);
	if (!ret)
		weigh(r, true);
	if (ret)
		say(ret, "cannot process events");
	r->tracing = false;
	stop_loop(&run);
	return ret ? 1 : 0;
}
