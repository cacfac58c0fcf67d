/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_MAPPING_BPF_H
#define TRACELLOC_MAPPING_BPF_H

#include "unwind.bpf.h"

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

	send_record(&ev, sizeof(ev), 0, COUNTER_LOST_FREE);
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
static __always_inline int enter_map(struct call_state *s, __u32 fn, __u64 len, __u64 flags,
				     __u64 prot, __u64 old_addr, __u64 old_len)
{
	if (!s) {
		count(COUNTER_NO_STATE);
		return 0;
	}
	s->map_fn = s->depth ? 0 : fn;
	/* by a named allocator's code itself: a slab of its own */
	s->map_slab = fn == FN_MMAP && s->named && s->depth == s->named_depth;
	s->in_map_call = 1;
	s->map_len = len;
	s->map_flags = flags;
	s->map_prot = prot;
	s->map_old_addr = old_addr;
	s->map_old_len = old_len;
	return 0;
}

static __always_inline int leave_map(struct pt_regs *ctx, struct call_state *s, __u64 who)
{
	__u32 fn;

	if (!s)
		return 0;
	s->in_map_call = 0;
	if (s->map_slab) {
		s->map_slab = 0;
		if (PT_REGS_RC(ctx) < (__u64)-4095 && (s->map_flags & MAP_ANONYMOUS))
			send_range(EVENT_SLAB, who, PT_REGS_RC(ctx), page_round(s->map_len));
		return 0;
	}
	if (!s->map_fn)
		return 0;
	fn = s->map_fn;
	s->map_fn = 0;
	/* at the return the ip is the return address: where the call was made */
	mapped(ctx, s, who, fn, PT_REGS_RC(ctx), s->map_len, s->map_flags, s->map_prot,
	       s->map_old_addr, s->map_old_len, PT_REGS_IP(ctx), false);
	return 0;
}

#endif
