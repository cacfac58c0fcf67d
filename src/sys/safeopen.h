/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_SAFEOPEN_H
#define TRACELLOC_SAFEOPEN_H

/*
 * Opening a traced program's files. Everything the program controls (its
 * paths, symlinks, FIFOs, devices, its mount namespace) is untrusted: an
 * open never blocks (the file is looked at through O_PATH first, and only a
 * regular file is opened for reading), and a path is resolved inside the
 * program's root (openat2 RESOLVE_IN_ROOT), so that no symlink of the
 * program's leads to a file of the host's.
 */

/* path (absolute or not) inside the directory root_fd, as if it were "/";
 * a read-only fd of a regular file, or -errno (-EINVAL: not a regular file) */
int safeopen__in_root(int root_fd, const char *path);
/* a /proc link such as /proc/PID/map_files/..., followed to its file: a
 * read-only fd of a regular file, or -errno */
int safeopen__link(const char *path);

#endif
