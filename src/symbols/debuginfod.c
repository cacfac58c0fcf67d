// SPDX-License-Identifier: GPL-2.0
/* the debuginfod servers libdw asks (see debuginfod.h) */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "debuginfod.h"
#include "text.h"

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
	if (set && *set)
		snprintf(buf, size, "%s", set);
	else if (!debuginfod__read_urls(dir, buf, size))
		setenv("DEBUGINFOD_URLS", buf, 1);
	if (buf[0] && !getenv("DEBUGINFOD_TIMEOUT")) {
		char secs[16];

		snprintf(secs, sizeof(secs), "%d", DEBUGINFOD_QUERY_S);
		setenv("DEBUGINFOD_TIMEOUT", secs, 1);
	}
	/* its default tries a silent server three times over */
	if (buf[0] && !getenv("DEBUGINFOD_RETRY_LIMIT"))
		setenv("DEBUGINFOD_RETRY_LIMIT", "0", 1);
}

static uint64_t spent_ns;
static bool gave_up;

uint64_t debuginfod__begin(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	return urls && *urls ? clock__now_ns() : 0;
}

void debuginfod__end(uint64_t began, bool found)
{
	uint64_t took;
	char *urls;

	if (!began || gave_up)
		return;
	took = clock__now_ns() - began;
	spent_ns += took;
	if (found || (took < DEBUGINFOD_QUERY_S * 900000000ULL &&
		      spent_ns < DEBUGINFOD_BUDGET_S * 1000000000ULL))
		return;
	gave_up = true;
	urls = strdup(getenv("DEBUGINFOD_URLS"));
	unsetenv("DEBUGINFOD_URLS");
	fprintf(stderr, "tracelloc: the debuginfod servers did not answer in time (%.1f s: ", took / 1e9);
	text__put(stderr, urls ? urls : "?");
	fputs("): no more are asked, and the frames of stripped files keep their addresses\n", stderr);
	free(urls);
}
