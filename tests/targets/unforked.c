// SPDX-License-Identifier: GPL-2.0
/*
 * A target for the leak check's pages a fork leaves out: 4 blocks of 4,000
 * bytes whose only pointers lie in a page marked MADV_DONTFORK (absent from
 * a fork's copy) and 4 in one marked MADV_WIPEONFORK (zeros in the copy),
 * and 10 blocks of 1,000 bytes dropped (lost). "unforked MIB": MIB MiB
 * more, written, in blocks of 1 MiB a global array holds. Writes $TL_READY,
 * then waits until killed.
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ledger.h"

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif

__attribute__((noinline)) void *site_unforked(size_t n)
{
	return malloc(n);
}

__attribute__((noinline)) void *site_unforked_lost(size_t n)
{
	return malloc(n);
}

__attribute__((noinline)) static void make(void **dc, void **wf)
{
	int i;

	for (i = 0; i < 4; i++) {
		dc[i * 7] = site_unforked(4000);
		wf[i * 5] = site_unforked(4000);
	}
	for (i = 0; i < 10; i++)
		memset(site_unforked_lost(1000), 1, 1000);
}

__attribute__((noinline)) static void scrub(void)
{
	volatile char area[16 << 10];

	memset((char *)area, 0, sizeof(area));
}

static void **held;

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 0, i;

	void **dc = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void **wf = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	lg_check(dc != MAP_FAILED && wf != MAP_FAILED, "mmap");
	lg_check(!madvise(dc, 4096, MADV_DONTFORK), "MADV_DONTFORK");
	lg_check(!madvise(wf, 4096, MADV_WIPEONFORK), "MADV_WIPEONFORK");
	make(dc, wf);
	held = mib ? calloc(mib, sizeof(*held)) : NULL;
	for (i = 0; held && i < mib; i++)
		if ((held[i] = malloc(1 << 20)))
			memset(held[i], 1, 1 << 20);
	scrub();
	tl_ready();
	for (;;)
		pause();
}
