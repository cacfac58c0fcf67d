// SPDX-License-Identifier: GPL-2.0
/*
 * The output files: one row per format, one shape per writer (a snapshot
 * of the model in, the file's bytes out). Adding a format is a row here and
 * its path in struct outputs_opts.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "events.h"
#include "folded.h"
#include "outfile.h"
#include "outputs.h"
#include "say.h"
#include "svg.h"
#include "timeline.h"

#define SNAPSHOT_PREFIX "heap-"

struct outputs {
	struct outputs_opts opts;
};

/* a row of the formats (formats.h): its option, its title (of the target's
 * name, or NULL: none), its writer */
struct format {
	enum output_format format;
	struct output_option option;
	const char *title;
	int (*write)(const struct outputs *o, FILE *out, struct profile *p, const char *title);
};

static int write_folded(const struct outputs *o, FILE *out, struct profile *p, const char *title)
{
	return folded__write(out, p, o->opts.flamegraph_metric);
}

static int write_svg(const struct outputs *o, FILE *out, struct profile *p, const char *title)
{
	return svg__write(out, p, o->opts.flamegraph_metric, title);
}

static int write_pprof_view(const struct outputs *o, FILE *out, struct profile *p,
			    enum pprof_view view)
{
	struct pprof_opts po = { .view = view, .period = o->opts.sample_bytes,
				 .leaked = o->opts.leak_check };
	char comment[256], target[192];
	struct timespec wall;

	clock_gettime(CLOCK_REALTIME, &wall);
	po.time_ns = wall.tv_sec * 1000000000LL + wall.tv_nsec;
	po.duration_ns = (int64_t)((clock__now_ns() / 1e9 - o->opts.start_s) * 1e9);
	o->opts.target_name(o->opts.ctx, target, sizeof(target));
	snprintf(comment, sizeof(comment), "tracelloc: %s", target);
	po.comment = comment;
	return pprof__write(out, p, &po);
}

static int write_pprof(const struct outputs *o, FILE *out, struct profile *p, const char *title)
{
	return write_pprof_view(o, out, p, PPROF_INUSE);
}

static int write_timeline(const struct outputs *o, FILE *out, struct profile *p,
			  const char *title)
{
	return timeline__write(out, o->opts.timeline, p, title);
}

/* in the order they are written */
static const struct format formats[] = {
	[OUTPUT_SVG] = { OUTPUT_SVG,
			 { "svg", 0, "SVG",
			   "      --svg FILE                write an interactive SVG flamegraph to FILE at the end\n",
			   "Flamegraphs" },
			 "Heap of %s", write_svg },
	[OUTPUT_PPROF] = { OUTPUT_PPROF,
			   { "pprof", 0, "pprof",
			     "      --pprof FILE              write a gzipped pprof heap profile to FILE at the end\n"
			     "                                (alloc_objects, alloc_space, inuse_objects, inuse_space,\n"
			     "                                peak_objects, peak_space; leaked_objects and\n"
			     "                                leaked_space with --leak-check; since_mark_objects\n"
			     "                                and since_mark_space after a mark)\n",
			     "pprof" },
			   NULL, write_pprof },
	[OUTPUT_FOLDED] = { OUTPUT_FOLDED,
			    { "flamegraph", 'f', "flamegraph",
			      "  -f, --flamegraph FILE         write folded stacks to FILE at the end\n",
			      "Flamegraphs" },
			    NULL, write_folded },
	[OUTPUT_TIMELINE] = { OUTPUT_TIMELINE,
			      { "timeline", 0, "timeline",
				"      --timeline FILE           write live bytes over the trace to FILE at the end (HTML:\n"
				"                                the top 10 stacks stacked, the rest, the RSS; a point\n"
				"                                per --interval)\n",
				"Flamegraphs" },
			      "Live heap of %s over time", write_timeline },
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))
_Static_assert(NFORMATS == OUTPUT_FORMATS, "a row for every format of formats.h");

const struct output_option *formats__option(enum output_format f)
{
	return f < NFORMATS ? &formats[f].option : NULL;
}

static const char *path_in(const struct outputs_opts *opts, const struct format *f)
{
	return opts->paths[f->format];
}

static const char *path_of(const struct outputs *o, const struct format *f)
{
	return path_in(&o->opts, f);
}

struct outputs *outputs__new(const struct outputs_opts *opts)
{
	struct outputs *o = calloc(1, sizeof(*o));

	if (o)
		o->opts = *opts;
	return o;
}

void outputs__destroy(struct outputs *o)
{
	free(o);
}

/* one line for an output that cannot be written (t as far as it was resolved) */
static int output_failed(const char *path, const struct outfile_target *t, int err)
{
	if (t->kind == OUTFILE_BLOCK_DEVICE)
		return say(0, "will not write %s: it is a block device", path);
	if (t->kind == OUTFILE_FOREIGN_LINK)
		return say(0, "will not follow %s: a symlink in a sticky world-writable directory, "
			   "owned by neither the directory's owner nor you", t->path);
	if (err == -ENXIO && S_ISFIFO(t->type))
		return say(0, "cannot write %s: no reader", path);
	return say(err, "cannot write %s", path);
}

/* a missing DIR is made at the first snapshot (a trace that fails before
 * leaves none), in a directory that must be there */
static int check_snapshot_dir(const char *dir)
{
	char parent[PATH_MAX];
	struct stat st;

	if (!dir)
		return 0;
	if (stat(dir, &st) && errno == ENOENT) {
		if (outfile__parent_dir(dir, parent, sizeof(parent)) || stat(parent, &st))
			return say(-errno, "cannot make %s for the snapshots", dir);
		if (!S_ISDIR(st.st_mode))
			return say(0, "cannot make %s for the snapshots: %s is not a directory", dir,
				   parent);
		if (access(parent, W_OK | X_OK))
			return say(-errno, "cannot make %s for the snapshots", dir);
		return 0;
	}
	if (stat(dir, &st))
		return say(-errno, "cannot write snapshots into %s", dir);
	if (!S_ISDIR(st.st_mode))
		return say(0, "cannot write snapshots into %s: not a directory", dir);
	if (access(dir, W_OK | X_OK))
		return say(-errno, "cannot write snapshots into %s", dir);
	return 0;
}

int outputs__check(const struct outputs_opts *opts, bool *to_stdout)
{
	const struct format *on_stdout = NULL;
	struct outfile_target t;
	const char *path;
	size_t i;
	int err;

	*to_stdout = false;
	for (i = 0; i < NFORMATS; i++) {
		path = path_in(opts, &formats[i]);
		if (!path)
			continue;
		err = outfile__resolve(path, &t);
		if (!err)
			err = outfile__check(&t);
		if (err)
			return output_failed(path, &t, err);
		if (t.kind != OUTFILE_STDOUT)
			continue;
		if (on_stdout)
			return say(0, "--%s %s and --%s %s both go to standard output: only one output can",
				   on_stdout->option.name, path_in(opts, on_stdout),
				   formats[i].option.name, path);
		on_stdout = &formats[i];
		*to_stdout = true;
	}
	return check_snapshot_dir(opts->snapshot_dir);
}

struct writing {
	const struct outputs *o;
	const struct format *f;
};

static int write_snapshot_of_model(FILE *out, void *ctx)
{
	const struct writing *w = ctx;
	struct profile *p = w->o->opts.snapshot(w->o->opts.ctx);
	char title[256], target[192];
	int err;

	if (!p)
		return -ENOMEM;
	title[0] = '\0';
	if (w->f->title) {
		w->o->opts.target_name(w->o->opts.ctx, target, sizeof(target));
		snprintf(title, sizeof(title), w->f->title, target);
	}
	err = w->f->write(w->o, out, p, title);
	profile__destroy(p);
	return err;
}

static int write_one(const struct outputs *o, const char *path, const struct format *f)
{
	struct writing w = { .o = o, .f = f };
	uint64_t start = clock__now_ns();
	struct outfile_target t;
	int err;

	/* resolved again: what the path names may have changed while tracing */
	err = outfile__resolve(path, &t);
	if (!err)
		err = outfile__write(&t, write_snapshot_of_model, &w);
	/* standard output's reader has gone (`| head`): it wants no more, and no complaint */
	if (err == -EPIPE && t.kind == OUTFILE_STDOUT)
		return 0;
	if (err)
		return output_failed(path, &t, err);
	if (o->opts.verbose)
		fprintf(stderr, "tracelloc: wrote %s in %.0f ms\n", path,
			(clock__now_ns() - start) / 1e6);
	return 0;
}

static void writing(const struct outputs *o, bool on)
{
	if (o->opts.events)
		events__writing(o->opts.events, on);
}

int outputs__write(const struct outputs *o)
{
	int failed = 0;
	size_t i;

	writing(o, true);
	for (i = 0; i < NFORMATS; i++)
		if (path_of(o, &formats[i]) && write_one(o, path_of(o, &formats[i]), &formats[i]))
			failed = 1;
	writing(o, false);
	return failed;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void outputs__prune(const char *dir_path, unsigned int keep)
{
	char **names = NULL, **grown, path[PATH_MAX];
	size_t n = 0, i, len;
	struct dirent *d;
	DIR *dir;

	if (!keep || !(dir = opendir(dir_path)))
		return;
	while ((d = readdir(dir))) {
		len = strlen(d->d_name);
		if (strncmp(d->d_name, SNAPSHOT_PREFIX, strlen(SNAPSHOT_PREFIX)) || len < 7 ||
		    strcmp(d->d_name + len - 6, ".pb.gz"))
			continue;
		grown = realloc(names, (n + 1) * sizeof(*names));
		if (!grown || !(grown[n] = strdup(d->d_name))) {
			names = grown ? grown : names;
			break;
		}
		names = grown;
		n++;
	}
	closedir(dir);
	if (names)
		qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i + keep < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir_path, names[i]);
		unlink(path);
		/* its folded stacks: heap-...pb.gz -> heap-....fg */
		len = strlen(path);
		if (len > 6) {
			snprintf(path + len - 6, sizeof(path) - (len - 6), ".fg");
			unlink(path);
		}
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/*
 * Each written whole (a temporary file renamed), so that two of them diff
 * (go tool pprof -diff_base).
 */
void outputs__snapshot(const struct outputs *o)
{
	char base[PATH_MAX - 16], stamp[32], path[PATH_MAX];
	struct timespec now;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &now);
	localtime_r(&now.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(base, sizeof(base), "%s/" SNAPSHOT_PREFIX "%s.%03ld", o->opts.snapshot_dir, stamp,
		 now.tv_nsec / 1000000);
	if (mkdir(o->opts.snapshot_dir, 0777) && errno != EEXIST) {
		say(-errno, "cannot make %s for the snapshots", o->opts.snapshot_dir);
		return;
	}
	writing(o, true);
	snprintf(path, sizeof(path), "%s.pb.gz", base);
	write_one(o, path, &formats[OUTPUT_PPROF]);
	snprintf(path, sizeof(path), "%s.fg", base);
	write_one(o, path, &formats[OUTPUT_FOLDED]);
	writing(o, false);
	outputs__prune(o->opts.snapshot_dir, o->opts.snapshot_keep);
}

int outputs__pprof(const struct outputs *o, FILE *out, enum pprof_view view,
		   const struct profile_base *base)
{
	struct profile *p = o->opts.snapshot(o->opts.ctx);
	int err;

	if (!p)
		return -ENOMEM;
	if (base)
		profile__subtract(p, base);
	err = write_pprof_view(o, out, p, view);
	profile__destroy(p);
	return err;
}
