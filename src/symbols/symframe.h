/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_SYMFRAME_H
#define TRACELLOC_SYMFRAME_H

#include <stdbool.h>

/*
 * The frames of one address, as the inline scopes give them (scopes.c) and
 * a location holds them (symbolize.c): apart from both, so that neither
 * includes the other.
 */

/* most frames one return address expands to (a concrete function and what was inlined into it) */
#define SYM_MAX_INLINE 32

/* one source-level frame: a return address gives one, plus one per inlined call */
struct sym_frame {
	const char *function;	/* demangled; "[unknown]", "[anon]" when not known */
	const char *file;	/* NULL without debug info */
	int line;
	bool inlined;		/* inlined into the next frame of the location */
};

#endif
