// SPDX-License-Identifier: GPL-2.0
/* programs.c: the chain of programs a process ran; procfs.c's small readers */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"
#include "programs.h"
#include "test.h"

TEST(programs_chain_and_verdict)
{
	struct programs *pg = NULL;
	char line[512], exe[64];
	int i;

	ASSERT_OK(programs__start(&pg, "/bin/sh"), "start");
	ASSERT_NULL(programs__chain(pg), "no chain before an exec");
	ASSERT_STREQ(programs__latest(pg), "/bin/sh", "latest: the first");
	programs__exec(pg, "/usr/bin/my prog");
	ASSERT_STREQ(programs__chain(pg), "/bin/sh -> /usr/bin/my prog", "one exec");
	/* the whole name, spaces and all */
	programs__exec_verdict(pg, -ENOENT, "?", line, sizeof(line));
	ASSERT_STREQ(line, "target called exec of /usr/bin/my prog, which maps no allocator "
		     "tracelloc knows: stopped there", "verdict names the latest");
	programs__exec_verdict(pg, -EMEDIUMTYPE, "libfoo.so", line, sizeof(line));
	ASSERT_TRUE(strstr(line, "whose malloc is in libfoo.so") != NULL, "culprit named");

	/* too long for the text: the first, how many, the latest */
	for (i = 0; i < 100; i++) {
		snprintf(exe, sizeof(exe), "/opt/a/rather/long/path/to/program-%03d", i);
		programs__exec(pg, exe);
	}
	ASSERT_STREQ(programs__chain(pg) + strlen("/bin/sh"),
		     " -> ... (101 execs) -> /opt/a/rather/long/path/to/program-099", "cut chain");
	ASSERT_STREQ(programs__latest(pg), "/opt/a/rather/long/path/to/program-099", "latest");

	/* the slot's next process starts afresh */
	ASSERT_OK(programs__start(&pg, "/usr/bin/env"), "restart");
	ASSERT_NULL(programs__chain(pg), "no chain again");
	programs__exec(pg, "/usr/bin/python3");
	ASSERT_STREQ(programs__chain(pg), "/usr/bin/env -> /usr/bin/python3", "fresh chain");
	programs__destroy(pg);
}

TEST(programs_exe_is_escaped)
{
	char buf[256];

	programs__exe(getpid(), buf, sizeof(buf));
	ASSERT_TRUE(strstr(buf, "unit") != NULL, "our own program");
	programs__exe(0x7ffffff0, buf, sizeof(buf));
	ASSERT_STREQ(buf, "?", "no such process");
}

static int hold[2];
static volatile pid_t thread_tid;

/* says its tid, then waits until the test has looked at it */
static void *held_thread(void *arg)
{
	char c;

	thread_tid = gettid();
	return read(hold[0], &c, 1) == 1 ? NULL : arg;
}

TEST(procfs_comm_tgid_rss)
{
	char comm[32];

	procfs__comm(getpid(), comm, sizeof(comm));
	ASSERT_STREQ(comm, "unit", "our comm, without its newline");
	procfs__comm(0x7ffffff0, comm, sizeof(comm));
	ASSERT_STREQ(comm, "?", "gone");
	pthread_t th;

	ASSERT_EQ(procfs__tgid(getpid()), getpid(), "a process is its own tgid");
	ASSERT_OK(pipe(hold), "pipe");
	thread_tid = 0;
	ASSERT_OK(pthread_create(&th, NULL, held_thread, NULL), "thread");
	while (!thread_tid)
		usleep(1000);
	ASSERT_NEQ(thread_tid, getpid(), "a thread of its own");
	ASSERT_EQ(procfs__tgid(thread_tid), getpid(), "a thread's process");
	ASSERT_EQ(write(hold[1], "x", 1), 1, "let the thread go");
	pthread_join(th, NULL);
	close(hold[0]);
	close(hold[1]);
	ASSERT_EQ(procfs__tgid(0x7ffffff0), 0x7ffffff0, "unknown: the tid itself");
	ASSERT_TRUE(procfs__rss(getpid()) > 1024 * 1024, "some resident memory");
	ASSERT_EQ(procfs__rss(0x7ffffff0), 0, "gone: 0");
}
