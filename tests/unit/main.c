// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the userspace modules: no root, no BPF.
 *
 *	build/tests/unit [-v] [SUBSTRING...]
 *
 * runs every test (or those whose name contains one of the SUBSTRINGs),
 * prints on stdout one line per failed test (-v: per test) and ends with
 * "unit: N passed, N failed"; exits 1 if any failed.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"

static struct unit_test *first, **last = &first;
static const struct unit_test *current;
static bool current_failed;
static int passed, failed, remaining;

void test__register(struct unit_test *t)
{
	t->next = NULL;
	*last = t;
	last = &t->next;
}

bool test__failed(void)
{
	return current_failed;
}

static void vfail(const char *file, int line, const char *fmt, va_list ap)
{
	/* the first failure of a test is its line; later ones (from helpers) are dropped */
	if (current_failed)
		return;
	current_failed = true;
	printf("FAIL %s: %s:%d: ", current ? current->name : "?", file, line);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
}

void test__fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(file, line, fmt, ap);
	va_end(ap);
}

static void fmt_int(char *buf, size_t size, long long v)
{
	if (v > 65535 || v < -65535)
		snprintf(buf, size, "%lld (%#llx)", v, (unsigned long long)v);
	else
		snprintf(buf, size, "%lld", v);
}

void test__fail_cmp(const char *file, int line, const char *what, const char *op,
		    long long got, long long want)
{
	char g[64], w[64];

	fmt_int(g, sizeof(g), got);
	fmt_int(w, sizeof(w), want);
	if (!strcmp(op, "=="))
		test__fail(file, line, "%s: got %s, want %s", what, g, w);
	else
		test__fail(file, line, "%s: got %s, want %s %s", what, g, op, w);
}

/* "..." with C escapes so that a multi-line string stays on one line; "(null)" */
static char *escape(const char *s)
{
	char *buf, *p;

	if (!s)
		return strdup("(null)");
	buf = malloc(strlen(s) * 4 + 3);
	if (!buf)
		return NULL;
	p = buf;
	*p++ = '"';
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '\n')
			p += sprintf(p, "\\n");
		else if (c == '\t')
			p += sprintf(p, "\\t");
		else if (c == '"' || c == '\\')
			p += sprintf(p, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			p += sprintf(p, "\\x%02x", c);
		else
			*p++ = c;
	}
	*p++ = '"';
	*p = '\0';
	return buf;
}

void test__fail_str(const char *file, int line, const char *what, const char *got,
		    const char *want)
{
	char *g = escape(got), *w = escape(want);

	test__fail(file, line, "%s: got %s, want %s", what, g ? g : "?", w ? w : "?");
	free(g);
	free(w);
}

static void crashed(int sig)
{
	/* not async-signal-safe, but the process is going down anyway */
	fprintf(stdout, "FAIL %s: killed by signal %d (%s); %d tests not run\n",
		current ? current->name : "?", sig, strsignal(sig), remaining);
	fprintf(stdout, "unit: %d passed, %d failed\n", passed, failed + 1);
	fflush(stdout);
	_exit(1);
}

static bool selected(const struct unit_test *t, int argc, char **argv)
{
	int i, filters = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-v"))
			continue;
		filters++;
		if (strstr(t->name, argv[i]))
			return true;
	}
	return !filters;
}

int main(int argc, char **argv)
{
	static const int signals[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL };
	bool verbose = false;
	struct unit_test *t;
	size_t i;
	int a;

	for (a = 1; a < argc; a++)
		if (!strcmp(argv[a], "-v"))
			verbose = true;
	for (i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
		signal(signals[i], crashed);
	for (t = first; t; t = t->next)
		if (selected(t, argc, argv))
			remaining++;

	for (t = first; t; t = t->next) {
		if (!selected(t, argc, argv))
			continue;
		remaining--;
		current = t;
		current_failed = false;
		t->fn();
		fflush(stdout);
		if (current_failed) {
			failed++;
		} else {
			passed++;
			if (verbose)
				printf("ok   %s\n", t->name);
		}
	}
	current = NULL;
	printf("unit: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
