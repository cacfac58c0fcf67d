/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_SAY_H
#define TRACELLOC_SAY_H

#include <stdarg.h>

/*
 * One line on stderr, "tracelloc: " and the message, then ": " and
 * strerror(-err) when err is not 0. Returns 1: `return say(err, ...)` from
 * a step that failed.
 */
int say(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "tracelloc: " and the message, with no newline. Control characters in it
 * are escaped (\xNN) and a word longer than 160 bytes is shown by its ends:
 * what a message quotes comes from the user or a traced program */
void say__v(const char *fmt, va_list ap);

#endif
