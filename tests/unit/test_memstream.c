// SPDX-License-Identifier: GPL-2.0
/* memstream.c: a stopped, traced copy of this process streams the ranges
 * asked for, in order, and its loop ends by itself when our ends close */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "memstream.h"
#include "snapshot.h"
#include "test.h"

#define AREA (3 << 20)

TEST(memstream_streams_a_copy)
{
	struct snapshot_code code;
	struct memstream *m = NULL;
	struct iovec r[3];
	uint64_t lo, hi;
	uint8_t *area = malloc(AREA), *got = malloc(AREA);
	size_t i;
	pid_t pid;
	int st, err;

	ASSERT_TRUE(area && got, "memory");
	for (i = 0; i < AREA; i++)
		area[i] = (uint8_t)(i * 7 + i / 4096);
	ASSERT_OK(snapshot__find_code(getpid(), &code), "a \"syscall; ret\" in our code");
	pid = fork();
	if (!pid) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		_exit(3);	/* never: the loop runs instead, and ends with 0 */
	}
	ASSERT_GT(pid, 0, "fork");
	ASSERT_EQ(waitpid(pid, &st, 0), pid, "its stop");
	err = memstream__start(pid, code.sys_ret, &m);
	if (err) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		ASSERT_OK(err, "memstream__start");
	}
	ASSERT_GE(memstream__pages(m), 16, "the pipe's pages");
	memstream__scratch(m, &lo, &hi);
	ASSERT_EQ(hi - lo, 8192, "the loop's own mapping");
	/* three ranges, not page aligned, in one ask; then a page alone */
	r[0] = (struct iovec){ area + 100, 5000 };
	r[1] = (struct iovec){ area + 65536 + 8, 16384 };
	r[2] = (struct iovec){ area + 3 * 4096 - 16, 32 };
	ASSERT_OK(memstream__ask(m, r, 3), "ask");
	r[0] = (struct iovec){ area + AREA - 4096, 4096 };
	ASSERT_OK(memstream__ask(m, r, 1), "ask again before taking");
	ASSERT_OK(memstream__take(m, got, 5000 + 16384 + 32), "take the first");
	ASSERT_EQ(memcmp(got, area + 100, 5000), 0, "the first range's bytes");
	ASSERT_EQ(memcmp(got + 5000, area + 65536 + 8, 16384), 0, "the second's");
	ASSERT_EQ(memcmp(got + 5000 + 16384, area + 3 * 4096 - 16, 32), 0, "the third's");
	ASSERT_OK(memstream__take(m, got, 4096), "take the second");
	ASSERT_EQ(memcmp(got, area + AREA - 4096, 4096), 0, "its bytes");
	/* nothing more asked: nothing comes */
	ASSERT_EQ(memstream__take(m, got, 8), -ETIMEDOUT, "nothing asked, nothing taken");
	/* an address it cannot read: a short splice ends its loop */
	r[0] = (struct iovec){ (void *)8, 4096 };
	ASSERT_OK(memstream__ask(m, r, 1), "ask for an unmapped page");
	ASSERT_EQ(memstream__take(m, got, 4096), -EPIPE, "its loop ended");
	ASSERT_EQ(waitpid(pid, &st, 0), pid, "it exited");
	ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0, "by the loop's exit_group(0)");
	memstream__destroy(m);

	/* our ends closed: its loop reads the end of its requests, and exits */
	pid = fork();
	if (!pid) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		_exit(3);
	}
	ASSERT_EQ(waitpid(pid, &st, 0), pid, "its stop");
	ASSERT_OK(memstream__start(pid, code.sys_ret, &m), "memstream__start");
	memstream__destroy(m);
	ASSERT_EQ(waitpid(pid, &st, 0), pid, "it exited");
	ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0, "by the loop's exit_group(0)");
	free(area);
	free(got);
}
