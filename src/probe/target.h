/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_TARGET_H
#define TRACELLOC_TARGET_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The traced process: an existing one (-p), or a command we start. A started
 * command is held under ptrace until its libraries are mapped and the probes
 * are attached, so its very first allocation is seen.
 */
struct target;

/*
 * -ESRCH: no such process; -EPERM: a kernel thread; -EINVAL: ourselves.
 * A thread id is taken as its process.
 */
int target__open(pid_t pid, struct target **out);
/* the user a launched command runs as (its uid, gid, groups, HOME, USER);
 * -ENOENT: no such user */
struct target_user {
	uid_t uid;
	gid_t gid;
	char name[64];
	char home[256];
};
int target__find_user(const char *name, struct target_user *user);
/*
 * Starts argv, as user (NULL: as tracelloc), stopped after exec, and runs it
 * until its libraries are mapped. -ENOENT etc.: exec failed (errno of
 * execvp); -ECHILD: it died before that.
 */
int target__launch_as(char *const argv[], const struct target_user *user, struct target **out);
/* the BPF program stopped the target (SIGSTOP) at an exec or a fork: waits
 * until it is stopped, or in a tracer's stop (holds__release() lets it go) */
int target__wait_stopped(struct target *t);
/* lets a launched target run (no-op for -p) */
int target__resume(struct target *t);
/* the target is gone (after its pidfd polled readable): how it ended, for the summary */
void target__ending(struct target *t, char *buf, size_t size);
/* ends a launched command that is still running (SIGTERM): 1 if it was
 * signalled, 0 if there was nothing to do; -p targets are never touched */
int target__terminate(struct target *t);
/* frees; a launched target that never ran is killed */
void target__destroy(struct target *t);

pid_t target__pid(const struct target *t);
/* polls readable when the process has exited */
int target__pidfd(const struct target *t);

#endif
