// SPDX-License-Identifier: GPL-2.0
/* holds.c's decision to continue a held process, text.c's escaping, the
 * snapshot's check of the code it found before the stop */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "closer.h"
#include "holds.h"
#include "processes.h"
#include "safeopen.h"
#include "snapshot.h"
#include "test.h"
#include "text.h"
#include "tracelloc.h"

static const char *status(char *buf, size_t size, char state, const char *sigpnd,
			  const char *shdpnd)
{
	snprintf(buf, size, "Name:\tx\nState:\t%c (whatever)\nTgid:\t1\nSigQ:\t0/1\n"
		 "SigPnd:\t%s\nShdPnd:\t%s\nSigBlk:\t0000000000000000\n", state, sigpnd, shdpnd);
	return buf;
}

TEST(holds_continue_only_our_stop)
{
	char buf[512];

	/* stopped by us alone: continued */
	ASSERT_EQ(holds__should_continue(status(buf, sizeof(buf), 'T', "0000000000000000",
						"0000000000000000"), 0), 1, "our stop");
	/* our SIGSTOP not taken yet: SIGCONT takes it back */
	ASSERT_EQ(holds__should_continue(status(buf, sizeof(buf), 'R', "0000000000000000",
						"0000000000040000"), 0), 1, "ours still pending");
	/* stopped, and a parent's SIGSTOP (bit 18) or a ^Z (SIGTSTP, bit 19) came since */
	ASSERT_EQ(holds__should_continue(status(buf, sizeof(buf), 'T', "0000000000000000",
						"0000000000040000"), 0), 0, "another's SIGSTOP");
	ASSERT_EQ(holds__should_continue(status(buf, sizeof(buf), 'T', "0000000000080000",
						"0000000000000000"), 0), 0, "a SIGTSTP to the thread");
	/* another signal pending (SIGUSR1, bit 9) is no stop */
	ASSERT_EQ(holds__should_continue(status(buf, sizeof(buf), 'T', "0000000000000200",
						"0000000000000000"), 0), 1, "SIGUSR1 pending");
	/* the BPF side saw a stop pending at ours: not ours alone */
	ASSERT_EQ(holds__should_continue(status(buf, sizeof(buf), 'T', "0000000000000000",
						"0000000000000000"), HELD_OTHER_STOP), 0,
		  "a stop pending when we stopped it");
	/* gone */
	ASSERT_EQ(holds__should_continue(status(buf, sizeof(buf), 'Z', "0000000000000000",
						"0000000000000000"), 0), 0, "a zombie");
	ASSERT_EQ(holds__should_continue("", 0), 0, "no status");
}

/* another tracelloc is known by its map of held processes, not its name:
 * a process is one while it keeps such a map, and not once it is disarmed
 * (its guardian continues what is in it) */
TEST(holds_know_a_tracelloc_by_its_map)
{
	uint32_t key = HELD_DISARM, one = 1;
	int fd;

	ASSERT_FALSE(holds__of_tracelloc(getpid()), "no map: no tracelloc");
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, "tracelloc_held", sizeof(uint32_t), sizeof(uint32_t),
			    16, NULL);
	if (fd < 0) {
		fprintf(stderr, "  (no BPF map: %s; skipped)\n", strerror(-fd));
		return;
	}
	ASSERT_TRUE(holds__of_tracelloc(getpid()), "a map of held processes: a tracelloc");
	ASSERT_OK(bpf_map_update_elem(fd, &key, &one, BPF_ANY), "disarmed");
	ASSERT_FALSE(holds__of_tracelloc(getpid()), "a disarmed map: no more");
	close(fd);
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, "held", sizeof(uint32_t), sizeof(uint32_t), 16, NULL);
	ASSERT_FALSE(fd >= 0 && holds__of_tracelloc(getpid()), "a map of another name: no tracelloc");
	if (fd >= 0)
		close(fd);
}

TEST(text_escapes_what_a_terminal_obeys)
{
	char buf[128];

	ASSERT_STREQ(text__escape("main", buf, sizeof(buf)), "main", "plain");
	ASSERT_STREQ(text__escape("operator new(unsigned long)", buf, sizeof(buf)),
		     "operator new(unsigned long)", "C++");
	ASSERT_STREQ(text__escape("\033]0;pwned\007", buf, sizeof(buf)), "\\x1b]0;pwned\\x07",
		     "a title change");
	ASSERT_STREQ(text__escape("a\033[2Jb", buf, sizeof(buf)), "a\\x1b[2Jb", "clear screen");
	ASSERT_STREQ(text__escape("two\nlines\r", buf, sizeof(buf)), "two\\x0alines\\x0d",
		     "a newline would split a report line");
	ASSERT_STREQ(text__escape("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x8d", buf, sizeof(buf)),
		     "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\x8d", "valid UTF-8 stays");
	ASSERT_STREQ(text__escape("\xc2\x9b" "2J", buf, sizeof(buf)), "\\xc2\\x9b2J",
		     "a C1 control (CSI)");
	ASSERT_STREQ(text__escape("bad\xff\xc3", buf, sizeof(buf)), "bad\\xff\\xc3",
		     "invalid UTF-8");
	ASSERT_STREQ(text__escape("\xc0\xaf\xed\xa0\x80", buf, sizeof(buf)),
		     "\\xc0\\xaf\\xed\\xa0\\x80", "overlong and surrogate forms");
	ASSERT_STREQ(text__escape("\x7f", buf, sizeof(buf)), "\\x7f", "DEL");
	/* idempotent: an escaped name escapes to itself */
	ASSERT_STREQ(text__escape("\\x1b", buf, sizeof(buf)), "\\x1b", "escaped already");
	/* cut short at whole pieces */
	ASSERT_STREQ(text__escape("ab\033cd", buf, 6), "ab", "no half escape");
	ASSERT_STREQ(text__escape("\xc3\xa9\xc3\xa9", buf, 4), "\xc3\xa9", "no half character");
	ASSERT_STREQ(text__escape(NULL, buf, sizeof(buf)), "", "NULL");
}

TEST(processes_add_own_comm)
{
	struct processes *ps = processes__new();
	int i, idx = 0;

	ASSERT_OK_PTR(ps, "processes__new");
	processes__add(ps, 1, "parent", NULL);
	/* a fork's child named after its parent, while the array grows under it */
	for (i = 0; i < 100; i++)
		idx = processes__add(ps, 0, processes__comm(ps, 1), NULL);
	ASSERT_STREQ(processes__comm(ps, idx), "parent", "the parent's name, copied");
	processes__set(ps, idx, 42, processes__comm(ps, idx), NULL);
	ASSERT_STREQ(processes__label(ps, PROCESS_FRAME(idx)), "pid 42 (parent)",
		     "set with its own name");
	processes__destroy(ps);
}

TEST(safeopen_stays_in_root)
{
	char root[] = "/tmp/tl-safeopen.XXXXXX", path[256], outside[] = "/tmp/tl-outside.XXXXXX";
	int root_fd, fd, out_fd;
	char byte;

	ASSERT_OK_PTR(mkdtemp(root), "mkdtemp");
	out_fd = mkstemp(outside);
	ASSERT_GE(out_fd, 0, "mkstemp");
	ASSERT_EQ(write(out_fd, "H", 1), 1, "the host's file");
	close(out_fd);
	snprintf(path, sizeof(path), "%s/etc", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/etc/file", root);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	ASSERT_EQ(write(fd, "T", 1), 1, "the target's file");
	close(fd);
	/* the target's absolute link to the host's file's path: inside root, none */
	snprintf(path, sizeof(path), "%s/link", root);
	ASSERT_OK(symlink(outside, path), "symlink");
	snprintf(path, sizeof(path), "%s/up", root);
	ASSERT_OK(symlink("../../../../..", path), "symlink up");
	snprintf(path, sizeof(path), "%s/fifo", root);
	ASSERT_OK(mkfifo(path, 0644), "mkfifo");
	snprintf(path, sizeof(path), "%s/etc/abs", root);
	ASSERT_OK(symlink("/etc/file", path), "absolute link inside");

	root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ASSERT_GE(root_fd, 0, "root");
	fd = safeopen__in_root(root_fd, "/etc/file");
	ASSERT_GE(fd, 0, "a regular file");
	ASSERT_EQ(read(fd, &byte, 1), 1, "read");
	ASSERT_EQ(byte, 'T', "the target's");
	close(fd);
	fd = safeopen__in_root(root_fd, "/etc/abs");
	ASSERT_GE(fd, 0, "an absolute link resolves in the root");
	ASSERT_EQ(read(fd, &byte, 1), 1, "read");
	ASSERT_EQ(byte, 'T', "to the target's file");
	close(fd);
	ASSERT_EQ(safeopen__in_root(root_fd, "/link"), -ENOENT,
		  "a link to the host's path finds nothing in the root");
	snprintf(path, sizeof(path), "/up%s", outside);
	ASSERT_EQ(safeopen__in_root(root_fd, path), -ENOENT, "'..' stops at the root");
	ASSERT_EQ(safeopen__in_root(root_fd, "/fifo"), -EINVAL, "a FIFO: refused, not waited on");
	ASSERT_EQ(safeopen__in_root(root_fd, "/etc"), -EINVAL, "a directory");
	ASSERT_EQ(safeopen__link("/dev/null"), -EINVAL, "a device");
	ASSERT_EQ(safeopen__in_root(root_fd, "/proc/self/root/etc/passwd"), -ENOENT,
		  "no /proc in the root");
	close(root_fd);
	unlink(outside);
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	ASSERT_OK(system(path), "cleanup");
}

static void count_call(void *arg)
{
	__atomic_add_fetch((int *)arg, 1, __ATOMIC_SEQ_CST);
}

/* every descriptor given to the closer is closed once it is destroyed,
 * every call made, and a descriptor given with no closer closed at once */
TEST(closer_closes_everything)
{
	struct closer *c = closer__new();
	int fds[64], i, p[2], open_after = 0, calls = 0;

	ASSERT_TRUE(c != NULL, "closer__new");
	for (i = 0; i < 64; i += 2) {
		ASSERT_OK(pipe(p), "pipe");
		fds[i] = p[0];
		fds[i + 1] = p[1];
		closer__add(c, p[0]);
		closer__add(c, p[1]);
	}
	closer__destroy(c);
	for (i = 0; i < 64; i++)
		open_after += fcntl(fds[i], F_GETFD) >= 0;
	ASSERT_EQ(open_after, 0, "descriptors still open after closer__destroy");
	c = closer__new();
	ASSERT_TRUE(c != NULL, "closer__new");
	for (i = 0; i < 100; i++)
		closer__call(c, count_call, &calls);
	closer__destroy(c);
	ASSERT_EQ(__atomic_load_n(&calls, __ATOMIC_SEQ_CST), 100, "calls made by closer__destroy");
	ASSERT_OK(pipe(p), "pipe");
	closer__add(NULL, p[0]);
	ASSERT_TRUE(fcntl(p[0], F_GETFD) < 0, "closed at once without a closer");
	close(p[1]);
}

static int gate_open, in_flight, most_in_flight;

/* a close that waits a grace period: 20 ms, and none before the gate opens */
static void slow_close(void *arg)
{
	int now, most;

	while (!__atomic_load_n(&gate_open, __ATOMIC_SEQ_CST))
		usleep(1000);
	now = __atomic_add_fetch(&in_flight, 1, __ATOMIC_SEQ_CST);
	most = __atomic_load_n(&most_in_flight, __ATOMIC_SEQ_CST);
	while (now > most && !__atomic_compare_exchange_n(&most_in_flight, &most, now, false,
							  __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
	usleep(20000);
	__atomic_sub_fetch(&in_flight, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch((int *)arg, 1, __ATOMIC_SEQ_CST);
}

/* a backlog left at the end (a fork storm's links) is closed by many more
 * threads at once than while tracing: their waits overlap */
TEST(closer_drains_a_backlog_at_once)
{
	struct closer *c = closer__new();
	int i, calls = 0;

	ASSERT_TRUE(c != NULL, "closer__new");
	gate_open = in_flight = most_in_flight = 0;
	for (i = 0; i < 300; i++)
		closer__call(c, slow_close, &calls);
	__atomic_store_n(&gate_open, 1, __ATOMIC_SEQ_CST);
	closer__destroy(c);
	ASSERT_EQ(__atomic_load_n(&calls, __ATOMIC_SEQ_CST), 300, "every close made");
	ASSERT_TRUE(most_in_flight > 32, "more than the 16 threads of tracing at once");
}

#if defined(__x86_64__)
TEST(snapshot_code_checked_again)
{
	/* the two sequences, but in data: never code to run */
	static uint8_t data[16] = { 0x0f, 0x05, 0xc3, 0, 0, 0, 0, 0, 0xb8, 0x0f, 0, 0, 0, 0x0f, 0x05 };
	struct snapshot_code c = { (uint64_t)(uintptr_t)data, (uint64_t)(uintptr_t)(data + 8) }, found;

	ASSERT_EQ(snapshot__code_valid(getpid(), &c), false, "the bytes, but not in code");
	ASSERT_EQ(snapshot__code_valid(getpid(), NULL), false, "no search made");
	/* our own libc has them, in its code, and they stay there */
	ASSERT_EQ(snapshot__find_code(getpid(), &found), 0, "found in this process");
	ASSERT_EQ(snapshot__code_valid(getpid(), &found), true, "checked again");
	/* code, but other bytes there */
	c = found;
	c.sys_ret++;
	ASSERT_EQ(snapshot__code_valid(getpid(), &c), false, "the first one moved");
	c = found;
	c.sigret++;
	ASSERT_EQ(snapshot__code_valid(getpid(), &c), false, "the second one moved");
	c = found;
	c.sigret = 0;
	ASSERT_EQ(snapshot__code_valid(getpid(), &c), false, "none found");
}
#endif
