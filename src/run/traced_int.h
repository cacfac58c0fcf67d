/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_TRACED_INT_H
#define TRACELLOC_TRACED_INT_H

/*
 * The insides of the traced processes (traced.h), shared by its two files
 * and no one else: traced.c brings the processes asked for up, keeps them
 * up to date and ends them; arrivals.c takes what comes while tracing (a
 * process's new program at exec, a fork's child, a program of --comm's
 * name) into a slot and probes it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "loop.h"
#include "processes.h"
#include "recording.h"
#include "target.h"
#include "tracer.h"
#include "tracelloc.h"

struct options;
struct holds;
struct closer;
struct attach;
struct symbolizer;
struct programs;
struct attach_opts;

/* the processes that ended kept apart, each with its stacks, before the
 * oldest are retired into their commands' (recording__retire) */
#define KEEP_ENDED 64

/* one traced process, in the BPF slot of the same index */
struct proc {
	bool live;			/* the slot is taken */
	uint32_t idx;			/* its number in processes (several); 0 with one */
	struct target *target;
	struct attach *attach;
	struct symbolizer *symbolizer;	/* with one process; else processes own them */
	uint32_t unwinder_gen;		/* maps_gen when its tables were last brought up to date */
	uint32_t probes_gen;		/* maps_gen when its probes were last brought up to date */
	bool main_exit_told;		/* the probes stopped with the main thread, said once */
	struct programs *programs;	/* the programs run: "/bin/sh -> /usr/bin/python3.11" */
	bool exec_unsettled;		/* the last one's libraries are not probed yet */
	bool hold_exec;			/* stopped at exec by the BPF side (see follow_exec) */
	/* the last program's start was held (at exec, or the process's start)
	 * and its libraries are held for at ld.so's hook: not where a debugger
	 * traces the process (hold_current) */
	bool exec_held;
	bool sym_shared;		/* a fork's child naming frames with its parent's symbolizer */
};

struct traced {
	const struct options *opts;
	bool several;			/* --follow-forks, --comm, -p with several pids */
	struct proc procs[MAX_PROCS];
	struct proc *first;		/* what was asked for first: the summary's pid */
	char first_ending[256];		/* several: how the first ended */
	uint64_t untraced;		/* processes that came when every slot was taken */
	bool room_told;			/* no number left for a process: said once */
	bool fork_told;			/* an untraced child was said (no --follow-forks) */
	bool idle_told;			/* -p of a process idle while its child works: said */
	pid_t ptraced_told;		/* the last process under a debugger said */
	struct tracer *tracer;
	struct recording *rec;
	struct holds *holds;
	struct closer *closer;
	/* the loop that watches the processes' exits, while tracing */
	struct loop *loop;
	loop_fn on_exit;
	void *loop_ctx;
	/* new stacks since the maps were last read for the symbolizers */
	uint32_t stacks_at_refresh;
	unsigned int rec_generation;
	uint64_t refreshed_ns;
	/* stacks cut for want of a table, when last looked at */
	uint64_t cut_no_table;
	uint64_t cuts_checked_ns;
};

static inline pid_t proc_pid(const struct proc *p)
{
	return target__pid(p->target);
}

static inline uint32_t slot_of(const struct traced *t, const struct proc *p)
{
	return (uint32_t)(p - t->procs);
}

static inline struct proc_state *bpf_state(struct traced *t, const struct proc *p)
{
	return tracer__state(t->tracer, slot_of(t, p));
}

/* the BPF side's count of p's changes of maps (ld.so's hook, mmap) */
static inline uint32_t maps_gen(struct traced *t, const struct proc *p)
{
	return __atomic_load_n(&bpf_state(t, p)->maps_gen, __ATOMIC_RELAXED);
}

static inline struct symbolizer *proc_symbolizer(struct traced *t, const struct proc *p)
{
	return t->several ? processes__symbolizer(recording__processes(t->rec), p->idx) : p->symbolizer;
}

/* traced.c; the room's own (traced_, one underscore), shared by its two
 * files and by nothing else */
struct proc *traced_free_slot(struct traced *t);
bool traced_proc_gone(const struct proc *p);
void traced_attach_options(const struct traced *t, struct attach_opts *aopts);
void traced_set_loader(struct traced *t, struct proc *p, bool settled);
void traced_tell_new_probes(struct proc *p);
void traced_refresh_unwinder(struct traced *t, struct proc *p, bool always);
void traced_refresh_symbolizer(struct traced *t, struct proc *p);
int traced_name_proc(struct traced *t, struct proc *p, uint32_t reserved, struct symbolizer *share);
int traced_trace_proc(struct traced *t, struct proc *p);
void traced_end_proc(struct traced *t, struct proc *p, const char *how);
int traced_start_programs(struct proc *p);
int traced_watch_proc(struct traced *t, struct proc *p);
/* what went untraced or idle, said once (the refresh of arrivals.c) */
void traced_tell_untraced_fork(struct traced *t);
void traced_tell_idle_parent(struct traced *t);

#endif
