/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_FORKS_H
#define TRACELLOC_FORKS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Forks in two halves. A fork comes as two records: the parent's, at its
 * fork's return (in its order: what it held then, the child holds), and the
 * child's, at its first return to user space, where it waits stopped. They
 * come in either order; the first is kept until the other comes, or until
 * it is too old (a record lost). A child whose pair is complete may also
 * wait here for a free slot.
 */
struct forks;

/* a record of either half */
struct fork_record {
	bool parent;		/* the parent's half, else the child's */
	uint16_t slot;		/* the parent's slot (NO_SLOT: a program of --comm's name) */
	uint32_t child_own;	/* the child's pid in its own namespace: the pair's key */
	pid_t child;		/* as tracelloc sees it (the child's half only) */
	uint32_t flags;		/* FORK_* */
};

/* a child to act on */
struct fork_child {
	uint16_t slot;		/* its parent's */
	pid_t child;
	uint32_t idx;		/* its number, given at the parent's half (0: none) */
	uint32_t flags;
};

enum fork_step {
	FORK_KEPT,		/* the first half: kept until the other comes */
	FORK_PAIRED,		/* the other half came: the child goes on */
	FORK_NO_ROOM,		/* no room to keep it: the child goes on untraced */
};

/* when a half is too old */
#define FORK_HALF_WAIT_NS 2000000000ULL

/* capacity: how many halves can wait at once; NULL when out of memory */
struct forks *forks__new(size_t capacity);
void forks__destroy(struct forks *f);

/* a record of either half, at now_ns; *child is set for FORK_PAIRED */
enum fork_step forks__half(struct forks *f, const struct fork_record *r, uint64_t now_ns,
			   struct fork_child *child);
/* the child's number, given once the parent's half is kept */
void forks__set_idx(struct forks *f, const struct fork_record *r, uint32_t idx);

/* a child that waits for a slot; false when no more can wait */
bool forks__wait_slot(struct forks *f, const struct fork_child *c, uint64_t now_ns);
/* the next child that waits for a slot, out of the table; false for none */
bool forks__take_waiting(struct forks *f, struct fork_child *c);

enum fork_expiry {
	FORK_NO_SLOT,		/* it waited for a slot in vain: let it go */
	FORK_NO_PARENT,		/* the parent's half never came: take it all the same */
	FORK_NO_CHILD,		/* the child never came: its copy of the heap goes */
};

/* the next half too old at now_ns, out of the table; false for none */
bool forks__expire(struct forks *f, uint64_t now_ns, struct fork_child *c,
		   enum fork_expiry *why);

#endif
