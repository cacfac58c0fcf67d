/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_RECORDING_H
#define TRACELLOC_RECORDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * What a run records: the rings' reader and the heap it fills, and what
 * the options keep beside it (the growth of each stack, the timeline, the
 * names of threads, the processes' numbers), the filter the views apply,
 * and the allocation rate. An exec (with one process) starts it afresh; a
 * fork copies a process's blocks to its child.
 */
struct recording;
struct options;
struct events;
struct filter;
struct heap;
struct processes;
struct profile;
struct symbolizer;
struct timeline;

/* --exclude, --include and the default filters; a line and 1 for a bad one */
int recording__filter(const struct options *o, struct filter **out);
/* --suppressions' files and the built-in rule, checked before anything is
 * touched: a line (FILE:LINE: why) and 1 for a bad one */
struct suppressions;
int recording__suppressions(const struct options *o, struct suppressions **out);
/* a stack left out by the suppressions (decided at a snapshot that had it) */
bool recording__suppressed(const struct recording *r, uint32_t stack_id);
/* the live bytes and blocks of the stacks decided suppressed so far (at
 * the snapshots taken): what the live line leaves out */
void recording__suppressed_live(const struct recording *r, uint64_t *bytes, uint64_t *count);
/* the rules in effect */
size_t recording__suppress_rules(const struct recording *r);

/* for o; several: the run traces several processes (their numbers are kept
 * here); ncpus rings of ring_bytes each; takes filter. 0, or a line and 1 */
int recording__new(const struct options *o, bool several, int ncpus, size_t ring_bytes,
		   struct filter *filter, struct suppressions *supp, struct recording **out);
void recording__destroy(struct recording *r);

/* the program's big mappings weighed by their pages in memory, those due
 * (all: every one) in the processes traced now (src/model/resident.h) */
struct resident_procs;
struct resident_stats;
void recording__weigh(struct recording *r, const struct resident_procs *procs, bool all);
/* there is a big mapping live to weigh */
bool recording__weighs(const struct recording *r);
/* ms until one is due to be measured, at most `most` */
int recording__weigh_in_ms(const struct recording *r, int most);
const struct resident_stats *recording__resident_stats(const struct recording *r);

struct events *recording__events(const struct recording *r);
struct heap *recording__heap(const struct recording *r);
/* the program's own allocators' memory (--alloc-fn ...), else NULL */
struct pools;
struct pools *recording__pools(const struct recording *r);
/* several processes: their numbers and symbolizers; else NULL */
struct processes *recording__processes(const struct recording *r);
/* --timeline, else NULL */
struct timeline *recording__timeline(const struct recording *r);
/* how many times the heap was started afresh (recording__reset) */
unsigned int recording__generation(const struct recording *r);

/* fn(ctx) while a snapshot is taken or written: the rings are read meanwhile */
void recording__set_idle(struct recording *r, void (*fn)(void *ctx), void *ctx);
/* the model as of now, named by sym with one process; for_writer: files and
 * pages (--allocator-frame), not the report or the TUI. NULL: out of memory */
struct profile *recording__snapshot(struct recording *r, struct symbolizer *sym, bool for_writer);

/* the leak check of process pid: what each stack lost (definitely and
 * indirectly), instead of its earlier check;
 * snapshots carry it (profile_stack.leaked_*). Negative errno */
struct leak_stack;
/* the baseline mark: from now_ns (CLOCK_MONOTONIC) on, the snapshots count
 * each stack's live blocks born since (a new mark replaces the old one) */
void recording__mark(struct recording *r, uint64_t now_ns);
/* 0: no mark */
uint64_t recording__mark_ns(const struct recording *r);
int recording__set_leaked(struct recording *r, pid_t pid, const struct leak_stack *lost, size_t n);

/* one process called exec: its old program's heap and history go; -ENOMEM */
int recording__reset(struct recording *r);
/* several: process idx's blocks go, and it ended as how says */
void recording__drop_process(struct recording *r, uint32_t idx, const char *how);
/* several: process idx exited (its last records read): its blocks leave
 * the live set, held at exit on their stacks and by its command (exits) */
void recording__process_exited(struct recording *r, uint32_t idx);
struct exits;
/* several: the processes that exited, by command; else NULL */
struct exits *recording__exits(const struct recording *r);
/* several: the oldest processes that ended, beyond the newest keep, retire
 * (processes.h): their stacks merge into their command's, their stack ids
 * and numbers are free. Not with --timeline, which keeps stacks by id. The
 * number retired; recording__retired: all so far */
size_t recording__retire(struct recording *r, size_t keep);
uint64_t recording__retired(const struct recording *r);
/* of those, the processes whose stacks were dropped, not merged: no room
 * for another command's frames (PROC_KEEPERS) */
uint64_t recording__unmerged(const struct recording *r);
/* several: process to holds what process from holds now (a fork); negative errno */
int recording__copy_process(struct recording *r, uint32_t from, uint32_t to);

/* tracing begins, or has ended: the times of the summary and the rate */
void recording__begin(struct recording *r);
void recording__stop(struct recording *r);
double recording__start_s(const struct recording *r);
/* from the beginning to the end, or to now while tracing */
double recording__traced_s(const struct recording *r);

/* a tick: growth and timeline sampled (rss_bytes: the processes' resident
 * memory, asked for only when recording__wants_rss), the rate measured */
bool recording__wants_rss(const struct recording *r);
void recording__tick(struct recording *r, uint64_t rss_bytes);
/* --timeline: a point now (the last one, at the end) */
void recording__sample_timeline(struct recording *r, uint64_t rss_bytes);
/* allocations over the last tick */
void recording__rate(const struct recording *r, double *calls_per_s, double *bytes_per_s);

#endif
