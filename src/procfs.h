/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_PROCFS_H
#define TRACELLOC_PROCFS_H

#include <stddef.h>

/* a small /proc file (stat, status, comm) read whole into buf, terminated:
 * its length, or negative errno */
int procfs__read(const char *path, char *buf, size_t size);
/* NSpid of /proc/PATH_PID/status ("self" or a pid): the pid in the
 * innermost namespace, and how many namespaces lie above it; negative
 * errno */
int procfs__nspid(const char *path_pid, int *innermost, unsigned int *depth);

#endif
