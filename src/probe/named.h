/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_NAMED_H
#define TRACELLOC_NAMED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tracelloc.h"

/*
 * The program's own allocator functions, named on the command line
 * (--alloc-fn, --realloc-fn, --free-fn, --pool-destroy-fn): which function,
 * in which library, and where its arguments are. attach.c probes them,
 * the BPF side reads the arguments where the probe's cookie says.
 */
enum named_kind {
	NAMED_ALLOC,		/* returns a block of size=argN, from pool=argM */
	NAMED_REALLOC,		/* moves ptr=argN to size=argM */
	NAMED_FREE,		/* releases ptr=argN */
	NAMED_POOL_DESTROY,	/* every block of pool=argN goes */
	NAMED_POOL_CREATE,	/* makes a pool: what it allocates is the pool's own */
};

struct named_fn {
	enum named_kind kind;
	char *lib;		/* the library's file name, or its start; NULL: any object */
	char *symbol;
	char *spec;		/* as given, for messages */
	uint8_t size_arg;	/* 1-6; 0: none */
	uint8_t count_arg;	/* the size is count * size (a calloc) */
	uint8_t ptr_arg;
	uint8_t pool_arg;
};

struct named_fns {
	struct named_fn fn[MAX_NAMED_FNS];
	size_t count;
};

/* adds one spec, "[LIB:]NAME[:key=argN,...]"; -EINVAL with a one-line
 * reason in err, -E2BIG past MAX_NAMED_FNS, -ENOMEM */
int named__add(struct named_fns *n, enum named_kind kind, const char *spec, char *err,
	       size_t errlen);
void named__free(struct named_fns *n);
/* the cookie of function i's probes */
uint64_t named__cookie(const struct named_fns *n, size_t i);
/* is the object at path (SONAME soname, may be "") one f may be in? */
bool named__in_object(const struct named_fn *f, const char *path, const char *soname);
/* the option that names a kind: "--alloc-fn" */
const char *named__option(enum named_kind kind);

#endif
