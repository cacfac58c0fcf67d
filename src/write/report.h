/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_REPORT_H
#define TRACELLOC_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "heap.h"

struct profile;
struct exit_row;

enum report_sort {
	SORT_LIVE_BYTES,
	SORT_ALLOC_CALLS,
	SORT_LIVE_COUNT,
	SORT_GROWTH,		/* steady growth: slope x the share of intervals it grew in */
	SORT_PEAK,		/* live bytes when the heap was at its peak */
	SORT_SHORT_LIVED,	/* frees of blocks that lived shorter than short_lived_ns */
};

struct report_opts {
	int top;		/* entries per section */
	uint64_t min_age_ns;	/* only live blocks at least this old */
	enum report_sort sort;
	bool color;		/* ANSI colors: only for a terminal */
	uint64_t now_ns;	/* CLOCK_MONOTONIC, for ages */
	uint64_t short_lived_ns; /* what short-lived means (the short-lived line) */
	bool sizes;		/* -v: a line of requested sizes per top allocator */
};

/* What the daemon could not see, summed over CPUs. */
struct loss {
	uint64_t lost_allocs;	/* allocation records dropped: ring buffer full */
	uint64_t lost_frees;	/* free/realloc records dropped */
	uint64_t untraced_calls; /* no per-thread state could be created */
	uint64_t sampled_full;	/* sampling: samples whose free cannot be matched */
	/* stacks that end before their outermost frame, by cause */
	uint64_t cut_no_table;
	uint64_t cut_rule;
	uint64_t cut_unreadable;
	uint64_t cut_depth;
	uint64_t untraced_procs;	/* new processes with no room to be held for tracing */
	uint64_t untraced_forks;	/* without --follow-forks: children of traced processes */
	uint64_t ptraced;	/* stops not made: a debugger or strace traces the process */
	uint64_t lost_py;	/* an allocation's Python frames dropped: ring buffer full */
};

struct summary {
	int pid;
	double traced_s;
	const char *ending;	/* "target exited with status 0", "interrupted", ... */
	struct heap_stats stats;
	struct loss loss;
	uint64_t sample_bytes;	/* numbers are estimates from samples */
	const char *execs;	/* the programs exec followed through, or NULL */
	bool several;		/* a run of several processes (--follow-forks, --comm, -p A,B) */
	size_t processes;	/* several: how many were traced */
	uint64_t untraced_processes;	/* left out: every slot was taken */
	double peak_at_s;	/* when the heap peaked (stats.peak_*), from the start */
	/* stacks with an interpreter's frames merged in, and those cut at
	 * PY_MAX_FRAMES Python frames */
	uint64_t py_stacks, py_cut;
	/* --leak-check: the last check of each process, summed (checks: 0 for none) */
	unsigned int leak_checks;
	uint64_t leak_bytes[4], leak_blocks[4];	/* by enum leak_class */
	double leak_stopped_ms;			/* the longest stop of those checks */
	unsigned int leak_snapshots;		/* checks made on a snapshot */
	/* left out of the views by the suppressions (at the last one made) */
	uint64_t suppressed_bytes, suppressed_count;
	size_t suppressed_stacks, suppress_rules;
	/* the program's own allocators (--alloc-fn): what they hold for
	 * themselves, apart from their blocks */
	bool named;
	uint64_t own_bytes, own_count;
	/* the program's big mappings live at the end (src/model/resident.h): how
	 * many, mapped, in memory when last measured; and those of the run
	 * counted whole, their process gone before they were measured */
	uint64_t weighed_count, weighed_mapped, weighed_resident, weighed_whole;
	/* several: the processes that exited, by command (most held first), and
	 * the numbers of ended processes retired into their commands' */
	const struct exit_row *exit_rows;
	size_t nexit_rows;
	uint64_t retired, unmerged;
};

/* "1.5 KiB", "3.25 MiB" */
void report__human_bytes(uint64_t bytes, char *buf, size_t size);
/* one short line while tracing: live now, rates since the previous line */
void report__live_line(FILE *out, double elapsed_s, const struct heap_stats *now,
		       const struct heap_stats *prev, double interval_s, const struct loss *loss);
void report__summary(FILE *out, const struct summary *s);
/* the top allocations (largest live blocks) and the top allocators (stacks) */
/* a leak check (--leak-check) of one process, for report__leaks */
struct leaks;
struct leak_report {
	int pid;
	const char *how;	/* "stopped scan" */
	double stopped_ms;	/* how long the target was stopped */
	double scan_ms;		/* how long the scan took */
	uint64_t suppressed_bytes, suppressed_blocks;	/* left out by the suppressions */
	bool attached_late;	/* -p: blocks from before the attach are unknown */
	const struct leaks *leaks;
};
/* its totals per class, and the stacks that lost the most (o->top), each
 * named from p; negative errno */
int report__leaks(FILE *out, struct profile *p, const struct leak_report *r,
		  const struct report_opts *o);
int report__top(FILE *out, struct profile *p, const struct heap *heap,
		const struct report_opts *opts);

#endif
