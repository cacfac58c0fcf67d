/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_PROCFS_H
#define TRACELLOC_PROCFS_H

#include <stddef.h>

/* a small /proc file (stat, status, comm) read whole into buf, terminated:
 * its length, or negative errno */
int procfs__read(const char *path, char *buf, size_t size);

#endif
