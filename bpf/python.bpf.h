/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPython's frames at an allocation: the thread state of the thread that
 * holds the GIL (if it is this one), its current frame, then each frame's
 * previous, as the offsets of the interpreter's version say (procs[].py,
 * set by the daemon). A record of them goes just before the allocation's.
 */
#ifndef TRACELLOC_PYTHON_BPF_H
#define TRACELLOC_PYTHON_BPF_H

#include "common.bpf.h"

struct py_walk {
	struct py_event *ev;
	struct py_offsets *off;
	__u64 frame;
};

static __always_inline int py_word(__u64 addr, __u64 *out)
{
	return bpf_probe_read_user(out, sizeof(*out), (void *)addr);
}

static long py_step(__u64 i, struct py_walk *w)
{
	struct py_offsets *off = w->off;
	struct py_event *ev = w->ev;
	__u64 code = 0, instr = 0, lasti = 0, names[3] = {};
	__u8 owner = 0, entry = 0;
	__u32 n = ev->nframes;

	if (!w->frame || n >= PY_MAX_FRAMES)
		return 1;
	if (py_word(w->frame + off->frame_code, &code) ||
	    py_word(w->frame + off->frame_prev_instr, &instr) ||
	    bpf_probe_read_user(&owner, 1, (void *)(w->frame + off->frame_owner)))
		return 1;
	if (off->frame_entry != PY_NO_FIELD &&
	    bpf_probe_read_user(&entry, 1, (void *)(w->frame + off->frame_entry)))
		return 1;
	if (owner == off->owner_cstack) {
		/* 3.12's shim below a C call of the loop: the frame above it
		 * was that call's first */
		if (n > 0)
			ev->frames[(n - 1) & (PY_MAX_FRAMES - 1)].at |= PY_ENTRY;
	} else if (code && !bpf_probe_read_user(names, sizeof(names),
						(void *)(code + off->code_names))) {
		/* prev_instr: one code unit before the first when none began */
		if (instr >= code + off->code_units)
			lasti = (instr - code - off->code_units) / 2;
		if (lasti > PY_LASTI_MAX)
			lasti = PY_LASTI_MAX;
		ev->frames[n & (PY_MAX_FRAMES - 1)].at = (code & PY_CODE_MASK) |
							 lasti << PY_LASTI_SHIFT |
							 (entry ? PY_ENTRY : 0);
		ev->frames[n & (PY_MAX_FRAMES - 1)].names = names[0] ^ names[2] << 1;
		ev->nframes = n + 1;
	}
	if (py_word(w->frame + off->frame_previous, &w->frame))
		return 1;
	return 0;
}

/* the calling thread's Python frames, sent stamped with ts; a global
 * function, so that the verifier checks it once per program */
__weak __noinline int walk_python_checked_once(__u64 who, __u64 ts)
{
	struct proc_state *proc = &procs[WHO_SLOT(who) & (MAX_PROCS - 1)];
	struct py_offsets *off = &proc->py;
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 zero = 0, n;
	__u64 p = 0, thread = 0;
	struct py_walk w;
	struct py_event *ev;

	if (!off->tstate_addr || py_word(off->tstate_addr, &p))
		return 0;
	for (int i = 0; i < 2; i++) {
		if (off->tstate_chain[i] == PY_NO_FIELD)
			break;
		if (!p || py_word(p + off->tstate_chain[i], &p))
			return 0;
	}
	/* the GIL holder's state is this thread's only if it is this thread */
	if (!p || py_word(p + off->tstate_thread_id, &thread) || thread != task->thread.fsbase)
		return 0;
	ev = bpf_map_lookup_elem(&py_scratch, &zero);
	if (!ev)
		return 0;
	if (py_word(p + off->tstate_cframe, &p) || !p || py_word(p + off->cframe_frame, &p))
		return 0;
	ev->type = EVENT_PY_FRAMES;
	ev->slot = WHO_SLOT(who);
	ev->tid = WHO_TID(who);
	ev->ts_ns = ts;
	ev->nframes = 0;
	ev->flags = 0;
	w.ev = ev;
	w.off = off;
	w.frame = p;
	bpf_loop(PY_MAX_FRAMES, py_step, &w, 0);
	if (ev->nframes >= PY_MAX_FRAMES && w.frame)
		ev->flags |= PY_CUT;
	if (!ev->nframes)
		return 0;
	n = ev->nframes;
	if (n > PY_MAX_FRAMES)
		n = PY_MAX_FRAMES;
	send_record(ev, offsetof(struct py_event, frames) + n * sizeof(ev->frames[0]), 0,
		    COUNTER_LOST_PY);
	return 0;
}

#endif
