// SPDX-License-Identifier: GPL-2.0
/* the programs a traced process has run (see programs.h) */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "programs.h"
#include "text.h"

struct programs {
	char chain[1024];	/* "/bin/sh -> /usr/bin/python3.11" */
	char latest[1024];
	int nexecs;
	bool cut;		/* chain keeps the first and the latest only */
};

void programs__exe(pid_t pid, char *buf, size_t size)
{
	char path[64], exe[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n <= 0)
		n = snprintf(exe, sizeof(exe), "?");
	exe[n] = '\0';
	text__escape(exe, buf, size);
}

int programs__start(struct programs **pg, const char *exe)
{
	if (!*pg && !(*pg = calloc(1, sizeof(**pg))))
		return -ENOMEM;
	memset(*pg, 0, sizeof(**pg));
	snprintf((*pg)->chain, sizeof((*pg)->chain), "%s", exe);
	snprintf((*pg)->latest, sizeof((*pg)->latest), "%s", exe);
	return 0;
}

void programs__destroy(struct programs *pg)
{
	free(pg);
}

void programs__exec(struct programs *pg, const char *exe)
{
	size_t len = strlen(pg->chain);
	char *first_end;

	pg->nexecs++;
	snprintf(pg->latest, sizeof(pg->latest), "%s", exe);
	if (!pg->cut && len + strlen(" -> ") + strlen(exe) < sizeof(pg->chain)) {
		snprintf(pg->chain + len, sizeof(pg->chain) - len, " -> %s", exe);
		return;
	}
	pg->cut = true;
	first_end = strstr(pg->chain, " -> ");
	if (!first_end)
		first_end = pg->chain + len;
	snprintf(first_end, sizeof(pg->chain) - (first_end - pg->chain), " -> ... (%d execs) -> %s",
		 pg->nexecs, exe);
}

const char *programs__chain(const struct programs *pg)
{
	return pg && pg->nexecs ? pg->chain : NULL;
}

const char *programs__latest(const struct programs *pg)
{
	return pg ? pg->latest : "?";
}

void programs__exec_verdict(const struct programs *pg, int err, const char *culprit, char *buf,
			    size_t size)
{
	const char *exe = programs__latest(pg);

	if (err == -ENOENT)
		snprintf(buf, size, "target called exec of %.200s, which maps no allocator "
			 "tracelloc knows: stopped there", exe);
	else if (err == -ENOEXEC)
		snprintf(buf, size, "target called exec of %.200s, a static binary without "
			 "a symbol table: stopped there", exe);
	else if (err == -EMEDIUMTYPE)
		snprintf(buf, size, "target called exec of %.200s, whose malloc is in %.200s, an "
			 "allocator tracelloc does not trace: stopped there", exe, culprit);
	else
		snprintf(buf, size, "target called exec of %.200s, which could not be "
			 "probed (%s): stopped there", exe, strerror(-err));
}
