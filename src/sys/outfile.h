/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_OUTFILE_H
#define TRACELLOC_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/*
 * Where an output path leads, and how it is written there. Symlinks are
 * followed, hop by hop: the link stays, what it names is written. A regular
 * file (or a path with nothing yet) is written whole or not at all: to a
 * temporary file created with O_EXCL in the same directory, renamed over it
 * when complete. A character device, FIFO or socket is written to as it is,
 * never replaced. "-" is standard output, and so is a /proc link (/dev/stdout,
 * /dev/fd/N) or a pipe or socket that is the same file as standard output.
 *
 * Refused: block devices (a disk), and a symlink in a sticky world-writable
 * directory (/tmp) owned by neither the directory's owner nor the user: the
 * kernel's fs.protected_symlinks rule, applied whether or not the kernel
 * does (following a link ourselves would bypass it).
 */
enum outfile_kind {
	OUTFILE_REPLACE,	/* temporary file + rename */
	OUTFILE_STREAM,		/* written as it is */
	OUTFILE_STDOUT,		/* written to a copy of fd 1 */
	OUTFILE_BLOCK_DEVICE,	/* refused */
	OUTFILE_FOREIGN_LINK,	/* refused; path is the link */
};

struct outfile_target {
	enum outfile_kind kind;
	mode_t type;		/* S_IFMT of what path names, 0 for nothing yet */
	bool via_proc;		/* path is a /proc link, opened as it is: its text is no path */
	char path[PATH_MAX];	/* the symlinks followed */
};

/* the directory path is in, into dir ("." for a bare name, "/" for one
 * at the root); -ENAMETOOLONG when it does not fit */
int outfile__parent_dir(const char *path, char *dir, size_t size);
/* where path leads; negative errno (-EISDIR, -ELOOP, ...) when nowhere */
int outfile__resolve(const char *path, struct outfile_target *t);
/* can t be written? Before tracing starts; opens no stream (a FIFO's reader
 * would see the end of its input) */
int outfile__check(const struct outfile_target *t);
/*
 * Writes t through write_fn; negative errno: the first failed write's own
 * (-ENOSPC) rather than the writer's -EIO, -ENXIO for a FIFO nobody reads,
 * -EPERM for a refused kind.
 */
int outfile__write(const struct outfile_target *t, int (*write_fn)(FILE *out, void *ctx),
		   void *ctx);

#endif
