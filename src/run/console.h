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

/* NULL when out of memory; http may be NULL */
struct console *console__new(const struct options *o, struct traced *t, struct recording *rec,
			     struct tracer *tracer, struct http *http, FILE *report_out);
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
/* the end: the live view gone, the last report, the summary (ending: why
 * the trace ended), -v's costs, the command started told to end */
void console__finish(struct console *c, const char *ending);

/* --leak-check: each traced process stopped, scanned and let go, and what it
 * lost printed with the report */
void console__leak_check(struct console *c);
/* --leak-check of a process held at its exit (follow__on_exit's; ctx: the console) */
void console__exit_check(void *ctx, pid_t pid, uint64_t tag);
/* a leak check found a block definitely or indirectly lost (--error-exitcode) */
/* the baseline mark was set: said, unless over the TUI */
void console__marked(struct console *c);
/* the last leak check of each process, summed by class (leaks.h's
 * LEAK__COUNT): how many processes were checked */
unsigned int console__leak_totals(const struct console *c, uint64_t *bytes, uint64_t *blocks);
bool console__found_lost(const struct console *c);

/* "standard output closed": fd has hung up */
void console__stream_closed(int fd, char *ending, size_t ending_size);

#endif
