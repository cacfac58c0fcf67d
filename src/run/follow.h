/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_FOLLOW_H
#define TRACELLOC_FOLLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * What the records that stop the reading ask for: an exec, the two halves
 * of a fork (paired here, in either order, with their expiry), a new
 * program of --comm's name, a dlopen held for its probes; then the
 * processes that wait for a slot, and the exits. The processes themselves
 * are traced.c's.
 */
struct follow;
struct traced;
struct recording;

/* NULL when out of memory */
struct follow *follow__new(struct traced *t, struct recording *rec);
void follow__destroy(struct follow *f);

/* --leak-check: check(ctx, pid, tag) for a process held at its exit */
void follow__on_exit(struct follow *f, void (*check)(void *ctx, pid_t pid, uint64_t tag),
		     void *ctx);

/* after a read: what stopped it is dealt with, and the reading goes on;
 * true when the trace ends there (ending says why) */
bool follow__pending(struct follow *f, char *ending, size_t ending_size);

#endif
