// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "outfile.h"

/* as the kernel's MAXSYMLINKS */
#define MAX_LINK_HOPS 40

int outfile__parent_dir(const char *path, char *dir, size_t size)
{
	size_t end = strlen(path);
	int len;

	/* "snaps/" is in ".", as "snaps" is */
	while (end > 1 && path[end - 1] == '/')
		end--;
	while (end && path[end - 1] != '/')
		end--;
	if (!end)
		len = snprintf(dir, size, ".");
	else if (end == 1)
		len = snprintf(dir, size, "/");
	else
		len = snprintf(dir, size, "%.*s", (int)(end - 1), path);
	return len >= (int)size ? -ENAMETOOLONG : 0;
}

/* the fs.protected_symlinks rule: a link in a sticky world-writable
 * directory is followed only if it is the user's or the directory owner's */
static int is_foreign_link(const char *link, const struct stat *link_st, bool *foreign)
{
	char dir[PATH_MAX];
	struct stat dir_st;
	int err;

	*foreign = false;
	if (link_st->st_uid == geteuid())
		return 0;
	err = outfile__parent_dir(link, dir, sizeof(dir));
	if (err)
		return err;
	if (stat(dir, &dir_st))
		return -errno;
	if ((dir_st.st_mode & (S_ISVTX | S_IWOTH)) != (S_ISVTX | S_IWOTH))
		return 0;
	*foreign = dir_st.st_uid != link_st->st_uid;
	return 0;
}

/* /proc/self/fd/N reads as "pipe:[123]": such a link is opened, never read */
static bool in_proc(const char *link)
{
	char dir[PATH_MAX];
	struct statfs fs;

	return !outfile__parent_dir(link, dir, sizeof(dir)) && !statfs(dir, &fs) &&
	       fs.f_type == PROC_SUPER_MAGIC;
}

/* path after one symlink hop, into the same buffer */
static int follow_link(char *path, size_t size)
{
	char text[PATH_MAX], dir[PATH_MAX];
	ssize_t n;
	int err;

	n = readlink(path, text, sizeof(text));
	if (n < 0)
		return -errno;
	if (n == (ssize_t)sizeof(text))
		return -ENAMETOOLONG;
	text[n] = '\0';
	if (text[0] == '/')
		return snprintf(path, size, "%s", text) >= (int)size ? -ENAMETOOLONG : 0;
	/* relative to the directory that holds the link */
	err = outfile__parent_dir(path, dir, sizeof(dir));
	if (err)
		return err;
	return snprintf(path, size, "%s/%s", dir, text) >= (int)size ? -ENAMETOOLONG : 0;
}

static bool is_stdout(const struct stat *st)
{
	struct stat out;

	return !fstat(STDOUT_FILENO, &out) && out.st_dev == st->st_dev && out.st_ino == st->st_ino;
}

int outfile__resolve(const char *path, struct outfile_target *t)
{
	struct stat st;
	bool foreign;
	int hops, err;

	memset(t, 0, sizeof(*t));
	if (!strcmp(path, "-")) {
		t->kind = OUTFILE_STDOUT;
		if (!fstat(STDOUT_FILENO, &st))
			t->type = st.st_mode & S_IFMT;
		strcpy(t->path, "-");
		return 0;
	}
	if (!*path)
		return -ENOENT;
	if (snprintf(t->path, sizeof(t->path), "%s", path) >= (int)sizeof(t->path))
		return -ENAMETOOLONG;
	for (hops = 0;; hops++) {
		if (lstat(t->path, &st)) {
			if (errno != ENOENT)
				return -errno;
			/* a new file; whether its directory takes one is outfile__check's */
			t->kind = OUTFILE_REPLACE;
			return 0;
		}
		if (!S_ISLNK(st.st_mode))
			break;
		err = is_foreign_link(t->path, &st, &foreign);
		if (err)
			return err;
		if (foreign) {
			t->kind = OUTFILE_FOREIGN_LINK;
			t->type = S_IFLNK;
			return 0;
		}
		if (in_proc(t->path)) {
			if (stat(t->path, &st))
				return -errno;
			t->via_proc = true;
			break;
		}
		if (hops == MAX_LINK_HOPS)
			return -ELOOP;
		err = follow_link(t->path, sizeof(t->path));
		if (err)
			return err;
	}

	t->type = st.st_mode & S_IFMT;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (S_ISBLK(st.st_mode))
		t->kind = OUTFILE_BLOCK_DEVICE;
	/* a terminal or /dev/null named as such is a device, even when stdout is the same */
	else if ((t->via_proc || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) && is_stdout(&st))
		t->kind = OUTFILE_STDOUT;
	/* a file reached through /dev/fd/N may have no name: written in place, as by `>` */
	else if (S_ISREG(st.st_mode) && !t->via_proc)
		t->kind = OUTFILE_REPLACE;
	else if (S_ISREG(st.st_mode) || S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) ||
		 S_ISSOCK(st.st_mode))
		t->kind = OUTFILE_STREAM;
	else
		return -EINVAL;
	return 0;
}

static int create_temp(const char *path, char *tmp, size_t size)
{
	int fd;

	if (snprintf(tmp, size, "%s.tmp.XXXXXX", path) >= (int)size)
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);	/* O_CREAT | O_EXCL, mode 0600 */
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0644)) {
		int err = -errno;

		close(fd);
		unlink(tmp);
		return err;
	}
	return fd;
}

static int stdout_writable(void)
{
	int flags = fcntl(STDOUT_FILENO, F_GETFL);

	if (flags < 0)
		return -errno;
	return (flags & O_ACCMODE) == O_RDONLY ? -EBADF : 0;
}

int outfile__check(const struct outfile_target *t)
{
	char tmp[PATH_MAX];
	int fd;

	switch (t->kind) {
	case OUTFILE_REPLACE:
		fd = create_temp(t->path, tmp, sizeof(tmp));
		if (fd < 0)
			return fd;
		close(fd);
		unlink(tmp);
		return 0;
	case OUTFILE_STREAM:
		return faccessat(AT_FDCWD, t->path, W_OK, AT_EACCESS) ? -errno : 0;
	case OUTFILE_STDOUT:
		return stdout_writable();
	default:
		return -EPERM;
	}
}

static int connect_socket(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd, err;

	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, path);
	/* non-blocking: a listener with a full backlog is an error, not a wait */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

static int open_stream(const struct outfile_target *t)
{
	/* O_NONBLOCK: a FIFO with no reader fails (ENXIO) instead of waiting forever */
	int flags = O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
	struct stat st;
	int fd, err;

	if (!t->via_proc)
		flags |= O_NOFOLLOW;
	if (S_ISREG(t->type))
		flags |= O_TRUNC;
	if (S_ISSOCK(t->type) && !t->via_proc) {
		fd = connect_socket(t->path);
		if (fd < 0)
			return fd;
	} else {
		fd = open(t->path, flags);
		if (fd < 0)
			return -errno;
	}
	if (fstat(fd, &st)) {
		err = -errno;
		goto fail;
	}
	/* replaced since it was resolved (a block device is never written) */
	if ((st.st_mode & S_IFMT) != t->type) {
		err = -EAGAIN;
		goto fail;
	}
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)) {
		err = -errno;
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return err;
}

/* a FILE of our own over fd, to learn why a write failed */
struct sink {
	int fd;
	int err;	/* the first failed write's -errno */
};

static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
	struct sink *sink = cookie;
	struct pollfd pfd = { .fd = sink->fd, .events = POLLOUT };
	size_t done = 0;
	ssize_t n;

	if (sink->err)
		return 0;
	while (done < size) {
		n = write(sink->fd, buf + done, size - done);
		if (n < 0 && errno == EINTR)
			continue;
		/* standard output may be non-blocking, set so by whoever shares it */
		if (n < 0 && errno == EAGAIN) {
			poll(&pfd, 1, -1);
			continue;
		}
		if (n <= 0) {
			sink->err = n < 0 ? -errno : -EIO;
			return 0;	/* stdio's "error" */
		}
		done += n;
	}
	return size;
}

/* writes fd through write_fn and closes it; sync: to the disk, before a rename */
static int write_fd(int fd, bool sync, int (*write_fn)(FILE *out, void *ctx), void *ctx)
{
	cookie_io_functions_t io = { .write = sink_write };
	struct sink sink = { .fd = fd };
	FILE *out;
	int err;

	out = fopencookie(&sink, "w", io);
	if (!out) {
		err = -errno;
		close(fd);
		return err;
	}
	err = write_fn(out, ctx);
	if (fflush(out) && !err)
		err = -EIO;
	if (fclose(out) && !err)
		err = -EIO;
	/* the writers know only that something failed: say what */
	if (sink.err && (!err || err == -EIO))
		err = sink.err;
	if (!err && sync && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

int outfile__write(const struct outfile_target *t, int (*write_fn)(FILE *out, void *ctx),
		   void *ctx)
{
	char tmp[PATH_MAX];
	int fd, err;

	switch (t->kind) {
	case OUTFILE_REPLACE:
		fd = create_temp(t->path, tmp, sizeof(tmp));
		if (fd < 0)
			return fd;
		err = write_fd(fd, true, write_fn, ctx);
		if (!err && rename(tmp, t->path))
			err = -errno;
		if (err)
			unlink(tmp);
		return err;
	case OUTFILE_STREAM:
		fd = open_stream(t);
		return fd < 0 ? fd : write_fd(fd, false, write_fn, ctx);
	case OUTFILE_STDOUT:
		/* what stdio holds for fd 1 comes first */
		fflush(stdout);
		fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		return fd < 0 ? -errno : write_fd(fd, false, write_fn, ctx);
	default:
		return -EPERM;
	}
}
