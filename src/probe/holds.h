/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_HOLDS_H
#define TRACELLOC_HOLDS_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * The processes the BPF side stops for the daemon (a new child, a program
 * of --comm's name, an exec being probed), in the BPF map `held`
 * (tracelloc_held to the kernel, where another tracelloc finds it), and the
 * guardian: a small process of ours that outlives tracelloc and continues
 * every one of them, whatever ends tracelloc (SIGKILL and the OOM killer
 * included).
 */
struct holds;

/* creates the map and starts the guardian: before anything can be stopped */
int holds__new(struct holds **out);
/* the map's fd, for the BPF object (bpf_map__reuse_fd) */
int holds__map_fd(const struct holds *h);
/* the BPF side stopped pid for the daemon, and it was not let go yet */
bool holds__has(const struct holds *h, pid_t pid);
/* lets pid go: SIGCONT, unless a stop is someone else's too (a parent's
 * SIGSTOP, job control); forgets it either way */
int holds__release(struct holds *h, pid_t pid);
/* as holds__release, but where another tracelloc holds pid too (two
 * --leak-check at one exit) the last of them to let go continues it: one
 * SIGCONT ends both stops, and the other would find the process gone */
int holds__release_last(struct holds *h, pid_t pid);
/* pid (or the process of thread pid) keeps a live map of held processes:
 * it is a tracelloc, whatever its name */
bool holds__of_tracelloc(pid_t pid);
/* nothing more is stopped from now on; every process held is let go */
void holds__release_all(struct holds *h);
/* the guardian is told that all went well, and goes */
void holds__destroy(struct holds *h);


/* decides for one process: 1 to continue it, 0 to leave it (stopped by
 * someone else too), from its /proc status text (exposed for unit tests) */
int holds__should_continue(const char *status, unsigned int how);

#endif
