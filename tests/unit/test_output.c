// SPDX-License-Identifier: GPL-2.0
/* outfile.c (whole-or-nothing output files) and report.c (human sizes) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "outfile.h"
#include "report.h"
#include "test.h"
#include "tmpdir.h"



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

/* outfile__check of where path leads */
static int check_path(const char *path)
{
	struct outfile_target t;
	int err = outfile__resolve(path, &t);

	return err ? err : outfile__check(&t);
}

/* outfile__write of where path leads */
static int write_path(const char *path, int (*write_fn)(FILE *out, void *ctx), void *ctx)
{
	struct outfile_target t;
	int err = outfile__resolve(path, &t);

	return err ? err : outfile__write(&t, write_fn, ctx);
}

/* all that fd holds until its writers have gone, as a string (static buffer) */
static const char *read_all(int fd)
{
	static char buf[4096];
	size_t len = 0;
	ssize_t n;

	while (len < sizeof(buf) - 1 && (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	return buf;
}

DIR_TEST(outfile_check)
{
	const char *path = in_dir(dir, "out.folded");

	ASSERT_OK(check_path(path), "outfile__check in a writable dir");
	ASSERT_STREQ(dir_names(dir), "", "outfile__check leaves no file behind");
	ASSERT_EQ(check_path(in_dir(dir, "no/such/dir/out")), -ENOENT,
		  "outfile__check in a missing dir");
	ASSERT_EQ(check_path(dir), -EISDIR, "outfile__check of a directory");
	ASSERT_EQ(check_path(""), -ENOENT, "outfile__check of \"\"");
	ASSERT_OK(write_text(path, "keep\n"), "setup");
	ASSERT_OK(check_path(path), "outfile__check of an existing file");
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
		return check_path(path);
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
		err = setgid(65534) || setuid(65534) ? -EPERM : check_path(path);
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

	ASSERT_OK(write_path(path, write_ctx, "main;f 42\n"), "outfile__write");
	ASSERT_STREQ(read_text(path), "main;f 42\n", "content");
	ASSERT_STREQ(dir_names(dir), "out.folded", "files in the dir: no temporary file left");
	ASSERT_OK(lstat(path, &st), "lstat");
	ASSERT_TRUE(S_ISREG(st.st_mode), "a regular file");
	ASSERT_EQ(st.st_mode & 07777, 0644, "mode");

	ASSERT_OK(write_path(path, write_ctx, "second\n"), "outfile__write over a file");
	ASSERT_STREQ(read_text(path), "second\n", "content after a rewrite");
	ASSERT_STREQ(dir_names(dir), "out.folded", "files after a rewrite");

	ASSERT_OK(write_path(path, write_ctx, ""), "outfile__write of nothing");
	ASSERT_STREQ(read_text(path), "", "an empty output is an empty file");
}

DIR_TEST(outfile_write_error_keeps_destination)
{
	const char *path = in_dir(dir, "out.folded");

	ASSERT_OK(write_text(path, "old content\n"), "setup");
	ASSERT_EQ(write_path(path, write_then_fail, NULL), -EIO,
		  "outfile__write with a failing writer");
	ASSERT_STREQ(read_text(path), "old content\n", "the destination is untouched");
	ASSERT_STREQ(dir_names(dir), "out.folded", "files after a failed write");

	ASSERT_EQ(write_path(in_dir(dir, "fresh"), write_then_fail, NULL), -EIO,
		  "failing writer, no destination yet");
	ASSERT_STREQ(dir_names(dir), "out.folded", "a failed write creates nothing");
}

DIR_TEST(outfile_write_missing_dir)
{
	ASSERT_EQ(write_path(in_dir(dir, "nope/out"), write_ctx, "x"), -ENOENT,
		  "outfile__write in a missing dir");
	ASSERT_STREQ(dir_names(dir), "", "files after a failed write");
}

/* the user's own symlinks are followed: what they name is replaced, they stay */
DIR_TEST(outfile_write_follows_symlinks)
{
	const char *path = in_dir(dir, "out.folded"), *target = in_dir(dir, "sub/precious");
	struct outfile_target t;
	char text[PATH_MAX];
	struct stat st;
	ssize_t n;

	ASSERT_OK(mkdir(in_dir(dir, "sub"), 0755), "mkdir sub");
	ASSERT_OK(write_text(target, "old data\n"), "setup target");
	/* relative texts, each from its own directory: out.folded -> sub/link -> precious */
	ASSERT_OK(symlink("precious", in_dir(dir, "sub/link")), "symlink sub/link");
	ASSERT_OK(symlink("sub/link", path), "symlink out.folded");
	ASSERT_OK(outfile__resolve(path, &t), "resolve");
	ASSERT_EQ(t.kind, OUTFILE_REPLACE, "kind of a link to a regular file");
	ASSERT_STREQ(t.path, target, "path, the links followed");
	ASSERT_OK(write_path(path, write_ctx, "folded 1\n"), "write through the links");
	ASSERT_STREQ(read_text(target), "folded 1\n", "the target's content");
	ASSERT_OK(lstat(path, &st), "lstat");
	ASSERT_TRUE(S_ISLNK(st.st_mode), "out.folded is still a symlink");
	n = readlink(path, text, sizeof(text) - 1);
	ASSERT_EQ(n, 8, "readlink");
	text[n] = '\0';
	ASSERT_STREQ(text, "sub/link", "the link's text");
	ASSERT_STREQ(dir_names(in_dir(dir, "sub")), "link precious",
		     "files beside the target: no temporary file left");
	ASSERT_STREQ(dir_names(dir), "out.folded sub", "files in the dir");
}

DIR_TEST(outfile_write_dangling_symlink)
{
	const char *path = in_dir(dir, "out"), *target = in_dir(dir, "through-link");
	struct stat st;

	ASSERT_OK(symlink("through-link", path), "setup symlink");
	ASSERT_OK(write_path(path, write_ctx, "x\n"), "outfile__write through a dangling symlink");
	ASSERT_STREQ(read_text(target), "x\n", "the file the link names is created");
	ASSERT_OK(lstat(path, &st), "lstat");
	ASSERT_TRUE(S_ISLNK(st.st_mode), "the link stays a link");
	ASSERT_STREQ(dir_names(dir), "out through-link", "files in the dir");
}

DIR_TEST(outfile_resolve_errors)
{
	struct outfile_target t;

	ASSERT_OK(symlink("b", in_dir(dir, "a")), "symlink a");
	ASSERT_OK(symlink("a", in_dir(dir, "b")), "symlink b");
	ASSERT_EQ(outfile__resolve(in_dir(dir, "a"), &t), -ELOOP, "a -> b -> a");
	ASSERT_OK(symlink(".", in_dir(dir, "here")), "symlink here");
	ASSERT_EQ(outfile__resolve(in_dir(dir, "here"), &t), -EISDIR, "a link to a directory");
	ASSERT_EQ(outfile__resolve("", &t), -ENOENT, "\"\"");
	ASSERT_OK(outfile__resolve("-", &t), "-");
	ASSERT_EQ(t.kind, OUTFILE_STDOUT, "kind of -");
}

/* a link in a sticky world-writable directory (/tmp) is followed only if it
 * is the user's or the directory owner's */
DIR_TEST(outfile_foreign_symlink)
{
	const char *sticky = in_dir(dir, "sticky"), *link = in_dir(dir, "sticky/out");
	const char *target = in_dir(dir, "precious"), *mine = in_dir(dir, "mine");
	struct outfile_target t;

	if (geteuid() != 0)	/* planting another user's link needs root */
		return;
	ASSERT_OK(mkdir(sticky, 0755) || chmod(sticky, 01777), "mkdir sticky, mode 1777");
	ASSERT_OK(write_text(target, "precious\n"), "setup target");
	ASSERT_OK(symlink(target, link), "symlink");
	ASSERT_OK(lchown(link, 65534, 65534), "lchown");
	ASSERT_OK(outfile__resolve(link, &t), "resolve");
	ASSERT_EQ(t.kind, OUTFILE_FOREIGN_LINK, "kind of another user's link in a sticky dir");
	ASSERT_STREQ(t.path, link, "the refused link");
	ASSERT_EQ(outfile__check(&t), -EPERM, "check of a refused link");
	ASSERT_EQ(outfile__write(&t, write_ctx, "x\n"), -EPERM, "write of a refused link");
	ASSERT_STREQ(read_text(target), "precious\n", "the link's target is untouched");
	/* as the second hop, behind a link of our own */
	ASSERT_OK(symlink(link, mine), "symlink mine");
	ASSERT_OK(outfile__resolve(mine, &t), "resolve mine");
	ASSERT_EQ(t.kind, OUTFILE_FOREIGN_LINK, "kind behind our own link");
	ASSERT_STREQ(t.path, link, "the refused link, behind ours");
	/* the directory owner's links are followed */
	ASSERT_OK(chown(sticky, 65534, 65534), "chown sticky");
	ASSERT_OK(outfile__resolve(link, &t), "resolve, the dir owner's link");
	ASSERT_EQ(t.kind, OUTFILE_REPLACE, "kind of the dir owner's link");
	ASSERT_STREQ(t.path, target, "the dir owner's link, followed");
	/* so are the user's */
	ASSERT_OK(chown(sticky, 0, 0) || lchown(link, 0, 0), "chown back");
	ASSERT_OK(outfile__resolve(link, &t), "resolve, our own link");
	ASSERT_EQ(t.kind, OUTFILE_REPLACE, "kind of our own link");
	/* and anyone's in a directory that is not sticky */
	ASSERT_OK(lchown(link, 65534, 65534) || chmod(sticky, 0777), "lchown, mode 0777");
	ASSERT_OK(outfile__resolve(link, &t), "resolve, not sticky");
	ASSERT_EQ(t.kind, OUTFILE_REPLACE, "kind in a dir that is not sticky");
}

/* copies of /dev/null and /dev/full, and a block device with no driver
 * (local major 240): the host's devices are never at stake */
DIR_TEST(outfile_devices)
{
	const char *null = in_dir(dir, "null"), *full = in_dir(dir, "full");
	const char *disk = in_dir(dir, "disk");
	struct outfile_target t;
	struct stat st;

	if (geteuid() != 0)	/* mknod needs CAP_MKNOD */
		return;
	ASSERT_OK(mknod(null, S_IFCHR | 0666, makedev(1, 3)), "mknod null");
	ASSERT_OK(mknod(full, S_IFCHR | 0666, makedev(1, 7)), "mknod full");
	ASSERT_OK(mknod(disk, S_IFBLK | 0600, makedev(240, 0)), "mknod disk");
	ASSERT_OK(outfile__resolve(null, &t), "resolve null");
	ASSERT_EQ(t.kind, OUTFILE_STREAM, "kind of a character device");
	ASSERT_EQ(t.type, S_IFCHR, "type of a character device");
	ASSERT_OK(outfile__check(&t), "check null");
	ASSERT_OK(outfile__write(&t, write_ctx, "discarded\n"), "write null");
	ASSERT_OK(stat(null, &st), "stat null");
	ASSERT_TRUE(S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3), "null is still the device");
	/* the writer knows only -EIO; the device said why */
	ASSERT_EQ(write_path(full, write_ctx, "x\n"), -ENOSPC, "write to a full device");
	ASSERT_EQ(write_path(full, write_then_fail, NULL), -ENOSPC, "a writer's -EIO, explained");
	ASSERT_OK(stat(full, &st), "stat full");
	ASSERT_TRUE(S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 7), "full is still the device");
	ASSERT_OK(outfile__resolve(disk, &t), "resolve disk");
	ASSERT_EQ(t.kind, OUTFILE_BLOCK_DEVICE, "kind of a block device");
	ASSERT_EQ(outfile__check(&t), -EPERM, "check of a block device");
	ASSERT_EQ(outfile__write(&t, write_ctx, "x\n"), -EPERM, "write of a block device");
	ASSERT_STREQ(dir_names(dir), "disk full null", "files in the dir: none made");
}

DIR_TEST(outfile_fifo)
{
	const char *fifo = in_dir(dir, "fifo");
	struct outfile_target t;
	struct stat st;
	int reader, err;

	ASSERT_OK(mkfifo(fifo, 0600), "mkfifo");
	ASSERT_OK(outfile__resolve(fifo, &t), "resolve");
	ASSERT_EQ(t.kind, OUTFILE_STREAM, "kind of a FIFO");
	ASSERT_EQ(t.type, S_IFIFO, "type of a FIFO");
	/* with no reader: the check opens nothing, the write fails at once */
	ASSERT_OK(outfile__check(&t), "check with no reader");
	ASSERT_EQ(outfile__write(&t, write_ctx, "x\n"), -ENXIO, "write with no reader");
	reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	ASSERT_GE(reader, 0, "open the reader");
	err = outfile__write(&t, write_ctx, "main;f 42\n");
	ASSERT_STREQ(read_all(reader), "main;f 42\n", "what the reader got");
	close(reader);
	ASSERT_OK(err, "write with a reader");
	ASSERT_OK(lstat(fifo, &st), "lstat");
	ASSERT_TRUE(S_ISFIFO(st.st_mode), "still a FIFO");
	ASSERT_STREQ(dir_names(dir), "fifo", "files in the dir");
}

DIR_TEST(outfile_socket)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	const char *sock = in_dir(dir, "sock");
	struct outfile_target t;
	int listener, conn, err;

	listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_GE(listener, 0, "socket");
	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", sock);
	if (bind(listener, (struct sockaddr *)&addr, sizeof(addr)) || listen(listener, 1)) {
		close(listener);
		ASSERT_TRUE(false, "bind and listen");
	}
	err = outfile__resolve(sock, &t);
	if (!err)
		err = outfile__write(&t, write_ctx, "main;g 7\n");
	conn = err ? -1 : accept(listener, NULL, NULL);
	close(listener);
	ASSERT_OK(err, "resolve and write");
	ASSERT_EQ(t.kind, OUTFILE_STREAM, "kind of a socket");
	ASSERT_EQ(t.type, S_IFSOCK, "type of a socket");
	ASSERT_GE(conn, 0, "accept");
	ASSERT_STREQ(read_all(conn), "main;g 7\n", "what the listener got");
	close(conn);
}

/* /dev/stdout and /proc/self/fd/1 are standard output; /dev/fd/N of another pipe is a stream */
DIR_TEST(outfile_stdout)
{
	struct outfile_target by_dev, by_proc, other;
	int out_pipe[2], other_pipe[2], saved;
	int err_dev, err_proc, err_other, err_write;
	char other_path[64];

	ASSERT_OK(pipe2(out_pipe, O_CLOEXEC), "pipe");
	ASSERT_OK(pipe2(other_pipe, O_CLOEXEC), "pipe");
	snprintf(other_path, sizeof(other_path), "/dev/fd/%d", other_pipe[1]);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	ASSERT_GE(saved, 0, "dup");
	dup2(out_pipe[1], STDOUT_FILENO);
	close(out_pipe[1]);
	err_dev = outfile__resolve("/dev/stdout", &by_dev);
	err_proc = outfile__resolve("/proc/self/fd/1", &by_proc);
	err_other = outfile__resolve(other_path, &other);
	err_write = err_dev ? err_dev : outfile__write(&by_dev, write_ctx, "to stdout\n");
	dup2(saved, STDOUT_FILENO);
	close(saved);
	ASSERT_OK(err_dev, "resolve /dev/stdout");
	ASSERT_EQ(by_dev.kind, OUTFILE_STDOUT, "kind of /dev/stdout");
	ASSERT_EQ(by_dev.type, S_IFIFO, "type of /dev/stdout (a pipe)");
	ASSERT_OK(err_proc, "resolve /proc/self/fd/1");
	ASSERT_EQ(by_proc.kind, OUTFILE_STDOUT, "kind of /proc/self/fd/1");
	ASSERT_OK(err_write, "write to /dev/stdout");
	ASSERT_STREQ(read_all(out_pipe[0]), "to stdout\n", "what standard output got");
	close(out_pipe[0]);

	ASSERT_OK(err_other, "resolve %s", other_path);
	ASSERT_EQ(other.kind, OUTFILE_STREAM, "kind of %s", other_path);
	ASSERT_TRUE(other.via_proc, "%s is opened as it is", other_path);
	err_write = outfile__write(&other, write_ctx, "to the pipe\n");
	close(other_pipe[1]);
	ASSERT_OK(err_write, "write to %s", other_path);
	ASSERT_STREQ(read_all(other_pipe[0]), "to the pipe\n", "what the other pipe got");
	close(other_pipe[0]);
}

/* a file reached through /proc/self/fd/N is written in place, as by `>` */
DIR_TEST(outfile_proc_fd_file)
{
	const char *path = in_dir(dir, "held");
	struct outfile_target t;
	char proc_path[64];
	int fd, err;

	ASSERT_OK(write_text(path, "a longer old content\n"), "setup");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_GE(fd, 0, "open");
	snprintf(proc_path, sizeof(proc_path), "/proc/self/fd/%d", fd);
	err = outfile__resolve(proc_path, &t);
	if (!err)
		err = outfile__write(&t, write_ctx, "new\n");
	close(fd);
	ASSERT_OK(err, "resolve and write %s", proc_path);
	ASSERT_EQ(t.kind, OUTFILE_STREAM, "kind of a file behind /proc/self/fd");
	ASSERT_STREQ(read_text(path), "new\n", "content");
	ASSERT_STREQ(dir_names(dir), "held", "files in the dir");
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
	ASSERT_TRUE(!strstr(got, "inherited"), "no line for blocks inherited at fork when none were");
}

/* live blocks that are no calls: a followed child's copies of its parent's */
TEST(report_summary_inherited)
{
	struct summary s = {
		.pid = 4242,
		.ending = "target exited with status 0",
		.stats = { .alloc_calls = 19, .alloc_bytes = 37900, .frees = 2, .live_count = 27,
			   .live_bytes = 55900, .inherited_count = 10, .inherited_bytes = 21000 },
	};
	static const char want[] = "\n    live allocations: 27 (55900 bytes, 54.6 KiB)\n"
		"    inherited at fork: 10 (21000 bytes, 20.5 KiB): blocks the children began with, "
		"copies of their parents' (no allocation call)\n";
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	ASSERT_OK_PTR(out, "open_memstream");
	report__summary(out, &s);
	fclose(out);
	if (!text || !strstr(text, want))
		test__fail_str(__FILE__, __LINE__, want, text ? text : "", "the line after the live blocks");
	free(text);
}
