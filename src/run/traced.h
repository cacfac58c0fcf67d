/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_TRACED_H
#define TRACELLOC_TRACED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "loop.h"

/*
 * The traced processes, by slot: the BPF side's slot of the same index
 * holds each one's state. A process comes by pid (-p), by name (--comm),
 * as the command tracelloc starts, or new (a fork's child, a program of
 * --comm's name: traced__take). Each has its probes (attach.c), its unwind
 * tables, its symbolizer and its number; exec is followed here, and exits
 * end a process's slot once its last records are read. The bring-up steps
 * say their line and return 1; the rest return negative errno, or false
 * with an ending (why the trace ends) where the trace ends there.
 */
struct traced;
struct options;
struct tracer;
struct recording;
struct holds;
struct closer;
struct attach;
struct symbolizer;
struct events_pending;

/* the processes of o opened (by pid, by name, or the command started and
 * held); several: the run traces several processes. 0, or a line and 1 */
int traced__open(const struct options *o, struct traced **out);
/* the rooms it works with, once they exist */
void traced__set_rooms(struct traced *t, struct tracer *tracer, struct recording *rec,
		       struct holds *holds, struct closer *closer);
/* probes, tables, names end with the run; the processes' targets last */
void traced__close(struct traced *t);
void traced__destroy(struct traced *t);

/* pid is stopped by tracelloc's own hold (its start, a fork, an exec),
 * until its probes are attached */
bool traced__held(const struct traced *t, pid_t pid);
bool traced__several(const struct traced *t);
/* the first process, and an fd that polls readable once it has exited (0
 * and -1: none); by_name: one found by --comm's name counts too */
void traced__first(const struct traced *t, bool by_name, pid_t *pid, int *pidfd);
/* the first process's probes: the kind of links the object is loaded for */
struct attach *traced__model(const struct traced *t);

/* each process's allocator found: a line and 1 for one asked for that has none */
int traced__find_allocators(struct traced *t);
/* each process named, in its slot, probed: a line and 1 */
int traced__attach(struct traced *t);
/* --comm: those of that name that started while the others were attached */
int traced__catch_up_comm(struct traced *t);
/* the command started runs now; a line and 1 */
int traced__resume(struct traced *t);

/* the loop watches each process's exit (fn with ctx) from now on; NULL: no more */
int traced__watch(struct traced *t, struct loop *l, loop_fn fn, void *ctx);

/* reads the rings, then brings the processes up to date with what the
 * records said (maps changed, new stacks); negative errno */
int traced__consume(struct traced *t);
/* the end: every record left in the rings, then the same */
int traced__flush(struct traced *t);

/* a tick: maps read again; false with the ending when the trace ends */
bool traced__refresh(struct traced *t, char *ending, size_t ending_size);
/* the process in slot called exec (its record pending; held: the BPF side
 * stopped it there); false with the ending */
bool traced__exec(struct traced *t, uint16_t slot, bool held, char *ending, size_t ending_size);
/* the second stops of followed execs; false with the ending */
bool traced__settle_execs(struct traced *t, char *ending, size_t ending_size);
/* a dlopen in slot waits, held, for its tables and probes (tid: its thread) */
void traced__maps_held(struct traced *t, uint16_t slot, pid_t tid);
/* the process in slot (its thread tid) called exit() and is held there:
 * check(ctx, pid, tag) while it waits, then it goes on */
void traced__exiting(struct traced *t, uint16_t slot, pid_t tid,
		     void (*check)(void *ctx, pid_t pid, uint64_t tag), void *ctx);
/* processes that exited, their last records read; true when nothing is left
 * to trace (ending says why); a record to handle first leaves them be */
bool traced__reap(struct traced *t, char *ending, size_t ending_size);
/* several: true when no process is traced any more (ending says why) */
bool traced__nothing_left(struct traced *t, char *ending, size_t ending_size);

/* a free slot waits */
bool traced__has_room(struct traced *t);
/*
 * A new process, held stopped by the BPF side: a fork's child of the
 * process in parent_slot (NO_SLOT: a program of --comm's name), numbered
 * idx when its parent forked (0: not yet), sharing its parent's memory or
 * not. Taken into a free slot, probed, and let go; -ENOSPC when no slot is
 * free (it stays held).
 */
int traced__take(struct traced *t, uint16_t parent_slot, pid_t pid, uint32_t idx,
		 bool shares_vm);
/* a held process with no room: let go untraced, and counted */
void traced__let_go(struct traced *t, pid_t pid);
/* the number the process in slot has (several) */
uint32_t traced__idx(const struct traced *t, uint16_t slot);
pid_t traced__pid(const struct traced *t, uint16_t slot);

/* the process in slot i, traced now: its pid and the number its blocks
 * carry (0 with one process); false for a slot with none (up to MAX_PROCS) */
bool traced__process(const struct traced *t, size_t i, pid_t *pid, uint64_t *tag);
/* for titles: "pid 1234, ./app", "5 processes, ./server" */
void traced__name(const struct traced *t, char *buf, size_t size);
/* the summary's: the first process's pid, its programs ("a -> b") when exec
 * was followed with one process (else NULL), those left out for room */
pid_t traced__first_pid(const struct traced *t);
const char *traced__execs(const struct traced *t);
uint64_t traced__untraced(const struct traced *t);
/* the resident memory of the traced processes */
uint64_t traced__rss(const struct traced *t);
/* with one process, its symbolizer (else NULL) */
struct symbolizer *traced__symbolizer(const struct traced *t);
/* "attached to pid N: ..." for each */
void traced__announce(struct traced *t, FILE *out);
/* the command started, still running, is sent SIGTERM: its pid, or 0 */
pid_t traced__terminate(struct traced *t);

#endif
