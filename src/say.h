/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_SAY_H
#define TRACELLOC_SAY_H

/*
 * One line on stderr, "tracelloc: " and the message, then ": " and
 * strerror(-err) when err is not 0. Returns 1: `return say(err, ...)` from
 * a step that failed.
 */
int say(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
