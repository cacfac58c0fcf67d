/*
 * bigmap: the program's big mappings count by their pages in memory, as a
 * runtime's areas that it maps large and touches little (Go's arenas).
 *
 * Ledger (exact; huge pages are turned off on the mappings so that a page
 * touched is one page in memory):
 *   map_touched   8 MiB mapped, 3 MiB of it written: live 3 MiB, allocated 8 MiB
 *   map_untouched 16 MiB mapped, never written: live 0, allocated 16 MiB
 *   map_shrunk    4 MiB mapped, all written, then its last 3 MiB unmapped:
 *                 live 1 MiB
 *   map_small     64 KiB mapped, never written: under 1 MiB, counted whole
 * The program then waits 500 ms, as a service would, so that the pages are
 * measured after they were written.
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "ledger.h"

#define MIB (1024 * 1024)

static void *mapped(void *p, size_t len, const char *what)
{
	lg_check(p != MAP_FAILED, "%s failed: %s", what, strerror(errno));
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, len, MADV_NOHUGEPAGE);
	lg_sink = p;
	return p;
}

#define BIG_SITE(name)                                                              \
	SITE void *name(size_t len)                                                 \
	{                                                                           \
		return mapped(mmap(NULL, len, PROT_READ | PROT_WRITE,               \
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), len, #name); \
	}

BIG_SITE(map_touched)
BIG_SITE(map_untouched)
BIG_SITE(map_shrunk)
BIG_SITE(map_small)

int main(void)
{
	struct timespec wait = { 0, 500000000 };
	char *p;

	lg_declare("map_touched");
	lg_declare("map_untouched");
	lg_declare("map_shrunk");
	lg_declare("map_small");
	p = map_touched(8 * MIB);
	if (p) {
		memset(p + MIB, 1, 3 * MIB);
		lg_alloc("map_touched", 8 * MIB);
		lg_shrink("map_touched", 5 * MIB);
	}
	if (map_untouched(16 * MIB)) {
		lg_alloc("map_untouched", 16 * MIB);
		lg_shrink("map_untouched", 16 * MIB);
	}
	p = map_shrunk(4 * MIB);
	if (p) {
		memset(p, 1, 4 * MIB);
		lg_alloc("map_shrunk", 4 * MIB);
		lg_check(!munmap(p + MIB, 3 * MIB), "munmap: %s", strerror(errno));
		lg_shrink("map_shrunk", 3 * MIB);
	}
	if (map_small(64 * 1024))
		lg_alloc("map_small", 64 * 1024);
	nanosleep(&wait, NULL);
	return lg_write();
}
