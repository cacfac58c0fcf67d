// SPDX-License-Identifier: GPL-2.0
/*
 * The processes' lives: a thread's exit, exec, a stop signal for a process
 * held, a fork. What the daemon follows (see src/run/follow.c).
 */
#include "common.bpf.h"

/*
 * The main thread exits while others run on (pthread_exit in main). A
 * perf-event link filters on the memory map of the thread it was made for,
 * and stops with it: the daemon says so.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_thread_exit, struct task_struct *p)
{
	__u64 who = target_who();

	if (!who || !is_main_thread() || !p->signal || !p->signal->live.counter)
		return 0;
	send_ptr_event_flags(EVENT_MAIN_EXIT, who, 0, BPF_RB_FORCE_WAKEUP);
	return 0;
}

/* --comm: a program of that name began (its first instruction is still
 * to run): it stops, and is held until the daemon has probed it */
static __always_inline void started(struct task_struct *p)
{
	struct ptr_event ev = { .type = EVENT_COMM_EXEC };
	__u64 name[THREAD_NAME_LEN / 8] = {};
	__u32 tgid;

	if (bpf_get_current_comm(name, sizeof(name)) || name[0] != comm_name[0] ||
	    name[1] != comm_name[1])
		return;
	tgid = current_id() >> 32;
	if (!tgid || !enter_waiting(tgid))
		return;
	ev.tid = (__u32)current_id();
	ev.ts_ns = bpf_ktime_get_ns();
	ev.addr = tgid;
	if (!send_record(&ev, sizeof(ev), BPF_RB_FORCE_WAKEUP, COUNTER_LOST_FREE))
		leave_waiting(tgid);
}

/*
 * exec replaces the target's program: its heap is gone and its stacks would
 * point into other code. The daemon ends the trace at this record, or
 * follows the new program from it: a new heap, its files probed and their
 * unwind tables built while it waits, stopped.
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct ptr_event ev = { .type = EVENT_EXEC };
	__u64 who = target_who();

	if (!who) {
		if (by_comm)
			started(p);
		return 0;
	}
	ev.slot = WHO_SLOT(who);
	ev.tid = WHO_TID(who);
	/* held or not (a debugger's process is not: hold_current): the
	 * daemon waits for the stop only where there is one */
	ev.addr = proc_of(who)->hold_exec && hold_current();
	ev.ts_ns = bpf_ktime_get_ns();
	send_record(&ev, sizeof(ev), BPF_RB_FORCE_WAKEUP, COUNTER_LOST_FREE);
	return 0;
}

/* the tgid of task as tracelloc sees it (see current_id), 0 when it has none there */
static __always_inline __u32 ns_tgid(struct task_struct *task)
{
	struct upid upid;
	struct pid *pid;
	__u32 level;

	if (!pidns_ino)
		return task->tgid;
	pid = task->group_leader->thread_pid;
	level = pidns_level;
	if (!pid || level > 31 || pid->level < level)
		return 0;
	if (bpf_probe_read_kernel(&upid, sizeof(upid), &pid->numbers[level]))
		return 0;
	return upid.nr;
}

/* 6.13 and later (on_fork needs it, and is loaded only where it is) */
extern int bpf_send_signal_task(struct task_struct *task, int sig, enum pid_type type,
				__u64 value) __ksym __weak;

/*
 * A stop signal for a process we hold that is not our own SIGSTOP (a
 * parent's kill(child, SIGSTOP), a ^Z): that stop is someone else's too,
 * and the daemon must not continue it. Caught here because a SIGSTOP sent
 * while ours is still pending merges with it, and nothing would show later.
 */
SEC("tp_btf/signal_generate")
int BPF_PROG(on_signal, int sig, struct kernel_siginfo *info, struct task_struct *task,
	     int group, int result)
{
	__u32 tgid, zero = 0, *how;
	__u64 *sending;

	if (sig < SIGSTOP || sig > SIGSTOP + 3)
		return 0;
	/* the program's own SIGSTOP (kill, raise: sent by itself) where its
	 * tracer took our stop for it (HELD_OWED_CONT): the SIGCONT the tracer
	 * sent for it went to ours. Sent after the stop is queued (the signal
	 * lock is held here, so the kfunc sends it from an irq_work): it takes
	 * the stop back, or ends it */
	if (follow_forks && sig == SIGSTOP && task->ptrace && (unsigned long)info != 1 &&
	    task->tgid == (__u32)(bpf_get_current_pid_tgid() >> 32) &&
	    bpf_ksym_exists(bpf_send_signal_task)) {
		__u32 owed = ns_tgid(task) | HELD_OWED_CONT;

		if (owed != HELD_OWED_CONT && bpf_map_lookup_elem(&held, &owed) &&
		    !bpf_map_delete_elem(&held, &owed))
			bpf_send_signal_task(task, 18 /* SIGCONT */, PIDTYPE_TGID, 0);
		return 0;
	}
	sending = bpf_map_lookup_elem(&holding, &zero);
	if (sending && *sending && *sending == bpf_get_current_pid_tgid())
		return 0;
	/* a hold of another tracelloc's attached to the same process: a
	 * SIGSTOP a BPF program sent its own process (bpf_send_signal's
	 * SEND_SIG_PRIV, from inside it; ptrace's comes from the debugger).
	 * Taken for someone else's, each of two tracers would leave the
	 * process stopped for the other */
	if (sig == SIGSTOP && (unsigned long)info == 1 /* SEND_SIG_PRIV */ &&
	    task->tgid == (__u32)(bpf_get_current_pid_tgid() >> 32))
		return 0;
	tgid = ns_tgid(task);
	how = tgid ? bpf_map_lookup_elem(&held, &tgid) : NULL;
	if (how)
		*how |= HELD_OTHER_STOP;
	return 0;
}


static __always_inline bool send_fork(__u32 type, __u32 slot, __u32 child, __u32 child_own,
				      __u32 flags)
{
	struct fork_event ev = {
		.type = type,
		.slot = slot,
		.tid = (__u32)current_id(),
		.ts_ns = bpf_ktime_get_ns(),
		.child = child,
		.child_own = child_own,
		.flags = flags,
	};

	return send_record(&ev, sizeof(ev), BPF_RB_FORCE_WAKEUP, COUNTER_LOST_FREE);
}

/*
 * --follow-forks: a new process of a traced one, as the kernel makes it,
 * in its parent (before the parent goes on, so the parent's record comes
 * in the order of its records: what it held then, the child holds; and
 * before the child ever runs). The child stops at its first return to user
 * space, before any of its code runs, and is held until the daemon has
 * probed it: its pages are copies of its parent's, without the parent's
 * breakpoints, and no probe of ours filters on it yet. No system-call
 * tracepoint is needed for this, so the rest of the host pays nothing for it.
 */

/* a leak check's snapshot is being made in this process (its other
 * threads stopped): its clones are the snapshot's, not forks to follow */
volatile __u32 ignore_forks_of = 0;

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 parent_tgid, child_tgid, flags, *slot, disarm = HELD_DISARM, how = 0, zero = 0;
	__u32 waiting = NO_SLOT;
	__u64 *sending;

	if (!follow_forks || !parent || !child || child->tgid == parent->tgid)
		return 0;	/* a thread */
	parent_tgid = ns_tgid(parent);
	if (parent_tgid == ignore_forks_of)
		return 0;
	slot = parent_tgid ? bpf_map_lookup_elem(&traced, &parent_tgid) : NULL;
	if (!slot || *slot >= MAX_PROCS)
		return 0;
	child_tgid = ns_tgid(child);
	if (!child_tgid || bpf_map_lookup_elem(&held, &disarm))
		return 0;
	/* a child a debugger or strace follows (ptrace): our stop would be
	 * theirs to see (hold_current); it runs on untraced, and is said */
	if (child->ptrace) {
		count(COUNTER_PTRACED);
		ptraced[1] = 1;
		ptraced[0] = child_tgid;
		return 0;
	}
	flags = child->mm == parent->mm ? FORK_SHARES_VM : 0;
	if (bpf_map_update_elem(&traced, &child_tgid, &waiting, BPF_NOEXIST)) {
		count(COUNTER_UNTRACED_PROCS);
		return 0;
	}
	if (bpf_map_update_elem(&held, &child_tgid, &how, BPF_ANY)) {
		bpf_map_delete_elem(&traced, &child_tgid);
		count(COUNTER_UNTRACED_PROCS);
		return 0;
	}
	/* the parent's record, then the child's; the pair's key is the child's pid */
	if (!send_fork(EVENT_FORK_PARENT, *slot, 0, child_tgid, flags) ||
	    !send_fork(EVENT_FORK, *slot, child_tgid, child_tgid, flags)) {
		bpf_map_delete_elem(&traced, &child_tgid);
		bpf_map_delete_elem(&held, &child_tgid);
		return 0;
	}
	sending = bpf_map_lookup_elem(&holding, &zero);
	if (sending)
		*sending = bpf_get_current_pid_tgid();
	bpf_send_signal_task(child, SIGSTOP, PIDTYPE_TGID, 0);
	if (sending)
		*sending = 0;
	return 0;
}

/*
 * Without --follow-forks: a traced process's new child runs untraced, and
 * what it allocates is nowhere in the trace (sh -c 'cmd; ...' forks cmd).
 * Counted, and the last one kept, so that the user is told.
 */
volatile __u32 untraced_fork[2] = {};	/* the last: its parent, the child */

SEC("tp_btf/sched_process_fork")
int BPF_PROG(count_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 parent_tgid, *slot;

	if (!parent || !child || child->tgid == parent->tgid)
		return 0;	/* a thread */
	parent_tgid = ns_tgid(parent);
	if (!parent_tgid || parent_tgid == ignore_forks_of)
		return 0;
	slot = bpf_map_lookup_elem(&traced, &parent_tgid);
	if (!slot || *slot >= MAX_PROCS)
		return 0;
	count(COUNTER_UNTRACED_FORKS);
	untraced_fork[0] = parent_tgid;
	untraced_fork[1] = ns_tgid(child);
	return 0;
}

/*
 * --leak-check: the alternate signal stack of each thread of the process
 * the daemon runs it over (a task iterator of one process). A block the
 * program gave sigaltstack() may be held by the kernel alone (rustc's
 * signal handler keeps no pointer to its stack): the scan takes its
 * address for a root.
 * sigaltstack(SS_DISABLE) sets both to 0.
 */
SEC("iter/task")
int sig_stacks(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct sig_stack st;

	if (!task || !task->sas_ss_size)
		return 0;
	st.sp = task->sas_ss_sp;
	st.size = task->sas_ss_size;
	bpf_seq_write(ctx->meta->seq, &st, sizeof(st));
	return 0;
}
