/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_PROCFS_H
#define TRACELLOC_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* a small /proc file (stat, status, comm) read whole into buf, terminated:
 * its length, or negative errno */
int procfs__read(const char *path, char *buf, size_t size);
/* NSpid of /proc/PATH_PID/status ("self" or a pid): the pid in the
 * innermost namespace, and how many namespaces lie above it; negative
 * errno */
int procfs__nspid(const char *path_pid, int *innermost, unsigned int *depth);
/* whether fn is true of an entry of /proc/PID/FILE, a NUL-separated list
 * (cmdline, environ), in order until it is; of the first 64 KiB */
bool procfs__list_any(pid_t pid, const char *file, bool (*fn)(const char *entry, void *ctx),
		      void *ctx);
/* whether an entry of such a list holds word */
bool procfs__list_has(pid_t pid, const char *file, const char *word);
/* the process's name (/proc/PID/comm, no newline), "?" when it cannot be
 * read; as the process set it: escape it before a terminal sees it */
void procfs__comm(pid_t pid, char *buf, size_t size);
/* the process of thread tid (both as tracelloc sees them), or tid itself
 * when that cannot be read */
pid_t procfs__tgid(pid_t tid);
/* the process's resident memory in bytes (VmRSS); 0 when it is gone */
unsigned long long procfs__rss(pid_t pid);
/* the thread that traces one of the process's threads (ptrace), 0 for none */
pid_t procfs__tracer(pid_t pid);
/* a child process of its main thread (/proc/PID/task/PID/children): the
 * first, or 0 for none */
pid_t procfs__first_child(pid_t pid);

#endif
