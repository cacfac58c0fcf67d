/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the BPF programs and the daemon share: event records, limits and enums.
 * Plain C only, no includes: it compiles after vmlinux.h on the BPF side and
 * after libc on the user side.
 */
#ifndef TRACELLOC_H
#define TRACELLOC_H

#define MAX_STACK_DEPTH 127
/* sampling: exponential draws come from a table of -ln(u), u uniform, 16.16 fixed point */
#define EXP_TABLE_SIZE 1024
#define MAX_SAMPLED_BLOCKS (1 << 20)

/* The traced entry points; each probe's BPF cookie is one of these. */
enum alloc_fn {
	FN_NONE = 0,
	FN_MALLOC,
	FN_CALLOC,
	FN_REALLOC,
	FN_REALLOCARRAY,
	FN_POSIX_MEMALIGN,
	FN_ALIGNED_ALLOC,
	FN_MEMALIGN,
	FN_VALLOC,
	FN_PVALLOC,
	FN_NEW,
	FN_NEW_ARRAY,
	FN_NEW_ALIGNED,
	FN_NEW_ARRAY_ALIGNED,
	/* the APIs of other allocators (src/probe/attach.c: families) */
	FN_MALLOCX,		/* jemalloc: mallocx(size, flags) */
	FN_RALLOCX,		/* jemalloc: rallocx(ptr, size, flags), a realloc */
	/* jemalloc: xallocx(ptr, size, extra, flags) resizes in place and
	 * returns the size the block has now: a realloc to that size */
	FN_XALLOCX,
	FN_MI_ZALLOC,		/* mimalloc: mi_zalloc(size) */
	FN_MI_MALLOC_ALIGNED,	/* mimalloc: mi_malloc_aligned(size, alignment) */
	FN_MI_ZALLOC_ALIGNED,	/* mimalloc: mi_zalloc_aligned(size, alignment) */
	FN_MI_CALLOC_ALIGNED,	/* mimalloc: mi_calloc_aligned(count, size, alignment) */
	FN_MI_REALLOC_ALIGNED,	/* mimalloc: mi_realloc_aligned(ptr, size, alignment), a realloc */
	/* CPython's object allocator (pymalloc), its two domains: objects
	 * (PyObject_Malloc(size), ...) and the interpreter's own memory
	 * (PyMem_Malloc(size), ...), which jump through the allocator's
	 * pointers; their frees are FN_FREE_NESTED */
	FN_PY_MALLOC,
	FN_PY_CALLOC,
	FN_PY_REALLOC,
	FN_PYMEM_MALLOC,
	FN_PYMEM_CALLOC,
	FN_PYMEM_REALLOC,
	/* what both domains' pointers lead to: pymalloc's own functions,
	 * (ctx, size), (ctx, nelem, elsize), (ctx, ptr, size); its free is
	 * FN_PY_FREE */
	FN_PYMALLOC_MALLOC,
	FN_PYMALLOC_CALLOC,
	FN_PYMALLOC_REALLOC,
	/* Go's runtime.mallocgc(size, typ, needzero), size in rax: at its
	 * entry only, an allocation with no block (the GC frees it unseen) */
	FN_GO_MALLOC,
	/* the application's own anonymous mappings, from libc's wrappers (or
	 * the system calls, see FN_AT_SYSCALL): a block of whole pages that
	 * munmap may take apart */
	FN_MMAP,
	FN_MREMAP,		/* the range it moved or resized, at its new place */
	FN_MUNMAP,		/* a probe only: pages unmapped, at its entry */
	/* pages made accessible: those of a PROT_NONE reservation of the
	 * program's are memory from then, at this stack */
	FN_MPROTECT,
	FN_FREE,
	/* a free of another family, which may call another of its probed frees
	 * (tcmalloc's sized delete calls free): sent once */
	FN_FREE_NESTED,
	FN_PY_FREE,		/* pymalloc's _PyObject_Free(ctx, ptr): a FN_FREE_NESTED */
	FN_THREAD_EXIT,		/* __call_tls_dtors: a thread begins to exit */
	FN_MAPS_CHANGE,		/* ld.so's _dl_debug_state: libraries come or go */
	FN_EXIT,		/* exit(): --leak-check holds the process there */
	/* the program's own allocators (--alloc-fn, --realloc-fn): the
	 * cookie says where the arguments are, and which of them it is
	 * (COOKIE_NAMED); an alloc_event's fn carries that index too
	 * (FN_NAMED_INDEX) */
	FN_NAMED,
	FN_NAMED_FREE,		/* --free-fn: entry only */
	FN_POOL_DESTROY,	/* --pool-destroy-fn: entry only; the pool in the ptr argument */
	/* --pool-create-fn: no block; what it allocates is the pool's own */
	FN_POOL_CREATE,
	FN__COUNT,
};

/*
 * A probe's cookie: its function (enum alloc_fn) in the low byte and, for
 * an allocator, where its arguments are and what its return means, so that
 * one program serves every family: src/probe/allocfns.c holds the table. An
 * argument is the register it is in when the probe fires: 1-6 for those
 * that pass arguments 1-6 (at the entry, argument n is in register n), 7
 * for rax (a probe past the entry, where the function moved it); 0 for none.
 */
#define COOKIE_FN(c)		((c) & 0xff)
#define COOKIE_SIZE_ARG(c)	(((c) >> 8) & 7)	/* the size */
#define COOKIE_COUNT_ARG(c)	(((c) >> 11) & 7)	/* the size is count * size */
/* the block it is given (a realloc), or where it writes the block (RET_AT_PTR) */
#define COOKIE_PTR_ARG(c)	(((c) >> 14) & 7)
#define COOKIE_RET(c)		(((c) >> 17) & 3)	/* enum call_return */
#define COOKIE_REALLOC		(1U << 19)		/* may move or release the block given */
#define COOKIE_POOL_ARG(c)	(((c) >> 20) & 7)	/* a named allocator's pool */
#define COOKIE_NAMED(c)		(((c) >> 24) & (MAX_NAMED_FNS - 1))	/* which one */
#define MAKE_COOKIE(fn, size_arg, count_arg, ptr_arg, ret, realloc)			\
	((fn) | (size_arg) << 8 | (count_arg) << 11 | (ptr_arg) << 14 | (ret) << 17 |	\
	 ((realloc) ? COOKIE_REALLOC : 0))

/* the program's own allocator functions named on the command line */
#define MAX_NAMED_FNS 64
/* alloc_event.fn of a named allocator's block: FN_NAMED | index << 8 */
#define FN_NAMED_INDEX(fn)	(((fn) >> 8) & (MAX_NAMED_FNS - 1))

enum call_return {
	RET_BLOCK,		/* the block, or 0 */
	RET_AT_PTR,		/* 0, and the block written at the pointer argument (posix_memalign) */
	RET_SIZE,		/* the block given, resized in place: its size, or 0 (xallocx) */
};

/* alloc_event.fn: a mapping seen at the system call (a static binary,
 * Go's raw calls), whose stack begins at the call's instruction in the
 * wrapper: the daemon drops that frame */
#define FN_AT_SYSCALL 0x8000

/* Every record starts with its type. */
enum event_type {
	EVENT_ALLOC = 1,	/* struct alloc_event */
	EVENT_FREE,		/* struct ptr_event: addr released */
	EVENT_REALLOC_BEGIN,	/* struct ptr_event: addr handed to realloc, may be released */
	EVENT_REALLOC_FAILED,	/* struct ptr_event: realloc failed, addr is still live */
	EVENT_EXIT_FREE,	/* struct ptr_event: free by a thread that is exiting */
	EVENT_EXEC,		/* struct ptr_event: the target called exec; addr unused */
	EVENT_MAPS_CHANGE,	/* struct ptr_event: ld.so changes the maps; addr: the new generation */
	EVENT_MAIN_EXIT,	/* struct ptr_event: the main thread exited, others run on; addr unused */
	EVENT_UNMAP,		/* struct range_event: pages no longer mapped (munmap, mremap, MAP_FIXED) */
	EVENT_THREAD_NAME,	/* struct name_event: the thread's name, before its next allocation */
	/* struct fork_event from the child, at its first return to user space:
	 * it is stopped until the daemon takes it */
	EVENT_FORK,
	/* struct ptr_event, slot unused: a program called --comm's name began
	 * (addr: its pid), and is stopped */
	EVENT_COMM_EXEC,
	/* struct fork_event from the parent, at the return of its fork: the
	 * moment the child's memory is the parent's, in the parent's order */
	EVENT_FORK_PARENT,
	/* struct range_event: address space the program reserved (an
	 * anonymous mapping with PROT_NONE): no memory, until mprotect */
	EVENT_RESERVE,
	/* struct range_event: mprotect(PROT_NONE): the program's pages there
	 * are no memory any more, and reserved again */
	EVENT_DECOMMIT,
	/* struct ptr_event: ld.so changed the maps (addr: the new generation)
	 * and the process is stopped: a library was just loaded, none of its
	 * code has run; the daemon builds its tables, then lets it go */
	EVENT_MAPS_HELD,
	/* struct ptr_event: the process called exit() and is stopped there,
	 * its memory whole (--leak-check); the daemon scans it, then lets it go */
	EVENT_EXITING,
	/* struct ptr_event: a named free function released addr (a block of
	 * a named allocator's, never its own memory) */
	EVENT_NAMED_FREE,
	/* struct range_event: memory a named allocator took for itself (from
	 * malloc, mmap...) inside its own call: its pools' slabs */
	EVENT_SLAB,
	/* struct ptr_event: such memory released inside a named allocator's call */
	EVENT_SLAB_FREE,
	/* struct ptr_event: a named pool (addr) was destroyed: its blocks go */
	EVENT_POOL_DESTROY,
	/* struct ptr_event: a free of the block this thread's last free
	 * released, deeper on its stack, too late to be sure it is a free
	 * function called by that one (the thread waited for a CPU in
	 * between): the daemon frees a live block, else it was that call */
	EVENT_FREE_AGAIN,
	/* struct ptr_event: a named realloc's own memory at addr, where the
	 * block it moves starts, moved by a realloc inside it: the slab goes,
	 * the block stays for the named realloc's record to move */
	EVENT_SLAB_MOVED,
	/* struct py_event: the Python frames of the allocation record that
	 * follows it from the same thread, with the same ts_ns */
	EVENT_PY_FRAMES,
};

/* how every record begins: each struct *_event below starts with these
 * fields, so that the daemon reads a record's kind and process before it
 * knows its struct (events.c checks the layouts) */
struct record_header {
	unsigned short type;		/* enum event_type */
	unsigned short slot;		/* the process's slot */
	unsigned int tid;		/* the sender's thread */
	unsigned long long ts_ns;	/* CLOCK_MONOTONIC */
};

/* fork_event.flags: the child shares its parent's memory (vfork, posix_spawn) */
#define FORK_SHARES_VM 1U

/* A new process of a traced one (--follow-forks). Each side sends one; the
 * daemon pairs them by the parent's slot and the child's pid in its own pid
 * namespace. */
struct fork_event {
	unsigned short type;
	unsigned short slot;		/* the parent's */
	unsigned int tid;		/* the sender's thread */
	unsigned long long ts_ns;	/* CLOCK_MONOTONIC */
	unsigned int child;		/* EVENT_FORK: its pid as tracelloc sees it */
	unsigned int child_own;		/* its pid in its own pid namespace (fork's return value) */
	unsigned int flags;		/* FORK_* */
	unsigned int pad;
};

/*
 * Processes traced at once: each has a slot, which its records carry, and
 * its own part of the unwind module map. The daemon numbers the processes of
 * a whole run apart from slots, which are reused.
 */
#define MAX_PROCS 64
/* a mapping of the program's of at least this many bytes counts by its
 * pages in memory, measured by the daemon while the process lives: its
 * record wakes the daemon at once */
#define WEIGHED_MAP_MIN (1ULL << 20)
/* shared libraries of allocators per process whose code is known to BPF */
#define MAX_ALLOC_CODE 4
#define NO_SLOT 0xffff		/* in `traced`: a child held until the daemon takes it */
/* room in `traced`: the processes traced plus those held, waiting for a slot */
#define MAX_TRACED_ENTRIES 4096

/*
 * `held`: every process the BPF side stopped (SIGSTOP) for the daemon, by
 * pid, so that whatever ends tracelloc, the guardian (src/probe/holds.c) can
 * continue them. Key HELD_DISARM set: tracing is ending, nothing more is
 * stopped.
 */
#define MAX_HELD 4096
#define HELD_DISARM 0
enum held_flags {
	HELD_OTHER_STOP = 1,	/* a stop signal was pending already: not ours alone */
};
/*
 * pid | HELD_OWED_CONT in `held`: a tracer attached to the process while we
 * held it (strace -f seizes its child once the child has stopped itself)
 * and took our stop for the program's own; its SIGCONT went to ours, and
 * the program's own SIGSTOP, which comes next, would wait for ever. The BPF
 * side sends that stop a SIGCONT (on_signal), once.
 */
#define HELD_OWED_CONT (1U << 31)

/*
 * CPython: where the walk finds a thread's frames, by the offsets of the
 * interpreter's version (src/symbols/pyframes.c). tstate_addr 0: the
 * process runs no Python we know.
 */
struct py_offsets {
	/* where the thread state of the thread that holds the GIL is, in
	 * the process: the word at tstate_addr, then the word at that plus
	 * each offset of tstate_chain up to the first PY_NO_FIELD (3.11:
	 * _PyRuntime.gilstate.tstate_current; 3.12: the main interpreter's
	 * GIL's last_holder, two pointers further) */
	unsigned long long tstate_addr;
	unsigned short tstate_chain[2];
	unsigned short tstate_thread_id;	/* pthread_self() of its thread */
	unsigned short tstate_cframe;		/* its _PyCFrame */
	unsigned short cframe_frame;		/* the _PyCFrame's current_frame */
	unsigned short frame_code;		/* _PyInterpreterFrame's f_code */
	unsigned short frame_previous;
	unsigned short frame_prev_instr;	/* the instruction last begun */
	unsigned short frame_entry;		/* is_entry (3.11); PY_NO_FIELD */
	unsigned short frame_owner;
	unsigned short code_units;		/* the code object's first code unit */
	/* its co_filename, then 16 bytes on its co_qualname: read with each
	 * frame, they tell a code object from one freed at its place */
	unsigned short code_names;
	unsigned char owner_cstack;		/* a C call's shim frame (3.12); 0xff: none */
	unsigned char pad;
	unsigned short pad2;
};
#define PY_NO_FIELD 0xffff
/* deepest Python stack walked; a deeper one is cut there (PY_CUT) */
#define PY_MAX_FRAMES 256
/* a Python frame as the walk sends it: its code object, its instruction
 * (a code unit's index, at most PY_LASTI_MAX) and whether it is the first
 * frame of a C call of the eval loop (the outermost of that call) */
#define PY_CODE_MASK ((1ULL << 48) - 1)
#define PY_LASTI_SHIFT 48
#define PY_LASTI_MAX 0x7fffULL
#define PY_ENTRY (1ULL << 63)
#define PY_CUT 1U		/* py_event.flags: more frames than PY_MAX_FRAMES */

struct py_event {
	unsigned short type;
	unsigned short slot;
	unsigned int tid;
	unsigned long long ts_ns;	/* the allocation record's */
	unsigned int nframes;		/* frames sent, innermost first */
	unsigned int flags;		/* PY_CUT */
	struct py_frame {
		unsigned long long at;	/* code, lasti, PY_ENTRY */
		/* the code object's co_filename and co_qualname, as read
		 * then: filename ^ qualname << 1 */
		unsigned long long names;
	} frames[PY_MAX_FRAMES];
};

/* What the BPF side keeps per traced process (the bss array procs[]). */
struct proc_state {
	/* How many times ld.so said it changes the maps (dlopen, dlclose: twice
	 * each). A library unloaded and another loaded at its place give a
	 * return address two meanings; each stack carries the generation it
	 * was taken in, and the daemon reads the maps of each generation. */
	unsigned int maps_gen;
	/* unwind modules: bumped per list; its low bit names the half to read */
	unsigned int mods_version;
	unsigned int mods_count[2];
	/* stop the process at exec, until its new program is probed */
	unsigned int hold_exec;
	/* after such an exec: stop again at ld.so's second call of its hook,
	 * when the libraries are mapped and none of their code has run */
	unsigned int hold_at_hook;
	unsigned int hook_calls;
	/* its libc's mmap, munmap and mremap are probed: the system-call
	 * programs leave it alone */
	unsigned int maps_probed;
	/* the dynamic loader's code: its mappings are not the program's */
	unsigned long long loader_start;
	unsigned long long loader_end;
	/* the code of the shared libraries whose allocators are probed (libc,
	 * jemalloc, ...): an mmap called from there is theirs (glibc makes an
	 * arena inside a free), not the program's */
	/* where ld.so says whether the maps are consistent (_r_debug.r_state):
	 * at its hook, a dlopen's libraries are mapped and none of their code
	 * has run; the process is stopped there until their tables are in.
	 * 0: not known (not held) */
	unsigned long long r_state_addr;
	unsigned long long alloc_code_start[MAX_ALLOC_CODE];
	unsigned long long alloc_code_end[MAX_ALLOC_CODE];
	/* the uretprobe trampoline's page: a return address there is not the caller's */
	unsigned long long uprobes_start;
	unsigned long long uprobes_end;
	struct py_offsets py;
};

/* Frees and realloc bookkeeping: small, no stack. */
/* Every record starts with type, slot, tid and ts_ns: each CPU has its own
 * ring buffer, and the daemon merges them in time order. slot: the traced
 * process's. */
struct ptr_event {
	unsigned short type;
	unsigned short slot;
	unsigned int tid;
	unsigned long long ts_ns;	/* CLOCK_MONOTONIC */
	unsigned long long addr;
};

#define THREAD_NAME_LEN 16

/* --per-thread: a thread's name (comm), sent when it first allocates and
 * whenever it has changed since */
struct name_event {
	unsigned short type;
	unsigned short slot;
	unsigned int tid;
	unsigned long long ts_ns;	/* CLOCK_MONOTONIC */
	char name[THREAD_NAME_LEN];
};

/* a range of whole pages */
struct range_event {
	unsigned short type;
	unsigned short slot;
	unsigned int tid;
	unsigned long long ts_ns;	/* CLOCK_MONOTONIC */
	unsigned long long addr;
	unsigned long long len;
};

struct alloc_event {
	unsigned short type;
	unsigned short slot;
	unsigned int tid;
	unsigned long long ts_ns;	/* CLOCK_MONOTONIC */
	unsigned long long addr;
	unsigned long long size;	/* as requested by the caller */
	unsigned long long old_addr;	/* realloc/reallocarray: the block passed in, else 0 */
	unsigned long long pool;	/* a named allocator's pool argument, else 0 */
	unsigned short fn;		/* enum alloc_fn (FN_NAMED: and its index) */
	unsigned short maps_gen;	/* low bits of the generation of the maps (maps_gen) */
	int stack_len;			/* frames in stack[], or negative errno of the capture */
	/* user return addresses, innermost first; only stack_len entries are sent */
	unsigned long long stack[MAX_STACK_DEPTH];
};

/* what a benchmark build leaves out of an allocation's record (make bench
 * sets them through TRACELLOC_BENCH_PARTS) */
enum bench_part {
	BENCH_NO_STACK = 1,	/* the stack is not walked: the return address alone */
	BENCH_NO_RING = 2,	/* the record is built, not sent */
};

/* Per-CPU counters of what the BPF side could not deliver. */
enum bpf_counter {
	COUNTER_LOST_ALLOC,	/* ring buffer full: allocation event dropped */
	COUNTER_LOST_FREE,	/* ring buffer full: free/realloc event dropped */
	COUNTER_NO_STATE,	/* no per-thread state could be created: call not traced */
	COUNTER_SAMPLED_FULL,	/* sampling: the table of sampled blocks was full */
	/* stacks that end before their outermost frame, by cause */
	COUNTER_CUT_NO_TABLE,	/* code without an unwind table (or one that did not fit) */
	COUNTER_CUT_RULE,	/* a rule not followed here, or one that went nowhere */
	COUNTER_CUT_UNREADABLE,	/* the stack could not be read */
	COUNTER_CUT_DEPTH,	/* MAX_STACK_DEPTH frames */
	COUNTER_UNTRACED_PROCS,	/* a new process with no room in `traced` or `held`: runs on untraced */
	COUNTER_UNTRACED_FORKS,	/* without --follow-forks: a traced process's child, not traced */
	COUNTER_PTRACED,	/* a stop not made: a debugger or strace traces the process */
	COUNTER_LOST_PY,	/* ring buffer full: an allocation's Python frames dropped */
	COUNTER__COUNT,
};

/*
 * Unwinding without frame pointers: the rows of one file's CFI (x86-64),
 * built by the daemon (src/unwind/unwind.c), sorted by pc. A row holds from its pc,
 * an ELF virtual address (the load bias subtracted), up to the next row's pc.
 * The caller's rsp is the CFA and its return address is at CFA - 8.
 */
enum unwind_cfa {
	UNWIND_CFA_GAP = 0,	/* no CFI covers the pc (between functions) */
	UNWIND_CFA_RSP,		/* CFA = rsp + cfa_offset */
	UNWIND_CFA_RBP,		/* CFA = rbp + cfa_offset */
	/* a .plt entry: CFA = rsp + 8 + (((rip & 15) >= cfa_offset) << 3), that
	 * is 8 more once the entry pushed its index (cfa_offset 11; 10 with IBT) */
	UNWIND_CFA_PLT,
	UNWIND_CFA_DEREF_RBP,	/* CFA = *(rbp + cfa_offset): a function that realigns its stack */
	/* a signal trampoline (__restore_rt): the interrupted rsp is saved at
	 * rsp + cfa_offset, its rip 8 bytes above, its rbp at rsp + rbp_offset */
	UNWIND_CFA_SIGNAL,
	UNWIND_CFA_OUTERMOST,	/* no return address (_start, a new thread): the stack ends */
	UNWIND_CFA_UNKNOWN,	/* a rule not followed here: the stack ends */
	/* a stack switch of Go's runtime (asmcgocall, systemstack): the
	 * frames above are the goroutine's, by rbp, on another stack */
	UNWIND_CFA_SWITCH,
};

enum unwind_rbp {
	UNWIND_RBP_UNKNOWN = 0,	/* a rule not followed here */
	UNWIND_RBP_SAME,	/* the caller's rbp is rbp */
	UNWIND_RBP_AT_CFA,	/* saved at CFA + rbp_offset */
	UNWIND_RBP_AT_RBP,	/* saved at rbp + rbp_offset (stack realignment) */
	UNWIND_RBP_UNDEFINED,	/* not recoverable */
};

/* 12 bytes; the fields a kind does not use are 0 (rbp_kind is 0 in GAP,
 * OUTERMOST, UNKNOWN and SIGNAL rows) */
struct unwind_row {
	unsigned int pc;
	int cfa_offset;
	short rbp_offset;
	unsigned char cfa_kind;		/* enum unwind_cfa */
	unsigned char rbp_kind;		/* enum unwind_rbp */
};

/* --leak-check: a thread's alternate signal stack (sigaltstack), as the
 * kernel holds it, one record per thread that has one (sig_stacks) */
struct sig_stack {
	unsigned long long sp;
	unsigned long long size;
};

/* how the return program walks the stack */
enum unwind_mode {
	UNWIND_MODE_FP = 0,	/* frame pointers only */
	UNWIND_MODE_AUTO,	/* the tables, frame pointers where no table covers the code */
	UNWIND_MODE_DWARF,	/* the tables only */
};

/*
 * One executable mapping with a table: its rows are rows[first_row] up to
 * rows[first_row + nrows - 1] of the rows map; pc - bias is the ELF address.
 * nrows 0: the file's rows did not fit, its frames end the stack; or, with
 * first_row UNWIND_NO_CFI, the file has no unwind information: its frames are
 * walked by frame pointer (auto) or end the stack (dwarf).
 */
struct unwind_module {
	unsigned long long start;
	unsigned long long end;
	unsigned long long bias;
	unsigned int first_row;
	unsigned int nrows;
};

#define UNWIND_NO_CFI 0xffffffffU

/* The rows of every file, one array in chunks of ROW_CHUNK_ROWS rows: row i
 * is row i % ROW_CHUNK_ROWS of chunk i / ROW_CHUNK_ROWS. The daemon makes
 * chunks as files come (a program exec'd by a small wrapper may need ten
 * times the rows of the wrapper), up to MAX_ROW_CHUNKS. */
#define ROW_CHUNK_BITS 18
#define ROW_CHUNK_ROWS (1U << ROW_CHUNK_BITS)	/* 4 MiB of rows */
#define MAX_ROW_CHUNKS 128			/* 33.5 million rows, 512 MiB */

/* modules in one half of the descriptor map */
#define MAX_UNWIND_MODULES 256

#endif /* TRACELLOC_H */
