/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_METRICS_H
#define TRACELLOC_METRICS_H

#include <stdint.h>
#include <stdio.h>

#include "heap.h"
#include "exits.h"
#include "report.h"

/* What /metrics shows: the summary's numbers while tracing. */
struct metrics {
	int pid;
	double traced_s;
	struct heap_stats stats;
	struct loss loss;
	uint32_t stacks;		/* distinct call stacks */
	double alloc_calls_per_s;	/* over the last tick */
	double alloc_bytes_per_s;
	uint64_t sample_bytes;		/* 0: exact numbers */
	/* --leak-check: the last check of each process, summed (LEAK__COUNT classes) */
	bool leak_check;
	unsigned int leak_checks;
	uint64_t leak_bytes[4], leak_blocks[4];
	/* --alloc-fn and the rest: the named allocators' own memory */
	bool named;
	uint64_t own_bytes, own_count;
	/* several: the processes that exited, by command */
	const struct exit_row *exit_rows;
	size_t nexit_rows;
	uint64_t untraced_processes;	/* left out: no slot or number for them */
};

/* Prometheus' text exposition format (version 0.0.4) */
int metrics__write(FILE *out, const struct metrics *m);

#endif
