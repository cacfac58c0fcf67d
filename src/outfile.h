/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_OUTFILE_H
#define TRACELLOC_OUTFILE_H

#include <stdio.h>

/*
 * Output files are written whole or not at all: a temporary file created
 * with O_EXCL beside the destination, renamed over it when complete. A
 * symlink planted at the destination is replaced, never followed.
 */

/* can a file be written at path? checked before tracing starts */
int outfile__check(const char *path);
/* writes path through write_fn; negative errno */
int outfile__write(const char *path, int (*write_fn)(FILE *out, void *ctx), void *ctx);

#endif
