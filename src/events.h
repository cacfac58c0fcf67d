/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_EVENTS_H
#define TRACELLOC_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

struct heap;

/* Consumer of the BPF ring buffer: decodes records, in order, into the heap. */
struct events;

struct events *events__new(int ringbuf_map_fd, struct heap *heap);
void events__destroy(struct events *e);

/* an fd that polls readable when records wait */
int events__fd(const struct events *e);
/* handles every record that waits; negative errno */
int events__consume(struct events *e);
/* the target called exec: records after that one are dropped */
bool events__exec_seen(const struct events *e);
/* records the daemon could not make sense of (should stay 0) */
uint64_t events__malformed(const struct events *e);
/* the longest time between two reads of the ring buffer, from the first on:
 * how long a full ring buffer would have had to wait */
uint64_t events__longest_gap_ns(const struct events *e);

#endif
