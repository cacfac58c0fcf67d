/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_SYMBOLIZE_H
#define TRACELLOC_SYMBOLIZE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Names for code addresses of one process, through libdw. The files of the
 * process are opened while it lives (through /proc/PID/map_files, so a
 * process in a container works) and stay open, so stacks can still be named
 * after it exits. Names are cached per address.
 */
struct symbolizer;

struct symbolizer *symbolizer__new(pid_t pid);
void symbolizer__destroy(struct symbolizer *s);

/* reports the modules the process maps now; negative errno when it is gone */
int symbolizer__refresh(struct symbolizer *s);
/* is ret_addr inside a module of the process? */
bool symbolizer__in_module(struct symbolizer *s, uint64_t ret_addr);
/* demangled name of the function that holds return address ret_addr,
 * or "[unknown]"; owned by the symbolizer */
const char *symbolizer__function(struct symbolizer *s, uint64_t ret_addr);

#endif
