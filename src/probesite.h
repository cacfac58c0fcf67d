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

#endif
