// SPDX-License-Identifier: GPL-2.0
/* the traced functions as data (see allocfns.h) */
#include <stddef.h>
#include <stdio.h>

#include "allocfns.h"

/* mmap's four arguments, mremap's and mprotect's three, munmap's two */
#define MAP_ARGS (1 << 1 | 1 << 2 | 1 << 3 | 1 << 4)
#define ALLOC(n, size, ...) { .name = n, .kind = CALL_ALLOC, .size_arg = size, __VA_ARGS__ }

static const struct alloc_fn_info fns[FN__COUNT] = {
	[FN_MALLOC] = ALLOC("malloc", 1),
	[FN_CALLOC] = ALLOC("calloc", 2, .count_arg = 1),
	[FN_REALLOC] = ALLOC("realloc", 2, .ptr_arg = 1, .moves = true),
	[FN_REALLOCARRAY] = ALLOC("reallocarray", 3, .count_arg = 2, .ptr_arg = 1, .moves = true),
	[FN_POSIX_MEMALIGN] = ALLOC("posix_memalign", 3, .ptr_arg = 1, .ret = RET_AT_PTR),
	[FN_ALIGNED_ALLOC] = ALLOC("aligned_alloc", 2),
	[FN_MEMALIGN] = ALLOC("memalign", 2),
	[FN_VALLOC] = ALLOC("valloc", 1),
	[FN_PVALLOC] = ALLOC("pvalloc", 1),
	[FN_NEW] = ALLOC("operator new", 1),
	[FN_NEW_ARRAY] = ALLOC("operator new[]", 1),
	[FN_NEW_ALIGNED] = ALLOC("operator new(align_val_t)", 1),
	[FN_NEW_ARRAY_ALIGNED] = ALLOC("operator new[](align_val_t)", 1),
	/* jemalloc: mallocx(size, flags), rallocx(ptr, size, flags); xallocx(ptr,
	 * size, extra, flags) resizes in place and returns the size it has now */
	[FN_MALLOCX] = ALLOC("mallocx", 1),
	[FN_RALLOCX] = ALLOC("rallocx", 2, .ptr_arg = 1, .moves = true),
	[FN_XALLOCX] = ALLOC("xallocx", 2, .ptr_arg = 1, .ret = RET_SIZE, .moves = true),
	/* mimalloc */
	[FN_MI_ZALLOC] = ALLOC("mi_zalloc", 1),
	[FN_MI_MALLOC_ALIGNED] = ALLOC("mi_malloc_aligned", 1),
	[FN_MI_ZALLOC_ALIGNED] = ALLOC("mi_zalloc_aligned", 1),
	[FN_MI_CALLOC_ALIGNED] = ALLOC("mi_calloc_aligned", 2, .count_arg = 1),
	[FN_MI_REALLOC_ALIGNED] = ALLOC("mi_realloc_aligned", 2, .ptr_arg = 1, .moves = true),
	/* CPython's pymalloc: malloc(size), calloc(nelem, elsize), realloc(ptr, size) */
	[FN_PY_MALLOC] = ALLOC("PyObject_Malloc", 1),
	[FN_PY_CALLOC] = ALLOC("PyObject_Calloc", 2, .count_arg = 1),
	[FN_PY_REALLOC] = ALLOC("PyObject_Realloc", 2, .ptr_arg = 1, .moves = true),
	[FN_PYMEM_MALLOC] = ALLOC("PyMem_Malloc", 1),
	[FN_PYMEM_CALLOC] = ALLOC("PyMem_Calloc", 2, .count_arg = 1),
	[FN_PYMEM_REALLOC] = ALLOC("PyMem_Realloc", 2, .ptr_arg = 1, .moves = true),
	[FN_PYMALLOC_MALLOC] = ALLOC("_PyObject_Malloc", 2, .inner = true),
	[FN_PYMALLOC_CALLOC] = ALLOC("_PyObject_Calloc", 3, .count_arg = 2, .inner = true),
	[FN_GO_MALLOC] = ALLOC("runtime.mallocgc", 7, .entry_only = true, .no_block = true),
	[FN_PYMALLOC_REALLOC] = ALLOC("_PyObject_Realloc", 3, .ptr_arg = 2, .moves = true, .inner = true),
	/* the BPF side reads these calls' arguments itself (enter_map) */
	[FN_MMAP] = { .name = "mmap", .kind = CALL_MAP, .own_args = MAP_ARGS },
	[FN_MREMAP] = { .name = "mremap", .kind = CALL_MAP, .own_args = MAP_ARGS },
	[FN_MPROTECT] = { .name = "mprotect", .kind = CALL_MAP, .own_args = MAP_ARGS },
	[FN_MUNMAP] = { .kind = CALL_MAP, .entry_only = true, .own_args = MAP_ARGS },
	/* and a free's pointer (enter_free) */
	[FN_FREE] = { .kind = CALL_FREE, .entry_only = true, .own_args = 1 << 1 },
	/* another family's free, which may call another probed free */
	[FN_FREE_NESTED] = { .kind = CALL_FREE, .entry_only = true, .own_args = 1 << 1 },
	[FN_PY_FREE] = { .kind = CALL_FREE, .entry_only = true, .own_args = 1 << 2, .inner = true },
	[FN_THREAD_EXIT] = { .kind = CALL_HOOK, .entry_only = true },
	[FN_MAPS_CHANGE] = { .kind = CALL_HOOK, .entry_only = true },
	[FN_EXIT] = { .kind = CALL_HOOK, .entry_only = true },
	/* the program's own: their cookies come from named.c */
	[FN_NAMED] = { .kind = CALL_ALLOC },
	[FN_NAMED_FREE] = { .kind = CALL_FREE, .entry_only = true },
	[FN_POOL_DESTROY] = { .kind = CALL_FREE, .entry_only = true },
	[FN_POOL_CREATE] = { .kind = CALL_ALLOC },
};

/* the names of the program's own allocators, by their index */
static const char *named_names[MAX_NAMED_FNS];

void allocfns__set_named_name(unsigned int index, const char *name)
{
	if (index < MAX_NAMED_FNS)
		named_names[index] = name;
}

const struct alloc_fn_info *allocfns__info(uint32_t fn)
{
	/* the bits above are the daemon's own (a live block's flags) */
	fn &= 0xffff;
	if ((fn & 0xff) == FN_NAMED)
		fn = FN_NAMED;
	return fn > FN_NONE && fn < FN__COUNT ? &fns[fn] : NULL;
}

uint64_t allocfns__cookie(uint32_t fn)
{
	const struct alloc_fn_info *f = allocfns__info(fn);

	if (!f || f->kind != CALL_ALLOC)
		return fn;
	return MAKE_COOKIE((uint64_t)fn, f->size_arg, f->count_arg, f->ptr_arg, f->ret, f->moves);
}

/* the cookie's argument fields */
static const unsigned int arg_shifts[] = { 8, 11, 14, 20 };
static const char *const arg_names[] = { "size", "count", "pointer", "pool" };

void allocfns__probe_reads(uint64_t cookie, uint8_t *own, uint8_t *moved)
{
	const struct alloc_fn_info *f = allocfns__info(COOKIE_FN(cookie));
	size_t i;

	*own = f ? f->own_args : 0;
	*moved = 0;
	if (*own)
		return;
	for (i = 0; i < sizeof(arg_shifts) / sizeof(arg_shifts[0]); i++)
		if ((cookie >> arg_shifts[i]) & 7)
			*moved |= 1u << ((cookie >> arg_shifts[i]) & 7);
}

uint64_t allocfns__cookie_at(uint64_t cookie, const uint8_t at[7])
{
	uint64_t n;
	size_t i;

	for (i = 0; i < sizeof(arg_shifts) / sizeof(arg_shifts[0]); i++) {
		n = (cookie >> arg_shifts[i]) & 7;
		if (n && n < 7 && at[n])
			cookie = (cookie & ~(7ULL << arg_shifts[i])) | (uint64_t)at[n] << arg_shifts[i];
	}
	return cookie;
}

void allocfns__describe_moves(uint64_t cookie, uint64_t at_entry, FILE *out)
{
	static const char *const regs[8] = { "", "rdi", "rsi", "rdx", "rcx", "r8", "r9", "rax" };
	size_t i;

	for (i = 0; i < sizeof(arg_shifts) / sizeof(arg_shifts[0]); i++)
		if (((cookie ^ at_entry) >> arg_shifts[i]) & 7)
			fprintf(out, ", its %s read from %s", arg_names[i],
				regs[(cookie >> arg_shifts[i]) & 7]);
}

const char *allocfns__name(uint32_t fn)
{
	const struct alloc_fn_info *f = allocfns__info(fn);

	if ((fn & 0xff) == FN_NAMED && named_names[FN_NAMED_INDEX(fn)])
		return named_names[FN_NAMED_INDEX(fn)];
	return f && f->name ? f->name : "[allocator]";
}
