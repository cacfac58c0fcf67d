/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_PROBESITE_H
#define TRACELLOC_PROBESITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Where to put a probe. An x86 uprobe on an instruction the kernel can
 * emulate (push, jcc, jmp, call, nop) costs ~0.9 us a hit; any other is
 * single-stepped, ~12 us here. glibc's free() starts with `test %rdi,%rdi`
 * (single-stepped), then `je` (emulated): probing the je is 13x cheaper.
 *
 * The probe may move past up to 12 plain instructions (moves, compares,
 * address arithmetic, shifts, nops) that write no memory and leave rsp as it
 * was (a return probe takes the return address from the top of the stack
 * when it fires; a nested free's depth is its rsp). Memory reads are fine:
 * the instructions still run, in place, before the probe. Each argument the
 * probe reads must still be there: in its own register (fixed), or
 * (moved) in any register a move put it in. mimalloc's malloc moves the
 * size to rsi before it reads its heap into rdi; glibc's posix_memalign
 * starts with `cmpb $0x0,...(%rip)` then `push`; jemalloc's free looks its
 * thread's cache up in nine instructions before its first branch.
 *
 * code should hold the function whole, or a good part of it: no direct
 * branch in it may land between the entry and the probe, where the probe
 * would fire on a path that made no call.
 *
 * Returns how many bytes past the entry to probe: the first emulated
 * instruction reached that way, or 0 when there is none (or the entry itself
 * is emulated). args->at says where each argument is there.
 */
/* the registers that pass arguments 1-6 (rdi, rsi, rdx, rcx, r8, r9) are
 * numbered as the argument each passes; rax is 7 */
#define PROBE_REG_RAX 7

struct probe_args {
	uint8_t fixed;		/* bit n: argument n (1-6) is read in its own register */
	uint8_t moved;		/* bit n: argument n is read wherever a move put it */
	uint8_t at[7];		/* out: at[n], the register argument n is in at the probe */
};

size_t probesite__shift(const uint8_t *code, size_t len, struct probe_args *args);

/*
 * The frame of a system call wrapper at its system call, for code without
 * CFI (musl's libc): the path from the entry to the first `syscall`,
 * followed straight (pushes, pops, rsp +/- constants; calls and branches
 * not taken leave rsp as it was). At the instruction after the syscall
 * (resume, an offset into code) the caller's rsp is rsp + cfa_offset, its
 * return address right below; rbp is the caller's, or saved at CFA +
 * rbp_offset. -ENOENT: no syscall on that path; -EINVAL: rsp or rbp changes
 * in a way not followed.
 */
struct syscall_frame {
	uint64_t resume;
	int64_t cfa_offset;
	int64_t rbp_offset;
	bool rbp_saved;
};

int probesite__syscall_frame(const uint8_t *code, size_t len, struct syscall_frame *out);

/*
 * A dispatcher: code (at address at) jumps through a function pointer within
 * its first few instructions, with no compare, call or return before
 * (CPython's PyObject_Malloc: `jmp *_PyObject+8(%rip)`). 1: it does, and
 * *slot is the pointer's address; 0: it does, through a register; -ENOENT:
 * it does not (a guess at the pointer with its target inlined, as profile-
 * guided builds make).
 */
int probesite__dispatch_slot(const uint8_t *code, size_t len, uint64_t at, uint64_t *slot);

#endif
