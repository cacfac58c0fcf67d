// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "folded.h"

/* lines handled between two looks at the clock (profile__idle) */
#define IDLE_LINES 1024

struct folded_line {
	char *stack;
	uint64_t value;
};

/* ';' separates frames and ' ' ends the stack: keep them out of names */
static void put_frame(FILE *out, const char *name)
{
	if (!strpbrk(name, ";\n")) {
		fputs(name, out);
		return;
	}
	for (; *name; name++)
		fputc(*name == ';' ? ':' : *name == '\n' ? ' ' : *name, out);
}

/* outermost first, the frames of one stack; NULL when --include leaves it out */
static char *stack_text(struct profile *p, const struct profile_stack *s, int *err)
{
	const struct shown_frame *frames;
	int n = profile__show(p, s, &frames), i;
	char *text = NULL;
	size_t size = 0;
	FILE *out;

	*err = n < 0 ? n : 0;
	if (n <= 0)
		return NULL;
	out = open_memstream(&text, &size);
	if (!out) {
		*err = -ENOMEM;
		return NULL;
	}
	for (i = n - 1; i >= 0; i--) {
		put_frame(out, frames[i].function);
		/* flamegraph.pl's mark for an inlined frame */
		if (frames[i].inlined)
			fputs("_[i]", out);
		if (i > 0)
			fputc(';', out);
	}
	if (fclose(out)) {
		free(text);
		*err = -ENOMEM;
		return NULL;
	}
	return text;
}

static int by_stack(const void *a, const void *b, void *arg)
{
	return strcmp(((const struct folded_line *)a)->stack, ((const struct folded_line *)b)->stack);
}

static int by_value_desc(const void *a, const void *b, void *arg)
{
	const struct folded_line *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? 1 : -1;
	return strcmp(x->stack, y->stack);
}

int folded__write(FILE *out, struct profile *p, enum metric metric)
{
	struct folded_line *lines = calloc(p->count ? p->count : 1, sizeof(*lines));
	size_t n = 0, merged = 0, i;
	int err = 0;

	if (!lines)
		return -ENOMEM;
	for (i = 0; i < p->count; i++) {
		uint64_t value = profile__value(&p->stacks[i], metric);

		if (!value)
			continue;
		lines[n].stack = stack_text(p, &p->stacks[i], &err);
		if (err)
			goto out;
		if (lines[n].stack)
			lines[n++].value = value;
	}
	/* different return addresses in one function name the same frames */
	err = profile__sort(p, lines, n, sizeof(*lines), by_stack, NULL);
	if (err)
		goto out;
	for (i = 0; i < n; i++) {
		if (i % IDLE_LINES == 0)
			profile__idle(p);
		if (merged && !strcmp(lines[merged - 1].stack, lines[i].stack)) {
			lines[merged - 1].value += lines[i].value;
			free(lines[i].stack);
			continue;
		}
		lines[merged++] = lines[i];
	}
	n = merged;
	err = profile__sort(p, lines, n, sizeof(*lines), by_value_desc, NULL);
	for (i = 0; i < n && !err; i++) {
		if (i % IDLE_LINES == 0)
			profile__idle(p);
		fprintf(out, "%s %" PRIu64 "\n", lines[i].stack, lines[i].value);
	}
	if (!err && ferror(out))
		err = -EIO;
out:
	for (i = 0; i < n; i++) {
		if (i % IDLE_LINES == 0)
			profile__idle(p);
		free(lines[i].stack);
	}
	free(lines);
	return err;
}
