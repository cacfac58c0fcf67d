// SPDX-License-Identifier: GPL-2.0
/*
 * vmread: the copy floor of the leak check's benchmark: reads BYTES of
 * process PID's writable memory (its largest writable mappings first) with
 * process_vm_readv, or with "mem" through /proc/PID/mem (as the check reads
 * a snapshot: process_vm_readv pins pages, and pinning a page shared
 * copy-on-write copies it), 64 KiB at a time as the check does, and prints
 * "read N bytes in MS ms".
 *
 *   vmread PID BYTES [mem]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

struct range {
	unsigned long long start, end;
};

static int by_size_desc(const void *a, const void *b)
{
	const struct range *x = a, *y = b;
	unsigned long long sx = x->end - x->start, sy = y->end - y->start;

	return sx < sy ? 1 : sx > sy ? -1 : 0;
}

int main(int argc, char **argv)
{
	static char buf[64 << 10];
	struct range r[4096];
	unsigned long long want = argc > 2 ? strtoull(argv[2], NULL, 10) : 0, done = 0, at;
	char path[64], line[1024], perms[8];
	struct timespec t0, t1;
	size_t n = 0, i;
	pid_t pid = argc > 1 ? atoi(argv[1]) : 0;
	int fd = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return 1;
	while (n < 4096 && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %7s", &r[n].start, &r[n].end, perms) == 3 &&
		    perms[0] == 'r' && perms[1] == 'w')
			n++;
	fclose(f);
	qsort(r, n, sizeof(*r), by_size_desc);
	if (argc > 3 && !strcmp(argv[3], "mem")) {
		snprintf(path, sizeof(path), "/proc/%d/mem", pid);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n && done < want; i++)
		for (at = r[i].start; at < r[i].end && done < want; at += sizeof(buf)) {
			struct iovec local = { buf, sizeof(buf) };
			struct iovec remote = { (void *)(uintptr_t)at, sizeof(buf) };
			ssize_t got = fd >= 0 ? pread(fd, buf, sizeof(buf), (off_t)at) :
				      process_vm_readv(pid, &local, 1, &remote, 1, 0);

			if (got > 0)
				done += got;
		}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("read %llu bytes in %.2f ms\n", done,
	       (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
	return 0;
}
