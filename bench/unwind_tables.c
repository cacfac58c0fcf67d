// SPDX-License-Identifier: GPL-2.0
/*
 * The unwind tables of ELF files: rows, bytes, rows per MB of executable
 * code, build time, and how many rows of each kind.
 *
 *	build/bench/unwind_tables FILE...
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "unwind.h"

#define RUNS 5

int main(int argc, char **argv)
{
	int i, status = 0;

	printf("%-40s %9s %9s %9s %10s %8s %6s  %s\n", "file", "text KiB", "rows", "rows/MB",
	       "table KiB", "ms", "bad", "kinds");
	for (i = 1; i < argc; i++) {
		size_t kinds[UNWIND_CFA_UNKNOWN + 1] = { 0 }, nrows, r;
		struct unwind_table *t = NULL;
		const struct unwind_row *rows;
		struct unwind_stats stats;
		uint64_t best_ns = UINT64_MAX;
		int fd, run, err = 0;
		unsigned int k;

		fd = open(argv[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "unwind_tables: cannot open %s: %s\n", argv[i], strerror(errno));
			status = 1;
			continue;
		}
		/* the best of a few builds: the first one also reads the file in */
		for (run = 0; run < RUNS && !err; run++) {
			unwind__destroy(t);
			err = unwind__build(fd, NULL, &t);
			if (!err) {
				unwind__stats(t, &stats);
				if (stats.build_ns < best_ns)
					best_ns = stats.build_ns;
			}
		}
		close(fd);
		if (err) {
			fprintf(stderr, "unwind_tables: cannot build the table of %s: %s\n", argv[i],
				strerror(-err));
			status = 1;
			continue;
		}
		rows = unwind__rows(t, &nrows);
		for (r = 0; r < nrows; r++)
			if (rows[r].cfa_kind <= UNWIND_CFA_UNKNOWN)
				kinds[rows[r].cfa_kind]++;
		printf("%-40s %9.0f %9zu %9.0f %10.1f %8.1f %6zu ", argv[i], stats.text_bytes / 1024.0,
		       stats.rows, stats.rows / (stats.text_bytes / 1048576.0), stats.bytes / 1024.0,
		       best_ns / 1e6, stats.bad_fdes);
		for (k = 0; k <= UNWIND_CFA_UNKNOWN; k++)
			if (kinds[k])
				printf(" %s %zu", unwind__cfa_kind_name(k), kinds[k]);
		printf("  (%zu FDEs, %s)\n", stats.fdes, stats.source);
		unwind__destroy(t);
	}
	return status;
}
