/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_FORMATS_H
#define TRACELLOC_FORMATS_H

/*
 * The output files a run can be asked for, one row each in the table of
 * outputs.c (its option, its --help lines, its title, its writer), in the
 * order they are written. A new format is a row there, an entry here, its
 * writer's file and its tests: options.c makes its option, its --help
 * lines and its path from the row.
 */
enum output_format {
	OUTPUT_SVG,		/* --svg: an interactive flamegraph */
	OUTPUT_PPROF,		/* --pprof: a gzipped pprof profile */
	OUTPUT_FOLDED,		/* -f, --flamegraph: folded stacks */
	OUTPUT_TIMELINE,	/* --timeline: live bytes over time, HTML */
	OUTPUT_FORMATS,
};

/* a format's command-line option, as options.c offers it */
struct output_option {
	const char *name;	/* the long option, without its dashes */
	int short_opt;		/* its letter, or 0 */
	const char *what;	/* the file's kind: "empty %s file name" */
	const char *help;	/* its --help lines: "-f, --flamegraph FILE   text\n" */
	const char *group;	/* the --help section it is listed first in */
};

const struct output_option *formats__option(enum output_format f);

#endif
