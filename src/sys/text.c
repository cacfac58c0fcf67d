// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "text.h"

/* the length of the valid, printable UTF-8 sequence at s, or 0 */
static size_t printable_at(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t len, i;
	uint32_t cp;

	if (c >= 0x20 && c < 0x7f)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07;
	else
		return 0;	/* C0 controls, DEL, continuation bytes, 0xf5 and up */
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, past U+10FFFF, and the C1 controls */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return len;
}

static const char hex[] = "0123456789abcdef";

/* calls emit(ctx, piece, len) for each piece of s, escaped */
static void escape(const char *s, void (*emit)(void *ctx, const char *piece, size_t len),
		   void *ctx)
{
	const unsigned char *at = (const unsigned char *)s;
	char esc[4] = { '\\', 'x' };
	size_t n;

	while (*at) {
		n = printable_at(at);
		if (n) {
			emit(ctx, (const char *)at, n);
			at += n;
			continue;
		}
		esc[2] = hex[*at >> 4];
		esc[3] = hex[*at & 0xf];
		emit(ctx, esc, sizeof(esc));
		at++;
	}
}

static void emit_file(void *ctx, const char *piece, size_t len)
{
	fwrite(piece, 1, len, ctx);
}

void text__put(FILE *out, const char *s)
{
	if (s)
		escape(s, emit_file, out);
}

struct buf {
	char *at;
	size_t left;	/* room, its terminating NUL excluded */
	bool full;
};

static void emit_buf(void *ctx, const char *piece, size_t len)
{
	struct buf *b = ctx;

	/* a piece is whole or not there: no half of a character or an escape */
	if (b->full || len > b->left) {
		b->full = true;
		return;
	}
	memcpy(b->at, piece, len);
	b->at += len;
	b->left -= len;
}

char *text__escape(const char *s, char *buf, size_t size)
{
	struct buf b = { .at = buf, .left = size ? size - 1 : 0 };

	if (!size)
		return buf;
	if (s)
		escape(s, emit_buf, &b);
	*b.at = '\0';
	return buf;
}
