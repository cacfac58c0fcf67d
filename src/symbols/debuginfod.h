/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_DEBUGINFOD_H
#define TRACELLOC_DEBUGINFOD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
 * buf: those set, "" for none. Each connection may wait DEBUGINFOD_QUERY_S
 * for an answer (libdebuginfod's DEBUGINFOD_TIMEOUT, unless it is set) */
void debuginfod__setup(bool off, const char *dir, char *buf, size_t size);

/*
 * A server that takes connections and never answers (a firewall that drops
 * them) would hold every lookup, and tracelloc's exit, for as long as it
 * holds the connection: the lookups that may ask the servers are timed,
 * and once one waited out its timeout, or all together took
 * DEBUGINFOD_BUDGET_S, no server is asked any more (said once: the frames
 * of stripped files keep their addresses). debuginfod__begin before such a
 * lookup, debuginfod__end after it with what it found.
 */
#define DEBUGINFOD_QUERY_S 3
#define DEBUGINFOD_BUDGET_S 6
uint64_t debuginfod__begin(void);
void debuginfod__end(uint64_t began, bool found);

#endif
