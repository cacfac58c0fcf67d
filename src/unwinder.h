/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_UNWINDER_H
#define TRACELLOC_UNWINDER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The unwind tables of a process's executable mappings, in the BPF maps the
 * return program reads (bpf/tracelloc.bpf.c): each file's table is built once
 * (src/unwind.c) and its rows appended to the rows map; the mappings that
 * have rows are listed, sorted, in one half of the module map while the BPF
 * side reads the other, then the halves swap.
 */
struct unwinder;

/* where the tables go: the maps as mmapped by libbpf or by unwinder__publish */
struct unwinder_maps {
	int rows_fd;			/* array of struct unwind_row */
	int mods_fd;			/* array of 2 * MAX_UNWIND_MODULES struct unwind_module */
	uint32_t *mods_version;		/* bumped per list; its low bit: the half the BPF side reads */
	uint32_t *mods_count;		/* [2]: modules in each half */
	unsigned long long *uprobes_start;	/* the uretprobe trampoline's mapping */
	unsigned long long *uprobes_end;
};

struct unwinder_stats {
	size_t files;			/* with a table */
	size_t rows;
	size_t capacity;		/* rows the map holds */
	size_t bytes;			/* of the rows map in use */
	uint64_t text_bytes;		/* covered by the tables */
	uint64_t build_ns;
	size_t dropped;			/* files whose rows did not fit */
};

/* reads pid's maps and builds the tables of its executable files: 0 and
 * *out, or negative errno */
int unwinder__new(pid_t pid, struct unwinder **out);
/* the rows map's size: what is mapped now, with room for later libraries */
size_t unwinder__capacity(const struct unwinder *u);
/* once the maps exist (sized by unwinder__capacity): writes the tables */
int unwinder__publish(struct unwinder *u, const struct unwinder_maps *maps);
/* reads the maps again; tables for the files mapped since. Cheap when no
 * executable mapping changed. */
int unwinder__refresh(struct unwinder *u);
void unwinder__stats(const struct unwinder *u, struct unwinder_stats *stats);
void unwinder__destroy(struct unwinder *u);

#endif
