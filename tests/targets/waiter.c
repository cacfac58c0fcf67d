/*
 * waiter N FIFO [SECS]: keeps one block from its start, then waits for a line
 * on FIFO, allocates N blocks of N * 100 bytes, keeps them, waits SECS (0 by
 * default) and exits 0.
 *
 *   site_waiter_start   malloc(512) at start, kept
 *   site_waiter         N x malloc(N * 100) after the line, kept
 *
 * "ready PID" goes to $TL_READY once the start block is allocated.
 */
#include <stdlib.h>

#include "ledger.h"

SITE void *site_waiter_start(size_t n)
{
	return lg_sink = malloc(n);
}

SITE void site_waiter(int n)
{
	for (int i = 0; i < n; i++)
		lg_sink = malloc((size_t)n * 100);
}

int main(int argc, char **argv)
{
	int n = argc >= 2 ? atoi(argv[1]) : 1, fd;
	char line[16];

	if (argc < 3)
		return 2;
	site_waiter_start(512);
	tl_ready();
	fd = open(argv[2], O_RDONLY);
	if (fd < 0 || read(fd, line, sizeof(line)) < 0)
		return 3;
	close(fd);
	site_waiter(n);
	if (argc >= 4)
		sleep((unsigned int)atoi(argv[3]));
	return 0;
}
