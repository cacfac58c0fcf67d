// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "forks.h"

struct half {
	bool used;
	bool parent_seen;	/* else the child's record came first */
	bool complete;		/* both came: the child waits for a free slot */
	struct fork_child c;
	uint32_t child_own;
	uint64_t since_ns;
};

struct forks {
	size_t capacity;
	struct half halves[];
};

struct forks *forks__new(size_t capacity)
{
	struct forks *f = calloc(1, sizeof(*f) + capacity * sizeof(f->halves[0]));

	if (f)
		f->capacity = capacity;
	return f;
}

void forks__destroy(struct forks *f)
{
	free(f);
}

/* the kept half that r completes */
static struct half *other_half(struct forks *f, const struct fork_record *r)
{
	size_t i;

	for (i = 0; i < f->capacity; i++) {
		struct half *h = &f->halves[i];

		if (h->used && !h->complete && h->c.slot == r->slot &&
		    h->child_own == r->child_own && h->parent_seen != r->parent)
			return h;
	}
	return NULL;
}

static struct half *free_half(struct forks *f)
{
	size_t i;

	for (i = 0; i < f->capacity; i++)
		if (!f->halves[i].used)
			return &f->halves[i];
	return NULL;
}

enum fork_step forks__half(struct forks *f, const struct fork_record *r, uint64_t now_ns,
			   struct fork_child *child)
{
	struct half *h = other_half(f, r);

	if (h) {
		if (!r->parent)
			h->c.child = r->child;
		h->used = false;
		*child = h->c;
		return FORK_PAIRED;
	}
	h = free_half(f);
	if (!h)
		return FORK_NO_ROOM;
	*h = (struct half){
		.used = true,
		.parent_seen = r->parent,
		.c = { .slot = r->slot, .child = r->child, .flags = r->flags },
		.child_own = r->child_own,
		.since_ns = now_ns,
	};
	return FORK_KEPT;
}

void forks__set_idx(struct forks *f, const struct fork_record *r, uint32_t idx)
{
	size_t i;

	for (i = 0; i < f->capacity; i++) {
		struct half *h = &f->halves[i];

		if (h->used && !h->complete && h->parent_seen && h->c.slot == r->slot &&
		    h->child_own == r->child_own) {
			h->c.idx = idx;
			return;
		}
	}
}

bool forks__wait_slot(struct forks *f, const struct fork_child *c, uint64_t now_ns)
{
	struct half *h = free_half(f);

	if (!h)
		return false;
	*h = (struct half){ .used = true, .complete = true, .c = *c, .since_ns = now_ns };
	return true;
}

bool forks__take_waiting(struct forks *f, struct fork_child *c)
{
	size_t i;

	for (i = 0; i < f->capacity; i++) {
		struct half *h = &f->halves[i];

		if (h->used && h->complete) {
			h->used = false;
			*c = h->c;
			return true;
		}
	}
	return false;
}

bool forks__expire(struct forks *f, uint64_t now_ns, struct fork_child *c,
		   enum fork_expiry *why)
{
	size_t i;

	for (i = 0; i < f->capacity; i++) {
		struct half *h = &f->halves[i];

		if (!h->used || now_ns - h->since_ns < FORK_HALF_WAIT_NS)
			continue;
		h->used = false;
		*c = h->c;
		*why = h->complete ? FORK_NO_SLOT : h->parent_seen ? FORK_NO_CHILD : FORK_NO_PARENT;
		return true;
	}
	return false;
}
