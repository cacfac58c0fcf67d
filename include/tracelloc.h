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
	FN_FREE,
	FN_THREAD_EXIT,		/* __call_tls_dtors: a thread begins to exit */
	FN_MAPS_CHANGE,		/* ld.so's _dl_debug_state: libraries come or go */
	FN__COUNT,
};

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
};

/* Frees and realloc bookkeeping: small, no stack. */
/* Every record starts with type, tid and ts_ns: each CPU has its own ring
 * buffer, and the daemon merges them in time order. */
struct ptr_event {
	unsigned int type;
	unsigned int tid;
	unsigned long long ts_ns;	/* CLOCK_MONOTONIC */
	unsigned long long addr;
};

struct alloc_event {
	unsigned int type;
	unsigned int tid;
	unsigned long long ts_ns;	/* CLOCK_MONOTONIC */
	unsigned long long addr;
	unsigned long long size;	/* as requested by the caller */
	unsigned long long old_addr;	/* realloc/reallocarray: the block passed in, else 0 */
	unsigned short fn;		/* enum alloc_fn */
	unsigned short maps_gen;	/* low bits of the generation of the maps (maps_gen) */
	int stack_len;			/* frames in stack[], or negative errno of the capture */
	/* user return addresses, innermost first; only stack_len entries are sent */
	unsigned long long stack[MAX_STACK_DEPTH];
};

/* Per-CPU counters of what the BPF side could not deliver. */
enum bpf_counter {
	COUNTER_LOST_ALLOC,	/* ring buffer full: allocation event dropped */
	COUNTER_LOST_FREE,	/* ring buffer full: free/realloc event dropped */
	COUNTER_NO_STATE,	/* no per-thread state could be created: call not traced */
	COUNTER_SAMPLED_FULL,	/* sampling: the table of sampled blocks was full */
	COUNTER__COUNT,
};

#endif /* TRACELLOC_H */
