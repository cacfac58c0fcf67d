/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TRACELLOC_SUPPRESS_H
#define TRACELLOC_SUPPRESS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Suppressions, as LeakSanitizer writes them: a file of `leak:PATTERN`
 * lines (and `#` comments); a stack is suppressed when a frame's function,
 * source file or module matches a pattern. A pattern matches anywhere in
 * the name unless it begins with `^` or ends with `$`; `*` matches any run
 * of characters. Built in (unless turned off): stacks made only of the C
 * and C++ runtimes' own frames (libstdc++, libc, libgcc_s, ld.so), which no
 * program called and no program can free: libstdc++'s emergency exception
 * pool, the runtimes' start-up allocations.
 */
struct suppressions;

struct suppressions *suppress__new(bool builtin);
void suppress__destroy(struct suppressions *s);

/* path's rules; -EINVAL for a bad line (*line says which, why says what)
 * or a path that is no regular file (*line 0, why says what it is), other
 * negative errno when it cannot be read */
int suppress__load(struct suppressions *s, const char *path, int *line, char *why, size_t len);
/* rules loaded (the built-in one included) */
size_t suppress__count(const struct suppressions *s);

/* one stack, a frame at a time, innermost first */
struct suppress_walk {
	const struct suppressions *s;
	bool matched;		/* a rule matched a frame */
	bool runtime_only;	/* every frame so far is the runtimes' */
	size_t frames;
};

void suppress__begin(const struct suppressions *s, struct suppress_walk *w);
void suppress__frame(struct suppress_walk *w, const char *function, const char *file,
		     const char *module);
/* is the stack suppressed */
bool suppress__end(const struct suppress_walk *w);

/* does name match pattern (the template rules above) */
bool suppress__template_match(const char *pattern, const char *name);

#endif
