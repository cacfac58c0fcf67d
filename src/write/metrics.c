// SPDX-License-Identifier: GPL-2.0
/*
 * Counters end in _total and only grow while a trace runs, so that
 * Prometheus' rate() and increase() work on them; gauges are the state of
 * the moment. The traced pid is a label of one info metric only: a label on
 * every series would start new series whenever the target restarts.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>

#include "metrics.h"

static void head(FILE *out, const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void uint_metric(FILE *out, const char *name, const char *type, const char *help,
			uint64_t value)
{
	head(out, name, type, help);
	fprintf(out, "%s %" PRIu64 "\n", name, value);
}

static void real_metric(FILE *out, const char *name, const char *help, double value)
{
	head(out, name, "gauge", help);
	fprintf(out, "%s %.3f\n", name, value);
}

/* the classes of leaks.h, in its order, as labels */
static void leak_metrics(FILE *out, const struct metrics *m)
{
	static const char *const cls[4] = { "still_reachable", "possibly_lost",
					    "indirectly_lost", "definitely_lost" };
	int i;

	uint_metric(out, "tracelloc_leak_checks", "gauge",
		    "Processes whose blocks a leak check has classified.", m->leak_checks);
	head(out, "tracelloc_leak_bytes", "gauge",
	     "Bytes of each class at the last leak check of each process.");
	for (i = 0; i < 4; i++)
		fprintf(out, "tracelloc_leak_bytes{class=\"%s\"} %" PRIu64 "\n", cls[i],
			m->leak_bytes[i]);
	head(out, "tracelloc_leak_blocks", "gauge",
	     "Blocks of each class at the last leak check of each process.");
	for (i = 0; i < 4; i++)
		fprintf(out, "tracelloc_leak_blocks{class=\"%s\"} %" PRIu64 "\n", cls[i],
			m->leak_blocks[i]);
}

/* per command: a label value as Prometheus quotes it */
static void put_label(FILE *out, const char *v)
{
	for (; *v; v++) {
		if (*v == '"' || *v == '\\')
			fputc('\\', out);
		if (*v == '\n')
			fputs("\\n", out);
		else if ((unsigned char)*v >= 0x20)
			fputc(*v, out);
	}
}

static void exit_rows(FILE *out, const struct metrics *m, const char *name, size_t field)
{
	size_t i;

	for (i = 0; i < m->nexit_rows; i++) {
		fprintf(out, "%s{comm=\"", name);
		put_label(out, m->exit_rows[i].comm);
		fprintf(out, "\"} %" PRIu64 "\n",
			*(const uint64_t *)((const char *)&m->exit_rows[i] + field));
	}
}

static void exit_metrics(FILE *out, const struct metrics *m)
{
	head(out, "tracelloc_exited_processes_total", "counter",
	     "Traced processes that exited, by command.");
	exit_rows(out, m, "tracelloc_exited_processes_total", offsetof(struct exit_row, processes));
	head(out, "tracelloc_exit_held_bytes_total", "counter",
	     "Bytes the processes that exited held at their exits, by command.");
	exit_rows(out, m, "tracelloc_exit_held_bytes_total", offsetof(struct exit_row, bytes));
	head(out, "tracelloc_exit_held_blocks_total", "counter",
	     "Blocks the processes that exited held at their exits, by command.");
	exit_rows(out, m, "tracelloc_exit_held_blocks_total", offsetof(struct exit_row, blocks));
}

int metrics__write(FILE *out, const struct metrics *m)
{
	const struct heap_stats *st = &m->stats;

	head(out, "tracelloc_target_info", "gauge", "The traced process.");
	fprintf(out, "tracelloc_target_info{pid=\"%d\"} 1\n", m->pid);

	uint_metric(out, "tracelloc_live_bytes", "gauge",
		    "Bytes in blocks allocated while traced and not freed.", st->live_bytes);
	uint_metric(out, "tracelloc_live_allocations", "gauge",
		    "Blocks allocated while traced and not freed.", st->live_count);
	uint_metric(out, "tracelloc_allocated_bytes_total", "counter",
		    "Bytes allocated while traced.", st->alloc_bytes);
	uint_metric(out, "tracelloc_allocations_total", "counter",
		    "Allocation calls while traced.", st->alloc_calls);
	uint_metric(out, "tracelloc_frees_total", "counter",
		    "Frees of blocks allocated while traced.", st->frees);
	uint_metric(out, "tracelloc_unknown_frees_total", "counter",
		    "Frees of blocks allocated before tracing began.", st->unknown_frees);
	real_metric(out, "tracelloc_allocation_rate_bytes",
		    "Bytes allocated per second, over the last interval.", m->alloc_bytes_per_s);
	real_metric(out, "tracelloc_allocation_rate_calls",
		    "Allocation calls per second, over the last interval.", m->alloc_calls_per_s);
	head(out, "tracelloc_lost_events_total", "counter",
	     "Records the kernel dropped because the ring buffer was full.");
	fprintf(out, "tracelloc_lost_events_total{kind=\"alloc\"} %" PRIu64 "\n", m->loss.lost_allocs);
	fprintf(out, "tracelloc_lost_events_total{kind=\"free\"} %" PRIu64 "\n", m->loss.lost_frees);
	fprintf(out, "tracelloc_lost_events_total{kind=\"python_frames\"} %" PRIu64 "\n",
		m->loss.lost_py);
	head(out, "tracelloc_stacks_cut_short_total", "counter",
	     "Stacks that end before the program's entry point, by cause.");
	fprintf(out, "tracelloc_stacks_cut_short_total{cause=\"no_table\"} %" PRIu64 "\n",
		m->loss.cut_no_table);
	fprintf(out, "tracelloc_stacks_cut_short_total{cause=\"rule\"} %" PRIu64 "\n",
		m->loss.cut_rule);
	fprintf(out, "tracelloc_stacks_cut_short_total{cause=\"unreadable\"} %" PRIu64 "\n",
		m->loss.cut_unreadable);
	fprintf(out, "tracelloc_stacks_cut_short_total{cause=\"depth\"} %" PRIu64 "\n",
		m->loss.cut_depth);
	uint_metric(out, "tracelloc_untraced_children_total", "counter",
		    "Child processes the traced ones started, not traced (no --follow-forks).",
		    m->loss.untraced_forks);
	uint_metric(out, "tracelloc_untraced_processes_total", "counter",
		    "Processes that came while tracing and were not traced (no room).",
		    m->untraced_processes + m->loss.untraced_procs);
	uint_metric(out, "tracelloc_stops_not_made_total", "counter",
		    "Stops not made, as a debugger or strace traced the process.", m->loss.ptraced);
	uint_metric(out, "tracelloc_failed_stacks_total", "counter",
		    "Allocations whose call stack could not be read.", st->failed_stacks);
	uint_metric(out, "tracelloc_stacks", "gauge", "Distinct call stacks seen.", m->stacks);
	uint_metric(out, "tracelloc_sample_bytes", "gauge",
		    "Bytes per sample with --sample-bytes (the numbers are estimates); 0: exact.",
		    m->sample_bytes);
	real_metric(out, "tracelloc_traced_seconds", "Seconds since tracing began.", m->traced_s);
	uint_metric(out, "tracelloc_peak_live_bytes", "gauge",
		    "Live bytes when the heap was at its highest so far.", st->peak_live_bytes);
	uint_metric(out, "tracelloc_peak_live_allocations", "gauge",
		    "Live blocks when the heap was at its highest so far.", st->peak_live_count);
	if (m->named) {
		uint_metric(out, "tracelloc_named_own_bytes", "gauge",
			    "Bytes the named allocators took for themselves (their slabs).",
			    m->own_bytes);
		uint_metric(out, "tracelloc_named_own_pieces", "gauge",
			    "Pieces of memory the named allocators took for themselves.",
			    m->own_count);
	}
	if (m->leak_check)
		leak_metrics(out, m);
	if (m->exit_rows)
		exit_metrics(out, m);
	return ferror(out) ? -EIO : 0;
}
