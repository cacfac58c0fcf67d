// SPDX-License-Identifier: GPL-2.0
/* tracelloc: which call stacks of a process hold heap memory, and how much */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "clock.h"
#include "closer.h"
#include "attach.h"
#include "events.h"
#include "filter.h"
#include "forks.h"
#include "growth.h"
#include "heap.h"
#include "holds.h"
#include "http.h"
#include "loop.h"
#include "metrics.h"
#include "options.h"
#include "outputs.h"
#include "pprof.h"
#include "processes.h"
#include "procfs.h"
#include "profile.h"
#include "report.h"
#include "say.h"
#include "symbolize.h"
#include "target.h"
#include "text.h"
#include "threads.h"
#include "timeline.h"
#include "tui.h"
#include "tracelloc.h"
#include "tracelloc.skel.h"
#include "unwinder.h"

/* see main() */
#define MMAP_THRESHOLD (1 << 20)

#define POLL_EVERY_MS 20

/* forks whose halves wait for each other, or for a slot, at once */
#define MAX_FORK_HALVES 64

/* one traced process, in the BPF slot of the same index */
struct proc {
	bool live;			/* the slot is taken */
	uint32_t idx;			/* its number in processes (several); 0 with one */
	struct target *target;
	struct attach *attach;
	struct symbolizer *symbolizer;	/* with one process; else processes own them */
	uint32_t unwinder_gen;		/* maps_gen when its tables were last brought up to date */
	uint32_t probes_gen;		/* maps_gen when its probes were last brought up to date */
	bool main_exit_told;		/* the probes stopped with the main thread, said once */
	char execs[1024];		/* the programs run: "/bin/sh -> /usr/bin/python3.11" */
	int nexecs;			/* execs followed */
	bool execs_cut;			/* execs keeps the first and the latest only */
	bool exec_unsettled;		/* the last one's libraries are not probed yet */
	bool hold_exec;			/* stopped at exec by the BPF side (see follow_exec) */
	bool sym_shared;		/* a fork's child naming frames with its parent's symbolizer */
};

/* everything one run holds; torn down in one place */
struct session {
	struct options opts;
	bool several;			/* --follow-forks, --comm, -p with several pids */
	struct proc procs[MAX_PROCS];
	struct proc *first;		/* what was asked for first: the summary's pid */
	struct tracelloc_bpf *skel;
	struct holds *holds;		/* processes stopped for us, and their guardian */
	struct closer *closer;		/* closes the probes' links off the reading thread */
	struct heap *heap;
	struct events *events;
	struct processes *processes;	/* several: their names and symbolizers */
	struct threads *threads;	/* --per-thread, else NULL */
	struct growth *growth;		/* --sort growth or --tui, else NULL */
	struct tui *tui;		/* --tui, once tracing runs */
	struct timeline *timeline;	/* --timeline, else NULL */
	struct unwinder *unwinder;	/* NULL: frame pointers only */
	uint64_t untraced;		/* processes that came when every slot was taken */
	struct forks *forks;		/* halves of forks, children waiting for a slot */
	bool ended;			/* the first process's ending was read */
	char first_ending[256];
	struct filter *filter;
	struct http *http;
	struct outputs *outputs;	/* once tracing starts */
	struct loop *loop;		/* trace()'s, while it runs */
	int tick_fd, end_fd, snap_fd;	/* its timers, or -1 */
	char *ending;			/* trace()'s: why it ended */
	size_t ending_size;
	struct heap_stats live_line_from; /* the heap at the last live line */
	FILE *report_out;		/* reports, live lines, summary: stderr when an output is stdout */
	int signal_fd;
	double start_s;
	double stopped_s;		/* when tracing stopped (the summary's end), or 0 */
	struct heap_stats last_report;	/* the heap when the last report was printed */
	uint32_t stacks_at_refresh;	/* stacks known when the maps were last read */
	uint64_t refreshed_ns;
	bool reported;
	bool tracing;			/* in trace(): events are read */
	/* allocation rate over the last tick, for /metrics */
	struct heap_stats rate_from;
	uint64_t rate_from_ns;
	double alloc_calls_per_s;
	double alloc_bytes_per_s;
};

static int verbosity;

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && verbosity < 2)
		return 0;
	if (!verbosity)
		return 0;
	return vfprintf(stderr, fmt, ap);
}


static bool has_caps(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {};
	unsigned long long eff;

#define CAP(c) (1ULL << (c))
	if (syscall(SYS_capget, &hdr, data))
		return false;
	eff = data[0].effective | (unsigned long long)data[1].effective << 32;
	if (!(eff & CAP(CAP_SYS_PTRACE)))
		return false;
	return (eff & CAP(CAP_SYS_ADMIN)) ||
	       (eff & (CAP(CAP_BPF) | CAP(CAP_PERFMON) | CAP(CAP_CHECKPOINT_RESTORE))) ==
		       (CAP(CAP_BPF) | CAP(CAP_PERFMON) | CAP(CAP_CHECKPOINT_RESTORE));
}

static int check_system(void)
{
	if (!has_caps())
		return say(0, "needs root (CAP_BPF, CAP_PERFMON, CAP_SYS_PTRACE and CAP_SYS_ADMIN)");
	if (access("/sys/bus/event_source/devices/uprobe/type", R_OK))
		return say(0, "this kernel has no uprobe support (CONFIG_UPROBE_EVENTS)");
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) <= 0)
		return say(0, "this kernel has no BPF ring buffer (needs Linux 5.8 or later)");
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) <= 0)
		return say(0, "this kernel has no BPF task storage (needs Linux 5.11 or later)");
	return 0;
}

static int block_signals(struct session *s)
{
	sigset_t set, blocked;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	/* an ssh session that drops: the trace ends as with SIGTERM */
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	/* a scraper that hangs up mid-page is a failed write, not the end of the trace */
	blocked = set;
	sigaddset(&blocked, SIGPIPE);
	if (sigprocmask(SIG_BLOCK, &blocked, NULL))
		return -errno;
	s->signal_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return s->signal_fd < 0 ? -errno : 0;
}

static const uint64_t *map_frames(void *ctx, uint16_t gen, const uint64_t *frames,
				  uint32_t nframes, uint64_t *buf);

static int watch_proc(struct session *s, struct proc *p);
static void unwatch_proc(struct session *s, struct proc *p);
static bool proc_exited(struct session *s, struct proc *p, char *ending, size_t ending_size);
static bool nothing_left(struct session *s, char *ending, size_t ending_size);

static pid_t proc_pid(const struct proc *p)
{
	return target__pid(p->target);
}

static uint32_t slot_of(const struct session *s, const struct proc *p)
{
	return (uint32_t)(p - s->procs);
}

static struct proc_state *bpf_state(struct session *s, const struct proc *p)
{
	return &s->skel->bss->procs[slot_of(s, p)];
}

/* a free slot, or NULL when MAX_PROCS are traced (or one with one process) */
static struct proc *free_slot(struct session *s)
{
	size_t i, n = s->several ? MAX_PROCS : 1;

	for (i = 0; i < n; i++)
		if (!s->procs[i].live && !s->procs[i].target)
			return &s->procs[i];
	return NULL;
}

static void read_comm(pid_t pid, char *buf, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	if (procfs__read(path, buf, size) <= 0)
		snprintf(buf, size, "?");
	buf[strcspn(buf, "\n")] = '\0';
}
/* -p PID: one line on what went wrong */
static int open_pid(struct session *s, pid_t pid)
{
	struct proc *p = free_slot(s);
	int err;

	if (!p)
		return say(0, "too many processes: at most %d are traced at once", MAX_PROCS);
	err = target__open(pid, &p->target);
	if (err == -ESRCH)
		return say(0, "no process with pid %d", pid);
	if (err == -EPERM)
		return say(0, "pid %d is a kernel thread: it has no heap to trace", pid);
	if (err == -EINVAL)
		return say(0, "tracelloc cannot trace itself");
	if (err)
		return say(err, "cannot open pid %d", pid);
	/* -p 12,12 or a thread id of a process given already */
	for (size_t i = 0; i < (size_t)(p - s->procs); i++)
		if (target__pid(s->procs[i].target) == target__pid(p->target)) {
			target__destroy(p->target);
			p->target = NULL;
			return 0;
		}
	p->live = true;
	return 0;
}

/* --comm: the processes of that name that run now (ours excepted) */
static int open_comm(struct session *s)
{
	struct dirent *d;
	struct proc *p;
	char comm[32];
	DIR *dir;
	pid_t pid;
	size_t i;
	bool known;

	dir = opendir("/proc");
	if (!dir)
		return say(-errno, "cannot read /proc");
	while ((d = readdir(dir))) {
		pid = (pid_t)atoi(d->d_name);
		if (pid <= 0 || pid == getpid())
			continue;
		read_comm(pid, comm, sizeof(comm));
		if (strcmp(comm, s->opts.comm))
			continue;
		for (i = 0, known = false; i < MAX_PROCS; i++)
			known |= s->procs[i].target && target__pid(s->procs[i].target) == pid;
		/* caught by the exec hook already (held, its record waiting) */
		if (!known && s->skel && bpf_map__fd(s->skel->maps.traced) >= 0) {
			uint32_t key = pid, slot;

			known = !bpf_map__lookup_elem(s->skel->maps.traced, &key, sizeof(key), &slot,
						      sizeof(slot), 0);
		}
		if (known)
			continue;
		p = free_slot(s);
		if (!p) {
			s->untraced++;
			continue;
		}
		/* gone meanwhile, or a kernel thread of that name: not ours to trace */
		if (target__open(pid, &p->target)) {
			p->target = NULL;
			continue;
		}
		p->live = true;
	}
	closedir(dir);
	return 0;
}

static int open_targets(struct session *s)
{
	struct target_user user;
	struct proc *p;
	size_t i;
	int err;

	s->several = s->opts.npids > 1 || s->opts.follow_forks || s->opts.comm;
	for (i = 0; i < s->opts.npids; i++) {
		err = open_pid(s, s->opts.pids[i]);
		if (err)
			return err;
	}
	if (s->opts.comm && (err = open_comm(s)))
		return err;
	if (s->opts.command) {
		p = &s->procs[0];
		if (s->opts.user) {
			err = target__find_user(s->opts.user, &user);
			if (err == -ENOENT)
				return say(0, "--user %s: no such user", s->opts.user);
			if (err)
				return say(err, "--user %s", s->opts.user);
		}
		err = target__launch_as(s->opts.command, s->opts.user ? &user : NULL, &p->target);
		if (err == -ECHILD)
			return say(0, "'%s' exited before its libraries were loaded", s->opts.command[0]);
		if (err)
			return say(err, "cannot run '%s'", s->opts.command[0]);
		p->live = true;
	}
	s->first = s->procs[0].live ? &s->procs[0] : NULL;
	return 0;
}

/* The kernel's id of the initial pid namespace (PROC_PID_INIT_INO): there
 * the BPF side can take the pids it already has. */
#define INIT_PID_NS_INO 0xEFFFFFFCU

/* and its depth: NSpid in /proc/self/status lists our pid in every
 * namespace from the initial one down */
static int pid_namespace(uint64_t *dev, uint64_t *ino, uint32_t *level)
{
	struct stat st;
	int pid;

	if (stat("/proc/self/ns/pid", &st))
		return -errno;
	*dev = st.st_ino == INIT_PID_NS_INO ? 0 : st.st_dev;
	*ino = st.st_ino == INIT_PID_NS_INO ? 0 : st.st_ino;
	*level = 0;
	/* a kernel without NSpid has one level */
	if (procfs__nspid("self", &pid, level) == -ENOENT)
		*level = 0;
	return 0;
}

/* the process has exited (its pidfd polls readable) */
static bool proc_gone(const struct proc *p)
{
	struct pollfd pfd = { .fd = target__pidfd(p->target), .events = POLLIN };

	return poll(&pfd, 1, 0) == 1;
}

/* found by --comm's name, not asked for by pid: one that exits while
 * tracelloc attaches is let go, not the end of the trace */
static bool found_by_name(const struct session *s, const struct proc *p)
{
	size_t j;

	if (!s->opts.comm || !p->target)
		return false;
	for (j = 0; j < s->opts.npids; j++)
		if (s->opts.pids[j] == proc_pid(p))
			return false;
	return true;
}

/* the unwind tables of what the processes map now, built before the probes
 * attach; the maps that hold them are sized from them */
static int build_unwind_tables(struct session *s)
{
	struct unwinder_stats st;
	struct proc *p = s->first;
	int err;

	s->skel->rodata->unwind_mode = s->opts.unwind;
	if (s->opts.unwind == UNWIND_MODE_FP)
		return bpf_map__set_max_entries(s->skel->maps.unwind_rows, 1);
	/* one found by --comm's name may be gone before long: it is added
	 * (unwinder__add) as the processes that start later are */
	if (p && found_by_name(s, p))
		p = NULL;
	err = unwinder__new(p ? proc_pid(p) : 0, &s->unwinder);
	if (p && (err == -ESRCH || (err && proc_gone(p))))
		return say(0, "pid %d exited while attaching", proc_pid(p));
	if (err)
		return say(err, "cannot read the unwind tables of pid %d", p ? proc_pid(p) : 0);
	unwinder__set_slots(s->unwinder, s->several ? MAX_PROCS : 1);
	err = bpf_map__set_max_entries(s->skel->maps.unwind_rows, unwinder__capacity(s->unwinder));
	if (!err)
		err = bpf_map__set_max_entries(s->skel->maps.unwind_mods,
					       unwinder__mods_entries(s->unwinder));
	if (err)
		return say(err, "cannot size the unwind tables");
	if (s->opts.verbose) {
		unwinder__stats(s->unwinder, &st);
		fprintf(stderr, "tracelloc: unwind tables of %zu files: %zu rows, %.0f bytes per MB of "
			"text, built in %.1f ms; room for %zu rows\n", st.files, st.rows,
			st.text_bytes ? st.rows * 16.0 * (1 << 20) / st.text_bytes : 0.0,
			st.build_ns / 1e6, unwinder__capacity(s->unwinder));
	}
	return 0;
}

static struct heap *new_heap(const struct session *s)
{
	struct heap *h = heap__new();

	if (!h)
		return NULL;
	heap__set_sampling(h, s->opts.sample_bytes);
	heap__set_short_lived(h, (uint64_t)(s->opts.short_lived_ms * 1e6));
	/* the median lifetime (--sort short-lived) and the sizes (-v) */
	heap__set_histograms(h, s->opts.sort == SORT_SHORT_LIVED || s->opts.verbose);
	return h;
}

/* the kernel's BTF names func (a kfunc a program calls) */
static bool kernel_has_func(const char *func)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	bool found;

	if (!vmlinux)
		return false;
	found = btf__find_by_name_kind(vmlinux, func, BTF_KIND_FUNC) >= 0;
	btf__free(vmlinux);
	return found;
}

/* the heap, the rings that fill it, and what each option keeps besides:
 * a line and 1 when one cannot be made */
static int new_recording(struct session *s, int ncpus, size_t ring_bytes)
{
	s->heap = new_heap(s);
	if (!s->heap)
		return say(-ENOMEM, "cannot start");
	if ((s->opts.sort == SORT_GROWTH || s->opts.tui) &&
	    !(s->growth = growth__new(s->opts.growth_window)))
		return say(-ENOMEM, "cannot start");
	if (s->opts.timeline_path && !(s->timeline = timeline__new()))
		return say(-ENOMEM, "cannot start");
	s->events = events__new(ncpus, ring_bytes, s->heap);
	if (!s->events)
		return say(-errno, "cannot create the BPF ring buffers");
	events__follow_exec(s->events, !s->opts.no_follow_exec);
	events__set_frames_fn(s->events, map_frames);
	s->skel->rodata->per_thread = s->opts.per_thread;
	if (s->opts.per_thread) {
		s->threads = threads__new();
		if (!s->threads)
			return say(-ENOMEM, "cannot start");
		events__set_threads(s->events, s->threads);
	}
	if (s->several) {
		s->processes = processes__new();
		if (!s->processes)
			return say(-ENOMEM, "cannot start");
	}
	return 0;
}

static int open_bpf(struct session *s)
{
	uint64_t ns_dev = 0, ns_ino = 0;
	uint32_t ns_level = 0;
	size_t ring_bytes;
	int err, i, ncpus;

	s->skel = tracelloc_bpf__open();
	if (!s->skel)
		return say(-errno, "cannot open the BPF programs");
	err = pid_namespace(&ns_dev, &ns_ino, &ns_level);
	if (err)
		return say(err, "cannot read /proc/self/ns/pid");
	s->skel->rodata->pidns_dev = ns_dev;
	s->skel->rodata->pidns_ino = ns_ino;
	s->skel->rodata->pidns_level = ns_level;
	s->skel->rodata->empty_probes = s->opts.empty_probes;
	s->skel->rodata->trace_mmap = !s->opts.no_mmap;
	/* a process of --comm's name forks workers of that name: they are its */
	s->skel->rodata->follow_forks = s->opts.follow_forks || s->opts.comm;
	/* a new child is held by the bpf_send_signal_task kfunc (Linux 6.13) */
	bpf_program__set_autoload(s->skel->progs.on_fork, s->skel->rodata->follow_forks);
	if (s->skel->rodata->follow_forks && !kernel_has_func("bpf_send_signal_task"))
		return say(0, "%s needs Linux 6.13 or later (the bpf_send_signal_task kfunc)",
			    s->opts.comm ? "--comm" : "--follow-forks");
	if (s->opts.comm) {
		s->skel->rodata->by_comm = true;
		/* at most 15 characters (options.c), NUL-padded as the kernel's comm */
		memcpy((char *)s->skel->rodata->comm_name, s->opts.comm, strlen(s->opts.comm));
	}
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0)
		return say(ncpus ? ncpus : -EINVAL, "cannot count the CPUs");
	ring_bytes = events__ring_bytes(s->opts.ringbuf_bytes, ncpus);
	s->skel->rodata->wakeup_bytes = ring_bytes / 8;
	s->skel->rodata->sample_bytes = s->opts.sample_bytes;
	err = build_unwind_tables(s);
	if (err)
		return err;
	if (s->opts.sample_bytes) {
		/* -ln(u) for u evenly spread over (0, 1), 16.16 fixed point */
		for (i = 0; i < EXP_TABLE_SIZE; i++)
			s->skel->rodata->neg_log_table[i] =
				(uint32_t)(-log((i + 0.5) / EXP_TABLE_SIZE) * 65536);
	} else {
		/* no sampling: the table of sampled blocks is not used */
		err = bpf_map__set_max_entries(s->skel->maps.sampled, 1);
		if (err)
			return say(err, "cannot size the sampling table");
	}
	/* the rings and what reads them exist before the first probe fires */
	err = new_recording(s, ncpus, ring_bytes);
	if (err)
		return err;
	err = bpf_map__reuse_fd(s->skel->maps.rings, events__rings_map_fd(s->events));
	if (err)
		return say(err, "cannot set up the ring buffers");
	err = bpf_map__reuse_fd(s->skel->maps.held, holds__map_fd(s->holds));
	if (err)
		return say(err, "cannot set up the table of held processes");
	return 0;
}

/* why a process cannot be traced, as one line after "tracelloc: " */
static void allocator_verdict(struct attach *a, pid_t pid, int err, char *buf, size_t size)
{
	if (err == -ENOENT)
		snprintf(buf, size, "pid %d maps no allocator tracelloc knows (glibc, jemalloc, "
			 "tcmalloc, mimalloc, musl)", pid);
	else if (err == -ENOEXEC)
		snprintf(buf, size, "pid %d runs a static binary without a symbol table (stripped): "
			 "nothing names its malloc", pid);
	else if (err == -EMEDIUMTYPE)
		snprintf(buf, size, "pid %d uses an allocator tracelloc does not trace (malloc is "
			 "defined in %s)", pid, attach__culprit(a));
	else
		snprintf(buf, size, "cannot read the objects mapped by pid %d: %s", pid,
			 strerror(-err));
}

static int find_allocator(struct session *s, struct proc *p)
{
	struct attach_opts aopts = { .probe_at_symbol = s->opts.probe_at_symbol,
					     .no_mmap = s->opts.no_mmap,
					     .closer = s->closer };
	pid_t pid = proc_pid(p);
	char why[512];
	int err;

	p->attach = attach__new(s->skel, pid, &aopts);
	if (!p->attach)
		return say(-ENOMEM, "cannot attach");
	err = attach__find(p->attach);
	if (err && found_by_name(s, p))
		return err;	/* not told: let go */
	/* a process that has just exited maps nothing: say that, not "no allocator" */
	if (err == -ESRCH || (err && proc_gone(p)))
		return say(0, "pid %d exited while attaching", pid);
	if (err) {
		allocator_verdict(p->attach, pid, err, why, sizeof(why));
		return say(0, "%s", why);
	}
	return 0;
}

/* --comm: a process found by name that cannot be traced is left out */
static void drop_proc(struct session *s, struct proc *p)
{
	attach__destroy(p->attach);
	p->attach = NULL;
	target__destroy(p->target);
	p->target = NULL;
	p->live = false;
	if (s->first == p)
		s->first = NULL;
}


static int find_allocators(struct session *s)
{
	struct proc *p;
	size_t i;
	int err;

	for (i = 0; i < MAX_PROCS; i++) {
		p = &s->procs[i];
		if (!p->live)
			continue;
		err = find_allocator(s, p);
		if (!err)
			continue;
		/* asked for by pid or by command: the trace cannot be what was asked */
		if (!found_by_name(s, p))
			return err;
		drop_proc(s, p);
	}
	/* the slots in order, the first one first */
	for (i = 0; i < MAX_PROCS && !s->first; i++)
		if (s->procs[i].live)
			s->first = &s->procs[i];
	if (s->first && s->first != &s->procs[0]) {
		s->procs[0] = *s->first;
		memset(s->first, 0, sizeof(*s->first));
		s->first = &s->procs[0];
	}
	return 0;
}

/*
 * Loading the BPF programs makes libbpf read the kernel's BTF (5 MB, copied
 * once more) into fresh memory. On the VMs we measured, a page fault costs
 * ~15 us: 40 ms of the attach went on faulting those pages in, one by one.
 * So the unwind tables are built and the programs loaded on a heap that was
 * faulted in with one call, in huge pages where the kernel has them, and
 * the heap is trimmed back afterwards. Where any of this fails, the load
 * just faults its pages as it goes.
 */
#define WARM_HEAP_BYTES (24 << 20)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static void warm_heap(void)
{
	uintptr_t start, end, huge = 2 << 20;
	char *before, *after;
	void *block;

	/* the block, and what libbpf allocates later, from the brk heap */
	if (!mallopt(M_MMAP_THRESHOLD, 32 << 20) || !mallopt(M_TRIM_THRESHOLD, 64 << 20))
		return;
	before = sbrk(0);
	block = malloc(WARM_HEAP_BYTES);
	after = sbrk(0);
	if (block && after > before) {
		start = ((uintptr_t)before + huge - 1) & ~(huge - 1);
		end = (uintptr_t)after & ~(huge - 1);
		if (end > start)
			madvise((void *)start, end - start, MADV_HUGEPAGE);
		madvise(before, after - before, MADV_POPULATE_WRITE);
	}
	/* kept in the heap: the trim threshold is above its size */
	free(block);
}

static void cool_heap(void)
{
	mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
	mallopt(M_TRIM_THRESHOLD, 128 << 10);
	malloc_trim(0);
}

static int load_bpf(struct session *s)
{
	struct attach *model = s->first ? s->first->attach : NULL, *own = NULL;
	int err;

	/* --comm with no process yet: the kind of links this kernel offers */
	if (!model)
		model = own = attach__new(s->skel, getpid(), &(struct attach_opts){ 0 });
	err = model ? attach__prepare(model) : -ENOMEM;
	attach__destroy(own);
	if (!err)
		err = tracelloc_bpf__load(s->skel);
	cool_heap();
	if (err)
		return say(err, "cannot load the BPF programs (run with -v for details)");
	err = events__publish(s->events);
	if (err)
		return say(err, "cannot hand the ring buffers to the BPF programs");
	if (s->unwinder) {
		struct unwinder_maps maps = {
			.rows_fd = bpf_map__fd(s->skel->maps.unwind_rows),
			.mods_fd = bpf_map__fd(s->skel->maps.unwind_mods),
			.procs = s->skel->bss->procs,
		};

		err = unwinder__publish(s->unwinder, &maps);
		if (s->first && (err == -ESRCH || (err && proc_gone(s->first))))
			return say(0, "pid %d exited while attaching", proc_pid(s->first));
		if (err)
			return say(err, "cannot hand the unwind tables to the BPF programs");
	}
	return 0;
}

/*
 * The system-call tracepoints, for a process whose mappings no probe of its
 * libc sees: every system call of every process on the host pays for them
 * while they are attached, so only then, and the user is told.
 */
static void watch_system_calls(struct session *s, struct proc *p)
{
	struct tracelloc_bpf *skel = s->skel;

	if (skel->links.on_sys_exit)
		return;
	skel->links.on_sys_enter = bpf_program__attach(skel->progs.on_sys_enter);
	if (skel->links.on_sys_enter)
		skel->links.on_sys_exit = bpf_program__attach(skel->progs.on_sys_exit);
	if (!skel->links.on_sys_exit) {
		fprintf(stderr, "tracelloc: pid %d: cannot trace its mappings at the system calls "
			"(%s): its mmap'd memory is not counted\n", proc_pid(p), strerror(errno));
		bpf_link__destroy(skel->links.on_sys_enter);
		skel->links.on_sys_enter = NULL;
		return;
	}
	fprintf(stderr, "tracelloc: pid %d makes its mmap calls where no probe sees them (%s): "
		"they are traced at the system calls, which every process on this host pays for "
		"while tracelloc runs (about 1.2x on a system call; --no-mmap goes without)\n",
		proc_pid(p), attach__go(p->attach) ? "Go's runtime" : "a static executable");
}

/* the program's mappings made by the loader (a dlopen'ed library's .bss)
 * are its own: where its code is now; and where its mappings are seen */
static void set_loader(struct session *s, struct proc *p)
{
	bool probed = attach__maps_probed(p->attach);
	struct proc_state *state = bpf_state(s, p);
	uint64_t start, end, code_start[MAX_ALLOC_CODE] = {}, code_end[MAX_ALLOC_CODE] = {};
	int i;

	attach__loader(p->attach, &start, &end);
	state->loader_start = start;
	state->loader_end = end;
	/* a dlopen's libraries wait for their tables (see EVENT_MAPS_HELD) */
	state->r_state_addr = attach__r_state_addr(p->attach);
	attach__alloc_code(p->attach, code_start, code_end, MAX_ALLOC_CODE);
	for (i = 0; i < MAX_ALLOC_CODE; i++) {
		state->alloc_code_start[i] = code_start[i];
		state->alloc_code_end[i] = code_end[i];
	}
	bpf_state(s, p)->maps_probed = probed;
	if (!probed && !s->opts.no_mmap)
		watch_system_calls(s, p);
}

static void tell_new_probes(struct proc *p)
{
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "tracelloc: pid %d: probing as well: ", proc_pid(p));
	attach__describe_new(p->attach, prefix, stderr);
}

static uint32_t maps_gen(struct session *s, const struct proc *p)
{
	return __atomic_load_n(&bpf_state(s, p)->maps_gen, __ATOMIC_RELAXED);
}

/* an allocator library loaded since (dlopen): probed as soon as ld.so says so */
static void refresh_probes(struct session *s, struct proc *p)
{
	uint32_t gen = maps_gen(s, p);

	if (gen == p->probes_gen)
		return;
	p->probes_gen = gen;
	/* a library that cannot be probed stays so; the others are */
	attach__refresh(p->attach);
	set_loader(s, p);
	tell_new_probes(p);
}

/* tables for libraries mapped since the last look: at once after ld.so
 * says the maps change, and on every tick for the rest ([uprobes], mmap) */
static void refresh_unwinder(struct session *s, struct proc *p, bool always)
{
	uint32_t gen = maps_gen(s, p);

	if (!s->unwinder || (!always && gen == p->unwinder_gen))
		return;
	p->unwinder_gen = gen;
	unwinder__refresh(s->unwinder, slot_of(s, p));
}

static const uint64_t *map_frames(void *ctx, uint16_t gen, const uint64_t *frames,
				  uint32_t nframes, uint64_t *buf)
{
	/* no symbolizer of its own (sym_shared): its maps are its parent's */
	if (!ctx)
		return frames;
	return symbolizer__map_frames(ctx, gen, frames, nframes, buf);
}

/* the process's program, as /proc/PID/exe names it */
/* the program a process runs, for the terminal (the name is the target's: escaped) */
static void exe_path(pid_t pid, char *buf, size_t size)
{
	char path[64], exe[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n <= 0)
		n = snprintf(exe, sizeof(exe), "?");
	exe[n] = '\0';
	text__escape(exe, buf, size);
}

/* p's programs, "a -> b -> c"; a chain too long for them keeps the first
 * program and the latest, and says how many execs lie between */
static void note_exec(struct proc *p, const char *exe)
{
	size_t len = strlen(p->execs);
	char *first_end;

	p->nexecs++;
	if (!p->execs_cut && len + strlen(" -> ") + strlen(exe) < sizeof(p->execs)) {
		snprintf(p->execs + len, sizeof(p->execs) - len, " -> %s", exe);
		return;
	}
	p->execs_cut = true;
	first_end = strstr(p->execs, " -> ");
	if (!first_end)
		first_end = p->execs + len;
	snprintf(first_end, sizeof(p->execs) - (first_end - p->execs), " -> ... (%d execs) -> %s",
		 p->nexecs, exe);
}

/*
 * The process's records are read from now on, under a new number when
 * there are several: its symbolizer (its files opened now, as they may be
 * gone when its stacks are named) and its slot in events. Negative errno.
 */
/* p's name and symbolizer (a new one, or share: its parent's, for a fork's
 * child whose files are its parent's); reserved: the number of a fork's
 * child, given when its parent forked */
static int name_proc(struct session *s, struct proc *p, uint32_t reserved,
		     struct symbolizer *share)
{
	struct symbolizer *sym = share ? symbolizer__get(share) : symbolizer__new(proc_pid(p));
	char comm[32];
	int idx;

	if (!sym)
		return -ENOMEM;
	p->sym_shared = share != NULL;
	if (!share) {
		symbolizer__set_generation(sym, &bpf_state(s, p)->maps_gen);
		symbolizer__refresh(sym);
	}
	if (!s->several) {
		symbolizer__destroy(p->symbolizer);
		p->symbolizer = sym;
		events__set_slot(s->events, slot_of(s, p), 0, 0, sym);
		return 0;
	}
	read_comm(proc_pid(p), comm, sizeof(comm));
	/* a fork's child was numbered when its parent forked */
	if (reserved)
		idx = processes__set(s->processes, reserved, proc_pid(p), comm, sym) ?: (int)reserved;
	else
		idx = processes__add(s->processes, proc_pid(p), comm, sym);
	if (idx < 0)
		return idx;
	p->idx = idx;
	events__set_slot(s->events, slot_of(s, p), PROC_TAG(idx), PROCESS_FRAME(idx),
			 share ? NULL : sym);
	return 0;
}

static struct symbolizer *proc_symbolizer(struct session *s, const struct proc *p)
{
	return s->several ? processes__symbolizer(s->processes, p->idx) : p->symbolizer;
}

/* reads p's maps for its symbolizer; a child that shares its parent's gets
 * one of its own once it maps files of its own (ld.so's count moved) */
static void refresh_symbolizer(struct session *s, struct proc *p)
{
	if (!p->sym_shared) {
		symbolizer__refresh(proc_symbolizer(s, p));
		return;
	}
	if (!bpf_state(s, p)->maps_gen)
		return;
	if (name_proc(s, p, p->idx, NULL))
		fprintf(stderr, "tracelloc: pid %d: cannot start its own symbolizer\n", proc_pid(p));
}

/* the BPF side filters on the process from now on */
static int trace_proc(struct session *s, struct proc *p)
{
	uint32_t pid = proc_pid(p), slot = slot_of(s, p);

	return bpf_map__update_elem(s->skel->maps.traced, &pid, sizeof(pid), &slot, sizeof(slot),
				    BPF_ANY);
}

/* a slot's process is no longer traced: its probes go, its numbers stay */
static void end_proc(struct session *s, struct proc *p, const char *how)
{
	uint32_t pid = proc_pid(p);

	bpf_map__delete_elem(s->skel->maps.traced, &pid, sizeof(pid), 0);
	/* its frames are named from what it mapped (the pid may come again) */
	if (!p->sym_shared)
		symbolizer__freeze(proc_symbolizer(s, p));
	events__clear_slot(s->events, slot_of(s, p));
	unwinder__remove(s->unwinder, slot_of(s, p));
	attach__destroy(p->attach);
	p->attach = NULL;
	if (s->several)
		processes__ended(s->processes, p->idx, how);
	p->live = false;
	p->exec_unsettled = false;
	/* the first keeps its target: its ending and the command's SIGTERM */
	if (p != s->first) {
		unwatch_proc(s, p);
		target__destroy(p->target);
		p->target = NULL;
	}
}

static int attach_tracepoints(struct session *s)
{
	/* before the probes: an exec from then on is seen */
	s->skel->links.on_exec = bpf_program__attach(s->skel->progs.on_exec);
	if (!s->skel->links.on_exec)
		return say(-errno, "cannot watch for exec");
	s->skel->links.on_thread_exit = bpf_program__attach(s->skel->progs.on_thread_exit);
	if (!s->skel->links.on_thread_exit)
		return say(-errno, "cannot watch for exits");
	/* a stop of someone else's for a process we hold (see holds.c) */
	s->skel->links.on_signal = bpf_program__attach(s->skel->progs.on_signal);
	if (!s->skel->links.on_signal)
		return say(-errno, "cannot watch for stop signals");
	/* new processes, as the kernel makes them (no system-call tracepoint) */
	if (s->skel->rodata->follow_forks) {
		s->skel->links.on_fork = bpf_program__attach(s->skel->progs.on_fork);
		if (!s->skel->links.on_fork)
			return say(-errno, "cannot watch for forks (sched_process_fork)");
	}
	return 0;
}

/* -EINVAL at this step: the kernel refuses a uprobe where another tool's
 * probe on the same instruction uses a different reference counter (BCC's
 * memleak does) */
static const char attach_probes_step[] = "cannot attach probes to pid %d";

/* each process: named, in its slot, filtered on by BPF, then probed */
/* one process's probes, tables and names; 0, or what failed, with *step
 * saying where (a format with the pid) */
static int attach_proc(struct session *s, struct proc *p, const char **step)
{
	int err;

	exe_path(proc_pid(p), p->execs, sizeof(p->execs));
	/* a command we started is held at each exec until its new program is
	 * probed; a -p target is not stopped (its parent may be a shell that
	 * would take a stop for the user's ^Z) and is followed as it runs */
	p->hold_exec = s->opts.command && p == s->first && !s->opts.no_follow_exec;
	bpf_state(s, p)->hold_exec = p->hold_exec;
	set_loader(s, p);
	*step = "cannot start the symbolizer of pid %d";
	err = name_proc(s, p, 0, NULL);
	if (err)
		return err;
	*step = "cannot hand the unwind tables of pid %d to the BPF programs";
	if (s->unwinder && (err = unwinder__add(s->unwinder, slot_of(s, p), proc_pid(p))))
		return err;
	*step = "cannot trace pid %d";
	err = trace_proc(s, p);
	if (err)
		return err;
	/* the first chose the kind of links the programs were loaded for */
	*step = "cannot attach probes to pid %d";
	if (p != s->first && (err = attach__prepare_loaded(p->attach)))
		return err;
	*step = attach_probes_step;
	return attach__attach(p->attach);
}

/*
 * --comm: the processes of that name that started between the first scan
 * of /proc and the exec hook's attach; those that start from then on are
 * held by the hook. Traced as those of the first scan are.
 */
static int catch_up_comm(struct session *s)
{
	const char *step;
	bool before[MAX_PROCS];
	struct proc *p;
	size_t i;
	int err;

	for (i = 0; i < MAX_PROCS; i++)
		before[i] = s->procs[i].live || s->procs[i].target;
	err = open_comm(s);
	if (err)
		return err;
	for (i = 0; i < MAX_PROCS; i++) {
		p = &s->procs[i];
		if (before[i] || !p->live)
			continue;
		/* one that cannot be traced (gone already, no allocator) is let be */
		if (find_allocator(s, p)) {
			drop_proc(s, p);
			continue;
		}
		if (attach_proc(s, p, &step))
			end_proc(s, p, "untraced");
	}
	return 0;
}

static int attach_probes(struct session *s)
{
	const char *step;
	struct proc *p;
	size_t i;
	int err;

	err = attach_tracepoints(s);
	if (err)
		return err;
	for (i = 0; i < MAX_PROCS; i++) {
		p = &s->procs[i];
		if (!p->live)
			continue;
		err = attach_proc(s, p, &step);
		if (!err)
			continue;
		if (proc_gone(p) && found_by_name(s, p)) {
			end_proc(s, p, "exited");
			continue;
		}
		if (proc_gone(p))
			return say(0, "pid %d exited while tracelloc attached to it", proc_pid(p));
		if (err == -EINVAL && step == attach_probes_step)
			return say(0, "cannot attach probes to pid %d: the kernel refused them; "
				    "another tracer may hold probes on the same functions (dmesg: "
				    "\"ref_ctr_offset mismatch\")", proc_pid(p));
		return say(err, step, proc_pid(p));
	}
	return 0;
}

static int build_filter(struct session *s)
{
	size_t i;

	s->filter = filter__new(s->opts.default_filters);
	if (!s->filter)
		return say(-ENOMEM, "cannot build the filters");
	for (i = 0; i < s->opts.nexcludes; i++)
		if (filter__exclude(s->filter, s->opts.excludes[i]))
			return say(0, "invalid --exclude '%s'", s->opts.excludes[i]);
	for (i = 0; i < s->opts.nincludes; i++)
		if (filter__include(s->filter, s->opts.includes[i]))
			return say(0, "invalid --include '%s'", s->opts.includes[i]);
	return 0;
}
static void read_loss(struct session *s, struct loss *loss)
{
	int ncpus = libbpf_num_possible_cpus();
	__u64 values[ncpus > 0 ? ncpus : 1];
	__u64 sums[COUNTER__COUNT] = {};
	__u32 key;
	int cpu;

	for (key = 0; key < COUNTER__COUNT && ncpus > 0; key++) {
		if (bpf_map__lookup_elem(s->skel->maps.counters, &key, sizeof(key), values,
					 sizeof(values), 0))
			continue;
		for (cpu = 0; cpu < ncpus; cpu++)
			sums[key] += values[cpu];
	}
	loss->lost_allocs = sums[COUNTER_LOST_ALLOC];
	loss->lost_frees = sums[COUNTER_LOST_FREE];
	loss->untraced_calls = sums[COUNTER_NO_STATE];
	loss->sampled_full = sums[COUNTER_SAMPLED_FULL];
	loss->cut_no_table = sums[COUNTER_CUT_NO_TABLE];
	loss->cut_rule = sums[COUNTER_CUT_RULE];
	loss->cut_unreadable = sums[COUNTER_CUT_UNREADABLE];
	loss->cut_depth = sums[COUNTER_CUT_DEPTH];
	loss->untraced_procs = sums[COUNTER_UNTRACED_PROCS];
}

static int consume(struct session *s);

/* a writer that takes long must not leave the ring buffer to fill up */
static void consume_while_writing(void *ctx)
{
	struct session *s = ctx;

	if (s->tracing)
		consume(s);
}

/* for_writer: files and pages, not the report or the TUI */
static struct profile *snapshot(struct session *s, bool for_writer)
{
	struct profile_opts popts = {
		.symbolizer = s->several ? NULL : s->procs[0].symbolizer,
		.processes = s->processes,
		.filter = s->filter,
		.allocator_frame = for_writer && s->opts.allocator_frame,
		.threads = s->threads,
		.growth = s->growth,
		.idle = consume_while_writing,
		.idle_ctx = s,
	};

	return profile__snapshot(s->heap, &popts);
}

/* what was traced, for titles and headers: "pid 1234, ./app", "5 processes, ./server" */
static void target_name(const struct session *s, char *buf, size_t size)
{
	const char *cmd = s->opts.command ? s->opts.command[0] : NULL;

	if (s->several)
		snprintf(buf, size, "%zu processes%s%s", processes__count(s->processes),
			 cmd ? ", " : "", cmd ? cmd : "");
	else
		snprintf(buf, size, "pid %d%s%s", s->first ? proc_pid(s->first) : 0,
			 cmd ? ", " : "", cmd ? cmd : "");
}

/* the resident memory of the traced processes, from /proc/PID/status */
static uint64_t traced_rss(struct session *s)
{
	char path[64], line[128];
	uint64_t total = 0, kib;
	size_t i;
	FILE *f;

	for (i = 0; i < MAX_PROCS; i++) {
		if (!s->procs[i].live)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/status", proc_pid(&s->procs[i]));
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "VmRSS: %" SCNu64, &kib) == 1)
				total += kib * 1024;
		fclose(f);
	}
	return total;
}

/* --timeline: a point now */
static void sample_timeline(struct session *s)
{
	if (s->timeline && timeline__sample(s->timeline, heap__stacks(s->heap),
					    clock__now_ns() / 1e9 - s->start_s, traced_rss(s)))
		say(-ENOMEM, "cannot keep the timeline");
}

static int write_metrics(FILE *out, struct session *s)
{
	struct metrics m = {
		.pid = s->first ? proc_pid(s->first) : 0,
		.traced_s = (clock__now_ns() / 1e9) - s->start_s,
		.stats = *heap__stats(s->heap),
		.stacks = stacks__count(heap__stacks(s->heap)),
		.alloc_calls_per_s = s->alloc_calls_per_s,
		.alloc_bytes_per_s = s->alloc_bytes_per_s,
		.sample_bytes = s->opts.sample_bytes,
	};

	read_loss(s, &m.loss);
	return metrics__write(out, &m);
}

/* a page of the scrape endpoint, as of now: the records sent until now first */
static int write_page(enum http_page page, FILE *out, void *ctx)
{
	struct session *s = ctx;
	int err = consume(s);

	if (err)
		return err;
	events__writing(s->events, true);
	switch (page) {
	case HTTP_PAGE_HEAP:
		err = outputs__pprof(s->outputs, out, PPROF_INUSE);
		break;
	case HTTP_PAGE_ALLOCS:
		err = outputs__pprof(s->outputs, out, PPROF_ALLOCS);
		break;
	case HTTP_PAGE_METRICS:
		err = write_metrics(out, s);
		break;
	default:
		err = -ENOENT;
	}
	events__writing(s->events, false);
	return err;
}

static void print_report(struct session *s)
{
	struct report_opts ro = {
		.top = s->opts.top,
		.min_age_ns = (uint64_t)(s->opts.min_age_s * 1e9),
		.sort = s->opts.sort,
		.color = isatty(fileno(s->report_out)) && !getenv("NO_COLOR"),
		.now_ns = clock__now_ns(),
		.short_lived_ns = (uint64_t)(s->opts.short_lived_ms * 1e6),
		.sizes = s->opts.verbose > 0,
	};
	struct profile *p;
	int err;

	if (!s->opts.top)
		return;
	s->last_report = *heap__stats(s->heap);
	s->reported = true;
	p = snapshot(s, false);
	err = p ? report__top(s->report_out, p, s->heap, &ro) : -ENOMEM;
	if (err)
		say(err, "cannot print the report");
	profile__destroy(p);
}

static void stream_closed(int fd, char *ending, size_t ending_size)
{
	snprintf(ending, ending_size, "standard %s closed",
		 fd == STDOUT_FILENO ? "output" : "error");
}

/* a report that found its reader gone (EPIPE): the end of the trace, as Ctrl-C */
static bool report_reader_gone(struct session *s, char *ending, size_t ending_size)
{
	struct pollfd pfd = { .fd = fileno(s->report_out) };
	bool gone;

	if (!ferror(s->report_out))
		return false;
	gone = errno == EPIPE ||
	       (poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLERR | POLLHUP)));
	clearerr(s->report_out);
	if (gone)
		stream_closed(pfd.fd, ending, ending_size);
	return gone;
}

static int new_timer(double first_s, double every_s)
{
	struct itimerspec its = {
		.it_value = { (time_t)first_s, (long)((first_s - (time_t)first_s) * 1e9) },
		.it_interval = { (time_t)every_s, (long)((every_s - (time_t)every_s) * 1e9) },
	};
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (timerfd_settime(fd, 0, &its, NULL)) {
		close(fd);
		return -errno;
	}
	return fd;
}


/* after a read of the rings: new stacks may point into code mapped since the
 * maps were last read (dlopen, JIT): read them again now, while the
 * processes live, at most every 10 ms */
static int after_read(struct session *s, int err)
{
	uint32_t nstacks;
	struct proc *p;
	size_t i;

	if (err)
		return err;
	for (i = 0; i < MAX_PROCS; i++) {
		p = &s->procs[i];
		if (!p->live)
			continue;
		/* lost data is never silent */
		if (!p->main_exit_told && events__main_exited(s->events) &&
		    attach__per_thread_filter(p->attach)) {
			fprintf(stderr, "tracelloc: the main thread of pid %d exited: with this "
				"kernel's perf-event links the probes stop with it, and what its other "
				"threads do from now on is not traced\n", proc_pid(p));
			p->main_exit_told = true;
		}
		refresh_unwinder(s, p, false);
		/* after an exec the maps are the new program's: not probed here */
		if (!events__exec_pending(s->events) && !events__exec_seen(s->events))
			refresh_probes(s, p);
	}
	nstacks = stacks__count(heap__stacks(s->heap));
	if (nstacks != s->stacks_at_refresh && clock__now_ns() - s->refreshed_ns >= 10000000ULL) {
		for (i = 0; i < MAX_PROCS; i++)
			if (s->procs[i].live)
				refresh_symbolizer(s, &s->procs[i]);
		s->stacks_at_refresh = nstacks;
		s->refreshed_ns = clock__now_ns();
	}
	return 0;
}

/* -vv: each read that came late, and whether a page or file was being written */
#define LATE_READ_NS 50000000ULL

static int consume(struct session *s)
{
	int err = after_read(s, events__consume(s->events));
	uint64_t gap;
	bool writing;

	gap = events__last_gap_ns(s->events, &writing);
	if (verbosity >= 2 && gap > LATE_READ_NS)
		fprintf(stderr, "tracelloc: the ring buffer went unread for %.2f ms%s\n", gap / 1e6,
			writing ? " while a page or file was written" : "");
	return err;
}

/* what an exec's new program that cannot be traced ends its trace with */
static void exec_verdict(struct proc *p, int err, char *ending, size_t ending_size)
{
	const char *exe = strrchr(p->execs, ' ') ? strrchr(p->execs, ' ') + 1 : p->execs;

	if (err == -ENOENT)
		snprintf(ending, ending_size, "target called exec of %.200s, which maps no allocator "
			 "tracelloc knows: stopped there", exe);
	else if (err == -ENOEXEC)
		snprintf(ending, ending_size, "target called exec of %.200s, a static binary without "
			 "a symbol table: stopped there", exe);
	else if (err == -EMEDIUMTYPE)
		snprintf(ending, ending_size, "target called exec of %.200s, whose malloc is in %.200s, an "
			 "allocator tracelloc does not trace: stopped there", exe,
			 attach__culprit(p->attach));
	else
		snprintf(ending, ending_size, "target called exec of %.200s, which could not be "
			 "probed (%s): stopped there", exe, strerror(-err));
}

/* probes, tables and names for what the process maps now; 0, or why its
 * program cannot be traced */
static int probe_new_files(struct session *s, struct proc *p)
{
	int err;

	refresh_unwinder(s, p, true);
	refresh_symbolizer(s, p);
	err = attach__refresh(p->attach);
	set_loader(s, p);
	p->probes_gen = maps_gen(s, p);
	tell_new_probes(p);
	return err;
}

/*
 * A new program in the process (exec, or --comm's name starting), held
 * stopped when p->hold_exec: its executable and ld.so are probed now, its
 * libraries at ld.so's hook (a second stop), before any of their code runs.
 * A -p target runs on, and is probed as it maps its files. 0, or why the
 * program cannot be traced.
 */
static int probe_program(struct session *s, struct proc *p)
{
	int err = probe_new_files(s, p);

	/* a dynamic program's allocator comes with its libraries: at the hook */
	p->exec_unsettled = attach__loader_probed(p->attach) && (!err || err == -ENOENT);
	if (p->exec_unsettled) {
		if (p->hold_exec) {
			bpf_state(s, p)->hook_calls = 0;
			bpf_state(s, p)->hold_at_hook = 1;
		}
		err = 0;
	}
	if (p->hold_exec)
		holds__release(s->holds, proc_pid(p));
	return err;
}

/* with several processes, one that cannot be traced on ends alone */
static bool proc_verdict(struct session *s, struct proc *p, int err, char *ending,
			 size_t ending_size)
{
	char why[512];

	if (!err)
		return true;
	exec_verdict(p, err, why, sizeof(why));
	if (!s->several) {
		snprintf(ending, ending_size, "%s", why);
		return false;
	}
	fprintf(stderr, "tracelloc: pid %d: %s\n", proc_pid(p), why + strlen("target "));
	end_proc(s, p, "exec");
	return true;
}

/*
 * The process called exec, and the trace goes on in its new program: the
 * old heap went with the old program. false, with the ending, when the
 * trace ends there.
 */
static bool follow_exec(struct session *s, struct proc *p, char *ending, size_t ending_size)
{
	pid_t pid = proc_pid(p);
	char exe[512];
	struct heap *heap;
	int err = 0;

	if (p->hold_exec && (err = target__wait_stopped(p->target))) {
		if (proc_gone(p))
			snprintf(ending, ending_size, "target exited");
		else
			snprintf(ending, ending_size, "target called exec and was not held there (%s): "
				 "stopped", strerror(-err));
		if (!s->several)
			return false;
		end_proc(s, p, "exited");
		return true;
	}
	exe_path(pid, exe, sizeof(exe));
	note_exec(p, exe);
	fprintf(stderr, "tracelloc: pid %d called exec: now %s\n", pid, exe);

	if (s->several) {
		/* the old program's blocks went with it; the new one has a number of its own */
		heap__drop_tag(s->heap, PROC_TAG(p->idx), PROC_MASK);
		processes__ended(s->processes, p->idx, "exec");
		processes__superseded(s->processes, p->idx);
	} else {
		heap = new_heap(s);
		if (!heap) {
			snprintf(ending, ending_size, "target called exec: out of memory");
			return false;
		}
		/* the old program's stacks are gone: so is their history */
		if (s->growth) {
			growth__destroy(s->growth);
			s->growth = growth__new(s->opts.growth_window);
		}
		heap__destroy(s->heap);
		s->heap = heap;
		events__set_heap(s->events, heap);
		s->reported = false;
		s->stacks_at_refresh = 0;
		memset(&s->rate_from, 0, sizeof(s->rate_from));
	}
	/* the old program's frames are named from what it mapped */
	if (!p->sym_shared)
		symbolizer__freeze(proc_symbolizer(s, p));
	err = name_proc(s, p, 0, NULL);
	if (err) {
		snprintf(ending, ending_size, "target called exec: %s", strerror(-err));
		if (!s->several)
			return false;
		end_proc(s, p, "exec");
		return true;
	}
	return proc_verdict(s, p, probe_program(s, p), ending, ending_size);
}

/* the second stop of a followed exec, at ld.so's hook, or (-p) a tick */
static bool settle_exec(struct session *s, struct proc *p, char *ending, size_t ending_size)
{
	int err;

	if (!p->exec_unsettled || (p->hold_exec && bpf_state(s, p)->hold_at_hook))
		return true;
	if (p->hold_exec && target__wait_stopped(p->target))
		return true;	/* gone: the pidfd says so */
	p->exec_unsettled = false;
	err = probe_new_files(s, p);
	if (p->hold_exec)
		holds__release(s->holds, proc_pid(p));
	if (err)
		exec_verdict(p, err, ending, ending_size);
	return proc_verdict(s, p, err, ending, ending_size);
}

/* a fork's child frame for frame: the child's number where the parent's was */
struct retag_ctx {
	uint32_t to;
};

static void retag_frames(void *ctx, const uint64_t *frames, uint32_t n, uint64_t *out)
{
	const struct retag_ctx *r = ctx;
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (IS_PROCESS_FRAME(frames[i]))
			out[i] = PROCESS_FRAME(r->to);
		else if (IS_THREAD_FRAME(frames[i]))
			out[i] = frames[i];
		else
			out[i] = (frames[i] & ~PROC_MASK) | PROC_TAG(r->to);
	}
}

/* a new process the BPF side stopped and marked held: no slot for it */
static void let_go(struct session *s, pid_t pid)
{
	uint32_t key = pid;

	bpf_map__delete_elem(s->skel->maps.traced, &key, sizeof(key), 0);
	holds__release(s->holds, pid);
	if (!s->untraced++)
		fprintf(stderr, "tracelloc: pid %d is not traced: %d processes are traced at once "
			"already (the summary counts those left out)\n", pid, MAX_PROCS);
}

/* a fork's child that is not traced after all: its copy of the parent's
 * blocks goes, and it is no process of the trace */
static void drop_child_copy(struct session *s, uint32_t idx)
{
	if (!idx)
		return;
	heap__drop_tag(s->heap, PROC_TAG(idx), PROC_MASK);
	processes__ended(s->processes, idx, "untraced");
}

/* every slot is taken: the new process waits, stopped, until one is free
 * (a process that exited gives its slot back once its last records are
 * read); false when no more can wait */
static bool wait_for_slot(struct session *s, struct proc *parent, pid_t pid, uint32_t idx,
			  bool shares_vm)
{
	struct fork_child c = {
		.slot = parent ? slot_of(s, parent) : NO_SLOT, .child = pid, .idx = idx,
		.flags = shares_vm ? FORK_SHARES_VM : 0,
	};

	return forks__wait_slot(s->forks, &c, clock__now_ns());
}

/*
 * A process held by the BPF side at its start: a traced process's child
 * (parent set), or a program of --comm's name. It waits, stopped, in a slot
 * of its own, until it is probed.
 */
/* a new process in slot p, stopped: its state reset, its names and tables
 * made, its tracing begun (not its probes); negative errno */
static int start_proc(struct session *s, struct proc *p, struct proc *parent, uint32_t idx)
{
	pid_t pid = proc_pid(p);
	int err;

	memset(bpf_state(s, p), 0, sizeof(struct proc_state));
	p->hold_exec = !s->opts.no_follow_exec;
	bpf_state(s, p)->hold_exec = p->hold_exec;
	p->probes_gen = p->unwinder_gen = 0;
	p->main_exit_told = false;
	p->nexecs = 0;
	p->execs_cut = false;
	exe_path(pid, p->execs, sizeof(p->execs));
	/* a copy of its parent: the same files at the same places */
	err = name_proc(s, p, idx, parent && parent->live && s->several &&
			!symbolizer__contested(proc_symbolizer(s, parent)) ?
			proc_symbolizer(s, parent) : NULL);
	if (!err && s->unwinder)
		err = unwinder__add(s->unwinder, slot_of(s, p), pid);
	if (!err) {
		struct attach_opts aopts = { .probe_at_symbol = s->opts.probe_at_symbol,
					     .no_mmap = s->opts.no_mmap,
					     .closer = s->closer };

		p->attach = attach__new(s->skel, pid, &aopts);
		err = p->attach ? attach__prepare_loaded(p->attach) : -ENOMEM;
	}
	if (!err)
		err = trace_proc(s, p);
	return err;
}

/* a forked child: its parent's files at the same places, probed (a child
 * sharing its parent's memory has its probes; it is traced from exec) */
static void probe_child(struct session *s, struct proc *p, const struct proc *parent,
			bool shares_vm)
{
	pid_t pid = proc_pid(p);
	int err = 0;

	if (!shares_vm) {
		err = attach__find(p->attach);
		if (!err)
			err = attach__attach(p->attach);
	}
	set_loader(s, p);
	holds__release(s->holds, pid);
	/* -v: each child; else its probes are its parent's, told already */
	if (!err && s->opts.verbose) {
		char prefix[96];

		snprintf(prefix, sizeof(prefix), "tracelloc: pid %d, forked by pid %d: ", pid,
			 proc_pid(parent));
		attach__describe_new(p->attach, prefix, stderr);
	}
	attach__describe_new(p->attach, NULL, NULL);
	if (err) {
		char why[512];

		allocator_verdict(p->attach, pid, err, why, sizeof(why));
		fprintf(stderr, "tracelloc: %s\n", why);
		end_proc(s, p, "untraced");
	}
}

static void take_new(struct session *s, struct proc *parent, pid_t pid, uint32_t idx,
		     bool shares_vm)
{
	struct proc *p = free_slot(s);
	int err;

	if (!p) {
		if (wait_for_slot(s, parent, pid, idx, shares_vm))
			return;
		let_go(s, pid);
		drop_child_copy(s, idx);
		return;
	}
	/* gone already: its copy of the parent's blocks stays, as it was */
	if (target__open(pid, &p->target)) {
		uint32_t key = pid;

		bpf_map__delete_elem(s->skel->maps.traced, &key, sizeof(key), 0);
		holds__release(s->holds, pid);
		if (idx) {
			processes__set(s->processes, idx, pid, processes__comm(s->processes, idx), NULL);
			processes__ended(s->processes, idx, "exited");
		}
		return;
	}
	p->live = true;
	p->idx = idx;
	if (watch_proc(s, p) || target__wait_stopped(p->target)) {
		end_proc(s, p, "exited");
		return;
	}
	err = start_proc(s, p, parent, idx);
	if (err) {
		fprintf(stderr, "tracelloc: cannot trace pid %d: %s\n", pid, strerror(-err));
		end_proc(s, p, "untraced");
		drop_child_copy(s, idx);
		holds__release(s->holds, pid);
		s->untraced++;
		return;
	}
	if (!parent) {
		/* a program at its start: probed as an exec is */
		char why[512];

		err = probe_program(s, p);
		proc_verdict(s, p, err, why, sizeof(why));
		return;
	}
	probe_child(s, p, parent, shares_vm);
}

/*
 * A fork comes in two records: the parent's, at its fork's return (in its
 * order: what it held then, the child holds), and the child's, at its first
 * return to user space (it waits, stopped). They come in either order; the
 * first is kept until the other comes.
 */
static void fork_half(struct session *s, struct proc *parent, const struct events_pending *pend)
{
	struct fork_record r = {
		.parent = pend->type == EVENT_FORK_PARENT, .slot = pend->slot,
		.child_own = pend->child_own, .child = pend->child, .flags = pend->flags,
	};
	struct fork_child c;
	const char *comm;
	int idx;

	switch (forks__half(s->forks, &r, clock__now_ns(), &c)) {
	case FORK_PAIRED:
		/* the other half: the child goes on, with its number */
		take_new(s, parent, c.child, c.idx, c.flags & FORK_SHARES_VM);
		return;
	case FORK_NO_ROOM:
		/* more forks at once than halves: the child goes on untraced */
		if (!r.parent)
			let_go(s, r.child);
		return;
	case FORK_KEPT:
		break;
	}
	if (!r.parent)
		return;
	/* the child's number now, and what the parent held, at the same addresses */
	comm = processes__comm(s->processes, parent->idx);
	idx = processes__add(s->processes, 0, comm, NULL);
	if (idx < 0)
		return;
	forks__set_idx(s->forks, &r, idx);
	if (!(r.flags & FORK_SHARES_VM)) {
		struct retag_ctx rc = { .to = idx };

		if (heap__copy_tag(s->heap, PROC_TAG(parent->idx), PROC_TAG(idx), PROC_MASK,
				   retag_frames, &rc))
			fprintf(stderr, "tracelloc: pid %d forked: out of memory for its child's copy "
				"of the heap\n", proc_pid(parent));
	}
}

/* a child whose parent's record never came (lost) is not left stopped */
static void expire_fork_halves(struct session *s)
{
	enum fork_expiry why;
	struct fork_child c;

	while (forks__expire(s->forks, clock__now_ns(), &c, &why)) {
		switch (why) {
		case FORK_NO_SLOT:
			/* no slot came free in time */
			let_go(s, c.child);
			drop_child_copy(s, c.idx);
			break;
		case FORK_NO_PARENT:
			take_new(s, c.slot < MAX_PROCS ? &s->procs[c.slot] : NULL, c.child, 0,
				 c.flags & FORK_SHARES_VM);
			break;
		case FORK_NO_CHILD:
			/* the child never came (counted by the BPF side: no room to
			 * hold it, or its record lost) */
			drop_child_copy(s, c.idx);
			break;
		}
	}
}

/*
 * Processes that exited: their last records read, then their slots free.
 * A record that needs handling first (a fork, an exec) may stand before
 * a process's last records: then it waits for the next round. true when
 * nothing is left to trace.
 */
static bool reap_exited(struct session *s, char *ending, size_t ending_size)
{
	struct events_pending pend;
	bool done = false;
	struct proc *p;
	size_t i;

	for (i = 0; i < MAX_PROCS; i++) {
		p = &s->procs[i];
		if (!p->live || !p->target || !proc_gone(p))
			continue;
		consume(s);
		if (events__pending(s->events, &pend))
			return false;
		unwatch_proc(s, p);
		done = proc_exited(s, p, ending, ending_size);
	}
	return done;
}

/* children that waited for a slot get the slots that came free; true
 * when one did */
static bool take_waiting(struct session *s)
{
	struct fork_child c;
	bool took = false;

	while (free_slot(s) && forks__take_waiting(s->forks, &c)) {
		take_new(s, c.slot < MAX_PROCS ? &s->procs[c.slot] : NULL, c.child, c.idx,
			 c.flags & FORK_SHARES_VM);
		took = true;
	}
	return took;
}

/*
 * After a read: what stopped it (an exec, a fork, a new process of
 * --comm's name) is dealt with, and the read goes on. true when the trace
 * ends there (ending says why).
 */
/* the process of thread tid (both as we see them), or tid */
static pid_t tgid_of(pid_t tid)
{
	char path[64], buf[1024], *at;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	if (procfs__read(path, buf, sizeof(buf)) < 0 || !(at = strstr(buf, "\nTgid:")))
		return tid;
	return (pid_t)strtol(at + 6, NULL, 10);
}

/* SIGINT, SIGTERM or SIGHUP waits in the signal fd: a backlog of forks
 * (hundreds a second, more than the daemon attaches) must not delay the end;
 * what is left held is let go at teardown (holds__release_all) */
static bool stop_signalled(void)
{
	sigset_t pending;

	return !sigpending(&pending) &&
	       (sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1 ||
		sigismember(&pending, SIGHUP) == 1);
}

static bool handle_pending(struct session *s, char *ending, size_t ending_size)
{
	struct events_pending pend;
	struct proc *p;
	char exe[256];
	bool done;
	size_t i;

	while (!stop_signalled() && events__pending(s->events, &pend)) {
		p = &s->procs[pend.slot < MAX_PROCS ? pend.slot : 0];
		switch (pend.type) {
		case EVENT_EXEC:
			if (!s->opts.no_follow_exec) {
				if (!follow_exec(s, p, ending, ending_size))
					return true;
				break;
			}
			exe_path(proc_pid(p), exe, sizeof(exe));
			if (!s->several) {
				snprintf(ending, ending_size, "target called exec (now %s): stopped there",
					 exe);
				return true;
			}
			fprintf(stderr, "tracelloc: pid %d called exec (now %s): no longer traced\n",
				proc_pid(p), exe);
			end_proc(s, p, "exec");
			break;
		case EVENT_FORK:
		case EVENT_FORK_PARENT:
			fork_half(s, p, &pend);
			break;
		case EVENT_COMM_EXEC:
			take_new(s, NULL, (pid_t)(uint32_t)pend.addr, 0, false);
			break;
		case EVENT_MAPS_HELD:
			/* tables and probes for what the dlopen mapped, before any of it runs */
			if (p->live) {
				refresh_unwinder(s, p, true);
				refresh_probes(s, p);
			}
			holds__release(s->holds, tgid_of(pend.tid));
			break;
		}
		events__resume(s->events);
		consume(s);
	}
	for (i = 0; i < MAX_PROCS; i++) {
		p = &s->procs[i];
		if (p->live && p->exec_unsettled && p->hold_exec &&
		    !settle_exec(s, p, ending, ending_size))
			return true;
	}
	expire_fork_halves(s);
	done = reap_exited(s, ending, ending_size);
	/* the last process exited: the end, unless a child took its slot */
	if (take_waiting(s))
		done = nothing_left(s, ending, ending_size);
	return done;
}

/* several processes: none is traced any more (ending says so); --comm
 * waits for the next one */
static bool nothing_left(struct session *s, char *ending, size_t ending_size)
{
	size_t i;

	for (i = 0; i < MAX_PROCS; i++)
		if (s->procs[i].live)
			return false;
	if (s->opts.comm)
		return false;
	snprintf(ending, ending_size, "%s%sall traced processes exited", s->first_ending,
		 s->first_ending[0] ? "; " : "");
	return true;
}

/* a process exited: its last records first; true when nothing is left to trace */
static bool proc_exited(struct session *s, struct proc *p, char *ending, size_t ending_size)
{
	consume(s);
	if (!s->several) {
		target__ending(p->target, ending, ending_size);
		return true;
	}
	if (p == s->first)
		target__ending(p->target, s->first_ending, sizeof(s->first_ending));
	if (p->live)
		end_proc(s, p, "exited");
	return nothing_left(s, ending, ending_size);
}

static void update_rate(struct session *s)
{
	const struct heap_stats *now = heap__stats(s->heap);
	uint64_t t = clock__now_ns();
	double elapsed_s = (t - s->rate_from_ns) / 1e9;

	if (elapsed_s <= 0)
		return;
	s->alloc_calls_per_s = (now->alloc_calls - s->rate_from.alloc_calls) / elapsed_s;
	s->alloc_bytes_per_s = (now->alloc_bytes - s->rate_from.alloc_bytes) / elapsed_s;
	s->rate_from = *now;
	s->rate_from_ns = t;
}

/* --tui: the screen as of now; while it is paused, only when forced (a key) */
static void draw_tui(struct session *s, bool force)
{
	struct profile *p;
	struct loss loss;
	char target[192];
	struct tui_header h = {
		.target = target,
		.traced_s = clock__now_ns() / 1e9 - s->start_s,
		.calls_per_s = s->alloc_calls_per_s,
		.bytes_per_s = s->alloc_bytes_per_s,
	};

	if (!s->tui || (tui__paused(s->tui) && !force))
		return;
	target_name(s, target, sizeof(target));
	read_loss(s, &loss);
	h.lost = loss.lost_allocs + loss.lost_frees;
	p = snapshot(s, false);
	if (!p)
		return;
	tui__draw(s->tui, p, s->heap, &h, clock__now_ns());
	profile__destroy(p);
}

/* keys of --tui; true when they end the trace */
static bool tui_keys(struct session *s, char *ending, size_t ending_size)
{
	switch (tui__keys(s->tui)) {
	case TUI_QUIT:
		snprintf(ending, ending_size, "interrupted");
		return true;
	case TUI_WRITE:
		consume(s);
		outputs__write(s->outputs);
		draw_tui(s, true);
		return false;
	case TUI_REDRAW:
		draw_tui(s, true);
		return false;
	case TUI_NONE:
		break;
	}
	return false;
}

static int on_pending(void *ctx, int fd);

/* the loop watches a process's pidfd: its exit */
static int watch_proc(struct session *s, struct proc *p)
{
	if (!s->loop)
		return 0;
	return loop__add(s->loop, target__pidfd(p->target), EPOLLIN, on_pending, s);
}

static void unwatch_proc(struct session *s, struct proc *p)
{
	if (p->target && s->loop)
		loop__remove(s->loop, target__pidfd(p->target));
}

/* what came: the records in the rings first, then forks, execs and exits */
static int on_events(void *ctx, int fd)
{
	struct session *s = ctx;
	int err = consume(s);

	if (err)
		return err;
	return handle_pending(s, s->ending, s->ending_size) ? LOOP_END : LOOP_ON;
}

/* a process exited: an exec or a fork may wait in the rings before the
 * exit; handled first, then the exit (reap_exited) */
static int on_pending(void *ctx, int fd)
{
	struct session *s = ctx;

	return handle_pending(s, s->ending, s->ending_size) ? LOOP_END : LOOP_ON;
}

static int on_keys(void *ctx, int fd)
{
	struct session *s = ctx;

	return tui_keys(s, s->ending, s->ending_size) ? LOOP_END : LOOP_ON;
}

static int on_signal(void *ctx, int fd)
{
	struct session *s = ctx;
	struct signalfd_siginfo si;

	if (read(fd, &si, sizeof(si)) != sizeof(si))
		return LOOP_ON;
	if (si.ssi_signo == SIGUSR1) {
		consume(s);
		outputs__write(s->outputs);
		return LOOP_ON;
	}
	snprintf(s->ending, s->ending_size, "interrupted");
	return LOOP_END;
}

static int on_duration(void *ctx, int fd)
{
	struct session *s = ctx;

	snprintf(s->ending, s->ending_size, "duration elapsed");
	return LOOP_END;
}

static int on_snapshot(void *ctx, int fd)
{
	struct session *s = ctx;
	uint64_t expirations;

	if (read(fd, &expirations, sizeof(expirations)) < 0)
		return LOOP_ON;
	consume(s);
	outputs__snapshot(s->outputs);
	return LOOP_ON;
}

/* `tracelloc ... | head`: the end when head has read enough */
static int on_stream_closed(void *ctx, int fd)
{
	struct session *s = ctx;

	stream_closed(fd, s->ending, s->ending_size);
	return LOOP_END;
}

static int on_http(void *ctx, int fd)
{
	return LOOP_ON;	/* served after every wait (trace) */
}

/* each process's maps read again, the growth and the timeline sampled */
static bool refresh_all(struct session *s)
{
	size_t i;

	for (i = 0; i < MAX_PROCS; i++) {
		struct proc *p = &s->procs[i];

		if (!p->live)
			continue;
		if (p->exec_unsettled && !settle_exec(s, p, s->ending, s->ending_size))
			return true;
		if (p->live) {
			refresh_symbolizer(s, p);
			refresh_unwinder(s, p, true);
		}
	}
	if (s->growth && growth__sample(s->growth, heap__stacks(s->heap), clock__now_ns()))
		say(-ENOMEM, "cannot keep the growth of the stacks");
	sample_timeline(s);
	update_rate(s);
	return false;
}

/* the interval: the live line and the report, or the live view */
static int on_tick(void *ctx, int fd)
{
	struct session *s = ctx;
	uint64_t expirations;
	struct loss loss;

	if (read(fd, &expirations, sizeof(expirations)) < 0)
		return LOOP_ON;
	consume(s);
	if (handle_pending(s, s->ending, s->ending_size) || refresh_all(s))
		return LOOP_END;
	if (s->tui) {
		draw_tui(s, false);
		return LOOP_ON;
	}
	if (s->opts.interval_s <= 0)
		return LOOP_ON;
	read_loss(s, &loss);
	report__live_line(s->report_out, (clock__now_ns() / 1e9) - s->start_s,
			  heap__stats(s->heap), &s->live_line_from, s->opts.interval_s * expirations,
			  &loss);
	s->live_line_from = *heap__stats(s->heap);
	print_report(s);
	return report_reader_gone(s, s->ending, s->ending_size) ? LOOP_END : LOOP_ON;
}

/* the sources of the loop: a timer is closed by stop_loop */
static int start_loop(struct session *s)
{
	/* the tick also re-reads the target's maps, so it runs even without a live line */
	double tick_s = s->opts.interval_s > 0 ? s->opts.interval_s : 1;
	int err = loop__new(&s->loop);
	size_t i;

	if (!err)
		err = (s->tick_fd = new_timer(tick_s, tick_s)) < 0 ? s->tick_fd : 0;
	if (!err && s->opts.duration_s > 0)
		err = (s->end_fd = new_timer(s->opts.duration_s, 0)) < 0 ? s->end_fd : 0;
	if (!err && s->opts.snapshot_dir)
		err = (s->snap_fd = new_timer(s->opts.snapshot_every_s,
					      s->opts.snapshot_every_s)) < 0 ? s->snap_fd : 0;
	if (!err)
		err = loop__add(s->loop, events__fd(s->events), EPOLLIN, on_events, s);
	for (i = 0; i < MAX_PROCS && !err; i++)
		if (s->procs[i].live)
			err = watch_proc(s, &s->procs[i]);
	if (!err)
		err = loop__add(s->loop, s->signal_fd, EPOLLIN, on_signal, s);
	if (!err)
		err = loop__add(s->loop, s->tick_fd, EPOLLIN, on_tick, s);
	if (!err && s->end_fd >= 0)
		err = loop__add(s->loop, s->end_fd, EPOLLIN, on_duration, s);
	if (!err && s->snap_fd >= 0)
		err = loop__add(s->loop, s->snap_fd, EPOLLIN, on_snapshot, s);
	if (!err && s->http)
		err = loop__add(s->loop, http__fd(s->http), EPOLLIN, on_http, s);
	if (!err && s->tui)
		err = loop__add(s->loop, tui__fd(s->tui), EPOLLIN, on_keys, s);
	if (err)
		return err;
	/*
	 * A pipe whose reader has gone reports EPOLLERR (a socket or terminal
	 * EPOLLHUP) whatever events were asked for. Regular files and /dev/null
	 * cannot be polled (EPERM), and never close under us.
	 */
	loop__add(s->loop, STDOUT_FILENO, 0, on_stream_closed, s);
	loop__add(s->loop, STDERR_FILENO, 0, on_stream_closed, s);
	return 0;
}

static void stop_loop(struct session *s)
{
	loop__destroy(s->loop);
	s->loop = NULL;
	if (s->tick_fd >= 0)
		close(s->tick_fd);
	if (s->end_fd >= 0)
		close(s->end_fd);
	if (s->snap_fd >= 0)
		close(s->snap_fd);
	s->tick_fd = s->end_fd = s->snap_fd = -1;
}

/* consumes events until the processes exit, a signal arrives or time is up */
static int trace(struct session *s, char *ending, size_t ending_size)
{
	int ret = 0;

	s->ending = ending;
	s->ending_size = ending_size;
	ret = start_loop(s);
	if (ret) {
		say(ret, "cannot wait for events");
		stop_loop(s);
		return 1;
	}
	draw_tui(s, false);
	s->rate_from_ns = clock__now_ns();
	s->tracing = true;
	while (ret == LOOP_ON) {
		int wait_ms = s->http ? http__timeout_ms(s->http, POLL_EVERY_MS) : POLL_EVERY_MS;

		/* records are sent without a wakeup until a batch gathers: look anyway */
		ret = loop__run_once(s->loop, wait_ms, on_events, s);
		/* MHD wants a call after every wait, its fd ready or not (its timeouts);
		 * a request is answered here, between two reads of the ring buffer */
		if (s->http)
			http__run(s->http);
	}
	/* what the processes sent before they ended is still in the rings: all of it */
	if (ret == LOOP_END)
		ret = after_read(s, events__flush(s->events));
	if (ret)
		say(ret, "cannot process events");
	s->tracing = false;
	stop_loop(s);
	return ret ? 1 : 0;
}

static void print_summary(struct session *s, const char *ending)
{
	struct summary sum = {
		.pid = s->first ? proc_pid(s->first) : 0,
		.traced_s = (s->stopped_s ? s->stopped_s : clock__now_ns() / 1e9) - s->start_s,
		.ending = ending,
		.stats = *heap__stats(s->heap),
		.sample_bytes = s->opts.sample_bytes,
		.execs = !s->several && s->first && s->first->nexecs ? s->first->execs : NULL,
		.several = s->several,
		.processes = s->several ? processes__count(s->processes) : 0,
		.untraced_processes = s->untraced,
	};
	const struct heap_stats *st = heap__stats(s->heap);

	if (st->peak_ns / 1e9 > s->start_s)
		sum.peak_at_s = st->peak_ns / 1e9 - s->start_s;

	read_loss(s, &sum.loss);
	report__summary(s->report_out, &sum);
	if (events__malformed(s->events))
		fprintf(stderr, "tracelloc: %llu malformed records ignored\n",
			(unsigned long long)events__malformed(s->events));
}

static void session_destroy(struct session *s)
{
	size_t i;

	/* first: nothing is stopped any more, and what is held goes on (closing
	 * the probes' links below can take seconds) */
	holds__release_all(s->holds);
	forks__destroy(s->forks);
	tui__destroy(s->tui);
	http__destroy(s->http);
	outputs__destroy(s->outputs);
	filter__destroy(s->filter);
	options__free(&s->opts);
	threads__destroy(s->threads);
	growth__destroy(s->growth);
	timeline__destroy(s->timeline);
	for (i = 0; i < MAX_PROCS; i++) {
		symbolizer__destroy(s->procs[i].symbolizer);
		attach__destroy(s->procs[i].attach);
	}
	/* the probes' links, all at once; every one is gone on return */
	closer__destroy(s->closer);
	processes__destroy(s->processes);
	unwinder__destroy(s->unwinder);
	events__destroy(s->events);
	heap__destroy(s->heap);
	tracelloc_bpf__destroy(s->skel);
	holds__destroy(s->holds);
	/* a launched command that never ran is killed */
	for (i = 0; i < MAX_PROCS; i++)
		target__destroy(s->procs[i].target);
	if (s->signal_fd >= 0)
		close(s->signal_fd);
}

/* --snapshot-every: a directory we can write into, now */
/* what the output files are made of */
static struct profile *writer_snapshot(void *ctx)
{
	return snapshot(ctx, true);
}

static void writer_target_name(void *ctx, char *buf, size_t size)
{
	target_name(ctx, buf, size);
}

static void outputs_opts(const struct session *s, struct outputs_opts *oo)
{
	*oo = (struct outputs_opts){
		.svg_path = s->opts.svg_path,
		.pprof_path = s->opts.pprof_path,
		.flamegraph_path = s->opts.flamegraph_path,
		.timeline_path = s->opts.timeline_path,
		.flamegraph_metric = s->opts.flamegraph_metric,
		.sample_bytes = s->opts.sample_bytes,
		.snapshot_dir = s->opts.snapshot_dir,
		.snapshot_keep = s->opts.snapshot_keep,
		.verbose = s->opts.verbose > 0,
		.start_s = s->start_s,
		.timeline = s->timeline,
		.events = s->events,
		.snapshot = writer_snapshot,
		.target_name = writer_target_name,
		.ctx = (void *)s,
	};
}

/* output files: fail before tracing, not after */
static int check_outputs(struct session *s)
{
	struct outputs_opts oo;
	bool to_stdout;
	int err;

	outputs_opts(s, &oo);
	err = outputs__check(&oo, &to_stdout);
	/* nothing of the reports may mix into an output there */
	if (!err && to_stdout)
		s->report_out = stderr;
	return err;
}

/* the endpoint listens before tracing: a port in use stops tracelloc at once */
static int start_http(struct session *s)
{
	struct http_opts ho = { .write_page = write_page, .ctx = s };
	char addr[64];
	int err;

	if (!s->opts.listen)
		return 0;
	err = http__new((struct sockaddr *)&s->opts.listen_addr, s->opts.listen_addr_len, &ho,
			&s->http);
	if (err) {
		http__format_addr((struct sockaddr *)&s->opts.listen_addr, addr, sizeof(addr));
		return say(err, "cannot listen on %s", addr);
	}
	return 0;
}

static void announce(struct session *s)
{
	struct proc *p;
	size_t i;

	for (i = 0; i < MAX_PROCS; i++) {
		p = &s->procs[i];
		if (!p->live)
			continue;
		fprintf(stderr, "tracelloc: attached to pid %d: ", proc_pid(p));
		attach__describe(p->attach, stderr);
		fprintf(stderr, ", %d probes\n", attach__probe_count(p->attach));
		if (s->opts.verbose) {
			fprintf(stderr, "tracelloc: probes attached through %s links\n",
				attach__link_kind(p->attach));
			attach__describe_sites(p->attach, stderr);
		}
	}
	if (s->opts.comm)
		fprintf(stderr, "tracelloc: tracing processes called %s, and those that start\n",
			s->opts.comm);
	if (s->http)
		fprintf(stderr, "tracelloc: serving http://%s/debug/pprof/heap and /metrics\n",
			http__address(s->http));
}

/* -v: what serving pages cost, and how long the ring buffer was left unread at most, at
 * all and while writing */
static void describe_costs(struct session *s)
{
	const struct http_stats *st;

	if (!s->opts.verbose)
		return;
	if (s->http) {
		st = http__stats(s->http);
		fprintf(stderr, "tracelloc: http: %llu requests, %.1f ms serving them, at most "
			"%.2f ms at once; connections dropped: %llu without headers in time, "
			"%llu for room\n", (unsigned long long)st->requests, st->busy_ns / 1e6,
			st->longest_run_ns / 1e6, (unsigned long long)st->dropped_late,
			(unsigned long long)st->dropped_for_room);
	}
	fprintf(stderr, "tracelloc: the ring buffer was read at least every %.2f ms",
		events__longest_gap_ns(s->events) / 1e6);
	if (events__longest_writing_gap_ns(s->events))
		fprintf(stderr, ", every %.2f ms while pages and files were written",
			events__longest_writing_gap_ns(s->events) / 1e6);
	fputc('\n', stderr);
}

/* the end of a trace: final report, summary, the launched command, files */
static int finish(struct session *s, const char *ending)
{
	tui__destroy(s->tui);
	s->tui = NULL;
	heap__finish(s->heap);
	/* the last point: the end */
	sample_timeline(s);
	/* the last periodic report may already say it all */
	if (!s->reported || memcmp(&s->last_report, heap__stats(s->heap), sizeof(s->last_report)))
		print_report(s);
	print_summary(s, ending);
	describe_costs(s);
	/* a command we started, cut short by --duration or a signal, ends with the trace */
	if (s->opts.command && s->first && target__terminate(s->first->target) > 0)
		fprintf(stderr, "tracelloc: sent SIGTERM to pid %d, the command it started\n",
			proc_pid(s->first));
	return outputs__write(s->outputs);
}

/* each traced process holds tens of descriptors (a link per probe, its
 * files): the soft limit (often 1024) goes up to the hard one */
static void raise_fd_limit(void)
{
	struct rlimit lim;

	if (!getrlimit(RLIMIT_NOFILE, &lim) && lim.rlim_cur < lim.rlim_max) {
		lim.rlim_cur = lim.rlim_max;
		setrlimit(RLIMIT_NOFILE, &lim);
	}
}

/* fds 0-2 open, so that no file tracelloc opens is taken for standard output */
static void hold_std_fds(void)
{
	int fd;

	for (fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY) < 0)
			break;
}

/* what can be checked before anything is touched: a line and 1 for the
 * first that fails */
static int prepare(struct session *s)
{
	int err = check_system();

	if (!err && !(s->forks = forks__new(MAX_FORK_HALVES)))
		err = say(-ENOMEM, "cannot start tracing");
	/* before anything is attached: the live view needs a terminal */
	if (!err && s->opts.tui && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)))
		err = say(0, "--tui needs a terminal: standard input and output are not one");
	if (!err)
		err = build_filter(s);
	if (!err)
		err = check_outputs(s);
	if (!err)
		err = start_http(s);
	if (!err && block_signals(s))
		err = say(-errno, "cannot set up signal handling");
	return err;
}

/* the targets found, the BPF programs loaded and attached: a line and 1
 * for the first step that fails */
static int bring_up(struct session *s)
{
	int err = open_targets(s);

	/* before anything can be stopped for us (a launched command is held by
	 * ptrace until then, which dies with us); after the command, so that it
	 * has the pid it would have had */
	if (!err && (err = holds__new(&s->holds)))
		err = say(err, "cannot start the guardian of held processes");
	/* after the guardian's fork: its threads are not copied into it */
	if (!err && !(s->closer = closer__new()))
		err = say(-ENOMEM, "cannot start the threads that close probes");
	if (!err) {
		warm_heap();
		err = open_bpf(s);
	}
	if (!err)
		err = find_allocators(s);
	if (!err)
		err = load_bpf(s);
	if (!err)
		err = attach_probes(s);
	if (!err && s->opts.comm)
		err = catch_up_comm(s);
	if (!err && s->opts.command && (err = target__resume(s->first->target)))
		err = say(err, "cannot resume pid %d", proc_pid(s->first));
	return err;
}

/* from the first traced record to the outputs written; 1 if one failed */
static int run(struct session *s)
{
	struct outputs_opts oo;
	char ending[512] = "stopped";
	int err;

	s->start_s = clock__now_ns() / 1e9;
	outputs_opts(s, &oo);
	if (!(s->outputs = outputs__new(&oo)))
		return say(-ENOMEM, "cannot start tracing");
	announce(s);
	if (s->opts.tui && (err = tui__new(&s->tui))) {
		say(err == -ENOTTY ? 0 : err, "cannot start the live view");
		finish(s, "stopped");
		return 1;
	}
	err = trace(s, ending, sizeof(ending));
	/* the summary's time ends here, not after the outputs are written */
	s->stopped_s = clock__now_ns() / 1e9;
	if (finish(s, ending))
		err = 1;
	return err;
}

int main(int argc, char **argv)
{
	struct session s = { .signal_fd = -1, .tick_fd = -1, .end_fd = -1, .snap_fd = -1,
			     .report_out = stdout };
	int err;

	hold_std_fds();
	raise_fd_limit();
	/* blocks of a MiB and more straight from mmap, always: growing one moves
	 * its pages instead of copying them, and a writer's array of a million
	 * rows then grows without a stall (glibc would raise the threshold to
	 * 32 MiB, copying up to that much, and faulting it in, in one go) */
	mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
	err = options__parse(argc, argv, &s.opts);
	if (err)
		return err == OPTIONS_EXIT ? 0 : 2;
	verbosity = s.opts.verbose;
	libbpf_set_print(print_libbpf);

	err = prepare(&s);
	if (!err)
		err = bring_up(&s);
	if (!err)
		err = run(&s);
	session_destroy(&s);
	return err ? 1 : 0;
}
