/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_FORMATS_H
#define TRACELLOC_FORMATS_H

/*
 * The output files a run can be asked for, one row each in the table of
 * outputs.c (its option, its title, its writer), in the order they are
 * written. A new format is a row there, an entry here, its writer's file
 * and its tests; options.c sets its path from the row's option.
 */
enum output_format {
	OUTPUT_SVG,		/* --svg: an interactive flamegraph */
	OUTPUT_PPROF,		/* --pprof: a gzipped pprof profile */
	OUTPUT_FOLDED,		/* -f, --flamegraph: folded stacks */
	OUTPUT_TIMELINE,	/* --timeline: live bytes over time, HTML */
	OUTPUT_FORMATS,
};

#endif
