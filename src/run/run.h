/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_RUN_H
#define TRACELLOC_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "http.h"

/*
 * The trace itself: one loop whose sources (the rings, each process's
 * exit, signals, timers, the endpoint, the live view's keys, standard
 * output hanging up) each have a handler, until the processes exit, a
 * signal comes or time is up. The rooms it drives are made by main.
 */
struct options;
struct traced;
struct follow;
struct recording;
struct tracer;
struct checks;
struct console;
struct outputs;

struct run_rooms {
	const struct options *opts;
	struct traced *traced;
	struct follow *follow;
	struct recording *rec;
	struct tracer *tracer;
	struct checks *checks;		/* --leak-check's */
	struct console *console;
	struct outputs *outputs;	/* may be NULL until tracing */
	struct http *http;		/* --listen, else NULL */
	int signal_fd;			/* SIGINT, SIGTERM, SIGHUP, SIGUSR1 */
	bool tracing;			/* in run__trace(): records are read */
};

/* SIGINT, SIGTERM, SIGHUP and SIGUSR1 come through the signal fd, SIGPIPE
 * not at all; negative errno */
int run__block_signals(struct run_rooms *r);
/* --listen: the endpoint listens now (a port in use stops tracelloc
 * before anything is touched); a line and 1 */
int run__listen(struct run_rooms *r);
/* the output files' options; before tracing only the paths are looked at */
struct outputs_opts;
void run__outputs_opts(struct run_rooms *r, struct outputs_opts *oo);

/* until the trace ends: 0, or a line and 1; ending says why it ended */
int run__trace(struct run_rooms *r, char *ending, size_t ending_size);
/* the recording's idle (ctx: the rooms): a writer that takes long must not
 * leave the rings to fill up */
void run__idle(void *rooms);

#endif
