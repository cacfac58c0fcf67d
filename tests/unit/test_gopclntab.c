// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elffacts.h"
#include "gopclntab.h"
#include "test.h"

/* a table of two functions, main.a at 0x401100 and main.b at 0x401200, the
 * end at 0x401300, in the layout of magic */
static size_t make_table(uint8_t *t, uint32_t magic)
{
	static const char names[] = "main.a\0main.b";
	uint64_t w[8] = { 2, 0 };
	size_t at;

	memset(t, 0, 512);
	memcpy(t, &magic, 4);
	t[6] = 1;
	t[7] = 8;
	if (magic == 0xfffffff0U || magic == 0xfffffff1U) {
		uint32_t ft[6] = { 0x100, 24, 0x200, 32, 0x300, 0 };
		uint32_t f0[2] = { 0x100, 0 }, f1[2] = { 0x200, 7 };

		/* nfunc, nfiles, textStart, names, cu, files, pc, functab */
		w[2] = 0x401000;
		w[3] = 72;
		w[7] = 88;
		memcpy(t + 8, w, sizeof(w));
		memcpy(t + 72, names, sizeof(names));
		memcpy(t + 88, ft, sizeof(ft));
		memcpy(t + 88 + 24, f0, sizeof(f0));
		memcpy(t + 88 + 32, f1, sizeof(f1));
		return 88 + 40;
	}
	if (magic == 0xfffffffaU) {
		uint64_t ft[6] = { 0x401100, 48, 0x401200, 64, 0x401300, 0 };
		uint64_t f0[2] = { 0x401100, 0 }, f1[2] = { 0x401200, 7 };

		/* nfunc, nfiles, names, cu, files, pc, functab */
		w[2] = 64;
		w[6] = 80;
		memcpy(t + 8, w, 7 * 8);
		memcpy(t + 64, names, sizeof(names));
		memcpy(t + 80, ft, sizeof(ft));
		memcpy(t + 80 + 48, f0, sizeof(f0));
		memcpy(t + 80 + 64, f1, sizeof(f1));
		return 80 + 80;
	}
	/* Go 1.2: the function table right after nfunc, offsets from the start */
	{
		uint64_t ft[6] = { 0x401100, 64, 0x401200, 80, 0x401300, 0 };
		uint64_t f0[2] = { 0x401100, 96 }, f1[2] = { 0x401200, 103 };

		memcpy(t + 8, w, 8);
		memcpy(t + 16, ft, sizeof(ft));
		memcpy(t + 64, f0, sizeof(f0));
		memcpy(t + 80, f1, sizeof(f1));
		at = 96;
		memcpy(t + at, names, sizeof(names));
		return at + sizeof(names);
	}
}

TEST(gopclntab_names_in_each_layout)
{
	static const uint32_t magics[] = { 0xfffffffbU, 0xfffffffaU, 0xfffffff0U, 0xfffffff1U };
	struct gopclntab *g;
	struct symtab_hit hit;
	uint8_t t[512];
	size_t i, len;

	for (i = 0; i < sizeof(magics) / sizeof(magics[0]); i++) {
		len = make_table(t, magics[i]);
		ASSERT_EQ(gopclntab__parse(t, len, 0, &g), 0, "a table parses");
		if (!g)
			continue;
		ASSERT_EQ((long)gopclntab__count(g), 2, "two functions");
		ASSERT_EQ(gopclntab__find(g, 0x401150, &hit), 0, "an address in main.a");
		ASSERT_STREQ(hit.name, "main.a", "its name");
		ASSERT_EQ(hit.value, 0x401100, "its entry");
		ASSERT_EQ(hit.size, 0x100, "its size, to the next entry");
		ASSERT_EQ(gopclntab__find(g, 0x4012ff, &hit), 0, "main.b's last byte");
		ASSERT_STREQ(hit.name, "main.b", "main.b");
		ASSERT_EQ(gopclntab__find(g, 0x401300, &hit), -ENOENT, "the end: no function");
		ASSERT_EQ(gopclntab__find(g, 0x4010ff, &hit), -ENOENT, "before the first");
		gopclntab__destroy(g);
	}
}

TEST(gopclntab_damaged_tables)
{
	struct gopclntab *g;
	struct symtab_hit hit;
	uint8_t t[512];
	size_t len, cut;

	len = make_table(t, 0xfffffff1U);
	t[7] = 4;	/* 32-bit pointers: not a table of ours */
	ASSERT_EQ(gopclntab__parse(t, len, 0, &g), -EINVAL, "4-byte pointers");
	len = make_table(t, 0x12345678U);
	ASSERT_EQ(gopclntab__parse(t, len, 0, &g), -EINVAL, "an unknown magic");
	/* a name's offset out of the table: that function has none */
	len = make_table(t, 0xfffffff1U);
	memcpy(t + 88 + 32 + 4, &(uint32_t){ 0x7fffffff }, 4);
	ASSERT_EQ(gopclntab__parse(t, len, 0, &g), 0, "one name damaged");
	if (g) {
		ASSERT_EQ(gopclntab__find(g, 0x401150, &hit), 0, "main.a stands");
		ASSERT_EQ(gopclntab__find(g, 0x401250, &hit), 0, "main.b's range");
		ASSERT_STREQ(hit.name, "main.a", "named by the function before it, as a symbol table would");
		gopclntab__destroy(g);
	}
	/* the text's start from outside, where the table holds 0 */
	len = make_table(t, 0xfffffff1U);
	memset(t + 24, 0, 8);
	ASSERT_EQ(gopclntab__parse(t, len, 0x500000, &g), 0, "textStart 0");
	if (g) {
		ASSERT_EQ(gopclntab__find(g, 0x500150, &hit), 0, "relative to .text");
		gopclntab__destroy(g);
	}
	/* cut anywhere: an error or a table, never a read past the end (the
	 * sanitized build runs this) */
	len = make_table(t, 0xfffffff1U);
	for (cut = 0; cut < len; cut++) {
		uint8_t *copy = malloc(cut ? cut : 1);

		memcpy(copy, t, cut);
		if (!gopclntab__parse(copy, cut, 0, &g)) {
			gopclntab__find(g, 0x401150, &hit);
			gopclntab__destroy(g);
		}
		free(copy);
	}
}

/* the Go that built a program, from .go.buildinfo: Go 1.17's register ABI
 * (runtime.mallocgc's size in rax) or not */
TEST(go_version_from_buildinfo)
{
	uint8_t info[64] = "\xff Go buildinf:";

	info[14] = 8;
	info[15] = 2;	/* Go 1.18 on: the version inline */
	info[32] = 8;
	memcpy(info + 33, "go1.19.8", 8);
	ASSERT_EQ(elffacts__go_minor(info, sizeof(info), NULL), 19, "go1.19.8");
	info[32] = 6;
	memcpy(info + 33, "go1.21", 6);
	ASSERT_EQ(elffacts__go_minor(info, sizeof(info), NULL), 21, "go1.21, no patch");
	info[32] = 60;	/* longer than what is there */
	ASSERT_EQ(elffacts__go_minor(info, sizeof(info), NULL), 0, "a length past the end");
	info[32] = 6;
	memcpy(info + 33, "devel ", 6);
	ASSERT_EQ(elffacts__go_minor(info, sizeof(info), NULL), 0, "no go1.x");
	info[15] = 0;	/* before 1.18: a pointer, nothing to read it in */
	ASSERT_EQ(elffacts__go_minor(info, sizeof(info), NULL), 0, "the older layout, no file");
	info[0] = 0;
	ASSERT_EQ(elffacts__go_minor(info, sizeof(info), NULL), 0, "no magic");
}
