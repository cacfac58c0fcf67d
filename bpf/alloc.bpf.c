// SPDX-License-Identifier: GPL-2.0
/*
 * Probes on the allocator entry points of one process. Entry programs save the
 * arguments of the outermost traced call per thread; the common return program
 * captures the user stack and sends one allocation record. Frees are sent at
 * entry, before the block can be handed out again, so the daemon always sees a
 * release before any reuse of the address.
 */
#define TRACELLOC_DEFINE_SHARED
#include "common.bpf.h"
#include "mapping.bpf.h"
#include "unwind.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* libbpf 1.1 (Debian 12) stops at the fifth argument */
#if !defined(PT_REGS_PARM6) && defined(__TARGET_ARCH_x86)
#define PT_REGS_PARM6(x) (__PT_REGS_CAST(x)->r9)
#endif

/* the registers a call's arguments may be in at its probe (see the cookie
 * in tracelloc.h), read at fixed offsets (a read at an offset computed from
 * n is one the verifier refuses in the context) */
struct call_args {
	__u64 a[7];
};

static __always_inline void read_args(struct pt_regs *ctx, struct call_args *args)
{
	args->a[0] = PT_REGS_PARM1(ctx);
	args->a[1] = PT_REGS_PARM2(ctx);
	args->a[2] = PT_REGS_PARM3(ctx);
	args->a[3] = PT_REGS_PARM4(ctx);
	args->a[4] = PT_REGS_PARM5(ctx);
	args->a[5] = PT_REGS_PARM6(ctx);
	args->a[6] = PT_REGS_RC(ctx);
}

/* what register n (1-7) holds; 0 for none */
static __always_inline __u64 call_arg(const struct call_args *args, __u32 n)
{
	return n >= 1 && n <= 7 ? args->a[n - 1] : 0;
}

/* a named allocator's call, or a pool's creation: what it takes for
 * itself is its own memory */
static __always_inline bool is_named(__u32 fn)
{
	return fn == FN_NAMED || fn == FN_POOL_CREATE;
}

/* a call made at the next depth of a named allocator's: another named
 * function is part of it, any other allocator's block is the named one's
 * own memory, sent at its return (leave_under_named) */
static __always_inline void enter_under_named(struct pt_regs *ctx, struct call_state *s,
					      __u64 cookie)
{
	struct call_args args;

	if (is_named(COOKIE_FN(cookie))) {
		s->named_depth = s->depth;
		return;
	}
	read_args(ctx, &args);
	s->in_size = call_arg(&args, COOKIE_SIZE_ARG(cookie));
	if (COOKIE_COUNT_ARG(cookie))
		s->in_size = array_size(call_arg(&args, COOKIE_COUNT_ARG(cookie)), s->in_size);
	s->in_ptr_arg = call_arg(&args, COOKIE_PTR_ARG(cookie));
	s->in_ret = COOKIE_RET(cookie);
	s->in_moves = !!(cookie & COOKIE_REALLOC);
}

/* the return of such a call: the memory it gave the named allocator */
static __always_inline void leave_under_named(struct pt_regs *ctx, struct call_state *s, __u64 who,
					      __u32 fn)
{
	__u64 ret = PT_REGS_RC(ctx), addr = ret;

	/* a named call inside the named one returned: the depth it was at */
	if (is_named(fn)) {
		if (s->depth + 1 == s->named_depth)
			s->named_depth = s->depth;
		return;
	}
	if (s->depth != s->named_depth)
		return;
	if (s->in_ret == RET_SIZE)
		return;		/* resized in place: its size is not ours to know */
	if (s->in_ret == RET_AT_PTR &&
	    ((int)ret != 0 || bpf_probe_read_user(&addr, sizeof(addr), (void *)s->in_ptr_arg)))
		return;
	if (!addr || s->in_size == ~0ULL)
		return;
	/* a named realloc that reallocs the block's own memory moves the
	 * block itself, in its own record (which comes after this one) */
	if (s->in_moves && s->in_ptr_arg)
		send_ptr_event(s->moves && s->in_ptr_arg == s->ptr_arg ? EVENT_SLAB_MOVED
									: EVENT_SLAB_FREE,
			       who, s->in_ptr_arg);
	send_range(EVENT_SLAB, who, addr, s->in_size);
}

/* an allocator's call: its size and the block it is given, where its
 * cookie says they are */
static __always_inline int enter(struct pt_regs *ctx, struct call_state *s, __u64 who,
				 __u64 cookie)
{
	struct call_args args;
	__u64 size, ptr_arg;

	if (!s) {
		count(COUNTER_NO_STATE);
		return 0;
	}
	/* nested (realloc -> malloc, new[] -> new -> malloc): the outer call
	 * accounts; but under a named allocator's, what it takes for itself */
	if (s->depth++ > 0) {
		if (s->named && s->depth == s->named_depth + 1)
			enter_under_named(ctx, s, cookie);
		return 0;
	}
	read_args(ctx, &args);
	size = call_arg(&args, COOKIE_SIZE_ARG(cookie));
	ptr_arg = call_arg(&args, COOKIE_PTR_ARG(cookie));
	if (COOKIE_COUNT_ARG(cookie))
		size = array_size(call_arg(&args, COOKIE_COUNT_ARG(cookie)), size);
	s->named = is_named(COOKIE_FN(cookie));
	if (s->named) {
		s->named_index = COOKIE_NAMED(cookie);
		s->named_depth = 1;
		s->pool = call_arg(&args, COOKIE_POOL_ARG(cookie));
	}
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
	bool realloc_call, known_old, named;
	__u8 one = 1;
	__u64 addr, who;

	if (empty_probes || !(who = state_who(&s, 0)))
		return 0;
	if (fn == FN_MMAP || fn == FN_MREMAP || fn == FN_MPROTECT)
		return leave_map(ctx, s, who);
	/* no state or depth 0: the entry ran before we attached */
	if (!s || s->depth == 0)
		return 0;
	if (--s->depth > 0) {
		if (s->named)
			leave_under_named(ctx, s, who, fn);
		return 0;
	}
	/* a block this thread frees from now on is not the one it freed last */
	s->free_addr = 0;
	named = s->named;
	s->named = 0;
	/* a pool's creation: no block */
	if (s->fn == FN_POOL_CREATE)
		return 0;

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
	if (named) {
		s->event.pool = s->pool;
		send_alloc(ctx, s, who, FN_NAMED | (__u32)s->named_index << 8, addr, s->size,
			   known_old ? s->ptr_arg : 0, false);
		s->event.pool = 0;
		return 0;
	}
	send_alloc(ctx, s, who, s->fn, addr, s->size, known_old ? s->ptr_arg : 0, false);
	return 0;
}

static __always_inline int enter_free(struct call_state *s, __u64 who, __u64 ptr,
				      bool nested_ok, __u64 sp)
{
	__u32 type = EVENT_FREE;
	__u64 now = 0;

	if (!ptr)
		return 0;
	/* released inside a traced call (realloc(p, 0), ...): that call
	 * accounts; a named allocator's own memory, by the named code itself */
	if (s && s->depth) {
		if (s->named && s->depth == s->named_depth)
			send_ptr_event(EVENT_SLAB_FREE, who, ptr);
		return 0;
	}
	/* called by another free of the same block (a sized delete calling
	 * free, pymalloc's free handing a large block to glibc's), the outer
	 * one still running: deeper on the stack, at once, with no allocation
	 * by this thread in between. Not at once, the thread may have waited
	 * for a CPU, or freed a block another thread got back meanwhile: the
	 * daemon knows which (EVENT_FREE_AGAIN). Only a family's free is
	 * remembered (nested_ok); glibc's is the innermost. */
	if (s && ptr == s->free_addr && sp <= s->free_sp) {
		now = bpf_ktime_get_ns();
		if (now - s->free_ns < 100000)
			return 0;
		type = EVENT_FREE_AGAIN;
	}
	if (nested_ok && s) {
		if (!now)
			now = bpf_ktime_get_ns();
		s->free_addr = ptr;
		s->free_sp = sp;
		s->free_ns = now;
	}
	/* sampling: the daemon never heard of a block that was not sampled. Most
	 * blocks were not: a lookup takes no lock, a delete locks its bucket. */
	if (sample_bytes &&
	    (!bpf_map_lookup_elem(&sampled, &ptr) || bpf_map_delete_elem(&sampled, &ptr)))
		return 0;
	send_ptr_event(s && s->exiting ? EVENT_EXIT_FREE : type, who, ptr);
	return 0;
}

/*
 * Go's runtime.mallocgc(size, typ, needzero), at its entry: Go's register
 * ABI has the size in rax. No return probe: the return address a uretprobe
 * puts in place breaks the walks Go's runtime makes of its own stacks (for
 * tracebacks, and to grow and move them), and the GC frees without a call,
 * so the block's address would serve nothing. An allocation with no block,
 * counted at its stack.
 */
static __always_inline int enter_go_alloc(struct pt_regs *ctx, struct call_state *s, __u64 who,
					  __u64 cookie)
{
	struct call_args args;
	__u64 size;

	if (!s) {
		count(COUNTER_NO_STATE);
		return 0;
	}
	read_args(ctx, &args);
	size = call_arg(&args, COOKIE_SIZE_ARG(cookie));
	if (sample_bytes && !take_sample(s, size, 0, false))
		return 0;
	send_alloc_at_entry(ctx, s, who, FN_GO_MALLOC, size);
	return 0;
}

/* --free-fn: the block in its argument goes, at entry as any free;
 * --pool-destroy-fn: the pool's blocks go, at every call (a pool's
 * destruction destroys its subpools) */
static __always_inline int enter_named_release(struct pt_regs *ctx, struct call_state *s,
					       __u64 who, __u64 cookie)
{
	struct call_args args;
	__u64 ptr;

	read_args(ctx, &args);
	ptr = call_arg(&args, COOKIE_PTR_ARG(cookie));
	if (!ptr)
		return 0;
	if (COOKIE_FN(cookie) == FN_POOL_DESTROY) {
		send_ptr_event(EVENT_POOL_DESTROY, who, ptr);
		return 0;
	}
	/* inside a traced call (a named realloc made of named calls): that call accounts */
	if (s && s->depth)
		return 0;
	if (sample_bytes &&
	    (!bpf_map_lookup_elem(&sampled, &ptr) || bpf_map_delete_elem(&sampled, &ptr)))
		return 0;
	send_ptr_event(EVENT_NAMED_FREE, who, ptr);
	return 0;
}

/*
 * start_thread() calls __call_tls_dtors() once the thread function is done;
 * then glibc hands every chunk of the thread's cache to free() again. Those
 * were freed by the program already: the daemon must not call them unknown.
 */
static __always_inline int enter_thread_exit(struct call_state *s)
{
	/* the main thread runs it from exit(), where frees are the program's */
	if (is_main_thread())
		return 0;
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
	struct call_state *s;
	__u64 who;

	/* a thread's state is made at its first call of anything but free,
	 * whose program needs it only inside another traced call */
	if (empty_probes ||
	    !(who = state_who(&s, fn == FN_FREE ? 0 : BPF_LOCAL_STORAGE_GET_F_CREATE)))
		return 0;
	switch (fn) {
	case FN_FREE:
		return enter_free(s, who, arg1, false, PT_REGS_SP(ctx));
	case FN_FREE_NESTED:
		return enter_free(s, who, arg1, true, PT_REGS_SP(ctx));
	case FN_PY_FREE:
		return enter_free(s, who, arg2, true, PT_REGS_SP(ctx));
	case FN_GO_MALLOC:
		return enter_go_alloc(ctx, s, who, cookie);
	case FN_THREAD_EXIT:
		return enter_thread_exit(s);
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
	case FN_EXIT:
		/* --leak-check: scanned before its memory goes, once exit's
		 * handlers and destructors ran; not a vfork child (posix_spawn's,
		 * whose exec failed): its memory is its parent's, which waits */
		if (hold_at_exit && !bpf_get_current_task_btf()->vfork_done && hold_current())
			send_ptr_event_flags(EVENT_EXITING, who, 0, BPF_RB_FORCE_WAKEUP);
		return 0;
	case FN_MMAP:
		return enter_map(s, fn, arg2, arg4, arg3, 0, 0);
	case FN_MREMAP:
		return enter_map(s, fn, arg3, 0, 0, arg1, arg2);
	case FN_MPROTECT:
		return enter_map(s, fn, arg2, 0, arg3, arg1, 0);
	case FN_MUNMAP:
		return enter_unmap(who, arg1, arg2);
	case FN_NAMED_FREE:
	case FN_POOL_DESTROY:
		return enter_named_release(ctx, s, who, cookie);
	default:	/* an allocator: its arguments are where the cookie says */
		return enter(ctx, s, who, cookie);
	}
}

