// SPDX-License-Identifier: GPL-2.0
/*
 * getopt_long rather than argp: argp follows every error with a second
 * "Try --help" line, and our errors are one line.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>
#include <elfutils/libdwfl.h>

#include "http.h"
#include "options.h"
#include "say.h"
#include "tracelloc.h"

#define VERSION "0.1.0"

/* long options without a short form */
enum {
	OPT_MIN_AGE = 0x100,
	OPT_NO_DEFAULT_FILTERS,
	OPT_ALLOCATOR_FRAME,
	OPT_PROBE_AT_SYMBOL,
	OPT_EMPTY_PROBES,
	OPT_SAMPLE_BYTES,
	OPT_LISTEN,
	OPT_UNWIND,
	OPT_NO_MMAP,
	OPT_NO_FOLLOW_EXEC,
	OPT_PER_THREAD,
	OPT_COMM,
	OPT_TUI,
	OPT_GROWTH_WINDOW,
	OPT_SHORT_LIVED,
	OPT_SNAPSHOT_EVERY,
	OPT_SNAPSHOT_KEEP,
	OPT_FOLLOW_FORKS,
	OPT_USER,
	OPT_LEAK_CHECK,
	OPT_ERROR_EXITCODE,
	OPT_MARK_AFTER,
	OPT_NO_DEBUGINFOD,
	OPT_SUPPRESSIONS,
	OPT_ALLOC_FN,
	OPT_REALLOC_FN,
	OPT_FREE_FN,
	OPT_POOL_DESTROY_FN,
	OPT_POOL_CREATE_FN,
	OPT_NO_DEFAULT_SUPPRESSIONS,
	/* then one per output format without a letter: OPT_OUTPUT + its enum */
	OPT_OUTPUT,
};

/*
 * --help, by section: a section lists the output formats of its group
 * first (formats.h's rows), then its own lines
 */
static const struct {
	const char *group;	/* NULL: no formats here */
	const char *title;
	const char *text;
} usage[] = {
	{ NULL, NULL,
	"Usage: tracelloc [OPTIONS] -p PID[,PID...]\n"
	"       tracelloc [OPTIONS] --comm NAME\n"
	"       tracelloc [OPTIONS] [--] COMMAND [ARGS...]\n"
	"\n"
	"Trace the heap allocations of running processes, or of a command from its\n"
	"first allocation, and show which call stacks hold memory that was never freed.\n"
	"\n"
	"  -p, --pid PID[,PID...]        trace these running processes (repeatable)\n"
	"      --comm NAME               trace every process called NAME (as ps -o comm shows\n"
	"                                it), and those that start while tracing\n"
	"      --follow-forks            trace the children the processes fork, and theirs,\n"
	"                                each as its own process\n"
	"      --user NAME               run the command as this user (its uid, gid, groups\n"
	"                                and HOME); tracing stays root's\n"
	"      --no-follow-exec          end the trace when the program calls exec (by\n"
	"                                default the trace goes on in the new program)\n"
	"  -d, --duration SECS           stop after SECS seconds\n"
	"  -i, --interval SECS           print a live line every SECS (default 1; 0: off)\n"
	"  -b, --ringbuf-size SIZE       BPF ring buffers in all, one per CPU, each a power\n"
	"                                of two; K/M suffix (default 16M, at least 1M a CPU)\n"
	"      --no-mmap                 leave out the program's own anonymous mmap, munmap\n"
	"                                and mremap calls (traced by default, as allocator mmap)\n"
	"\n"
	"Report (every --interval, and at the end):\n"
	"      --tui                     a full-screen live view instead, redrawn every\n"
	"                                --interval: keys j/k select, s sort, / filter,\n"
	"                                p pause, w write the files, m mark, l leak check,\n"
	"                                q quit\n"
	"  -t, --top N                   entries per section (default 3; 0: no report)\n"
	"      --min-age SECS            only allocations live for at least SECS\n"
	"  -s, --sort KEY                order of the top allocators: live (bytes, default),\n"
	"                                allocs (allocation calls), count (live allocations),\n"
	"                                growth (steady growth over the window), peak (live\n"
	"                                bytes at the heap's peak), short-lived (allocations\n"
	"                                freed within --short-lived)\n"
	"      --growth-window N         --sort growth: over the last N intervals (default 60)\n"
	"      --short-lived MS          a block freed within MS milliseconds is short-lived\n"
	"                                (default 1)\n"
	"      --mark-after SECS         set the baseline mark SECS after tracing begins (also\n"
	"                                SIGUSR2, the TUI's m): from then on each stack shows\n"
	"                                its live bytes allocated since the mark\n"
	"      --per-thread              group by the allocating thread's name: a line per\n"
	"                                thread, and the thread as every stack's root frame\n"
	"                                (pprof: a thread label)\n"
	"\n"
	"Leak check:\n"
	"      --leak-check              when a process exits (after its atexit handlers), at\n"
	"                                the end of the trace\n"
	"                                and on SIGUSR1: stop it, scan its memory for pointers\n"
	"                                to its live blocks, and say which no pointer reaches\n"
	"                                (definitely, indirectly, possibly lost, reachable)\n"
	"      --error-exitcode N        exit with N when a leak check finds a block\n"
	"                                definitely or indirectly lost\n"
	"\n"
	"Filters (POSIX extended regular expressions on function names):\n"
	"  -e, --exclude REGEX           hide frames that match (repeatable)\n"
	"  -I, --include REGEX           show only stacks with a frame that matches (repeatable)\n"
	"      --no-default-filters      show the Rust runtime frames hidden by default\n"
	"                                (futures polling, tokio, panic harness, closure shims)\n"
	"      --suppressions FILE       leave out of every view the stacks that LeakSanitizer-\n"
	"                                style rules match (lines leak:PATTERN; * any run, ^ and\n"
	"                                $ anchors; on a frame's function, file or module;\n"
	"                                repeatable); the summary says what they left out\n"
	"      --no-default-suppressions keep the stacks made only of the C and C++ runtimes'\n"
	"                                own frames, left out by default (libstdc++'s emergency\n"
	"                                exception pool, the runtimes' start-up allocations)\n"
	"\n"
	"The program's own allocators ([LIB:]NAME, argN its Nth integer argument, 1-6;\n"
	"repeatable; what they take from malloc for themselves is counted apart):\n"
	"      --alloc-fn SPEC           NAME:size=argN[,count=argK][,pool=argM]: returns a\n"
	"                                block of that size (count times it; from that pool)\n"
	"      --realloc-fn SPEC         NAME:ptr=argN,size=argM[,count=argK]: moves a block\n"
	"                                to that size\n"
	"      --free-fn SPEC            NAME:ptr=argN: releases a block\n"
	"      --pool-destroy-fn SPEC    NAME:pool=argN: releases every block of the pool (a\n"
	"                                pool's clear too)\n"
	"      --pool-create-fn NAME     what NAME allocates is the pool's own memory\n"
	"\n"
 },
	{ "Flamegraphs", "Flamegraphs:\n",
	"  -m, --flamegraph-metric M     live (bytes, default), live-count, allocated\n"
	"                                (bytes), count (allocation calls), peak (live\n"
	"                                bytes at the heap's peak), leaked (definitely and\n"
	"                                indirectly lost bytes, --leak-check), since-mark\n"
	"                                (live bytes allocated since the mark), exit\n"
	"                                (bytes processes held when they exited; their\n"
	"                                blocks leave the live set), exit-count (blocks)\n"
	"      --allocator-frame         add the allocator (malloc, calloc, ...) as the leaf frame\n"
	"      --probe-at-symbol         probe free() at its symbol, where the kernel must\n"
	"                                single-step (slower; for comparison)\n"
	"      --sample-bytes N          sample one allocation per N bytes on average (Poisson,\n"
	"                                as tcmalloc): less overhead, estimated numbers\n"
	"      --empty-probes            attach the probes, record nothing: the floor of\n"
	"                                the tracing cost (for benchmarks)\n"
	"      --unwind MODE             how stacks are walked: auto (unwind tables where the\n"
	"                                code has them, frame pointers elsewhere; default),\n"
	"                                dwarf (tables only) or fp (frame pointers only)\n"
	"      --no-debuginfod           ask no debuginfod server for the debug info of stripped\n"
	"                                files (by default: $DEBUGINFOD_URLS, or when sudo has\n"
	"                                dropped it, /etc/debuginfod/*.urls)\n"
	"\n"
 },
	{ "pprof", "pprof (go tool pprof, Pyroscope, Parca, Grafana):\n",
	"      --snapshot-every SECS DIR write a pprof profile and folded stacks into DIR every\n"
	"                                SECS, named by the time (go tool pprof -diff_base);\n"
	"                                DIR is made if it is missing\n"
	"      --snapshot-keep N         keep the newest N snapshots in DIR (default: all)\n"
	"      --listen [ADDR:]PORT      serve /debug/pprof/heap, /debug/pprof/allocs and\n"
	"                                /metrics over HTTP while tracing; ADDR defaults to\n"
	"                                127.0.0.1 (PORT 0: any free port)\n"
	"\n"
	"An output FILE of - is standard output; the reports then go to stderr.\n"
	"\n"
	"  -v, --verbose                 show libbpf messages and what tracing cost; -vv:\n"
	"                                libbpf's debug messages, and each time the ring\n"
	"                                buffer went unread for more than 50 ms\n"
	"  -h, --help                    show this help\n"
	"  -V, --version                 show the version\n" },
};

static void print_usage(FILE *out)
{
	const struct output_option *o;
	int f, lettered;
	size_t i;

	for (i = 0; i < sizeof(usage) / sizeof(usage[0]); i++) {
		if (usage[i].title)
			fputs(usage[i].title, out);
		/* those with a letter first, as getopt's own usage lines go */
		for (lettered = 1; usage[i].group && lettered >= 0; lettered--)
			for (f = 0; f < OUTPUT_FORMATS; f++) {
				o = formats__option(f);
				if (!strcmp(o->group, usage[i].group) && !o->short_opt == !lettered)
					fputs(o->help, out);
			}
		fputs(usage[i].text, out);
	}
}

static int bad(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say__v(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EINVAL;
}

static int parse_seconds(const char *arg, const char *flag, double min, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v))
		return bad("invalid --%s '%s': expected a number of seconds", flag, arg);
	/* past 1e9 s (31 years) a timer overflows */
	if (v < min || v > 1e9)
		return bad("invalid --%s '%s': expected %g to 1000000000 seconds", flag, arg, min);
	*out = v;
	return 0;
}

/* PID[,PID...], added to the list */
static int parse_pids(const char *arg, struct options *opts)
{
	const char *at = arg;
	char *end;
	long v;

	do {
		errno = 0;
		v = strtol(at, &end, 10);
		if (errno || end == at || (*end && *end != ',') || v <= 0 || v > INT_MAX ||
		    !isdigit((unsigned char)*at))
			return bad("invalid pid '%s'", arg);
		if (opts->npids == MAX_PROCS)
			return bad("too many pids: at most %d processes are traced at once", MAX_PROCS);
		opts->pids[opts->npids++] = (pid_t)v;
		at = end + 1;
	} while (*end == ',');
	opts->pid = opts->pids[0];
	return 0;
}

static int parse_top(const char *arg, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 0 || v > 100000)
		return bad("invalid --top '%s': expected a count from 0 to 100000", arg);
	*out = (int)v;
	return 0;
}

static int parse_millis(const char *arg, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v <= 0 || v > 1e9)
		return bad("invalid --short-lived '%s': expected a number of milliseconds above 0",
			   arg);
	*out = v;
	return 0;
}

static int parse_count(const char *arg, const char *flag, unsigned long min, unsigned long max,
		       unsigned int *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || !isdigit((unsigned char)*arg) || v < min || v > max)
		return bad("invalid %s '%s': expected a number from %lu to %lu", flag, arg, min, max);
	*out = (unsigned int)v;
	return 0;
}

static int parse_sort(const char *arg, enum report_sort *out)
{
	if (!strcmp(arg, "live"))
		*out = SORT_LIVE_BYTES;
	else if (!strcmp(arg, "allocs"))
		*out = SORT_ALLOC_CALLS;
	else if (!strcmp(arg, "count"))
		*out = SORT_LIVE_COUNT;
	else if (!strcmp(arg, "growth"))
		*out = SORT_GROWTH;
	else if (!strcmp(arg, "peak"))
		*out = SORT_PEAK;
	else if (!strcmp(arg, "short-lived"))
		*out = SORT_SHORT_LIVED;
	else
		return bad("invalid --sort '%s': expected live, allocs, count, growth, peak or "
			   "short-lived", arg);
	return 0;
}

static int add_regex(const char ***list, size_t *n, const char *arg, const char *flag)
{
	const char **grown;
	regex_t re;

	if (regcomp(&re, arg, REG_EXTENDED | REG_NOSUB))
		return bad("invalid %s '%s': not a POSIX extended regular expression", flag, arg);
	regfree(&re);
	grown = realloc(*list, (*n + 1) * sizeof(*grown));
	if (!grown)
		return bad("out of memory");
	grown[(*n)++] = arg;
	*list = grown;
	return 0;
}

static int add_path(const char ***list, size_t *n, const char *arg)
{
	const char **grown = realloc(*list, (*n + 1) * sizeof(*grown));

	if (!grown)
		return bad("out of memory");
	grown[(*n)++] = arg;
	*list = grown;
	return 0;
}

void options__free(struct options *opts)
{
	free(opts->excludes);
	free(opts->includes);
	free(opts->suppressions);
	opts->excludes = opts->includes = opts->suppressions = NULL;
	named__free(&opts->named);
}

static int add_named(struct options *opts, enum named_kind kind, const char *spec)
{
	char why[160];

	if (named__add(&opts->named, kind, spec, why, sizeof(why)))
		return bad("invalid %s '%s': %s", named__option(kind), spec, why);
	return 0;
}

/* a byte count with an optional K, M or G suffix, at most 1G; false if not one */
static bool parse_bytes(const char *arg, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (arg[0] == '-')
		return false;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || v > (1ULL << 30))
		return false;
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	else if (*end == 'G' || *end == 'g')
		v <<= 30, end++;
	if (*end || v > (1ULL << 30))
		return false;
	*out = v;
	return true;
}

static int parse_unwind(const char *arg, unsigned int *out)
{
	if (!strcmp(arg, "auto"))
		*out = UNWIND_MODE_AUTO;
	else if (!strcmp(arg, "dwarf"))
		*out = UNWIND_MODE_DWARF;
	else if (!strcmp(arg, "fp"))
		*out = UNWIND_MODE_FP;
	else
		return bad("invalid --unwind '%s': expected auto, dwarf or fp", arg);
	return 0;
}

static int parse_sample_bytes(const char *arg, uint64_t *out)
{
	if (!parse_bytes(arg, out) || *out < 1)
		return bad("invalid --sample-bytes '%s': expected bytes from 1 to 1G (K/M suffix)",
			   arg);
	return 0;
}

static int parse_size(const char *arg, uint64_t *out)
{
	if (!parse_bytes(arg, out) || *out < 4096 || (*out & (*out - 1)))
		return bad("invalid ring buffer size '%s': expected a power of two from 4K to 1G",
			   arg);
	return 0;
}

/* the option getopt stopped at: "--name" as written, or "-x" out of a cluster */
static const char *option_name(const char *arg, int opt)
{
	static char name[64];

	if (!strncmp(arg, "--", 2) || !opt) {
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg, "="), arg);
		return name;
	}
	snprintf(name, sizeof(name), "-%c", opt);
	return name;
}

/* the output format an option of getopt's is, or -1 */
static int output_of(int c)
{
	int f;

	for (f = 0; f < OUTPUT_FORMATS; f++)
		if (c == (formats__option(f)->short_opt ?: OPT_OUTPUT + f))
			return f;
	return -1;
}

/* fixed's options, then a format's each (formats.h), then the end; a
 * format's letter joins shortopts */
static void output_opts(const struct option *fixed, size_t n, struct option *out,
			char *shortopts)
{
	const struct output_option *o;
	int f;

	memcpy(out, fixed, n * sizeof(*fixed));
	for (f = 0; f < OUTPUT_FORMATS; f++) {
		o = formats__option(f);
		out[n++] = (struct option){ o->name, required_argument, NULL,
					    o->short_opt ?: OPT_OUTPUT + f };
		if (o->short_opt)
			sprintf(shortopts + strlen(shortopts), "%c:", o->short_opt);
	}
	out[n] = (struct option){};
}

int options__parse(int argc, char **argv, struct options *opts)
{
	static const struct option fixed[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "interval", required_argument, NULL, 'i' },
		{ "flamegraph-metric", required_argument, NULL, 'm' },
		{ "ringbuf-size", required_argument, NULL, 'b' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "top", required_argument, NULL, 't' },
		{ "min-age", required_argument, NULL, OPT_MIN_AGE },
		{ "sort", required_argument, NULL, 's' },
		{ "exclude", required_argument, NULL, 'e' },
		{ "include", required_argument, NULL, 'I' },
		{ "no-default-filters", no_argument, NULL, OPT_NO_DEFAULT_FILTERS },
		{ "allocator-frame", no_argument, NULL, OPT_ALLOCATOR_FRAME },
		{ "probe-at-symbol", no_argument, NULL, OPT_PROBE_AT_SYMBOL },
		{ "no-mmap", no_argument, NULL, OPT_NO_MMAP },
		{ "no-follow-exec", no_argument, NULL, OPT_NO_FOLLOW_EXEC },
		{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
		{ "comm", required_argument, NULL, OPT_COMM },
		{ "tui", no_argument, NULL, OPT_TUI },
		{ "growth-window", required_argument, NULL, OPT_GROWTH_WINDOW },
		{ "short-lived", required_argument, NULL, OPT_SHORT_LIVED },
		{ "snapshot-every", required_argument, NULL, OPT_SNAPSHOT_EVERY },
		{ "snapshot-keep", required_argument, NULL, OPT_SNAPSHOT_KEEP },
		{ "follow-forks", no_argument, NULL, OPT_FOLLOW_FORKS },
		{ "user", required_argument, NULL, OPT_USER },
		{ "leak-check", no_argument, NULL, OPT_LEAK_CHECK },
		{ "error-exitcode", required_argument, NULL, OPT_ERROR_EXITCODE },
		{ "mark-after", required_argument, NULL, OPT_MARK_AFTER },
		{ "no-debuginfod", no_argument, NULL, OPT_NO_DEBUGINFOD },
		{ "suppressions", required_argument, NULL, OPT_SUPPRESSIONS },
		{ "alloc-fn", required_argument, NULL, OPT_ALLOC_FN },
		{ "realloc-fn", required_argument, NULL, OPT_REALLOC_FN },
		{ "free-fn", required_argument, NULL, OPT_FREE_FN },
		{ "pool-destroy-fn", required_argument, NULL, OPT_POOL_DESTROY_FN },
		{ "pool-create-fn", required_argument, NULL, OPT_POOL_CREATE_FN },
		{ "no-default-suppressions", no_argument, NULL, OPT_NO_DEFAULT_SUPPRESSIONS },

		{ "empty-probes", no_argument, NULL, OPT_EMPTY_PROBES },
		{ "sample-bytes", required_argument, NULL, OPT_SAMPLE_BYTES },
		{ "listen", required_argument, NULL, OPT_LISTEN },
		{ "unwind", required_argument, NULL, OPT_UNWIND },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
	};
	struct option longopts[sizeof(fixed) / sizeof(fixed[0]) + OUTPUT_FORMATS + 1];
	char shortopts[64] = "+:p:d:i:m:b:t:s:e:I:vhV";
	int c, f, err = 0;

	output_opts(fixed, sizeof(fixed) / sizeof(fixed[0]), longopts, shortopts);
	memset(opts, 0, sizeof(*opts));
	opts->interval_s = 1;
	opts->flamegraph_metric = METRIC_LIVE_BYTES;
	opts->ringbuf_bytes = 0;	/* by CPU count: events__ring_bytes() */
	opts->top = 3;
	opts->sort = SORT_LIVE_BYTES;
	opts->growth_window = 60;
	opts->short_lived_ms = 1;
	opts->default_filters = true;
	opts->default_suppressions = true;
	opts->unwind = UNWIND_MODE_AUTO;

	opterr = 0;
	optind = 0;	/* 0, not 1: a full reset of getopt, clusters and '+' included */
	/* '+': stop at the first non-option, which starts the command */
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			err = parse_pids(optarg, opts);
			break;
		case OPT_COMM:
			if (!*optarg || strlen(optarg) > 15)
				err = bad("invalid --comm '%s': a process name has 1 to 15 characters",
					  optarg);
			opts->comm = optarg;
			break;
		case OPT_FOLLOW_FORKS:
			opts->follow_forks = true;
			break;
		case OPT_USER:
			opts->user = optarg;
			break;
		case OPT_TUI:
			opts->tui = true;
			break;
		case OPT_GROWTH_WINDOW:
			err = parse_count(optarg, "--growth-window", 2, 100000, &opts->growth_window);
			break;
		case OPT_SHORT_LIVED:
			err = parse_millis(optarg, &opts->short_lived_ms);
			break;
		case OPT_NO_DEBUGINFOD:
			opts->no_debuginfod = true;
			break;
		case OPT_MARK_AFTER:
			err = parse_seconds(optarg, "mark-after", 1e-3, &opts->mark_after_s);
			break;
		case OPT_SNAPSHOT_EVERY:
			err = parse_seconds(optarg, "snapshot-every", 0.01, &opts->snapshot_every_s);
			/* its second value, the directory */
			if (!err && (optind >= argc || !*argv[optind]))
				err = bad("--snapshot-every %s needs a directory after it", optarg);
			if (!err)
				opts->snapshot_dir = argv[optind++];
			break;
		case OPT_SNAPSHOT_KEEP:
			err = parse_count(optarg, "--snapshot-keep", 1, 1000000, &opts->snapshot_keep);
			break;
		case 'd':
			err = parse_seconds(optarg, "duration", 1e-3, &opts->duration_s);
			break;
		case 'i':
			err = parse_seconds(optarg, "interval", 0, &opts->interval_s);
			if (!err && opts->interval_s > 0 && opts->interval_s < 0.01)
				err = bad("invalid interval '%s': at least 0.01 s, or 0 for none", optarg);
			break;
		case 'm':
			if (metric__parse(optarg, &opts->flamegraph_metric))
				err = bad("invalid flamegraph metric '%s': expected live, live-count, "
					  "allocated, count, peak, leaked, since-mark, exit or exit-count", optarg);
			break;
		case 'b':
			err = parse_size(optarg, &opts->ringbuf_bytes);
			break;
		case 'v':
			opts->verbose++;
			break;
		case 't':
			err = parse_top(optarg, &opts->top);
			break;
		case OPT_MIN_AGE:
			err = parse_seconds(optarg, "min-age", 0, &opts->min_age_s);
			break;
		case 's':
			err = parse_sort(optarg, &opts->sort);
			break;
		case 'e':
			err = add_regex(&opts->excludes, &opts->nexcludes, optarg, "--exclude");
			break;
		case 'I':
			err = add_regex(&opts->includes, &opts->nincludes, optarg, "--include");
			break;
		case OPT_NO_DEFAULT_FILTERS:
			opts->default_filters = false;
			break;
		case OPT_SUPPRESSIONS:
			err = add_path(&opts->suppressions, &opts->nsuppressions, optarg);
			break;
		case OPT_NO_DEFAULT_SUPPRESSIONS:
			opts->default_suppressions = false;
			break;
		case OPT_ALLOC_FN:
		case OPT_REALLOC_FN:
		case OPT_FREE_FN:
		case OPT_POOL_DESTROY_FN:
		case OPT_POOL_CREATE_FN:
			err = add_named(opts, (enum named_kind)(c - OPT_ALLOC_FN), optarg);
			break;

		case OPT_ALLOCATOR_FRAME:
			opts->allocator_frame = true;
			break;
		case OPT_SAMPLE_BYTES:
			err = parse_sample_bytes(optarg, &opts->sample_bytes);
			break;
		case OPT_EMPTY_PROBES:
			opts->empty_probes = true;
			break;
		case OPT_UNWIND:
			err = parse_unwind(optarg, &opts->unwind);
			break;
		case OPT_NO_MMAP:
			opts->no_mmap = true;
			break;
		case OPT_NO_FOLLOW_EXEC:
			opts->no_follow_exec = true;
			break;
		case OPT_PER_THREAD:
			opts->per_thread = true;
			break;
		case OPT_LEAK_CHECK:
			opts->leak_check = true;
			break;
		case OPT_ERROR_EXITCODE:
			err = parse_count(optarg, "--error-exitcode", 1, 255, &opts->error_exitcode);
			break;
		case OPT_PROBE_AT_SYMBOL:
			opts->probe_at_symbol = true;
			break;
		case OPT_LISTEN:
			if (http__parse_listen(optarg, &opts->listen_addr, &opts->listen_addr_len))
				err = bad("invalid --listen '%s': expected [ADDRESS:]PORT, an IPv4 "
					  "address or [IPv6] and a port from 0 to 65535", optarg);
			opts->listen = optarg;
			break;
		case 'h':
			print_usage(stdout);
			options__free(opts);
			return OPTIONS_EXIT;
		case 'V':
			printf("tracelloc " VERSION " (libbpf %u.%u, libdw %s)\n", libbpf_major_version(),
			       libbpf_minor_version(), dwfl_version(NULL));
			options__free(opts);
			return OPTIONS_EXIT;
		case ':':
			err = bad("option '%s' needs a value", option_name(argv[optind - 1], optopt));
			break;
		default:
			if ((f = output_of(c)) < 0)
				err = bad("unknown option '%s' (see tracelloc --help)",
					  option_name(argv[optind - 1], optopt));
			else if (!*optarg)
				err = bad("empty %s file name", formats__option(f)->what);
			else
				opts->output_paths[f] = optarg;
			break;
		}
		if (err) {
			options__free(opts);
			return err;
		}
	}
	if (optind < argc)
		opts->command = &argv[optind];
	if ((opts->pid || opts->comm) && opts->command)
		err = bad("give either -p PID, --comm NAME or a command, not both");
	else if (!opts->pid && !opts->command && !opts->comm)
		err = bad("nothing to trace: give -p PID, --comm NAME or a command (see tracelloc "
			  "--help)");
	else if (opts->user && !opts->command)
		err = bad("--user runs a command: give one after the options");
	else if (opts->leak_check && opts->sample_bytes)
		err = bad("--leak-check needs every block: not with --sample-bytes");
	else if (opts->flamegraph_metric == METRIC_LEAKED_BYTES && !opts->leak_check)
		err = bad("-m leaked is what a leak check finds: give --leak-check as well");
	else if (opts->error_exitcode && !opts->leak_check)
		err = bad("--error-exitcode is the leak check's: give --leak-check as well");
	if (err)
		options__free(opts);
	return err ? err : OPTIONS_RUN;
}
