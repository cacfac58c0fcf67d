/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_CONSOLE_H
#define TRACELLOC_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "tui.h"

/*
 * What the terminal shows: the announcements, the live line and periodic
 * report (or the live view, --tui), the last report, the summary and -v's
 * costs. Reports go to report_out: stdout, or stderr when an output file
 * is written to standard output.
 */
struct console;
struct options;
struct traced;
struct recording;
struct tracer;
struct http;

struct checks;

/* NULL when out of memory; http and checks may be NULL. It draws what the
 * leak checks (checks.h) find */
struct console *console__new(const struct options *o, struct traced *t, struct recording *rec,
			     struct tracer *tracer, struct http *http, struct checks *checks,
			     FILE *report_out);
void console__destroy(struct console *c);

/* "attached to pid N: ..." and what is served */
void console__announce(struct console *c);
/* --tui: the live view from now on; negative errno */
int console__start_tui(struct console *c);
/* the live view's keys (-1: none) */
int console__keys_fd(const struct console *c);
enum tui_action console__keys(struct console *c);
/* the live view as of now; while it is paused, only when forced (a key) */
void console__draw(struct console *c, bool force);
/* a tick of the interval: the live line and the report (or the live view);
 * false with the ending when the report's reader has gone */
bool console__tick(struct console *c, uint64_t intervals, char *ending, size_t ending_size);
/* the end, first: the live view gone, the last report */
void console__last_report(struct console *c);
/* then (after the last leak checks): the summary (ending: why the trace
 * ended), -v's costs, the command started told to end */
void console__summary(struct console *c, const char *ending);

/* the baseline mark was set: said, unless over the TUI */
void console__marked(struct console *c);

/* "standard output closed": fd has hung up */
void console__stream_closed(int fd, char *ending, size_t ending_size);

#endif
