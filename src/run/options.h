/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_OPTIONS_H
#define TRACELLOC_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "formats.h"
#include "named.h"
#include "profile.h"
#include "report.h"
#include "tracelloc.h"

struct options {
	pid_t pid;			/* the first -p, or 0 */
	pid_t pids[MAX_PROCS];		/* every -p, in order */
	size_t npids;
	bool follow_forks;		/* children are traced, each as its own process */
	const char *comm;		/* --comm: every process of this name */
	char **command;			/* NULL-terminated, or NULL */
	const char *user;		/* --user: the command runs as this user */
	double duration_s;		/* 0: until the target exits or a signal */
	double interval_s;		/* periodic line; 0: none */
	enum metric flamegraph_metric;
	uint64_t ringbuf_bytes;		/* all rings together; 0: by the CPU count */
	int verbose;
	/* report */
	int top;			/* entries per section; 0: no report */
	double min_age_s;		/* only live blocks at least this old */
	enum report_sort sort;
	unsigned int growth_window;	/* --sort growth: intervals in its window */
	double short_lived_ms;		/* a block freed sooner is short-lived */
	bool no_debuginfod;		/* ask no debuginfod server */
	double mark_after_s;		/* --mark-after: the baseline mark then; 0: none */
	/* --snapshot-every: a pprof profile and folded stacks every SECS into DIR */
	double snapshot_every_s;
	const char *snapshot_dir;
	unsigned int snapshot_keep;	/* at most this many (0: all) */
	/* filters: frames hidden, stacks kept */
	const char **excludes;
	size_t nexcludes;
	const char **includes;
	size_t nincludes;
	bool default_filters;
	/* suppressions: files of leak:PATTERN lines; the built-in rule */
	const char **suppressions;
	size_t nsuppressions;
	bool default_suppressions;
	struct named_fns named;		/* --alloc-fn and the rest */
	/* outputs */
	bool allocator_frame;
	bool probe_at_symbol;
	bool empty_probes;
	bool no_mmap;			/* the program's own mappings are not traced */
	bool no_follow_exec;		/* an exec ends the trace */
	bool per_thread;		/* stacks rooted at their thread's name */
	bool tui;			/* a full-screen live view instead of reports */
	bool leak_check;		/* which live blocks no pointer reaches (leakcheck.c) */
	unsigned int error_exitcode;	/* exit status when one is lost; 0: as usual */
	unsigned int unwind;		/* enum unwind_mode */
	uint64_t sample_bytes;		/* 0: trace every call */
	const char *output_paths[OUTPUT_FORMATS];	/* by enum output_format (formats.h); NULL: none */
	/* the scrape endpoint */
	const char *listen;		/* as given; NULL: none */
	struct sockaddr_storage listen_addr;
	socklen_t listen_addr_len;
};

enum options_result {
	OPTIONS_RUN = 0,
	OPTIONS_EXIT = 1,	/* --help or --version was printed */
};

/* fills opts; on bad input prints one line to stderr and returns -EINVAL */
int options__parse(int argc, char **argv, struct options *opts);
void options__free(struct options *opts);

#endif
