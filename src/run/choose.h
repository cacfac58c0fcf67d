/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_CHOOSE_H
#define TRACELLOC_CHOOSE_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * The processes the command line asks for, opened: by pid (-p), by name
 * (--comm: those that run now, at start and once the exec hook is on) and
 * the command tracelloc starts (as --user). Each failure that ends the run
 * says its line here, naming what was asked: which pid, user or command.
 */
struct options;
struct target;

/* -p PID: 0 and *out, or a line and 1 */
int choose__pid(pid_t pid, struct target **out);
/* the command, started and held until its libraries are mapped: 0 and
 * *out, or a line and 1 */
int choose__command(const struct options *o, struct target **out);

/* where --comm's processes go: known() says a pid is traced or held
 * already; take() gets each other one, opened (false: no room, and the
 * target is destroyed and counted by the caller) */
struct choose_sink {
	bool (*known)(void *ctx, pid_t pid);
	bool (*take)(void *ctx, struct target *target);
	void *ctx;
};

/* the processes named comm that run now, ours excepted; one gone meanwhile,
 * or a kernel thread of that name, is passed over: 0, or a line and 1 */
int choose__by_name(const char *comm, const struct choose_sink *sink);
/* pid was found by --comm's name, not asked for by -p: one that exits
 * while tracelloc attaches is let go, not the end of the trace */
bool choose__found_by_name(const struct options *o, pid_t pid);

#endif
