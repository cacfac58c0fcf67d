/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_CHECKS_H
#define TRACELLOC_CHECKS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "leaks.h"
#include "report.h"

/*
 * The leak checks of a run (--leak-check): each traced process's at its
 * exit, and every live one's when asked (SIGUSR1, the live view's key, the
 * end of tracing). A check stops the process (or snapshots it), scans it,
 * takes the suppressed stacks out of its classes, keeps what each stack
 * lost for the outputs, and hands the result to its drawer (the console);
 * what went wrong is said here, in one line.
 */
struct checks;
struct options;
struct profile;
struct recording;
struct traced;
struct tracer;

/* one check, as the drawer gets it (valid during the call) */
struct check_result {
	pid_t pid;
	struct leak_report report;	/* for report__leaks() */
	uint64_t bytes[LEAK__COUNT], blocks[LEAK__COUNT];	/* after the suppressions */
	struct profile *profile;	/* the stacks, to name them; NULL: out of memory */
};

typedef void (*checks_draw_fn)(void *ctx, const struct check_result *r);

struct checks *checks__new(const struct options *o, struct traced *t, struct recording *rec,
			   struct tracer *tracer);
void checks__destroy(struct checks *ch);
void checks__set_drawer(struct checks *ch, checks_draw_fn draw, void *ctx);

/* every live process not checked at its exit already */
void checks__all(struct checks *ch);
/* a process at its exit (follow__on_exit's hook, ctx: the checks) */
void checks__at_exit(void *ctx, pid_t pid, uint64_t tag);

/* each process's last check, summed */
struct checks_totals {
	unsigned int checks, snapshots;
	uint64_t bytes[LEAK__COUNT], blocks[LEAK__COUNT];
	double max_stopped_ms;		/* the longest stop */
};
void checks__totals(const struct checks *ch, struct checks_totals *t);
/* a check found a block definitely or indirectly lost */
bool checks__found_lost(const struct checks *ch);

#endif
