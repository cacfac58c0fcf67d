// SPDX-License-Identifier: GPL-2.0
/* perfmap.c: a JIT's names for its code, from /tmp/perf-PID.map in its root */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfmap.h"
#include "test.h"

static void write_map(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

TEST(perfmap_names_jit_code)
{
	char root[] = "/tmp/tl-perfmap-XXXXXX", dir[64], map[96], other[96];
	struct perfmap *pm = perfmap__new();
	int root_fd;

	ASSERT_OK_PTR(pm, "perfmap__new");
	ASSERT_OK_PTR(mkdtemp(root), "mkdtemp");
	snprintf(dir, sizeof(dir), "%s/tmp", root);
	ASSERT_OK(mkdir(dir, 0755), "mkdir tmp");
	snprintf(map, sizeof(map), "%s/perf-4242.map", dir);
	root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ASSERT_TRUE(root_fd >= 0, "open root");

	/* no map yet: no names */
	perfmap__read(pm, root_fd, getpid(), 4242);
	ASSERT_NULL(perfmap__name(pm, 0x1000), "nothing read");

	/* the second line at 1000 is code made again there: it wins */
	write_map(map, "1000 100 LazyCompile:~f a.js:1\n2000 10 Stub:g\n1000 80 LazyCompile:*f a.js:1\nbad line\n");
	perfmap__read(pm, root_fd, getpid(), 4242);
	ASSERT_STREQ(perfmap__name(pm, 0x1000), "LazyCompile:*f a.js:1", "the latest line of a start");
	ASSERT_STREQ(perfmap__name(pm, 0x200f), "Stub:g", "its last byte (sizes are hex)");
	ASSERT_NULL(perfmap__name(pm, 0x2010), "past its end");
	ASSERT_NULL(perfmap__name(pm, 0xfff), "below the first");

	/* it grew: read again */
	write_map(map, "1000 100 LazyCompile:~f a.js:1\n2000 10 Stub:g\n1000 80 LazyCompile:*f a.js:1\n3000 8 Builtin:h\n");
	perfmap__read(pm, root_fd, getpid(), 4242);
	ASSERT_STREQ(perfmap__name(pm, 0x3004), "Builtin:h", "the new line");

	/* a symlink in the target's /tmp is not followed: the names stay */
	snprintf(other, sizeof(other), "%s/elsewhere", dir);
	write_map(other, "3000 8 Planted\n4000 8 Planted2\n");
	ASSERT_OK(unlink(map), "unlink");
	ASSERT_OK(symlink(other, map), "symlink");
	perfmap__read(pm, root_fd, getpid(), 4242);
	ASSERT_STREQ(perfmap__name(pm, 0x3004), "Builtin:h", "a symlink is not read");
	ASSERT_NULL(perfmap__name(pm, 0x4000), "nothing of the planted file");

	unlink(map);
	unlink(other);
	rmdir(dir);
	rmdir(root);
	close(root_fd);
	perfmap__destroy(pm);
}
