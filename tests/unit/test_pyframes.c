// SPDX-License-Identifier: GPL-2.0
#include <stdint.h>
#include <string.h>

#include "pyframes.h"
#include "test.h"

/*
 * The location tables CPython 3.11.7 and 3.12.1 make of
 *
 *	1 def f(a):
 *	2     x = a + 1
 *	3     if x:
 *	4         y = [x,
 *	5              x]
 *	6
 *	7     return y
 *
 * and the line of each code unit, as co_positions() gives them.
 */
static const uint8_t table311[] = {
	0x80, 0x00, 0xd8, 0x08, 0x09, 0x88, 0x41, 0x89, 0x05, 0x80, 0x41, 0xd8, 0x07,
	0x08, 0xf0, 0x00, 0x02, 0x05, 0x10, 0xd8, 0x0d, 0x0e, 0xd8, 0x0d, 0x0e, 0xf0,
	0x03, 0x01, 0x0d, 0x10, 0x88, 0x01, 0xf0, 0x06, 0x00, 0x0c, 0x0d, 0x80, 0x48,
};
static const uint8_t table312[] = {
	0x80, 0x00, 0xd8, 0x08, 0x09, 0x88, 0x41, 0x89, 0x05, 0x80, 0x41, 0xd9, 0x07,
	0x08, 0xd8, 0x0d, 0x0e, 0xd8, 0x0d, 0x0e, 0xf0, 0x03, 0x01, 0x0d, 0x10, 0x88,
	0x01, 0xf0, 0x06, 0x00, 0x0c, 0x0d, 0x80, 0x48,
};
static const int lines[] = { 1, 2, 2, 2, 2, 2, 3, 3, 4, 5, 4, 4, 7, 7 };

TEST(pyframes_line_from_location_table)
{
	uint32_t i;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		ASSERT_EQ(pyframes__line(table311, sizeof(table311), 1, i), lines[i], "3.11 line");
		ASSERT_EQ(pyframes__line(table312, sizeof(table312), 1, i), lines[i], "3.12 line");
	}
	/* the same code defined further down the file */
	ASSERT_EQ(pyframes__line(table312, sizeof(table312), 40, 9), 44, "firstlineno 40, x]");
	/* past the table: no line */
	ASSERT_EQ(pyframes__line(table312, sizeof(table312), 1, 14), -1, "past the last unit");
	ASSERT_EQ(pyframes__line(table312, sizeof(table312), 1, 100000), -1, "far past");
}

TEST(pyframes_line_of_damaged_table)
{
	uint8_t t[sizeof(table312)];
	size_t cut;

	/* an entry that does not start with its marker bit */
	memcpy(t, table312, sizeof(t));
	t[2] &= 0x7f;
	ASSERT_EQ(pyframes__line(t, sizeof(t), 1, 1), -1, "no entry at byte 2");
	ASSERT_EQ(pyframes__line(t, sizeof(t), 1, 0), 1, "the entry before it stands");
	/* cut anywhere: a line or none, never a read past the end (the
	 * sanitized build runs this) */
	for (cut = 0; cut < sizeof(table312); cut++) {
		int line = pyframes__line(table312, cut, 1, 13);

		ASSERT_TRUE(line == -1 || line == 7, "a cut table: its line or none");
	}
	ASSERT_EQ(pyframes__line(table312, 0, 1, 0), -1, "an empty table");
}
