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
 * The probe may move past up to 3 plain instructions (moves, compares,
 * address arithmetic, nops) that write no memory and leave what the probe
 * reads as the caller left it: rdi, rsi, rdx (the arguments the entry
 * program takes) and rsp (a return probe takes the return address from the
 * top of the stack when it fires). Memory reads are fine: the instructions
 * still run, in place, before the probe. glibc's posix_memalign starts with
 * `cmpb $0x0,...(%rip)` then `push`; tcmalloc's free with a `mov` from
 * memory into rax, `test` and `jne`.
 *
 * Returns how many bytes past the entry to probe: the first emulated
 * instruction reached that way, or 0 when there is none (or the entry itself
 * is emulated). The two are the same rule, named for where each is used.
 */
size_t probesite__entry_shift(const uint8_t *code, size_t len);
size_t probesite__return_shift(const uint8_t *code, size_t len);
/*
 * The same for a free, whose probe reads its first argument (and rsp) alone:
 * past up to 12 plain instructions, shifts too, that leave rdi and rsp as
 * they were (jemalloc's free looks its thread's cache up in 9 before its
 * first branch: single-stepped, each free cost 12x an emulated probe). code
 * should hold the function whole, or a good part of it: no direct branch
 * in it may land between the entry and the probe, where the probe would
 * fire on a path that made no call.
 */
size_t probesite__free_shift(const uint8_t *code, size_t len);

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

#endif
