// SPDX-License-Identifier: GPL-2.0
/* tracelloc: which call stacks of a process hold heap memory, and how much */
#include <errno.h>
#include <fcntl.h>
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
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "clock.h"
#include "attach.h"
#include "events.h"
#include "filter.h"
#include "folded.h"
#include "heap.h"
#include "http.h"
#include "metrics.h"
#include "options.h"
#include "outfile.h"
#include "pprof.h"
#include "profile.h"
#include "report.h"
#include "svg.h"
#include "symbolize.h"
#include "target.h"
#include "threads.h"
#include "tracelloc.h"
#include "tracelloc.skel.h"
#include "unwinder.h"

/* see main() */
#define MMAP_THRESHOLD (1 << 20)

#define POLL_EVERY_MS 20

/* everything one run holds; torn down in one place */
struct session {
	struct options opts;
	struct target *target;
	struct tracelloc_bpf *skel;
	struct attach *attach;
	struct heap *heap;
	struct events *events;
	struct symbolizer *symbolizer;
	struct threads *threads;	/* --per-thread, else NULL */
	struct unwinder *unwinder;	/* NULL: frame pointers only */
	uint32_t unwinder_gen;		/* maps_gen when its tables were last brought up to date */
	struct filter *filter;
	struct http *http;
	FILE *report_out;		/* reports, live lines, summary: stderr when an output is stdout */
	int signal_fd;
	double start_s;
	struct heap_stats last_report;	/* the heap when the last report was printed */
	uint32_t stacks_at_refresh;	/* stacks known when the maps were last read */
	uint64_t refreshed_ns;
	bool reported;
	bool tracing;			/* in trace(): events are read */
	bool main_exit_told;		/* the probes stopped with the main thread, said once */
	char execs[1024];		/* the programs run: "/bin/sh -> /usr/bin/python3.11" */
	int nexecs;			/* execs followed */
	bool exec_unsettled;		/* the last one's libraries are not probed yet */
	uint32_t probes_gen;		/* maps_gen when the probes were last brought up to date */
	/* allocation rate over the last tick, for /metrics */
	struct heap_stats rate_from;
	uint64_t rate_from_ns;
	double alloc_calls_per_s;
	double alloc_bytes_per_s;
};

static int fail(int err, const char *fmt, ...)
{
	va_list ap;

	fputs("tracelloc: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (err)
		fprintf(stderr, ": %s", strerror(-err));
	fputc('\n', stderr);
	return 1;
}

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
		return fail(0, "needs root (CAP_BPF, CAP_PERFMON, CAP_SYS_PTRACE and CAP_SYS_ADMIN)");
	if (access("/sys/bus/event_source/devices/uprobe/type", R_OK))
		return fail(0, "this kernel has no uprobe support (CONFIG_UPROBE_EVENTS)");
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) <= 0)
		return fail(0, "this kernel has no BPF ring buffer (needs Linux 5.8 or later)");
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) <= 0)
		return fail(0, "this kernel has no BPF task storage (needs Linux 5.11 or later)");
	return 0;
}

static int block_signals(struct session *s)
{
	sigset_t set, blocked;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGUSR1);
	/* a scraper that hangs up mid-page is a failed write, not the end of the trace */
	blocked = set;
	sigaddset(&blocked, SIGPIPE);
	if (sigprocmask(SIG_BLOCK, &blocked, NULL))
		return -errno;
	s->signal_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return s->signal_fd < 0 ? -errno : 0;
}

static int open_target(struct session *s)
{
	int err;

	if (s->opts.pid) {
		err = target__open(s->opts.pid, &s->target);
		if (err == -ESRCH)
			return fail(0, "no process with pid %d", s->opts.pid);
		if (err == -EPERM)
			return fail(0, "pid %d is a kernel thread: it has no heap to trace", s->opts.pid);
		if (err == -EINVAL)
			return fail(0, "tracelloc cannot trace itself");
		if (err)
			return fail(err, "cannot open pid %d", s->opts.pid);
		return 0;
	}
	err = target__launch(s->opts.command, &s->target);
	if (err == -ECHILD)
		return fail(0, "'%s' exited before its libraries were loaded", s->opts.command[0]);
	if (err)
		return fail(err, "cannot run '%s'", s->opts.command[0]);
	return 0;
}

/* The kernel's id of the initial pid namespace (PROC_PID_INIT_INO): there
 * the BPF side can take the pids it already has. */
#define INIT_PID_NS_INO 0xEFFFFFFCU

static int pid_namespace(uint64_t *dev, uint64_t *ino)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st))
		return -errno;
	*dev = st.st_ino == INIT_PID_NS_INO ? 0 : st.st_dev;
	*ino = st.st_ino == INIT_PID_NS_INO ? 0 : st.st_ino;
	return 0;
}

/* the target has exited (its pidfd polls readable) */
static bool target_gone(struct session *s)
{
	struct pollfd pfd = { .fd = target__pidfd(s->target), .events = POLLIN };

	return poll(&pfd, 1, 0) == 1;
}

/* the unwind tables of what the target maps now, built before the probes
 * attach; the maps that hold them are sized from them */
static int build_unwind_tables(struct session *s)
{
	struct unwinder_stats st;
	int err;

	s->skel->rodata->unwind_mode = s->opts.unwind;
	if (s->opts.unwind == UNWIND_MODE_FP)
		return bpf_map__set_max_entries(s->skel->maps.unwind_rows, 1);
	err = unwinder__new(target__pid(s->target), &s->unwinder);
	if (err == -ESRCH || (err && target_gone(s)))
		return fail(0, "pid %d exited while attaching", target__pid(s->target));
	if (err)
		return fail(err, "cannot read the unwind tables of pid %d", target__pid(s->target));
	err = bpf_map__set_max_entries(s->skel->maps.unwind_rows, unwinder__capacity(s->unwinder));
	if (err)
		return fail(err, "cannot size the unwind tables");
	if (s->opts.verbose) {
		unwinder__stats(s->unwinder, &st);
		fprintf(stderr, "tracelloc: unwind tables of %zu files: %zu rows, %.0f bytes per MB of "
			"text, built in %.1f ms; room for %zu rows\n", st.files, st.rows,
			st.text_bytes ? st.rows * 16.0 * (1 << 20) / st.text_bytes : 0.0,
			st.build_ns / 1e6, unwinder__capacity(s->unwinder));
	}
	return 0;
}

static int open_bpf(struct session *s)
{
	uint64_t ns_dev = 0, ns_ino = 0;
	size_t ring_bytes;
	int err, i, ncpus;

	s->skel = tracelloc_bpf__open();
	if (!s->skel)
		return fail(-errno, "cannot open the BPF programs");
	s->skel->rodata->target_tgid = target__pid(s->target);
	err = pid_namespace(&ns_dev, &ns_ino);
	if (err)
		return fail(err, "cannot read /proc/self/ns/pid");
	s->skel->rodata->pidns_dev = ns_dev;
	s->skel->rodata->pidns_ino = ns_ino;
	s->skel->rodata->empty_probes = s->opts.empty_probes;
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0)
		return fail(ncpus ? ncpus : -EINVAL, "cannot count the CPUs");
	ring_bytes = events__ring_bytes(s->opts.ringbuf_bytes, ncpus);
	s->skel->rodata->wakeup_bytes = ring_bytes / 8;
	s->skel->rodata->sample_bytes = s->opts.sample_bytes;
	/* a command we started is held at each exec until its new program is
	 * probed; a -p target is not stopped (its parent may be a shell that
	 * would take a stop for the user's ^Z) and is followed as it runs */
	s->skel->rodata->stop_at_exec = !s->opts.pid && !s->opts.no_follow_exec;
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
			return fail(err, "cannot size the sampling table");
	}
	/* the rings and what reads them exist before the first probe fires */
	s->heap = heap__new();
	if (!s->heap)
		return fail(-ENOMEM, "cannot start");
	heap__set_sampling(s->heap, s->opts.sample_bytes);
	s->events = events__new(ncpus, ring_bytes, s->heap);
	if (!s->events)
		return fail(-errno, "cannot create the BPF ring buffers");
	events__follow_exec(s->events, !s->opts.no_follow_exec);
	s->skel->rodata->per_thread = s->opts.per_thread;
	if (s->opts.per_thread) {
		s->threads = threads__new();
		if (!s->threads)
			return fail(-ENOMEM, "cannot start");
		events__set_threads(s->events, s->threads);
	}
	err = bpf_map__reuse_fd(s->skel->maps.rings, events__rings_map_fd(s->events));
	if (err)
		return fail(err, "cannot set up the ring buffers");
	return 0;
}

static int find_allocator(struct session *s)
{
	pid_t pid = target__pid(s->target);
	int err;

	struct attach_opts aopts = { .probe_at_symbol = s->opts.probe_at_symbol };

	s->attach = attach__new(s->skel, pid, &aopts);
	if (!s->attach)
		return fail(-ENOMEM, "cannot attach");
	err = attach__find(s->attach);
	/* a process that has just exited maps nothing: say that, not "no allocator" */
	if (err == -ESRCH || (err && target_gone(s)))
		return fail(0, "pid %d exited while attaching", pid);
	if (err == -ENOENT)
		return fail(0, "pid %d maps no allocator tracelloc knows (glibc, jemalloc, tcmalloc, "
			    "mimalloc, musl)", pid);
	if (err == -ENOEXEC)
		return fail(0, "pid %d runs a static binary without a symbol table (stripped): "
			    "nothing names its malloc", pid);
	if (err == -EMEDIUMTYPE)
		return fail(0, "pid %d uses an allocator tracelloc does not trace (malloc is "
			    "defined in %s)", pid, attach__culprit(s->attach));
	if (err)
		return fail(err, "cannot read the objects mapped by pid %d", pid);
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
	int err = attach__prepare(s->attach);

	if (!err)
		err = tracelloc_bpf__load(s->skel);
	cool_heap();
	if (err)
		return fail(err, "cannot load the BPF programs (run with -v for details)");
	err = events__publish(s->events);
	if (err)
		return fail(err, "cannot hand the ring buffers to the BPF programs");
	if (s->unwinder) {
		struct unwinder_maps maps = {
			.rows_fd = bpf_map__fd(s->skel->maps.unwind_rows),
			.mods_fd = bpf_map__fd(s->skel->maps.unwind_mods),
			.mods_version = &s->skel->bss->mods_version,
			.mods_count = s->skel->bss->mods_count,
			.uprobes_start = &s->skel->bss->uprobes_start,
			.uprobes_end = &s->skel->bss->uprobes_end,
		};

		err = unwinder__publish(s->unwinder, &maps);
		if (err == -ESRCH || (err && target_gone(s)))
			return fail(0, "pid %d exited while attaching", target__pid(s->target));
		if (err)
			return fail(err, "cannot hand the unwind tables to the BPF programs");
	}
	return 0;
}

/* the program's mappings made by the loader (a dlopen'ed library's .bss)
 * are its own: where its code is now */
static void set_loader(struct session *s)
{
	uint64_t start, end;

	attach__loader(s->attach, &start, &end);
	s->skel->bss->loader_start = start;
	s->skel->bss->loader_end = end;
}

static void tell_new_probes(struct session *s)
{
	char prefix[64];

	snprintf(prefix, sizeof(prefix), "tracelloc: pid %d: probing as well: ", target__pid(s->target));
	attach__describe_new(s->attach, prefix, stderr);
}

/* an allocator library loaded since (dlopen): probed as soon as ld.so says so */
static void refresh_probes(struct session *s)
{
	uint32_t gen = __atomic_load_n(&s->skel->bss->maps_gen, __ATOMIC_RELAXED);

	if (gen == s->probes_gen)
		return;
	s->probes_gen = gen;
	/* a library that cannot be probed stays so; the others are */
	attach__refresh(s->attach);
	set_loader(s);
	tell_new_probes(s);
}

/* tables for libraries mapped since the last look: at once after ld.so
 * says the maps change, and on every tick for the rest ([uprobes], mmap) */
static void refresh_unwinder(struct session *s, bool always)
{
	uint32_t gen = __atomic_load_n(&s->skel->bss->maps_gen, __ATOMIC_RELAXED);

	if (!s->unwinder || (!always && gen == s->unwinder_gen))
		return;
	s->unwinder_gen = gen;
	unwinder__refresh(s->unwinder);
}

static int attach_probes(struct session *s)
{
	int err;

	/* before the probes: an exec from then on is seen */
	s->skel->links.on_exec = bpf_program__attach(s->skel->progs.on_exec);
	if (!s->skel->links.on_exec)
		return fail(-errno, "cannot watch pid %d for exec", target__pid(s->target));
	s->skel->links.on_thread_exit = bpf_program__attach(s->skel->progs.on_thread_exit);
	if (!s->skel->links.on_thread_exit)
		return fail(-errno, "cannot watch pid %d for exits", target__pid(s->target));
	if (!s->opts.no_mmap) {
		set_loader(s);
		s->skel->links.on_sys_enter = bpf_program__attach(s->skel->progs.on_sys_enter);
		s->skel->links.on_sys_exit = s->skel->links.on_sys_enter ?
			bpf_program__attach(s->skel->progs.on_sys_exit) : NULL;
		if (!s->skel->links.on_sys_exit)
			return fail(-errno, "cannot trace the system calls of pid %d (mmap, munmap; "
				    "--no-mmap goes without)", target__pid(s->target));
	}
	err = attach__attach(s->attach);

	/* the kernel refuses a uprobe where another tool's probe on the same
	 * instruction uses a different reference counter (BCC's memleak does) */
	if (err == -EINVAL)
		return fail(0, "cannot attach probes to pid %d: the kernel refused them; another "
			    "tracer may hold probes on the same functions (dmesg: \"ref_ctr_offset "
			    "mismatch\")", target__pid(s->target));
	if (err && target_gone(s))
		return fail(0, "pid %d exited while tracelloc attached to it", target__pid(s->target));
	if (err)
		return fail(err, "cannot attach probes to pid %d", target__pid(s->target));
	return 0;
}

static int build_filter(struct session *s)
{
	size_t i;

	s->filter = filter__new(s->opts.default_filters);
	if (!s->filter)
		return fail(-ENOMEM, "cannot build the filters");
	for (i = 0; i < s->opts.nexcludes; i++)
		if (filter__exclude(s->filter, s->opts.excludes[i]))
			return fail(0, "invalid --exclude '%s'", s->opts.excludes[i]);
	for (i = 0; i < s->opts.nincludes; i++)
		if (filter__include(s->filter, s->opts.includes[i]))
			return fail(0, "invalid --include '%s'", s->opts.includes[i]);
	return 0;
}

/* the target's program, as /proc/PID/exe names it */
static void exe_path(struct session *s, char *buf, size_t size)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", target__pid(s->target));
	n = readlink(path, buf, size - 1);
	if (n <= 0)
		snprintf(buf, size, "?");
	else
		buf[n] = '\0';
}

static const uint64_t *map_frames(void *ctx, uint16_t gen, const uint64_t *frames,
				  uint32_t nframes, uint64_t *buf)
{
	return symbolizer__map_frames(ctx, gen, frames, nframes, buf);
}

static int start_engine(struct session *s)
{
	exe_path(s, s->execs, sizeof(s->execs));
	s->symbolizer = symbolizer__new(target__pid(s->target));
	if (!s->symbolizer)
		return fail(-ENOMEM, "cannot start the symbolizer");
	/* stacks are named after the maps of their generation */
	symbolizer__set_generation(s->symbolizer, &s->skel->bss->maps_gen);
	events__set_frames_fn(s->events, map_frames, s->symbolizer);
	/* open the target's files now: they may be gone when we name the stacks */
	symbolizer__refresh(s->symbolizer);
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
}

static int consume(struct session *s);

/* a writer that takes long must not leave the ring buffer to fill up */
static void consume_while_writing(void *ctx)
{
	struct session *s = ctx;

	if (s->tracing)
		consume(s);
}

/* for_writer: files and pages, not the report (which walks the heap itself) */
static struct profile *snapshot(struct session *s, bool for_writer)
{
	struct profile_opts popts = {
		.symbolizer = s->symbolizer,
		.filter = s->filter,
		.allocator_frame = for_writer && s->opts.allocator_frame,
		.threads = s->threads,
		.idle = for_writer ? consume_while_writing : NULL,
		.idle_ctx = s,
	};

	return profile__snapshot(s->heap, &popts);
}

static int write_folded(FILE *out, void *ctx)
{
	struct session *s = ctx;
	struct profile *p = snapshot(s, true);
	int err;

	if (!p)
		return -ENOMEM;
	err = folded__write(out, p, s->opts.flamegraph_metric);
	profile__destroy(p);
	return err;
}

static int write_svg(FILE *out, void *ctx)
{
	struct session *s = ctx;
	struct profile *p = snapshot(s, true);
	char title[256];
	int err;

	if (!p)
		return -ENOMEM;
	if (s->opts.command)
		snprintf(title, sizeof(title), "Heap of %s, pid %d", s->opts.command[0],
			 target__pid(s->target));
	else
		snprintf(title, sizeof(title), "Heap of pid %d", target__pid(s->target));
	err = svg__write(out, p, s->opts.flamegraph_metric, title);
	profile__destroy(p);
	return err;
}

static int write_pprof_view(FILE *out, struct session *s, enum pprof_view view)
{
	struct pprof_opts po = { .view = view, .period = s->opts.sample_bytes };
	struct profile *p = snapshot(s, true);
	struct timespec wall;
	char comment[256];
	int err;

	if (!p)
		return -ENOMEM;
	clock_gettime(CLOCK_REALTIME, &wall);
	po.time_ns = wall.tv_sec * 1000000000LL + wall.tv_nsec;
	po.duration_ns = (int64_t)((clock__now_ns() / 1e9 - s->start_s) * 1e9);
	snprintf(comment, sizeof(comment), "tracelloc: pid %d%s%s", target__pid(s->target),
		 s->opts.command ? ", " : "", s->opts.command ? s->opts.command[0] : "");
	po.comment = comment;
	err = pprof__write(out, p, &po);
	profile__destroy(p);
	return err;
}

static int write_pprof(FILE *out, void *ctx)
{
	return write_pprof_view(out, ctx, PPROF_INUSE);
}

static int write_metrics(FILE *out, struct session *s)
{
	struct metrics m = {
		.pid = target__pid(s->target),
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
		err = write_pprof_view(out, s, PPROF_INUSE);
		break;
	case HTTP_PAGE_ALLOCS:
		err = write_pprof_view(out, s, PPROF_ALLOCS);
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

struct output {
	const char *flag;
	const char *path;
	int (*write_fn)(FILE *out, void *ctx);
};

#define MAX_OUTPUTS 3

/* the output files asked for, in the order they are written */
static size_t list_outputs(const struct session *s, struct output outs[MAX_OUTPUTS])
{
	size_t n = 0;

	if (s->opts.svg_path)
		outs[n++] = (struct output){ "--svg", s->opts.svg_path, write_svg };
	if (s->opts.pprof_path)
		outs[n++] = (struct output){ "--pprof", s->opts.pprof_path, write_pprof };
	if (s->opts.flamegraph_path)
		outs[n++] = (struct output){ "--flamegraph", s->opts.flamegraph_path, write_folded };
	return n;
}

/* one line for an output that cannot be written (t as far as it was resolved) */
static int output_failed(const char *path, const struct outfile_target *t, int err)
{
	if (t->kind == OUTFILE_BLOCK_DEVICE)
		return fail(0, "will not write %s: it is a block device", path);
	if (t->kind == OUTFILE_FOREIGN_LINK)
		return fail(0, "will not follow %s: a symlink in a sticky world-writable directory, "
			    "owned by neither the directory's owner nor you", t->path);
	if (err == -ENXIO && S_ISFIFO(t->type))
		return fail(0, "cannot write %s: no reader", path);
	return fail(err, "cannot write %s", path);
}

static int write_output(struct session *s, const struct output *o)
{
	uint64_t start = clock__now_ns();
	struct outfile_target t;
	int err;

	/* resolved again: what the path names may have changed while tracing */
	err = outfile__resolve(o->path, &t);
	if (!err)
		err = outfile__write(&t, o->write_fn, s);
	/* standard output's reader has gone (`| head`): it wants no more, and no complaint */
	if (err == -EPIPE && t.kind == OUTFILE_STDOUT)
		return 0;
	if (err)
		return output_failed(o->path, &t, err);
	if (s->opts.verbose)
		fprintf(stderr, "tracelloc: wrote %s in %.0f ms\n", o->path, (clock__now_ns() - start) / 1e6);
	return 0;
}

/* every output is attempted, whatever became of the ones before */
static int write_outputs(struct session *s)
{
	struct output outs[MAX_OUTPUTS];
	size_t i, n = list_outputs(s, outs);
	int failed = 0;

	events__writing(s->events, true);
	for (i = 0; i < n; i++)
		if (write_output(s, &outs[i]))
			failed = 1;
	events__writing(s->events, false);
	return failed;
}

static void print_report(struct session *s)
{
	struct report_opts ro = {
		.top = s->opts.top,
		.min_age_ns = (uint64_t)(s->opts.min_age_s * 1e9),
		.sort = s->opts.sort,
		.color = isatty(fileno(s->report_out)) && !getenv("NO_COLOR"),
		.now_ns = clock__now_ns(),
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
		fail(err, "cannot print the report");
	profile__destroy(p);
}

static int add_fd(int epfd, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

/*
 * A pipe whose reader has gone reports EPOLLERR (a socket or terminal
 * EPOLLHUP) whatever events were asked for. Regular files and /dev/null
 * cannot be polled (EPERM), and never close under us.
 */
static void watch_closing(int epfd, int fd)
{
	struct epoll_event ev = { .events = 0, .data.fd = fd };

	epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
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

/*
 * Handles waiting records. New stacks may point into code mapped since the
 * maps were last read (dlopen, JIT): read them again now, while the process
 * lives, at most every 10 ms.
 */
/* after a read of the rings: new stacks may point into code mapped since */
static int after_read(struct session *s, int err)
{
	uint32_t nstacks;

	/* lost data is never silent */
	if (!s->main_exit_told && events__main_exited(s->events) &&
	    attach__per_thread_filter(s->attach)) {
		fprintf(stderr, "tracelloc: the main thread of pid %d exited: with this kernel's "
			"perf-event links the probes stop with it, and what its other threads do "
			"from now on is not traced\n", target__pid(s->target));
		s->main_exit_told = true;
	}

	/* after an exec the maps are the new program's: keep the old ones */
	if (err || events__exec_seen(s->events))
		return err;
	refresh_unwinder(s, false);
	if (!events__exec_pending(s->events))
		refresh_probes(s);
	nstacks = stacks__count(heap__stacks(s->heap));
	if (nstacks != s->stacks_at_refresh && clock__now_ns() - s->refreshed_ns >= 10000000ULL) {
		symbolizer__refresh(s->symbolizer);
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

/* what an exec's new program that cannot be traced ends the trace with */
static void exec_verdict(struct session *s, int err, char *ending, size_t ending_size)
{
	const char *exe = strrchr(s->execs, ' ') ? strrchr(s->execs, ' ') + 1 : s->execs;

	if (err == -ENOENT)
		snprintf(ending, ending_size, "target called exec of %.200s, which maps no allocator "
			 "tracelloc knows: stopped there", exe);
	else if (err == -ENOEXEC)
		snprintf(ending, ending_size, "target called exec of %.200s, a static binary without "
			 "a symbol table: stopped there", exe);
	else if (err == -EMEDIUMTYPE)
		snprintf(ending, ending_size, "target called exec of %.200s, whose malloc is in %.200s, an "
			 "allocator tracelloc does not trace: stopped there", exe,
			 attach__culprit(s->attach));
	else
		snprintf(ending, ending_size, "target called exec of %.200s, which could not be "
			 "probed (%s): stopped there", exe, strerror(-err));
}

/* probes, tables and names for what the target maps now; 0, or why its
 * program cannot be traced */
static int probe_new_files(struct session *s)
{
	int err;

	refresh_unwinder(s, true);
	symbolizer__refresh(s->symbolizer);
	err = attach__refresh(s->attach);
	set_loader(s);
	s->probes_gen = __atomic_load_n(&s->skel->bss->maps_gen, __ATOMIC_RELAXED);
	tell_new_probes(s);
	return err;
}

/*
 * The target called exec, and the trace goes on in its new program: the old
 * heap went with the old program. A command we started was stopped by the
 * BPF program as its new program began; it waits, stopped, until that
 * program's files are probed and their tables built: its executable and
 * ld.so now, its libraries at ld.so's hook (a second stop), before any of
 * their code runs. A -p target runs on, and is probed as it maps its files.
 * false, with the ending, when the new program cannot be traced.
 */
static bool follow_exec(struct session *s, char *ending, size_t ending_size)
{
	pid_t pid = target__pid(s->target);
	bool hold = s->skel->rodata->stop_at_exec;
	struct heap *heap;
	size_t len;
	int err = 0;

	if (hold && (err = target__wait_stopped(s->target))) {
		if (target_gone(s))
			snprintf(ending, ending_size, "target exited");
		else
			snprintf(ending, ending_size, "target called exec and was not held there (%s): "
				 "stopped", strerror(-err));
		return false;
	}
	len = strlen(s->execs);
	snprintf(s->execs + len, sizeof(s->execs) - len, " -> ");
	len = strlen(s->execs);
	exe_path(s, s->execs + len, sizeof(s->execs) - len);
	s->nexecs++;
	fprintf(stderr, "tracelloc: pid %d called exec: now %s\n", pid,
		s->execs + len);

	heap = heap__new();
	if (!heap) {
		snprintf(ending, ending_size, "target called exec: out of memory");
		return false;
	}
	heap__set_sampling(heap, s->opts.sample_bytes);
	heap__destroy(s->heap);
	s->heap = heap;
	events__exec_done(s->events, heap);
	s->reported = false;
	s->stacks_at_refresh = 0;
	memset(&s->rate_from, 0, sizeof(s->rate_from));
	symbolizer__destroy(s->symbolizer);
	s->symbolizer = symbolizer__new(pid);
	if (!s->symbolizer) {
		snprintf(ending, ending_size, "target called exec: out of memory");
		return false;
	}
	symbolizer__set_generation(s->symbolizer, &s->skel->bss->maps_gen);
	events__set_frames_fn(s->events, map_frames, s->symbolizer);

	err = probe_new_files(s);
	/* a dynamic program's allocator comes with its libraries: at the hook */
	s->exec_unsettled = attach__loader_probed(s->attach) && (!err || err == -ENOENT);
	if (s->exec_unsettled) {
		if (hold) {
			s->skel->bss->hook_calls = 0;
			s->skel->bss->hold_at_hook = 1;
		}
		err = 0;
	}
	if (hold)
		target__continue(s->target);
	if (err)
		exec_verdict(s, err, ending, ending_size);
	return !err;
}

/* the second stop of a followed exec, at ld.so's hook, or (-p) a tick */
static bool settle_exec(struct session *s, char *ending, size_t ending_size)
{
	bool hold = s->skel->rodata->stop_at_exec;
	int err;

	if (!s->exec_unsettled || (hold && s->skel->bss->hold_at_hook))
		return true;
	if (hold && target__wait_stopped(s->target))
		return true;	/* gone: the pidfd says so */
	s->exec_unsettled = false;
	err = probe_new_files(s);
	if (hold)
		target__continue(s->target);
	if (err)
		exec_verdict(s, err, ending, ending_size);
	return !err;
}

/* After a read: an exec ends the trace (--no-follow-exec), or is followed. */
static bool exec_ending(struct session *s, char *ending, size_t ending_size)
{
	char exe[256];

	if (events__exec_pending(s->events))
		return !follow_exec(s, ending, ending_size);
	if (s->exec_unsettled && s->skel->rodata->stop_at_exec)
		return !settle_exec(s, ending, ending_size);
	if (!events__exec_seen(s->events))
		return false;
	exe_path(s, exe, sizeof(exe));
	snprintf(ending, ending_size, "target called exec (now %s): stopped there", exe);
	return true;
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

/* consumes events until the target exits, a signal arrives or time is up */
static int trace(struct session *s, char *ending, size_t ending_size)
{
	/* the tick also re-reads the target's maps, so it runs even without a live line */
	double tick_s = s->opts.interval_s > 0 ? s->opts.interval_s : 1;
	int epfd, tick_fd = -1, end_fd = -1, err;
	struct heap_stats prev = {};
	bool done = false;

	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0)
		return fail(-errno, "epoll");
	tick_fd = new_timer(tick_s, tick_s);
	if (s->opts.duration_s > 0)
		end_fd = new_timer(s->opts.duration_s, 0);
	err = tick_fd < 0 ? tick_fd : end_fd < -1 ? end_fd : 0;
	if (!err)
		err = add_fd(epfd, events__fd(s->events));
	if (!err)
		err = add_fd(epfd, target__pidfd(s->target));
	if (!err)
		err = add_fd(epfd, s->signal_fd);
	if (!err)
		err = add_fd(epfd, tick_fd);
	if (!err && end_fd >= 0)
		err = add_fd(epfd, end_fd);
	if (!err && s->http)
		err = add_fd(epfd, http__fd(s->http));
	if (err) {
		fail(err, "cannot wait for events");
		goto out;
	}
	/* `tracelloc ... | head`: the end when head has read enough */
	watch_closing(epfd, STDOUT_FILENO);
	watch_closing(epfd, STDERR_FILENO);

	s->rate_from_ns = clock__now_ns();
	s->tracing = true;
	while (!done) {
		int wait_ms = s->http ? http__timeout_ms(s->http, POLL_EVERY_MS) : POLL_EVERY_MS;
		struct epoll_event evs[8];
		int n, i;

		/* records are sent without a wakeup until a batch gathers: look anyway */
		n = epoll_wait(epfd, evs, 8, wait_ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = fail(-errno, "epoll_wait");
			goto out;
		}
		if (n == 0) {
			err = consume(s);
			if (err) {
				fail(err, "cannot process events");
				goto out;
			}
			done = exec_ending(s, ending, ending_size);
		}
		for (i = 0; i < n; i++) {
			int fd = evs[i].data.fd;

			if (fd == events__fd(s->events)) {
				err = consume(s);
				if (err) {
					fail(err, "cannot process events");
					goto out;
				}
				done = exec_ending(s, ending, ending_size);
			} else if (fd == target__pidfd(s->target)) {
				target__ending(s->target, ending, ending_size);
				done = true;
			} else if (fd == s->signal_fd) {
				struct signalfd_siginfo si;

				if (read(s->signal_fd, &si, sizeof(si)) != sizeof(si))
					continue;
				if (si.ssi_signo == SIGUSR1) {
					consume(s);
					write_outputs(s);
					continue;
				}
				snprintf(ending, ending_size, "interrupted");
				done = true;
			} else if (fd == end_fd) {
				snprintf(ending, ending_size, "duration elapsed");
				done = true;
			} else if (fd == STDOUT_FILENO || fd == STDERR_FILENO) {
				if (!done)
					stream_closed(fd, ending, ending_size);
				done = true;
			} else if (fd == tick_fd) {
				uint64_t expirations;
				struct loss loss;

				if (read(tick_fd, &expirations, sizeof(expirations)) < 0)
					continue;
				consume(s);
				if (exec_ending(s, ending, ending_size) ||
				    (s->exec_unsettled && !settle_exec(s, ending, ending_size))) {
					done = true;
					continue;
				}
				symbolizer__refresh(s->symbolizer);
				refresh_unwinder(s, true);
				update_rate(s);
				if (s->opts.interval_s <= 0)
					continue;
				read_loss(s, &loss);
				report__live_line(s->report_out, (clock__now_ns() / 1e9) - s->start_s,
						  heap__stats(s->heap), &prev,
						  s->opts.interval_s * expirations, &loss);
				prev = *heap__stats(s->heap);
				print_report(s);
				if (!done && report_reader_gone(s, ending, ending_size))
					done = true;
			}
		}
		/* MHD wants a call after every wait, its fd ready or not (its timeouts);
		 * a request is answered here, between two reads of the ring buffer */
		if (s->http)
			http__run(s->http);
	}
	/* what the target sent before it ended is still in the rings: all of it */
	err = after_read(s, events__flush(s->events));
	if (err)
		fail(err, "cannot process events");
out:
	s->tracing = false;
	if (tick_fd >= 0)
		close(tick_fd);
	if (end_fd >= 0)
		close(end_fd);
	close(epfd);
	return err ? 1 : 0;
}

static void print_summary(struct session *s, const char *ending)
{
	struct summary sum = {
		.pid = target__pid(s->target),
		.traced_s = (clock__now_ns() / 1e9) - s->start_s,
		.ending = ending,
		.stats = *heap__stats(s->heap),
		.sample_bytes = s->opts.sample_bytes,
		.execs = s->nexecs ? s->execs : NULL,
	};

	read_loss(s, &sum.loss);
	report__summary(s->report_out, &sum);
	if (events__malformed(s->events))
		fprintf(stderr, "tracelloc: %llu malformed records ignored\n",
			(unsigned long long)events__malformed(s->events));
}

static void session_destroy(struct session *s)
{
	http__destroy(s->http);
	filter__destroy(s->filter);
	options__free(&s->opts);
	threads__destroy(s->threads);
	symbolizer__destroy(s->symbolizer);
	unwinder__destroy(s->unwinder);
	events__destroy(s->events);
	heap__destroy(s->heap);
	attach__destroy(s->attach);
	tracelloc_bpf__destroy(s->skel);
	target__destroy(s->target);
	if (s->signal_fd >= 0)
		close(s->signal_fd);
}

/* output files: fail before tracing, not after */
static int check_outputs(struct session *s)
{
	struct output outs[MAX_OUTPUTS];
	size_t i, n = list_outputs(s, outs);
	const struct output *to_stdout = NULL;
	struct outfile_target t;
	int err;

	for (i = 0; i < n; i++) {
		err = outfile__resolve(outs[i].path, &t);
		if (!err)
			err = outfile__check(&t);
		if (err)
			return output_failed(outs[i].path, &t, err);
		if (t.kind != OUTFILE_STDOUT)
			continue;
		if (to_stdout)
			return fail(0, "%s %s and %s %s both go to standard output: only one output can",
				    to_stdout->flag, to_stdout->path, outs[i].flag, outs[i].path);
		to_stdout = &outs[i];
	}
	/* nothing of the reports may mix into an output there */
	if (to_stdout)
		s->report_out = stderr;
	return 0;
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
		return fail(err, "cannot listen on %s", addr);
	}
	return 0;
}

static void announce(struct session *s)
{
	fprintf(stderr, "tracelloc: attached to pid %d: ", target__pid(s->target));
	attach__describe(s->attach, stderr);
	fprintf(stderr, ", %d probes\n", attach__probe_count(s->attach));
	if (s->opts.verbose) {
		fprintf(stderr, "tracelloc: probes attached through %s links\n",
			attach__link_kind(s->attach));
		attach__describe_sites(s->attach, stderr);
	}
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
	heap__finish(s->heap);
	/* the last periodic report may already say it all */
	if (!s->reported || memcmp(&s->last_report, heap__stats(s->heap), sizeof(s->last_report)))
		print_report(s);
	print_summary(s, ending);
	describe_costs(s);
	/* a command we started, cut short by --duration or a signal, ends with the trace */
	if (target__terminate(s->target) > 0)
		fprintf(stderr, "tracelloc: sent SIGTERM to pid %d, the command it started\n",
			target__pid(s->target));
	return write_outputs(s);
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

int main(int argc, char **argv)
{
	struct session s = { .signal_fd = -1, .report_out = stdout };
	char ending[512] = "stopped";
	int err;

	hold_std_fds();
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

	err = check_system();
	if (!err)
		err = build_filter(&s);
	if (!err)
		err = check_outputs(&s);
	if (!err)
		err = start_http(&s);
	if (!err && block_signals(&s))
		err = fail(-errno, "cannot set up signal handling");
	if (!err)
		err = open_target(&s);
	if (!err) {
		warm_heap();
		err = open_bpf(&s);
	}
	if (!err)
		err = find_allocator(&s);
	if (!err)
		err = load_bpf(&s);
	if (!err)
		err = attach_probes(&s);
	if (!err)
		err = start_engine(&s);
	if (!err && (err = target__resume(s.target)))
		err = fail(err, "cannot resume pid %d", target__pid(s.target));
	if (err)
		goto cleanup;

	s.start_s = clock__now_ns() / 1e9;
	announce(&s);
	err = trace(&s, ending, sizeof(ending));
	if (finish(&s, ending))
		err = 1;
cleanup:
	session_destroy(&s);
	return err ? 1 : 0;
}
