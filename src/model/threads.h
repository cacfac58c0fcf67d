/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_THREADS_H
#define TRACELLOC_THREADS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The names of the target's threads (--per-thread), as the kernel knows
 * them (comm, 15 characters): a thread's allocations are grouped under the
 * name it had when it made them. Threads are grouped by name, not by id:
 * the ids of a pool's threads churn, their names do not. A stack carries
 * its thread as one more frame, outermost, in a range no code address
 * takes (THREAD_FRAME), so the stack table keeps threads apart.
 */
struct threads;

#define THREAD_FRAME_TAG (UINT64_C(0x7ffe) << 48)
#define THREAD_FRAME(name_id) (THREAD_FRAME_TAG | (uint64_t)(name_id))
#define IS_THREAD_FRAME(frame) (((frame) & ~((UINT64_C(1) << 48) - 1)) == THREAD_FRAME_TAG)

struct threads *threads__new(void);
void threads__destroy(struct threads *t);
/* thread tid is called name (not NUL-terminated beyond len); negative errno */
int threads__set_name(struct threads *t, uint32_t tid, const char *name, size_t len);
/* the frame of the thread's name; a thread never named has "[unnamed]" */
uint64_t threads__frame(struct threads *t, uint32_t tid);
/* the name a frame stands for: "thread NAME"; NULL when it is not a thread frame */
const char *threads__label(const struct threads *t, uint64_t frame);
/* the bare name of that thread frame, or NULL */
const char *threads__name(const struct threads *t, uint64_t frame);

#endif
