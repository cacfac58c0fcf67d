// SPDX-License-Identifier: GPL-2.0
/* forks, execs and new processes, as their records come (see follow.h) */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "events.h"
#include "follow.h"
#include "forks.h"
#include "processes.h"
#include "recording.h"
#include "traced.h"
#include "tracelloc.h"

/* forks whose halves wait for each other, or for a slot, at once */
#define MAX_FORK_HALVES 64

struct follow {
	struct traced *traced;
	struct recording *rec;
	struct forks *forks;
	/* --leak-check: a process held at its exit */
	void (*exit_check)(void *ctx, pid_t pid, uint64_t tag);
	void *exit_ctx;
};

void follow__on_exit(struct follow *f, void (*check)(void *ctx, pid_t pid, uint64_t tag),
		     void *ctx)
{
	f->exit_check = check;
	f->exit_ctx = ctx;
}

struct follow *follow__new(struct traced *t, struct recording *rec)
{
	struct follow *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->traced = t;
	f->rec = rec;
	f->forks = forks__new(MAX_FORK_HALVES);
	if (!f->forks) {
		free(f);
		return NULL;
	}
	return f;
}

void follow__destroy(struct follow *f)
{
	if (!f)
		return;
	forks__destroy(f->forks);
	free(f);
}

/* a fork's child that is not traced after all: its copy of the parent's
 * blocks goes, and it is no process of the trace */
static void drop_child_copy(struct follow *f, uint32_t idx)
{
	if (idx)
		recording__drop_process(f->rec, idx, "untraced");
}

/*
 * A process held by the BPF side at its start: a traced process's child,
 * or a program of --comm's name (parent_slot NO_SLOT). It takes a slot of
 * its own; with every slot taken it waits, stopped, until one is free (a
 * process that exited gives its slot back once its last records are read),
 * or goes on untraced when no more can wait.
 */
static void take_new(struct follow *f, uint16_t parent_slot, pid_t pid, uint32_t idx,
		     bool shares_vm)
{
	struct fork_child c = {
		.slot = parent_slot, .child = pid, .idx = idx,
		.flags = shares_vm ? FORK_SHARES_VM : 0,
	};

	if (traced__take(f->traced, parent_slot, pid, idx, shares_vm) != -ENOSPC)
		return;
	if (forks__wait_slot(f->forks, &c, clock__now_ns()))
		return;
	traced__let_go(f->traced, pid);
	drop_child_copy(f, idx);
}

/*
 * A fork comes in two records: the parent's, at its fork's return (in its
 * order: what it held then, the child holds), and the child's, at its first
 * return to user space (it waits, stopped). They come in either order; the
 * first is kept until the other comes.
 */
static void fork_half(struct follow *f, const struct events_pending *pend)
{
	struct processes *ps = recording__processes(f->rec);
	struct fork_record r = {
		.parent = pend->type == EVENT_FORK_PARENT, .slot = pend->slot,
		.child_own = pend->child_own, .child = pend->child, .flags = pend->flags,
	};
	uint16_t parent = pend->slot < MAX_PROCS ? pend->slot : 0;
	uint32_t parent_idx = traced__idx(f->traced, parent);
	struct fork_child c;
	int idx;

	switch (forks__half(f->forks, &r, clock__now_ns(), &c)) {
	case FORK_PAIRED:
		/* the other half: the child goes on, with its number */
		take_new(f, parent, c.child, c.idx, c.flags & FORK_SHARES_VM);
		return;
	case FORK_NO_ROOM:
		/* more forks at once than halves: the child goes on untraced */
		if (!r.parent)
			traced__let_go(f->traced, r.child);
		return;
	case FORK_KEPT:
		break;
	}
	if (!r.parent)
		return;
	/* the child's number now, and what the parent held, at the same addresses */
	idx = processes__add(ps, 0, processes__comm(ps, parent_idx), NULL);
	if (idx < 0)
		return;
	forks__set_idx(f->forks, &r, idx);
	if (!(r.flags & FORK_SHARES_VM) && recording__copy_process(f->rec, parent_idx, idx))
		fprintf(stderr, "tracelloc: pid %d forked: out of memory for its child's copy "
			"of the heap\n", traced__pid(f->traced, parent));
}

/* a child whose parent's record never came (lost) is not left stopped */
static void expire_fork_halves(struct follow *f)
{
	enum fork_expiry why;
	struct fork_child c;

	while (forks__expire(f->forks, clock__now_ns(), &c, &why)) {
		switch (why) {
		case FORK_NO_SLOT:
			/* no slot came free in time */
			traced__let_go(f->traced, c.child);
			drop_child_copy(f, c.idx);
			break;
		case FORK_NO_PARENT:
			take_new(f, c.slot < MAX_PROCS ? c.slot : NO_SLOT, c.child, 0,
				 c.flags & FORK_SHARES_VM);
			break;
		case FORK_NO_CHILD:
			/* the child never came (counted by the BPF side: no room to
			 * hold it, or its record lost) */
			drop_child_copy(f, c.idx);
			break;
		}
	}
}

/* children that waited for a slot get the slots that came free; true
 * when one did */
static bool take_waiting(struct follow *f)
{
	struct fork_child c;
	bool took = false;

	while (traced__has_room(f->traced) && forks__take_waiting(f->forks, &c)) {
		take_new(f, c.slot < MAX_PROCS ? c.slot : NO_SLOT, c.child, c.idx,
			 c.flags & FORK_SHARES_VM);
		took = true;
	}
	return took;
}

/* SIGINT, SIGTERM or SIGHUP waits in the signal fd: a backlog of forks
 * (hundreds a second, more than the daemon attaches) must not delay the end;
 * what is left held is let go at teardown (holds__release_all) */
static bool stop_signalled(void)
{
	sigset_t pending;

	return !sigpending(&pending) &&
	       (sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1 ||
		sigismember(&pending, SIGHUP) == 1);
}

bool follow__pending(struct follow *f, char *ending, size_t ending_size)
{
	struct events *ev = recording__events(f->rec);
	struct events_pending pend;
	bool done;

	while (!stop_signalled() && events__pending(ev, &pend)) {
		switch (pend.type) {
		case EVENT_EXEC:
			if (!traced__exec(f->traced, pend.slot, pend.addr, ending, ending_size))
				return true;
			break;
		case EVENT_FORK:
		case EVENT_FORK_PARENT:
			fork_half(f, &pend);
			break;
		case EVENT_COMM_EXEC:
			take_new(f, NO_SLOT, (pid_t)(uint32_t)pend.addr, 0, false);
			break;
		case EVENT_MAPS_HELD:
			traced__maps_held(f->traced, pend.slot, pend.tid);
			break;
		case EVENT_EXITING:
			traced__exiting(f->traced, pend.slot, pend.tid, f->exit_check, f->exit_ctx);
			break;
		}
		events__resume(ev);
		traced__consume(f->traced);
	}
	if (!traced__settle_execs(f->traced, ending, ending_size))
		return true;
	expire_fork_halves(f);
	done = traced__reap(f->traced, ending, ending_size);
	/* the last process exited: the end, unless a child took its slot */
	if (take_waiting(f))
		done = traced__nothing_left(f->traced, ending, ending_size);
	return done;
}
