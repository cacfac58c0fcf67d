// SPDX-License-Identifier: GPL-2.0
#include "probesite.h"
#include "test.h"

TEST(probesite_free_moves_past_test)
{
	/* glibc 2.36 free: test %rdi,%rdi; je ...; push %rbp */
	static const uint8_t code[] = { 0x48, 0x85, 0xff, 0x0f, 0x84, 0xaf, 0x00, 0x00, 0x00, 0x55 };
	static const uint8_t code8[] = { 0x48, 0x85, 0xff, 0x74, 0x10, 0x55 };

	ASSERT_EQ(probesite__entry_shift(code, sizeof(code)), 3, "je rel32 after test");
	ASSERT_EQ(probesite__entry_shift(code8, sizeof(code8)), 3, "je rel8 after test");
}

TEST(probesite_emulated_entry_stays)
{
	static const uint8_t push_r12[] = { 0x41, 0x54, 0x55, 0x53 };
	static const uint8_t push_rbp[] = { 0x55, 0x48, 0x89, 0xe5 };

	ASSERT_EQ(probesite__entry_shift(push_r12, sizeof(push_r12)), 0, "push r12 (malloc)");
	ASSERT_EQ(probesite__entry_shift(push_rbp, sizeof(push_rbp)), 0, "push rbp");
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
	/* test; test; test; test; je: too far */
	static const uint8_t far[] = { 0x48, 0x85, 0xff, 0x48, 0x85, 0xff, 0x48, 0x85, 0xff,
				       0x48, 0x85, 0xff, 0x74, 0x10 };

	ASSERT_EQ(probesite__entry_shift(mov_first, sizeof(mov_first)), 0, "mov before push");
	ASSERT_EQ(probesite__entry_shift(mov_to_mem, sizeof(mov_to_mem)), 0, "a store before je");
	ASSERT_EQ(probesite__entry_shift(mov_to_arg, sizeof(mov_to_arg)), 0, "rdi written before je");
	ASSERT_EQ(probesite__entry_shift(endbr, sizeof(endbr)), 0, "endbr64; test; mov");
	ASSERT_EQ(probesite__entry_shift(far, sizeof(far)), 0, "four tests before je");
	ASSERT_EQ(probesite__entry_shift(far, 2), 0, "truncated code");
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

	ASSERT_EQ(probesite__return_shift(posix_memalign, sizeof(posix_memalign)), 7, "cmpb; push");
	ASSERT_EQ(probesite__return_shift(memalign, sizeof(memalign)), 7, "cmpb; je");
	ASSERT_EQ(probesite__return_shift(reallocarray, sizeof(reallocarray)), 0, "mov; mul");
	ASSERT_EQ(probesite__return_shift(malloc_code, sizeof(malloc_code)), 0, "push first");
	ASSERT_EQ(probesite__return_shift(cmp_mov, sizeof(cmp_mov)), 0, "cmpb; mov");
	ASSERT_EQ(probesite__return_shift(sub_rsp, sizeof(sub_rsp)), 0, "sub rsp; push");
	ASSERT_EQ(probesite__return_shift(posix_memalign, 7), 0, "truncated code");
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

	ASSERT_EQ(probesite__entry_shift(tc_free, sizeof(tc_free)), 10, "tcmalloc free");
	ASSERT_EQ(probesite__entry_shift(mi_free, sizeof(mi_free)), 6, "mimalloc free");
	ASSERT_EQ(probesite__return_shift(je_malloc, sizeof(je_malloc)), 7, "jemalloc malloc");
	ASSERT_EQ(probesite__entry_shift(je_free, sizeof(je_free)), 0, "jemalloc free");
	ASSERT_EQ(probesite__entry_shift(cmp_mem, sizeof(cmp_mem)), 7, "memory cmp before je");
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

	ASSERT_EQ(probesite__free_shift(je_free_fast, sizeof(je_free_fast)), 48,
		  "jemalloc free: at its jne");
	ASSERT_EQ(probesite__entry_shift(je_free_fast, sizeof(je_free_fast)), 0,
		  "not for a probe that reads rdx");
	ASSERT_EQ(probesite__free_shift(glibc_free, sizeof(glibc_free)), 3, "glibc free");

	/* a jump back into the lookup, later in the function: no shift */
	memcpy(code, je_free_fast, sizeof(je_free_fast));
	code[sizeof(je_free_fast)] = 0xeb;	/* jmp rel8 to offset 13 (the shr) */
	code[sizeof(je_free_fast) + 1] = (uint8_t)(13 - (int)(sizeof(je_free_fast) + 2));
	memset(code + sizeof(je_free_fast) + 2, 0x90, 6);
	ASSERT_EQ(probesite__free_shift(code, sizeof(code)), 0, "a jump lands in the lookup");
	/* to the jne itself: the probe would be there */
	code[sizeof(je_free_fast) + 1] = (uint8_t)(48 - (int)(sizeof(je_free_fast) + 2));
	ASSERT_EQ(probesite__free_shift(code, sizeof(code)), 0, "a jump lands on the probe");
	/* to the entry: that is a call's path as well */
	code[sizeof(je_free_fast) + 1] = (uint8_t)(0 - (int)(sizeof(je_free_fast) + 2));
	ASSERT_EQ(probesite__free_shift(code, sizeof(code)), 48, "a jump to the entry");

	/* rdi written on the way: no shift */
	memcpy(code, je_free_fast, sizeof(je_free_fast));
	code[2] = 0xc7;		/* mov %rax,%rdi for mov %rdi,%rax */
	ASSERT_EQ(probesite__free_shift(code, sizeof(je_free_fast)), 0, "rdi written");
}
