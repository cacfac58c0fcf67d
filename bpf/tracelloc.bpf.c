// SPDX-License-Identifier: GPL-2.0
/*
 * Probes on the allocator entry points of one process. Entry programs save the
 * arguments of the outermost traced call per thread; the common return program
 * captures the user stack and sends one allocation record. Frees are sent at
 * entry, before the block can be handed out again, so the daemon always sees a
 * release before any reuse of the address.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "tracelloc.h"

/* power of two; see walk_user_stack */
#ifndef WALK_INLINE
#define WALK_INLINE 8	/* frames walked inline before bpf_loop takes over */
#endif
#ifndef UNWIND_INLINE
#define UNWIND_INLINE 8	/* frames unwound inline by cached rows */
#endif
#ifndef ROW_CACHE_BITS
#define ROW_CACHE_BITS 6	/* sets of two rows; see call_state.rows */
#endif
#define ROW_CACHE_SETS (1 << ROW_CACHE_BITS)
#ifndef STACK_WINDOW_WORDS
#define STACK_WINDOW_WORDS 128	/* 1 KiB: several frames of a C++ program */
#endif

char LICENSE[] SEC("license") = "GPL";

/* pids as tracelloc sees them: in tracelloc's pid namespace, given by
 * pidns_dev and pidns_ino (and its depth, pidns_level) when that is not the
 * initial one */
const volatile __u64 pidns_dev = 0;
const volatile __u64 pidns_ino = 0;
const volatile __u32 pidns_level = 0;
/* --follow-forks: a traced process's new child stops at its first
 * instruction and is traced as its own process */
const volatile bool follow_forks = false;
/* --comm: a program of this name that starts (exec) is traced as well */
const volatile bool by_comm = false;
const volatile __u64 comm_name[THREAD_NAME_LEN / 8] = {};
/* the program's own mappings (not --no-mmap) */
const volatile bool trace_mmap = true;
/* benchmarks: the same probes doing nothing, the floor of what tracing costs */
const volatile bool empty_probes = false;
/* wake the daemon once this much waits in the ring buffer; it also polls on a
 * timer, so nothing waits long. A wakeup per record costs an irq_work each. */
const volatile __u64 wakeup_bytes = 1 << 20;
/* sampling (0: trace every call): one sample every sample_bytes bytes on
 * average, a Poisson process over the bytes allocated, as tcmalloc does */
const volatile __u64 sample_bytes = 0;
const volatile __u32 neg_log_table[EXP_TABLE_SIZE] = {};
/* enum unwind_mode */
const volatile __u32 unwind_mode = UNWIND_MODE_FP;
/* --per-thread: allocations carry their thread's name */
const volatile bool per_thread = false;

/* the traced processes: tgid (in tracelloc's pid namespace) -> slot in
 * procs[]; the daemon adds and removes them */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_TRACED_ENTRIES);
	__type(key, __u32);
	__type(value, __u32);
} traced SEC(".maps");

/* the thread each CPU is sending our own SIGSTOP to (itself), so that
 * on_signal knows that stop for ours */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} holding SEC(".maps");

/* the processes stopped for the daemon: pid -> enum held_flags (see
 * tracelloc.h); the daemon creates it, and its guardian holds it too */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_HELD);
	__type(key, __u32);
	__type(value, __u32);
} held SEC(".maps");

struct proc_state procs[MAX_PROCS] = {};

/* Per-thread state. Task storage is freed by the kernel when the thread exits. */
struct call_state {
	__u32 depth;		/* traced calls in progress on this thread */
	__u8 fn;
	__u8 ret;		/* enum call_return */
	__u8 moves;		/* a realloc: it may move or release ptr_arg */
	__u8 exiting;		/* the thread has begun to exit */
	__u64 size;
	__u64 ptr_arg;		/* realloc's old block, posix_memalign's memptr */
	__s64 until_sample;	/* sampling: bytes until the next sample */
	/* the last free this thread sent (FN_FREE_NESTED), to tell a free
	 * called by another free of the same block */
	__u64 free_addr;
	__u64 free_sp;
	__u64 free_ns;
	__u64 name[THREAD_NAME_LEN / 8];	/* --per-thread: the name last sent */
	__u8 primed;		/* until_sample was drawn */
	__u8 old_sampled;	/* sampling: realloc's old block was sampled */
	/* an mmap or mremap of the program's own under way (libc's wrapper):
	 * its arguments, for its return */
	__u16 map_fn;		/* FN_MMAP, FN_MREMAP, FN_MPROTECT; 0: none, or the allocator's */
	/* inside a probed wrapper: the system-call tracepoints leave the call
	 * to its return probe */
	__u8 in_map_call;
	__u64 map_len;		/* mmap: its length; mremap: the new one */
	__u64 map_flags;	/* mmap */
	__u64 map_prot;		/* mmap, mprotect */
	__u64 map_old_addr;	/* mremap; mprotect: its address */
	__u64 map_old_len;
	/* built here rather than in a per-CPU buffer, which a preempted
	 * program on the same CPU could overwrite */
	struct alloc_event event;
	struct {
		__u64 fp;		/* the frame to read next; unwinding: the frame's rbp */
		__u64 base;		/* user address of window[0] */
		__u64 valid;		/* bytes of the window read from base */
		__u32 n;		/* frames in event.stack */
		__u32 exact;		/* unwinding: pc is where the frame resumes, not a return address */
		__u64 pc;		/* unwinding: the frame's pc and rsp */
		__u64 sp;
		__u32 version;		/* mods_version, read once per walk */
		__u32 nmods;
		__u32 slot;		/* the process's: its part of unwind_mods */
	} walk;
	__u64 window[STACK_WINDOW_WORDS];	/* a copy of the user stack from walk.base */
	/* Rows this thread found lately, by the pc looked up: a thread's
	 * allocation sites repeat, and a search of libc's table costs ~200 ns.
	 * Per thread, so no other program writes it meanwhile. Two ways a set:
	 * direct-mapped, a 24-frame stack kept ~7 of its pcs thrashing. */
	struct {
		struct {
			__u64 look;
			__u32 version;	/* of the module list the row was found in */
			struct unwind_row row;
		} way[2];
		__u64 victim;		/* the way the next miss replaces */
	} rows[ROW_CACHE_SETS];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct call_state);
} call_states SEC(".maps");

/* One ring buffer per CPU: a shared one made the CPUs take turns at its
 * lock and its producer position, which cost two busy threads some 300 ns a
 * malloc/free pair. The daemon merges the rings by ts_ns. */
struct cpu_ring {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);	/* the daemon creates the rings */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);		/* the daemon creates it, one ring per possible CPU */
	__type(key, __u32);
	__array(values, struct cpu_ring);
} rings SEC(".maps");

/* sampling: the live blocks that were sampled, so the others' frees stay here */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_SAMPLED_BLOCKS);
	__type(key, __u64);
	__type(value, __u8);
} sampled SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, COUNTER__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/*
 * Unwind tables (enum unwind_mode): the daemon appends each file's rows to
 * unwind_rows, and lists the executable mappings that have rows, sorted by
 * start, in one half of unwind_mods while the walks read the other; then it
 * bumps mods_version, whose low bit names the half to read. Both maps are
 * mmapped by the daemon and sized at load.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unwind_row);
} unwind_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 2 * MAX_UNWIND_MODULES);	/* per slot; sized at load */
	__type(key, __u32);
	__type(value, struct unwind_module);
} unwind_mods SEC(".maps");

static __always_inline void count(__u32 which)
{
	__u64 *counter = bpf_map_lookup_elem(&counters, &which);

	if (counter)
		__sync_fetch_and_add(counter, 1);
}

/* tgid << 32 | pid of the current thread, in tracelloc's pid namespace; 0
 * for a thread outside it. Inside a container the kernel's own ids (those
 * of the initial namespace) would never match the pid tracelloc was given. */
static __always_inline __u64 current_id(void)
{
	struct bpf_pidns_info ns;

	if (!pidns_ino)
		return bpf_get_current_pid_tgid();
	if (bpf_get_ns_current_pid_tgid(pidns_dev, pidns_ino, &ns, sizeof(ns)))
		return 0;
	return (__u64)ns.tgid << 32 | ns.pid;
}

/* Who calls, as the programs hand it down: the traced process's slot and
 * the thread's id, slot << 32 | tid. */
#define WHO_TID(who) ((__u32)(who))
#define WHO_SLOT(who) ((__u32)((who) >> 32) & (MAX_PROCS - 1))

/* the current thread's who when its process is traced, else 0: each
 * program takes it once */
static __always_inline __u64 target_who(void)
{
	__u64 id = current_id();
	__u32 tgid = id >> 32, *slot;

	if (!tgid)
		return 0;
	slot = bpf_map_lookup_elem(&traced, &tgid);
	if (!slot || *slot >= MAX_PROCS)
		return 0;
	return (__u64)*slot << 32 | (__u32)id;
}

/* the traced process's state; the slot is bounded for the verifier */
static __always_inline struct proc_state *proc_of(__u64 who)
{
	return &procs[WHO_SLOT(who)];
}

/* the main thread's id is its process's (in every pid namespace) */
static __always_inline bool is_main_thread(void)
{
	__u64 id = bpf_get_current_pid_tgid();

	return (__u32)id == id >> 32;
}

static __always_inline struct call_state *current_state(__u64 flags)
{
	return bpf_task_storage_get(&call_states, bpf_get_current_task_btf(), 0, flags);
}

/* this CPU's ring buffer; the program runs with migration disabled */
static __always_inline void *cpu_ring(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&rings, &cpu);
}

#define SIGSTOP 19
/* SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU, as bits of a sigset */
#define STOP_SIGNALS (0xfULL << (SIGSTOP - 1))

/*
 * Stops the calling process until the daemon has probed it, and enters it
 * in `held` first, so that it is continued whatever happens to tracelloc.
 * Not once tracing ends (the guardian or the daemon set HELD_DISARM). A stop
 * signal pending already is someone else's: the daemon will not continue
 * what they stopped. false: not stopped.
 */
static __always_inline bool hold_current(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 disarm = HELD_DISARM, how = 0, pid = current_id() >> 32, zero = 0;
	__u64 pending, *sending;

	if (bpf_map_lookup_elem(&held, &disarm))
		return false;
	pending = task->pending.signal.sig[0] | task->signal->shared_pending.signal.sig[0];
	if (pending & STOP_SIGNALS)
		how = HELD_OTHER_STOP;
	if (bpf_map_update_elem(&held, &pid, &how, BPF_ANY)) {
		count(COUNTER_UNTRACED_PROCS);
		return false;
	}
	/* sent at once (task context, interrupts on): on_signal sees it
	 * under `holding` */
	sending = bpf_map_lookup_elem(&holding, &zero);
	if (sending)
		*sending = bpf_get_current_pid_tgid();
	bpf_send_signal(SIGSTOP);
	if (sending)
		*sending = 0;
	return true;
}

/*
 * A new process (a traced one's child, a program of --comm's name) enters
 * `traced` as waiting for a slot, and stops until the daemon gives it one.
 * false: it runs on untraced (a process of ours already, no room, or
 * tracing ends).
 */
static __always_inline bool enter_waiting(__u32 tgid)
{
	__u32 waiting = NO_SLOT;
	long err = bpf_map_update_elem(&traced, &tgid, &waiting, BPF_NOEXIST);

	if (err) {
		if (err != -17 /* EEXIST */)
			count(COUNTER_UNTRACED_PROCS);
		return false;
	}
	if (!hold_current()) {
		bpf_map_delete_elem(&traced, &tgid);
		return false;
	}
	return true;
}

/* its record could not be sent: it goes on, untraced (the SIGSTOP is still
 * pending, and SIGCONT takes it back) */
static __always_inline void leave_waiting(__u32 tgid)
{
	bpf_map_delete_elem(&traced, &tgid);
	bpf_map_delete_elem(&held, &tgid);
	bpf_send_signal(18 /* SIGCONT */);
	count(COUNTER_UNTRACED_PROCS);
}

static __always_inline __u64 wakeup_flag(void *ring)
{
	return bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) >= wakeup_bytes ? BPF_RB_FORCE_WAKEUP
									  : BPF_RB_NO_WAKEUP;
}

static __always_inline void send_ptr_event_flags(__u32 type, __u64 who, __u64 addr, __u64 flags)
{
	struct ptr_event ev = {
		.type = type,
		.slot = WHO_SLOT(who),
		.tid = WHO_TID(who),
		.ts_ns = bpf_ktime_get_ns(),
		.addr = addr,
	};
	void *ring = cpu_ring();

	if (!ring || bpf_ringbuf_output(ring, &ev, sizeof(ev), flags ? flags : wakeup_flag(ring)))
		count(COUNTER_LOST_FREE);
}

static __always_inline void send_ptr_event(__u32 type, __u64 who, __u64 addr)
{
	send_ptr_event_flags(type, who, addr, 0);
}

/* bytes to the next sample: exponential with mean sample_bytes */
static __always_inline __s64 next_sample_gap(void)
{
	__u32 i = bpf_get_prandom_u32() & (EXP_TABLE_SIZE - 1);

	return (__s64)((sample_bytes * neg_log_table[i]) >> 16) + 1;
}

/* sampling: is this successful allocation of size bytes a sample? A
 * sampled block that free() may release is remembered in `sampled` */
static __always_inline bool take_sample(struct call_state *s, __u64 size, __u64 addr,
					bool remember)
{
	__u8 one = 1;

	if (!s->primed) {
		s->until_sample = next_sample_gap();
		s->primed = 1;
	}
	s->until_sample -= size;
	if (s->until_sample > 0)
		return false;
	/* a new gap from here; the daemon weighs the sample by its size */
	s->until_sample = next_sample_gap();
	if (remember && bpf_map_update_elem(&sampled, &addr, &one, BPF_ANY))
		count(COUNTER_SAMPLED_FULL);
	return true;
}

/* n * size, or ~0 when it overflows: such a call fails and records nothing */
static __always_inline __u64 array_size(__u64 n, __u64 size)
{
	__u64 limit;

	if (!size)
		return 0;
	limit = ~0ULL / size;
	barrier_var(limit);	/* keep clang from turning this into a 128-bit multiply */
	return n > limit ? ~0ULL : n * size;
}

/* libbpf 1.1 (Debian 12) stops at the fifth argument */
#if !defined(PT_REGS_PARM6) && defined(__TARGET_ARCH_x86)
#define PT_REGS_PARM6(x) (__PT_REGS_CAST(x)->r9)
#endif

/* the call's arguments, read from the registers at fixed offsets (a read
 * at an offset computed from n is one the verifier refuses in the context) */
struct call_args {
	__u64 a[6];
};

static __always_inline void read_args(struct pt_regs *ctx, struct call_args *args)
{
	args->a[0] = PT_REGS_PARM1(ctx);
	args->a[1] = PT_REGS_PARM2(ctx);
	args->a[2] = PT_REGS_PARM3(ctx);
	args->a[3] = PT_REGS_PARM4(ctx);
	args->a[4] = PT_REGS_PARM5(ctx);
	args->a[5] = PT_REGS_PARM6(ctx);
}

/* argument n (1-6); 0 for none */
static __always_inline __u64 call_arg(const struct call_args *args, __u32 n)
{
	return n >= 1 && n <= 6 ? args->a[n - 1] : 0;
}

/* an allocator's call: its size and the block it is given, where its
 * cookie says they are */
static __always_inline int enter(struct pt_regs *ctx, __u64 who, __u64 cookie)
{
	struct call_args args;
	__u64 size, ptr_arg;
	struct call_state *s;

	s = current_state(BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!s) {
		count(COUNTER_NO_STATE);
		return 0;
	}
	/* nested (realloc -> malloc, new[] -> new -> malloc): the outer call accounts */
	if (s->depth++ > 0)
		return 0;
	read_args(ctx, &args);
	size = call_arg(&args, COOKIE_SIZE_ARG(cookie));
	ptr_arg = call_arg(&args, COOKIE_PTR_ARG(cookie));
	if (COOKIE_COUNT_ARG(cookie))
		size = array_size(call_arg(&args, COOKIE_COUNT_ARG(cookie)), size);
	s->fn = COOKIE_FN(cookie);
	s->ret = COOKIE_RET(cookie);
	s->moves = !!(cookie & COOKIE_REALLOC);
	s->size = size;
	s->ptr_arg = ptr_arg;
	if (!s->moves || !ptr_arg)
		return 0;
	/* sampling: the daemon knows only of sampled blocks */
	if (sample_bytes) {
		s->old_sampled = !bpf_map_delete_elem(&sampled, &ptr_arg);
		if (!s->old_sampled)
			return 0;
	}
	/* realloc may release ptr before it returns and another thread may get it back:
	 * say so now, so the daemon never sees that reuse before the release */
	send_ptr_event(EVENT_REALLOC_BEGIN, who, ptr_arg);
	return 0;
}

/*
 * The user stack at a return probe, by frame pointers: the caller's return
 * address first (the ip), then the rbp chain. Each read of user memory costs
 * ~75 ns however small, and the frames of a chain mostly sit close together,
 * so the stack is read a window at a time and frames are taken from the
 * window while they fall inside it: a 5-deep chain of small frames is one
 * read instead of six. Far cheaper than bpf_get_stack's perf callchain
 * (1.3-1.5 us a call here).
 *
 * One frame per call: bpf_loop verifies this once, where an unrolled loop of
 * 127 iterations with the window's branches is too much for the verifier. The
 * walk's state lives in the map value, not on the BPF stack, so that the
 * verifier sees no constants that differ from one iteration to the next.
 */
static __always_inline long walk_step(struct call_state *s)
{
	__u64 fp = s->walk.fp, off = fp - s->walk.base, idx, next, ret, len;
	__u32 n = s->walk.n;

	if (!fp || (fp & 7) || n >= MAX_STACK_DEPTH)
		return 1;
	if (off + 16 > s->walk.valid) {
		/* up to the end of fp's page: the chain's frames are below the
		 * top of the stack, what lies past its last page may be unmapped,
		 * and a read that faults costs a trap */
		len = 4096 - (fp & 4095);
		if (len > sizeof(s->window))
			len = sizeof(s->window);
		if (len < 16)
			len = 16;
		if (bpf_probe_read_user(s->window, len, (void *)fp))
			return 1;
		s->walk.base = fp;
		s->walk.valid = len;
		off = 0;
	}
	idx = (off >> 3) & (STACK_WINDOW_WORDS - 1);
	if (idx >= STACK_WINDOW_WORDS - 1)
		return 1;
	next = s->window[idx];
	ret = s->window[idx + 1];
	if (!ret)
		return 1;
	s->event.stack[n] = ret;
	s->walk.n = n + 1;
	/* a frame pointer chain grows toward higher addresses */
	if (next <= fp)
		return 1;
	s->walk.fp = next;
	return 0;
}

static long walk_frame(__u64 i, struct call_state **sp)
{
	return walk_step(*sp);
}

/* the word at user address addr, through the window; a miss reads a new
 * window from addr up to the end of its page */
static __always_inline int read_word(struct call_state *s, __u64 addr, __u64 *out)
{
	__u64 off = addr - s->walk.base, len;

	if (addr & 7)
		return bpf_probe_read_user(out, sizeof(*out), (void *)addr);
	if (off + 8 > s->walk.valid || off >= sizeof(s->window)) {
		len = 4096 - (addr & 4095);
		if (len > sizeof(s->window))
			len = sizeof(s->window);
		if (len < 8)
			len = 8;
		if (bpf_probe_read_user(s->window, len, (void *)addr))
			return -1;
		s->walk.base = addr;
		s->walk.valid = len;
		off = 0;
	}
	*out = s->window[(off >> 3) & (STACK_WINDOW_WORDS - 1)];
	return 0;
}

/* one step of find_module's search (see row_search_step) */
struct module_search {
	__u64 pc;
	__u32 lo, hi, base, failed;
};

static long module_search_step(__u64 i, struct module_search *q)
{
	struct unwind_module *m;
	__u32 mid, key;

	if (q->lo >= q->hi)
		return 1;
	mid = (q->lo + q->hi) / 2;
	key = q->base + mid;
	m = bpf_map_lookup_elem(&unwind_mods, &key);
	if (!m) {
		q->failed = 1;
		return 1;
	}
	if (m->start <= q->pc)
		q->lo = mid + 1;
	else
		q->hi = mid;
	return 0;
}

/* the module that holds pc, or NULL */
static __always_inline struct unwind_module *find_module(struct call_state *s, __u64 pc)
{
	struct module_search q = {
		.pc = pc,
		.hi = s->walk.nmods,
		.base = (s->walk.slot * 2 + (s->walk.version & 1)) * MAX_UNWIND_MODULES,
	};
	struct unwind_module *m;
	__u32 key;

	bpf_loop(9, module_search_step, &q, 0);
	if (q.failed || !q.lo || q.lo < q.hi)
		return NULL;
	key = q.base + q.lo - 1;
	m = bpf_map_lookup_elem(&unwind_mods, &key);
	return m && pc < m->end ? m : NULL;
}

/* one step of find_row's search: a callback, since the verifier would
 * follow each unrolled step's two ways (27 ms at every attach) */
struct row_search {
	__u64 pc;
	__u32 lo, hi, first, failed;
};

static long row_search_step(__u64 i, struct row_search *q)
{
	struct unwind_row *row;
	__u32 mid, key;

	if (q->lo >= q->hi)
		return 1;
	mid = (q->lo + q->hi) / 2;
	key = q->first + mid;
	row = bpf_map_lookup_elem(&unwind_rows, &key);
	if (!row) {
		q->failed = 1;
		return 1;
	}
	if (row->pc <= q->pc)
		q->lo = mid + 1;
	else
		q->hi = mid;
	return 0;
}

/* the row of the module that holds elf_pc, or NULL */
static __always_inline struct unwind_row *find_row(struct unwind_module *m, __u64 elf_pc)
{
	struct row_search q = { .pc = elf_pc, .hi = m->nrows, .first = m->first_row };
	__u32 key;

	bpf_loop(32, row_search_step, &q, 0);
	if (q.failed || !q.lo || q.lo < q.hi)
		return NULL;
	key = q.first + q.lo - 1;
	return bpf_map_lookup_elem(&unwind_rows, &key);
}

static __always_inline long cut(__u32 why)
{
	count(why);
	return 1;
}

/* no table for pc: in ld.so, that is its entry code (_dl_start_user, which
 * calls the libraries' constructors through _dl_init): the outermost frame,
 * not a stack cut short */
static __always_inline long no_table(const struct proc_state *proc, __u64 pc)
{
	if (pc >= proc->loader_start && pc < proc->loader_end)
		return 1;
	return cut(COUNTER_CUT_NO_TABLE);
}

static __always_inline long push_frame(struct call_state *s, __u32 n, __u64 pc, __u64 sp,
				       __u64 fp, __u32 exact)
{
	if (n >= MAX_STACK_DEPTH)
		return cut(COUNTER_CUT_DEPTH);
	s->event.stack[n] = pc;
	s->walk.n = n + 1;
	s->walk.pc = pc;
	s->walk.sp = sp;
	s->walk.fp = fp;
	s->walk.exact = exact;
	return 0;
}

/* a frame with no table, by its frame pointer: its caller's rbp and return address */
static __always_inline long fp_frame(struct call_state *s, __u32 n)
{
	__u64 fp = s->walk.fp, next, ret;

	if (!fp || (fp & 7) || read_word(s, fp, &next) || read_word(s, fp + 8, &ret) || !ret)
		return 1;
	/* a frame pointer chain grows toward higher addresses */
	if (next <= fp)
		next = 0;
	return push_frame(s, n, ret, fp + 16, next, 0);
}

static long vma_has_file(struct task_struct *task, struct vm_area_struct *vma, bool *file)
{
	*file = vma->vm_file != NULL;
	return 0;
}

/* is pc in a file's mapping? Code of a file the daemon has not read yet
 * (dlopen a moment ago) is not walked by frame pointer: that could invent a
 * frame. Anonymous code (a JIT) is. */
static __always_inline bool in_file_mapping(__u64 pc)
{
	bool file = false;

	bpf_find_vma(bpf_get_current_task_btf(), pc, vma_has_file, &file, 0);
	return file;
}

/* the set a pc's row is cached in. The pc in 16-byte units: functions are
 * 16-byte aligned, and a multiplicative hash of keys 16 apart repeats every
 * 9 sets */
static __always_inline typeof(&((struct call_state *)0)->rows[0])
row_set(struct call_state *s, __u64 look)
{
	__u64 h = ((look >> 4) * 0x9e3779b97f4a7c15ULL) >> (64 - ROW_CACHE_BITS);

	return &s->rows[h & (ROW_CACHE_SETS - 1)];
}

/* the cached row of look, or NULL */
static __always_inline struct unwind_row *cached_row(struct call_state *s, __u64 look, __u32 version)
{
	typeof(&s->rows[0]) set = row_set(s, look);

	if (set->way[0].look == look && set->way[0].version == version) {
		set->victim = 1;
		return &set->way[0].row;
	}
	if (set->way[1].look == look && set->way[1].version == version) {
		set->victim = 0;
		return &set->way[1].row;
	}
	return NULL;
}

static __always_inline void cache_row(struct call_state *s, __u64 look, __u32 version,
				      const struct unwind_row *row)
{
	typeof(&s->rows[0]) set = row_set(s, look);
	__u32 v = set->victim & 1;

	set->way[v].look = look;
	set->way[v].version = version;
	set->way[v].row = *row;
	set->victim = v ^ 1;
}

/*
 * One frame by the unwind tables: the row of the frame's pc gives the CFA
 * (the caller's rsp), the return address at CFA - 8 and the caller's rbp.
 * A frame that cannot be followed ends the stack: never a made-up frame.
 */
static __always_inline long unwind_step(struct call_state *s)
{
	__u64 pc = s->walk.pc, sp = s->walk.sp, fp = s->walk.fp, look, cfa, ra, rbp;
	__u32 n = s->walk.n;
	struct unwind_module *m;
	struct unwind_row *row;

	if (n >= MAX_STACK_DEPTH)
		return cut(COUNTER_CUT_DEPTH);
	struct proc_state *proc = &procs[s->walk.slot & (MAX_PROCS - 1)];

	if (pc >= proc->uprobes_start && pc < proc->uprobes_end)
		return cut(COUNTER_CUT_NO_TABLE);
	/* a return address is past the call: its frame is the call's */
	look = s->walk.exact ? pc : pc - 1;
	row = cached_row(s, look, s->walk.version);
	if (!row) {
		m = find_module(s, look);
		if (!m) {
			if (unwind_mode == UNWIND_MODE_AUTO && !in_file_mapping(look))
				return fp_frame(s, n);
			return cut(COUNTER_CUT_NO_TABLE);
		}
		if (!m->nrows) {
			if (m->first_row == UNWIND_NO_CFI && unwind_mode == UNWIND_MODE_AUTO)
				return fp_frame(s, n);
			return cut(COUNTER_CUT_NO_TABLE);
		}
		row = find_row(m, look - m->bias);
		if (!row)
			return no_table(proc, look);
		cache_row(s, look, s->walk.version, row);
	}
	switch (row->cfa_kind) {
	case UNWIND_CFA_RSP:
		cfa = sp + row->cfa_offset;
		break;
	case UNWIND_CFA_RBP:
		if (!fp)
			return cut(COUNTER_CUT_RULE);
		cfa = fp + row->cfa_offset;
		break;
	case UNWIND_CFA_PLT:
		cfa = sp + 8 + ((__u64)((pc & 15) >= (__u64)row->cfa_offset) << 3);
		break;
	case UNWIND_CFA_DEREF_RBP:
		if (!fp || read_word(s, fp + row->cfa_offset, &cfa))
			return cut(COUNTER_CUT_UNREADABLE);
		break;
	case UNWIND_CFA_SIGNAL:
		/* the interrupted frame: its registers are in the ucontext */
		if (read_word(s, sp + row->cfa_offset, &cfa) ||
		    read_word(s, sp + row->cfa_offset + 8, &ra) ||
		    read_word(s, sp + row->rbp_offset, &rbp))
			return cut(COUNTER_CUT_UNREADABLE);
		if (!ra)
			return 1;
		/* it was interrupted at ra, not past a call */
		return push_frame(s, n, ra, cfa, rbp, 1);
	case UNWIND_CFA_OUTERMOST:
		return 1;
	case UNWIND_CFA_GAP:
		return no_table(proc, look);
	default:
		return cut(COUNTER_CUT_RULE);
	}
	/* the caller's frame lies above this one */
	if (cfa <= sp)
		return cut(COUNTER_CUT_RULE);
	if (read_word(s, cfa - 8, &ra))
		return cut(COUNTER_CUT_UNREADABLE);
	switch (row->rbp_kind) {
	case UNWIND_RBP_SAME:
		rbp = fp;
		break;
	case UNWIND_RBP_AT_CFA:
		if (read_word(s, cfa + row->rbp_offset, &rbp))
			return cut(COUNTER_CUT_UNREADABLE);
		break;
	case UNWIND_RBP_AT_RBP:
		if (!fp || read_word(s, fp + row->rbp_offset, &rbp))
			return cut(COUNTER_CUT_UNREADABLE);
		break;
	default:
		/* unknown from here: a later rule that needs it ends the stack */
		rbp = 0;
	}
	if (!ra)
		return 1;
	return push_frame(s, n, ra, cfa, rbp, 0);
}

/* the walk's registers while frames are unwound inline: kept out of
 * call_state, so that the compiler holds them in registers across frames */
struct walk_regs {
	__u64 pc, sp, fp;
	__u32 n, exact, version;
};

/*
 * The common frame, walked inline: its row cached by this thread and a plain
 * offset from rsp or rbp. 1: the stack ends here; 0: one more frame; -1: the
 * loop's unwind_step takes this frame over and goes on from it.
 */
static __always_inline long unwind_fast(struct call_state *s, struct walk_regs *w)
{
	__u64 look, cfa, ra, rbp = w->fp;
	struct unwind_row row, *cached;

	if (w->n >= MAX_STACK_DEPTH)
		return -1;
	look = w->exact ? w->pc : w->pc - 1;
	cached = cached_row(s, look, w->version);
	if (!cached)
		return -1;
	row = *cached;
	if (row.cfa_kind == UNWIND_CFA_RSP)
		cfa = w->sp + row.cfa_offset;
	else if (row.cfa_kind == UNWIND_CFA_RBP && w->fp)
		cfa = w->fp + row.cfa_offset;
	else if (row.cfa_kind == UNWIND_CFA_OUTERMOST)
		return 1;
	else
		return -1;
	if (cfa <= w->sp || read_word(s, cfa - 8, &ra))
		return -1;
	if (row.rbp_kind == UNWIND_RBP_AT_CFA) {
		if (read_word(s, cfa + row.rbp_offset, &rbp))
			return -1;
	} else if (row.rbp_kind != UNWIND_RBP_SAME) {
		return -1;
	}
	if (!ra)
		return 1;
	s->event.stack[w->n] = ra;
	w->n++;
	w->pc = ra;
	w->sp = cfa;
	w->fp = rbp;
	w->exact = 0;
	return 0;
}

static long unwind_frame(__u64 i, struct call_state **sp)
{
	return unwind_step(*sp);
}

/* into s->event.stack; returns the number of frames. Stops where the chain
 * ends or breaks. The first frames are walked inline: a bpf_loop call and its
 * callbacks cost ~100 ns a stack here. Each inline frame adds to the
 * verifier's work at attach: 8 cost ~3 ms, 16 cost ~30 ms. Deeper stacks go
 * on in the loop. With unwind tables every frame is one callback: a table
 * step inline is too much for the verifier. */
static __always_inline int walk_user_stack(struct pt_regs *ctx, struct call_state *s,
					   __u64 who, bool at_syscall)
{
	struct proc_state *proc = proc_of(who);
	long ret = 0;
	__u64 ip = PT_REGS_IP(ctx), sp = PT_REGS_SP(ctx), fp = PT_REGS_FP(ctx);

	s->event.stack[0] = ip;
	s->walk.fp = fp;
	s->walk.base = 0;
	s->walk.valid = 0;
	s->walk.n = 1;
	if (unwind_mode != UNWIND_MODE_FP) {
		/* the caller resumes at ip with the registers it had before the call
		 * (at a system call: the wrapper resumes there, and its row leads
		 * to its caller); mods_version once per walk: the daemon bumps it
		 * after writing the other half */
		struct walk_regs w = {
			.pc = ip,
			.sp = sp,
			.fp = fp,
			.n = 1,
			.exact = 1,
			.version = *(volatile __u32 *)&proc->mods_version,
		};

		s->walk.version = w.version;
		s->walk.slot = WHO_SLOT(who);
		s->walk.nmods = proc->mods_count[w.version & 1];
		if (s->walk.nmods > MAX_UNWIND_MODULES)
			s->walk.nmods = MAX_UNWIND_MODULES;
#pragma unroll
		for (int i = 0; i < UNWIND_INLINE; i++) {
			ret = unwind_fast(s, &w);
			if (ret)
				break;
		}
		s->walk.n = w.n;
		if (ret > 0)
			return w.n;
		s->walk.pc = w.pc;
		s->walk.sp = w.sp;
		s->walk.fp = w.fp;
		s->walk.exact = w.exact;
		bpf_loop(MAX_STACK_DEPTH, unwind_frame, &s, 0);
		return s->walk.n;
	}
	/* a system call's wrapper (glibc's, musl's) makes no frame: its
	 * caller's return address is on top of the stack, and rbp is the
	 * caller's */
	if (at_syscall) {
		if (read_word(s, sp, &s->event.stack[1]) || !s->event.stack[1])
			return 1;
		s->walk.n = 2;
	}
#pragma unroll
	for (int i = 0; i < WALK_INLINE; i++)
		if (walk_step(s))
			return s->walk.n;
	bpf_loop(MAX_STACK_DEPTH - 1 - WALK_INLINE, walk_frame, &s, 0);
	if (s->walk.n >= MAX_STACK_DEPTH)
		count(COUNTER_CUT_DEPTH);
	return s->walk.n;
}

/* --per-thread: the thread's name, when it is not the one last sent
 * (threads name themselves after they start) */
static __always_inline void send_name(struct call_state *s, __u64 who)
{
	struct name_event ev = {
		.type = EVENT_THREAD_NAME,
		.slot = WHO_SLOT(who),
		.tid = WHO_TID(who),
	};
	__u64 *name = (__u64 *)ev.name;
	void *ring;

	if (bpf_get_current_comm(ev.name, sizeof(ev.name)) ||
	    (name[0] == s->name[0] && name[1] == s->name[1]))
		return;
	s->name[0] = name[0];
	s->name[1] = name[1];
	ev.ts_ns = bpf_ktime_get_ns();
	ring = cpu_ring();
	if (!ring || bpf_ringbuf_output(ring, &ev, sizeof(ev), wakeup_flag(ring))) {
		count(COUNTER_LOST_ALLOC);
		s->name[0] = 0;		/* sent again with the next */
	}
}

/* one allocation record with the stack of the thread, as its registers are
 * in regs: at the return of an allocator call, or at a system call */
static __always_inline void send_alloc(struct pt_regs *regs, struct call_state *s, __u64 who,
				       __u32 fn, __u64 addr, __u64 size, __u64 old_addr,
				       bool at_syscall)
{
	struct alloc_event *ev = &s->event;
	void *ring;
	long len;

	if (per_thread)
		send_name(s, who);

	ev->type = EVENT_ALLOC;
	ev->slot = WHO_SLOT(who);
	ev->tid = WHO_TID(who);
	ev->addr = addr;
	ev->size = size;
	ev->old_addr = old_addr;
	ev->ts_ns = bpf_ktime_get_ns();
	ev->fn = fn;
	ev->maps_gen = (__u16)proc_of(who)->maps_gen;
	ev->stack_len = walk_user_stack(regs, s, who, at_syscall);
	len = (ev->stack_len & 0xff) * sizeof(ev->stack[0]);
	if (len > sizeof(ev->stack))
		len = sizeof(ev->stack);
	ring = cpu_ring();
	if (!ring || bpf_ringbuf_output(ring, ev, offsetof(struct alloc_event, stack) + len,
					wakeup_flag(ring)))
		count(COUNTER_LOST_ALLOC);
}

/*
 * The application's own anonymous mappings: from probes on its libc's
 * mmap, munmap and mremap, which only the traced processes pay; where no
 * libc of ours makes the calls (a static binary without symbols, Go's raw
 * system calls), from the system-call tracepoints, which every system call
 * on the machine pays, attached only then. A mapping made inside a traced
 * allocator call (glibc's arenas, jemalloc's extents) is the allocator's,
 * and one made by the dynamic loader (a library's .bss) the loader's:
 * neither is counted.
 */
#define NR_MMAP 9
#define NR_MUNMAP 11
#define NR_MREMAP 25
#define NR_MPROTECT 10
#define PROT_ACCESS 7		/* PROT_READ | PROT_WRITE | PROT_EXEC */
#define MAP_FIXED 0x10
#define MAP_ANONYMOUS 0x20
#define MAP_STACK 0x20000	/* glibc's thread stacks */
#define PAGE_MASK_LOW 4095ULL


static __always_inline __u64 page_round(__u64 len)
{
	return (len + PAGE_MASK_LOW) & ~PAGE_MASK_LOW;
}

/* pages that change hands: EVENT_UNMAP, EVENT_RESERVE, EVENT_DECOMMIT */
static __always_inline void send_range(__u16 type, __u64 who, __u64 addr, __u64 len)
{
	struct range_event ev = {
		.type = type,
		.slot = WHO_SLOT(who),
		.tid = WHO_TID(who),
		.ts_ns = bpf_ktime_get_ns(),
		.addr = addr,
		.len = len,
	};
	void *ring = cpu_ring();

	if (!ring || bpf_ringbuf_output(ring, &ev, sizeof(ev), wakeup_flag(ring)))
		count(COUNTER_LOST_FREE);
}

/*
 * What an mmap, mremap or mprotect of the program's returned ret: sends
 * the pages it mapped (and those it took away). fn, len, flags, prot,
 * old_addr, old_len: the call's (mprotect: its address in old_addr); ip:
 * where it was made from; at_syscall: regs are those of the system call's
 * instruction, else those at the wrapper's return.
 */
static __always_inline void mapped(struct pt_regs *regs, struct call_state *s, __u64 who,
				   __u32 fn, __u64 ret, __u64 len, __u64 flags, __u64 prot,
				   __u64 old_addr, __u64 old_len, __u64 ip, bool at_syscall)
{
	struct proc_state *proc = proc_of(who);

	if (ret >= (__u64)-4095)
		return;		/* failed: nothing changed */
	if (ip >= proc->loader_start && ip < proc->loader_end)
		return;
	/* called by an allocator's library (at the return, ip is the caller),
	 * whichever of its functions runs: the allocator's own */
	if (!at_syscall) {
#pragma unroll
		for (int i = 0; i < MAX_ALLOC_CODE; i++)
			if (ip >= proc->alloc_code_start[i] && ip < proc->alloc_code_end[i])
				return;
	}
	len = page_round(len);
	if (fn == FN_MPROTECT) {
		/* pages made inaccessible are no memory; made accessible, those
		 * of a reservation of the program's are (the daemon knows which) */
		if (!(prot & PROT_ACCESS)) {
			send_range(EVENT_DECOMMIT, who, old_addr, len);
			return;
		}
		ret = old_addr;
	} else if (fn == FN_MMAP) {
		if (!(flags & MAP_ANONYMOUS)) {
			/* a file mapped over pages of ours: they are gone */
			if (flags & MAP_FIXED)
				send_range(EVENT_UNMAP, who, ret, len);
			return;
		}
		if (flags & MAP_STACK)
			return;
		/* address space, not memory, until mprotect */
		if (!(prot & PROT_ACCESS)) {
			send_range(EVENT_RESERVE, who, ret, len);
			return;
		}
	} else if (old_len) {
		/* mremap: the old pages left (an old length of 0 copies a shared mapping) */
		send_range(EVENT_UNMAP, who, old_addr, page_round(old_len));
	}
	if (sample_bytes && !take_sample(s, len, ret, false))
		return;
	send_alloc(regs, s, who, at_syscall ? fn | FN_AT_SYSCALL : fn, ret, len, 0, at_syscall);
}

/* munmap, at entry: once the pages are gone another thread may map them
 * again, and its record must come after this one. Any caller's, the
 * allocator's too: pages it unmaps are no one's any more. */
static __always_inline int enter_unmap(__u64 who, __u64 addr, __u64 len)
{
	len = page_round(len);
	/* the kernel refuses these: nothing is unmapped */
	if ((addr & PAGE_MASK_LOW) || !len)
		return 0;
	send_range(EVENT_UNMAP, who, addr, len);
	return 0;
}

/* mmap and mremap, at the entry of libc's wrapper: the arguments, for the
 * return; inside a traced allocator call the pages are the allocator's */
static __always_inline int enter_map(__u64 who, __u32 fn, __u64 len, __u64 flags, __u64 prot,
				     __u64 old_addr, __u64 old_len)
{
	struct call_state *s = current_state(BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (!s) {
		count(COUNTER_NO_STATE);
		return 0;
	}
	s->map_fn = s->depth ? 0 : fn;
	s->in_map_call = 1;
	s->map_len = len;
	s->map_flags = flags;
	s->map_prot = prot;
	s->map_old_addr = old_addr;
	s->map_old_len = old_len;
	return 0;
}

static __always_inline int leave_map(struct pt_regs *ctx, __u64 who)
{
	struct call_state *s = current_state(0);
	__u32 fn;

	if (!s)
		return 0;
	s->in_map_call = 0;
	if (!s->map_fn)
		return 0;
	fn = s->map_fn;
	s->map_fn = 0;
	/* at the return the ip is the return address: where the call was made */
	mapped(ctx, s, who, fn, PT_REGS_RC(ctx), s->map_len, s->map_flags, s->map_prot,
	       s->map_old_addr, s->map_old_len, PT_REGS_IP(ctx), false);
	return 0;
}

/* The address a successful call returned, or 0 when it failed. */
static __always_inline __u64 returned_block(struct pt_regs *ctx, struct call_state *s)
{
	__u64 ret = PT_REGS_RC(ctx);
	__u64 addr = 0;

	if (s->ret == RET_SIZE) {
		/* resized in place: the same block, of the size returned */
		s->size = ret;
		return ret ? s->ptr_arg : 0;
	}
	if (s->ret != RET_AT_PTR)
		return ret;
	if ((int)ret != 0 || bpf_probe_read_user(&addr, sizeof(addr), (void *)s->ptr_arg))
		return 0;
	return addr;
}

SEC("uretprobe")
int BPF_KRETPROBE(leave_alloc)
{
	__u32 fn = COOKIE_FN(bpf_get_attach_cookie(ctx));
	struct call_state *s;
	bool realloc_call, known_old;
	__u8 one = 1;
	__u64 addr, who;

	if (empty_probes || !(who = target_who()))
		return 0;
	if (fn == FN_MMAP || fn == FN_MREMAP || fn == FN_MPROTECT)
		return leave_map(ctx, who);
	s = current_state(0);
	/* no state or depth 0: the entry ran before we attached */
	if (!s || s->depth == 0)
		return 0;
	if (--s->depth > 0)
		return 0;
	/* a block this thread frees from now on is not the one it freed last */
	s->free_addr = 0;

	addr = returned_block(ctx, s);
	realloc_call = s->moves;
	/* the daemon knows of realloc's old block (sampled, or no sampling) */
	known_old = realloc_call && s->ptr_arg && (!sample_bytes || s->old_sampled);
	if (!addr || s->size == ~0ULL) {
		if (!known_old)
			return 0;
		/* realloc(p, 0) released p; otherwise p survives the failure */
		if (s->size && sample_bytes)
			bpf_map_update_elem(&sampled, &s->ptr_arg, &one, BPF_ANY);
		send_ptr_event(s->size ? EVENT_REALLOC_FAILED : EVENT_FREE, who, s->ptr_arg);
		return 0;
	}
	if (sample_bytes && !take_sample(s, s->size, addr, true)) {
		/* not a sample: no stack, no record; only the old block's release */
		if (known_old)
			send_ptr_event(EVENT_FREE, who, s->ptr_arg);
		return 0;
	}

	/* at the return the caller's frame is complete: its return address comes first */
	send_alloc(ctx, s, who, s->fn, addr, s->size, known_old ? s->ptr_arg : 0, false);
	return 0;
}

static __always_inline int enter_free(__u64 who, __u64 ptr, bool nested_ok, __u64 sp)
{
	struct call_state *s;
	__u64 now;

	if (!ptr)
		return 0;
	s = current_state(nested_ok ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	/* released inside a traced call (realloc(p, 0), ...): that call accounts */
	if (s && s->depth)
		return 0;
	/* called by another free of the same block (a sized delete calling
	 * free), the outer one still running: deeper on the stack, at once,
	 * with no allocation by this thread in between */
	if (nested_ok && s) {
		now = bpf_ktime_get_ns();
		if (ptr == s->free_addr && sp <= s->free_sp && now - s->free_ns < 100000)
			return 0;
		s->free_addr = ptr;
		s->free_sp = sp;
		s->free_ns = now;
	}
	/* sampling: the daemon never heard of a block that was not sampled. Most
	 * blocks were not: a lookup takes no lock, a delete locks its bucket. */
	if (sample_bytes &&
	    (!bpf_map_lookup_elem(&sampled, &ptr) || bpf_map_delete_elem(&sampled, &ptr)))
		return 0;
	send_ptr_event(s && s->exiting ? EVENT_EXIT_FREE : EVENT_FREE, who, ptr);
	return 0;
}

/*
 * start_thread() calls __call_tls_dtors() once the thread function is done;
 * then glibc hands every chunk of the thread's cache to free() again. Those
 * were freed by the program already: the daemon must not call them unknown.
 */
static __always_inline int enter_thread_exit(void)
{
	struct call_state *s;

	/* the main thread runs it from exit(), where frees are the program's */
	if (is_main_thread())
		return 0;
	s = current_state(BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (s)
		s->exiting = 1;
	return 0;
}

/* ld.so's r_state at addr is not RT_CONSISTENT (or cannot be read) */
static __always_inline bool maps_in_flux(__u64 addr)
{
	__u32 state = 1;

	if (bpf_probe_read_user(&state, sizeof(state), (void *)addr))
		return true;
	return state != 0;
}

/* One entry program for every traced function: the probe's cookie says which,
 * and so where its arguments are. One program lets one uprobe_multi link carry
 * all the entry probes of an object. */
SEC("uprobe")
int BPF_KPROBE(enter_call, __u64 arg1, __u64 arg2, __u64 arg3, __u64 arg4)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);
	__u32 fn = COOKIE_FN(cookie);
	struct proc_state *proc;
	__u64 who;

	if (empty_probes || !(who = target_who()))
		return 0;
	switch (fn) {
	case FN_FREE:
		return enter_free(who, arg1, false, 0);
	case FN_FREE_NESTED:
		return enter_free(who, arg1, true, PT_REGS_SP(ctx));
	case FN_THREAD_EXIT:
		return enter_thread_exit();
	case FN_MAPS_CHANGE:
		/* the daemon reads the maps of the new generation at once */
		proc = proc_of(who);
		__sync_fetch_and_add(&proc->maps_gen, 1);
		if (proc->hold_at_hook) {
			send_ptr_event_flags(EVENT_MAPS_CHANGE, who, proc->maps_gen,
					     BPF_RB_FORCE_WAKEUP);
			if (++proc->hook_calls == 2) {
				proc->hold_at_hook = 0;
				hold_current();
			}
			return 0;
		}
		/* the maps are consistent again (RT_CONSISTENT): a dlopen's
		 * libraries wait, stopped, for their tables */
		if (proc->r_state_addr && !maps_in_flux(proc->r_state_addr) && hold_current()) {
			send_ptr_event_flags(EVENT_MAPS_HELD, who, proc->maps_gen, BPF_RB_FORCE_WAKEUP);
			return 0;
		}
		send_ptr_event_flags(EVENT_MAPS_CHANGE, who, proc->maps_gen, BPF_RB_FORCE_WAKEUP);
		return 0;
	case FN_MMAP:
		return enter_map(who, fn, arg2, arg4, arg3, 0, 0);
	case FN_MREMAP:
		return enter_map(who, fn, arg3, 0, 0, arg1, arg2);
	case FN_MPROTECT:
		return enter_map(who, fn, arg2, 0, arg3, arg1, 0);
	case FN_MUNMAP:
		return enter_unmap(who, arg1, arg2);
	default:	/* an allocator: its arguments are where the cookie says */
		return enter(ctx, who, cookie);
	}
}

/*
 * The main thread exits while others run on (pthread_exit in main). A
 * perf-event link filters on the memory map of the thread it was made for,
 * and stops with it: the daemon says so.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_thread_exit, struct task_struct *p)
{
	__u64 who = target_who();

	if (!who || !is_main_thread() || !p->signal || !p->signal->live.counter)
		return 0;
	send_ptr_event_flags(EVENT_MAIN_EXIT, who, 0, BPF_RB_FORCE_WAKEUP);
	return 0;
}

/* --comm: a program of that name began (its first instruction is still
 * to run): it stops, and is held until the daemon has probed it */
static __always_inline void started(struct task_struct *p)
{
	struct ptr_event ev = { .type = EVENT_COMM_EXEC };
	__u64 name[THREAD_NAME_LEN / 8] = {};
	__u32 tgid;
	void *ring;

	if (bpf_get_current_comm(name, sizeof(name)) || name[0] != comm_name[0] ||
	    name[1] != comm_name[1])
		return;
	tgid = current_id() >> 32;
	if (!tgid || !enter_waiting(tgid))
		return;
	ev.tid = (__u32)current_id();
	ev.ts_ns = bpf_ktime_get_ns();
	ev.addr = tgid;
	ring = cpu_ring();
	if (!ring || bpf_ringbuf_output(ring, &ev, sizeof(ev), BPF_RB_FORCE_WAKEUP)) {
		count(COUNTER_LOST_FREE);
		leave_waiting(tgid);
	}
}

/*
 * exec replaces the target's program: its heap is gone and its stacks would
 * point into other code. The daemon ends the trace at this record, or
 * follows the new program from it: a new heap, its files probed and their
 * unwind tables built while it waits, stopped.
 */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct ptr_event ev = { .type = EVENT_EXEC };
	__u64 who = target_who();
	void *ring;

	if (!who) {
		if (by_comm)
			started(p);
		return 0;
	}
	ev.slot = WHO_SLOT(who);
	ev.tid = WHO_TID(who);
	ev.ts_ns = bpf_ktime_get_ns();
	ring = cpu_ring();
	if (!ring || bpf_ringbuf_output(ring, &ev, sizeof(ev), BPF_RB_FORCE_WAKEUP))
		count(COUNTER_LOST_FREE);
	if (proc_of(who)->hold_exec)
		hold_current();
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(on_sys_enter, struct pt_regs *regs, long nr)
{
	__u64 who;

	if (nr != NR_MUNMAP || empty_probes || !trace_mmap || !(who = target_who()) ||
	    proc_of(who)->maps_probed)
		return 0;
	return enter_unmap(who, regs->di, regs->si);
}

/* the tgid of task as tracelloc sees it (see current_id), 0 when it has none there */
static __always_inline __u32 ns_tgid(struct task_struct *task)
{
	struct upid upid;
	struct pid *pid;
	__u32 level;

	if (!pidns_ino)
		return task->tgid;
	pid = task->group_leader->thread_pid;
	level = pidns_level;
	if (!pid || level > 31 || pid->level < level)
		return 0;
	if (bpf_probe_read_kernel(&upid, sizeof(upid), &pid->numbers[level]))
		return 0;
	return upid.nr;
}

/*
 * A stop signal for a process we hold that is not our own SIGSTOP (a
 * parent's kill(child, SIGSTOP), a ^Z): that stop is someone else's too,
 * and the daemon must not continue it. Caught here because a SIGSTOP sent
 * while ours is still pending merges with it, and nothing would show later.
 */
SEC("tp_btf/signal_generate")
int BPF_PROG(on_signal, int sig, struct kernel_siginfo *info, struct task_struct *task,
	     int group, int result)
{
	__u32 tgid, zero = 0, *how;
	__u64 *sending;

	if (sig < SIGSTOP || sig > SIGSTOP + 3)
		return 0;
	sending = bpf_map_lookup_elem(&holding, &zero);
	if (sending && *sending && *sending == bpf_get_current_pid_tgid())
		return 0;
	tgid = ns_tgid(task);
	how = tgid ? bpf_map_lookup_elem(&held, &tgid) : NULL;
	if (how)
		*how |= HELD_OTHER_STOP;
	return 0;
}


static __always_inline bool send_fork(__u32 type, __u32 slot, __u32 child, __u32 child_own,
				      __u32 flags)
{
	struct fork_event ev = {
		.type = type,
		.slot = slot,
		.tid = (__u32)current_id(),
		.ts_ns = bpf_ktime_get_ns(),
		.child = child,
		.child_own = child_own,
		.flags = flags,
	};
	void *ring = cpu_ring();

	if (!ring || bpf_ringbuf_output(ring, &ev, sizeof(ev), BPF_RB_FORCE_WAKEUP)) {
		count(COUNTER_LOST_FREE);
		return false;
	}
	return true;
}

/*
 * --follow-forks: a new process of a traced one, as the kernel makes it,
 * in its parent (before the parent goes on, so the parent's record comes
 * in the order of its records: what it held then, the child holds; and
 * before the child ever runs). The child stops at its first return to user
 * space, before any of its code runs, and is held until the daemon has
 * probed it: its pages are copies of its parent's, without the parent's
 * breakpoints, and no probe of ours filters on it yet. No system-call
 * tracepoint is needed for this, so the rest of the host pays nothing for it.
 */
extern int bpf_send_signal_task(struct task_struct *task, int sig, enum pid_type type,
				__u64 value) __ksym;

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 parent_tgid, child_tgid, flags, *slot, disarm = HELD_DISARM, how = 0, zero = 0;
	__u32 waiting = NO_SLOT;
	__u64 *sending;

	if (!follow_forks || !parent || !child || child->tgid == parent->tgid)
		return 0;	/* a thread */
	parent_tgid = ns_tgid(parent);
	slot = parent_tgid ? bpf_map_lookup_elem(&traced, &parent_tgid) : NULL;
	if (!slot || *slot >= MAX_PROCS)
		return 0;
	child_tgid = ns_tgid(child);
	if (!child_tgid || bpf_map_lookup_elem(&held, &disarm))
		return 0;
	flags = child->mm == parent->mm ? FORK_SHARES_VM : 0;
	if (bpf_map_update_elem(&traced, &child_tgid, &waiting, BPF_NOEXIST)) {
		count(COUNTER_UNTRACED_PROCS);
		return 0;
	}
	if (bpf_map_update_elem(&held, &child_tgid, &how, BPF_ANY)) {
		bpf_map_delete_elem(&traced, &child_tgid);
		count(COUNTER_UNTRACED_PROCS);
		return 0;
	}
	/* the parent's record, then the child's; the pair's key is the child's pid */
	if (!send_fork(EVENT_FORK_PARENT, *slot, 0, child_tgid, flags) ||
	    !send_fork(EVENT_FORK, *slot, child_tgid, child_tgid, flags)) {
		bpf_map_delete_elem(&traced, &child_tgid);
		bpf_map_delete_elem(&held, &child_tgid);
		return 0;
	}
	sending = bpf_map_lookup_elem(&holding, &zero);
	if (sending)
		*sending = bpf_get_current_pid_tgid();
	bpf_send_signal_task(child, SIGSTOP, PIDTYPE_TGID, 0);
	if (sending)
		*sending = 0;
	return 0;
}

/* mmap and mremap, at their return, in a process whose libc is not probed
 * (static, or Go's raw calls): what they mapped, and where */
SEC("tp_btf/sys_exit")
int BPF_PROG(on_sys_exit, struct pt_regs *regs, long ret)
{
	__u64 nr = regs->orig_ax, who;
	struct call_state *s;

	if ((nr != NR_MMAP && nr != NR_MREMAP && nr != NR_MPROTECT) || empty_probes ||
	    !trace_mmap || !(who = target_who()) || proc_of(who)->maps_probed)
		return 0;
	if ((unsigned long)ret >= (unsigned long)-4095)
		return 0;
	s = current_state(BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!s) {
		count(COUNTER_NO_STATE);
		return 0;
	}
	if (s->depth || s->in_map_call)
		return 0;
	if (nr == NR_MMAP)
		mapped(regs, s, who, FN_MMAP, ret, regs->si, regs->r10, regs->dx, 0, 0, regs->ip, true);
	else if (nr == NR_MREMAP)
		mapped(regs, s, who, FN_MREMAP, ret, regs->dx, 0, 0, regs->di, regs->si, regs->ip, true);
	else
		mapped(regs, s, who, FN_MPROTECT, ret, regs->si, 0, regs->dx, regs->di, 0, regs->ip,
		       true);
	return 0;
}
