// SPDX-License-Identifier: GPL-2.0
/* exits.c: the processes that exited, by command */
#include <stdio.h>
#include <string.h>

#include "exits.h"
#include "test.h"

TEST(exits_by_command)
{
	struct exits *e = exits__new();
	const struct exit_row *rows;
	struct exit_row total;
	char comm[16];
	size_t n;
	int i;

	ASSERT_OK_PTR(e, "exits__new");
	ASSERT_OK(exits__add(e, "sh", 10, 1), "sh");
	ASSERT_OK(exits__add(e, "postgres", 1000, 20), "postgres");
	ASSERT_OK(exits__add(e, "postgres", 3000, 30), "postgres again");
	rows = exits__rows(e, &n);
	ASSERT_EQ(n, 2, "two commands");
	ASSERT_STREQ(rows[0].comm, "postgres", "most held first");
	ASSERT_EQ(rows[0].processes, 2, "two exits");
	ASSERT_EQ(rows[0].bytes, 4000, "bytes added up");
	ASSERT_EQ(rows[0].blocks, 50, "blocks added up");
	ASSERT_EQ(rows[0].max_bytes, 3000, "the most one held");
	/* bounded: past the last place, the rest count as one row */
	for (i = 0; i < 2 * EXITS_MAX_COMMANDS; i++) {
		snprintf(comm, sizeof(comm), "c%d", i);
		ASSERT_OK(exits__add(e, comm, 1, 1), "%s", comm);
	}
	rows = exits__rows(e, &n);
	ASSERT_EQ(n, EXITS_MAX_COMMANDS, "rows bounded");
	exits__total(e, &total);
	ASSERT_EQ(total.processes, 3 + 2 * EXITS_MAX_COMMANDS, "every exit counted");
	ASSERT_EQ(total.bytes, 4010 + 2 * EXITS_MAX_COMMANDS, "every byte counted");
	for (i = 0; i < (int)n && strcmp(rows[i].comm, EXITS_OTHER); i++)
		;
	ASSERT_LT(i, (int)n, "a row for the rest");
	exits__destroy(e);
}
