/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_DEBUGINFOD_H
#define TRACELLOC_DEBUGINFOD_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The debuginfod servers libdw asks for the debug info of a stripped file
 * (it reads $DEBUGINFOD_URLS at each query). sudo drops that variable: when
 * it is unset, the distribution's own list is read, dir/ *.urls (Debian's
 * /etc/debuginfod, as its profile script does). Set in tracelloc's own
 * environment after the command is started, so that the command's stays
 * as it was.
 */

/* the URLs of dir's *.urls files, sorted by name, joined by spaces into
 * buf; 0, or negative errno (-ENOENT: none) */
int debuginfod__read_urls(const char *dir, char *buf, size_t size);
/* the servers to use, set in the environment (off: none, it is unset);
 * buf: those set, "" for none */
void debuginfod__setup(bool off, const char *dir, char *buf, size_t size);

#endif
