/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_TEXT_H
#define TRACELLOC_TEXT_H

#include <stddef.h>
#include <stdio.h>

/*
 * Names a traced program controls (its comm, thread names, file names,
 * symbols) on their way to a terminal or a text report: control characters
 * (C0, DEL, C1) and bytes that are not valid UTF-8 are written as \xNN, so
 * that nothing it names can move the cursor, retitle the window, clear the
 * screen or split a line.
 */

/* writes s to out, escaped */
void text__put(FILE *out, const char *s);
/* s escaped into buf (cut short at size, always terminated); returns buf */
char *text__escape(const char *s, char *buf, size_t size);

#endif
