/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_MAPS_H
#define TRACELLOC_MAPS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* One line of /proc/PID/maps. */
struct mapping {
	uint64_t start;
	uint64_t end;
	uint64_t offset;
	uint64_t inode;
	unsigned int dev_major;
	unsigned int dev_minor;
	bool exec;
	bool deleted;		/* the file was unlinked after it was mapped */
	char *path;		/* NULL for anonymous mappings; "[vdso]" etc. kept as is */
};

struct maps {
	struct mapping *mappings;
	size_t count;
};

/*
 * The /proc directory through which the memory of process pid is seen:
 * /proc/PID, or /proc/TID's task directory of a thread that still runs once
 * the main thread has exited (pthread_exit). Negative errno; -ESRCH when no
 * thread runs.
 */
int maps__task_dir(pid_t pid, char *buf, size_t size);
/* reads the maps of pid (through maps__task_dir); negative errno (-ESRCH
 * when the process is gone); none for a zombie */
int maps__read(pid_t pid, struct maps *maps);
/* parses maps text; exposed for unit tests */
int maps__parse(const char *text, struct maps *maps);
void maps__clear(struct maps *maps);
/*
 * now, as what a process's stacks may point into: with the code mappings of
 * before that now overlaps nowhere (unmapped since: V8 unmaps its copy of
 * the builtins as node exits, and stacks recorded before still point there),
 * at most max of them, taken from before (its paths move); and an anonymous
 * mapping that was code before is code still, where a JIT made its pages
 * writable for a while. 0 or -ENOMEM (now unchanged).
 */
int maps__keep_code(struct maps *now, struct maps *before, size_t max);
/* the mapping that holds addr, or NULL */
const struct mapping *maps__find(const struct maps *maps, uint64_t addr);
/* opens the file of a mapping, in the target's mount namespace, never
 * blocking (see safeopen.h): through /proc/PID/map_files/START-END, or by
 * its name inside the root of a live thread once the main thread has
 * exited; and checks that it is the file the maps named (device and inode):
 * an fd, or negative errno (-ESTALE when the range now maps something else) */
int maps__open(pid_t pid, const struct mapping *m);

#endif
