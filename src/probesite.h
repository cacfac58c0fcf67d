/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_PROBESITE_H
#define TRACELLOC_PROBESITE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Where to put an entry-only probe. An x86 uprobe on an instruction the kernel
 * can emulate (push, jcc, jmp, call, nop) costs ~0.9 us a hit; any other is
 * single-stepped, ~12 us here. glibc's free() starts with `test %rdi,%rdi`
 * (single-stepped), then `je` (emulated): probing the je is 13x cheaper, and
 * the argument is still in %rdi there.
 *
 * Returns how many bytes past the entry to probe: the first emulated
 * instruction reached through instructions that only set flags, or 0 when
 * there is none (or the entry itself is emulated).
 */
size_t probesite__entry_shift(const uint8_t *code, size_t len);

/*
 * Where to put a probe that also catches the return. The kernel takes the
 * return address from the top of the stack when the probe fires, so nothing
 * before the probe may move rsp. glibc's posix_memalign, memalign, valloc
 * and pvalloc start with `cmpb $0x0,__malloc_initialized(%rip)` (single-
 * stepped), then a push or jcc (emulated): past the one compare, the stack
 * and every argument register are still as the caller left them.
 *
 * Returns the length of a first compare or test (it may read memory: it
 * still runs, in place) when the next instruction is emulated, else 0.
 */
size_t probesite__return_shift(const uint8_t *code, size_t len);

#endif
