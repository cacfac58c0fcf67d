// SPDX-License-Identifier: GPL-2.0
#include <errno.h>

#include "probesite.h"
#include "test.h"

/* a free's probe: its pointer in rdi */
static size_t free_shift(const uint8_t *code, size_t len)
{
	struct probe_args args = { .fixed = 1 << 1 };

	return probesite__shift(code, len, &args);
}

/* an allocator's probe that reads the first three arguments where they are */
static size_t alloc_shift(const uint8_t *code, size_t len)
{
	struct probe_args args = { .moved = 1 << 1 | 1 << 2 | 1 << 3 };

	return probesite__shift(code, len, &args);
}

/* one that must find them in their own registers (mmap's wrapper) */
static size_t fixed_shift(const uint8_t *code, size_t len)
{
	struct probe_args args = { .fixed = 1 << 1 | 1 << 2 | 1 << 3 };

	return probesite__shift(code, len, &args);
}

TEST(probesite_free_moves_past_test)
{
	/* glibc 2.36 free: test %rdi,%rdi; je ...; push %rbp */
	static const uint8_t code[] = { 0x48, 0x85, 0xff, 0x0f, 0x84, 0xaf, 0x00, 0x00, 0x00, 0x55 };
	static const uint8_t code8[] = { 0x48, 0x85, 0xff, 0x74, 0x10, 0x55 };

	ASSERT_EQ(fixed_shift(code, sizeof(code)), 3, "je rel32 after test");
	ASSERT_EQ(fixed_shift(code8, sizeof(code8)), 3, "je rel8 after test");
}

TEST(probesite_emulated_entry_stays)
{
	static const uint8_t push_r12[] = { 0x41, 0x54, 0x55, 0x53 };
	static const uint8_t push_rbp[] = { 0x55, 0x48, 0x89, 0xe5 };

	ASSERT_EQ(fixed_shift(push_r12, sizeof(push_r12)), 0, "push r12 (malloc)");
	ASSERT_EQ(fixed_shift(push_rbp, sizeof(push_rbp)), 0, "push rbp");
}

TEST(probesite_no_shift_past_writes_or_memory)
{
	/* mov %rsi,%rax; mul %rdx (reallocarray): writes registers */
	static const uint8_t mov_first[] = { 0x48, 0x89, 0xf0, 0x48, 0xf7, 0xe2, 0x55 };
	/* mov %rdi,0x10(%rsp); je: writes memory */
	static const uint8_t mov_to_mem[] = { 0x48, 0x89, 0x7c, 0x24, 0x10, 0x74, 0x05 };
	/* mov %rsi,%rdi; je: writes an argument register */
	static const uint8_t mov_to_arg[] = { 0x48, 0x89, 0xf7, 0x74, 0x05 };
	/* endbr64; test; mov (operator new): no emulated instruction reached */
	static const uint8_t endbr[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x48, 0x85, 0xff, 0xb8, 0x01, 0, 0, 0 };
	/* thirteen tests, then je: too far */
	uint8_t far[13 * 3 + 2];
	int i;

	for (i = 0; i < 13; i++)
		memcpy(far + 3 * i, (const uint8_t[]){ 0x48, 0x85, 0xff }, 3);
	far[39] = 0x74;
	far[40] = 0x10;

	ASSERT_EQ(fixed_shift(mov_first, sizeof(mov_first)), 0, "mov before push");
	ASSERT_EQ(fixed_shift(mov_to_mem, sizeof(mov_to_mem)), 0, "a store before je");
	ASSERT_EQ(fixed_shift(mov_to_arg, sizeof(mov_to_arg)), 0, "rdi written before je");
	ASSERT_EQ(fixed_shift(endbr, sizeof(endbr)), 0, "endbr64; test; mov");
	ASSERT_EQ(fixed_shift(far, sizeof(far)), 0, "thirteen tests before je");
	ASSERT_EQ(fixed_shift(far + 3, sizeof(far) - 3), 36, "twelve");
	ASSERT_EQ(fixed_shift(far, 2), 0, "truncated code");
}

TEST(probesite_return_probe_past_one_compare)
{
	/* glibc 2.36 posix_memalign: cmpb $0,0x140201(%rip); push %r12 */
	static const uint8_t posix_memalign[] = { 0x80, 0x3d, 0x01, 0x02, 0x14, 0x00, 0x00, 0x41, 0x54 };
	/* memalign: cmpb $0,...(%rip); je rel8 */
	static const uint8_t memalign[] = { 0x80, 0x3d, 0x71, 0x0e, 0x14, 0x00, 0x00, 0x74, 0x07 };
	/* reallocarray: mov %rsi,%rax; mul %rdx: a write, and mul is single-stepped */
	static const uint8_t reallocarray[] = { 0x48, 0x89, 0xf0, 0x48, 0xf7, 0xe2, 0x55 };
	/* malloc: push %r12 first: already emulated */
	static const uint8_t malloc_code[] = { 0x41, 0x54, 0x55, 0x53 };
	/* cmpb; mov: the next one is single-stepped anyway */
	static const uint8_t cmp_mov[] = { 0x80, 0x3d, 0x01, 0x02, 0x14, 0x00, 0x00, 0x48, 0x89, 0xf0 };
	/* sub $8,%rsp; push: moves rsp, the return address is no longer on top */
	static const uint8_t sub_rsp[] = { 0x48, 0x83, 0xec, 0x08, 0x55 };

	ASSERT_EQ(alloc_shift(posix_memalign, sizeof(posix_memalign)), 7, "cmpb; push");
	ASSERT_EQ(alloc_shift(memalign, sizeof(memalign)), 7, "cmpb; je");
	ASSERT_EQ(alloc_shift(reallocarray, sizeof(reallocarray)), 0, "mov; mul");
	ASSERT_EQ(alloc_shift(malloc_code, sizeof(malloc_code)), 0, "push first");
	ASSERT_EQ(alloc_shift(cmp_mov, sizeof(cmp_mov)), 0, "cmpb; mov");
	ASSERT_EQ(alloc_shift(sub_rsp, sizeof(sub_rsp)), 0, "sub rsp; push");
	ASSERT_EQ(alloc_shift(posix_memalign, 7), 0, "truncated code");
}

TEST(probesite_past_plain_instructions)
{
	/* tcmalloc free: mov 0x1c4199(%rip),%rax; test %rax,%rax; jne */
	static const uint8_t tc_free[] = { 0x48, 0x8b, 0x05, 0x99, 0x41, 0x1c, 0x00, 0x48, 0x85, 0xc0,
					   0x0f, 0x85, 0x90, 0x00, 0x00, 0x00 };
	/* mimalloc free: mov %rdi,%rcx; test %rdi,%rdi; je (rcx is no argument the probe reads) */
	static const uint8_t mi_free[] = { 0x48, 0x89, 0xf9, 0x48, 0x85, 0xff, 0x74, 0x5d };
	/* jemalloc malloc: cmp $0x1000,%rdi; ja */
	static const uint8_t je_malloc[] = { 0x48, 0x81, 0xff, 0x00, 0x10, 0x00, 0x00, 0x77, 0x7a };
	/* jemalloc free: mov %rdi,%rax; mov 0xa530e(%rip),%rdx: rdx written */
	static const uint8_t je_free[] = { 0x48, 0x89, 0xf8, 0x48, 0x8b, 0x15, 0x0e, 0x53, 0x0a, 0x00,
					   0x74, 0x05 };
	/* cmpb $0,0x140201(%rip); je: a memory read is fine, it runs in place */
	static const uint8_t cmp_mem[] = { 0x80, 0x3d, 0x01, 0x02, 0x14, 0x00, 0x00, 0x74, 0x05 };

	ASSERT_EQ(fixed_shift(tc_free, sizeof(tc_free)), 10, "tcmalloc free");
	ASSERT_EQ(fixed_shift(mi_free, sizeof(mi_free)), 6, "mimalloc free");
	ASSERT_EQ(alloc_shift(je_malloc, sizeof(je_malloc)), 7, "jemalloc malloc");
	ASSERT_EQ(fixed_shift(je_free, sizeof(je_free)), 0, "jemalloc free");
	ASSERT_EQ(fixed_shift(cmp_mem, sizeof(cmp_mem)), 7, "memory cmp before je");
}

/* Debian 12's libjemalloc.so.2 free: its thread cache looked up in 9 plain
 * instructions (shr, an %fs read among them), then jne */
static const uint8_t je_free_fast[] = {
	0x48, 0x89, 0xf8, 0x48, 0x8b, 0x15, 0x0e, 0x53, 0x0a, 0x00, 0x48, 0x89, 0xf9, 0x48,
	0xc1, 0xe8, 0x1a, 0x48, 0x81, 0xe1, 0x00, 0x00, 0x00, 0xc0, 0x25, 0xf0, 0x00, 0x00,
	0x00, 0x64, 0x48, 0x03, 0x04, 0x25, 0x00, 0x00, 0x00, 0x00, 0x48, 0x01, 0xd0, 0x48,
	0x3b, 0x88, 0xb0, 0x01, 0x00, 0x00, 0x0f, 0x85, 0x8a, 0x00, 0x00, 0x00,
};

TEST(probesite_free_past_its_cache_lookup)
{
	uint8_t code[sizeof(je_free_fast) + 8];
	/* glibc 2.36 free: test %rdi,%rdi; je */
	static const uint8_t glibc_free[] = { 0x48, 0x85, 0xff, 0x74, 0x10, 0x55 };

	ASSERT_EQ(free_shift(je_free_fast, sizeof(je_free_fast)), 48,
		  "jemalloc free: at its jne");
	ASSERT_EQ(fixed_shift(je_free_fast, sizeof(je_free_fast)), 0,
		  "not for a probe that reads rdx");
	ASSERT_EQ(free_shift(glibc_free, sizeof(glibc_free)), 3, "glibc free");

	/* a jump back into the lookup, later in the function: no shift */
	memcpy(code, je_free_fast, sizeof(je_free_fast));
	code[sizeof(je_free_fast)] = 0xeb;	/* jmp rel8 to offset 13 (the shr) */
	code[sizeof(je_free_fast) + 1] = (uint8_t)(13 - (int)(sizeof(je_free_fast) + 2));
	memset(code + sizeof(je_free_fast) + 2, 0x90, 6);
	ASSERT_EQ(free_shift(code, sizeof(code)), 0, "a jump lands in the lookup");
	/* to the jne itself: the probe would be there */
	code[sizeof(je_free_fast) + 1] = (uint8_t)(48 - (int)(sizeof(je_free_fast) + 2));
	ASSERT_EQ(free_shift(code, sizeof(code)), 0, "a jump lands on the probe");
	/* to the entry: that is a call's path as well */
	code[sizeof(je_free_fast) + 1] = (uint8_t)(0 - (int)(sizeof(je_free_fast) + 2));
	ASSERT_EQ(free_shift(code, sizeof(code)), 48, "a jump to the entry");

	/* rdi written on the way: no shift */
	memcpy(code, je_free_fast, sizeof(je_free_fast));
	code[2] = 0xc7;		/* mov %rax,%rdi for mov %rdi,%rax */
	ASSERT_EQ(free_shift(code, sizeof(je_free_fast)), 0, "rdi written");
}

/* Debian 12's libmimalloc.so.2.0: malloc, calloc and realloc read the
 * thread's heap into rdi first, having moved their arguments aside */
static const uint8_t mi_malloc[] = {
	0x48, 0x8b, 0x05, 0x49, 0xb4, 0x00, 0x00,	/* mov 0xb449(%rip),%rax */
	0x48, 0x89, 0xfe,				/* mov %rdi,%rsi */
	0x64, 0x48, 0x8b, 0x38,				/* mov %fs:(%rax),%rdi */
	0x48, 0x81, 0xfe, 0x00, 0x04, 0x00, 0x00,	/* cmp $0x400,%rsi */
	0x77, 0x29,					/* ja */
};
static const uint8_t mi_calloc[] = {
	0x48, 0x8b, 0x15, 0xc9, 0xad, 0x00, 0x00,	/* mov 0xadc9(%rip),%rdx */
	0x48, 0x89, 0xf8,				/* mov %rdi,%rax */
	0x64, 0x48, 0x8b, 0x3a,				/* mov %fs:(%rdx),%rdi */
	0x48, 0x83, 0xf8, 0x01,				/* cmp $0x1,%rax */
	0x74, 0x08,					/* je */
};
static const uint8_t mi_realloc[] = {
	0x48, 0x8b, 0x05, 0x49, 0xa9, 0x00, 0x00,	/* mov 0xa949(%rip),%rax */
	0x48, 0x89, 0xf2,				/* mov %rsi,%rdx */
	0x48, 0x89, 0xfe,				/* mov %rdi,%rsi */
	0x64, 0x48, 0x8b, 0x00,				/* mov %fs:(%rax),%rax */
	0x48, 0x89, 0xc7,				/* mov %rax,%rdi */
	0xe9, 0xf7, 0x4e, 0xff, 0xff,			/* jmp mi_heap_realloc */
};

TEST(probesite_arguments_followed_where_they_move)
{
	struct probe_args args = { .moved = 1 << 1 };
	uint8_t code[sizeof(mi_malloc)];

	ASSERT_EQ(probesite__shift(mi_malloc, sizeof(mi_malloc), &args), 21, "malloc at its ja");
	ASSERT_EQ(args.at[1], 2, "malloc's size in rsi");
	args = (struct probe_args){ .moved = 1 << 1 | 1 << 2 };
	ASSERT_EQ(probesite__shift(mi_calloc, sizeof(mi_calloc), &args), 18, "calloc at its je");
	ASSERT_EQ(args.at[1], PROBE_REG_RAX, "calloc's count in rax");
	ASSERT_EQ(args.at[2], 2, "calloc's size where it was");
	args = (struct probe_args){ .moved = 1 << 1 | 1 << 2 };
	ASSERT_EQ(probesite__shift(mi_realloc, sizeof(mi_realloc), &args), 20, "realloc at its jmp");
	ASSERT_EQ(args.at[1], 2, "realloc's pointer in rsi");
	ASSERT_EQ(args.at[2], 3, "realloc's size in rdx");

	/* read where the caller put it: the move loses it */
	args = (struct probe_args){ .fixed = 1 << 1 };
	ASSERT_EQ(probesite__shift(mi_malloc, sizeof(mi_malloc), &args), 0, "malloc, size fixed");
	/* the move overwrites rsi: a probe that reads argument 2 stays */
	args = (struct probe_args){ .moved = 1 << 1 | 1 << 2 };
	ASSERT_EQ(probesite__shift(mi_malloc, sizeof(mi_malloc), &args), 0, "argument 2 lost");

	/* a 32-bit copy is no copy of a size: mov %edi,%esi */
	memcpy(code, mi_malloc, sizeof(code));
	code[7] = 0x40;	/* a REX prefix without W */
	code[8] = 0x89;
	code[9] = 0xfe;
	args = (struct probe_args){ .moved = 1 << 1 };
	ASSERT_EQ(probesite__shift(code, sizeof(code), &args), 0, "a 32-bit copy");
	/* nor is a copy overwritten before the probe */
	static const uint8_t overwritten[] = {
		0x48, 0x89, 0xfe,	/* mov %rdi,%rsi */
		0x48, 0x89, 0xc6,	/* mov %rax,%rsi */
		0x48, 0x89, 0xc7,	/* mov %rax,%rdi */
		0x77, 0x29,		/* ja */
	};
	args = (struct probe_args){ .moved = 1 << 1 };
	ASSERT_EQ(probesite__shift(overwritten, sizeof(overwritten), &args), 0,
		  "its copy overwritten");
}

/* CPython's PyObject_Malloc as three builds ship it */
TEST(probesite_dispatch_slot_of_pymalloc)
{
	/* pyenv's 3.11 libpython.so: jmp *_PyObject+8(%rip) */
	static const uint8_t py311[] = {
		0x48, 0x89, 0xfe,			/* mov %rdi,%rsi */
		0x48, 0x85, 0xff,			/* test %rdi,%rdi */
		0x78, 0x10,				/* js */
		0x48, 0x8b, 0x3d, 0x71, 0xd0, 0x2a, 0x00, /* mov 0x2ad071(%rip),%rdi */
		0xff, 0x25, 0x73, 0xd0, 0x2a, 0x00,	/* jmp *0x2ad073(%rip) */
		0x0f, 0x1f, 0x00,
	};
	/* pyenv's 3.12: _PyRuntime's address from the GOT, then jmp *0xb8(%rax) */
	static const uint8_t py312[] = {
		0x48, 0x89, 0xfe,
		0x48, 0x85, 0xff,
		0x78, 0x18,
		0x48, 0x8b, 0x05, 0xc1, 0x48, 0x37, 0x00, /* mov 0x3748c1(%rip),%rax */
		0x48, 0x8b, 0xb8, 0xb0, 0x00, 0x00, 0x00, /* mov 0xb0(%rax),%rdi */
		0xff, 0xa0, 0xb8, 0x00, 0x00, 0x00,	/* jmp *0xb8(%rax) */
	};
	/* Debian's /usr/bin/python3.11 (LTO, PGO): the guessed allocator inlined */
	static const uint8_t debian[] = {
		0x53,					/* push %rbx */
		0x48, 0x85, 0xff,
		0x0f, 0x88, 0x65, 0xad, 0xf2, 0xff,	/* js */
		0x48, 0x8b, 0x05, 0xe7, 0xeb, 0x45, 0x00, /* mov 0x45ebe7(%rip),%rax */
		0x48, 0x89, 0xfb,			/* mov %rdi,%rbx */
		0x48, 0x8b, 0x3d, 0xd5, 0xeb, 0x45, 0x00, /* mov 0x45ebd5(%rip),%rdi */
		0x48, 0x3d, 0x50, 0xb4, 0x4f, 0x00,	/* cmp $0x4fb450,%rax */
		0x0f, 0x85, 0xc3, 0x00, 0x00, 0x00,	/* jne */
		0xff, 0xe0,				/* jmp *%rax */
	};
	uint64_t slot = 0;

	ASSERT_EQ(probesite__dispatch_slot(py311, sizeof(py311), 0x1af1e0, &slot), 1,
		  "3.11: a jump through a pointer");
	ASSERT_EQ(slot, 0x45c268, "3.11: the pointer at _PyObject+8");
	ASSERT_EQ(probesite__dispatch_slot(py312, sizeof(py312), 0x1cf430, &slot), 0,
		  "3.12: a jump through a register");
	ASSERT_EQ(probesite__dispatch_slot(debian, sizeof(debian), 0x4fb350, &slot), -ENOENT,
		  "a compare first: inlined");
	/* a function that returns before any jump */
	ASSERT_EQ(probesite__dispatch_slot(py311 + 22, 2, 0, &slot), -ENOENT, "no jump");
}
