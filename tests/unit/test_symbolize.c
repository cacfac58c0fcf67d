// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "symbolize.h"
#include "test.h"

/*
 * Code in an anonymous executable mapping is [anon], known from the maps
 * alone. Once the process exits, and until it is reaped, its maps read
 * empty: the last ones it had must stay.
 */
TEST(symbolize_zombie_keeps_maps)
{
	void *code = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t ret_addr = (uint64_t)(uintptr_t)code + 16;
	struct symbolizer *s = NULL;
	bool anon = false, in_module = false;
	int pipefd[2], status, err = 0;
	pid_t child;
	char byte;

	ASSERT_TRUE(code != MAP_FAILED, "mmap of an executable page");
	ASSERT_OK(pipe(pipefd), "pipe");
	child = fork();
	if (child == 0) {
		/* inherits the mapping; lives until the pipe closes */
		close(pipefd[1]);
		_exit(read(pipefd[0], &byte, 1) < 0);
	}
	close(pipefd[0]);
	ASSERT_GT(child, 0, "fork");
	s = symbolizer__new(child);
	if (s)
		symbolizer__refresh(s);
	close(pipefd[1]);	/* the child exits: a zombie until waited for */
	usleep(100000);
	if (s) {
		err = symbolizer__refresh(s);
		anon = !strcmp(symbolizer__locate(s, ret_addr)->frames[0].function, "[anon]");
		in_module = symbolizer__in_module(s, ret_addr);
	}
	waitpid(child, &status, 0);
	munmap(code, 4096);
	symbolizer__destroy(s);
	ASSERT_TRUE(s != NULL, "symbolizer__new");
	ASSERT_EQ(err, -ESRCH, "refresh of a zombie");
	ASSERT_TRUE(anon, "the frame in the zombie's anonymous code is [anon]");
	ASSERT_TRUE(in_module, "the zombie's anonymous code counts as mapped");
}
