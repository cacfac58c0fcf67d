// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "say.h"
#include "text.h"

/* a word longer than this (a name given on the command line, a path) is
 * shown by its ends */
#define SAY_WORD_MAX 160
#define SAY_WORD_TAIL 24

/* msg on one line: what it quotes may hold control characters (a name in
 * an option, a file a traced program named) or run for pages */
static void put_line(FILE *out, const char *msg)
{
	size_t len = strlen(msg), n;
	char *esc = malloc(4 * len + 1);
	const char *p;

	if (!esc) {
		fputs("(a message too long to show)", out);
		return;
	}
	text__escape(msg, esc, 4 * len + 1);
	for (p = esc; *p; p += n) {
		n = strcspn(p, " ");
		if (n > SAY_WORD_MAX) {
			fwrite(p, 1, SAY_WORD_MAX - SAY_WORD_TAIL, out);
			fprintf(out, "[... %zu more bytes ...]", n - SAY_WORD_MAX);
			fwrite(p + n - SAY_WORD_TAIL, 1, SAY_WORD_TAIL, out);
		} else {
			fwrite(p, 1, n, out);
		}
		while (p[n] == ' ')
			fputc(p[n++], out);
	}
	free(esc);
}

void say__v(const char *fmt, va_list ap)
{
	char *msg = NULL;

	fputs("tracelloc: ", stderr);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	put_line(stderr, msg ? msg : fmt);
	free(msg);
}

int say(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say__v(fmt, ap);
	va_end(ap);
	if (err)
		fprintf(stderr, ": %s", strerror(-err));
	fputc('\n', stderr);
	return 1;
}
