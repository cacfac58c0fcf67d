/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_LEAKCHECK_H
#define TRACELLOC_LEAKCHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "leaks.h"

/*
 * --leak-check on one traced process: every thread stopped (ptrace seize
 * and interrupt), the records sent before the stop read, the registers
 * taken; a copy-on-write snapshot made (snapshot.c) and the process let go
 * at once, or, where no snapshot can be made, the process kept stopped
 * for the scan. The roots found in the maps (the stacks from each thread's
 * stack pointer, the writable data of its objects, the anonymous mappings
 * that hold no block we know, the program's own mappings); every live
 * block of the model at the stop classified (leaks.c).
 * Which of its memory is the allocator's: a mapping that holds live blocks
 * (an arena, the brk heap) is no root; under -p, where blocks from before
 * the attach are unknown, its bytes outside the known blocks are.
 */
struct leakcheck;
struct heap;

struct pools;

struct leakcheck_opts {
	pid_t pid;
	uint64_t tag;		/* the process's number on its blocks (processes.h), 0 with one */
	bool attached_late;	/* -p: blocks from before the attach are unknown */
	/* a copy-on-write snapshot is scanned while the process runs on (not
	 * at its exit, where it waits anyway) */
	bool snapshot;
	/* stopped by tracelloc's own hold (its start, a fork, an exec): a
	 * stopped scan, and said so (not job control's) */
	bool held;
	/* the records sent until the stop, read into the heap; and, while a
	 * snapshot is scanned, those sent since */
	void (*drain)(void *ctx);
	/* the program's own allocators' memory (their slabs), else NULL */
	const struct pools *pools;
	/* the process's forks are not followed (the snapshot's) while on */
	void (*quiet)(void *ctx, pid_t pid, bool on);
	/* where its threads have their alternate signal stacks, which the
	 * kernel holds (roots): how many, up to max, or negative errno */
	int (*sig_stacks)(void *ctx, pid_t pid, uint64_t *sp, size_t max);
	void *ctx;
};

/* the check of o->pid, of heap's blocks; negative errno: -EPERM traced by
 * another tracer, -ESRCH gone */
int leakcheck__run(const struct leakcheck_opts *o, struct heap *heap, struct leakcheck **out);
void leakcheck__destroy(struct leakcheck *c);

/* its blocks, classified (the suppressions may yet take some out) */
struct leaks *leakcheck__leaks(struct leakcheck *c);
/* how long the target was stopped */
double leakcheck__stopped_ms(const struct leakcheck *c);
/* how long the mark and sweep took (after the copy was made, or stopped) */
double leakcheck__scan_ms(const struct leakcheck *c);
/* "snapshot", or "stopped scan" and why no snapshot was made */
const char *leakcheck__how(const struct leakcheck *c);
/* the alternate signal stacks could not be read (negative errno), else 0:
 * a block only the kernel held may have been called lost */
int leakcheck__sig_stacks_err(const struct leakcheck *c);
bool leakcheck__attached_late(const struct leakcheck *c);

#endif
