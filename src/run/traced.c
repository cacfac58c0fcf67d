// SPDX-License-Identifier: GPL-2.0
/* the traced processes, by slot (see traced.h); those that come while
 * tracing (exec, forks, --comm) are taken in by arrivals.c */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "attach.h"
#include "choose.h"
#include "clock.h"
#include "events.h"
#include "heap.h"
#include "holds.h"
#include "options.h"
#include "processes.h"
#include "programs.h"
#include "procfs.h"
#include "recording.h"
#include "say.h"
#include "stacks.h"
#include "symbolize.h"
#include "target.h"
#include "text.h"
#include "traced.h"
#include "traced_int.h"
#include "tracer.h"
#include "tracelloc.h"
#include "unwinder.h"

/* how often the stacks cut for want of a table are looked at */
#define CUTS_CHECK_NS 50000000ULL

/* -vv: each read that came late */
#define LATE_READ_NS 50000000ULL

static void unwatch_proc(struct traced *t, struct proc *p);
static bool proc_exited(struct traced *t, struct proc *p, char *ending, size_t ending_size);

/* -EINVAL at this step: the kernel refuses a uprobe where another tool's
 * probe on the same instruction uses a different reference counter (BCC's
 * memleak does) */
static const char attach_probes_step[] = "cannot attach probes to pid %d";

/* a free slot, or NULL when MAX_PROCS are traced (or one with one process) */
struct proc *traced_free_slot(struct traced *t)
{
	size_t i, n = t->several ? MAX_PROCS : 1;

	for (i = 0; i < n; i++)
		if (!t->procs[i].live && !t->procs[i].target)
			return &t->procs[i];
	return NULL;
}

/* -p PID */
static int open_pid(struct traced *t, pid_t pid)
{
	struct proc *p = traced_free_slot(t);
	int err;

	if (!p)
		return say(0, "too many processes: at most %d are traced at once", MAX_PROCS);
	err = choose__pid(pid, &p->target);
	if (err)
		return err;
	/* -p 12,12 or a thread id of a process given already */
	for (size_t i = 0; i < (size_t)(p - t->procs); i++)
		if (target__pid(t->procs[i].target) == target__pid(p->target)) {
			target__destroy(p->target);
			p->target = NULL;
			return 0;
		}
	p->live = true;
	return 0;
}

/* --comm: a process of that name in a slot, or caught by the exec hook
 * already (held, its record waiting) */
static bool comm_known(void *ctx, pid_t pid)
{
	struct traced *t = ctx;
	size_t i;

	for (i = 0; i < MAX_PROCS; i++)
		if (t->procs[i].target && target__pid(t->procs[i].target) == pid)
			return true;
	return t->tracer && tracer__traced(t->tracer, pid);
}

static bool comm_take(void *ctx, struct target *target)
{
	struct traced *t = ctx;
	struct proc *p = traced_free_slot(t);

	if (!p) {
		t->untraced++;
		return false;
	}
	p->target = target;
	p->live = true;
	return true;
}

/* --comm: the processes of that name that run now (ours excepted) */
static int open_comm(struct traced *t)
{
	return choose__by_name(t->opts->comm,
			       &(struct choose_sink){ comm_known, comm_take, t });
}

static int open_targets(struct traced *t)
{
	size_t i;
	int err;

	t->several = t->opts->npids > 1 || t->opts->follow_forks || t->opts->comm;
	for (i = 0; i < t->opts->npids; i++) {
		err = open_pid(t, t->opts->pids[i]);
		if (err)
			return err;
	}
	if (t->opts->comm && (err = open_comm(t)))
		return err;
	if (t->opts->command) {
		err = choose__command(t->opts, &t->procs[0].target);
		if (err)
			return err;
		t->procs[0].live = true;
	}
	t->first = t->procs[0].live ? &t->procs[0] : NULL;
	return 0;
}

/* the process has exited (its pidfd polls readable) */
bool traced_proc_gone(const struct proc *p)
{
	struct pollfd pfd = { .fd = target__pidfd(p->target), .events = POLLIN };

	return poll(&pfd, 1, 0) == 1;
}

static bool found_by_name(const struct traced *t, const struct proc *p)
{
	return p->target && choose__found_by_name(t->opts, proc_pid(p));
}

/* every function named on the command line is in the process */
static int named_found(struct traced *t, const struct proc *p)
{
	int missing = attach__named_missing(p->attach);
	const struct named_fn *f;

	if (missing < 0 || found_by_name(t, p))
		return 0;
	f = &t->opts->named.fn[missing];
	if (attach__named_known(p->attach, missing))
		return say(0, "%s '%s': %s is %s's, which tracelloc traces already as that; %s "
			   "names a function of the program's own (a pool's, an arena's)",
			   named__option(f->kind), f->spec, f->symbol,
			   attach__named_known(p->attach, missing), named__option(f->kind));
	return say(0, "%s '%s': pid %d has no function %s%s%s", named__option(f->kind), f->spec,
		   proc_pid(p), f->symbol, f->lib ? " in an object named " : "",
		   f->lib ? f->lib : "");
}

/* what each process's probes are asked for */
void traced_attach_options(const struct traced *t, struct attach_opts *aopts)
{
	*aopts = (struct attach_opts){ .probe_at_symbol = t->opts->probe_at_symbol,
				       .no_mmap = t->opts->no_mmap,
				       .hold_at_exit = t->opts->leak_check,
				       .closer = t->closer, .named = &t->opts->named };
}

static int find_allocator(struct traced *t, struct proc *p)
{
	struct attach_opts aopts;
	pid_t pid = proc_pid(p);
	char why[512];
	int err;

	traced_attach_options(t, &aopts);
	p->attach = attach__new(tracer__skel(t->tracer), pid, &aopts);
	if (!p->attach)
		return say(-ENOMEM, "cannot attach");
	err = attach__find(p->attach);
	if (err && found_by_name(t, p))
		return err;	/* not told: let go */
	/* a process that has just exited maps nothing: say that, not "no allocator" */
	if (err == -ESRCH || (err && traced_proc_gone(p)))
		return say(0, "pid %d exited while attaching", pid);
	if (err) {
		attach__verdict(p->attach, pid, err, why, sizeof(why));
		return say(0, "%s", why);
	}
	return named_found(t, p);
}

/* --comm: a process found by name that cannot be traced is left out */
static void drop_proc(struct traced *t, struct proc *p)
{
	attach__destroy(p->attach);
	p->attach = NULL;
	target__destroy(p->target);
	p->target = NULL;
	p->live = false;
	if (t->first == p)
		t->first = NULL;
}

int traced__find_allocators(struct traced *t)
{
	struct proc *p;
	size_t i;
	int err;

	for (i = 0; i < MAX_PROCS; i++) {
		p = &t->procs[i];
		if (!p->live)
			continue;
		err = find_allocator(t, p);
		if (!err)
			continue;
		/* asked for by pid or by command: the trace cannot be what was asked */
		if (!found_by_name(t, p))
			return err;
		drop_proc(t, p);
	}
	/* the slots in order, the first one first */
	for (i = 0; i < MAX_PROCS && !t->first; i++)
		if (t->procs[i].live)
			t->first = &t->procs[i];
	if (t->first && t->first != &t->procs[0]) {
		t->procs[0] = *t->first;
		memset(t->first, 0, sizeof(*t->first));
		t->first = &t->procs[0];
	}
	return 0;
}

/*
 * The system-call tracepoints, for a process whose mappings no probe of its
 * libc sees: every system call of every process on the host pays for them
 * while they are attached, so only then, and the user is told.
 */
static void watch_system_calls(struct traced *t, struct proc *p)
{
	int err = tracer__watch_system_calls(t->tracer);

	if (err < 0)
		fprintf(stderr, "tracelloc: pid %d: cannot trace its mappings at the system calls "
			"(%s): its mmap'd memory is not counted\n", proc_pid(p), strerror(-err));
	else if (err > 0)
		fprintf(stderr, "tracelloc: pid %d makes its mmap calls where no probe sees them "
			"(%s): they are traced at the system calls, which every process on this "
			"host pays for while tracelloc runs (about 1.2x on a system call; --no-mmap "
			"goes without)\n", proc_pid(p),
			attach__maps_unseen(p->attach));
}

/* the program's mappings made by the loader (a dlopen'ed library's .bss)
 * are its own: where its code is now; and where its mappings are seen.
 * Not before its libraries are mapped (settled): a dynamic program just
 * exec'd has no libc yet, and is no static executable for that. */
/* CPython: its frames are named by the process's symbolizer, from the
 * time both the process's records are read and its interpreter is found */
static void set_python(struct traced *t, struct proc *p)
{
	struct symbolizer *sym = proc_symbolizer(t, p);
	struct attach_python py;

	if (p->attach && sym && !attach__python(p->attach, &py) &&
	    !symbolizer__set_python(sym, py.layout, py.eval_start, py.eval_end))
		events__set_python(recording__events(t->rec), slot_of(t, p), sym);
	if (p->attach)
		events__set_go_heap(recording__events(t->rec), slot_of(t, p),
				    attach__go_heap(p->attach));
}

void traced_set_loader(struct traced *t, struct proc *p, bool settled)
{
	if (!attach__set_state(p->attach, bpf_state(t, p)) && !t->opts->no_mmap && settled)
		watch_system_calls(t, p);
	set_python(t, p);
}

void traced_tell_new_probes(struct proc *p)
{
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "tracelloc: pid %d: probing as well: ", proc_pid(p));
	attach__describe_new(p->attach, prefix, stderr);
}

/* an allocator library loaded since (dlopen): probed as soon as ld.so says so */
static void refresh_probes(struct traced *t, struct proc *p)
{
	uint32_t gen = maps_gen(t, p);

	if (gen == p->probes_gen)
		return;
	p->probes_gen = gen;
	/* a library that cannot be probed stays so; the others are */
	attach__refresh(p->attach);
	traced_set_loader(t, p, !p->exec_unsettled);
	traced_tell_new_probes(p);
}

/* tables for libraries mapped since the last look: at once after ld.so
 * says the maps change, and on every tick for the rest ([uprobes], mmap) */
void traced_refresh_unwinder(struct traced *t, struct proc *p, bool always)
{
	uint32_t gen = maps_gen(t, p);

	if (!tracer__unwinder(t->tracer) || (!always && gen == p->unwinder_gen))
		return;
	p->unwinder_gen = gen;
	unwinder__refresh(tracer__unwinder(t->tracer), slot_of(t, p));
}

/*
 * The process's records are read from now on, under a new number when
 * there are several: its symbolizer (its files opened now, as they may be
 * gone when its stacks are named) and its slot in events. Negative errno.
 */
/* p's name and symbolizer (a new one, or share: its parent's, for a fork's
 * child whose files are its parent's); reserved: the number of a fork's
 * child, given when its parent forked */
int traced_name_proc(struct traced *t, struct proc *p, uint32_t reserved, struct symbolizer *share)
{
	struct symbolizer *sym = share ? symbolizer__get(share) : symbolizer__new(proc_pid(p));
	char comm[32];
	int idx;

	if (!sym)
		return -ENOMEM;
	p->sym_shared = share != NULL;
	if (!share) {
		symbolizer__set_generation(sym, &bpf_state(t, p)->maps_gen);
		symbolizer__refresh(sym);
	}
	if (!t->several) {
		symbolizer__destroy(p->symbolizer);
		p->symbolizer = sym;
		events__set_slot(recording__events(t->rec), slot_of(t, p), 0, 0, sym);
		set_python(t, p);
		return 0;
	}
	procfs__comm(proc_pid(p), comm, sizeof(comm));
	/* a fork's child was numbered when its parent forked */
	if (reserved)
		idx = processes__set(recording__processes(t->rec), reserved, proc_pid(p), comm, sym) ?: (int)reserved;
	else
		idx = processes__add(recording__processes(t->rec), proc_pid(p), comm, sym);
	if (idx < 0)
		return idx;
	p->idx = idx;
	events__set_slot(recording__events(t->rec), slot_of(t, p), PROC_TAG(idx), PROCESS_FRAME(idx),
			 share ? NULL : sym);
	set_python(t, p);
	return 0;
}

/* reads p's maps for its symbolizer; a child that shares its parent's gets
 * one of its own once it maps files of its own (ld.so's count moved) */
void traced_refresh_symbolizer(struct traced *t, struct proc *p)
{
	if (!p->sym_shared) {
		symbolizer__refresh(proc_symbolizer(t, p));
		return;
	}
	if (!bpf_state(t, p)->maps_gen)
		return;
	if (traced_name_proc(t, p, p->idx, NULL))
		fprintf(stderr, "tracelloc: pid %d: cannot start its own symbolizer\n", proc_pid(p));
}

/* the BPF side filters on the process from now on */
int traced_trace_proc(struct traced *t, struct proc *p)
{
	uint32_t pid = proc_pid(p), slot = slot_of(t, p);

	return tracer__trace(t->tracer, pid, slot);
}

/* a slot's process is no longer traced: its probes go, its numbers stay */
void traced_end_proc(struct traced *t, struct proc *p, const char *how)
{
	uint32_t pid = proc_pid(p);

	tracer__untrace(t->tracer, pid);
	/* its frames are named from what it mapped (the pid may come again) */
	if (!p->sym_shared)
		symbolizer__freeze(proc_symbolizer(t, p));
	events__clear_slot(recording__events(t->rec), slot_of(t, p));
	unwinder__remove(tracer__unwinder(t->tracer), slot_of(t, p));
	attach__destroy(p->attach);
	p->attach = NULL;
	if (t->several && !strcmp(how, "exited"))
		recording__process_exited(t->rec, p->idx);
	else if (t->several)
		processes__ended(recording__processes(t->rec), p->idx, how);
	p->live = false;
	p->exec_unsettled = false;
	/* the first keeps its target: its ending and the command's SIGTERM */
	if (p != t->first) {
		unwatch_proc(t, p);
		target__destroy(p->target);
		p->target = NULL;
	}
}

/* p's chain of programs begins with the one it runs now */
int traced_start_programs(struct proc *p)
{
	char exe[1024];

	programs__exe(proc_pid(p), exe, sizeof(exe));
	return programs__start(&p->programs, exe);
}

/* one process's probes, tables and names; 0, or what failed, with *step
 * saying where (a format with the pid) */
static int attach_proc(struct traced *t, struct proc *p, const char **step)
{
	int err;

	*step = "cannot start tracing pid %d";
	err = traced_start_programs(p);
	if (err)
		return err;
	/* a command we started is held at each exec until its new program is
	 * probed; a -p target is not stopped (its parent may be a shell that
	 * would take a stop for the user's ^Z) and is followed as it runs */
	p->hold_exec = t->opts->command && p == t->first && !t->opts->no_follow_exec;
	p->exec_held = p->hold_exec;
	bpf_state(t, p)->hold_exec = p->hold_exec;
	traced_set_loader(t, p, true);
	*step = "cannot start the symbolizer of pid %d";
	err = traced_name_proc(t, p, 0, NULL);
	if (err)
		return err;
	*step = "cannot hand the unwind tables of pid %d to the BPF programs";
	if (tracer__unwinder(t->tracer) &&
	    (err = unwinder__add(tracer__unwinder(t->tracer), slot_of(t, p), proc_pid(p))))
		return err;
	*step = "cannot trace pid %d";
	err = traced_trace_proc(t, p);
	if (err)
		return err;
	/* the first chose the kind of links the programs were loaded for */
	*step = "cannot attach probes to pid %d";
	if (p != t->first && (err = attach__prepare_loaded(p->attach)))
		return err;
	*step = attach_probes_step;
	return attach__attach(p->attach);
}

/*
 * --comm: the processes of that name that started between the first scan
 * of /proc and the exec hook's attach; those that start from then on are
 * held by the hook. Traced as those of the first scan are.
 */
int traced__catch_up_comm(struct traced *t)
{
	const char *step;
	bool before[MAX_PROCS];
	struct proc *p;
	size_t i;
	int err;

	for (i = 0; i < MAX_PROCS; i++)
		before[i] = t->procs[i].live || t->procs[i].target;
	err = open_comm(t);
	if (err)
		return err;
	for (i = 0; i < MAX_PROCS; i++) {
		p = &t->procs[i];
		if (before[i] || !p->live)
			continue;
		/* one that cannot be traced (gone already, no allocator) is let be */
		if (find_allocator(t, p)) {
			drop_proc(t, p);
			continue;
		}
		if (attach_proc(t, p, &step))
			traced_end_proc(t, p, "untraced");
	}
	return 0;
}

int traced__attach(struct traced *t)
{
	const char *step;
	struct proc *p;
	size_t i;
	int err;

	err = tracer__attach_tracepoints(t->tracer);
	if (err)
		return err;
	for (i = 0; i < MAX_PROCS; i++) {
		p = &t->procs[i];
		if (!p->live)
			continue;
		err = attach_proc(t, p, &step);
		if (!err)
			continue;
		if (traced_proc_gone(p) && found_by_name(t, p)) {
			traced_end_proc(t, p, "exited");
			continue;
		}
		if (traced_proc_gone(p))
			return say(0, "pid %d exited while tracelloc attached to it", proc_pid(p));
		if (err == -EINVAL && step == attach_probes_step)
			return say(0, "cannot attach probes to pid %d: the kernel refused them; "
				    "another tracer may hold probes on the same functions (dmesg: "
				    "\"ref_ctr_offset mismatch\")", proc_pid(p));
		return say(err, step, proc_pid(p));
	}
	return 0;
}

/*
 * A stack cut for want of a table may have met code mapped since the
 * module lists were made: V8 maps its embedded builtins a second time,
 * near its JIT code, as node starts. The lists are made again as soon as
 * such cuts are counted, at most every 50 ms, not at the next tick.
 */
static void refresh_on_cuts(struct traced *t)
{
	uint64_t now = clock__now_ns(), cuts;
	size_t i;

	if (!tracer__unwinder(t->tracer) || now - t->cuts_checked_ns < CUTS_CHECK_NS)
		return;
	t->cuts_checked_ns = now;
	cuts = tracer__cut_no_table(t->tracer);
	if (cuts == t->cut_no_table)
		return;
	t->cut_no_table = cuts;
	for (i = 0; i < MAX_PROCS; i++)
		if (t->procs[i].live)
			traced_refresh_unwinder(t, &t->procs[i], true);
}

/* after a read of the rings: new stacks may point into code mapped since the
 * maps were last read (dlopen, JIT): read them again now, while the
 * processes live, at most every 10 ms */
static int after_read(struct traced *t, int err)
{
	struct events *ev = recording__events(t->rec);
	uint32_t nstacks;
	struct proc *p;
	size_t i;

	if (err)
		return err;
	for (i = 0; i < MAX_PROCS; i++) {
		p = &t->procs[i];
		if (!p->live)
			continue;
		/* lost data is never silent */
		if (!p->main_exit_told && events__main_exited(ev) &&
		    attach__per_thread_filter(p->attach)) {
			fprintf(stderr, "tracelloc: the main thread of pid %d exited: with this "
				"kernel's perf-event links the probes stop with it, and what its other "
				"threads do from now on is not traced\n", proc_pid(p));
			p->main_exit_told = true;
		}
		traced_refresh_unwinder(t, p, false);
		/* after an exec the maps are the new program's: not probed here */
		if (!events__exec_pending(ev) && !events__exec_seen(ev))
			refresh_probes(t, p);
	}
	/* a new heap (exec): its stacks are all new */
	if (recording__generation(t->rec) != t->rec_generation) {
		t->rec_generation = recording__generation(t->rec);
		t->stacks_at_refresh = 0;
	}
	nstacks = stacks__count(heap__stacks(recording__heap(t->rec)));
	if (nstacks != t->stacks_at_refresh && clock__now_ns() - t->refreshed_ns >= 10000000ULL) {
		for (i = 0; i < MAX_PROCS; i++)
			if (t->procs[i].live)
				traced_refresh_symbolizer(t, &t->procs[i]);
		t->stacks_at_refresh = nstacks;
		t->refreshed_ns = clock__now_ns();
	}
	refresh_on_cuts(t);
	return 0;
}

/* a process a debugger or strace traces is never stopped (their tracer
 * would see the stop): said once for each met */
static void tell_ptraced(struct traced *t)
{
	char comm[64], name[176];
	bool untraced;
	pid_t pid = tracer__ptraced(t->tracer, &untraced);

	if (!pid || pid == t->ptraced_told)
		return;
	t->ptraced_told = pid;
	/* its name, unless it is gone already */
	procfs__comm(pid, comm, sizeof(comm));
	name[0] = '\0';
	if (strcmp(comm, "?")) {
		strcpy(name, " (");
		text__escape(comm, name + 2, sizeof(name) - 3);
		strcat(name, ")");
	}
	if (!untraced)
		fprintf(stderr, "tracelloc: pid %d%s is traced by a debugger or strace, which would "
			"see tracelloc's stops: it is not stopped, so what it loads or execs is probed "
			"while it runs on (its first calls may be missed, their stacks cut short), and "
			"--leak-check cannot scan it\n", pid, name);
	else
		fprintf(stderr, "tracelloc: pid %d%s started under a debugger or strace, which "
			"would see tracelloc's stop: not traced\n", pid, name);
}

static int consume(struct traced *t)
{
	struct events *ev = recording__events(t->rec);
	int err = after_read(t, events__consume(ev));
	uint64_t gap;
	bool writing;

	gap = events__last_gap_ns(ev, &writing);
	if (t->opts->verbose >= 2 && gap > LATE_READ_NS)
		fprintf(stderr, "tracelloc: the ring buffer went unread for %.2f ms%s\n", gap / 1e6,
			writing ? " while a page or file was written" : "");
	tell_ptraced(t);
	return err;
}

/*
 * Processes that exited: their last records read, then their slots free.
 * A record that needs handling first (a fork, an exec) may stand before
 * a process's last records: then it waits for the next round. true when
 * nothing is left to trace.
 */
bool traced__reap(struct traced *t, char *ending, size_t ending_size)
{
	struct events_pending pend;
	bool done = false;
	struct proc *p;
	size_t i;

	for (i = 0; i < MAX_PROCS; i++) {
		p = &t->procs[i];
		if (!p->live || !p->target || !traced_proc_gone(p))
			continue;
		consume(t);
		if (events__pending(recording__events(t->rec), &pend))
			return false;
		unwatch_proc(t, p);
		done = proc_exited(t, p, ending, ending_size);
	}
	if (t->several)
		recording__retire(t->rec, KEEP_ENDED);
	return done;
}

/* several processes: none is traced any more (ending says so); --comm
 * waits for the next one */
bool traced__nothing_left(struct traced *t, char *ending, size_t ending_size)
{
	size_t i;

	for (i = 0; i < MAX_PROCS; i++)
		if (t->procs[i].live)
			return false;
	if (t->opts->comm)
		return false;
	snprintf(ending, ending_size, "%s%sall traced processes exited", t->first_ending,
		 t->first_ending[0] ? "; " : "");
	return true;
}

/* a process exited: its last records first; true when nothing is left to trace */
static bool proc_exited(struct traced *t, struct proc *p, char *ending, size_t ending_size)
{
	consume(t);
	if (!t->several) {
		target__ending(p->target, ending, ending_size);
		return true;
	}
	if (p == t->first)
		target__ending(p->target, t->first_ending, sizeof(t->first_ending));
	if (p->live)
		traced_end_proc(t, p, "exited");
	return traced__nothing_left(t, ending, ending_size);
}

/* the resident memory of the traced processes, from /proc/PID/status */
uint64_t traced__rss(const struct traced *t)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < MAX_PROCS; i++)
		if (t->procs[i].live)
			total += procfs__rss(proc_pid(&t->procs[i]));
	return total;
}

/* what was traced, for titles and headers: "pid 1234, ./app", "5 processes, ./server" */
void traced__name(const struct traced *t, char *buf, size_t size)
{
	const char *cmd = t->opts->command ? t->opts->command[0] : NULL;

	if (t->several)
		snprintf(buf, size, "%zu processes%s%s",
			 processes__count(recording__processes(t->rec)), cmd ? ", " : "",
			 cmd ? cmd : "");
	else
		snprintf(buf, size, "pid %d%s%s", t->first ? proc_pid(t->first) : 0,
			 cmd ? ", " : "", cmd ? cmd : "");
}

void traced__announce(struct traced *t, FILE *out)
{
	struct proc *p;
	size_t i;

	for (i = 0; i < MAX_PROCS; i++) {
		p = &t->procs[i];
		if (!p->live)
			continue;
		fprintf(out, "tracelloc: attached to pid %d: ", proc_pid(p));
		attach__describe(p->attach, out);
		fprintf(out, ", %d probes\n", attach__probe_count(p->attach));
		if (t->opts->verbose) {
			fprintf(out, "tracelloc: probes attached through %s links\n",
				attach__link_kind(p->attach));
			attach__describe_sites(p->attach, out);
		}
	}
	if (t->opts->comm)
		fprintf(out, "tracelloc: tracing processes called %s, and those that start\n",
			t->opts->comm);
}

/* the loop watches a process's pidfd: its exit */
int traced_watch_proc(struct traced *t, struct proc *p)
{
	if (!t->loop)
		return 0;
	return loop__add(t->loop, target__pidfd(p->target), EPOLLIN, t->on_exit, t->loop_ctx);
}

static void unwatch_proc(struct traced *t, struct proc *p)
{
	if (p->target && t->loop)
		loop__remove(t->loop, target__pidfd(p->target));
}
int traced__open(const struct options *o, struct traced **out)
{
	struct traced *t = calloc(1, sizeof(*t));

	*out = t;
	if (!t)
		return say(-ENOMEM, "cannot start");
	t->opts = o;
	return open_targets(t);
}

void traced__set_rooms(struct traced *t, struct tracer *tracer, struct recording *rec,
		       struct holds *holds, struct closer *closer)
{
	t->tracer = tracer;
	t->rec = rec;
	t->holds = holds;
	t->closer = closer;
}

void traced__close(struct traced *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < MAX_PROCS; i++) {
		symbolizer__destroy(t->procs[i].symbolizer);
		t->procs[i].symbolizer = NULL;
		attach__destroy(t->procs[i].attach);
		t->procs[i].attach = NULL;
	}
}

/* a launched command that never ran is killed */
void traced__destroy(struct traced *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < MAX_PROCS; i++) {
		target__destroy(t->procs[i].target);
		programs__destroy(t->procs[i].programs);
	}
	free(t);
}

bool traced__held(const struct traced *t, pid_t pid)
{
	return holds__has(t->holds, pid);
}

bool traced__several(const struct traced *t)
{
	return t->several;
}

void traced__first(const struct traced *t, bool by_name, pid_t *pid, int *pidfd)
{
	if (!t->first || (!by_name && found_by_name(t, t->first))) {
		*pid = 0;
		*pidfd = -1;
		return;
	}
	*pid = proc_pid(t->first);
	*pidfd = target__pidfd(t->first->target);
}

struct attach *traced__model(const struct traced *t)
{
	return t->first ? t->first->attach : NULL;
}

int traced__resume(struct traced *t)
{
	int err;

	if (!t->opts->command || !t->first)
		return 0;
	err = target__resume(t->first->target);
	return err ? say(err, "cannot resume pid %d", proc_pid(t->first)) : 0;
}

int traced__watch(struct traced *t, struct loop *l, loop_fn fn, void *ctx)
{
	size_t i;
	int err = 0;

	t->loop = l;
	t->on_exit = fn;
	t->loop_ctx = ctx;
	for (i = 0; i < MAX_PROCS && l && !err; i++)
		if (t->procs[i].live)
			err = traced_watch_proc(t, &t->procs[i]);
	return err;
}

int traced__consume(struct traced *t)
{
	return consume(t);
}

int traced__flush(struct traced *t)
{
	return after_read(t, events__flush(recording__events(t->rec)));
}

/* without --follow-forks, a child's allocations are nowhere in the trace:
 * said once, at the first (the summary counts them all) */
void traced_tell_untraced_fork(struct traced *t)
{
	pid_t parent, child;

	if (t->fork_told || !tracer__untraced_fork(t->tracer, &parent, &child))
		return;
	t->fork_told = true;
	fprintf(stderr, "tracelloc: pid %d started a child process, pid %d, which is not traced "
		"(--follow-forks traces children)\n", parent, child);
}

/*
 * -p of a process that has made no allocation call while its child runs:
 * a wrapper shell, or the pid of a parent taken for the worker's. Said
 * once, a second into the trace.
 */
void traced_tell_idle_parent(struct traced *t)
{
	char comm[64], child_comm[64], name[160], child_name[160];
	pid_t pid, child;

	if (t->idle_told || t->several || !t->opts->npids || !t->first || !t->first->live ||
	    heap__stats(recording__heap(t->rec))->alloc_calls ||
	    clock__now_ns() / 1e9 - recording__start_s(t->rec) < 1)
		return;
	pid = proc_pid(t->first);
	child = procfs__first_child(pid);
	if (child <= 0)
		return;
	t->idle_told = true;
	procfs__comm(pid, comm, sizeof(comm));
	procfs__comm(child, child_comm, sizeof(child_comm));
	fprintf(stderr, "tracelloc: pid %d (%s) has made no allocation call since tracing began; "
		"its child pid %d (%s) may be the process meant (-p %d)\n", pid,
		text__escape(comm, name, sizeof(name)), child,
		text__escape(child_comm, child_name, sizeof(child_name)), child);
}

void traced__maps_held(struct traced *t, uint16_t slot, pid_t tid)
{
	struct proc *p = &t->procs[slot < MAX_PROCS ? slot : 0];

	/* tables and probes for what the dlopen mapped, before any of it runs */
	if (p->live) {
		traced_refresh_unwinder(t, p, true);
		refresh_probes(t, p);
	}
	holds__release(t->holds, procfs__tgid(tid));
}

uint32_t traced__idx(const struct traced *t, uint16_t slot)
{
	return t->procs[slot < MAX_PROCS ? slot : 0].idx;
}

pid_t traced__pid(const struct traced *t, uint16_t slot)
{
	return proc_pid(&t->procs[slot < MAX_PROCS ? slot : 0]);
}

pid_t traced__first_pid(const struct traced *t)
{
	return t->first ? proc_pid(t->first) : 0;
}

const char *traced__execs(const struct traced *t)
{
	return !t->several && t->first ? programs__chain(t->first->programs) : NULL;
}

uint64_t traced__untraced(const struct traced *t)
{
	return t->untraced;
}

struct symbolizer *traced__symbolizer(const struct traced *t)
{
	return t->several ? NULL : t->procs[0].symbolizer;
}

pid_t traced__terminate(struct traced *t)
{
	/* a command we started, cut short by --duration or a signal, ends with the trace */
	if (t->opts->command && t->first && target__terminate(t->first->target) > 0)
		return proc_pid(t->first);
	return 0;
}

bool traced__process(const struct traced *t, size_t i, pid_t *pid, uint64_t *tag)
{
	const struct proc *p = i < MAX_PROCS ? &t->procs[i] : NULL;

	if (!p || !p->live || !p->target)
		return false;
	*pid = proc_pid(p);
	*tag = t->several ? PROC_TAG(p->idx) : 0;
	return true;
}

void traced__exiting(struct traced *t, uint16_t slot, pid_t tid,
		     void (*check)(void *ctx, pid_t pid, uint64_t tag), void *ctx)
{
	struct proc *p = &t->procs[slot < MAX_PROCS ? slot : 0];
	pid_t pid = procfs__tgid(tid);
	uint64_t tag;

	/* stopped at exit by the BPF side: scanned while its memory is whole */
	if (check && p->live && p->target && proc_pid(p) == pid &&
	    !target__wait_stopped(p->target) && traced__process(t, slot_of(t, p), &pid, &tag))
		check(ctx, pid, tag);
	holds__release_last(t->holds, pid);
}
