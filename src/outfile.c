// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

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

int outfile__check(const char *path)
{
	char tmp[PATH_MAX];
	struct stat st;
	int fd;

	if (!*path)
		return -ENOENT;
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		return -EISDIR;
	fd = create_temp(path, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	close(fd);
	unlink(tmp);
	return 0;
}

int outfile__write(const char *path, int (*write_fn)(FILE *out, void *ctx), void *ctx)
{
	char tmp[PATH_MAX];
	FILE *out;
	int fd, err;

	fd = create_temp(path, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	out = fdopen(fd, "w");
	if (!out) {
		err = -errno;
		close(fd);
		goto fail;
	}
	err = write_fn(out, ctx);
	if (fflush(out) && !err)
		err = -errno;
	if (!err && fsync(fd))
		err = -errno;
	if (fclose(out) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (!err)
		return 0;
fail:
	unlink(tmp);
	return err;
}
