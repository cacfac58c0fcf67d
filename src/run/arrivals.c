// SPDX-License-Identifier: GPL-2.0
/*
 * What comes while tracing (see traced_int.h): a traced process's new
 * program at exec, a fork's child, a program of --comm's name. Each is held
 * stopped by the BPF side until it is probed, then let go; and each tick's
 * refresh of what the processes map (traced__refresh). traced.c calls
 * nothing here: this file uses its room's internals, not the other way.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "attach.h"
#include "holds.h"
#include "options.h"
#include "programs.h"
#include "symbolize.h"
#include "traced.h"
#include "traced_int.h"
#include "unwinder.h"

/* probes, tables and names for what the process maps now; 0, or why its
 * program cannot be traced. at_exec: a dynamic program's libraries are yet
 * to come (ld.so is probed for them) */
static int probe_new_files(struct traced *t, struct proc *p, bool at_exec)
{
	int err;

	traced_refresh_unwinder(t, p, true);
	traced_refresh_symbolizer(t, p);
	err = attach__refresh(p->attach);
	traced_set_loader(t, p, !at_exec || !attach__loader_probed(p->attach));
	p->probes_gen = maps_gen(t, p);
	traced_tell_new_probes(p);
	return err;
}

/*
 * A new program in the process (exec, or --comm's name starting), held
 * stopped when p->exec_held: its executable and ld.so are probed now, its
 * libraries at ld.so's hook (a second stop), before any of their code runs.
 * A -p target runs on, and is probed as it maps its files. 0, or why the
 * program cannot be traced.
 */
static int probe_program(struct traced *t, struct proc *p)
{
	int err = probe_new_files(t, p, true);

	/* a dynamic program's allocator comes with its libraries: at the hook */
	p->exec_unsettled = attach__loader_probed(p->attach) && (!err || err == -ENOENT);
	if (p->exec_unsettled) {
		if (p->exec_held) {
			bpf_state(t, p)->hook_calls = 0;
			bpf_state(t, p)->hold_at_hook = 1;
		}
		err = 0;
	}
	if (p->exec_held)
		holds__release(t->holds, proc_pid(p));
	return err;
}

/* with several processes, one that cannot be traced on ends alone */
static bool proc_verdict(struct traced *t, struct proc *p, int err, char *ending,
			 size_t ending_size)
{
	char why[512];

	if (!err)
		return true;
	programs__exec_verdict(p->programs, err, attach__culprit(p->attach), why, sizeof(why));
	if (!t->several) {
		snprintf(ending, ending_size, "%s", why);
		return false;
	}
	fprintf(stderr, "tracelloc: pid %d: %s\n", proc_pid(p), why + strlen("target "));
	traced_end_proc(t, p, "exec");
	return true;
}

/*
 * The process called exec, and the trace goes on in its new program: the
 * old heap went with the old program. false, with the ending, when the
 * trace ends there.
 */
static bool follow_exec(struct traced *t, struct proc *p, bool held, char *ending,
			size_t ending_size)
{
	pid_t pid = proc_pid(p);
	char exe[512];
	int err = 0;

	/* not held (a debugger traces it): probed as it runs on, as under -p */
	p->exec_held = p->hold_exec && held;
	if (p->exec_held && (err = target__wait_stopped(p->target))) {
		if (traced_proc_gone(p))
			snprintf(ending, ending_size, "target exited");
		else
			snprintf(ending, ending_size, "target called exec and was not held there (%s): "
				 "stopped", strerror(-err));
		if (!t->several)
			return false;
		traced_end_proc(t, p, "exited");
		return true;
	}
	programs__exe(pid, exe, sizeof(exe));
	programs__exec(p->programs, exe);
	fprintf(stderr, "tracelloc: pid %d called exec: now %s\n", pid, exe);

	if (t->several) {
		/* the old program's blocks went with it; the new one has a number of its own */
		recording__drop_process(t->rec, p->idx, "exec");
		processes__superseded(recording__processes(t->rec), p->idx);
	} else if (recording__reset(t->rec)) {
		snprintf(ending, ending_size, "target called exec: out of memory");
		return false;
	}
	/* the old program's frames are named from what it mapped */
	if (!p->sym_shared)
		symbolizer__freeze(proc_symbolizer(t, p));
	err = traced_name_proc(t, p, 0, NULL);
	if (err) {
		snprintf(ending, ending_size, "target called exec: %s", strerror(-err));
		if (!t->several)
			return false;
		traced_end_proc(t, p, "exec");
		return true;
	}
	return proc_verdict(t, p, probe_program(t, p), ending, ending_size);
}

/* the second stop of a followed exec, at ld.so's hook, or (-p) a tick */
static bool settle_exec(struct traced *t, struct proc *p, char *ending, size_t ending_size)
{
	int err;

	if (!p->exec_unsettled || (p->exec_held && bpf_state(t, p)->hold_at_hook))
		return true;
	if (p->exec_held && target__wait_stopped(p->target)) {
		if (traced_proc_gone(p))
			return true;	/* the pidfd says so */
		/* not stopped at the hook (a debugger came meanwhile): probed as it runs */
		p->exec_held = false;
	}
	p->exec_unsettled = false;
	err = probe_new_files(t, p, false);
	if (p->exec_held)
		holds__release(t->holds, proc_pid(p));
	if (err)
		programs__exec_verdict(p->programs, err, attach__culprit(p->attach), ending, ending_size);
	return proc_verdict(t, p, err, ending, ending_size);
}

/*
 * A process held by the BPF side at its start: a traced process's child
 * (parent set), or a program of --comm's name. It waits, stopped, in a slot
 * of its own, until it is probed.
 */
/* a new process in slot p, stopped: its state reset, its names and tables
 * made, its tracing begun (not its probes); negative errno */
static int start_proc(struct traced *t, struct proc *p, struct proc *parent, uint32_t idx)
{
	pid_t pid = proc_pid(p);
	int err;

	memset(bpf_state(t, p), 0, sizeof(struct proc_state));
	p->hold_exec = !t->opts->no_follow_exec;
	p->exec_held = p->hold_exec;
	bpf_state(t, p)->hold_exec = p->hold_exec;
	p->probes_gen = p->unwinder_gen = 0;
	p->main_exit_told = false;
	err = traced_start_programs(p);
	if (err)
		return err;
	/* a copy of its parent: the same files at the same places */
	err = traced_name_proc(t, p, idx, parent && parent->live && t->several &&
			!symbolizer__contested(proc_symbolizer(t, parent)) ?
			proc_symbolizer(t, parent) : NULL);
	if (!err && tracer__unwinder(t->tracer))
		err = unwinder__add(tracer__unwinder(t->tracer), slot_of(t, p), pid);
	if (!err) {
		struct attach_opts aopts;

		traced_attach_options(t, &aopts);
		p->attach = attach__new(tracer__skel(t->tracer), pid, &aopts);
		err = p->attach ? attach__prepare_loaded(p->attach) : -ENOMEM;
	}
	if (!err)
		err = traced_trace_proc(t, p);
	return err;
}

/* a forked child: its parent's files at the same places, probed (a child
 * sharing its parent's memory has its probes; it is traced from exec) */
static void probe_child(struct traced *t, struct proc *p, const struct proc *parent,
			bool shares_vm)
{
	pid_t pid = proc_pid(p);
	int err = 0;

	if (!shares_vm) {
		err = attach__find(p->attach);
		if (!err)
			err = attach__attach(p->attach);
	}
	/* a child sharing its parent's memory (posix_spawn, vfork) probes
	 * nothing of its own until its exec: no static executable for that */
	traced_set_loader(t, p, !shares_vm);
	holds__release(t->holds, pid);
	/* -v: each child; else its probes are its parent's, told already */
	if (!err && t->opts->verbose) {
		char prefix[96];

		snprintf(prefix, sizeof(prefix), "tracelloc: pid %d, forked by pid %d: ", pid,
			 proc_pid(parent));
		attach__describe_new(p->attach, prefix, stderr);
	}
	attach__describe_new(p->attach, NULL, NULL);
	if (err) {
		char why[512];

		attach__verdict(p->attach, pid, err, why, sizeof(why));
		fprintf(stderr, "tracelloc: %s\n", why);
		traced_end_proc(t, p, "untraced");
	}
}

int traced__take(struct traced *t, uint16_t parent_slot, pid_t pid, uint32_t idx,
		 bool shares_vm)
{
	struct proc *parent = parent_slot < MAX_PROCS ? &t->procs[parent_slot] : NULL;
	struct processes *ps = recording__processes(t->rec);
	struct proc *p = traced_free_slot(t);
	int err;

	if (!p)
		return -ENOSPC;
	/* gone already: its copy of the parent's blocks stays, as it was */
	if (target__open(pid, &p->target)) {
		tracer__untrace(t->tracer, pid);
		holds__release(t->holds, pid);
		if (idx) {
			processes__set(ps, idx, pid, processes__comm(ps, idx), NULL);
			recording__process_exited(t->rec, idx);
		}
		return 0;
	}
	p->live = true;
	p->idx = idx;
	err = traced_watch_proc(t, p);
	if (!err)
		err = target__wait_stopped(p->target);
	if (err) {
		/* not stopped in time (someone else's SIGCONT ended ours): it
		 * goes on untraced, and is let go */
		holds__release(t->holds, pid);
		traced_end_proc(t, p, err == -ETIMEDOUT ? "untraced" : "exited");
		if (err == -ETIMEDOUT)
			t->untraced++;
		return 0;
	}
	err = start_proc(t, p, parent, idx);
	if (err) {
		/* a limit: said once, the rest counted (summary, /metrics) */
		if (err == -ENOSPC && !t->room_told)
			fprintf(stderr, "tracelloc: cannot trace pid %d: no room for another process "
				"(%d numbers in use); processes past this one are not traced, and "
				"counted\n", pid, PROC_MAX);
		else if (err != -ENOSPC)
			fprintf(stderr, "tracelloc: cannot trace pid %d: %s\n", pid, strerror(-err));
		t->room_told |= err == -ENOSPC;
		traced_end_proc(t, p, "untraced");
		if (idx)
			recording__drop_process(t->rec, idx, "untraced");
		holds__release(t->holds, pid);
		t->untraced++;
		return 0;
	}
	if (!parent) {
		/* a program at its start: probed as an exec is */
		char why[512];

		err = probe_program(t, p);
		proc_verdict(t, p, err, why, sizeof(why));
		return 0;
	}
	probe_child(t, p, parent, shares_vm);
	return 0;
}

bool traced__exec(struct traced *t, uint16_t slot, bool held, char *ending, size_t ending_size)
{
	struct proc *p = &t->procs[slot < MAX_PROCS ? slot : 0];
	char exe[256];

	if (!t->opts->no_follow_exec)
		return follow_exec(t, p, held, ending, ending_size);
	programs__exe(proc_pid(p), exe, sizeof(exe));
	if (!t->several) {
		snprintf(ending, ending_size, "target called exec (now %s): stopped there", exe);
		return false;
	}
	fprintf(stderr, "tracelloc: pid %d called exec (now %s): no longer traced\n",
		proc_pid(p), exe);
	traced_end_proc(t, p, "exec");
	return true;
}

bool traced__settle_execs(struct traced *t, char *ending, size_t ending_size)
{
	struct proc *p;
	size_t i;

	for (i = 0; i < MAX_PROCS; i++) {
		p = &t->procs[i];
		if (p->live && p->exec_unsettled && p->exec_held &&
		    !settle_exec(t, p, ending, ending_size))
			return false;
	}
	return true;
}

bool traced__has_room(struct traced *t)
{
	return traced_free_slot(t) != NULL;
}

/* a new process the BPF side stopped and marked held: no slot for it */
void traced__let_go(struct traced *t, pid_t pid)
{
	tracer__untrace(t->tracer, pid);
	holds__release(t->holds, pid);
	if (!t->untraced++)
		fprintf(stderr, "tracelloc: pid %d is not traced: %d processes are traced at once "
			"already (the summary counts those left out)\n", pid, MAX_PROCS);
}

bool traced__refresh(struct traced *t, char *ending, size_t ending_size)
{
	size_t i;

	traced_tell_untraced_fork(t);
	traced_tell_idle_parent(t);

	for (i = 0; i < MAX_PROCS; i++) {
		struct proc *p = &t->procs[i];

		if (!p->live)
			continue;
		if (p->exec_unsettled && !settle_exec(t, p, ending, ending_size))
			return false;
		if (p->live) {
			traced_refresh_symbolizer(t, p);
			traced_refresh_unwinder(t, p, true);
		}
	}
	return true;
}
