// SPDX-License-Identifier: GPL-2.0
/* a JIT's perf map (see perfmap.h) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfmap.h"
#include "safeopen.h"

/* a perf map bigger than this is not read (a runtime that never prunes) */
#define PERF_MAP_MAX_BYTES (64 << 20)

/* one line: code the runtime generated, and its name */
struct perf_sym {
	uint64_t start;
	uint64_t end;
	size_t name;		/* offset in names */
	size_t line;		/* later lines win: code made again at one place */
};

struct perfmap {
	struct perf_sym *syms;
	size_t nsyms;
	char *names;		/* every name, NUL-terminated, one after another */
	off_t size;		/* of the file when read; -1: never there */
};

struct perfmap *perfmap__new(void)
{
	struct perfmap *pm = calloc(1, sizeof(*pm));

	if (pm)
		pm->size = -1;
	return pm;
}

void perfmap__destroy(struct perfmap *pm)
{
	if (!pm)
		return;
	free(pm->syms);
	free(pm->names);
	free(pm);
}

static int by_start(const void *a, const void *b)
{
	const struct perf_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* appends s to the pool at *used; its offset, or -1 */
static long pool_add(char **pool, size_t *used, size_t *cap, const char *s)
{
	size_t len = strlen(s) + 1;
	char *grown;

	if (*used + len > *cap) {
		size_t want = *cap ? 2 * *cap : 4096;

		while (want < *used + len)
			want *= 2;
		grown = realloc(*pool, want);
		if (!grown)
			return -1;
		*pool = grown;
		*cap = want;
	}
	memcpy(*pool + *used, s, len);
	*used += len;
	return (long)(*used - len);
}

/* the file as it is now, opened safely in the process's root; NULL when it
 * is not there, not the process's user's, unchanged or too big */
static FILE *open_map(const struct perfmap *pm, int root_fd, pid_t pid, pid_t own_pid,
		      off_t *size)
{
	struct stat st, link, proc;
	char path[64], proc_path[32];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "tmp/perf-%d.map", own_pid);
	snprintf(proc_path, sizeof(proc_path), "/proc/%d", pid);
	if (fstatat(root_fd, path, &link, AT_SYMLINK_NOFOLLOW) || !S_ISREG(link.st_mode) ||
	    stat(proc_path, &proc) || link.st_uid != proc.st_uid || link.st_size == pm->size ||
	    link.st_size > PERF_MAP_MAX_BYTES)
		return NULL;
	fd = safeopen__in_root(root_fd, path);
	if (fd < 0)
		return NULL;
	/* the file opened is the one looked at */
	if (fstat(fd, &st) || st.st_ino != link.st_ino || st.st_dev != link.st_dev ||
	    !(f = fdopen(fd, "re"))) {
		close(fd);
		return NULL;
	}
	*size = st.st_size;
	return f;
}

void perfmap__read(struct perfmap *pm, int root_fd, pid_t pid, pid_t own_pid)
{
	size_t n = 0, cap = 0, used = 0, pool_cap = 0, line_cap = 0;
	struct perf_sym *syms = NULL, *grown;
	char *line = NULL, *names = NULL;
	off_t size;
	FILE *f;

	if (root_fd < 0 || !own_pid || !(f = open_map(pm, root_fd, pid, own_pid, &size)))
		return;
	while (getline(&line, &line_cap, f) > 0) {
		unsigned long long start, len;
		int at = 0;
		long name;

		if (sscanf(line, "%llx %llx %n", &start, &len, &at) < 2 || !at || !len)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			grown = realloc(syms, cap * sizeof(*syms));
			if (!grown)
				break;
			syms = grown;
		}
		name = pool_add(&names, &used, &pool_cap, line + at);
		if (name < 0)
			break;
		syms[n] = (struct perf_sym){ start, start + len, (size_t)name, n };
		n++;
	}
	free(line);
	fclose(f);
	if (n)
		qsort(syms, n, sizeof(*syms), by_start);
	free(pm->syms);
	free(pm->names);
	pm->syms = syms;
	pm->names = names;
	pm->nsyms = n;
	pm->size = size;
}

const char *perfmap__name(const struct perfmap *pm, uint64_t addr)
{
	size_t lo = 0, hi = pm ? pm->nsyms : 0;

	/* the last one that starts at or below addr, if it ends above it */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pm->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= pm->syms[lo - 1].end)
		return NULL;
	return pm->names + pm->syms[lo - 1].name;
}
