/*
 * prefork: a pre-forking server in miniature. The parent allocates two
 * blocks and forks 4 workers; worker i leaks i blocks of i * 1000 bytes.
 * Worker 1 frees the parent's block it inherited (its copy), worker 2 exits
 * at once, worker 3 forks a child of its own, which leaks 7 blocks of 700
 * bytes, and worker 4 waits until the others are done. The parent frees its
 * first block at once after it forked worker 2, while that child may not have
 * run yet: workers 1 and 2 hold their copies of it, 3 and 4 never had one.
 *
 * Each process appends what is live in it at its exit to $TL_EXPECT, a
 * line per site: "proc PID SITE BYTES BLOCKS OWN" (inherited blocks
 * included, OWN 0: a child's copies are its parent's doing, held at exit
 * by what it allocated itself, OWN 1).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SITE __attribute__((noinline, noipa, used))

static void *volatile sink;
static void *kept, *inherited;

SITE static void *site_parent(size_t size)
{
	return sink = malloc(size);
}

SITE static void site_worker(int i)
{
	for (int k = 0; k < i; k++)
		sink = malloc(i * 1000);
}

SITE static void site_grandchild(void)
{
	for (int k = 0; k < 7; k++)
		sink = malloc(700);
}

/* no allocation: open, write */
static void expect(const char *site, long bytes, long blocks, int own)
{
	const char *path = getenv("TL_EXPECT");
	char line[128];
	int fd, n;

	if (!path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "proc %d %s %ld %ld %d\n", getpid(), site, bytes, blocks,
		     own);
	if (write(fd, line, n) != n)
		_exit(3);
	close(fd);
}

static void worker(int i)
{
	pid_t child;

	site_worker(i);
	expect("site_worker", (long)i * i * 1000, i, 1);
	if (i == 1) {
		free(inherited);
		expect("site_parent", 1000, 1, 0);
	} else if (i == 2) {
		expect("site_parent", 3000, 2, 0);
	} else {
		expect("site_parent", 2000, 1, 0);
	}
	if (i == 3) {
		child = fork();
		if (child == 0) {
			site_grandchild();
			expect("site_grandchild", 4900, 7, 1);
			expect("site_parent", 2000, 1, 0);
			expect("site_worker", 9000, 3, 0);
			_exit(0);
		}
		waitpid(child, NULL, 0);
	}
	if (i == 4)
		usleep(200000);
	_exit(0);
}

int main(void)
{
	pid_t pids[4];
	int i;

	kept = site_parent(1000);
	inherited = site_parent(2000);
	expect("site_parent", 2000, 1, 1);
	for (i = 0; i < 4; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return 1;
		if (pids[i] == 0)
			worker(i + 1);
		if (i == 1)
			free(kept);
	}
	for (i = 0; i < 4; i++)
		waitpid(pids[i], NULL, 0);
	return 0;
}
