/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_SNAPSHOT_H
#define TRACELLOC_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

/*
 * A copy-on-write copy of a process whose threads we hold stopped (ptrace
 * seized and interrupted), made by the process itself: one of its threads
 * runs a clone into a helper that shares its memory, the helper clones
 * the copy and exits, and the thread reaps the helper and is back where it
 * was. The copy never runs: it waits in its first stop, traced by us,
 * until killed. The thread's code is the process's own (a "syscall; ret"
 * and libc's signal-return sequence), chained by signal frames written
 * below its stack pointer, so that each step, and the thread's return to
 * where it was (registers, signal mask, FPU state), happens whether
 * tracelloc lives or not: killed at any moment, the thread goes on as it
 * was, the helper exits, the copy exits when let go (it runs only an exit),
 * and no one is left unreaped. Exit signal 0: no SIGCHLD reaches anyone,
 * and the helper shows in no waitpid(-1) of the program's. x86-64 only.
 */
struct snapshot;

struct snapshot_thread {
	pid_t tid;
	bool job_stopped;		/* stopped by job control, not by us */
	struct user_regs_struct regs;	/* at the stop */
};

/* where the process's own code has the sequences a snapshot chains: looked
 * for before the threads are stopped (reading the code takes ms), checked
 * again once they are */
struct snapshot_code {
	uint64_t sys_ret, sigret;
};

/* 0, or negative errno: none found (snapshot__take looks again and says why) */
int snapshot__find_code(pid_t pid, struct snapshot_code *code);
/* code's addresses in pid still hold the sequences (an exec or an unmap
 * since the search would leave other bytes there, or none) */
bool snapshot__code_valid(pid_t pid, const struct snapshot_code *code);

/* the copy of pid, whose threads t[0..n) are stopped, with code from
 * snapshot__find_code (NULL, or not there any more: looked for again); the thread that made
 * it is let go. Negative errno, and why in one line when it cannot be done
 * (-EOPNOTSUPP: not this way for this process; others: the fork failed).
 * *out, when set (even on failure), is released after the scan: a failed
 * copy leaves the thread waiting in the kernel till then */
int snapshot__take(pid_t pid, const struct snapshot_code *code,
		   const struct snapshot_thread *t, size_t n, void (*quiet)(void *ctx, pid_t pid, bool on), void *ctx,
		   struct snapshot **out, char *why, size_t whylen);
/* the copy's pid, 0 when none was made: its memory is the process's at the stop */
pid_t snapshot__pid(const struct snapshot *s);
/* the "syscall; ret" in its code the copy was made with */
uint64_t snapshot__sys_ret(const struct snapshot *s);
/* the copy killed and reaped; the thread that waits, let go */
void snapshot__release(struct snapshot *s);

#endif
