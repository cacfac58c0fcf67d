/*
 * remap: maps its own code a second time, at another address, and
 * allocates through the copy, as node does with V8's embedded builtins
 * once it has started: a mapping of a file no ld.so hook announces.
 *
 *   remap N MS [page|segment] [gone]
 *                      N calls of site_remapped through the copy, MS ms
 *                      apart; page: only the pages from site_remapped's on
 *                      are copied (node's copy starts inside a segment);
 *                      gone: the copy is unmapped after, and site_after
 *                      allocates, 300 ms before the end (node unmaps its
 *                      copy as it exits, while the maps are read on)
 *
 * Ledger (all exact; see ledger.h):
 *   site_remapped   N x malloc(512), kept (called through the copy)
 *   site_after      gone: malloc(64), kept
 * Prints "remapped" on stderr once the copy is made.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>

#include "ledger.h"

/* position-independent and touching no data: it runs from the copy too */
SITE void *site_remapped(void *(*alloc)(size_t), size_t n)
{
	return alloc(n);
}

/* the executable mapping of our own file that holds fn: its start, end and offset */
static int own_code(void *fn, unsigned long *start, unsigned long *end, unsigned long *off)
{
	char line[512], perms[8];
	unsigned long s, e, o;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx %7s %lx", &s, &e, perms, &o) != 4 || perms[2] != 'x')
			continue;
		if ((unsigned long)fn >= s && (unsigned long)fn < e) {
			*start = s;
			*end = e;
			*off = o;
			fclose(f);
			return 0;
		}
	}
	fclose(f);
	return -1;
}

SITE void site_after(void)
{
	lg_sink = malloc(64);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, ms = argc > 2 ? atoi(argv[2]) : 10, i, fd;
	int page = argc > 3 && !strcmp(argv[3], "page");
	int gone = argc > 4 && !strcmp(argv[4], "gone");
	struct timespec gap = { ms / 1000, (ms % 1000) * 1000000L };
	void *(*copy)(void *(*)(size_t), size_t);
	unsigned long start, end, off;
	char *at;

	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || own_code((void *)site_remapped, &start, &end, &off))
		return 1;
	if (page) {
		unsigned long skip = ((unsigned long)site_remapped - start) & ~4095UL;

		start += skip;
		off += skip;
	}
	at = mmap(NULL, end - start, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, (off_t)off);
	if (at == MAP_FAILED)
		return 1;
	close(fd);
	copy = (void *(*)(void *(*)(size_t), size_t))(at + ((unsigned long)site_remapped - start));
	fprintf(stderr, "remapped\n");
	for (i = 0; i < n; i++) {
		lg_sink = copy(malloc, 512);
		lg_alloc("site_remapped", 512);
		nanosleep(&gap, NULL);
	}
	if (gone) {
		struct timespec wait = { 0, 300000000L };

		munmap(at, end - start);
		site_after();
		lg_alloc("site_after", 64);
		nanosleep(&wait, NULL);
	}
	return lg_write();
}
