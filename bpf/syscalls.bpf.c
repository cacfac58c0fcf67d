// SPDX-License-Identifier: GPL-2.0
/*
 * The program's own mappings at the system calls, for a process whose libc
 * no probe sees (a static executable, Go's raw calls): attached only while
 * such a process is traced, as every system call on the host pays for them.
 */
#include "common.bpf.h"
#include "mapping.bpf.h"

SEC("tp_btf/sys_enter")
int BPF_PROG(on_sys_enter, struct pt_regs *regs, long nr)
{
	__u64 who;

	if (nr != NR_MUNMAP || empty_probes || !trace_mmap || !(who = target_who()) ||
	    proc_of(who)->maps_probed)
		return 0;
	return enter_unmap(who, regs->di, regs->si);
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
