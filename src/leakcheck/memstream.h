/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_MEMSTREAM_H
#define TRACELLOC_MEMSTREAM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

/*
 * A snapshot's memory, streamed to us by the snapshot itself: it vmsplices
 * the ranges we ask for into a pipe whose read end we hold. Reading
 * /proc/PID/mem copies every page twice, a page at a time, through a page
 * of the kernel's; this copies once, and the copy's own work (taking
 * references to its pages) runs on another CPU beside the scan.
 *
 * The copy runs a loop of ours (60 bytes, in an anonymous mapping it makes
 * for it), never one instruction of the program's, with every signal
 * blocked: read a request from one pipe, splice its ranges into the other,
 * and exit at the first short read or short splice. It dies with us
 * (PTRACE_O_EXITKILL, and our end of its request pipe closes). x86-64 only.
 */
struct memstream;

/* requests of at most this many ranges */
#define MEMSTREAM_MAX_RANGES 255

/* copy: a process stopped, traced by this thread, that is never to run the
 * program's code (a snapshot); sys_ret: the address of a "syscall; ret" in
 * its code. The copy runs the loop from now on, till killed. Negative
 * errno: nothing streamed (the copy may then have run a system call or
 * two of ours, and waits stopped as before) */
int memstream__start(pid_t copy, uint64_t sys_ret, struct memstream **out);
/* the mapping the copy made for the loop: no memory of the program's */
void memstream__scratch(const struct memstream *m, uint64_t *start, uint64_t *end);
/* the pages the pipe holds: what is asked and not taken must fit in them */
size_t memstream__pages(const struct memstream *m);
/* asks for the bytes of r[0..n) (n <= MEMSTREAM_MAX_RANGES), in order,
 * after those asked before; negative errno */
int memstream__ask(struct memstream *m, const struct iovec *r, size_t n);
/* the next len bytes asked for, into buf; negative errno (-ETIMEDOUT: none
 * came for a second; the stream is of no use after an error) */
int memstream__take(struct memstream *m, void *buf, size_t len);
/* our ends closed: the copy's loop ends (killing it is the snapshot's) */
void memstream__destroy(struct memstream *m);

#endif
