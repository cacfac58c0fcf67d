// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "folded.h"

struct folded_line {
	char *stack;
	uint64_t value;
};

/* ';' separates frames and ' ' ends the stack: keep them out of names */
static void put_frame(FILE *out, const char *name)
{
	for (; *name; name++)
		fputc(*name == ';' ? ':' : *name == '\n' ? ' ' : *name, out);
}

static char *stack_text(const struct profile *p, const struct profile_stack *s)
{
	uint32_t n, i;
	const uint64_t *frames = profile__frames(p, s, &n);
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	if (!out)
		return NULL;
	if (!n)
		fputs("[unknown]", out);
	for (i = n; i > 0; i--) {
		const struct sym_location *loc = profile__locate(p, frames[i - 1]);
		uint32_t j;

		/* concrete function first, then what was inlined into it */
		for (j = loc->nframes; j > 0; j--) {
			put_frame(out, loc->frames[j - 1].function);
			/* flamegraph.pl's mark for an inlined frame */
			if (loc->frames[j - 1].inlined)
				fputs("_[i]", out);
			if (i > 1 || j > 1)
				fputc(';', out);
		}
	}
	if (fclose(out)) {
		free(text);
		return NULL;
	}
	return text;
}

static int by_stack(const void *a, const void *b)
{
	return strcmp(((const struct folded_line *)a)->stack, ((const struct folded_line *)b)->stack);
}

static int by_value_desc(const void *a, const void *b)
{
	const struct folded_line *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? 1 : -1;
	return strcmp(x->stack, y->stack);
}

int folded__write(FILE *out, const struct profile *p, enum metric metric)
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
		lines[n].stack = stack_text(p, &p->stacks[i]);
		if (!lines[n].stack) {
			err = -ENOMEM;
			goto out;
		}
		lines[n++].value = value;
	}
	/* different return addresses in one function name the same frames */
	qsort(lines, n, sizeof(*lines), by_stack);
	for (i = 0; i < n; i++) {
		if (merged && !strcmp(lines[merged - 1].stack, lines[i].stack)) {
			lines[merged - 1].value += lines[i].value;
			free(lines[i].stack);
			continue;
		}
		lines[merged++] = lines[i];
	}
	n = merged;
	qsort(lines, n, sizeof(*lines), by_value_desc);
	for (i = 0; i < n; i++)
		fprintf(out, "%s %" PRIu64 "\n", lines[i].stack, lines[i].value);
	if (ferror(out))
		err = -EIO;
out:
	for (i = 0; i < n; i++)
		free(lines[i].stack);
	free(lines);
	return err;
}
