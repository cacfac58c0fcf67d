/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_UNWINDER_H
#define TRACELLOC_UNWINDER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The unwind tables of a process's executable mappings, in the BPF maps the
 * return program reads (bpf/unwind.bpf.h): each file's table is built once
 * (src/unwind/unwind.c) and its rows appended to the rows map; the mappings that
 * have rows are listed, sorted, in one half of the module map while the BPF
 * side reads the other, then the halves swap.
 */
struct unwinder;

/* where the tables go: the maps as mmapped by libbpf or by unwinder__publish */
struct proc_state;

struct unwinder_maps {
	int rows_fd;			/* array of the chunks of struct unwind_row */
	/* array of 2 * MAX_UNWIND_MODULES struct unwind_module per slot */
	int mods_fd;
	/* per slot: mods_version, mods_count, uprobes_start and _end */
	struct proc_state *procs;
};

struct unwinder_stats {
	size_t files;			/* with a table */
	size_t rows;
	size_t capacity;		/* rows the chunks made so far hold */
	size_t bytes;			/* of the chunks in use */
	uint64_t text_bytes;		/* covered by the tables */
	uint64_t build_ns;
	size_t dropped;			/* files whose rows did not fit */
};

/* reads pid's maps and builds the tables of its executable files: 0 and
 * *out, or negative errno. pid takes slot 0. */
int unwinder__new(pid_t pid, struct unwinder **out);
/* before publishing: how many processes it may hold at once (1 to MAX_PROCS) */
void unwinder__set_slots(struct unwinder *u, size_t nslots);
/* the module map's size */
size_t unwinder__mods_entries(const struct unwinder *u);
/* once the maps exist: writes the tables (their chunks made as they fill) */
int unwinder__publish(struct unwinder *u, const struct unwinder_maps *maps);
/* reads the maps of the process in slot again; tables for the files mapped
 * since. Cheap when no executable mapping changed. */
int unwinder__refresh(struct unwinder *u, uint32_t slot);
/* after publishing: another process, in slot (its tables built as needed) */
int unwinder__add(struct unwinder *u, uint32_t slot, pid_t pid);
/* the process in slot is no longer traced */
void unwinder__remove(struct unwinder *u, uint32_t slot);
void unwinder__stats(const struct unwinder *u, struct unwinder_stats *stats);
void unwinder__destroy(struct unwinder *u);

#endif
