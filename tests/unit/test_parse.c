// SPDX-License-Identifier: GPL-2.0
/* maps.c (/proc/PID/maps text) and options.c (the command line) */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <getopt.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "debuginfod.h"
#include "maps.h"
#include "suppress.h"
#include "options.h"
#include "test.h"
#include "tracelloc.h"

/* as the kernel prints it: anonymous mappings end with "0 " (a trailing space) */
static const char maps_text[] =
	"55d0c0a00000-55d0c0a02000 r--p 00000000 fe:00 247498                     /usr/bin/my prog\n"
	"55d0c0a02000-55d0c0a08000 r-xp 00002000 fe:00 247498                     /usr/bin/my prog\n"
	"55d0c0a08000-55d0c0a0b000 r--p 00008000 fe:00 247498                     /usr/bin/my prog\n"
	"55d0c1e4f000-55d0c1e70000 rw-p 00000000 00:00 0                          [heap]\n"
	"7f1c2a000000-7f1c2a021000 rw-p 00000000 00:00 0 \n"
	"7f1c2a021000-7f1c2e000000 ---p 00000000 00:00 0 \n"
	"7f1c2e1d4000-7f1c2e1fa000 r--p 00000000 fe:00 263342                     /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"7f1c2e1fa000-7f1c2e34f000 r-xp 00026000 fe:00 263342                     /usr/lib/x86_64-linux-gnu/libc.so.6\n"
	"7f1c2e400000-7f1c2e401000 r-xp 00001000 00:1f 12345                      /tmp/plug in.so (deleted)\n"
	"7f1c2e5a0000-7f1c2e5a2000 rw-p 00000000 00:00 0 \n"
	"7ffc1e2f0000-7ffc1e311000 rw-p 00000000 00:00 0                          [stack]\n"
	"7ffc1e3c4000-7ffc1e3c8000 r--p 00000000 00:00 0                          [vvar]\n"
	"7ffc1e3c8000-7ffc1e3ca000 r-xp 00000000 00:00 0                          [vdso]\n"
	"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n";

static const struct {
	uint64_t start, end, offset, inode;
	unsigned int major, minor;
	bool exec, deleted;
	const char *path;
} maps_want[] = {
	{ 0x55d0c0a00000, 0x55d0c0a02000, 0, 247498, 0xfe, 0, false, false, "/usr/bin/my prog" },
	{ 0x55d0c0a02000, 0x55d0c0a08000, 0x2000, 247498, 0xfe, 0, true, false, "/usr/bin/my prog" },
	{ 0x55d0c0a08000, 0x55d0c0a0b000, 0x8000, 247498, 0xfe, 0, false, false, "/usr/bin/my prog" },
	{ 0x55d0c1e4f000, 0x55d0c1e70000, 0, 0, 0, 0, false, false, "[heap]" },
	{ 0x7f1c2a000000, 0x7f1c2a021000, 0, 0, 0, 0, false, false, NULL },
	{ 0x7f1c2a021000, 0x7f1c2e000000, 0, 0, 0, 0, false, false, NULL },
	{ 0x7f1c2e1d4000, 0x7f1c2e1fa000, 0, 263342, 0xfe, 0, false, false,
	  "/usr/lib/x86_64-linux-gnu/libc.so.6" },
	{ 0x7f1c2e1fa000, 0x7f1c2e34f000, 0x26000, 263342, 0xfe, 0, true, false,
	  "/usr/lib/x86_64-linux-gnu/libc.so.6" },
	{ 0x7f1c2e400000, 0x7f1c2e401000, 0x1000, 12345, 0, 0x1f, true, true, "/tmp/plug in.so" },
	{ 0x7f1c2e5a0000, 0x7f1c2e5a2000, 0, 0, 0, 0, false, false, NULL },
	{ 0x7ffc1e2f0000, 0x7ffc1e311000, 0, 0, 0, 0, false, false, "[stack]" },
	{ 0x7ffc1e3c4000, 0x7ffc1e3c8000, 0, 0, 0, 0, false, false, "[vvar]" },
	{ 0x7ffc1e3c8000, 0x7ffc1e3ca000, 0, 0, 0, 0, true, false, "[vdso]" },
	{ 0xffffffffff600000, 0xffffffffff601000, 0, 0, 0, 0, true, false, "[vsyscall]" },
};

#define NWANT (sizeof(maps_want) / sizeof(maps_want[0]))

static void check_maps(const struct maps *m, const char *what)
{
	size_t i;

	ASSERT_EQ(m->count, NWANT, "%s: mappings", what);
	for (i = 0; i < NWANT; i++) {
		const struct mapping *g = &m->mappings[i];

		ASSERT_EQ(g->start, maps_want[i].start, "%s: start of line %zu", what, i + 1);
		ASSERT_EQ(g->end, maps_want[i].end, "%s: end of line %zu", what, i + 1);
		ASSERT_EQ(g->offset, maps_want[i].offset, "%s: offset of line %zu", what, i + 1);
		ASSERT_EQ(g->inode, maps_want[i].inode, "%s: inode of line %zu", what, i + 1);
		ASSERT_EQ(g->dev_major, maps_want[i].major, "%s: major of line %zu", what, i + 1);
		ASSERT_EQ(g->dev_minor, maps_want[i].minor, "%s: minor of line %zu", what, i + 1);
		ASSERT_EQ(g->exec, maps_want[i].exec, "%s: exec of line %zu", what, i + 1);
		ASSERT_EQ(g->deleted, maps_want[i].deleted, "%s: deleted of line %zu", what, i + 1);
	}
	for (i = 0; i < NWANT; i++)
		ASSERT_STREQ(m->mappings[i].path, maps_want[i].path, "%s: path of line %zu", what,
			     i + 1);
}

TEST(maps_parse)
{
	struct maps m;

	ASSERT_OK(maps__parse(maps_text, &m), "maps__parse");
	check_maps(&m, "kernel text");
	maps__clear(&m);
	if (test__failed())
		return;
	ASSERT_EQ(m.count, 0, "count after clear");
	ASSERT_NULL(m.mappings, "mappings after clear");
}

/* each line of maps_text parsed on its own */
TEST(maps_parse_single_lines)
{
	const char *line = maps_text;
	size_t i;

	for (i = 0; i < NWANT; i++) {
		size_t len = strcspn(line, "\n") + 1;
		char *text = strndup(line, len);
		struct maps m;

		ASSERT_OK_PTR(text, "strndup");
		m.count = 0;
		if (maps__parse(text, &m) || m.count != 1) {
			free(text);
			maps__clear(&m);
			ASSERT_TRUE(false, "maps__parse of line %zu alone", i + 1);
		}
		free(text);
		ASSERT_EQ(m.mappings[0].start, maps_want[i].start, "start of line %zu alone", i + 1);
		ASSERT_EQ(m.mappings[0].deleted, maps_want[i].deleted, "deleted of line %zu alone", i + 1);
		text = m.mappings[0].path ? strdup(m.mappings[0].path) : NULL;
		maps__clear(&m);
		ASSERT_STREQ(text, maps_want[i].path, "path of line %zu alone", i + 1);
		free(text);
		line += len;
	}
}

TEST(maps_parse_variants)
{
	char *text = strdup(maps_text), *p, *q;
	struct maps m;

	ASSERT_OK_PTR(text, "strdup");
	/* anonymous lines without their trailing space */
	for (p = q = text; *p; p++)
		if (!(p[0] == ' ' && p[1] == '\n'))
			*q++ = *p;
	*q = '\0';
	ASSERT_OK(maps__parse(text, &m), "maps__parse, no trailing spaces");
	free(text);
	check_maps(&m, "no trailing spaces");
	maps__clear(&m);
	if (test__failed())
		return;

	/* no newline after the last line */
	text = strndup(maps_text, sizeof(maps_text) - 2);
	ASSERT_OK_PTR(text, "strndup");
	ASSERT_OK(maps__parse(text, &m), "maps__parse, no final newline");
	free(text);
	check_maps(&m, "no final newline");
	maps__clear(&m);
	if (test__failed())
		return;

	ASSERT_OK(maps__parse("", &m), "maps__parse of nothing");
	ASSERT_EQ(m.count, 0, "mappings of nothing");
	ASSERT_NULL(maps__find(&m, 0x1000), "find in no mappings");
	maps__clear(&m);

	/* a single anonymous line, last in the text */
	ASSERT_OK(maps__parse("1000-2000 rw-p 00000000 00:00 0 \n", &m), "one anonymous line");
	ASSERT_EQ(m.count, 1, "mappings");
	ASSERT_NULL(m.mappings[0].path, "path of an anonymous mapping");
	maps__clear(&m);
}

TEST(maps_parse_errors)
{
	static const char *const bad[] = {
		"garbage\n",
		"1000-2000 rw-p 00000000 00:00\n",
		"55d0c1e4f000-55d0c1e70000 rw-p 00000000 00:00 0 [heap]\nnot a line\n",
	};
	struct maps m;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m.count = 99;
		ASSERT_EQ(maps__parse(bad[i], &m), -EINVAL, "maps__parse of bad text #%zu", i);
		ASSERT_EQ(m.count, 0, "count after an error, text #%zu", i);
		ASSERT_NULL(m.mappings, "mappings after an error, text #%zu", i);
	}
}

/* code that went away stays findable; what took its place wins; at most max kept */
TEST(maps_keep_code)
{
	static const char before_text[] =
		"1000-2000 r-xp 00000000 08:01 11 /usr/bin/node\n"
		"3000-4000 rwxp 00000000 00:00 0 \n"		/* JIT code, writable now */
		"5000-6000 r-xp 00001000 08:01 11 /usr/bin/node\n"	/* its copy: unmapped */
		"7000-8000 rw-p 00000000 00:00 0 \n"		/* data: unmapped */
		"9000-a000 r-xp 00000000 08:01 12 /lib/old.so\n";	/* replaced */
	static const char now_text[] =
		"1000-2000 r-xp 00000000 08:01 11 /usr/bin/node\n"
		"3000-4000 rw-p 00000000 00:00 0 \n"
		"9000-b000 r-xp 00000000 08:01 13 /lib/new.so\n"
		"c000-d000 rw-p 00000000 00:00 0 \n";
	struct maps before, now;
	const struct mapping *f;

	ASSERT_OK(maps__parse(before_text, &before), "parse before");
	ASSERT_OK(maps__parse(now_text, &now), "parse now");
	ASSERT_OK(maps__keep_code(&now, &before, 8), "keep");
	ASSERT_EQ(now.count, 5, "the copy kept, nothing else");
	f = maps__find(&now, 0x5800);
	ASSERT_TRUE(f && f->exec && f->offset == 0x1000 && f->inode == 11, "the copy found");
	ASSERT_STREQ(f->path, "/usr/bin/node", "the copy's path moved");
	ASSERT_NULL(before.mappings[2].path, "taken from before");
	ASSERT_NULL(maps__find(&now, 0x7800), "gone data not kept");
	f = maps__find(&now, 0x9800);
	ASSERT_TRUE(f && f->inode == 13, "what took old code's place wins");
	f = maps__find(&now, 0x3800);
	ASSERT_TRUE(f && f->exec, "JIT code made writable is still code");
	ASSERT_FALSE(maps__find(&now, 0xc800)->exec, "new data is not code");
	for (size_t i = 1; i < now.count; i++)
		ASSERT_TRUE(now.mappings[i - 1].end <= now.mappings[i].start, "in address order at %zu", i);
	maps__clear(&before);
	maps__clear(&now);

	/* max: the first ones in address order */
	ASSERT_OK(maps__parse("1000-2000 r-xp 00000000 00:00 0 \n3000-4000 r-xp 00000000 00:00 0 \n",
			      &before), "parse before, two");
	ASSERT_OK(maps__parse("8000-9000 rw-p 00000000 00:00 0 \n", &now), "parse now, one");
	ASSERT_OK(maps__keep_code(&now, &before, 1), "keep one");
	ASSERT_EQ(now.count, 2, "one kept");
	ASSERT_TRUE(maps__find(&now, 0x1800) && !maps__find(&now, 0x3800), "the first kept");
	ASSERT_EQ(now.mappings[1].start, 0x8000, "after it, what is mapped now");
	maps__clear(&before);
	maps__clear(&now);
}

TEST(maps_find_edges)
{
	const struct mapping *f;
	struct maps m;
	size_t i;

	ASSERT_OK(maps__parse(maps_text, &m), "maps__parse");
	ASSERT_EQ(m.count, NWANT, "mappings");
	for (i = 0; i < NWANT; i++) {
		uint64_t start = maps_want[i].start, end = maps_want[i].end;

		ASSERT_TRUE(maps__find(&m, start) == &m.mappings[i], "find(start) of line %zu", i + 1);
		ASSERT_TRUE(maps__find(&m, start + (end - start) / 2) == &m.mappings[i],
			    "find(middle) of line %zu", i + 1);
		ASSERT_TRUE(maps__find(&m, end - 1) == &m.mappings[i], "find(end - 1) of line %zu",
			    i + 1);
		f = maps__find(&m, end);
		if (i + 1 < NWANT && maps_want[i + 1].start == end)
			ASSERT_TRUE(f == &m.mappings[i + 1], "find(end) of line %zu is the next one",
				    i + 1);
		else
			ASSERT_NULL(f, "find(end) of line %zu, in a gap or past the last", i + 1);
		if (i == 0 || maps_want[i - 1].end != start)
			ASSERT_NULL(maps__find(&m, start - 1), "find(start - 1) of line %zu", i + 1);
	}
	ASSERT_NULL(maps__find(&m, 0), "find(0)");
	ASSERT_NULL(maps__find(&m, 0x55d0c0a0b000), "find in the gap after the binary");
	ASSERT_NULL(maps__find(&m, 0x7f1c2e000000), "find(end) of the reserved region");
	ASSERT_TRUE(maps__find(&m, 0xffffffffffffffffULL) == NULL, "find(max) past vsyscall");
	maps__clear(&m);
}

TEST(maps_find_many)
{
	/* 1000 mappings, 4 pages each, one page gap every third */
	char *text = NULL;
	size_t size = 0, i;
	uint64_t start = 0x10000, starts[1000];
	struct maps m;
	FILE *out = open_memstream(&text, &size);

	ASSERT_OK_PTR(out, "open_memstream");
	for (i = 0; i < 1000; i++) {
		starts[i] = start;
		fprintf(out, "%llx-%llx r-xp 00000000 08:01 %zu /lib/lib%zu.so\n",
			(unsigned long long)start, (unsigned long long)start + 0x4000, i + 1, i);
		start += 0x4000 + (i % 3 == 0 ? 0x1000 : 0);
	}
	fclose(out);
	ASSERT_OK(maps__parse(text, &m), "maps__parse");
	free(text);
	ASSERT_EQ(m.count, 1000, "mappings");
	for (i = 0; i < 1000; i++) {
		ASSERT_TRUE(maps__find(&m, starts[i]) == &m.mappings[i], "find(start) of #%zu", i);
		ASSERT_TRUE(maps__find(&m, starts[i] + 0x3fff) == &m.mappings[i],
			    "find(end - 1) of #%zu", i);
		if (i % 3 == 0)
			ASSERT_NULL(maps__find(&m, starts[i] + 0x4000), "find in the gap after #%zu", i);
	}
	ASSERT_NULL(maps__find(&m, 0xffff), "find below the first");
	ASSERT_NULL(maps__find(&m, start), "find at the end of the last");
	maps__clear(&m);
}

TEST(maps_open_self)
{
	const struct mapping *file = NULL;
	struct stat st;
	struct maps m;
	size_t i;
	int fd;

	ASSERT_OK(maps__read(getpid(), &m), "maps__read of this process");
	for (i = 0; i < m.count && !file; i++)
		if (m.mappings[i].path && m.mappings[i].path[0] == '/' && m.mappings[i].inode)
			file = &m.mappings[i];
	ASSERT_OK_PTR(file, "a file mapping of our own");
	fd = maps__open(getpid(), file);
	ASSERT_GE(fd, 0, "maps__open of our own file");
	ASSERT_OK(fstat(fd, &st), "fstat");
	ASSERT_EQ(st.st_ino, file->inode, "the file the maps named");
	close(fd);
	maps__clear(&m);
}

TEST(maps_read_self)
{
	struct maps m;

	ASSERT_OK(maps__read(getpid(), &m), "maps__read of this process");
	ASSERT_GT(m.count, 3, "mappings of this process");
	ASSERT_OK_PTR(maps__find(&m, (uint64_t)(uintptr_t)&maps__parse),
		      "mapping of our own code");
	maps__clear(&m);
}

/* options */

static char cap_out[16384], cap_err[4096];

static void slurp(int fd, char *buf, size_t size)
{
	ssize_t n;
	size_t len = 0;

	lseek(fd, 0, SEEK_SET);
	while (len + 1 < size && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
}

/* for messages: s on one line, shortened */
static const char *shown(const char *s)
{
	static char buf[2][128];
	static int which;
	char *b = buf[which ^= 1];
	size_t n = 0;

	for (; *s && n + 3 < sizeof(buf[0]); s++) {
		if (*s == '\n') {
			b[n++] = '\\';
			b[n++] = 'n';
		} else {
			b[n++] = *s;
		}
	}
	b[n] = '\0';
	return b;
}

/*
 * glibc's getopt keeps state across calls: its position inside a cluster of
 * short options ("-xv"), and the ordering its optstring asked for ('+': stop at
 * the first non-option), which it reads only on its first call or after
 * optind = 0. This puts it back as in a fresh process whose first getopt call
 * is options__parse's: initialized, in '+' order, at no cluster.
 */
static void reset_getopt(const char *optstring)
{
	char *argv[] = { "reset", NULL };

	optind = 0;
	opterr = 0;
	getopt(1, argv, optstring);
}

/* options__parse with stdout and stderr captured into cap_out and cap_err;
 * reset: from a clean getopt state, else as the previous call left it */
static int parse_captured(struct options *opts, char **args, bool reset)
{
	/* opts->command points into argv: it must outlive the call */
	static char *argv[32];
	int argc = 0, rc, saved_out, saved_err;
	FILE *out, *err;

	while (args[argc] && argc < 31) {
		argv[argc] = args[argc];
		argc++;
	}
	argv[argc] = NULL;
	out = tmpfile();
	err = tmpfile();
	cap_out[0] = cap_err[0] = '\0';
	if (!out || !err) {
		snprintf(cap_err, sizeof(cap_err), "(tmpfile failed)");
		if (out)
			fclose(out);
		if (err)
			fclose(err);
		return -12345;
	}
	if (reset)
		reset_getopt("+");
	fflush(stdout);
	fflush(stderr);
	saved_out = dup(1);
	saved_err = dup(2);
	dup2(fileno(out), 1);
	dup2(fileno(err), 2);
	rc = options__parse(argc, argv, opts);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	slurp(fileno(out), cap_out, sizeof(cap_out));
	slurp(fileno(err), cap_err, sizeof(cap_err));
	fclose(out);
	fclose(err);
	return rc;
}

/* the argument strings are literals: they live as long as the program */
#define PARSE(opts, ...) parse_captured(opts, (char *[]){ "tracelloc", ##__VA_ARGS__, NULL }, true)
/* without resetting getopt first: options__parse must do it */
#define PARSE_AGAIN(opts, ...)                                                      \
	parse_captured(opts, (char *[]){ "tracelloc", ##__VA_ARGS__, NULL }, false)

#define ASSERT_QUIET(what)                                                          \
	do {                                                                        \
		ASSERT_STREQ(cap_err, "", "stderr of %s", what);                    \
		ASSERT_STREQ(cap_out, "", "stdout of %s", what);                    \
	} while (0)

TEST(options_defaults)
{
	struct options o;

	ASSERT_EQ(PARSE(&o, "-p", "123"), OPTIONS_RUN, "-p 123");
	ASSERT_QUIET("-p 123");
	ASSERT_EQ(o.pid, 123, "pid");
	ASSERT_NULL(o.command, "command");
	ASSERT_TRUE(o.duration_s == 0, "duration default 0 (got %g)", o.duration_s);
	ASSERT_TRUE(o.interval_s == 1, "interval default 1 (got %g)", o.interval_s);
	ASSERT_NULL(o.output_paths[OUTPUT_FOLDED], "flamegraph path");
	ASSERT_NULL(o.output_paths[OUTPUT_PPROF], "pprof path");
	ASSERT_NULL(o.listen, "listen");
	ASSERT_EQ(o.flamegraph_metric, METRIC_LIVE_BYTES, "metric default live");
	ASSERT_EQ(o.ringbuf_bytes, 0, "ring buffer default: by CPU count");
	ASSERT_EQ(o.verbose, 0, "verbose");
	ASSERT_EQ(o.unwind, UNWIND_MODE_AUTO, "unwind default auto");
}

TEST(options_unwind)
{
	struct options o;

	ASSERT_EQ(PARSE(&o, "-p", "1", "--unwind", "fp"), OPTIONS_RUN, "--unwind fp");
	ASSERT_EQ(o.unwind, UNWIND_MODE_FP, "--unwind fp");
	ASSERT_EQ(PARSE(&o, "-p", "1", "--unwind=dwarf"), OPTIONS_RUN, "--unwind=dwarf");
	ASSERT_EQ(o.unwind, UNWIND_MODE_DWARF, "--unwind=dwarf");
	ASSERT_EQ(PARSE(&o, "-p", "1", "--unwind", "auto"), OPTIONS_RUN, "--unwind auto");
	ASSERT_EQ(o.unwind, UNWIND_MODE_AUTO, "--unwind auto");
	ASSERT_TRUE(PARSE(&o, "-p", "1", "--unwind", "DWARF") != OPTIONS_RUN, "--unwind DWARF");
	ASSERT_TRUE(strstr(cap_err, "expected auto, dwarf or fp") != NULL,
		    "--unwind DWARF: the error names the modes");
}

TEST(options_leak_check)
{
	struct options o;

	ASSERT_EQ(PARSE(&o, "--leak-check", "--error-exitcode", "3", "-p", "1"), OPTIONS_RUN,
		  "--leak-check --error-exitcode 3");
	ASSERT_QUIET("--leak-check --error-exitcode 3");
	ASSERT_TRUE(o.leak_check, "leak_check");
	ASSERT_EQ(o.error_exitcode, 3, "error_exitcode");
	ASSERT_TRUE(PARSE(&o, "--error-exitcode", "3", "-p", "1") != OPTIONS_RUN,
		    "--error-exitcode alone");
	ASSERT_TRUE(strstr(cap_err, "give --leak-check as well") != NULL, "says why");
	ASSERT_TRUE(PARSE(&o, "--leak-check", "--sample-bytes", "1M", "-p", "1") != OPTIONS_RUN,
		    "--leak-check with sampling");
	ASSERT_TRUE(strstr(cap_err, "not with --sample-bytes") != NULL, "says why");
	ASSERT_TRUE(PARSE(&o, "--leak-check", "--error-exitcode", "0", "-p", "1") != OPTIONS_RUN,
		    "--error-exitcode 0");
	ASSERT_TRUE(PARSE(&o, "--leak-check", "--error-exitcode", "256", "-p", "1") != OPTIONS_RUN,
		    "--error-exitcode 256");
}

TEST(options_mark)
{
	struct options o;
	enum metric m;

	ASSERT_EQ(PARSE(&o, "--mark-after", "2.5", "-m", "since-mark", "-p", "1"), OPTIONS_RUN,
		  "--mark-after 2.5 -m since-mark");
	ASSERT_QUIET("--mark-after 2.5");
	ASSERT_TRUE(o.mark_after_s > 2.49 && o.mark_after_s < 2.51, "mark_after_s");
	ASSERT_OK(metric__parse("since-mark", &m), "since-mark is a metric");
	ASSERT_EQ(m, METRIC_SINCE_MARK, "since-mark");
	ASSERT_TRUE(PARSE(&o, "--mark-after", "soon", "-p", "1") != OPTIONS_RUN, "--mark-after soon");
	ASSERT_TRUE(PARSE(&o, "--mark-after", "-1", "-p", "1") != OPTIONS_RUN, "--mark-after -1");
}

TEST(options_pid)
{
	struct options o;

	ASSERT_EQ(PARSE(&o, "--pid", "42"), OPTIONS_RUN, "--pid 42");
	ASSERT_EQ(o.pid, 42, "--pid 42");
	ASSERT_EQ(PARSE(&o, "--pid=43"), OPTIONS_RUN, "--pid=43");
	ASSERT_EQ(o.pid, 43, "--pid=43");
	ASSERT_EQ(PARSE(&o, "-p44"), OPTIONS_RUN, "-p44");
	ASSERT_EQ(o.pid, 44, "-p44");
	ASSERT_EQ(PARSE(&o, "-p", "2147483647"), OPTIONS_RUN, "-p INT_MAX");
	ASSERT_EQ(o.pid, 2147483647, "-p INT_MAX");
	ASSERT_NULL(o.command, "command");
	ASSERT_QUIET("-p INT_MAX");
}

TEST(options_pid_list)
{
	struct options o;

	ASSERT_EQ(PARSE(&o, "-p", "12,34", "-p", "56"), OPTIONS_RUN, "-p 12,34 -p 56");
	ASSERT_QUIET("-p 12,34 -p 56");
	ASSERT_EQ(o.npids, 3, "three pids");
	ASSERT_EQ(o.pids[0], 12, "first");
	ASSERT_EQ(o.pids[1], 34, "second");
	ASSERT_EQ(o.pids[2], 56, "third");
	ASSERT_EQ(o.pid, 12, "the first is the pid");
	options__free(&o);
	ASSERT_TRUE(PARSE(&o, "-p", "12,") != OPTIONS_RUN, "a trailing comma");
	ASSERT_TRUE(strstr(cap_err, "invalid pid '12,'") != NULL, "the message names the list");
	ASSERT_TRUE(PARSE(&o, "-p", "12,,3") != OPTIONS_RUN, "an empty pid");
	ASSERT_TRUE(PARSE(&o, "-p", "1,-2") != OPTIONS_RUN, "a negative pid");
	ASSERT_TRUE(PARSE(&o, "-p", "1, 2") != OPTIONS_RUN, "a space");
}

TEST(options_comm_and_forks)
{
	struct options o;

	ASSERT_EQ(PARSE(&o, "--comm", "nginx"), OPTIONS_RUN, "--comm alone");
	ASSERT_STREQ(o.comm, "nginx", "--comm");
	ASSERT_EQ(o.pid, 0, "no pid");
	ASSERT_FALSE(o.follow_forks, "no --follow-forks");
	ASSERT_EQ(PARSE(&o, "--follow-forks", "--", "./server"), OPTIONS_RUN, "--follow-forks");
	ASSERT_TRUE(o.follow_forks, "--follow-forks");
	ASSERT_EQ(PARSE(&o, "--comm", "a", "-p", "3"), OPTIONS_RUN, "--comm with -p");
	options__free(&o);
	ASSERT_TRUE(PARSE(&o, "--comm", "0123456789abcdef") != OPTIONS_RUN, "16 characters");
	ASSERT_TRUE(strstr(cap_err, "1 to 15 characters") != NULL, "the message says why");
	ASSERT_TRUE(PARSE(&o, "--comm", "") != OPTIONS_RUN, "an empty name");
	ASSERT_TRUE(PARSE(&o, "--comm", "x", "--", "ls") != OPTIONS_RUN, "--comm with a command");
	ASSERT_TRUE(strstr(cap_err, "not both") != NULL, "--comm with a command: the message");
}

TEST(options_leak_views)
{
	struct options o;

	ASSERT_EQ(PARSE(&o, "-p", "1"), OPTIONS_RUN, "defaults");
	ASSERT_EQ(o.growth_window, 60, "growth window default");
	ASSERT_TRUE(o.short_lived_ms == 1, "short-lived default 1 ms");
	ASSERT_NULL(o.snapshot_dir, "no snapshots");
	ASSERT_EQ(PARSE(&o, "-p", "1", "--sort", "growth", "--growth-window", "10"), OPTIONS_RUN,
		  "--sort growth");
	ASSERT_EQ(o.sort, SORT_GROWTH, "growth");
	ASSERT_EQ(o.growth_window, 10, "--growth-window 10");
	ASSERT_EQ(PARSE(&o, "-p", "1", "-s", "peak", "-m", "peak"), OPTIONS_RUN, "peak");
	ASSERT_EQ(o.sort, SORT_PEAK, "--sort peak");
	ASSERT_EQ(o.flamegraph_metric, METRIC_PEAK_BYTES, "-m peak");
	ASSERT_EQ(PARSE(&o, "-p", "1", "-s", "short-lived", "--short-lived", "0.5"), OPTIONS_RUN,
		  "short-lived");
	ASSERT_EQ(o.sort, SORT_SHORT_LIVED, "--sort short-lived");
	ASSERT_TRUE(o.short_lived_ms == 0.5, "--short-lived 0.5");
	ASSERT_EQ(PARSE(&o, "--snapshot-every", "2.5", "/tmp", "--snapshot-keep", "3", "-p", "1"),
		  OPTIONS_RUN, "--snapshot-every SECS DIR");
	ASSERT_TRUE(o.snapshot_every_s == 2.5, "every 2.5 s");
	ASSERT_STREQ(o.snapshot_dir, "/tmp", "into /tmp");
	ASSERT_EQ(o.snapshot_keep, 3, "keep 3");
	ASSERT_EQ(o.pid, 1, "the option after the directory is read");
	ASSERT_TRUE(PARSE(&o, "-p", "1", "--snapshot-every", "1") != OPTIONS_RUN, "no directory");
	ASSERT_TRUE(strstr(cap_err, "needs a directory") != NULL, "no directory: the message");
	ASSERT_TRUE(PARSE(&o, "-p", "1", "--growth-window", "1") != OPTIONS_RUN, "a window of 1");
	ASSERT_TRUE(PARSE(&o, "-p", "1", "--short-lived", "0") != OPTIONS_RUN, "0 ms");
	ASSERT_TRUE(PARSE(&o, "-p", "1", "--snapshot-keep", "0") != OPTIONS_RUN, "keep 0");
	ASSERT_TRUE(PARSE(&o, "-p", "1", "--sort", "grow") != OPTIONS_RUN, "--sort grow");
	ASSERT_TRUE(strstr(cap_err, "growth, peak or short-lived") != NULL, "--sort: the keys");
}

TEST(options_each_flag)
{
	struct options o;

	ASSERT_EQ(PARSE(&o, "-p", "1", "-d", "2.5"), OPTIONS_RUN, "-d 2.5");
	ASSERT_TRUE(o.duration_s == 2.5, "-d 2.5 (got %g)", o.duration_s);
	ASSERT_EQ(PARSE(&o, "-p", "1", "--duration", "0.25"), OPTIONS_RUN, "--duration 0.25");
	ASSERT_TRUE(o.duration_s == 0.25, "--duration 0.25 (got %g)", o.duration_s);

	ASSERT_EQ(PARSE(&o, "-p", "1", "-i", "0"), OPTIONS_RUN, "-i 0");
	ASSERT_TRUE(o.interval_s == 0, "-i 0 (got %g)", o.interval_s);
	ASSERT_EQ(PARSE(&o, "-p", "1", "--interval", "0.5"), OPTIONS_RUN, "--interval 0.5");
	ASSERT_TRUE(o.interval_s == 0.5, "--interval 0.5 (got %g)", o.interval_s);

	ASSERT_EQ(PARSE(&o, "-p", "1", "-f", "out.folded"), OPTIONS_RUN, "-f");
	ASSERT_STREQ(o.output_paths[OUTPUT_FOLDED], "out.folded", "-f");
	ASSERT_EQ(PARSE(&o, "-p", "1", "--flamegraph", "/tmp/x y"), OPTIONS_RUN, "--flamegraph");
	ASSERT_STREQ(o.output_paths[OUTPUT_FOLDED], "/tmp/x y", "--flamegraph");

	ASSERT_EQ(PARSE(&o, "-p", "1", "-m", "count"), OPTIONS_RUN, "-m count");
	ASSERT_EQ(o.flamegraph_metric, METRIC_ALLOC_COUNT, "-m count");
	ASSERT_EQ(PARSE(&o, "-p", "1", "--flamegraph-metric", "live-count"), OPTIONS_RUN,
		  "--flamegraph-metric live-count");
	ASSERT_EQ(o.flamegraph_metric, METRIC_LIVE_COUNT, "--flamegraph-metric live-count");
	ASSERT_EQ(PARSE(&o, "-p", "1", "-m", "allocated"), OPTIONS_RUN, "-m allocated");
	ASSERT_EQ(o.flamegraph_metric, METRIC_ALLOC_BYTES, "-m allocated");

	ASSERT_EQ(PARSE(&o, "-p", "1", "-b", "4K"), OPTIONS_RUN, "-b 4K");
	ASSERT_EQ(o.ringbuf_bytes, 4096, "-b 4K");
	ASSERT_EQ(PARSE(&o, "-p", "1", "-b", "64k"), OPTIONS_RUN, "-b 64k");
	ASSERT_EQ(o.ringbuf_bytes, 65536, "-b 64k");
	ASSERT_EQ(PARSE(&o, "-p", "1", "--ringbuf-size", "1M"), OPTIONS_RUN, "--ringbuf-size 1M");
	ASSERT_EQ(o.ringbuf_bytes, 1 << 20, "--ringbuf-size 1M");
	ASSERT_EQ(PARSE(&o, "-p", "1", "-b", "1G"), OPTIONS_RUN, "-b 1G");
	ASSERT_EQ(o.ringbuf_bytes, 1 << 30, "-b 1G");
	ASSERT_EQ(PARSE(&o, "-p", "1", "-b", "8192"), OPTIONS_RUN, "-b 8192");
	ASSERT_EQ(o.ringbuf_bytes, 8192, "-b 8192");

	ASSERT_EQ(PARSE(&o, "-p", "1", "--pprof", "heap.pb.gz"), OPTIONS_RUN, "--pprof");
	ASSERT_STREQ(o.output_paths[OUTPUT_PPROF], "heap.pb.gz", "--pprof");
	ASSERT_EQ(PARSE(&o, "-p", "1", "--listen", "6060"), OPTIONS_RUN, "--listen 6060");
	ASSERT_STREQ(o.listen, "6060", "--listen 6060");
	ASSERT_EQ(o.listen_addr.ss_family, AF_INET, "--listen 6060: family");
	ASSERT_EQ(ntohs(((struct sockaddr_in *)&o.listen_addr)->sin_port), 6060, "--listen 6060: port");
	ASSERT_EQ(ntohl(((struct sockaddr_in *)&o.listen_addr)->sin_addr.s_addr), INADDR_LOOPBACK,
		  "--listen 6060: loopback");

	ASSERT_EQ(PARSE(&o, "-p", "1", "-v"), OPTIONS_RUN, "-v");
	ASSERT_EQ(o.verbose, 1, "-v");
	ASSERT_EQ(PARSE(&o, "-p", "1", "--verbose", "-vv"), OPTIONS_RUN, "--verbose -vv");
	ASSERT_EQ(o.verbose, 3, "--verbose -vv");
	ASSERT_QUIET("--verbose -vv");
}

TEST(options_help_and_version)
{
	struct options o;

	ASSERT_EQ(PARSE(&o, "-h"), OPTIONS_EXIT, "-h");
	ASSERT_TRUE(!strncmp(cap_out, "Usage: tracelloc ", 17), "-h prints the usage: %s", shown(cap_out));
	ASSERT_STREQ(cap_err, "", "stderr of -h");
	ASSERT_EQ(PARSE(&o, "--help"), OPTIONS_EXIT, "--help");
	ASSERT_TRUE(strstr(cap_out, "--flamegraph-metric") != NULL, "--help lists the options");
	ASSERT_EQ(PARSE(&o, "-V"), OPTIONS_EXIT, "-V");
	ASSERT_TRUE(!strncmp(cap_out, "tracelloc ", 10) && strchr(cap_out, '\n') &&
		    strchr(cap_out, '\n')[1] == '\0', "-V prints one line: %s", shown(cap_out));
	ASSERT_STREQ(cap_err, "", "stderr of -V");
	ASSERT_EQ(PARSE(&o, "--version"), OPTIONS_EXIT, "--version");
	ASSERT_TRUE(!strncmp(cap_out, "tracelloc ", 10), "--version: %s", shown(cap_out));
}

TEST(options_command)
{
	struct options o;

	ASSERT_EQ(PARSE(&o, "--", "ls", "-l"), OPTIONS_RUN, "-- ls -l");
	ASSERT_EQ(o.pid, 0, "pid with a command");
	ASSERT_OK_PTR(o.command, "command after --");
	ASSERT_STREQ(o.command[0], "ls", "command[0] after --");
	ASSERT_STREQ(o.command[1], "-l", "command[1] after --");
	ASSERT_NULL(o.command[2], "command after -- ends");

	/* the first non-option starts the command; later options are its own */
	ASSERT_EQ(PARSE(&o, "ls", "-l"), OPTIONS_RUN, "ls -l");
	ASSERT_OK_PTR(o.command, "command without --");
	ASSERT_STREQ(o.command[0], "ls", "command[0] without --");
	ASSERT_STREQ(o.command[1], "-l", "command[1] without --");
	ASSERT_NULL(o.command[2], "command without -- ends");

	ASSERT_EQ(PARSE(&o, "-v", "-d", "3", "prog", "-v", "-p", "1", "--", "x"), OPTIONS_RUN,
		  "options, then a command with options");
	ASSERT_EQ(o.verbose, 1, "only the -v before the command is ours");
	ASSERT_EQ(o.pid, 0, "the -p after the command is not ours");
	ASSERT_TRUE(o.duration_s == 3, "-d 3 before the command (got %g)", o.duration_s);
	ASSERT_STREQ(o.command[0], "prog", "command[0]");
	ASSERT_STREQ(o.command[1], "-v", "command[1]");
	ASSERT_STREQ(o.command[2], "-p", "command[2]");
	ASSERT_STREQ(o.command[3], "1", "command[3]");
	ASSERT_STREQ(o.command[4], "--", "command[4]");
	ASSERT_STREQ(o.command[5], "x", "command[5]");
	ASSERT_NULL(o.command[6], "command ends");

	ASSERT_EQ(PARSE(&o, "-m", "count", "--", "-dash"), OPTIONS_RUN, "-- -dash");
	ASSERT_STREQ(o.command[0], "-dash", "a command starting with a dash after --");
	ASSERT_EQ(o.flamegraph_metric, METRIC_ALLOC_COUNT, "-m before --");
	ASSERT_QUIET("-- -dash");
}

/* every error: -EINVAL, nothing on stdout, exactly one line on stderr that
 * starts with "tracelloc: " and contains the given text */
TEST(options_errors)
{
	static const struct {
		const char *args[6];
		const char *says;
	} cases[] = {
		{ { "-p", "0" }, "'0'" },
		{ { "-p", "abc" }, "'abc'" },
		{ { "-p", "-5" }, "'-5'" },
		{ { "-p", "12abc" }, "'12abc'" },
		{ { "-p", "99999999999" }, "'99999999999'" },
		{ { "-p", "5", "ls" }, "not both" },
		{ { "-p", "5", "--", "ls" }, "not both" },
		{ {}, "nothing to trace" },
		{ { "-v", "-d", "5" }, "nothing to trace" },
		{ { "--" }, "nothing to trace" },
		{ { "-i", "abc", "ls" }, "'abc'" },
		{ { "-i", "-1", "ls" }, "'-1'" },
		{ { "-i", "0.001", "ls" }, "'0.001'" },
		{ { "-i", "inf", "ls" }, "'inf'" },
		{ { "-d", "0", "ls" }, "'0'" },
		{ { "-d", "-1", "ls" }, "'-1'" },
		{ { "-d", "nan", "ls" }, "'nan'" },
		{ { "-d", "1s", "ls" }, "'1s'" },
		{ { "-x", "ls" }, "'-x'" },
		{ { "--bogus", "ls" }, "'--bogus'" },
		{ { "--pid" }, "'--pid'" },
		{ { "-p" }, "'-p'" },
		{ { "-m", "bogus", "ls" }, "'bogus'" },
		{ { "-m", "", "ls" }, "''" },
		{ { "-f", "", "ls" }, "empty" },
		{ { "-b", "3M", "ls" }, "'3M'" },
		{ { "-b", "1000", "ls" }, "'1000'" },
		{ { "-b", "1024", "ls" }, "'1024'" },
		{ { "-b", "2G", "ls" }, "'2G'" },
		{ { "-b", "16Q", "ls" }, "'16Q'" },
		{ { "-b", "M", "ls" }, "'M'" },
		{ { "-b", "-4096", "ls" }, "'-4096'" },
		{ { "--pprof", "", "ls" }, "empty" },
		{ { "--listen", "", "ls" }, "''" },
		{ { "--listen", "65536", "ls" }, "'65536'" },
		{ { "--listen", "host:80", "ls" }, "'host:80'" },
		{ { "--listen", "::1:80", "ls" }, "'::1:80'" },
	};
	struct options o;
	size_t i, j;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[8] = { "tracelloc" }, what[128] = "tracelloc";
		const char *nl;
		int rc;

		for (j = 0; j < 6 && cases[i].args[j]; j++) {
			argv[j + 1] = (char *)cases[i].args[j];
			snprintf(what + strlen(what), sizeof(what) - strlen(what), " %s",
				 cases[i].args[j]);
		}
		rc = parse_captured(&o, argv, true);
		ASSERT_EQ(rc, -EINVAL, "%s", what);
		ASSERT_STREQ(cap_out, "", "stdout of %s", what);
		nl = strchr(cap_err, '\n');
		ASSERT_TRUE(!strncmp(cap_err, "tracelloc: ", 11) && nl && nl[1] == '\0',
			    "%s: one line starting with \"tracelloc: \": %s", what, shown(cap_err));
		ASSERT_TRUE(strstr(cap_err, cases[i].says) != NULL, "%s: says %s: %s", what,
			    cases[i].says, shown(cap_err));
	}
}

TEST(options_error_names_option_in_cluster)
{
	struct options o;

	/* -x is unknown; it comes first in a cluster of short options */
	ASSERT_EQ(PARSE(&o, "-xv", "ls"), -EINVAL, "-xv");
	ASSERT_TRUE(strstr(cap_err, "-x") != NULL, "the error names the unknown option: %s",
		    shown(cap_err));
}

TEST(options_reparse_after_error_in_cluster)
{
	struct options o;

	/* options__parse starts afresh each time: an earlier parse that stopped in
	 * the middle of "-xv" leaves nothing behind */
	ASSERT_EQ(PARSE(&o, "-xv", "ls"), -EINVAL, "-xv ls");
	ASSERT_EQ(PARSE_AGAIN(&o, "-p", "5"), OPTIONS_RUN, "-p 5 after -xv: %s", shown(cap_err));
	ASSERT_EQ(o.pid, 5, "pid of -p 5 after -xv");
	ASSERT_EQ(o.verbose, 0, "verbose of -p 5 after -xv");
	ASSERT_NULL(o.command, "command of -p 5 after -xv");
}

TEST(options_reparse_after_help_in_cluster)
{
	struct options o;

	ASSERT_EQ(PARSE(&o, "-hv"), OPTIONS_EXIT, "-hv");
	ASSERT_EQ(PARSE_AGAIN(&o, "ls"), OPTIONS_RUN, "ls after -hv: %s", shown(cap_err));
	ASSERT_EQ(o.verbose, 0, "verbose of ls after -hv");
	ASSERT_OK_PTR(o.command, "command of ls after -hv");
	ASSERT_STREQ(o.command[0], "ls", "command of ls after -hv");
}

TEST(options_reparse)
{
	struct options o;

	/* after complete parses: options__parse's own optind = 1 is enough */
	ASSERT_EQ(PARSE(&o, "-v", "-p", "7"), OPTIONS_RUN, "-v -p 7");
	ASSERT_EQ(PARSE_AGAIN(&o, "-d", "2", "ls", "-l"), OPTIONS_RUN, "-d 2 ls -l after -v -p 7");
	ASSERT_EQ(o.pid, 0, "pid of the second parse");
	ASSERT_EQ(o.verbose, 0, "verbose of the second parse");
	ASSERT_STREQ(o.command[0], "ls", "command[0] of the second parse");
	ASSERT_EQ(PARSE_AGAIN(&o, "-p", "abc"), -EINVAL, "-p abc after that");
	ASSERT_EQ(PARSE_AGAIN(&o, "-p", "8"), OPTIONS_RUN, "-p 8 after an error");
	ASSERT_EQ(o.pid, 8, "pid after an error");
	ASSERT_NULL(o.command, "command after an error");
	ASSERT_TRUE(o.duration_s == 0, "duration back to its default");
}

TEST(options_reparse_after_another_getopt_user)
{
	struct options o;

	/* another getopt user initialized getopt to permute: options__parse's
	 * '+' must still stop at the command */
	reset_getopt("");
	ASSERT_EQ(PARSE_AGAIN(&o, "ls", "-l"), OPTIONS_RUN, "ls -l: %s", shown(cap_err));
	ASSERT_OK_PTR(o.command, "command of ls -l");
	ASSERT_STREQ(o.command[0], "ls", "command[0]");
	ASSERT_STREQ(o.command[1], "-l", "command[1]");
}

TEST(options_ringbuf_size_overflow)
{
	struct options o;

	/* (2^44 + 1) G is 2^74 + 2^30 bytes: not 1G once it wraps around 64 bits */
	ASSERT_EQ(PARSE(&o, "-b", "17592186044417G", "ls"), -EINVAL, "-b 17592186044417G");
	ASSERT_EQ(PARSE(&o, "-b", "18446744073709551616", "ls"), -EINVAL, "-b 2^64");
}

/* the file of a mapping is opened only while the range still maps it */
TEST(maps_open_checks_the_file)
{
	struct mapping copy;
	struct maps m;
	size_t i;
	int fd;

	ASSERT_OK(maps__read(getpid(), &m), "maps__read of this process");
	for (i = 0; i < m.count; i++)
		if (m.mappings[i].exec && m.mappings[i].path && m.mappings[i].path[0] == '/')
			break;
	if (i == m.count) {
		maps__clear(&m);
		ASSERT_TRUE(false, "an executable file mapping in this process");
	}
	copy = m.mappings[i];
	fd = maps__open(getpid(), &copy);
	ASSERT_TRUE(fd >= 0, "maps__open of %s: %d", copy.path, fd);
	close(fd);
	copy.inode++;
	fd = maps__open(getpid(), &copy);
	ASSERT_EQ(fd, -ESTALE, "maps__open when the inode differs");
	copy.inode--;
	copy.dev_minor++;
	fd = maps__open(getpid(), &copy);
	ASSERT_EQ(fd, -ESTALE, "maps__open when the device differs");
	maps__clear(&m);
}

TEST(debuginfod_urls)
{
	char dir[] = "/tmp/tl-urls-XXXXXX", path[128], buf[256];
	static const char *const files[][2] = {
		{ "b.urls", "https://b.example/ \n" },
		{ "a.urls", "  https://a1.example\nhttps://a2.example  " },
		{ "a.txt", "https://not.this/" },
	};
	const char *was = getenv("DEBUGINFOD_URLS");
	char *saved = was ? strdup(was) : NULL;
	size_t i;
	FILE *f;

	ASSERT_OK_PTR(mkdtemp(dir), "mkdtemp");
	ASSERT_EQ(debuginfod__read_urls(dir, buf, sizeof(buf)), -ENOENT, "an empty directory");
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i][0]);
		f = fopen(path, "w");
		ASSERT_OK_PTR(f, "%s", path);
		fputs(files[i][1], f);
		fclose(f);
	}
	ASSERT_OK(debuginfod__read_urls(dir, buf, sizeof(buf)), "read");
	ASSERT_STREQ(buf, "https://a1.example https://a2.example https://b.example/",
		     "the .urls files' words, by file name");
	unsetenv("DEBUGINFOD_URLS");
	debuginfod__setup(false, dir, buf, sizeof(buf));
	ASSERT_STREQ(getenv("DEBUGINFOD_URLS"), "https://a1.example https://a2.example https://b.example/",
		     "unset: the files' list set");
	setenv("DEBUGINFOD_URLS", "http://127.0.0.1:1", 1);
	debuginfod__setup(false, dir, buf, sizeof(buf));
	ASSERT_STREQ(buf, "http://127.0.0.1:1", "set: kept as it is");
	debuginfod__setup(true, dir, buf, sizeof(buf));
	ASSERT_TRUE(!getenv("DEBUGINFOD_URLS") && !buf[0], "--no-debuginfod: unset, none said");
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i][0]);
		unlink(path);
	}
	rmdir(dir);
	if (saved)
		setenv("DEBUGINFOD_URLS", saved, 1);
	free(saved);
}

TEST(suppressions_templates_and_files)
{
	char path[] = "/tmp/tl-supp-XXXXXX", why[128];
	struct suppressions *s = suppress__new(false);
	struct suppress_walk w;
	int fd, line;

	ASSERT_OK_PTR(s, "suppress__new");
	ASSERT_TRUE(suppress__template_match("cache", "Cache::fill_cache"), "anywhere");
	ASSERT_TRUE(!suppress__template_match("^cache", "Cache::fill_cache"), "^: at the start");
	ASSERT_TRUE(suppress__template_match("^Cache::*cache$", "Cache::fill_cache"), "^, * and $");
	ASSERT_TRUE(!suppress__template_match("fill$", "Cache::fill_cache"), "$: at the end");
	ASSERT_TRUE(suppress__template_match("libfoo*.so", "/usr/lib/libfoo-2.so.1"), "a module");
	ASSERT_TRUE(!suppress__template_match("x", NULL), "no name");
	fd = mkstemp(path);
	ASSERT_TRUE(fd >= 0, "mkstemp");
	ASSERT_TRUE(write(fd, "# one\n\n  leak:fill_cache  \nleak:*.cc\n", 38) == 38, "write");
	close(fd);
	ASSERT_OK(suppress__load(s, path, &line, why, sizeof(why)), "a good file");
	ASSERT_EQ(suppress__count(s), 2, "two rules");
	suppress__begin(s, &w);
	suppress__frame(&w, "main", "app.c", "/usr/bin/app");
	ASSERT_TRUE(!suppress__end(&w), "no frame matches");
	suppress__frame(&w, "Cache::fill_cache()", NULL, "/usr/bin/app");
	ASSERT_TRUE(suppress__end(&w), "a function matches");
	suppress__begin(s, &w);
	suppress__frame(&w, "f", "src/x.cc", NULL);
	ASSERT_TRUE(suppress__end(&w), "a file matches");
	fd = open(path, O_WRONLY | O_TRUNC);
	ASSERT_TRUE(write(fd, "leak:ok\nrace:foo\n", 17) == 17, "write");
	close(fd);
	ASSERT_EQ(suppress__load(s, path, &line, why, sizeof(why)), -EINVAL, "a bad line");
	ASSERT_EQ(line, 2, "its number");
	ASSERT_TRUE(strstr(why, "leak:PATTERN") != NULL, "why: %s", why);
	fd = open(path, O_WRONLY | O_TRUNC);
	ASSERT_TRUE(write(fd, "leak:\n", 6) == 6, "write");
	close(fd);
	ASSERT_EQ(suppress__load(s, path, &line, why, sizeof(why)), -EINVAL, "an empty pattern");
	unlink(path);
	ASSERT_EQ(suppress__load(s, path, &line, why, sizeof(why)), -ENOENT, "a missing file");
	suppress__destroy(s);
	/* the built-in rule: only the runtimes' frames */
	s = suppress__new(true);
	suppress__begin(s, &w);
	suppress__frame(&w, "[unknown]", NULL, "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30");
	suppress__frame(&w, "call_init", "dl-init.c", "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2");
	ASSERT_TRUE(suppress__end(&w), "libstdc++ from ld.so's init: the runtimes' own");
	suppress__frame(&w, "main", "app.c", "/usr/bin/app");
	ASSERT_TRUE(!suppress__end(&w), "with a frame of the program's: kept");
	suppress__destroy(s);
}

/* a format is one row of formats.h's table: its option, its letter and its
 * --help lines all come from there */
TEST(options_output_formats_from_their_rows)
{
	const struct output_option *row;
	char arg[64], want[96];
	struct options o;
	int f;

	ASSERT_EQ(PARSE(&o, "--help"), OPTIONS_EXIT, "--help");
	for (f = 0; f < OUTPUT_FORMATS; f++) {
		row = formats__option(f);
		ASSERT_OK_PTR(strstr(cap_out, row->help), "--help lists --%s", row->name);
		ASSERT_NULL(strstr(strstr(cap_out, row->help) + 1, row->help),
			    "--help lists --%s once", row->name);
	}
	for (f = 0; f < OUTPUT_FORMATS; f++) {
		row = formats__option(f);
		snprintf(arg, sizeof(arg), "--%s=out.%d", row->name, f);
		ASSERT_EQ(PARSE(&o, arg, "ls"), OPTIONS_RUN, "%s: %s", arg, shown(cap_err));
		snprintf(want, sizeof(want), "out.%d", f);
		ASSERT_STREQ(o.output_paths[f], want, "%s sets its format's path", arg);
		options__free(&o);
		if (row->short_opt) {
			snprintf(arg, sizeof(arg), "-%c", row->short_opt);
			ASSERT_EQ(PARSE(&o, arg, "x.out", "ls"), OPTIONS_RUN, "%s", arg);
			ASSERT_STREQ(o.output_paths[f], "x.out", "%s sets its format's path", arg);
			options__free(&o);
		}
		snprintf(arg, sizeof(arg), "--%s=", row->name);
		ASSERT_EQ(PARSE(&o, arg, "ls"), -EINVAL, "%s", arg);
		snprintf(want, sizeof(want), "tracelloc: empty %s file name\n", row->what);
		ASSERT_STREQ(cap_err, want, "%s's message", arg);
	}
}
