// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "safeopen.h"

/* an O_PATH fd (its open ran no driver's open and waited for no writer)
 * reopened for reading if it is a regular file; path_fd is closed */
static int reopen_regular(int path_fd)
{
	struct stat st, again;
	char self[64];
	int fd, err;

	if (fstat(path_fd, &st)) {
		err = -errno;
		close(path_fd);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		close(path_fd);
		return -EINVAL;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", path_fd);
	fd = open(self, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	err = fd < 0 ? -errno : 0;
	close(path_fd);
	if (err)
		return err;
	/* the same file (an O_PATH fd pins it; checked all the same) */
	if (fstat(fd, &again) || again.st_ino != st.st_ino || again.st_dev != st.st_dev) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

int safeopen__in_root(int root_fd, const char *path)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		/* "/", ".." and every symlink stay inside root_fd; no /proc magic */
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int fd;

	if (root_fd < 0)
		return -EBADF;
	fd = (int)syscall(SYS_openat2, root_fd, path, &how, sizeof(how));
	if (fd < 0)
		return -errno;
	return reopen_regular(fd);
}

int safeopen__link(const char *path)
{
	int fd = open(path, O_PATH | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	return reopen_regular(fd);
}
