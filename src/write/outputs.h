/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_OUTPUTS_H
#define TRACELLOC_OUTPUTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "formats.h"
#include "pprof.h"
#include "profile.h"

struct events;
struct timeline;

/*
 * The files a run writes: the formats asked for on the command line (a
 * table of them, in the order they are written), the snapshots of
 * --snapshot-every, and the pprof pages of the endpoint. Each is written
 * whole from a snapshot of the model; a failed one is said in one line and
 * does not keep the others from being written.
 */
struct outputs;

struct outputs_opts {
	const char *paths[OUTPUT_FORMATS];	/* by enum output_format; NULL: not asked for */
	enum metric flamegraph_metric;
	uint64_t sample_bytes;		/* pprof's period: 0, every call */
	bool leak_check;		/* pprof's leaked_* sample types */
	const char *snapshot_dir;	/* --snapshot-every, else NULL */
	unsigned int snapshot_keep;	/* 0: all */
	bool verbose;			/* a line for each file written */
	double start_s;			/* when tracing began: pprof's duration */
	struct timeline *timeline;	/* --timeline */
	struct events *events;		/* told while files are written; may be NULL */
	/* the model as of now, for a writer; NULL when out of memory */
	struct profile *(*snapshot)(void *ctx);
	/* what was traced, for titles: "pid 1234, ./app" */
	void (*target_name)(void *ctx, char *buf, size_t size);
	void *ctx;
};

/* NULL when out of memory; keeps a copy of opts (its strings are not copied) */
struct outputs *outputs__new(const struct outputs_opts *opts);
void outputs__destroy(struct outputs *o);

/*
 * Before tracing: can every file be written, and the snapshot directory?
 * A line and non-zero for the first that cannot. *to_stdout: an output
 * goes to standard output (the reports must go elsewhere). Only the paths
 * of opts are read.
 */
int outputs__check(const struct outputs_opts *opts, bool *to_stdout);
/* every file, each attempted whatever became of those before; non-zero if
 * one failed */
int outputs__write(const struct outputs *o);
/* --snapshot-every: DIR/heap-YYYYMMDD-HHMMSS.mmm.pb.gz and .fg, then the
 * oldest beyond --snapshot-keep go */
void outputs__snapshot(const struct outputs *o);
/* the oldest snapshots of dir beyond keep (0: none) go, each pair */
void outputs__prune(const char *dir, unsigned int keep);
/* a pprof profile of the model as of now, to out; negative errno */
int outputs__pprof(const struct outputs *o, FILE *out, enum pprof_view view,
		   const struct profile_base *base);

#endif
