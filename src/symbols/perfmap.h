/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_PERFMAP_H
#define TRACELLOC_PERFMAP_H

#include <stdint.h>
#include <sys/types.h>

/*
 * A JIT's names for the code it generated: its perf map, /tmp/perf-PID.map
 * in the process's root (node --perf-basic-prof, the JVM's agents,
 * LuaJIT), "START SIZE NAME" lines in hex. Read while the process lives,
 * each time it grew. Only a regular file reached by no symlink, owned by
 * the process's user, is read: the process controls its /tmp, and
 * tracelloc is root.
 */
struct perfmap;

/* NULL when out of memory */
struct perfmap *perfmap__new(void);
void perfmap__destroy(struct perfmap *pm);
/* reads the map again if it grew. root_fd: the process's root (O_PATH);
 * pid: the process as tracelloc sees it; own_pid: as it sees itself (the
 * map's name) */
void perfmap__read(struct perfmap *pm, int root_fd, pid_t pid, pid_t own_pid);
/* the JIT's name of addr, or NULL (of code made again at one place, the
 * latest line's); valid until the next read */
const char *perfmap__name(const struct perfmap *pm, uint64_t addr);

#endif
