/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_TUI_H
#define TRACELLOC_TUI_H

#include <stdbool.h>
#include <stdint.h>

#include "heap.h"
#include "profile.h"
#include "report.h"

/*
 * --tui: a full-screen live view (ncurses) of one profile snapshot per
 * interval: a header, a table of the top stacks and the selected stack
 * whole. It reads its keys from standard input, which the daemon's event
 * loop watches.
 */
struct tui;

/* what the header shows besides the profile's own totals */
struct tui_header {
	const char *target;	/* "pid 1234 (demo)", "5 processes" */
	double traced_s;
	double calls_per_s;
	double bytes_per_s;
	uint64_t lost;		/* records lost, all kinds */
	bool leak_check;	/* --leak-check: the key l, a column of lost bytes */
	const char *leak_line;	/* the last check's totals; NULL: none yet */
	double mark_ago_s;	/* the baseline mark's age; < 0: none */
};

enum tui_action {
	TUI_NONE,
	TUI_REDRAW,		/* the view changed: draw again now */
	TUI_WRITE,		/* w: write the output files now */
	TUI_LEAK_CHECK,		/* l: a leak check now (with --leak-check) */
	TUI_MARK,		/* m: the baseline mark, now */
	TUI_QUIT,		/* q: end the trace, as Ctrl-C */
};

/* -ENOTTY when standard input or output is no terminal; takes the screen */
int tui__new(struct tui **out);
/* gives the screen back */
void tui__destroy(struct tui *t);
/* readable when keys wait */
int tui__fd(const struct tui *t);
/* handles the keys that wait */
enum tui_action tui__keys(struct tui *t);
/* p: the display is paused (tracing goes on) */
bool tui__paused(const struct tui *t);
/* the whole screen from p; heap gives the ages of the oldest blocks */
void tui__draw(struct tui *t, struct profile *p, const struct heap *heap,
	       const struct tui_header *h, uint64_t now_ns);

#endif
