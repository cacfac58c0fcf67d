/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_CGROUPMEM_H
#define TRACELLOC_CGROUPMEM_H

#include <stdint.h>
#include <sys/types.h>

/*
 * The memory a process's cgroup may still charge before it reaches a limit:
 * the least of limit less usage over its cgroup and the cgroups above it
 * (cgroup v2's memory.max and memory.current, or v1's memory controller,
 * memory.limit_in_bytes and memory.usage_in_bytes). *limit: the limit of the
 * level that has the least room. -ENOENT: no level has a limit.
 */
int cgroupmem__headroom(pid_t pid, uint64_t *room, uint64_t *limit);

#endif
