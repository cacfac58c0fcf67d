// SPDX-License-Identifier: GPL-2.0
/* outputs.c: the table of formats, its checks, snapshots and their pruning */
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "busy_heap.h"
#include "outfile.h"
#include "outputs.h"
#include "test.h"
#include "tmpdir.h"

static struct profile *heap_snapshot(void *ctx)
{
	struct busy_heap *b = ctx;
	struct profile_opts po = { 0 };

	return profile__snapshot(b->heap, &po);
}

static void name_target(void *ctx, char *buf, size_t size)
{
	snprintf(buf, size, "pid 1, unit");
}

static off_t size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : st.st_size;
}

/* runs fn with stderr into a file; its first line in line */
static void capture_stderr(int (*fn)(const void *arg), const void *arg, int *ret, char *line,
			   size_t size)
{
	FILE *f = tmpfile();
	int saved = dup(STDERR_FILENO);

	line[0] = '\0';
	fflush(stderr);
	if (f)
		dup2(fileno(f), STDERR_FILENO);
	*ret = fn(arg);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	if (!f)
		return;
	rewind(f);
	if (!fgets(line, (int)size, f))
		line[0] = '\0';
	line[strcspn(line, "\n")] = '\0';
	fclose(f);
}

static int write_all(const void *o)
{
	return outputs__write(o);
}

/* a failed format does not keep the others from being written, and says so */
TEST(outputs_every_format_attempted)
{
	char *dir = make_dir(), line[512];
	struct outputs_opts oo = {
		.flamegraph_metric = METRIC_LIVE_BYTES,
		.snapshot = heap_snapshot,
		.target_name = name_target,
	};
	struct outputs *o;
	struct busy_heap b;
	int ret;

	ASSERT_TRUE(dir != NULL, "a temporary directory");
	ASSERT_OK(busy_heap__init(&b, 50), "heap");
	oo.ctx = &b;
	oo.paths[OUTPUT_SVG] = in_dir(dir, "no/such/dir/a.svg");	/* written first: it fails */
	oo.paths[OUTPUT_PPROF] = in_dir(dir, "a.pb.gz");
	oo.paths[OUTPUT_FOLDED] = in_dir(dir, "a.fg");
	o = outputs__new(&oo);
	ASSERT_TRUE(o != NULL, "outputs__new");
	capture_stderr(write_all, o, &ret, line, sizeof(line));
	ASSERT_EQ(ret, 1, "outputs__write with one failed file");
	ASSERT_TRUE(strstr(line, "tracelloc: cannot write ") && strstr(line, "a.svg"),
		    "the failed file said: %.180s", line);
	ASSERT_GT(size_of(in_dir(dir, "a.pb.gz")), 0, "the pprof profile, after the failed svg");
	ASSERT_GT(size_of(in_dir(dir, "a.fg")), 0, "the folded stacks, after it");
	ASSERT_STREQ(dir_names(dir), "a.fg a.pb.gz", "nothing else left in the directory");
	outputs__destroy(o);
	busy_heap__destroy(&b);
	remove_dir(dir);
}

struct check_args {
	const struct outputs_opts *opts;
	bool *to_stdout;
};

static int check(const void *arg)
{
	const struct check_args *a = arg;

	return outputs__check(a->opts, a->to_stdout);
}

TEST(outputs_check_before_tracing)
{
	struct outputs_opts oo = { .paths[OUTPUT_FOLDED] = "-" };
	struct check_args a = { .opts = &oo };
	char line[512], *dir = make_dir();
	bool to_stdout = false;
	int ret;

	ASSERT_TRUE(dir != NULL, "a temporary directory");
	a.to_stdout = &to_stdout;
	capture_stderr(check, &a, &ret, line, sizeof(line));
	ASSERT_OK(ret, "one output to standard output");
	ASSERT_TRUE(to_stdout, "said to go to standard output");
	oo.paths[OUTPUT_PPROF] = "-";
	capture_stderr(check, &a, &ret, line, sizeof(line));
	ASSERT_EQ(ret, 1, "two outputs to standard output");
	ASSERT_STREQ(line, "tracelloc: --pprof - and --flamegraph - both go to standard output: "
			   "only one output can", "the line");
	oo.paths[OUTPUT_PPROF] = NULL;
	/* made at the first snapshot, not before: a trace that fails leaves none */
	oo.snapshot_dir = in_dir(dir, "none");
	capture_stderr(check, &a, &ret, line, sizeof(line));
	ASSERT_OK(ret, "a snapshot directory to make");
	ASSERT_TRUE(access(oo.snapshot_dir, F_OK) != 0, "not made by the check");
	oo.snapshot_dir = in_dir(dir, "none/deeper");
	capture_stderr(check, &a, &ret, line, sizeof(line));
	ASSERT_EQ(ret, 1, "a snapshot directory in one that is not there");
	ASSERT_TRUE(strstr(line, "cannot make ") != NULL &&
		    strstr(line, "/none/deeper for the snapshots: No such file or directory") != NULL,
		    "the line: %.180s", line);
	remove_dir(dir);
}

TEST(outfile_parent_dir)
{
	static const char *const cases[][2] = {
		{ "snaps", "." }, { "snaps/", "." }, { "a/snaps", "a" }, { "a/snaps//", "a" },
		{ "/snaps", "/" }, { "/a/b.fg", "/a" }, { "/", "/" },
	};
	char dir[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ASSERT_OK(outfile__parent_dir(cases[i][0], dir, sizeof(dir)), "%s", cases[i][0]);
		ASSERT_STREQ(dir, cases[i][1], "the directory of %s", cases[i][0]);
	}
	ASSERT_EQ(outfile__parent_dir("abcdefgh/x", dir, 4), -ENAMETOOLONG, "too long");
}

static void touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

	if (fd >= 0)
		close(fd);
}

/* the newest of each pair stay, whatever else is in the directory */
TEST(outputs_prune_snapshots)
{
	static const char *const stamps[] = { "20261126-100000.100", "20261126-100000.050",
					      "20261125-235959.999", "20261126-100001.000" };
	char *dir = make_dir(), name[128];
	size_t i;

	ASSERT_TRUE(dir != NULL, "a temporary directory");
	for (i = 0; i < sizeof(stamps) / sizeof(stamps[0]); i++) {
		snprintf(name, sizeof(name), "heap-%s.pb.gz", stamps[i]);
		touch(in_dir(dir, name));
		snprintf(name, sizeof(name), "heap-%s.fg", stamps[i]);
		touch(in_dir(dir, name));
	}
	touch(in_dir(dir, "heap-notes.txt"));
	touch(in_dir(dir, "other.pb.gz"));
	outputs__prune(dir, 0);
	ASSERT_EQ(strlen(dir_names(dir)) > 0, 1, "keep 0: all stay");
	outputs__prune(dir, 2);
	ASSERT_STREQ(dir_names(dir),
		     "heap-20261126-100000.100.fg heap-20261126-100000.100.pb.gz "
		     "heap-20261126-100001.000.fg heap-20261126-100001.000.pb.gz "
		     "heap-notes.txt other.pb.gz",
		     "the two newest pairs, and the files that are no snapshots");
	remove_dir(dir);
}

TEST(outputs_snapshot_pair)
{
	struct outputs_opts oo = {
		.flamegraph_metric = METRIC_LIVE_BYTES,
		.snapshot_keep = 1,
		.snapshot = heap_snapshot,
		.target_name = name_target,
	};
	struct timespec ms = { 0, 3000000 };
	char *dir = make_dir(), names[1024];
	struct outputs *o;
	struct busy_heap b;

	ASSERT_TRUE(dir != NULL, "a temporary directory");
	ASSERT_OK(busy_heap__init(&b, 20), "heap");
	oo.ctx = &b;
	oo.snapshot_dir = dir;
	o = outputs__new(&oo);
	ASSERT_TRUE(o != NULL, "outputs__new");
	outputs__snapshot(o);
	nanosleep(&ms, NULL);
	outputs__snapshot(o);
	snprintf(names, sizeof(names), "%s", dir_names(dir));
	outputs__destroy(o);
	busy_heap__destroy(&b);
	remove_dir(dir);
	ASSERT_EQ(strlen(names), strlen("heap-YYYYMMDD-HHMMSS.mmm.fg heap-YYYYMMDD-HHMMSS.mmm.pb.gz"),
		  "one pair left of two: %.180s", names);
	ASSERT_TRUE(!strncmp(names, "heap-", 5) && strstr(names, ".fg heap-") &&
		    strstr(names, ".pb.gz"), "a snapshot pair: %.180s", names);
}
