// SPDX-License-Identifier: GPL-2.0
/* the leak checks of a run (see checks.h) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checks.h"
#include "holds.h"
#include "leakcheck.h"
#include "leaks.h"
#include "options.h"
#include "procfs.h"
#include "profile.h"
#include "recording.h"
#include "say.h"
#include "text.h"
#include "traced.h"
#include "tracelloc.h"
#include "tracer.h"

struct checks {
	const struct options *opts;
	struct traced *traced;
	struct recording *rec;
	struct tracer *tracer;
	checks_draw_fn draw;
	void *draw_ctx;
	bool found_lost;		/* a check found a block lost */
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

struct checks *checks__new(const struct options *o, struct traced *t, struct recording *rec,
			   struct tracer *tracer)
{
	struct checks *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->opts = o;
	c->traced = t;
	c->rec = rec;
	c->tracer = tracer;
	return c;
}

void checks__destroy(struct checks *c)
{
	free(c);
}

void checks__set_drawer(struct checks *c, checks_draw_fn draw, void *ctx)
{
	c->draw = draw;
	c->draw_ctx = ctx;
}

/* the summary keeps the last check of each process */
static void keep_check(struct checks *c, pid_t pid, const uint64_t *bytes, const uint64_t *blocks,
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

static void drain(void *ctx)
{
	struct checks *c = ctx;

	/* a read handles the records stamped before it began: the second one
	 * those the first found stamped after its start, before the stop */
	traced__consume(c->traced);
	traced__consume(c->traced);
}

/* what each stack lost, for the outputs (-m leaked) */
static void keep_lost(struct checks *c, pid_t pid, const struct leaks *l)
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
	const struct checks *c = ctx;

	return recording__suppressed(c->rec, stack_id);
}

/* the snapshot's clone is no fork to follow */
static void quiet(void *ctx, pid_t pid, bool on)
{
	struct checks *c = ctx;

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
	struct checks *c = ctx;

	return tracer__sig_stacks(c->tracer, pid, sp, max);
}

/* one process: stopped, scanned (or a snapshot of it while it goes on),
 * let go, and its result drawn */
static void check_process(struct checks *c, pid_t pid, uint64_t tag, bool live)
{
	struct leakcheck_opts lo = { .pid = pid, .tag = tag, .drain = drain, .quiet = quiet,
				     .sig_stacks = sig_stacks, .ctx = c, .snapshot = live,
				     .attached_late = !c->opts->command,
				     .held = live && traced__held(c->traced, pid),
				     .pools = recording__pools(c->rec) };
	struct check_result r = { .pid = pid };
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
	leaks__totals(lr.leaks, r.bytes, r.blocks);
	c->found_lost |= r.blocks[LEAK_DEFINITE] + r.blocks[LEAK_INDIRECT] > 0;
	/* "snapshot", or "snapshot, with ..." */
	keep_check(c, pid, r.bytes, r.blocks, lr.stopped_ms,
		   !strncmp(lr.how, "snapshot", 8) && (!lr.how[8] || lr.how[8] == ','));
	keep_lost(c, pid, lr.leaks);
	r.report = lr;
	r.profile = p;
	if (c->draw)
		c->draw(c->draw_ctx, &r);
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

static bool checked_at_exit(const struct checks *c, pid_t pid)
{
	size_t i;

	for (i = 0; i < c->nexited; i++)
		if (c->exited[i] == pid)
			return true;
	return false;
}

void checks__all(struct checks *c)
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

void checks__at_exit(void *ctx, pid_t pid, uint64_t tag)
{
	struct checks *c = ctx;

	if (!c->opts->leak_check)
		return;
	check_process(c, pid, tag, false);
	if (c->nexited < MAX_PROCS)
		c->exited[c->nexited++] = pid;
}

void checks__totals(const struct checks *c, struct checks_totals *t)
{
	size_t i, k;

	*t = (struct checks_totals){ .checks = (unsigned int)c->nchecked };
	for (i = 0; i < c->nchecked; i++) {
		for (k = 0; k < LEAK__COUNT; k++) {
			t->bytes[k] += c->checked[i].bytes[k];
			t->blocks[k] += c->checked[i].blocks[k];
		}
		t->snapshots += c->checked[i].snapshot;
		if (c->checked[i].stopped_ms > t->max_stopped_ms)
			t->max_stopped_ms = c->checked[i].stopped_ms;
	}
}

bool checks__found_lost(const struct checks *c)
{
	return c->found_lost;
}
