/* SPDX-License-Identifier: GPL-2.0 */
/* temporary directories for the tests that write files */
#ifndef TRACELLOC_UNIT_TMPDIR_H
#define TRACELLOC_UNIT_TMPDIR_H

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* a fresh empty directory under $TMPDIR (or /tmp) */
static inline char *make_dir(void)
{
	const char *base = getenv("TMPDIR");
	char *dir;

	if (asprintf(&dir, "%s/tracelloc-unit.XXXXXX", base && *base ? base : "/tmp") < 0)
		return NULL;
	if (!mkdtemp(dir)) {
		free(dir);
		return NULL;
	}
	return dir;
}

/* removes path and what it holds, links not followed */
static inline void remove_tree(const char *path)
{
	struct dirent *e;
	DIR *d;

	if (!unlink(path) || errno != EISDIR)
		return;
	d = opendir(path);
	while (d && (e = readdir(d))) {
		char sub[PATH_MAX];

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name) < (int)sizeof(sub))
			remove_tree(sub);
	}
	if (d)
		closedir(d);
	rmdir(path);
}

static inline void remove_dir(char *dir)
{
	if (!dir)
		return;
	remove_tree(dir);
	free(dir);
}

/* the names in dir, sorted, joined by ' ' (static buffer) */
static inline const char *dir_names(const char *dir)
{
	static char buf[1024];
	char *names[64];
	struct dirent *e;
	size_t n = 0, i, j;
	DIR *d = opendir(dir);

	buf[0] = '\0';
	if (!d)
		return "(opendir failed)";
	while ((e = readdir(d)) && n < 64)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			names[n++] = strdup(e->d_name);
	closedir(d);
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j];

			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	for (i = 0; i < n; i++) {
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? " " : "",
			 names[i]);
		free(names[i]);
	}
	return buf;
}

/* dir/name, in one of 4 rotating static buffers */
static inline const char *in_dir(const char *dir, const char *name)
{
	static char buf[4][PATH_MAX];
	static int which;

	which = (which + 1) % 4;
	snprintf(buf[which], sizeof(buf[which]), "%s/%s", dir, name);
	return buf[which];
}

#endif
