/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_PROCESSES_H
#define TRACELLOC_PROCESSES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "symbolize.h"

/*
 * The processes of a run that traces several (--follow-forks, --comm, -p
 * with several pids), numbered from 1 in the order they came; a process that
 * calls exec gets a new number for its new program. One heap holds them all:
 * a block's address and every frame of a stack carry the number in bits
 * 52-62 (PROC_TAG), and every stack ends with its process's frame
 * (PROCESS_FRAME), so that stacks of two processes never merge. This module
 * names those frames and hands each frame to its process's symbolizer.
 */
struct processes;

#define PROC_SHIFT 52
#define PROC_MASK (UINT64_C(0x7ff) << PROC_SHIFT)
/* 0x7ff is no process: THREAD_FRAME and PROCESS_FRAME carry it */
#define PROC_MAX 2046
#define PROC_TAG(idx) ((uint64_t)(idx) << PROC_SHIFT)
#define PROC_OF(x) ((uint32_t)(((uint64_t)(x) & PROC_MASK) >> PROC_SHIFT))

#define PROCESS_FRAME_TAG (UINT64_C(0x7ffd) << 48)
#define PROCESS_FRAME(idx) (PROCESS_FRAME_TAG | (uint64_t)(idx))
#define IS_PROCESS_FRAME(frame) (((frame) & ~((UINT64_C(1) << 48) - 1)) == PROCESS_FRAME_TAG)

struct processes *processes__new(void);
/* destroys the symbolizers too */
void processes__destroy(struct processes *ps);
/* a new process, named after its command (comm): its number (> 0), or
 * -ENOSPC past PROC_MAX, -ENOMEM; ps owns sym from then on, even on error */
int processes__add(struct processes *ps, pid_t pid, const char *comm, struct symbolizer *sym);
/* what is known of process idx now (a fork's child is numbered when its
 * parent forks, and named when it first runs); ps owns sym from then on */
int processes__set(struct processes *ps, uint32_t idx, pid_t pid, const char *comm,
		   struct symbolizer *sym);
/* how a process ended: "exited", "exec" (its program was replaced) */
void processes__ended(struct processes *ps, uint32_t idx, const char *how);
/* the processes of the run: a process counts once however many programs
 * it ran, and a child let go untraced not at all */
size_t processes__count(const struct processes *ps);
/*
 * Numbers are reused: a process that ended long enough ago is retired,
 * its stacks merged into its command's (a keeper: a number whose frames
 * name those of the processes of that command and symbolizer that ended)
 * and its number free for the next process. processes__to_retire: up to
 * max of the oldest that ended, leaving the newest keep; processes__keeper:
 * the keeper for process idx (made at first; -ENOSPC past PROC_KEEPERS, each
 * holding a symbolizer: an exec'd program has its own, so a shell that runs
 * many programs merges the first 64 (commands and symbolizers) only;
 * -ENOENT without a symbolizer); processes__retire: idx is free, counted
 * into keeper's label (0: none).
 */
#define PROC_KEEPERS 64
size_t processes__to_retire(const struct processes *ps, size_t keep, uint32_t *out, size_t max);
int processes__keeper(struct processes *ps, uint32_t idx);
void processes__retire(struct processes *ps, uint32_t idx, uint32_t keeper);
/* the numbers taken now (processes, ended or not, and keepers) */
size_t processes__numbers(const struct processes *ps);
/* process idx goes on under a later number (its exec was followed) */
void processes__superseded(struct processes *ps, uint32_t idx);
pid_t processes__pid(const struct processes *ps, uint32_t idx);
/* NULL for no such process */
const char *processes__comm(const struct processes *ps, uint32_t idx);
/* "exited", "exec", or NULL while it runs */
const char *processes__ending(const struct processes *ps, uint32_t idx);
struct symbolizer *processes__symbolizer(const struct processes *ps, uint32_t idx);
/* the process frame's name, "pid 1234 (nginx)" ("... exited" once it did);
 * NULL when frame is none */
const char *processes__label(const struct processes *ps, uint64_t frame);
/* the process number of a PROCESS_FRAME, 0 for another frame */
uint32_t processes__frame_process(uint64_t frame);
/* a frame of any process, by its process's symbolizer */
const struct sym_location *processes__locate(const struct processes *ps, uint64_t frame);
bool processes__in_module(const struct processes *ps, uint64_t frame);
/* symbolizer__ready() of the frame's process */
bool processes__ready(const struct processes *ps, uint64_t frame);

#endif
