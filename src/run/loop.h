/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_LOOP_H
#define TRACELLOC_LOOP_H

#include <stdint.h>

/*
 * The event loop: one epoll, each source a file descriptor with the handler
 * that reads it. A handler returns LOOP_ON to go on, LOOP_END to end the
 * loop, or a negative errno (the loop ends with it).
 */
struct loop;

enum { LOOP_ON = 0, LOOP_END = 1 };

typedef int (*loop_fn)(void *ctx, int fd);

/* 0 or negative errno */
int loop__new(struct loop **out);
/* closes none of the sources' fds */
void loop__destroy(struct loop *l);

/* fn(ctx, fd) when fd is readable; events 0 for a fd whose errors and
 * hangups alone matter (a pipe whose reader has gone). A source whose fd was
 * closed without loop__remove() is replaced. 0 or negative errno */
int loop__add(struct loop *l, int fd, uint32_t events, loop_fn fn, void *ctx);
/* fd is no longer watched: its handler is not called again, even for an
 * event of the same wait */
void loop__remove(struct loop *l, int fd);

/*
 * Waits up to timeout_ms and calls the handlers of what is ready, in the
 * order the kernel gives them, until one ends the loop; quiet(ctx, -1) when
 * nothing was. Returns LOOP_ON, LOOP_END or the negative errno a handler
 * (or epoll_wait) returned.
 */
int loop__run_once(struct loop *l, int timeout_ms, loop_fn quiet, void *ctx);

#endif
