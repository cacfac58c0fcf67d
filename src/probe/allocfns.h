/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_ALLOCFNS_H
#define TRACELLOC_ALLOCFNS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tracelloc.h"

/*
 * The traced functions as data: one row per enum alloc_fn, saying what it
 * is, where an allocator's arguments are and what its return means. The
 * probes' cookies are made from it (the BPF side reads the arguments where
 * the cookie says), the views name the allocator frame from it, and
 * attach.c's table of symbols (which function is which, in which family)
 * points into it. A new allocator function is a row here and its symbols
 * there.
 */
enum call_kind {
	CALL_ALLOC,		/* returns a block (or moves one: realloc) */
	CALL_FREE,		/* releases the block in its first argument: at entry */
	CALL_MAP,		/* the program's own mappings: mmap, mremap, mprotect, munmap */
	CALL_HOOK,		/* not an allocator: a thread's exit, ld.so's hook */
};

struct alloc_fn_info {
	const char *name;	/* as the views show it; NULL: not shown */
	enum call_kind kind;
	uint8_t size_arg;	/* 1-6, 0: none */
	uint8_t count_arg;	/* the size is count * size */
	uint8_t ptr_arg;	/* the block given (moves), or where the block is written */
	enum call_return ret;
	bool moves;		/* may move or release the block given (a realloc) */
	bool entry_only;	/* no return probe */
	/* bit n: argument n the BPF side reads in its own register (a free's
	 * pointer, mmap's arguments), not where the cookie says */
	uint8_t own_args;
	/* an allocation with no block (Go's, whose GC frees unseen): counted
	 * at its stack, never live */
	bool no_block;
	/* behind a family's dispatchers (pymalloc's _PyObject_Malloc, ...):
	 * probed in their place where the object defines every one of them */
	bool inner;
};

/* the row of fn; NULL for none */
const struct alloc_fn_info *allocfns__info(uint32_t fn);
/* the cookie of fn's probes */
uint64_t allocfns__cookie(uint32_t fn);
/* the arguments a probe with this cookie reads (bit n: argument n): in
 * their own registers (own), or where the cookie says (moved) */
void allocfns__probe_reads(uint64_t cookie, uint8_t *own, uint8_t *moved);
/* the cookie of a probe past the entry, where argument n is in register
 * at[n] (see probesite.h) */
uint64_t allocfns__cookie_at(uint64_t cookie, const uint8_t at[7]);
/* ", its size read from rsi" for each argument a probe with cookie reads
 * elsewhere than one at the entry (at_entry) would */
void allocfns__describe_moves(uint64_t cookie, uint64_t at_entry, FILE *out);
/* a named allocator's name (--alloc-fn), for the views: kept, not copied */
void allocfns__set_named_name(unsigned int index, const char *name);
/* "malloc", "operator new[]", a named allocator's; "[allocator]" for a
 * function with no name */
const char *allocfns__name(uint32_t fn);

#endif
