// SPDX-License-Identifier: GPL-2.0
/* the BPF object in stages: open, maps, load, tracepoints (see tracer.h) */
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "attach.h"
#include "events.h"
#include "options.h"
#include "procfs.h"
#include "report.h"
#include "say.h"
#include "hugepages.h"
#include "tracer.h"
#include "tracelloc.h"
#include "tracelloc.skel.h"
#include "unwinder.h"

struct tracer {
	struct tracelloc_bpf *skel;
	struct unwinder *unwinder;	/* NULL: frame pointers only */
	int ncpus;
	size_t ring_bytes;
	/* a process may come that the system-call programs must watch: a
	 * command's or a new one's program is not known before it runs */
	bool may_need_syscalls;
};


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

int tracer__check_system(void)
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

/* a process whose pidfd polls readable has exited */
static bool pidfd_gone(int pidfd)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

	return pidfd >= 0 && poll(&pfd, 1, 0) == 1;
}

/* the unwind tables of what the processes map now (pid's, or none yet),
 * built before the probes attach; the maps that hold them are sized from them */
static int build_unwind_tables(struct tracer *t, const struct options *o, pid_t pid, int pidfd,
			       bool several)
{
	struct unwinder_stats st;
	int err;

	t->skel->rodata->unwind_mode = o->unwind;
	/* no rows, no chunks (the one libbpf makes as the model of the rest
	 * goes once the programs are loaded) */
	if (o->unwind == UNWIND_MODE_FP)
		return 0;
	err = unwinder__new(pid, &t->unwinder);
	if (pid && (err == -ESRCH || (err && pidfd_gone(pidfd))))
		return say(0, "pid %d exited while attaching", pid);
	if (err)
		return say(err, "cannot read the unwind tables of pid %d", pid);
	unwinder__set_slots(t->unwinder, several ? MAX_PROCS : 1);
	err = bpf_map__set_max_entries(t->skel->maps.unwind_mods,
				       unwinder__mods_entries(t->unwinder));
	if (err)
		return say(err, "cannot size the unwind tables");
	if (o->verbose) {
		unwinder__stats(t->unwinder, &st);
		fprintf(stderr, "tracelloc: unwind tables of %zu files: %zu rows, %.0f bytes per MB of "
			"text, built in %.1f ms; room for %zu rows, made as they come\n", st.files,
			st.rows, st.text_bytes ? st.rows * 16.0 * (1 << 20) / st.text_bytes : 0.0,
			st.build_ns / 1e6, (size_t)MAX_ROW_CHUNKS * ROW_CHUNK_ROWS);
	}
	return 0;
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
	char *before, *after;
	void *block;

	/* the block, and what libbpf allocates later, from the brk heap */
	if (!mallopt(M_MMAP_THRESHOLD, 32 << 20) || !mallopt(M_TRIM_THRESHOLD, 64 << 20))
		return;
	before = sbrk(0);
	block = malloc(WARM_HEAP_BYTES);
	after = sbrk(0);
	if (block && after > before) {
		hugepages__advise(before, after - before);
		madvise(before, after - before, MADV_POPULATE_WRITE);
	}
	/* kept in the heap: the trim threshold is above its size */
	free(block);
}

static void cool_heap(void)
{
	mallopt(M_MMAP_THRESHOLD, DAEMON_MMAP_THRESHOLD);
	mallopt(M_TRIM_THRESHOLD, 128 << 10);
	malloc_trim(0);
}


/* the programs' constants for o: pid namespace, probes, forks, --comm */
/* make bench's where-the-time-goes runs: TRACELLOC_BENCH_PARTS=nostack,noring
 * (enum bench_part); nothing else reads it */
static uint32_t bench_parts(void)
{
	const char *env = getenv("TRACELLOC_BENCH_PARTS");
	uint32_t parts = 0;

	if (env && strstr(env, "nostack"))
		parts |= BENCH_NO_STACK;
	if (env && strstr(env, "noring"))
		parts |= BENCH_NO_RING;
	return parts;
}

static int set_constants(struct tracer *t, const struct options *o)
{
	uint64_t ns_dev = 0, ns_ino = 0;
	uint32_t ns_level = 0;
	int err;

	err = pid_namespace(&ns_dev, &ns_ino, &ns_level);
	if (err)
		return say(err, "cannot read /proc/self/ns/pid");
	t->skel->rodata->pidns_dev = ns_dev;
	t->skel->rodata->pidns_ino = ns_ino;
	t->skel->rodata->pidns_level = ns_level;
	t->skel->rodata->empty_probes = o->empty_probes;
	t->skel->rodata->bench_parts = bench_parts();
	t->skel->rodata->trace_mmap = !o->no_mmap;
	t->skel->rodata->per_thread = o->per_thread;
	t->skel->rodata->hold_at_exit = o->leak_check;
	bpf_program__set_autoload(t->skel->progs.sig_stacks, o->leak_check);
	/* a process of --comm's name forks workers of that name: they are its */
	t->skel->rodata->follow_forks = o->follow_forks || o->comm;
	/* a new child is held by the bpf_send_signal_task kfunc (Linux 6.13) */
	bpf_program__set_autoload(t->skel->progs.on_fork, t->skel->rodata->follow_forks);
	bpf_program__set_autoload(t->skel->progs.count_fork, !t->skel->rodata->follow_forks);
	if (t->skel->rodata->follow_forks && !kernel_has_func("bpf_send_signal_task"))
		return say(0, "%s needs Linux 6.13 or later (the bpf_send_signal_task kfunc)",
			   o->comm ? "--comm" : "--follow-forks");
	if (o->comm) {
		t->skel->rodata->by_comm = true;
		/* at most 15 characters (options.c), NUL-padded as the kernel's comm */
		memcpy((char *)t->skel->rodata->comm_name, o->comm, strlen(o->comm));
	}
	return 0;
}

/* --sample-bytes: the table of -ln(u) the programs draw gaps from */
static int set_sampling(struct tracer *t, const struct options *o)
{
	int i, err;

	t->skel->rodata->sample_bytes = o->sample_bytes;
	if (o->sample_bytes) {
		/* -ln(u) for u evenly spread over (0, 1), 16.16 fixed point */
		for (i = 0; i < EXP_TABLE_SIZE; i++)
			t->skel->rodata->neg_log_table[i] =
				(uint32_t)(-log((i + 0.5) / EXP_TABLE_SIZE) * 65536);
		return 0;
	}
	/* no sampling: the table of sampled blocks is not used */
	err = bpf_map__set_max_entries(t->skel->maps.sampled, 1);
	return err ? say(err, "cannot size the sampling table") : 0;
}

int tracer__open(const struct options *o, pid_t first_pid, int first_pidfd, bool several,
		 struct tracer **out)
{
	struct tracer *t = calloc(1, sizeof(*t));
	int err;

	*out = t;
	if (!t)
		return say(-ENOMEM, "cannot open the BPF programs");
	warm_heap();
	t->skel = tracelloc_bpf__open();
	if (!t->skel)
		return say(-errno, "cannot open the BPF programs");
	err = set_constants(t, o);
	if (err)
		return err;
	t->ncpus = libbpf_num_possible_cpus();
	if (t->ncpus <= 0)
		return say(t->ncpus ? t->ncpus : -EINVAL, "cannot count the CPUs");
	t->ring_bytes = events__ring_bytes(o->ringbuf_bytes, t->ncpus);
	t->skel->rodata->wakeup_bytes = t->ring_bytes / 8;
	t->may_need_syscalls = !o->no_mmap && (several || o->command);
	err = build_unwind_tables(t, o, first_pid, first_pidfd, several);
	return err ? err : set_sampling(t, o);
}

int tracer__ncpus(const struct tracer *t)
{
	return t->ncpus;
}

size_t tracer__ring_bytes(const struct tracer *t)
{
	return t->ring_bytes;
}

int tracer__use_maps(struct tracer *t, int rings_fd, int held_fd)
{
	int err = bpf_map__reuse_fd(t->skel->maps.rings, rings_fd);

	if (err)
		return say(err, "cannot set up the ring buffers");
	err = bpf_map__reuse_fd(t->skel->maps.held, held_fd);
	if (err)
		return say(err, "cannot set up the table of held processes");
	return 0;
}

int tracer__load(struct tracer *t, struct attach *model, pid_t first_pid, int first_pidfd)
{
	struct attach *own = NULL;
	int err;

	/* --comm with no process yet: the kind of links this kernel offers */
	if (!model)
		model = own = attach__new(t->skel, getpid(), &(struct attach_opts){ 0 });
	err = model ? attach__prepare(model) : -ENOMEM;
	/* the system-call programs add a tenth to the attach (about 10 ms to
	 * verify): only where a process may need them */
	if (!err && !t->may_need_syscalls && !own && attach__maps_probed(model)) {
		bpf_program__set_autoload(t->skel->progs.on_sys_enter, false);
		bpf_program__set_autoload(t->skel->progs.on_sys_exit, false);
	}
	attach__destroy(own);
	if (!err)
		err = tracelloc_bpf__load(t->skel);
	cool_heap();
	if (err)
		return say(err, "cannot load the BPF programs (run with -v for details)");
	if (t->unwinder) {
		struct unwinder_maps maps = {
			.rows_fd = bpf_map__fd(t->skel->maps.unwind_rows),
			.mods_fd = bpf_map__fd(t->skel->maps.unwind_mods),
			.procs = t->skel->bss->procs,
		};

		err = unwinder__publish(t->unwinder, &maps);
		if (first_pid && (err == -ESRCH || (err && pidfd_gone(first_pidfd))))
			return say(0, "pid %d exited while attaching", first_pid);
		if (err)
			return say(err, "cannot hand the unwind tables to the BPF programs");
	}
	return 0;
}

int tracer__attach_tracepoints(struct tracer *t)
{
	struct tracelloc_bpf *skel = t->skel;

	/* before the probes: an exec from then on is seen */
	skel->links.on_exec = bpf_program__attach(skel->progs.on_exec);
	if (!skel->links.on_exec)
		return say(-errno, "cannot watch for exec");
	skel->links.on_thread_exit = bpf_program__attach(skel->progs.on_thread_exit);
	if (!skel->links.on_thread_exit)
		return say(-errno, "cannot watch for exits");
	/* a stop of someone else's for a process we hold (see holds.c) */
	skel->links.on_signal = bpf_program__attach(skel->progs.on_signal);
	if (!skel->links.on_signal)
		return say(-errno, "cannot watch for stop signals");
	/* new processes, as the kernel makes them (no system-call tracepoint) */
	if (skel->rodata->follow_forks) {
		skel->links.on_fork = bpf_program__attach(skel->progs.on_fork);
		if (!skel->links.on_fork)
			return say(-errno, "cannot watch for forks (sched_process_fork)");
	} else {
		/* the children left untraced, counted: the user is told */
		skel->links.count_fork = bpf_program__attach(skel->progs.count_fork);
		if (!skel->links.count_fork)
			return say(-errno, "cannot watch for forks (sched_process_fork)");
	}
	return 0;
}

/*
 * The system-call tracepoints, for a process whose mappings no probe of its
 * libc sees: every system call of every process on the host pays for them
 * while they are attached, so only then (the caller tells the user).
 */
int tracer__watch_system_calls(struct tracer *t)
{
	struct tracelloc_bpf *skel = t->skel;
	int err;

	if (skel->links.on_sys_exit)
		return 0;
	/* not loaded: the process asked for was dynamic when tracing began */
	if (!bpf_program__autoload(skel->progs.on_sys_exit))
		return -ENOTSUP;
	skel->links.on_sys_enter = bpf_program__attach(skel->progs.on_sys_enter);
	if (skel->links.on_sys_enter)
		skel->links.on_sys_exit = bpf_program__attach(skel->progs.on_sys_exit);
	if (skel->links.on_sys_exit)
		return 1;
	err = -errno;
	bpf_link__destroy(skel->links.on_sys_enter);
	skel->links.on_sys_enter = NULL;
	return err;
}

/* the threads' states keep their who while `traced` is as it was: after
 * each change, the next run of each looks it up again */
static void traced_changed(struct tracer *t)
{
	__atomic_fetch_add(&t->skel->bss->traced_gen, 1, __ATOMIC_SEQ_CST);
}

int tracer__trace(struct tracer *t, pid_t pid, uint32_t slot)
{
	uint32_t key = pid;
	int err;

	err = bpf_map__update_elem(t->skel->maps.traced, &key, sizeof(key), &slot, sizeof(slot),
				   BPF_ANY);
	traced_changed(t);
	return err;
}

void tracer__ignore_forks(struct tracer *t, pid_t pid)
{
	__atomic_store_n(&t->skel->bss->ignore_forks_of, (uint32_t)pid, __ATOMIC_SEQ_CST);
}

int tracer__sig_stacks(struct tracer *t, pid_t pid, uint64_t *sp, size_t max)
{
	union bpf_iter_link_info info = { .task.pid = (uint32_t)pid };
	LIBBPF_OPTS(bpf_iter_attach_opts, opts, .link_info = &info, .link_info_len = sizeof(info));
	struct sig_stack st[64];
	struct bpf_link *link;
	size_t found = 0, i;
	ssize_t got = 0;
	int fd, err = 0;

	if (bpf_program__fd(t->skel->progs.sig_stacks) < 0)
		return -EOPNOTSUPP;
	link = bpf_program__attach_iter(t->skel->progs.sig_stacks, &opts);
	if (!link)
		return -errno;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0)
		err = -errno;
	/* whole records: a read ends at one's end */
	while (fd >= 0 && (got = read(fd, st, sizeof(st))) > 0)
		for (i = 0; i < (size_t)got / sizeof(st[0]) && found < max; i++)
			sp[found++] = st[i].sp;
	if (fd >= 0 && got < 0)
		err = -errno;
	if (fd >= 0)
		close(fd);
	bpf_link__destroy(link);
	return err ? err : (int)found;
}

void tracer__untrace(struct tracer *t, pid_t pid)
{
	uint32_t key = pid;

	bpf_map__delete_elem(t->skel->maps.traced, &key, sizeof(key), 0);
	traced_changed(t);
}

bool tracer__traced(const struct tracer *t, pid_t pid)
{
	uint32_t key = pid, slot;

	if (!t || bpf_map__fd(t->skel->maps.traced) < 0)
		return false;
	return !bpf_map__lookup_elem(t->skel->maps.traced, &key, sizeof(key), &slot, sizeof(slot),
				     0);
}

struct proc_state *tracer__state(struct tracer *t, uint32_t slot)
{
	return &t->skel->bss->procs[slot];
}

/* one counter, summed over the CPUs; 0 when it cannot be read */
static uint64_t counter(const struct tracer *t, __u32 key)
{
	int ncpus = libbpf_num_possible_cpus();
	__u64 values[ncpus > 0 ? ncpus : 1], sum = 0;
	int cpu;

	if (ncpus <= 0 || bpf_map__lookup_elem(t->skel->maps.counters, &key, sizeof(key), values,
					       sizeof(values), 0))
		return 0;
	for (cpu = 0; cpu < ncpus; cpu++)
		sum += values[cpu];
	return sum;
}

void tracer__loss(const struct tracer *t, struct loss *loss)
{
	loss->lost_allocs = counter(t, COUNTER_LOST_ALLOC);
	loss->lost_frees = counter(t, COUNTER_LOST_FREE);
	loss->untraced_calls = counter(t, COUNTER_NO_STATE);
	loss->sampled_full = counter(t, COUNTER_SAMPLED_FULL);
	loss->cut_no_table = counter(t, COUNTER_CUT_NO_TABLE);
	loss->cut_rule = counter(t, COUNTER_CUT_RULE);
	loss->cut_unreadable = counter(t, COUNTER_CUT_UNREADABLE);
	loss->cut_depth = counter(t, COUNTER_CUT_DEPTH);
	loss->untraced_procs = counter(t, COUNTER_UNTRACED_PROCS);
	loss->untraced_forks = counter(t, COUNTER_UNTRACED_FORKS);
	loss->ptraced = counter(t, COUNTER_PTRACED);
	loss->lost_py = counter(t, COUNTER_LOST_PY);
}

pid_t tracer__ptraced(const struct tracer *t, bool *untraced)
{
	const volatile __u32 *last = t->skel->bss->ptraced;

	*untraced = last[1];
	return (pid_t)last[0];
}

bool tracer__untraced_fork(const struct tracer *t, pid_t *parent, pid_t *child)
{
	const volatile __u32 *last = t->skel->bss->untraced_fork;

	*parent = (pid_t)last[0];
	*child = (pid_t)last[1];
	return *child != 0;
}

uint64_t tracer__cut_no_table(const struct tracer *t)
{
	return counter(t, COUNTER_CUT_NO_TABLE);
}

struct unwinder *tracer__unwinder(const struct tracer *t)
{
	return t->unwinder;
}

struct tracelloc_bpf *tracer__skel(const struct tracer *t)
{
	return t->skel;
}

void tracer__destroy(struct tracer *t)
{
	if (!t)
		return;
	unwinder__destroy(t->unwinder);
	tracelloc_bpf__destroy(t->skel);
	free(t);
}
