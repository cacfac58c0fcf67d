// SPDX-License-Identifier: GPL-2.0
/* the debuginfod servers libdw asks (see debuginfod.h) */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfod.h"

static int urls_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".urls");
}

/* the whitespace-separated words of one file, appended */
static void append_words(FILE *f, char *buf, size_t size, size_t *len)
{
	char word[1024];

	while (fscanf(f, "%1023s", word) == 1) {
		size_t n = strlen(word);

		if (*len + n + 2 > size)
			return;
		if (*len)
			buf[(*len)++] = ' ';
		memcpy(buf + *len, word, n + 1);
		*len += n;
	}
}

int debuginfod__read_urls(const char *dir, char *buf, size_t size)
{
	struct dirent **names;
	size_t len = 0;
	int n, i;

	if (!size)
		return -EINVAL;
	buf[0] = '\0';
	n = scandir(dir, &names, urls_file, alphasort);
	if (n < 0)
		return -errno;
	for (i = 0; i < n; i++) {
		char path[4096];
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		f = fopen(path, "re");
		if (f) {
			append_words(f, buf, size, &len);
			fclose(f);
		}
		free(names[i]);
	}
	free(names);
	return len ? 0 : -ENOENT;
}

void debuginfod__setup(bool off, const char *dir, char *buf, size_t size)
{
	const char *set = getenv("DEBUGINFOD_URLS");

	buf[0] = '\0';
	if (off) {
		unsetenv("DEBUGINFOD_URLS");
		return;
	}
	if (set && *set) {
		snprintf(buf, size, "%s", set);
		return;
	}
	if (!debuginfod__read_urls(dir, buf, size))
		setenv("DEBUGINFOD_URLS", buf, 1);
}
