/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_PPROF_H
#define TRACELLOC_PPROF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"

/*
 * A profile as `go tool pprof` reads it: profile.proto, gzip-compressed,
 * shaped like Go's heap profile. Every sample carries four values, in this
 * order: alloc_objects/count, alloc_space/bytes, inuse_objects/count,
 * inuse_space/bytes. A location is one return address, with its mapping
 * (start, limit, offset, file, build-id) and its lines: inlined calls first,
 * the function they were inlined into last.
 */
enum pprof_view {
	PPROF_INUSE,	/* default sample type inuse_space, as Go's /debug/pprof/heap */
	PPROF_ALLOCS,	/* alloc_space, as Go's /debug/pprof/allocs */
};

struct pprof_opts {
	enum pprof_view view;
	uint64_t period;	/* bytes between samples (--sample-bytes); 0: every call */
	int64_t time_ns;	/* wall clock when the snapshot was taken */
	int64_t duration_ns;	/* of the trace until then */
	const char *comment;	/* NULL: none */
	bool leaked;		/* --leak-check: leaked_objects and leaked_space too */
};

int pprof__write(FILE *out, struct profile *p, const struct pprof_opts *opts);

#endif
