// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>

#include "report.h"

void report__human_bytes(uint64_t bytes, char *buf, size_t size)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double value = bytes;
	int unit = -1;

	if (bytes < 1024) {
		snprintf(buf, size, "%" PRIu64 " B", bytes);
		return;
	}
	/* 1023.5 KiB would print as "1024 KiB": switch units before rounding does */
	while (value >= 1023.5 && unit < 3) {
		value /= 1024;
		unit++;
	}
	snprintf(buf, size, value < 10 ? "%.2f %s" : value < 100 ? "%.1f %s" : "%.0f %s", value,
		 units[unit]);
}

void report__live_line(FILE *out, double elapsed_s, const struct heap_stats *now,
		       const struct heap_stats *prev, double interval_s, const struct loss *loss)
{
	char live[32];

	report__human_bytes(now->live_bytes, live, sizeof(live));
	fprintf(out,
		"[%7.1fs] live: %" PRIu64 " allocations, %s | %.0f allocs/s, %.0f frees/s | lost: %" PRIu64
		"\n",
		elapsed_s, now->live_count, live,
		(now->alloc_calls - prev->alloc_calls) / interval_s,
		(now->frees + now->unknown_frees - prev->frees - prev->unknown_frees) / interval_s,
		loss->lost_allocs + loss->lost_frees);
	fflush(out);
}

void report__summary(FILE *out, const struct summary *s)
{
	const struct heap_stats *st = &s->stats;
	char alloc_h[32], live_h[32];

	report__human_bytes(st->alloc_bytes, alloc_h, sizeof(alloc_h));
	report__human_bytes(st->live_bytes, live_h, sizeof(live_h));
	fprintf(out, "==> summary: pid %d, traced %.2f s, %s\n", s->pid, s->traced_s, s->ending);
	fprintf(out, "    allocation calls: %" PRIu64 " (%" PRIu64 " bytes, %s)\n", st->alloc_calls,
		st->alloc_bytes, alloc_h);
	fprintf(out, "    frees: %" PRIu64 "\n", st->frees);
	fprintf(out, "    unknown frees: %" PRIu64 " (blocks allocated before tracing began)\n",
		st->unknown_frees);
	fprintf(out, "    live allocations: %" PRIu64 " (%" PRIu64 " bytes, %s)\n", st->live_count,
		st->live_bytes, live_h);
	fprintf(out, "    lost events: %" PRIu64 " (%" PRIu64 " allocations, %" PRIu64
		" frees; ring buffer full)\n",
		s->loss.lost_allocs + s->loss.lost_frees, s->loss.lost_allocs, s->loss.lost_frees);
	fprintf(out, "    failed stacks: %" PRIu64 "\n", st->failed_stacks);
	if (s->loss.untraced_calls)
		fprintf(out, "    untraced calls: %" PRIu64 " (no per-thread state)\n",
			s->loss.untraced_calls);
	if (st->reused_live)
		fprintf(out, "    reused live addresses: %" PRIu64 " (their free was lost)\n",
			st->reused_live);
	fflush(out);
}
