// SPDX-License-Identifier: GPL-2.0
/* suppressions (see suppress.h) */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "suppress.h"

struct suppressions {
	bool builtin;
	char **patterns;
	size_t n, cap;
};

struct suppressions *suppress__new(bool builtin)
{
	struct suppressions *s = calloc(1, sizeof(*s));

	if (s)
		s->builtin = builtin;
	return s;
}

void suppress__destroy(struct suppressions *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->n; i++)
		free(s->patterns[i]);
	free(s->patterns);
	free(s);
}

size_t suppress__count(const struct suppressions *s)
{
	return s->n + s->builtin;
}

static int add(struct suppressions *s, const char *pattern)
{
	char *copy;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		char **grown = realloc(s->patterns, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		s->patterns = grown;
		s->cap = cap;
	}
	copy = strdup(pattern);
	if (!copy)
		return -ENOMEM;
	s->patterns[s->n++] = copy;
	return 0;
}

/* one line, trimmed: 0, or -EINVAL and why */
static int parse_line(struct suppressions *s, char *text, char *why, size_t len)
{
	char *end = text + strlen(text);

	while (*text == ' ' || *text == '\t')
		text++;
	while (end > text && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ' ||
			      end[-1] == '\t'))
		*--end = '\0';
	if (!*text || *text == '#')
		return 0;
	if (strncmp(text, "leak:", 5)) {
		snprintf(why, len, "expected leak:PATTERN (only leak suppressions are known)");
		return -EINVAL;
	}
	text += 5;
	if (!*text) {
		snprintf(why, len, "leak: with no pattern");
		return -EINVAL;
	}
	return add(s, text);
}

/* path, if it is a regular file: a FIFO would wait for a writer (opened
 * here without waiting), a device may never end, a directory reads as EIO */
static FILE *open_regular(const char *path, char *why, size_t len, int *err)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	FILE *f;

	if (fd < 0 || fstat(fd, &st)) {
		*err = -errno;
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, len, "%s, not a file of rules",
			 S_ISDIR(st.st_mode) ? "a directory" :
			 S_ISFIFO(st.st_mode) ? "a FIFO" :
			 S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" :
			 S_ISSOCK(st.st_mode) ? "a socket" : "not a regular file");
		close(fd);
		*err = -EINVAL;
		return NULL;
	}
	fcntl(fd, F_SETFL, 0);
	f = fdopen(fd, "r");
	if (!f) {
		*err = -errno;
		close(fd);
	}
	return f;
}

int suppress__load(struct suppressions *s, const char *path, int *line, char *why, size_t len)
{
	char text[4096];
	FILE *f;
	int err = 0;

	*line = 0;
	why[0] = '\0';
	f = open_regular(path, why, len, &err);
	if (!f)
		return err;
	while (!err && fgets(text, sizeof(text), f)) {
		(*line)++;
		if (!strchr(text, '\n') && !feof(f)) {
			snprintf(why, len, "a line longer than %zu bytes", sizeof(text) - 1);
			err = -EINVAL;
			break;
		}
		err = parse_line(s, text, why, len);
	}
	if (!err && ferror(f))
		err = -EIO;
	fclose(f);
	return err;
}

/* the template of LeakSanitizer's suppressions: ^ and $ anchor, * is any run */
static bool match_here(const char *p, const char *n, bool anchored_end)
{
	for (; *p; p++) {
		if (*p == '*') {
			while (p[1] == '*')
				p++;
			if (!p[1] || (p[1] == '$' && !p[2] && anchored_end))
				return true;
			for (; *n; n++)
				if (match_here(p + 1, n, anchored_end))
					return true;
			return match_here(p + 1, n, anchored_end);
		}
		if (*p == '$' && !p[1] && anchored_end)
			return !*n;
		if (*p != *n)
			return false;
		n++;
	}
	return !anchored_end || !*n;
}

bool suppress__template_match(const char *pattern, const char *name)
{
	size_t len = strlen(pattern);
	bool start = pattern[0] == '^', end = len && pattern[len - 1] == '$';

	if (!name)
		return false;
	if (start)
		return match_here(pattern + 1, name, end);
	for (; *name; name++)
		if (match_here(pattern, name, end))
			return true;
	return match_here(pattern, name, end);
}

void suppress__begin(const struct suppressions *s, struct suppress_walk *w)
{
	*w = (struct suppress_walk){ .s = s, .runtime_only = true };
}

/* the C and C++ runtimes' files */
static bool runtime_module(const char *module)
{
	static const char *const runtimes[] = { "libstdc++.so", "libc.so", "libgcc_s.so", "ld-linux",
						"libm.so" };
	const char *base = module ? strrchr(module, '/') : NULL;
	size_t i;

	base = base ? base + 1 : module;
	for (i = 0; base && i < sizeof(runtimes) / sizeof(runtimes[0]); i++)
		if (!strncmp(base, runtimes[i], strlen(runtimes[i])))
			return true;
	return false;
}

void suppress__frame(struct suppress_walk *w, const char *function, const char *file,
		     const char *module)
{
	size_t i;

	w->frames++;
	if (!runtime_module(module))
		w->runtime_only = false;
	for (i = 0; i < w->s->n && !w->matched; i++)
		w->matched = suppress__template_match(w->s->patterns[i], function) ||
			     suppress__template_match(w->s->patterns[i], file) ||
			     suppress__template_match(w->s->patterns[i], module);
}

bool suppress__end(const struct suppress_walk *w)
{
	return w->matched || (w->s->builtin && w->frames && w->runtime_only);
}
