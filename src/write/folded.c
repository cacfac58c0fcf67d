// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "folded.h"
#include "table.h"

/* lines handled between two looks at the clock (profile__idle) */
#define IDLE_LINES 1024

struct folded_line {
	char *stack;
	uint64_t value;
};

/* a growing text, reused from stack to stack */
struct text {
	char *buf;
	size_t len, cap;
};

static int put(struct text *t, const char *s, size_t n)
{
	if (t->len + n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 4096;
		char *grown;

		while (cap < t->len + n + 1)
			cap *= 2;
		grown = realloc(t->buf, cap);
		if (!grown)
			return -ENOMEM;
		t->buf = grown;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = '\0';
	return 0;
}

/* ';' separates frames and ' ' ends the stack: keep them out of names */
static int put_frame(struct text *t, const char *name)
{
	size_t start = t->len, i;
	int err = put(t, name, strlen(name));

	if (err || !strpbrk(name, ";\n"))
		return err;
	for (i = start; i < t->len; i++)
		if (t->buf[i] == ';' || t->buf[i] == '\n')
			t->buf[i] = t->buf[i] == ';' ? ':' : ' ';
	return 0;
}

/* outermost first, the frames of one stack, into t; 0 frames when
 * --include leaves it out */
static int stack_text(struct profile *p, const struct profile_stack *s, struct text *t)
{
	const struct shown_frame *frames;
	int n = profile__show(p, s, &frames), i, err = 0;

	t->len = 0;
	if (n <= 0)
		return n;
	for (i = n - 1; i >= 0 && !err; i--) {
		err = put_frame(t, frames[i].function);
		/* flamegraph.pl's mark for an inlined frame */
		if (!err && frames[i].inlined)
			err = put(t, "_[i]", 4);
		if (!err && i > 0)
			err = put(t, ";", 1);
	}
	return err ? err : n;
}

/* eight bytes a step: stacks are kilobytes of text */
static uint64_t hash_text(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ n, w;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	for (; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h | 1;	/* keys are never 0 */
}

static int by_value_desc(const void *a, const void *b, void *arg)
{
	const struct folded_line *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? 1 : -1;
	return strcmp(x->stack, y->stack);
}

/*
 * Stacks that read the same (different return addresses in one function)
 * are one line: found by a hash of their text, not by sorting the texts,
 * whose long common beginnings made the sort most of the writer's time.
 */
int folded__write(FILE *out, struct profile *p, enum metric metric)
{
	struct folded_line *lines = calloc(p->count ? p->count : 1, sizeof(*lines));
	struct table *seen = table__new(sizeof(size_t));
	struct text t = {};
	size_t n = 0, i, *slot;
	uint64_t key;
	bool existed;
	int err = 0;

	if (!lines || !seen) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < p->count && !err; i++) {
		uint64_t value = profile__value(&p->stacks[i], metric);

		if (i % IDLE_LINES == 0)
			profile__idle(p);
		if (!value)
			continue;
		err = stack_text(p, &p->stacks[i], &t);
		if (err <= 0)
			continue;
		err = 0;
		/* on a (rare) collision of two texts, the next odd key */
		for (key = hash_text(t.buf, t.len);; key += 2) {
			slot = table__upsert(seen, key, &existed);
			if (!slot) {
				err = -ENOMEM;
				break;
			}
			if (!existed) {
				lines[n].stack = strdup(t.buf);
				if (!lines[n].stack) {
					table__remove(seen, key, NULL);
					err = -ENOMEM;
					break;
				}
				lines[n].value = value;
				*slot = n++;
				break;
			}
			if (!strcmp(lines[*slot].stack, t.buf)) {
				lines[*slot].value += value;
				break;
			}
		}
	}
	if (!err)
		err = profile__sort(p, lines, n, sizeof(*lines), by_value_desc, NULL);
	for (i = 0; i < n && !err; i++) {
		if (i % IDLE_LINES == 0)
			profile__idle(p);
		fputs(lines[i].stack, out);
		fprintf(out, " %" PRIu64 "\n", lines[i].value);
	}
	if (!err && ferror(out))
		err = -EIO;
out:
	for (i = 0; lines && i < n; i++)
		free(lines[i].stack);
	free(lines);
	free(t.buf);
	table__destroy(seen);
	return err;
}
