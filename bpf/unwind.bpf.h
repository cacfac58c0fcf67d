/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user stack at a return program, by frame pointers or by the unwind
 * tables, and the allocation record that carries it. Included by the parts
 * whose programs send allocations (alloc.bpf.c, syscalls.bpf.c): inlined
 * into each program, as a call across the link would cost a BPF-to-BPF call
 * per record.
 */
#ifndef TRACELLOC_UNWIND_BPF_H
#define TRACELLOC_UNWIND_BPF_H

#include "common.bpf.h"
#include "python.bpf.h"

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
 * window from addr up to the end of its page. A frame's words are read
 * from the lowest up: the saved rbp before the return address above it,
 * or the window read for the return address would miss the rbp below */
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

/* row i of the rows, in its chunk; NULL past the chunks made */
static __always_inline struct unwind_row *row_at(__u32 i)
{
	__u32 chunk = i >> ROW_CHUNK_BITS, at = i & (ROW_CHUNK_ROWS - 1);
	void *rows = bpf_map_lookup_elem(&unwind_rows, &chunk);

	return rows ? bpf_map_lookup_elem(rows, &at) : NULL;
}

static long row_search_step(__u64 i, struct row_search *q)
{
	struct unwind_row *row;
	__u32 mid;

	if (q->lo >= q->hi)
		return 1;
	mid = (q->lo + q->hi) / 2;
	row = row_at(q->first + mid);
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

	bpf_loop(32, row_search_step, &q, 0);
	if (q.failed || !q.lo || q.lo < q.hi)
		return NULL;
	return row_at(q.first + q.lo - 1);
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
	s->walk.fp_below = 0;
	s->walk.exact = exact;
	return 0;
}

/* a frame pointer in code with no CFI is believed this far above sp at most */
#define FP_REACH (1ULL << 20)

/* a frame with no table, by its frame pointer: its caller's rbp and return
 * address, where rbp is a frame of this stack (at or above sp, and near it;
 * anywhere after a stack switch of Go's runtime). A chain that stops here
 * stops short: code with no table is never a thread's outermost frame (the
 * start code's tables say where that is), so no rbp, a junk one or a zero
 * return address is counted, not taken for the end of the stack. */
static __always_inline long fp_frame(struct call_state *s, __u32 n, bool switched)
{
	__u64 fp = switched && !s->walk.fp ? s->walk.fp_below : s->walk.fp, sp = s->walk.sp;
	__u64 next, ret;
	long done;

	if (!fp || (fp & 7) || (!switched && (fp < sp || fp - sp >= FP_REACH)) ||
	    read_word(s, fp, &next) || read_word(s, fp + 8, &ret) || !ret)
		return cut(COUNTER_CUT_NO_TABLE);
	/* a frame pointer chain grows toward higher addresses; Go's goroutine
	 * stacks lie below the threads' own */
	done = push_frame(s, n, ret, fp + 16, next > fp ? next : 0, 0);
	if (next <= fp)
		s->walk.fp_below = next;
	return done;
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
	__u32 first = set->way[0].version;

	/* the victim bit written only when it changes: a store to the set's
	 * line at every frame cost up to 3% of a deep walk */
	if (set->way[0].look == look && (first & ~ROW_VICTIM) == version) {
		if (!(first & ROW_VICTIM))
			set->way[0].version = first | ROW_VICTIM;
		return &set->way[0].row;
	}
	if (set->way[1].look == look && set->way[1].version == version) {
		if (first & ROW_VICTIM)
			set->way[0].version = first & ~ROW_VICTIM;
		return &set->way[1].row;
	}
	return NULL;
}

static __always_inline void cache_row(struct call_state *s, __u64 look, __u32 version,
				      const struct unwind_row *row)
{
	typeof(&s->rows[0]) set = row_set(s, look);
	__u32 v = set->way[0].version >> 31;

	set->way[v].look = look;
	set->way[v].version = version;
	set->way[v].row = *row;
	/* the other way goes next: way[0]'s bit was clear if it was just
	 * written, set if way[1] was */
	set->way[0].version ^= ROW_VICTIM;
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
				return fp_frame(s, n, false);
			return cut(COUNTER_CUT_NO_TABLE);
		}
		if (!m->nrows) {
			if (m->first_row == UNWIND_NO_CFI && unwind_mode == UNWIND_MODE_AUTO)
				return fp_frame(s, n, false);
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
	case UNWIND_CFA_SWITCH:
		/* Go's runtime (src/unwind/unwind.c): the goroutine's frames, by rbp */
		if (unwind_mode == UNWIND_MODE_AUTO)
			return fp_frame(s, n, true);
		return cut(COUNTER_CUT_NO_TABLE);
	case UNWIND_CFA_GAP:
		/* code with no CFI in an object whose tables were read: V8's
		 * embedded builtins in node are, and keep frame pointers as JIT
		 * code does; ld.so's entry code is the outermost */
		if (unwind_mode == UNWIND_MODE_AUTO &&
		    !(look >= proc->loader_start && look < proc->loader_end))
			return fp_frame(s, n, false);
		return no_table(proc, look);
	default:
		return cut(COUNTER_CUT_RULE);
	}
	/* the caller's frame lies above this one */
	if (cfa <= sp)
		return cut(COUNTER_CUT_RULE);
	/* the saved rbp first: it lies below the return address (read_word) */
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
	if (read_word(s, cfa - 8, &ra))
		return cut(COUNTER_CUT_UNREADABLE);
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
	if (cfa <= w->sp)
		return -1;
	/* the saved rbp first: it lies below the return address (read_word) */
	if (row.rbp_kind == UNWIND_RBP_AT_CFA) {
		if (read_word(s, cfa + row.rbp_offset, &rbp))
			return -1;
	} else if (row.rbp_kind != UNWIND_RBP_SAME) {
		return -1;
	}
	if (read_word(s, cfa - 8, &ra))
		return -1;
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

/* the registers back into the walk's state, for unwind_step and the loop
 * (a frame of unwind_fast's kept no rbp from below, as push_frame) */
static __always_inline void save_regs(struct call_state *s, const struct walk_regs *w)
{
	s->walk.n = w->n;
	s->walk.pc = w->pc;
	s->walk.sp = w->sp;
	s->walk.fp = w->fp;
	s->walk.fp_below = 0;
	s->walk.exact = w->exact;
}

/*
 * A frame of the loop: by its cached row as inline (unwind_fast) where it
 * can, else by unwind_step. A global function: the verifier checks it once
 * for each program that calls it, where a static callback is checked again
 * at each bpf_loop call site and each pass until its states converge (8
 * times in leave_alloc: 87,000 of its 100,000 verified instructions, about
 * 120 ms of every attach). Weak, as each part that walks stacks has a copy
 * and the linker keeps one.
 */
__weak __noinline long unwind_frame_checked_once(struct call_state *s)
{
	if (!s)
		return 1;

	struct walk_regs w = {
		.pc = s->walk.pc,
		.sp = s->walk.sp,
		.fp = s->walk.fp,
		.n = s->walk.n,
		.exact = s->walk.exact,
		.version = s->walk.version,
	};
	long ret = unwind_fast(s, &w);

	if (ret < 0)
		return unwind_step(s);
	s->walk.n = w.n;
	if (ret > 0)
		return 1;
	save_regs(s, &w);
	return 0;
}

static long unwind_frame(__u64 i, struct call_state **sp)
{
	/* a global function's result is any number to the verifier */
	return unwind_frame_checked_once(*sp) ? 1 : 0;
}

/* into s->event.stack, from the registers in s->walk (pc, sp, fp); returns
 * the number of frames. Stops where the chain ends or breaks. The first
 * frames are walked inline: a bpf_loop call and its callbacks cost ~100 ns a
 * stack here. Deeper stacks go on in the loop. A global function, checked
 * once for each program: inline in each of a program's call sites (leave_alloc
 * has six), the inline frames were checked six times over. */
__weak __noinline int walk_user_stack_checked_once(struct call_state *s, __u64 who,
						  __u32 at_syscall)
{
	if (!s)
		return 0;

	struct proc_state *proc = &procs[WHO_SLOT(who) & (MAX_PROCS - 1)];
	long ret = 0;
	__u64 ip = s->walk.pc, sp = s->walk.sp, fp = s->walk.fp;

	s->event.stack[0] = ip;
	s->walk.fp = fp;
	s->walk.fp_below = 0;
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
			.version = *(volatile __u32 *)&proc->mods_version & ~ROW_VICTIM,
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
		if (ret > 0)
			return w.n;
		save_regs(s, &w);
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

	if (bpf_get_current_comm(ev.name, sizeof(ev.name)) ||
	    (name[0] == s->name[0] && name[1] == s->name[1]))
		return;
	s->name[0] = name[0];
	s->name[1] = name[1];
	ev.ts_ns = bpf_ktime_get_ns();
	if (!send_record(&ev, sizeof(ev), 0, COUNTER_LOST_ALLOC))
		s->name[0] = 0;		/* sent again with the next */
}

/* one allocation record with the stack of the thread from pc, sp and fp:
 * at the return of an allocator call, at a system call, or as a call's
 * return would find them (send_alloc_at_entry) */
static __always_inline void send_alloc_from(struct call_state *s, __u64 who, __u32 fn, __u64 addr,
					    __u64 size, __u64 old_addr, bool at_syscall, __u64 pc,
					    __u64 sp, __u64 fp)
{
	struct alloc_event *ev = &s->event;
	__u32 call = fn & 0xff;
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
	if (bench_parts & BENCH_NO_STACK) {
		ev->stack[0] = pc;
		ev->stack_len = 1;
	} else {
		s->walk.pc = pc;
		s->walk.sp = sp;
		s->walk.fp = fp;
		ev->stack_len = walk_user_stack_checked_once(s, who, at_syscall);
	}
	if (bench_parts & BENCH_NO_RING)
		return;
	/* its Python frames first: the daemon has them when this one comes */
	if (proc_of(who)->py.tstate_addr)
		walk_python_checked_once(who, ev->ts_ns);
	len = (ev->stack_len & 0xff) * sizeof(ev->stack[0]);
	if (len > sizeof(ev->stack))
		len = sizeof(ev->stack);
	/* a big mapping is measured while the process lives, which may not
	 * be long: the daemon reads it now, not with the next batch */
	send_record(ev, offsetof(struct alloc_event, stack) + len,
		    (call == FN_MMAP || call == FN_MREMAP || call == FN_MPROTECT) &&
		    size >= WEIGHED_MAP_MIN ? BPF_RB_FORCE_WAKEUP : 0, COUNTER_LOST_ALLOC);
}

/* at the return of an allocator call, or at a system call: the thread's
 * registers in regs */
static __always_inline void send_alloc(struct pt_regs *regs, struct call_state *s, __u64 who,
				       __u32 fn, __u64 addr, __u64 size, __u64 old_addr,
				       bool at_syscall)
{
	send_alloc_from(s, who, fn, addr, size, old_addr, at_syscall, PT_REGS_IP(regs),
			PT_REGS_SP(regs), PT_REGS_FP(regs));
}

/* at a function's entry, before its prologue: the stack as its return
 * would find it, from the return address on top */
static __always_inline void send_alloc_at_entry(struct pt_regs *regs, struct call_state *s,
						__u64 who, __u32 fn, __u64 size)
{
	__u64 sp = PT_REGS_SP(regs), ra;

	if (bpf_probe_read_user(&ra, sizeof(ra), (void *)sp) || !ra)
		return;
	send_alloc_from(s, who, fn, 0, size, 0, false, ra, sp + 8, PT_REGS_FP(regs));
}

#endif
