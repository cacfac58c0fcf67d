/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of the BPF object share (linked into one by bpftool gen
 * object): the tunables, the constants the daemon sets, the maps, the
 * per-thread state, and the small helpers every part calls, inlined into
 * each program as before. One part (alloc.bpf.c) defines the constants and
 * maps; the others see them as extern.
 */
#ifndef TRACELLOC_COMMON_BPF_H
#define TRACELLOC_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "tracelloc.h"

#ifdef TRACELLOC_DEFINE_SHARED
#define SHARED
#define INIT(...) = __VA_ARGS__
#else
#define SHARED extern
#define INIT(...)
#endif

/* power of two; see walk_user_stack */
#ifndef WALK_INLINE
#define WALK_INLINE 8	/* frames walked inline before bpf_loop takes over */
#endif
#ifndef UNWIND_INLINE
#define UNWIND_INLINE 8	/* frames unwound inline by cached rows */
#endif
#ifndef ROW_CACHE_BITS
/* sets of two rows; see call_state.rows. 128 rows kept a C++ program's
 * stacks (cmake's, 23 frames) missing 1.5 rows a walk, a search each;
 * 512 rows, none (12 KiB a thread) */
#define ROW_CACHE_BITS 8
#endif
/* a cached row's version has this bit clear: the module list's version is
 * taken without it, as no list is rebuilt 2^31 times */
#define ROW_VICTIM (1U << 31)
#define ROW_CACHE_SETS (1 << ROW_CACHE_BITS)
/* libbpf 1.1's headers have no bpf_ksym_exists: a weak kfunc the kernel
 * lacks is relocated to address 0 */
#ifndef bpf_ksym_exists
#define bpf_ksym_exists(sym) (!!(sym))
#endif
#ifndef STACK_WINDOW_WORDS
#define STACK_WINDOW_WORDS 128	/* 1 KiB: several frames of a C++ program */
#endif


/* pids as tracelloc sees them: in tracelloc's pid namespace, given by
 * pidns_dev and pidns_ino (and its depth, pidns_level) when that is not the
 * initial one */
SHARED const volatile __u64 pidns_dev INIT(0);
SHARED const volatile __u64 pidns_ino INIT(0);
SHARED const volatile __u32 pidns_level INIT(0);
/* --follow-forks: a traced process's new child stops at its first
 * instruction and is traced as its own process */
SHARED const volatile bool follow_forks INIT(false);
/* --comm: a program of this name that starts (exec) is traced as well */
SHARED const volatile bool by_comm INIT(false);
SHARED const volatile __u64 comm_name[THREAD_NAME_LEN / 8] INIT({});
/* the program's own mappings (not --no-mmap) */
SHARED const volatile bool trace_mmap INIT(true);
/* benchmarks: the same probes doing nothing, the floor of what tracing costs */
SHARED const volatile bool empty_probes INIT(false);
/* benchmarks: parts of the return program left out (enum bench_part), to
 * say where its time goes; 0 but in make bench */
SHARED const volatile __u32 bench_parts INIT(0);
/* wake the daemon once this much waits in the ring buffer; it also polls on a
 * timer, so nothing waits long. A wakeup per record costs an irq_work each. */
SHARED const volatile __u64 wakeup_bytes INIT(1 << 20);
/* sampling (0: trace every call): one sample every sample_bytes bytes on
 * average, a Poisson process over the bytes allocated, as tcmalloc does */
SHARED const volatile __u64 sample_bytes INIT(0);
SHARED const volatile __u32 neg_log_table[EXP_TABLE_SIZE] INIT({});
/* enum unwind_mode */
SHARED const volatile __u32 unwind_mode INIT(UNWIND_MODE_FP);
/* --per-thread: allocations carry their thread's name */
SHARED const volatile bool per_thread INIT(false);
/* --leak-check: a process that calls exit() is held there until scanned */
SHARED const volatile bool hold_at_exit INIT(false);

/* the traced processes: tgid (in tracelloc's pid namespace) -> slot in
 * procs[]; the daemon adds and removes them */
SHARED struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_TRACED_ENTRIES);
	__type(key, __u32);
	__type(value, __u32);
} traced SEC(".maps");

/* the thread each CPU is sending our own SIGSTOP to (itself), so that
 * on_signal knows that stop for ours */
SHARED struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} holding SEC(".maps");

/* the processes stopped for the daemon: pid -> enum held_flags (see
 * tracelloc.h); the daemon creates it, and its guardian holds it too */
SHARED struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_HELD);
	__type(key, __u32);
	__type(value, __u32);
} held SEC(".maps");

SHARED struct proc_state procs[MAX_PROCS] INIT({});
/* a Python stack's record, built before it is sent (python.bpf.h) */
SHARED struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct py_event);
} py_scratch SEC(".maps");
/* the last process a stop was not made for, as a debugger or strace
 * traces it (hold_current, on_fork): its pid, and 1 when it runs on
 * untraced for that (a program --comm names, a child to follow) */
SHARED __u32 ptraced[2] INIT({});
/* bumped by the daemon after each change of `traced`: a thread's state
 * keeps its who while it is unchanged (state_who) */
SHARED __u32 traced_gen INIT(0);

/* Per-thread state. Task storage is freed by the kernel when the thread exits. */
struct call_state {
	/* this thread's who, as target_who() found it while traced_gen was
	 * who_gen - 1 (0: not known) */
	__u64 who;
	__u32 who_gen;
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
	/* inside a named allocator's call (--alloc-fn): what the allocator
	 * takes for itself there is its own memory, a pool's slab. named:
	 * the outermost call is one; named_depth: the depth of the innermost
	 * named call of the chain from it (a named function may call
	 * another); a call of an allocator at the next depth is a slab's */
	__u8 named;
	__u8 named_index;
	__u8 map_slab;		/* the mmap under way is a slab */
	__u8 in_ret;		/* the slab's call: enum call_return */
	__u8 in_moves;		/* the slab's call is a realloc */
	__u32 named_depth;
	__u64 pool;		/* the named call's pool argument */
	__u64 in_size;		/* the slab's call: its size and block given */
	__u64 in_ptr_arg;
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
		/* unwinding: a frame pointer read below the frame it was in, 0
		 * as rbp (a chain grows up), kept for a stack switch of Go's */
		__u64 fp_below;
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
			/* of the module list the row was found in; way[0]'s
			 * ROW_VICTIM bit: way[1] is replaced next */
			__u32 version;
			struct unwind_row row;
		} way[2];
	} rows[ROW_CACHE_SETS];
};

SHARED struct {
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

SHARED struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);		/* the daemon creates it, one ring per possible CPU */
	__type(key, __u32);
	__array(values, struct cpu_ring);
} rings SEC(".maps");

/* sampling: the live blocks that were sampled, so the others' frees stay here */
SHARED struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_SAMPLED_BLOCKS);
	__type(key, __u64);
	__type(value, __u8);
} sampled SEC(".maps");

SHARED struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, COUNTER__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/*
 * Unwind tables (enum unwind_mode): the daemon appends each file's rows to
 * unwind_rows, in chunks it makes as they fill (see ROW_CHUNK_ROWS), and
 * lists the executable mappings that have rows, sorted by start, in one half
 * of unwind_mods while the walks read the other; then it bumps mods_version,
 * whose low bit names the half to read. The daemon mmaps the chunks and
 * unwind_mods, which is sized at load.
 */
struct row_chunk {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, ROW_CHUNK_ROWS);
	__type(key, __u32);
	__type(value, struct unwind_row);
};

SHARED struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, MAX_ROW_CHUNKS);
	__type(key, __u32);
	__array(values, struct row_chunk);
} unwind_rows SEC(".maps");

SHARED struct {
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

/*
 * The current thread's who, and its state (made when flags say so, NULL
 * when there is none): a hash lookup in `traced` cost ~80 ns of a program's
 * run here, the state's lookup ~15, and the state is wanted anyway. The who
 * found is kept in the state until the daemon changes `traced`: the
 * generation is read before the lookup, so a change made meanwhile makes
 * the next run look again.
 */
static __always_inline __u64 state_who(struct call_state **sp, __u64 flags)
{
	__u32 gen = *(volatile __u32 *)&traced_gen;
	struct call_state *s = current_state(flags);
	__u64 who;

	*sp = s;
	if (s && s->who_gen == gen + 1)
		return s->who;
	who = target_who();
	if (s && who) {
		s->who = who;
		s->who_gen = gen + 1;
	}
	return who;
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
	/* traced by a debugger or strace (ptrace): our SIGSTOP would be
	 * theirs to see, as the program's (gdb stops there, and its batch
	 * mode then kills the program): never stopped, and said */
	if (task->ptrace) {
		count(COUNTER_PTRACED);
		ptraced[1] = 0;
		ptraced[0] = pid;
		return false;
	}
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
		if (ptraced[0] == tgid)
			ptraced[1] = 1;
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

/* a record into this CPU's ring (flags 0: the reader is woken once a batch
 * waits); false when it was lost, counted under lost */
static __always_inline bool send_record(void *data, __u64 size, __u64 flags, __u32 lost)
{
	void *ring = cpu_ring();

	if (ring && !bpf_ringbuf_output(ring, data, size, flags ? flags : wakeup_flag(ring)))
		return true;
	count(lost);
	return false;
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

	send_record(&ev, sizeof(ev), flags, COUNTER_LOST_FREE);
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

#endif
