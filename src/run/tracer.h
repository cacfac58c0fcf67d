/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_TRACER_H
#define TRACELLOC_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The BPF object in its stages: opened and set for this run's options,
 * then (once the rings exist) handed the maps made elsewhere, loaded, its
 * tracepoints attached. It owns the skeleton and the unwind tables; the
 * allocator probes themselves are attach.c's, one per process, on this
 * object's programs. The bring-up steps say their line and return 1, as
 * main's steps do; the rest return negative errno.
 */
struct tracer;
struct options;
struct attach;
struct loss;
struct proc_state;
struct unwinder;
struct tracelloc_bpf;

/* the daemon's own malloc: blocks of a MiB and more from mmap (main) */
#define DAEMON_MMAP_THRESHOLD (1 << 20)

/* root, uprobes, ring buffers, task storage: a line and 1 for what is missing */
int tracer__check_system(void);

/*
 * The object opened and set for o: first_pid is the process whose unwind
 * tables are built now (0: none yet), first_pidfd polls readable once it
 * has exited (-1 with none), for the line said when it went; several: the
 * run traces several processes. 0, or a line and 1.
 */
int tracer__open(const struct options *o, pid_t first_pid, int first_pidfd, bool several,
		 struct tracer **out);
/* the number of rings and each one's size, for the reader */
int tracer__ncpus(const struct tracer *t);
size_t tracer__ring_bytes(const struct tracer *t);
/* the rings and the table of held processes are made by their owners; a
 * line and 1 */
int tracer__use_maps(struct tracer *t, int rings_fd, int held_fd);
/* loaded for the kind of links model's kernel offers (NULL: ours), and the
 * unwind tables written; a line and 1 */
int tracer__load(struct tracer *t, struct attach *model, pid_t first_pid, int first_pidfd);
/* exec, exits, signals and (with forks followed) new processes; a line and 1 */
int tracer__attach_tracepoints(struct tracer *t);
/* the system-call programs, for a process whose mappings no probe sees:
 * 1 attached now, 0 attached already, or negative errno */
int tracer__watch_system_calls(struct tracer *t);

/* the BPF side traces pid in slot from now on, or no longer; negative errno */
int tracer__trace(struct tracer *t, pid_t pid, uint32_t slot);
void tracer__untrace(struct tracer *t, pid_t pid);
/* the forks of pid are not followed (0: all are again): a leak check's
 * snapshot, made while its other threads are stopped */
void tracer__ignore_forks(struct tracer *t, pid_t pid);
/* --leak-check: where the threads of pid have their alternate signal
 * stacks (sigaltstack), up to max of them: how many, or negative errno */
int tracer__sig_stacks(struct tracer *t, pid_t pid, uint64_t *sp, size_t max);
/* pid is traced already (by the exec hook of --comm, say) */
bool tracer__traced(const struct tracer *t, pid_t pid);
/* the BPF side's state of a slot */
struct proc_state *tracer__state(struct tracer *t, uint32_t slot);
/* the loss counters, summed over the CPUs */
void tracer__loss(const struct tracer *t, struct loss *loss);
/* without --follow-forks: the last child a traced process started (its
 * parent and it), which is not traced; false for none yet */
bool tracer__untraced_fork(const struct tracer *t, pid_t *parent, pid_t *child);
/* the last process a stop was not made for, as a debugger or strace
 * traces it (0: none yet); untraced: it runs on untraced for that */
pid_t tracer__ptraced(const struct tracer *t, bool *untraced);
/* stacks cut so far where no table covered a frame (loss.cut_no_table) */
uint64_t tracer__cut_no_table(const struct tracer *t);
/* NULL when stacks are walked by frame pointers only */
struct unwinder *tracer__unwinder(const struct tracer *t);
/* for attach.c, which attaches the object's programs */
struct tracelloc_bpf *tracer__skel(const struct tracer *t);
/* unwind tables and programs, links included */
void tracer__destroy(struct tracer *t);

#endif
