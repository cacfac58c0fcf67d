// SPDX-License-Identifier: GPL-2.0
/* loop.c: each source's handler, removal while dispatching, the end */
#include <errno.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "loop.h"
#include "test.h"

struct counted {
	int calls;
	int last_fd;
	int ret;			/* what the handler returns */
	struct loop *loop;
	int remove_fd;			/* removed by the handler, if >= 0 */
};

static int count(void *ctx, int fd)
{
	struct counted *c = ctx;

	c->calls++;
	c->last_fd = fd;
	if (c->remove_fd >= 0)
		loop__remove(c->loop, c->remove_fd);
	return c->ret;
}

static void readable(int fd)
{
	ssize_t n = write(fd, "x", 1);

	(void)n;
}

TEST(loop_dispatch)
{
	struct counted a = { .remove_fd = -1 }, b = { .remove_fd = -1 }, q = { .remove_fd = -1 };
	int pa[2], pb[2], pc[2], ret;
	struct loop *l;

	ASSERT_OK(loop__new(&l), "loop__new");
	ASSERT_OK(pipe(pa) || pipe(pb) || pipe(pc), "pipes");
	ASSERT_OK(loop__add(l, pa[0], EPOLLIN, count, &a), "add a");
	ASSERT_OK(loop__add(l, pb[0], EPOLLIN, count, &b), "add b");
	ASSERT_EQ(loop__add(l, pa[0], EPOLLIN, count, &a), -EEXIST, "a fd added twice");

	/* nothing ready: the quiet handler */
	q.ret = 7;
	ASSERT_EQ(loop__run_once(l, 0, count, &q), 7, "what the quiet handler returned");
	ASSERT_EQ(q.calls, 1, "quiet handler calls");
	ASSERT_EQ(q.last_fd, -1, "the quiet handler's fd");

	readable(pa[1]);
	ASSERT_EQ(loop__run_once(l, 1000, count, &q), LOOP_ON, "one source ready");
	ASSERT_EQ(a.calls, 1, "a's handler");
	ASSERT_EQ(a.last_fd, pa[0], "a's handler gets its fd");
	ASSERT_EQ(b.calls, 0, "b's handler, not ready");
	ASSERT_EQ(q.calls, 1, "no quiet call when something was ready");

	/* both ready, each ends the loop: one handler only */
	readable(pb[1]);
	a.ret = b.ret = LOOP_END;
	ASSERT_EQ(loop__run_once(l, 1000, NULL, NULL), LOOP_END, "ended by a handler");
	ASSERT_EQ(a.calls + b.calls, 2, "after the end, no other handler");

	/* both ready, each removes the other: only the first is called */
	a.ret = b.ret = LOOP_ON;
	a.loop = b.loop = l;
	a.remove_fd = pb[0];
	b.remove_fd = pa[0];
	ret = loop__run_once(l, 1000, NULL, NULL);
	ASSERT_EQ(ret, LOOP_ON, "both ready");
	ASSERT_EQ(a.calls + b.calls, 3, "a source removed in the same wait is not called");

	/* an error ends it too, and is what the loop returns */
	ASSERT_OK(loop__add(l, pc[0], EPOLLIN, count, &q), "add c");
	readable(pc[1]);
	q.ret = -EIO;
	q.remove_fd = -1;
	ASSERT_EQ(loop__run_once(l, 1000, NULL, NULL), -EIO, "a handler's error");
	loop__destroy(l);
	close(pa[0]);
	close(pa[1]);
	close(pb[0]);
	close(pb[1]);
	close(pc[0]);
	close(pc[1]);
}

/* a source of no events: a pipe whose reader has gone (tracelloc | head) */
TEST(loop_hangup_only)
{
	struct counted w = { .remove_fd = -1, .ret = LOOP_END };
	struct loop *l;
	int p[2];

	ASSERT_OK(loop__new(&l), "loop__new");
	ASSERT_OK(pipe(p), "pipe");
	ASSERT_OK(loop__add(l, p[1], 0, count, &w), "the write end, no events asked");
	ASSERT_EQ(loop__run_once(l, 0, NULL, NULL), LOOP_ON, "the reader is there: nothing");
	ASSERT_EQ(w.calls, 0, "no call while the reader is there");
	close(p[0]);
	ASSERT_EQ(loop__run_once(l, 1000, NULL, NULL), LOOP_END, "the reader gone");
	ASSERT_EQ(w.calls, 1, "called once the reader is gone");
	loop__destroy(l);
	close(p[1]);
}

/* a fd closed without loop__remove, its number taken again: the new source
 * is the one called */
TEST(loop_fd_reused)
{
	struct counted old = { .remove_fd = -1 }, now = { .remove_fd = -1 };
	struct loop *l;
	int p[2], q[2], fd;

	ASSERT_OK(loop__new(&l), "loop__new");
	ASSERT_OK(pipe(p), "pipe");
	fd = p[0];
	ASSERT_OK(loop__add(l, fd, EPOLLIN, count, &old), "add");
	close(p[0]);
	close(p[1]);
	ASSERT_OK(pipe(q), "another pipe");
	if (q[0] != fd) {
		dup2(q[0], fd);
		close(q[0]);
		q[0] = fd;
	}
	ASSERT_OK(loop__add(l, fd, EPOLLIN, count, &now), "the same number again");
	readable(q[1]);
	ASSERT_EQ(loop__run_once(l, 1000, NULL, NULL), LOOP_ON, "ready");
	ASSERT_EQ(now.calls, 1, "the new source's handler");
	ASSERT_EQ(old.calls, 0, "not the closed one's");
	loop__remove(l, fd);
	ASSERT_EQ(loop__run_once(l, 0, NULL, NULL), LOOP_ON, "removed: nothing");
	ASSERT_EQ(now.calls, 1, "no call once removed");
	loop__destroy(l);
	close(q[0]);
	close(q[1]);
}
