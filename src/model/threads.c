// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"
#include "threads.h"

#define NAME_MAX_LEN 16

struct name {
	char bare[NAME_MAX_LEN];
	char label[NAME_MAX_LEN + 8];	/* "thread " and the name */
};

struct threads {
	struct name *names;		/* by id; 0 is "[unnamed]" */
	uint32_t count;
	uint32_t cap;
	struct table *of_tid;		/* tid -> uint32_t name id */
	struct table *of_name;		/* hash of the name -> uint32_t name id */
};

/* FNV-1a, odd: a table key is never 0 */
static uint64_t hash_name(const char *name, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 0x100000001b3ULL;
	return h | 1;
}

/* a pool of 80,000 threads, each with a name of its own, is found by
 * hash, not by a scan of every name (a scan per record lost records) */
static int add_name(struct threads *t, const char *bare, size_t len, uint32_t *id)
{
	uint64_t key = hash_name(bare, len);
	uint32_t *slot;
	bool existed;

	/* room first: a key in of_name always names an id that exists */
	if (t->count == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 16;
		struct name *grown = realloc(t->names, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		t->names = grown;
		t->cap = cap;
	}
	for (;; key += 2) {	/* a (rare) collision: the next odd key */
		slot = table__upsert(t->of_name, key, &existed);
		if (!slot)
			return -ENOMEM;
		if (!existed)
			break;
		if (strlen(t->names[*slot].bare) == len && !memcmp(t->names[*slot].bare, bare, len)) {
			*id = *slot;
			return 0;
		}
	}
	*slot = t->count;
	memcpy(t->names[t->count].bare, bare, len);
	t->names[t->count].bare[len] = '\0';
	snprintf(t->names[t->count].label, sizeof(t->names[t->count].label), "thread %s",
		 t->names[t->count].bare);
	*id = t->count++;
	return 0;
}

struct threads *threads__new(void)
{
	struct threads *t = calloc(1, sizeof(*t));
	uint32_t id;

	if (!t)
		return NULL;
	t->of_tid = table__new(sizeof(uint32_t));
	t->of_name = table__new(sizeof(uint32_t));
	if (!t->of_tid || !t->of_name || add_name(t, "[unnamed]", 9, &id)) {
		threads__destroy(t);
		return NULL;
	}
	return t;
}

void threads__destroy(struct threads *t)
{
	if (!t)
		return;
	table__destroy(t->of_tid);
	table__destroy(t->of_name);
	free(t->names);
	free(t);
}

int threads__set_name(struct threads *t, uint32_t tid, const char *name, size_t len)
{
	uint32_t *slot, id;
	int err;

	len = strnlen(name, len < NAME_MAX_LEN - 1 ? len : NAME_MAX_LEN - 1);
	err = add_name(t, name, len, &id);
	if (err)
		return err;
	slot = table__upsert(t->of_tid, tid, NULL);
	if (!slot)
		return -ENOMEM;
	*slot = id;
	return 0;
}

uint64_t threads__frame(struct threads *t, uint32_t tid)
{
	const uint32_t *id = table__lookup(t->of_tid, tid);

	return THREAD_FRAME(id ? *id : 0);
}

const char *threads__label(const struct threads *t, uint64_t frame)
{
	uint64_t id = frame & ((UINT64_C(1) << 48) - 1);

	return IS_THREAD_FRAME(frame) && id < t->count ? t->names[id].label : NULL;
}

const char *threads__name(const struct threads *t, uint64_t frame)
{
	uint64_t id = frame & ((UINT64_C(1) << 48) - 1);

	return IS_THREAD_FRAME(frame) && id < t->count ? t->names[id].bare : NULL;
}
