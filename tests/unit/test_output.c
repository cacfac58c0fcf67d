// SPDX-License-Identifier: GPL-2.0
/* outfile.c (whole-or-nothing output files) and report.c (human sizes) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "outfile.h"
#include "report.h"
#include "test.h"

/* a fresh empty directory under $TMPDIR (or /tmp) */
static char *make_dir(void)
{
	const char *base = getenv("TMPDIR");
	char *dir;

	if (asprintf(&dir, "%s/tracelloc-unit.XXXXXX", base && *base ? base : "/tmp") < 0)
		return NULL;
	if (!mkdtemp(dir)) {
		free(dir);
		return NULL;
	}
	return dir;
}

/* removes the entries of dir (files and symlinks; one level of subdirectories) and dir */
static void remove_dir(char *dir)
{
	DIR *d;
	struct dirent *e;

	if (!dir)
		return;
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		char path[PATH_MAX];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (unlink(path))
			rmdir(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
	free(dir);
}

/* the names in dir, sorted, joined by ' ' (static buffer) */
static const char *dir_names(const char *dir)
{
	static char buf[1024];
	char *names[64];
	struct dirent *e;
	size_t n = 0, i, j;
	DIR *d = opendir(dir);

	buf[0] = '\0';
	if (!d)
		return "(opendir failed)";
	while ((e = readdir(d)) && n < 64)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			names[n++] = strdup(e->d_name);
	closedir(d);
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j];

			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	for (i = 0; i < n; i++) {
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? " " : "",
			 names[i]);
		free(names[i]);
	}
	return buf;
}

/* dir/name, in one of 4 rotating static buffers */
static const char *in_dir(const char *dir, const char *name)
{
	static char buf[4][PATH_MAX];
	static int which;

	which = (which + 1) % 4;
	snprintf(buf[which], sizeof(buf[which]), "%s/%s", dir, name);
	return buf[which];
}

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fputs(text, f);
	return fclose(f) ? -EIO : 0;
}

/* contents of path (static buffer), or "(missing)" */
static const char *read_text(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return "(missing)";
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int write_ctx(FILE *out, void *ctx)
{
	fputs(ctx, out);
	return 0;
}

static int write_then_fail(FILE *out, void *ctx)
{
	fputs("partial output\n", out);
	return -EIO;
}

/* a test run in a fresh temporary directory, removed after the test, failed or not */
#define DIR_TEST(name)                                                              \
	static void name##_in(const char *dir);                                     \
	TEST(name)                                                                  \
	{                                                                           \
		char *dir = make_dir();                                             \
		ASSERT_OK_PTR(dir, "temporary directory");                          \
		name##_in(dir);                                                     \
		chmod(dir, 0755);                                                   \
		remove_dir(dir);                                                    \
	}                                                                           \
	static void name##_in(const char *dir)

DIR_TEST(outfile_check)
{
	const char *path = in_dir(dir, "out.folded");

	ASSERT_OK(outfile__check(path), "outfile__check in a writable dir");
	ASSERT_STREQ(dir_names(dir), "", "outfile__check leaves no file behind");
	ASSERT_EQ(outfile__check(in_dir(dir, "no/such/dir/out")), -ENOENT,
		  "outfile__check in a missing dir");
	ASSERT_EQ(outfile__check(dir), -EISDIR, "outfile__check of a directory");
	ASSERT_EQ(outfile__check(""), -ENOENT, "outfile__check of \"\"");
	ASSERT_OK(write_text(path, "keep\n"), "setup");
	ASSERT_OK(outfile__check(path), "outfile__check of an existing file");
	ASSERT_STREQ(read_text(path), "keep\n", "outfile__check leaves an existing file alone");
	ASSERT_STREQ(dir_names(dir), "out.folded", "files after outfile__check");
}

/* outfile__check(path) as an unprivileged user: root writes anywhere. The
 * child reports through a pipe (its exit status may be valgrind's). */
static int check_unprivileged(const char *path)
{
	int fds[2], err = -ECHILD;
	pid_t pid;

	if (geteuid() != 0)
		return outfile__check(path);
	if (pipe(fds))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		err = -errno;
		close(fds[0]);
		close(fds[1]);
		return err;
	}
	if (!pid) {
		close(fds[0]);
		err = setgid(65534) || setuid(65534) ? -EPERM : outfile__check(path);
		if (write(fds[1], &err, sizeof(err)) != sizeof(err))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &err, sizeof(err)) != sizeof(err))
		err = -ECHILD;
	close(fds[0]);
	waitpid(pid, NULL, 0);
	return err;
}

DIR_TEST(outfile_check_unwritable_dir)
{
	ASSERT_OK(chmod(dir, 0555), "chmod");
	ASSERT_EQ(check_unprivileged(in_dir(dir, "out")), -EACCES,
		  "outfile__check in a read-only dir");
}

DIR_TEST(outfile_write)
{
	const char *path = in_dir(dir, "out.folded");
	struct stat st;

	ASSERT_OK(outfile__write(path, write_ctx, "main;f 42\n"), "outfile__write");
	ASSERT_STREQ(read_text(path), "main;f 42\n", "content");
	ASSERT_STREQ(dir_names(dir), "out.folded", "files in the dir: no temporary file left");
	ASSERT_OK(lstat(path, &st), "lstat");
	ASSERT_TRUE(S_ISREG(st.st_mode), "a regular file");
	ASSERT_EQ(st.st_mode & 07777, 0644, "mode");

	ASSERT_OK(outfile__write(path, write_ctx, "second\n"), "outfile__write over a file");
	ASSERT_STREQ(read_text(path), "second\n", "content after a rewrite");
	ASSERT_STREQ(dir_names(dir), "out.folded", "files after a rewrite");

	ASSERT_OK(outfile__write(path, write_ctx, ""), "outfile__write of nothing");
	ASSERT_STREQ(read_text(path), "", "an empty output is an empty file");
}

DIR_TEST(outfile_write_error_keeps_destination)
{
	const char *path = in_dir(dir, "out.folded");

	ASSERT_OK(write_text(path, "old content\n"), "setup");
	ASSERT_EQ(outfile__write(path, write_then_fail, NULL), -EIO,
		  "outfile__write with a failing writer");
	ASSERT_STREQ(read_text(path), "old content\n", "the destination is untouched");
	ASSERT_STREQ(dir_names(dir), "out.folded", "files after a failed write");

	ASSERT_EQ(outfile__write(in_dir(dir, "fresh"), write_then_fail, NULL), -EIO,
		  "failing writer, no destination yet");
	ASSERT_STREQ(dir_names(dir), "out.folded", "a failed write creates nothing");
}

DIR_TEST(outfile_write_missing_dir)
{
	ASSERT_EQ(outfile__write(in_dir(dir, "nope/out"), write_ctx, "x"), -ENOENT,
		  "outfile__write in a missing dir");
	ASSERT_STREQ(dir_names(dir), "", "files after a failed write");
}

DIR_TEST(outfile_write_replaces_symlink)
{
	const char *path = in_dir(dir, "out.folded"), *target = in_dir(dir, "precious");
	struct stat st;

	ASSERT_OK(write_text(target, "precious data\n"), "setup target");
	ASSERT_OK(symlink(target, path), "setup symlink");
	ASSERT_OK(outfile__write(path, write_ctx, "folded 1\n"), "outfile__write over a symlink");
	ASSERT_OK(lstat(path, &st), "lstat");
	ASSERT_TRUE(S_ISREG(st.st_mode), "the symlink is replaced by a regular file");
	ASSERT_STREQ(read_text(path), "folded 1\n", "content");
	ASSERT_STREQ(read_text(target), "precious data\n", "the symlink's target is untouched");
	ASSERT_STREQ(dir_names(dir), "out.folded precious", "files in the dir");
}

DIR_TEST(outfile_write_dangling_symlink)
{
	const char *path = in_dir(dir, "out"), *target = in_dir(dir, "through-link");

	ASSERT_OK(symlink(target, path), "setup symlink");
	ASSERT_OK(outfile__write(path, write_ctx, "x\n"), "outfile__write over a dangling symlink");
	ASSERT_NEQ(access(target, F_OK), 0, "the dangling symlink is not followed");
	ASSERT_STREQ(dir_names(dir), "out", "files in the dir");
	ASSERT_STREQ(read_text(path), "x\n", "content");
}

/* report */

TEST(report_human_bytes)
{
	static const struct {
		uint64_t bytes;
		const char *want;
	} cases[] = {
		{ 0, "0 B" },
		{ 1, "1 B" },
		{ 1023, "1023 B" },
		{ 1024, "1.00 KiB" },
		{ 1536, "1.50 KiB" },
		{ 10 * 1024, "10.0 KiB" },
		{ 100 * 1024, "100 KiB" },
		{ 1 << 20, "1.00 MiB" },
		{ 10 << 20, "10.0 MiB" },
		{ 3ULL << 29, "1.50 GiB" },
		{ 1ULL << 40, "1.00 TiB" },
		{ 1ULL << 50, "1024 TiB" },
	};
	char buf[32];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(buf, 'X', sizeof(buf));
		report__human_bytes(cases[i].bytes, buf, sizeof(buf));
		ASSERT_STREQ(buf, cases[i].want, "human_bytes(%llu)",
			     (unsigned long long)cases[i].bytes);
	}
	/* truncated to the buffer, always terminated */
	report__human_bytes(1536, buf, 4);
	ASSERT_STREQ(buf, "1.5", "human_bytes(1536) in 4 bytes");
}

TEST(report_summary_and_live_line)
{
	struct summary s = {
		.pid = 4242,
		.traced_s = 1.5,
		.ending = "target exited with status 0",
		.stats = { .alloc_calls = 10, .alloc_bytes = 2048, .frees = 7, .unknown_frees = 1,
			   .live_count = 3, .live_bytes = 1536 },
	};
	struct heap_stats prev = { .alloc_calls = 4, .frees = 2 };
	struct loss loss = { .lost_allocs = 2, .lost_frees = 3 };
	static char got[2048];
	static const char *const want[] = {
		"==> summary: pid 4242, traced 1.50 s, target exited with status 0\n",
		"allocation calls: 10 (2048 bytes, 2.00 KiB)\n",
		"frees: 7\n",
		"unknown frees: 1 ",
		"live allocations: 3 (1536 bytes, 1.50 KiB)\n",
		"[    2.0s] live: 3 allocations, 1.50 KiB | 3 allocs/s, 3 frees/s | lost: 5\n",
	};
	char *text = NULL;
	size_t size = 0, i;
	FILE *out = open_memstream(&text, &size);

	ASSERT_OK_PTR(out, "open_memstream");
	report__summary(out, &s);
	report__live_line(out, 2.0, &s.stats, &prev, 2.0, &loss);
	fclose(out);
	snprintf(got, sizeof(got), "%s", text ? text : "");
	free(text);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(got, want[i]))
			test__fail_str(__FILE__, __LINE__, want[i], got, "text with the line above");
}
