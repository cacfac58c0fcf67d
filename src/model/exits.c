// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "exits.h"

struct exits {
	struct exit_row *rows;
	size_t count, cap;
	bool sorted;
};

struct exits *exits__new(void)
{
	return calloc(1, sizeof(struct exits));
}

void exits__destroy(struct exits *e)
{
	if (!e)
		return;
	free(e->rows);
	free(e);
}

static struct exit_row *row_of(struct exits *e, const char *comm)
{
	size_t i;

	for (i = 0; i < e->count; i++)
		if (!strcmp(e->rows[i].comm, comm))
			return &e->rows[i];
	/* the last place is kept for the rest */
	if (e->count + 1 >= EXITS_MAX_COMMANDS && strcmp(comm, EXITS_OTHER))
		return row_of(e, EXITS_OTHER);
	if (ARRAY_RESERVE(e->rows, &e->cap, e->count + 1, 8))
		return NULL;
	memset(&e->rows[e->count], 0, sizeof(e->rows[0]));
	snprintf(e->rows[e->count].comm, sizeof(e->rows[0].comm), "%s", comm);
	return &e->rows[e->count++];
}

int exits__add(struct exits *e, const char *comm, uint64_t bytes, uint64_t blocks)
{
	struct exit_row *r = row_of(e, comm ? comm : "?");

	if (!r)
		return -ENOMEM;
	r->processes++;
	r->bytes += bytes;
	r->blocks += blocks;
	if (bytes > r->max_bytes)
		r->max_bytes = bytes;
	e->sorted = false;
	return 0;
}

static int by_bytes(const void *a, const void *b)
{
	const struct exit_row *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	if (x->processes != y->processes)
		return x->processes < y->processes ? 1 : -1;
	return strcmp(x->comm, y->comm);
}

const struct exit_row *exits__rows(struct exits *e, size_t *n)
{
	if (!e->sorted && e->count)
		qsort(e->rows, e->count, sizeof(*e->rows), by_bytes);
	e->sorted = true;
	*n = e->count;
	return e->rows;
}

void exits__total(const struct exits *e, struct exit_row *total)
{
	size_t i;

	memset(total, 0, sizeof(*total));
	for (i = 0; i < e->count; i++) {
		total->processes += e->rows[i].processes;
		total->bytes += e->rows[i].bytes;
		total->blocks += e->rows[i].blocks;
		if (e->rows[i].max_bytes > total->max_bytes)
			total->max_bytes = e->rows[i].max_bytes;
	}
}
