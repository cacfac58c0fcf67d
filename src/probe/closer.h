/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_CLOSER_H
#define TRACELLOC_CLOSER_H

/*
 * Closes descriptors whose close blocks: a BPF link of uprobes waits for
 * the kernel's grace periods as it goes (tens of milliseconds here), and
 * the thread that reads the rings must not wait with it (a traced process
 * that exits, a fork's child done). Its threads close what they are given
 * while tracing goes on; closer__destroy() closes the rest with all of
 * them at once, so that their waits overlap, and returns when every one
 * is closed.
 */
struct closer;

struct closer *closer__new(void);
/* takes fd; c NULL: closed at once */
void closer__add(struct closer *c, int fd);
/* fn(arg) on one of the threads (c NULL: at once), for what closes more
 * than a descriptor (a libbpf link and its perf event) */
void closer__call(struct closer *c, void (*fn)(void *arg), void *arg);
/* every descriptor given is closed on return */
void closer__destroy(struct closer *c);

#endif
