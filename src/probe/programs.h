/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_PROGRAMS_H
#define TRACELLOC_PROGRAMS_H

#include <stddef.h>
#include <sys/types.h>

/*
 * The programs a traced process has run, exec after exec, as its summary
 * says them ("/bin/sh -> /usr/bin/python3.11"), and the line that ends a
 * trace where a new program cannot be traced. Names are escaped here: the
 * traced program chose them.
 */
struct programs;

/* the program pid runs, as /proc/PID/exe names it, escaped ("?" when gone) */
void programs__exe(pid_t pid, char *buf, size_t size);
/* the chain begins afresh at exe (a new process in the slot); makes *pg
 * the first time; 0 or -ENOMEM */
int programs__start(struct programs **pg, const char *exe);
void programs__destroy(struct programs *pg);
/* the process called exec, and now runs exe. A chain too long for its
 * text keeps the first program and the latest, and says how many execs
 * lie between. */
void programs__exec(struct programs *pg, const char *exe);
/* the chain, or NULL before any exec */
const char *programs__chain(const struct programs *pg);
/* the program run now */
const char *programs__latest(const struct programs *pg);
/* why the latest program cannot be traced (err from attach__find, or
 * another negative errno; culprit: the object defining its malloc), as
 * the line that ends its trace */
void programs__exec_verdict(const struct programs *pg, int err, const char *culprit, char *buf,
			    size_t size);

#endif
