/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_SCOPES_H
#define TRACELLOC_SCOPES_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>

#include "symframe.h"

/*
 * The inline chain at an address, from a module's DWARF: each inlined
 * subroutine is a frame whose line is the line table's (innermost) or the
 * call site recorded in the DIE it was inlined from, down to the concrete
 * function. An object's functions are indexed per compile unit at the
 * first lookup in it: libdw's dwarf_getscopes walks the whole unit for
 * each address, which for a unit of 20,000 functions (an amalgamated
 * source) took 3.5 ms a lookup.
 */
struct fnindex;

/* NULL when out of memory (lookups then go without an index) */
struct fnindex *fnindex__new(void);
void fnindex__destroy(struct fnindex *x);

/* how the frames' strings are kept: a copy that lives as long as the
 * frames; mangled: a linkage name, to demangle when it can be */
struct scope_namer {
	const char *(*name)(void *ctx, const char *str, bool mangled);
	void *ctx;
};

/* the frames at addr (the process's address as mod knows it), innermost
 * first, at most max; how many were written. x: mod's index, or NULL */
int scopes__frames(struct fnindex *x, Dwfl_Module *mod, Dwarf_Addr addr, struct sym_frame *frames,
		   int max, const struct scope_namer *namer);

#endif
