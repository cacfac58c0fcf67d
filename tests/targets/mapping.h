/*
 * mapping.h - the program's own anonymous mappings, for the ledger targets
 * built under every allocator family (family.c). tracelloc counts a mapping
 * in whole pages, as the kernel maps it; munmap may take any part of it, and
 * a mapping stays one allocation for as long as a page of it is mapped.
 *
 * Ledger (PG = one page; all exact):
 *   map_keep         mmap 3 PG and mmap 5000 bytes (2 PG), kept: 5 PG in 2
 *   map_freed        mmap 2 PG, munmap all: nothing live
 *   map_head         4 PG, the first unmapped: 3 PG
 *   map_tail         4 PG, the last 2 unmapped: 2 PG
 *   map_hole         5 PG, the middle one unmapped: 4 PG, still 1 allocation
 *   map_pieces       4 PG, pages 1, 3, then 0 unmapped: page 2 left, 1 PG
 *   map_reserve      6 PG; map_fixed maps 2 PG over its pages 1-2
 *                    (MAP_FIXED); then munmap of pages 2-4 of the
 *                    reservation: map_reserve keeps pages 0 and 5 (2 PG),
 *                    map_fixed its first page (1 PG)
 *   map_file_over    3 PG; a file mapped over its page 1 (MAP_FIXED): 2 PG
 *   map_file         file mappings, plain and MAP_FIXED: never counted
 *   map_stack        a MAP_STACK mapping (a thread stack): not counted
 *   remap_src        2 PG, then remap_grow moves it to 6 PG: 0 here, 6 there
 *   remap_shrink_src 4 PG, then remap_shrink keeps 1 PG of it in place
 *   remap_part_src   4 PG; remap_part moves its last 2 PG into 3 PG
 *                    elsewhere: 2 PG stay here, 3 PG there
 *   remap_fail_src   4 PG; remap_fail asks its first 2 PG to grow to 3 in
 *                    place, which the kernel refuses: 4 PG stay, 0 there
 *   map_raw          syscall(SYS_mmap, ...) of 1 PG: 1 PG in a static
 *                    executable (seen at the system call); 0 in a dynamic
 *                    one, whose libc's mmap is what tracelloc probes
 *   map_big_malloc   2 x malloc(1 MiB), one freed: the allocator's own
 *                    mapping is not a mapping of the program's
 *   map_none         8 PG reserved with PROT_NONE: address space, 0
 *   prot_commit      mprotect RW of its pages 2-4: 3 PG, then page 3 made
 *                    PROT_NONE again by prot_decommit: 2 PG, 1 allocation
 *   prot_commit2     mprotect RW of its pages 3-4: page 3 only (page 4 is
 *                    prot_commit's already): 1 PG
 *   prot_heap        posix_memalign of 2 PG (its own pages: 2 PG), then
 *                    mprotect RW of them: nothing more
 */
#ifndef TRACELLOC_TEST_MAPPING_H
#define TRACELLOC_TEST_MAPPING_H

#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "ledger.h"

#ifndef MAP_STACK
#define MAP_STACK 0x20000
#endif

#define MP_ANON (MAP_PRIVATE | MAP_ANONYMOUS)
#define MP_RW (PROT_READ | PROT_WRITE)

static size_t mp_pg;

static void *mp_checked(void *p, const char *what)
{
	lg_check(p != MAP_FAILED, "%s failed: %s", what, strerror(errno));
	lg_sink = p;
	return p == MAP_FAILED ? NULL : p;
}

/* a site that maps len bytes, anonymous and private */
#define MAP_SITE(name)                                                          \
	SITE void *name(size_t len)                                             \
	{                                                                       \
		return mp_checked(mmap(NULL, len, MP_RW, MP_ANON, -1, 0), #name); \
	}

MAP_SITE(map_keep)
MAP_SITE(map_freed)
MAP_SITE(map_head)
MAP_SITE(map_tail)
MAP_SITE(map_hole)
MAP_SITE(map_pieces)
MAP_SITE(map_reserve)
MAP_SITE(map_file_over)
MAP_SITE(remap_src)
MAP_SITE(remap_shrink_src)
MAP_SITE(remap_part_src)
MAP_SITE(remap_fail_src)

SITE void *map_fixed(void *at, size_t len)
{
	return mp_checked(mmap(at, len, MP_RW, MP_ANON | MAP_FIXED, -1, 0), "map_fixed");
}

SITE void *map_file(void *at, int fd)
{
	return mp_checked(mmap(at, mp_pg, PROT_READ, MAP_PRIVATE | (at ? MAP_FIXED : 0), fd, 0),
			  "map_file");
}

SITE void *map_stack(size_t len)
{
	return mp_checked(mmap(NULL, len, MP_RW, MP_ANON | MAP_STACK, -1, 0), "map_stack");
}

SITE void *remap_grow(void *p, size_t old_len, size_t len)
{
	return mp_checked(mremap(p, old_len, len, MREMAP_MAYMOVE), "remap_grow");
}

SITE void *remap_shrink(void *p, size_t old_len, size_t len)
{
	return mp_checked(mremap(p, old_len, len, 0), "remap_shrink");
}

SITE void *remap_part(void *p, size_t old_len, size_t len)
{
	return mp_checked(mremap(p, old_len, len, MREMAP_MAYMOVE), "remap_part");
}

SITE void *remap_fail(void *p, size_t old_len, size_t len)
{
	void *q = mremap(p, old_len, len, 0);

	lg_sink = q;
	return q;
}

SITE void *map_raw(size_t len)
{
	return mp_checked((void *)syscall(SYS_mmap, NULL, len, MP_RW, MP_ANON, -1, 0), "map_raw");
}

SITE void *map_none(size_t len)
{
	return mp_checked(mmap(NULL, len, PROT_NONE, MP_ANON, -1, 0), "map_none");
}

#define PROT_SITE(name, prot)                                                          \
	SITE int name(void *p, size_t len)                                             \
	{                                                                              \
		int err = mprotect(p, len, prot);                                      \
                                                                                       \
		lg_check(!err, "%s: mprotect failed: %s", #name, strerror(errno));     \
		return err;                                                            \
	}

PROT_SITE(prot_commit, MP_RW)
PROT_SITE(prot_decommit, PROT_NONE)
PROT_SITE(prot_commit2, MP_RW)
PROT_SITE(prot_heap_rw, MP_RW)

SITE void *prot_heap(size_t len)
{
	void *p = NULL;

	lg_check(!posix_memalign(&p, mp_pg, len), "posix_memalign failed");
	lg_sink = p;
	return p;
}

SITE void *map_big_malloc(size_t n)
{
	void *p = malloc(n);

	lg_sink = p;
	return p;
}

static void mp_unmap(void *p, size_t len)
{
	lg_check(munmap(p, len) == 0, "munmap failed: %s", strerror(errno));
}

/* the mapping part of a ledger */
static void mapping_exercise(void)
{
	size_t pg = mp_pg = (size_t)sysconf(_SC_PAGESIZE);
	char *p, *q;
	int fd;

	if (map_keep(3 * pg))
		lg_alloc("map_keep", 3 * pg);
	if (map_keep(5000))
		lg_alloc("map_keep", 2 * pg);

	if ((p = map_freed(2 * pg))) {
		lg_alloc("map_freed", 2 * pg);
		mp_unmap(p, 2 * pg);
		lg_free("map_freed", 2 * pg);
	}

	if ((p = map_head(4 * pg))) {
		lg_alloc("map_head", 4 * pg);
		mp_unmap(p, pg);
		lg_shrink("map_head", pg);
	}
	if ((p = map_tail(4 * pg))) {
		lg_alloc("map_tail", 4 * pg);
		mp_unmap(p + 2 * pg, 2 * pg);
		lg_shrink("map_tail", 2 * pg);
	}
	if ((p = map_hole(5 * pg))) {
		lg_alloc("map_hole", 5 * pg);
		mp_unmap(p + 2 * pg, pg);
		lg_shrink("map_hole", pg);
	}
	if ((p = map_pieces(4 * pg))) {
		lg_alloc("map_pieces", 4 * pg);
		mp_unmap(p + pg, pg);
		mp_unmap(p + 3 * pg, pg);
		mp_unmap(p, pg);
		lg_shrink("map_pieces", 3 * pg);
	}

	if ((p = map_reserve(6 * pg))) {
		lg_alloc("map_reserve", 6 * pg);
		if (map_fixed(p + pg, 2 * pg)) {
			lg_shrink("map_reserve", 2 * pg);
			lg_alloc("map_fixed", 2 * pg);
			mp_unmap(p + 2 * pg, 3 * pg);
			lg_shrink("map_fixed", pg);
			lg_shrink("map_reserve", 2 * pg);
		}
	}

	lg_declare("map_file");
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	lg_check(fd >= 0, "open /proc/self/exe: %s", strerror(errno));
	if (fd >= 0) {
		q = map_file(NULL, fd);
		if (q)
			mp_unmap(q, pg);
		if ((p = map_file_over(3 * pg))) {
			lg_alloc("map_file_over", 3 * pg);
			if (map_file(p + pg, fd)) {
				lg_shrink("map_file_over", pg);
			}
		}
		close(fd);
	}

	lg_declare("map_stack");
	map_stack(4 * pg);

	if ((p = remap_src(2 * pg))) {
		lg_alloc("remap_src", 2 * pg);
		if ((q = remap_grow(p, 2 * pg, 6 * pg))) {
			lg_free("remap_src", 2 * pg);
			lg_alloc("remap_grow", 6 * pg);
		}
	}
	if ((p = remap_shrink_src(4 * pg))) {
		lg_alloc("remap_shrink_src", 4 * pg);
		if ((q = remap_shrink(p, 4 * pg, pg))) {
			lg_free("remap_shrink_src", 4 * pg);
			lg_alloc("remap_shrink", pg);
		}
	}
	if ((p = remap_part_src(4 * pg))) {
		lg_alloc("remap_part_src", 4 * pg);
		if ((q = remap_part(p + 2 * pg, 2 * pg, 3 * pg))) {
			lg_shrink("remap_part_src", 2 * pg);
			lg_alloc("remap_part", 3 * pg);
		}
	}
	lg_declare("remap_fail");
	if ((p = remap_fail_src(4 * pg))) {
		lg_alloc("remap_fail_src", 4 * pg);
		lg_check(remap_fail(p, 2 * pg, 3 * pg) == MAP_FAILED,
			 "mremap grew in place over its own mapping");
	}

	/* AT_BASE: where the dynamic loader is; none in a static executable */
	if (map_raw(pg) && !getauxval(AT_BASE))
		lg_alloc("map_raw", pg);

	p = map_big_malloc(1 << 20);
	q = map_big_malloc(1 << 20);
	lg_check(p && q, "malloc(1 MiB) failed");
	lg_alloc("map_big_malloc", 1 << 20);
	lg_alloc("map_big_malloc", 1 << 20);
	free(q);
	lg_free("map_big_malloc", 1 << 20);

	lg_declare("map_none");
	lg_declare("prot_decommit");
	if ((p = map_none(8 * pg))) {
		if (!prot_commit(p + 2 * pg, 3 * pg))
			lg_alloc("prot_commit", 3 * pg);
		if (!prot_decommit(p + 3 * pg, pg))
			lg_shrink("prot_commit", pg);
		if (!prot_commit2(p + 3 * pg, 2 * pg))
			lg_alloc("prot_commit2", pg);
	}
	lg_declare("prot_heap_rw");
	if ((p = prot_heap(2 * pg))) {
		lg_alloc("prot_heap", 2 * pg);
		prot_heap_rw(p, 2 * pg);
	}
}

#endif
