/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_EXITS_H
#define TRACELLOC_EXITS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The processes that exited while several were traced, by command name:
 * how many, and what they held at their exits. Their blocks have left the
 * live set (a server's exited workers are no memory of it any more); a leak
 * in a worker that lives for one request shows here, ranked by what the
 * exits held, and on its stacks as held at exit (stack_totals.exit_*).
 * Bounded: past EXITS_MAX_COMMANDS names, the rest count as one row.
 */
struct exits;

#define EXITS_MAX_COMMANDS 256
#define EXITS_OTHER "(other commands)"

struct exit_row {
	char comm[24];
	uint64_t processes;	/* that exited */
	uint64_t bytes, blocks;	/* held at their exits, all together */
	uint64_t max_bytes;	/* the most one of them held */
};

struct exits *exits__new(void);
void exits__destroy(struct exits *e);
/* a process of comm exited holding bytes in blocks; -ENOMEM */
int exits__add(struct exits *e, const char *comm, uint64_t bytes, uint64_t blocks);
/* the rows, most bytes held first (the pointer is valid until the next add) */
const struct exit_row *exits__rows(struct exits *e, size_t *n);
/* every row added up */
void exits__total(const struct exits *e, struct exit_row *total);

#endif
