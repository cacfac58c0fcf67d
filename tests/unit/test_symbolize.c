// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "maps.h"
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

/* the offset-0 mapping of the file that holds addr in pid's maps: its base */
static uint64_t base_of(pid_t pid, uint64_t addr, char *path, size_t size)
{
	const struct mapping *m, *first = NULL;
	struct maps maps = {};
	uint64_t base = 0;
	size_t i;

	if (maps__read(pid, &maps))
		return 0;
	m = maps__find(&maps, addr);
	for (i = 0; m && m->path && i < maps.count; i++)
		if (maps.mappings[i].inode == m->inode && maps.mappings[i].offset == 0 && !first)
			first = &maps.mappings[i];
	if (first) {
		base = first->start;
		snprintf(path, size, "%s", first->path);
	}
	maps__clear(&maps);
	return base;
}

/* the base of the file at path in pid, once pid has mapped it (after its exec) */
static uint64_t wait_base(pid_t pid, const char *path)
{
	struct maps maps = {};
	uint64_t base = 0;
	size_t i;
	int tries;

	for (tries = 0; tries < 200 && !base; tries++) {
		if (maps__read(pid, &maps))
			break;
		for (i = 0; i < maps.count && !base; i++)
			if (maps.mappings[i].path && !strcmp(maps.mappings[i].path, path) &&
			    maps.mappings[i].offset == 0)
				base = maps.mappings[i].start;
		maps__clear(&maps);
		if (!base)
			usleep(10000);
	}
	return base;
}

/*
 * A file that several processes map is opened once, whatever the place each
 * maps it at (two programs started separately: their libc lies elsewhere),
 * and each process's frames in it are named by their own place.
 */
TEST(symbolize_shares_files_between_processes)
{
	/* inside a libc function that no sanitizer replaces */
	uint64_t at = (uint64_t)(uintptr_t)getppid + 2, base, kid_base[2] = {}, offset;
	char path[4096] = "";
	struct symbolizer *self, *kid_sym[2] = {};
	const char *want = NULL, *got[2] = {}, *module[2] = {};
	size_t files_self = 0, files_kids = 0;
	pid_t kids[2];
	int i;

	base = base_of(getpid(), at, path, sizeof(path));
	ASSERT_TRUE(base != 0, "the libc of the tests in their maps");
	offset = at - base;
	for (i = 0; i < 2; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			execl("/bin/sleep", "sleep", "10", (char *)NULL);
			_exit(127);
		}
		ASSERT_GT(kids[i], 0, "fork");
	}
	self = symbolizer__new(getpid());
	if (self) {
		symbolizer__refresh(self);
		want = symbolizer__locate(self, at + 1)->symbol;
		files_self = symbolizer__open_files();
	}
	for (i = 0; i < 2; i++) {
		kid_base[i] = wait_base(kids[i], path);
		kid_sym[i] = symbolizer__new(kids[i]);
		if (!kid_sym[i] || !kid_base[i])
			continue;
		symbolizer__refresh(kid_sym[i]);
		got[i] = symbolizer__locate(kid_sym[i], kid_base[i] + offset + 1)->symbol;
		module[i] = symbolizer__locate(kid_sym[i], kid_base[i] + offset + 1)->module;
	}
	files_kids = symbolizer__open_files();
	for (i = 0; i < 2; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	ASSERT_TRUE(self && kid_sym[0] && kid_sym[1], "symbolizer__new");
	ASSERT_TRUE(kid_base[0] && kid_base[1], "libc in the maps of both sleeps");
	ASSERT_TRUE(want != NULL, "the libc function named in the tests' own process");
	for (i = 0; i < 2; i++) {
		ASSERT_TRUE(got[i] && !strcmp(got[i], want), "sleep %d: %s, not %s", i,
			    got[i] ? got[i] : "(none)", want);
		ASSERT_TRUE(module[i] && !strcmp(module[i], path), "sleep %d's module: %s", i,
			    module[i] ? module[i] : "(none)");
	}
	/* the two sleeps add their program, once; libc and ld.so are the tests' */
	ASSERT_EQ(files_kids, files_self + 1, "files open after the two sleeps (%zu before)",
		  files_self);
	symbolizer__destroy(kid_sym[0]);
	symbolizer__destroy(kid_sym[1]);
	symbolizer__destroy(self);
	ASSERT_EQ(symbolizer__open_files(), (size_t)0, "files open once every symbolizer is gone");
}
