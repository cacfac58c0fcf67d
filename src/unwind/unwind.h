/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_UNWIND_H
#define TRACELLOC_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "tracelloc.h"

/*
 * The unwind table of one ELF file (x86-64): its CFI turned into rows
 * (struct unwind_row, include/tracelloc.h) that the BPF side can follow.
 * libdw reads the CFI: .eh_frame, else the file's .debug_frame, else the
 * .debug_frame of a separate debug file. The file is untrusted: a corrupt
 * entry costs the functions it describes (UNKNOWN rows), and the work per
 * entry and per file is bounded.
 */
struct unwind_table;

struct unwind_opts {
	/* a separate debug file, read when the file itself has no CFI; or NULL */
	const char *debug_path;
};

struct unwind_stats {
	size_t rows;
	size_t bytes;		/* of the rows */
	uint64_t text_bytes;	/* of the executable segments the rows cover */
	uint64_t build_ns;
	size_t fdes;		/* the CFI's entries that cover executable code */
	size_t bad_fdes;	/* of which some or all rows are UNKNOWN: unreadable,
				 * overlapping another, or too costly to read */
	const char *source;	/* ".eh_frame", ".debug_frame", "debug file" or "names" (none) */
};

/*
 * Builds the table of the ELF file open as fd (the caller keeps fd). 0 and
 * *out, or negative errno: -ENOEXEC (not a 64-bit x86-64 ELF file), -ENODATA
 * (no CFI covers its code), -ETIMEDOUT (the CFI is too costly to read),
 * -ENOMEM.
 */
int unwind__build(int fd, const struct unwind_opts *opts, struct unwind_table **out);
void unwind__destroy(struct unwind_table *t);

/* the row that holds pc (an ELF virtual address), or NULL below the first row */
const struct unwind_row *unwind__find(const struct unwind_table *t, uint64_t pc);
/* every row, sorted by pc; the last one is a GAP */
const struct unwind_row *unwind__rows(const struct unwind_table *t, size_t *count);
void unwind__stats(const struct unwind_table *t, struct unwind_stats *stats);

const char *unwind__cfa_kind_name(unsigned int kind);

#endif
