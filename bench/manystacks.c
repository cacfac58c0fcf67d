// SPDX-License-Identifier: GPL-2.0
/*
 * 2^DEPTH distinct call stacks, one leaked block each: for measuring how
 * long symbolizing and writing a profile of that many stacks takes:
 *   tracelloc -v -f out.fg -- manystacks 17 10   (then kill -USR1 it, twice)
 */
#include <stdlib.h>
#include <unistd.h>

static void *volatile sink;

__attribute__((noinline)) static void left(int depth, unsigned path);
__attribute__((noinline)) static void right(int depth, unsigned path);

__attribute__((noinline)) static void step(int depth, unsigned path)
{
	if (depth == 0) {
		sink = malloc(16 + path % 64);
		return;
	}
	/* two call sites per level: every path is a different stack */
	if (path & 1)
		left(depth - 1, path >> 1);
	else
		right(depth - 1, path >> 1);
	sink = sink;
}

__attribute__((noinline)) static void left(int depth, unsigned path)
{
	step(depth, path);
	sink = sink;
}

__attribute__((noinline)) static void right(int depth, unsigned path)
{
	step(depth, path);
	sink = sink;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 17;
	unsigned path;

	for (path = 0; path < (1u << depth); path++)
		step(depth, path);
	/* stay alive, so the profile can be written more than once (SIGUSR1) */
	if (argc > 2)
		sleep(atoi(argv[2]));
	return 0;
}
