// SPDX-License-Identifier: GPL-2.0
/* named.c: the specs of the program's own allocators, and the cookies the
 * BPF side reads them by; pools.c: their blocks and their own memory */
#include <errno.h>
#include <string.h>

#include "allocfns.h"
#include "heap.h"
#include "named.h"
#include "pools.h"
#include "test.h"

TEST(named_specs_parsed)
{
	struct named_fns n = { 0 };
	char err[160];
	uint64_t c;

	ASSERT_OK(named__add(&n, NAMED_ALLOC, "pool_alloc:size=arg2,pool=arg1", err, sizeof(err)),
		  "alloc with a pool");
	ASSERT_OK(named__add(&n, NAMED_REALLOC, "libapr-1:my_realloc:ptr=arg1,size=arg3", err,
			     sizeof(err)), "realloc in a library");
	ASSERT_OK(named__add(&n, NAMED_FREE, "my_free:ptr=arg2", err, sizeof(err)), "free");
	ASSERT_OK(named__add(&n, NAMED_POOL_CREATE, "libx:pool_new", err, sizeof(err)),
		  "a pool's creation: no key");
	ASSERT_OK(named__add(&n, NAMED_ALLOC, "PyObject_Calloc:count=arg1,size=arg2", err,
			     sizeof(err)), "a calloc");
	ASSERT_EQ(n.count, 5, "five functions");
	ASSERT_NULL(n.fn[0].lib, "no library: any object");
	ASSERT_STREQ(n.fn[0].symbol, "pool_alloc", "the symbol");
	ASSERT_STREQ(n.fn[1].lib, "libapr-1", "the library");
	ASSERT_STREQ(n.fn[1].symbol, "my_realloc", "its symbol");
	ASSERT_STREQ(n.fn[3].lib, "libx", "LIB:NAME without keys");
	c = named__cookie(&n, 0);
	ASSERT_EQ(COOKIE_FN(c), FN_NAMED, "a named allocator");
	ASSERT_EQ(COOKIE_SIZE_ARG(c), 2, "size second");
	ASSERT_EQ(COOKIE_POOL_ARG(c), 1, "pool first");
	ASSERT_EQ(COOKIE_NAMED(c), 0, "its index");
	c = named__cookie(&n, 1);
	ASSERT_EQ(COOKIE_PTR_ARG(c), 1, "realloc: the block first");
	ASSERT_EQ(COOKIE_SIZE_ARG(c), 3, "the size third");
	ASSERT_TRUE(c & COOKIE_REALLOC, "it moves the block");
	ASSERT_EQ(COOKIE_NAMED(c), 1, "its index");
	c = named__cookie(&n, 2);
	ASSERT_EQ(COOKIE_FN(c), FN_NAMED_FREE, "a named free");
	ASSERT_EQ(COOKIE_PTR_ARG(c), 2, "its block second");
	ASSERT_EQ(COOKIE_FN(named__cookie(&n, 3)), FN_POOL_CREATE, "a pool's creation");
	c = named__cookie(&n, 4);
	ASSERT_EQ(COOKIE_COUNT_ARG(c), 1, "calloc: the count first");
	ASSERT_EQ(COOKIE_SIZE_ARG(c), 2, "the size second");
	ASSERT_EQ(COOKIE_COUNT_ARG(named__cookie(&n, 0)), 0, "no count: the size alone");
	ASSERT_STREQ(allocfns__name(FN_NAMED | 1 << 8), "my_realloc", "the views name it");
	named__free(&n);
	ASSERT_EQ(n.count, 0, "freed");
}

TEST(named_bad_specs_refused)
{
	static const struct { enum named_kind kind; const char *spec; } bad[] = {
		{ NAMED_ALLOC, "f:size=arg0" }, { NAMED_ALLOC, "f:size=arg7" },
		{ NAMED_ALLOC, "f:size=argx" }, { NAMED_ALLOC, "f:size=arg1x" },
		{ NAMED_ALLOC, "f:ptr=arg1" }, { NAMED_ALLOC, "f:pool=arg1" },
		{ NAMED_ALLOC, "f" }, { NAMED_ALLOC, ":f:size=arg1" },
		{ NAMED_ALLOC, "f g:size=arg1" }, { NAMED_ALLOC, "f:size=arg1,size=arg2" },
		{ NAMED_ALLOC, "f:size=arg1,pool=arg1" }, { NAMED_ALLOC, "f:size" },
		{ NAMED_REALLOC, "f:ptr=arg1" }, { NAMED_FREE, "f:size=arg1" },
		{ NAMED_POOL_DESTROY, "f:ptr=arg1" }, { NAMED_POOL_CREATE, "f:pool=arg1" },
		{ NAMED_FREE, "lib:" }, { NAMED_ALLOC, "f:size=arg1,count=arg1" },
		{ NAMED_ALLOC, "f:size=arg2,count=arg1,pool=arg1" }, { NAMED_FREE, "f:ptr=arg1,count=arg2" },
		{ NAMED_ALLOC, "f:count=arg1" },
	};
	struct named_fns n = { 0 };
	char err[160];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ASSERT_EQ(named__add(&n, bad[i].kind, bad[i].spec, err, sizeof(err)), -EINVAL,
			  "refused: %s", bad[i].spec);
		ASSERT_TRUE(err[0] != '\0', "a reason for %s", bad[i].spec);
	}
	ASSERT_EQ(n.count, 0, "none added");
	for (i = 0; i < MAX_NAMED_FNS; i++)
		ASSERT_OK(named__add(&n, NAMED_FREE, "f:ptr=arg1", err, sizeof(err)), "room");
	ASSERT_EQ(named__add(&n, NAMED_FREE, "f:ptr=arg1", err, sizeof(err)), -E2BIG, "full");
	named__free(&n);
}

TEST(named_library_matched)
{
	struct named_fn f = { .lib = "libapr-1" };

	ASSERT_TRUE(named__in_object(&f, "/usr/lib/libapr-1.so.0.7.2", ""), "its file");
	ASSERT_TRUE(named__in_object(&f, "/opt/x.so", "libapr-1.so.0"), "its SONAME");
	ASSERT_FALSE(named__in_object(&f, "/usr/lib/libapr-10.so", ""), "another library");
	f.lib = "libc";
	ASSERT_TRUE(named__in_object(&f, "/lib/libc.so.6", "libc.so.6"), "libc");
	ASSERT_FALSE(named__in_object(&f, "/lib/libcrypto.so.3", "libcrypto.so.3"), "not libcrypto");
	f.lib = "/opt/app/bin/app";
	ASSERT_TRUE(named__in_object(&f, "/opt/app/bin/app", ""), "a path: that file");
	ASSERT_FALSE(named__in_object(&f, "/usr/bin/app", ""), "not another of its name");
	f.lib = NULL;
	ASSERT_TRUE(named__in_object(&f, "/any", ""), "no library: any object");
}

static const uint64_t FRAMES[] = { 0x401000, 0x402000 };

static void same_frames(void *ctx, const uint64_t *frames, uint32_t n, uint64_t *out)
{
	(void)ctx;
	memcpy(out, frames, n * sizeof(*out));
}

static uint64_t live_bytes(struct heap *h)
{
	return heap__stats(h)->live_bytes;
}

TEST(pools_destroy_and_slabs)
{
	struct heap *h = heap__new();
	struct pools *p = pools__new(h);
	uint64_t bytes, count;

	ASSERT_OK_PTR(p, "pools__new");
	/* a slab at 0x10000 (4 KiB), blocks carved from it, the first where it starts */
	ASSERT_OK(pools__slab(p, 0x10000, 4096), "slab");
	ASSERT_OK(heap__alloc(h, 1, 0x10000, 100, 1, FN_NAMED, FRAMES, 2), "block at the slab");
	ASSERT_OK(pools__block(p, 0x10000, 100, 0xa0), "of pool a");
	ASSERT_OK(heap__alloc(h, 1, 0x10070, 50, 1, FN_NAMED, FRAMES, 2), "a second");
	ASSERT_OK(pools__block(p, 0x10070, 50, 0xb0), "of pool b");
	ASSERT_OK(pools__slab(p, 0x20000, 1024), "another slab");
	ASSERT_OK(heap__alloc(h, 1, 0x20000, 30, 1, FN_NAMED, FRAMES, 2), "one in it");
	ASSERT_OK(pools__block(p, 0x20000, 30, 0xa0), "of pool a");
	pools__own(p, &bytes, &count);
	ASSERT_EQ(bytes, 4096 + 1024 - 180, "own bytes: the slabs but their live blocks");
	ASSERT_EQ(count, 2, "own pieces");
	ASSERT_EQ(live_bytes(h), 180, "the blocks are the heap's");
	/* pool a destroyed: its two blocks, not b's */
	pools__destroy_pool(p, 1, 0xa0);
	ASSERT_EQ(live_bytes(h), 50, "pool b's block stays");
	pools__own(p, &bytes, &count);
	ASSERT_EQ(bytes, 4096 + 1024 - 50, "the destroyed blocks' bytes are the allocators' again");
	ASSERT_EQ(heap__stats(h)->unknown_frees, 0, "nothing unknown");
	/* the slab freed: the block carved from it goes */
	ASSERT_EQ(pools__free_slab(p, 1, 0x10000, 0), 1, "a slab");
	ASSERT_EQ(live_bytes(h), 0, "its block gone with it");
	pools__own(p, &bytes, &count);
	ASSERT_EQ(bytes, 1024, "the other slab left");
	ASSERT_EQ(pools__free_slab(p, 1, 0x10000, 0), 0, "not a slab any more");
	/* a named realloc reallocs the slab its block starts: the slab goes,
	 * the block stays for the realloc's own record to move */
	ASSERT_OK(pools__slab(p, 0x30000, 200), "a wrapper's slab");
	ASSERT_OK(heap__alloc(h, 1, 0x30000, 200, 1, FN_NAMED, FRAMES, 2), "its block");
	ASSERT_OK(pools__block(p, 0x30000, 200, 0), "no pool");
	ASSERT_EQ(pools__free_slab(p, 1, 0x30000, 0x30000), 1, "the slab moved");
	ASSERT_EQ(live_bytes(h), 200, "its block kept");
	ASSERT_EQ(pools__free_slab(p, 1, 0x30000, 0), 0, "the slab is gone");
	pools__destroy_pool(p, 1, 0xb0);
	ASSERT_EQ(heap__stats(h)->unknown_frees, 0, "a pool emptied already: nothing freed twice");
	pools__destroy(p);
	heap__destroy(h);
}

TEST(pools_forget_move_and_tags)
{
	struct heap *h = heap__new();
	struct pools *p = pools__new(h);
	const uint64_t tag = 1ULL << 56, mask = 0xffULL << 56;
	uint64_t bytes, count;

	ASSERT_OK_PTR(p, "pools__new");
	ASSERT_OK(heap__alloc(h, 1, 0x1000, 10, 1, FN_NAMED, FRAMES, 2), "block");
	ASSERT_OK(pools__block(p, 0x1000, 10, 0xa0), "of pool a");
	/* freed on its own, and the address given to a block of another pool */
	heap__free(h, 1, 0x1000);
	pools__forget(p, 0x1000);
	ASSERT_OK(heap__alloc(h, 1, 0x1000, 20, 1, FN_NAMED, FRAMES, 2), "again");
	ASSERT_OK(pools__block(p, 0x1000, 20, 0xb0), "of pool b");
	pools__destroy_pool(p, 1, 0xa0);
	ASSERT_EQ(live_bytes(h), 20, "pool a's destruction leaves b's block at the same address");
	/* moved by a named realloc: still pool b's */
	heap__realloc_begin(h, 1, 0x1000);
	ASSERT_OK(heap__realloc_done(h, 1, 0x1000, 0x3000, 40, 2, FN_NAMED, FRAMES, 2), "moved");
	ASSERT_OK(pools__move(p, 0x1000, 0x3000, 40), "moved in the index");
	/* a fork: the child's copy under its tag */
	ASSERT_OK(pools__slab(p, 0x8000, 8192), "slab");
	ASSERT_OK(heap__copy_tag(h, 0, tag, mask, same_frames, NULL), "heap copied");
	ASSERT_OK(pools__copy_tag(p, 0, tag, mask), "pools copied");
	pools__own(p, &bytes, &count);
	ASSERT_EQ(bytes, 16384 - 2 * 40, "each process's slab, but each one's block");
	pools__destroy_pool(p, 1, 0xb0 | tag);
	ASSERT_EQ(live_bytes(h), 40, "the child's pool destroyed, the parent's block stays");
	pools__destroy_pool(p, 1, 0xb0);
	ASSERT_EQ(live_bytes(h), 0, "and then the parent's");
	pools__drop_tag(p, tag, mask);
	pools__own(p, &bytes, &count);
	ASSERT_EQ(bytes, 8192, "the child's slab gone with it");
	/* munmap of a slab mapped by the allocator */
	pools__unmap(p, 1, 0x8000, 8192);
	pools__own(p, &bytes, &count);
	ASSERT_EQ(bytes + count, 0, "an unmapped slab goes");
	ASSERT_EQ(heap__stats(h)->unknown_frees, 0, "nothing unknown");
	pools__destroy(p);
	heap__destroy(h);
}
