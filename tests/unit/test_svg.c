// SPDX-License-Identifier: GPL-2.0
/* svg.c: the flamegraph's tree, geometry, text and XML, read back from the file */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "busy_heap.h"
#include "filter.h"
#include "heap.h"
#include "profile.h"
#include "sort.h"
#include "svg.h"
#include "test.h"
#include "tracelloc.h"

#define WIDTH 1200
#define PAD 10
#define AVAIL (WIDTH - 2 * PAD)

static const uint64_t S1[] = { 0x401100, 0x402200, 0x403300 };
static const uint64_t S2[] = { 0x501100, 0x502200 };
static const uint64_t S3[] = { 0x601100 };

/* one <g class="f"> as written */
struct frame {
	uint64_t v, x;
	unsigned d;
	double rect_x, rect_w;
	int rgb[3];
	char name[1024];	/* as in the file: escaped */
	char detail[1024];	/* the title's second line */
	char label[512];
};

struct doc {
	char *text;
	struct frame *frames;
	size_t count;
};

static void doc_free(struct doc *d)
{
	free(d->text);
	free(d->frames);
	memset(d, 0, sizeof(*d));
}

/* copies what lies between after and the next stop into buf; NULL if absent */
static const char *copy_between(const char *s, const char *after, const char *stop, char *buf,
				size_t size)
{
	const char *a = strstr(s, after), *b;
	size_t n;

	if (!a)
		return NULL;
	a += strlen(after);
	b = strstr(a, stop);
	if (!b)
		return NULL;
	n = (size_t)(b - a) < size - 1 ? (size_t)(b - a) : size - 1;
	memcpy(buf, a, n);
	buf[n] = '\0';
	return b;
}

static bool attr_u64(const char *s, const char *name, uint64_t *v)
{
	char buf[64];

	if (!copy_between(s, name, "\"", buf, sizeof(buf)))
		return false;
	*v = strtoull(buf, NULL, 10);
	return true;
}

static bool attr_double(const char *s, const char *name, double *v)
{
	char buf[64];

	if (!copy_between(s, name, "\"", buf, sizeof(buf)))
		return false;
	*v = strtod(buf, NULL);
	return true;
}

/* the frames of an SVG, in the order written; false if one is malformed */
static bool parse_frames(struct doc *d)
{
	const char *p = d->text;
	size_t cap = 0;

	while ((p = strstr(p, "<g class=\"f\""))) {
		const char *end = strstr(p, "</g>");
		struct frame *f;
		char g[4096], title[1024], *nl;
		uint64_t depth;

		if (!end || (size_t)(end - p) >= sizeof(g))
			return false;
		memcpy(g, p, end - p);
		g[end - p] = '\0';
		if (d->count == cap) {
			cap = cap ? 2 * cap : 64;
			d->frames = realloc(d->frames, cap * sizeof(*d->frames));
			if (!d->frames)
				return false;
		}
		f = &d->frames[d->count++];
		memset(f, 0, sizeof(*f));
		if (!attr_u64(g, "data-v=\"", &f->v) || !attr_u64(g, "data-x=\"", &f->x) ||
		    !attr_u64(g, "data-d=\"", &depth) || !attr_double(g, "<rect x=\"", &f->rect_x) ||
		    !attr_double(g, " width=\"", &f->rect_w) ||
		    !copy_between(g, "<title>", "</title>", title, sizeof(title)) ||
		    !copy_between(g, "<text ", "</text>", f->label, sizeof(f->label)))
			return false;
		f->d = (unsigned)depth;
		memmove(f->label, strchr(f->label, '>') + 1, strlen(strchr(f->label, '>')));
		if (!strstr(g, "fill=\"rgb(") || sscanf(strstr(g, "fill=\"rgb(") + 10, "%d,%d,%d", &f->rgb[0], &f->rgb[1],
			   &f->rgb[2]) != 3)
			return false;
		nl = strchr(title, '\n');
		if (!nl)
			return false;
		*nl = '\0';
		snprintf(f->name, sizeof(f->name), "%s", title);
		snprintf(f->detail, sizeof(f->detail), "%s", nl + 1);
		p = end;
	}
	return true;
}

/* the nth frame (from 0) named name (escaped, as in the file) at depth d; NULL if none */
static const struct frame *find_nth(const struct doc *d, const char *name, unsigned depth,
				    int nth)
{
	size_t i;

	for (i = 0; i < d->count; i++)
		if (d->frames[i].d == depth && !strcmp(d->frames[i].name, name) && !nth--)
			return &d->frames[i];
	return NULL;
}

static const struct frame *find_frame(const struct doc *d, const char *name, unsigned depth)
{
	return find_nth(d, name, depth, 0);
}

static size_t count_of(const char *text, const char *what)
{
	size_t n = 0;

	while ((text = strstr(text, what))) {
		n++;
		text += strlen(what);
	}
	return n;
}

/* ------------------------------------------------- XML well-formedness */

static bool utf8_valid(const unsigned char *s)
{
	while (*s) {
		int need = *s < 0x80 ? 0 : *s >= 0xc2 && *s < 0xe0 ? 1 : *s >= 0xe0 && *s < 0xf0 ? 2 :
			   *s >= 0xf0 && *s < 0xf5 ? 3 : -1, i;

		if (need < 0)
			return false;
		for (i = 1; i <= need; i++)
			if ((s[i] & 0xc0) != 0x80)
				return false;
		if (*s < 0x20 && *s != '\n' && *s != '\t' && *s != '\r')
			return false;
		s += need + 1;
	}
	return true;
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_' || c == ':' || c == '.';
}

/* a reference at s ("&amp;", "&#39;"): its length, 0 if it is not one */
static size_t reference(const char *s)
{
	static const char *const named[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&apos;" };
	size_t i;

	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (!strncmp(s, named[i], strlen(named[i])))
			return strlen(named[i]);
	if (s[1] == '#') {
		i = 2;
		if (s[2] == 'x')
			i++;
		while ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))
			i++;
		return s[i] == ';' && i > 2 ? i + 1 : 0;
	}
	return 0;
}

/*
 * Enough of XML 1.0 for what svg.c writes: one root element, nested tags that
 * match, quoted attributes, no stray '<' or '&', comments, CDATA, the XML
 * declaration, UTF-8. NULL when well-formed, else what is wrong.
 */
static const char *xml_error(const char *s)
{
	static char why[160];
	const char *stack[256];
	size_t stack_len[256], depth = 0, roots = 0;

	if (!utf8_valid((const unsigned char *)s))
		return "not UTF-8, or a control character";
	if (!strncmp(s, "<?xml", 5)) {
		s = strstr(s, "?>");
		if (!s)
			return "unterminated XML declaration";
		s += 2;
	}
	while (*s) {
		if (*s == '&') {
			size_t n = reference(s);

			if (!n) {
				snprintf(why, sizeof(why), "bare '&' at \"%.30s\"", s);
				return why;
			}
			s += n;
		} else if (!strncmp(s, "<!--", 4)) {
			s = strstr(s + 4, "-->");
			if (!s)
				return "unterminated comment";
			s += 3;
		} else if (!strncmp(s, "<![CDATA[", 9)) {
			if (!depth)
				return "CDATA outside the root element";
			s = strstr(s + 9, "]]>");
			if (!s)
				return "unterminated CDATA";
			s += 3;
		} else if (!strncmp(s, "</", 2)) {
			size_t n = 0;

			s += 2;
			while (name_char(s[n]))
				n++;
			if (!depth || n != stack_len[depth - 1] || strncmp(s, stack[depth - 1], n)) {
				snprintf(why, sizeof(why), "end tag </%.*s> does not match", (int)n, s);
				return why;
			}
			depth--;
			s += n;
			while (*s == ' ')
				s++;
			if (*s++ != '>')
				return "malformed end tag";
		} else if (*s == '<') {
			const char *name = ++s;
			size_t n = 0;

			while (name_char(s[n]))
				n++;
			if (!n)
				return "'<' that starts no tag";
			s += n;
			for (;;) {
				while (*s == ' ' || *s == '\n' || *s == '\t')
					s++;
				if (*s == '>' || !strncmp(s, "/>", 2))
					break;
				if (!name_char(*s))
					return "malformed attribute";
				while (name_char(*s))
					s++;
				if (s[0] != '=' || s[1] != '"')
					return "attribute without a quoted value";
				for (s += 2; *s != '"'; s++) {
					if (!*s || *s == '<')
						return "'<' or the end in an attribute value";
					if (*s == '&' && !reference(s))
						return "bare '&' in an attribute value";
				}
				s++;
			}
			if (!depth && roots++)
				return "a second root element";
			if (*s == '>') {
				if (depth == sizeof(stack) / sizeof(stack[0]))
					return "nested too deep";
				stack[depth] = name;
				stack_len[depth++] = n;
				s++;
			} else {
				s += 2;
			}
		} else {
			if (!depth && *s != '\n' && *s != ' ')
				return "text outside the root element";
			s++;
		}
	}
	if (depth)
		return "unclosed elements at the end";
	return roots == 1 ? NULL : "no root element";
}

/* xmllint's verdict where it is installed (libxml2-utils): 1 well-formed,
 * 0 not, -1 no xmllint */
static int xmllint_ok(const char *text)
{
	char path[] = "/tmp/tracelloc-svg.XXXXXX", cmd[128];
	int fd, status;
	FILE *f;

	if (system("command -v xmllint >/dev/null 2>&1"))
		return -1;
	fd = mkstemp(path);
	if (fd < 0)
		return 0;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(path);
		return 0;
	}
	fputs(text, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "xmllint --noout %s", path);
	status = system(cmd);
	unlink(path);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

#define ASSERT_XML(text)                                                            \
	do {                                                                        \
		const char *___why = xml_error(text);                               \
		ASSERT_NULL(___why, "XML well-formed: %s", ___why ? ___why : "");   \
		ASSERT_NEQ(xmllint_ok(text), 0, "xmllint --noout");                 \
	} while (0)

/* ------------------------------------------------------------ rendering */

static int render(struct heap *h, const struct profile_opts *opts, enum metric metric,
		  const char *title, struct doc *d)
{
	struct profile *p = profile__snapshot(h, opts);
	size_t size = 0;
	FILE *out;
	int err;

	memset(d, 0, sizeof(*d));
	if (!p)
		return -ENOMEM;
	out = open_memstream(&d->text, &size);
	if (!out) {
		profile__destroy(p);
		return -ENOMEM;
	}
	err = svg__write(out, p, metric, title);
	if (fclose(out))
		err = err ? err : -EIO;
	profile__destroy(p);
	if (!err && !parse_frames(d))
		err = -EBADMSG;
	return err;
}

static int render_folded(const char *folded, enum metric metric, const char *title,
			 struct doc *d)
{
	FILE *in = fmemopen((void *)folded, strlen(folded), "r"), *out;
	size_t size = 0;
	int err;

	memset(d, 0, sizeof(*d));
	if (!in)
		return -ENOMEM;
	out = open_memstream(&d->text, &size);
	if (!out) {
		fclose(in);
		return -ENOMEM;
	}
	err = svg__write_folded(out, in, metric, title);
	if (fclose(out))
		err = err ? err : -EIO;
	fclose(in);
	if (!err && !parse_frames(d))
		err = -EBADMSG;
	return err;
}

/*
 * What a flamegraph must be, whatever its data: the root spans the width and
 * holds the total; every other frame lies inside one frame a level below it
 * (its caller), at the pixels its value and offset give; callees never add up
 * to more than their caller; siblings do not overlap.
 */
static void check_geometry(const struct doc *d, uint64_t total)
{
	double scale = (double)AVAIL / total;
	size_t i, j;

	ASSERT_GT(d->count, 0, "frames");
	ASSERT_EQ(d->frames[0].d, 0, "first frame's depth");
	ASSERT_STREQ(d->frames[0].name, "all", "first frame");
	ASSERT_EQ(d->frames[0].v, total, "root value");
	ASSERT_TRUE(fabs(d->frames[0].rect_w - AVAIL) < 0.01, "root width %.2f", d->frames[0].rect_w);
	for (i = 0; i < d->count; i++) {
		const struct frame *f = &d->frames[i];
		uint64_t callees = 0;
		size_t callers = 0;

		ASSERT_GT(f->v, 0, "value of frame %zu", i);
		ASSERT_TRUE(fabs(f->rect_x - (PAD + f->x * scale)) < 0.01, "x of frame %zu", i);
		ASSERT_TRUE(fabs(f->rect_w - f->v * scale) < 0.01, "width of frame %zu", i);
		for (j = 0; j < d->count; j++) {
			const struct frame *g = &d->frames[j];

			if (g->d == f->d + 1 && g->x >= f->x && g->x < f->x + f->v) {
				ASSERT_LE(g->x + g->v, f->x + f->v, "frame %zu ends inside frame %zu", j, i);
				callees += g->v;
			}
			if (g->d + 1 == f->d && f->x >= g->x && f->x + f->v <= g->x + g->v)
				callers++;
			if (j != i && g->d == f->d)
				ASSERT_TRUE(g->x >= f->x + f->v || g->x + g->v <= f->x,
					    "frames %zu and %zu overlap", i, j);
		}
		ASSERT_LE(callees, f->v, "callees of frame %zu", i);
		if (f->d)
			ASSERT_EQ(callers, 1, "callers of frame %zu", i);
		/* depth first: a frame follows its caller or its caller's callees */
		if (i)
			ASSERT_LE(f->d, d->frames[i - 1].d + 1, "depth of frame %zu", i);
	}
}

static bool is_hot(const int *rgb)
{
	return rgb[0] >= 205 && rgb[1] <= 230 && rgb[2] <= 55;
}

static bool is_aqua(const int *rgb)
{
	return rgb[0] >= 50 && rgb[0] <= 110 && rgb[1] >= 165 && rgb[2] >= 165;
}

/* ---------------------------------------------------------------- tests */

/* S1 1000 B by malloc, S2 300 B by calloc, S3 50 B by operator new */
static struct heap *three_stacks(void)
{
	struct heap *h = heap__new();

	if (!h || heap__alloc(h, 1, 0x1000, 1000, 1, FN_MALLOC, S1, 3) ||
	    heap__alloc(h, 1, 0x2000, 300, 2, FN_CALLOC, S2, 2) ||
	    heap__alloc(h, 1, 0x3000, 50, 3, FN_NEW, S3, 1)) {
		heap__destroy(h);
		return NULL;
	}
	return h;
}

TEST(svg_tree_of_a_profile)
{
	const struct profile_opts opts = { .allocator_frame = true };
	struct heap *h = three_stacks();
	const struct frame *f;
	struct doc d;

	ASSERT_OK_PTR(h, "heap");
	ASSERT_OK(render(h, &opts, METRIC_LIVE_BYTES, "three stacks", &d), "svg__write");
	ASSERT_XML(d.text);
	/*
	 * all 1350
	 *   [unknown] 1350
	 *     [unknown] 1300
	 *       [unknown] 1000
	 *         malloc 1000
	 *       calloc 300
	 *     operator new 50
	 */
	ASSERT_EQ(d.count, 7, "frames");
	ASSERT_EQ(count_of(d.text, "<rect "), 7 + 1, "rects: the frames and the background");
	ASSERT_HELPER(check_geometry(&d, 1350));
	f = find_frame(&d, "[unknown]", 1);
	ASSERT_OK_PTR(f, "[unknown] at depth 1");
	ASSERT_EQ(f->v, 1350, "its value");
	f = find_frame(&d, "[unknown]", 2);
	ASSERT_OK_PTR(f, "[unknown] at depth 2");
	ASSERT_EQ(f->v, 1300, "its value");
	ASSERT_EQ(f->x, 0, "its offset: before operator new");
	f = find_frame(&d, "operator new", 2);
	ASSERT_OK_PTR(f, "operator new at depth 2");
	ASSERT_EQ(f->v, 50, "its value");
	ASSERT_EQ(f->x, 1300, "its offset");
	ASSERT_STREQ(f->detail, "50 B live, 3.70%, allocator", "its details");
	ASSERT_FALSE(is_hot(f->rgb), "an allocator frame is not in the hot palette");
	f = find_frame(&d, "calloc", 3);
	ASSERT_OK_PTR(f, "calloc at depth 3");
	ASSERT_EQ(f->x, 1000, "calloc's offset: after [unknown]");
	ASSERT_TRUE(fabs(f->rect_w - 300.0 * AVAIL / 1350) < 0.01, "calloc's width");
	f = find_frame(&d, "malloc", 4);
	ASSERT_OK_PTR(f, "malloc at depth 4");
	ASSERT_EQ(f->v, 1000, "its value");
	f = find_frame(&d, "[unknown]", 3);
	ASSERT_OK_PTR(f, "[unknown] at depth 3");
	ASSERT_TRUE(is_hot(f->rgb), "a code frame is in the hot palette");
	ASSERT_STREQ(f->detail, "1000 B live, 74.07%", "its details");
	ASSERT_STREQ(d.frames[0].detail, "1.32 KiB live, 100%", "root details");
	ASSERT_TRUE(strstr(d.text, "Live heap bytes by call stack: 1.32 KiB live in total, 3 stacks"),
		    "subtitle with the total");
	ASSERT_TRUE(strstr(d.text, "data-total=\"1350\""), "total for the script");
	ASSERT_TRUE(strstr(d.text, "<title>three stacks</title>"), "title");
	doc_free(&d);
	heap__destroy(h);
}

TEST(svg_value_per_metric)
{
	static const struct {
		enum metric metric;
		uint64_t total;
		const char *root, *subtitle;
		bool has_new;
	} cases[] = {
		{ METRIC_LIVE_BYTES, 1300, "1.27 KiB live, 100%", "Live heap bytes", false },
		{ METRIC_LIVE_COUNT, 2, "2 live blocks, 100%", "Live heap blocks", false },
		{ METRIC_ALLOC_BYTES, 1374, "1.34 KiB allocated, 100%", "Allocated bytes", true },
		{ METRIC_ALLOC_COUNT, 4, "4 allocations, 100%", "Allocation calls", true },
	};
	const struct profile_opts opts = { .allocator_frame = true };
	struct heap *h = heap__new();
	size_t i;

	ASSERT_OK_PTR(h, "heap");
	ASSERT_OK(heap__alloc(h, 1, 0x1000, 1000, 1, FN_MALLOC, S1, 3), "alloc");
	ASSERT_OK(heap__alloc(h, 1, 0x2000, 24, 2, FN_MALLOC, S1, 3), "alloc");
	ASSERT_OK(heap__alloc(h, 1, 0x3000, 300, 3, FN_CALLOC, S2, 2), "alloc");
	ASSERT_OK(heap__alloc(h, 1, 0x4000, 50, 4, FN_NEW, S3, 1), "alloc");
	heap__free(h, 1, 0x2000);
	heap__free(h, 1, 0x4000);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char want[64];
		struct doc d;

		ASSERT_OK(render(h, &opts, cases[i].metric, NULL, &d), "svg__write, case %zu", i);
		ASSERT_XML(d.text);
		ASSERT_HELPER(check_geometry(&d, cases[i].total));
		ASSERT_STREQ(d.frames[0].detail, cases[i].root, "root details, case %zu", i);
		ASSERT_TRUE(strstr(d.text, cases[i].subtitle), "subtitle, case %zu", i);
		snprintf(want, sizeof(want), "data-total=\"%" PRIu64 "\"", cases[i].total);
		ASSERT_TRUE(strstr(d.text, want), "total for the script, case %zu", i);
		ASSERT_EQ(find_frame(&d, "operator new", 2) != NULL, cases[i].has_new,
			  "a stack with no value has no frame, case %zu", i);
		ASSERT_TRUE(strstr(d.text, "<title>Heap flamegraph</title>"), "default title");
		doc_free(&d);
	}
	heap__destroy(h);
}

TEST(svg_counts_have_thousands_separators)
{
	struct doc d;

	ASSERT_OK(render_folded("main;work 1234567\nmain 1\n", METRIC_ALLOC_COUNT, NULL, &d),
		  "svg__write_folded");
	ASSERT_STREQ(d.frames[0].detail, "1,234,568 allocations, 100%", "root details");
	ASSERT_STREQ(find_frame(&d, "work", 2) ? find_frame(&d, "work", 2)->detail : NULL,
		     "1,234,567 allocations, 100%", "work's details");
	doc_free(&d);
	ASSERT_OK(render_folded("main 3145728\n", METRIC_LIVE_BYTES, NULL, &d), "svg__write_folded");
	ASSERT_STREQ(d.frames[1].detail, "3.00 MiB live, 100%", "bytes as human sizes");
	doc_free(&d);
}

TEST(svg_escapes_names_and_title)
{
	static const char folded[] =
		"main;std::vector<int, std::allocator<int> >::push_back(int const&) 100\n"
		"main;say \"hi\" & 'bye' <now> 50\n"
		"main;<>&\"' 20\n"
		"main;bytes \xff\xfe\xc0\xaf \xed\xa0\x80 and \x01\x1f control\tchars 10\n"
		"main;caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5 30\n";
	struct doc d;

	ASSERT_OK(render_folded(folded, METRIC_LIVE_BYTES, "<>&\"' title", &d), "svg__write_folded");
	ASSERT_XML(d.text);
	ASSERT_HELPER(check_geometry(&d, 210));
	ASSERT_OK_PTR(find_frame(&d, "std::vector&lt;int, std::allocator&lt;int&gt; &gt;::push_back(int const&amp;)", 2),
		      "C++ template frame, escaped");
	ASSERT_OK_PTR(find_frame(&d, "say &quot;hi&quot; &amp; &apos;bye&apos; &lt;now&gt;", 2),
		      "quotes, escaped");
	ASSERT_OK_PTR(find_frame(&d, "&lt;&gt;&amp;&quot;&apos;", 2), "<>&\"' escaped");
	/* bytes that are not UTF-8 and control characters become U+FFFD */
	ASSERT_OK_PTR(find_frame(&d, "bytes \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd "
				 "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd and "
				 "\xef\xbf\xbd\xef\xbf\xbd control chars", 2),
		      "invalid UTF-8 replaced");
	ASSERT_OK_PTR(find_frame(&d, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5", 2), "UTF-8 kept");
	ASSERT_TRUE(strstr(d.text, "<title>&lt;&gt;&amp;&quot;&apos; title</title>"), "document title");
	ASSERT_TRUE(strstr(d.text, ">&lt;&gt;&amp;&quot;&apos; title</text>"), "shown title");
	ASSERT_FALSE(strstr(d.text, "<now>"), "no raw markup from a name");
	ASSERT_FALSE(strstr(d.text, "<int"), "no raw markup from a name");
	doc_free(&d);
}

TEST(svg_labels_fit_their_frames)
{
	static const char folded[] =
		"a_function_with_a_rather_long_name_that_will_not_fit 600\n"
		"short 400\n"
		"tiny_but_drawn 4\n";
	const struct frame *f;
	struct doc d;

	ASSERT_OK(render_folded(folded, METRIC_LIVE_BYTES, NULL, &d), "svg__write_folded");
	f = find_frame(&d, "a_function_with_a_rather_long_name_that_will_not_fit", 1);
	ASSERT_OK_PTR(f, "long frame");
	ASSERT_STREQ(f->label, "a_function_with_a_rather_long_name_that_will_not_fit", "label in full");
	f = find_frame(&d, "tiny_but_drawn", 1);
	ASSERT_OK_PTR(f, "tiny frame");
	ASSERT_STREQ(f->label, "", "no label in 4.7 pixels");
	doc_free(&d);
	ASSERT_OK(render_folded("x 1000\nabcdefghijkl 500\nabcdefghijklmnopqrstuvwxyz 40\n",
				METRIC_LIVE_BYTES, NULL, &d), "svg__write_folded");
	/* 40 of 1540: 30.6 px, (30.6 - 6) / 7.2 = 3 characters: "a.." */
	f = find_frame(&d, "abcdefghijklmnopqrstuvwxyz", 1);
	ASSERT_OK_PTR(f, "narrow frame");
	ASSERT_STREQ(f->label, "a..", "truncated label");
	doc_free(&d);
}

TEST(svg_inlined_frames)
{
	static const char folded[] =
		"main;parse_[i];leaf 10\n"
		"main;other;leaf 5\n"
		"main;parse 3\n";
	const struct frame *inl, *code, *leaf1, *leaf2;
	struct doc d, again;

	ASSERT_OK(render_folded(folded, METRIC_ALLOC_COUNT, NULL, &d), "svg__write_folded");
	ASSERT_XML(d.text);
	ASSERT_HELPER(check_geometry(&d, 18));
	/* "parse" inlined and "parse" called are different frames, the called first */
	ASSERT_EQ(d.count, 7, "frames: all main other leaf parse parse leaf");
	code = find_nth(&d, "parse", 2, 0);
	inl = find_nth(&d, "parse", 2, 1);
	ASSERT_OK_PTR(code, "called parse");
	ASSERT_OK_PTR(inl, "inlined parse");
	ASSERT_EQ(code->v, 3, "value of the called parse");
	ASSERT_TRUE(is_hot(code->rgb), "called frame in the hot palette");
	ASSERT_STREQ(code->detail, "3 allocations, 16.67%", "called parse's details");
	ASSERT_EQ(inl->v, 10, "value of the inlined parse");
	ASSERT_TRUE(is_aqua(inl->rgb), "inlined frame in the aqua palette (%d,%d,%d)", inl->rgb[0],
		    inl->rgb[1], inl->rgb[2]);
	ASSERT_STREQ(inl->detail, "10 allocations, 55.56%, inlined", "inlined parse's details");
	ASSERT_FALSE(strstr(d.text, "_[i]"), "the folded mark is not shown");
	/* a name has one colour wherever it is */
	leaf1 = find_nth(&d, "leaf", 3, 0);
	leaf2 = find_nth(&d, "leaf", 3, 1);
	ASSERT_OK_PTR(leaf1, "leaf under other");
	ASSERT_OK_PTR(leaf2, "leaf under the inlined parse");
	ASSERT_TRUE(!memcmp(leaf1->rgb, leaf2->rgb, sizeof(leaf1->rgb)), "one colour for one name");
	/* and the same file every time */
	ASSERT_OK(render_folded(folded, METRIC_ALLOC_COUNT, NULL, &again), "svg__write_folded");
	ASSERT_STREQ(again.text, d.text, "deterministic output");
	doc_free(&again);
	doc_free(&d);
}

TEST(svg_merges_and_sorts)
{
	static const char folded[] =
		"a;c 5\n"
		"b 10\n"
		"\n"
		"a;b 3\r\n"
		"a;c 2\n"
		"zero;frames 0\n";
	const struct frame *f;
	struct doc d;

	ASSERT_OK(render_folded(folded, METRIC_ALLOC_COUNT, NULL, &d), "svg__write_folded");
	ASSERT_HELPER(check_geometry(&d, 20));
	ASSERT_EQ(d.count, 5, "frames: all a b c b");
	f = find_frame(&d, "a", 1);
	ASSERT_OK_PTR(f, "a");
	ASSERT_EQ(f->x, 0, "a's offset");
	ASSERT_EQ(f->v, 10, "a's value");
	f = find_frame(&d, "b", 1);
	ASSERT_OK_PTR(f, "b");
	ASSERT_EQ(f->x, 10, "b's offset");
	f = find_frame(&d, "b", 2);
	ASSERT_OK_PTR(f, "a;b");
	ASSERT_EQ(f->x, 0, "a;b's offset");
	ASSERT_EQ(f->v, 3, "a;b's value");
	f = find_frame(&d, "c", 2);
	ASSERT_OK_PTR(f, "a;c");
	ASSERT_EQ(f->x, 3, "a;c's offset");
	ASSERT_EQ(f->v, 7, "a;c merged");
	ASSERT_FALSE(strstr(d.text, "zero"), "a stack of value 0 is no frame");
	ASSERT_TRUE(strstr(d.text, ": 20 allocations in total, 4 stacks"), "subtitle");
	doc_free(&d);
}

TEST(svg_own_value_before_callees)
{
	const struct frame *f;
	struct doc d;

	/* as flamegraph.pl: a caller's own value first, its callees after */
	ASSERT_OK(render_folded("a;b 3\na 5\n", METRIC_ALLOC_COUNT, NULL, &d), "svg__write_folded");
	ASSERT_HELPER(check_geometry(&d, 8));
	f = find_frame(&d, "b", 2);
	ASSERT_OK_PTR(f, "b");
	ASSERT_EQ(f->x, 5, "b after a's own 5");
	doc_free(&d);
}

/* a folded line's frames, and each prefix of them, with the values summed */
struct ref_path {
	char path[256];
	uint64_t value;
	bool seen;
};

static struct ref_path *ref_find(struct ref_path *paths, size_t *n, const char *path, bool add)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp(paths[i].path, path))
			return &paths[i];
	if (!add)
		return NULL;
	snprintf(paths[*n].path, sizeof(paths[*n].path), "%s", path);
	paths[*n].value = 0;
	paths[*n].seen = false;
	return &paths[(*n)++];
}

/* random stacks of few names, against sums made the slow way: every path
 * wide enough is drawn once, with its value; siblings in name order */
TEST(svg_random_against_reference)
{
	static const char *const names[] = { "f0", "f1", "f1_[i]", "f2", "main", "zz" };
	uint64_t seed = 7;
	int round;

	for (round = 0; round < 20; round++) {
		struct ref_path *paths = calloc(4096, sizeof(*paths));
		char *folded = NULL, stack[256], by_depth[32][64], path[256];
		size_t size = 0, npaths = 0, i, drawn = 0;
		uint64_t total = 0;
		FILE *in = open_memstream(&folded, &size);
		struct doc d;
		int line;

		ASSERT_OK_PTR(paths, "calloc");
		ASSERT_OK_PTR(in, "open_memstream");
		for (line = 0; line < 200; line++) {
			int depth = 1 + test__rand(&seed) % 6, j;
			/* a few heavy stacks, many light ones: some are left out */
			uint64_t v = test__rand(&seed) % 8 ? 1 + test__rand(&seed) % 3 :
							      1000 + test__rand(&seed) % 5000;

			stack[0] = '\0';
			for (j = 0; j < depth; j++) {
				const char *n = names[test__rand(&seed) % 6];

				snprintf(stack + strlen(stack), sizeof(stack) - strlen(stack), "%s%s",
					 j ? ";" : "", n);
				ref_find(paths, &npaths, stack, true)->value += v;
			}
			fprintf(in, "%s %" PRIu64 "\n", stack, v);
			total += v;
		}
		fclose(in);
		ASSERT_OK(render_folded(folded, METRIC_ALLOC_COUNT, NULL, &d), "svg__write_folded");
		free(folded);
		ASSERT_HELPER(check_geometry(&d, total));
		for (i = 1; i < d.count; i++) {
			const struct frame *f = &d.frames[i], *prev = &d.frames[i - 1];
			struct ref_path *ref;
			unsigned k;

			ASSERT_LT(f->d, 32, "depth");
			snprintf(by_depth[f->d], sizeof(by_depth[f->d]), "%.50s%s", f->name,
				 strstr(f->detail, "inlined") ? "_[i]" : "");
			path[0] = '\0';
			for (k = 1; k <= f->d; k++)
				snprintf(path + strlen(path), sizeof(path) - strlen(path), "%s%s",
					 k > 1 ? ";" : "", by_depth[k]);
			ref = ref_find(paths, &npaths, path, false);
			ASSERT_OK_PTR(ref, "round %d: frame %.80s is a path of the input", round, path);
			ASSERT_FALSE(ref->seen, "round %d: %.80s drawn once", round, path);
			ref->seen = true;
			ASSERT_EQ(f->v, ref->value, "round %d: value of %.80s", round, path);
			/* a sibling after its sibling: a later name, or the same one inlined */
			if (prev->d >= f->d) {
				const struct frame *sib = NULL;
				size_t j;

				for (j = i - 1; j > 0 && d.frames[j].d >= f->d; j--)
					if (d.frames[j].d == f->d) {
						sib = &d.frames[j];
						break;
					}
				if (sib)
					ASSERT_TRUE(strcmp(sib->name, f->name) < 0 ||
						    (!strcmp(sib->name, f->name) && strstr(f->detail, "inlined")),
						    "round %d: %.50s after %.50s", round, f->name, sib->name);
			}
			drawn++;
		}
		for (i = 0; i < npaths; i++)
			if (paths[i].value * 1000 >= total)
				ASSERT_TRUE(paths[i].seen, "round %d: %.80s (%" PRIu64 " of %" PRIu64 ") drawn",
					    round, paths[i].path, paths[i].value, total);
			else
				ASSERT_FALSE(paths[i].seen, "round %d: %.80s left out", round, paths[i].path);
		ASSERT_GT(drawn, 5, "round %d: frames drawn", round);
		doc_free(&d);
		free(paths);
	}
}

TEST(svg_elides_slivers)
{
	/* 100299 in all: frames under 100.299 (0.1%) are left out */
	static const char folded[] =
		"a_big 99950\n"
		"a_big;under 50\n"
		"b_small 99\n"
		"c_med 200\n";
	const struct frame *f;
	struct doc d;

	ASSERT_OK(render_folded(folded, METRIC_LIVE_BYTES, NULL, &d), "svg__write_folded");
	ASSERT_HELPER(check_geometry(&d, 100299));
	ASSERT_EQ(d.count, 3, "frames: all a_big c_med");
	ASSERT_NULL(find_frame(&d, "b_small", 1), "b_small left out");
	ASSERT_NULL(find_frame(&d, "under", 2), "under left out");
	f = find_frame(&d, "c_med", 1);
	ASSERT_OK_PTR(f, "c_med");
	ASSERT_EQ(f->x, 100099, "c_med after the place of b_small");
	ASSERT_EQ(find_frame(&d, "a_big", 1)->v, 100000, "a_big counts its elided callee");
	doc_free(&d);
}

TEST(svg_empty_profile)
{
	static const enum metric metrics[] = { METRIC_LIVE_BYTES, METRIC_LIVE_COUNT,
					       METRIC_ALLOC_BYTES, METRIC_ALLOC_COUNT };
	struct heap *h = heap__new();
	struct doc d;
	size_t i;

	ASSERT_OK_PTR(h, "heap");
	for (i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++) {
		ASSERT_OK(render(h, NULL, metrics[i], NULL, &d), "svg__write, metric %zu", i);
		ASSERT_XML(d.text);
		ASSERT_EQ(d.count, 0, "frames");
		ASSERT_TRUE(strstr(d.text, "No data"), "says there is no data");
		ASSERT_TRUE(strstr(d.text, "data-total=\"0\""), "total");
		doc_free(&d);
	}
	/* everything freed: nothing live, but something allocated */
	ASSERT_OK(heap__alloc(h, 1, 0x1000, 10, 1, FN_MALLOC, S1, 3), "alloc");
	heap__free(h, 1, 0x1000);
	ASSERT_OK(render(h, NULL, METRIC_LIVE_BYTES, NULL, &d), "svg__write, live");
	ASSERT_TRUE(strstr(d.text, "No data: no call stack has any live bytes."), "no live bytes");
	ASSERT_EQ(d.count, 0, "frames");
	doc_free(&d);
	ASSERT_OK(render(h, NULL, METRIC_ALLOC_BYTES, NULL, &d), "svg__write, allocated");
	ASSERT_FALSE(strstr(d.text, "No data"), "allocated bytes");
	ASSERT_EQ(d.count, 4, "frames: all and three [unknown]");
	doc_free(&d);
	ASSERT_OK(render_folded("", METRIC_ALLOC_COUNT, NULL, &d), "svg__write_folded");
	ASSERT_XML(d.text);
	ASSERT_TRUE(strstr(d.text, "No data: no call stack has any allocations."), "empty folded");
	doc_free(&d);
	heap__destroy(h);
}

TEST(svg_include_filter_leaves_stacks_out)
{
	struct filter *f = filter__new(false);
	struct profile_opts opts = { .filter = f };
	struct heap *h = three_stacks();
	struct doc d;

	ASSERT_OK_PTR(f, "filter");
	ASSERT_OK_PTR(h, "heap");
	ASSERT_OK(filter__include(f, "^no_such_function$"), "--include");
	ASSERT_OK(render(h, &opts, METRIC_LIVE_BYTES, NULL, &d), "svg__write");
	ASSERT_EQ(d.count, 0, "frames");
	ASSERT_TRUE(strstr(d.text, "No data"), "nothing shown");
	doc_free(&d);
	filter__destroy(f);
	heap__destroy(h);
}

TEST(svg_is_self_contained)
{
	struct heap *h = three_stacks();
	const char *script;
	struct doc d;

	ASSERT_OK_PTR(h, "heap");
	ASSERT_OK(render(h, NULL, METRIC_LIVE_BYTES, NULL, &d), "svg__write");
	ASSERT_FALSE(strstr(d.text, "href"), "no links");
	ASSERT_FALSE(strstr(d.text, "url("), "no CSS resources");
	ASSERT_FALSE(strstr(d.text, "@import"), "no CSS imports");
	ASSERT_FALSE(strstr(d.text, " src="), "no script sources");
	ASSERT_EQ(count_of(d.text, "http"), 1, "one URI: the SVG namespace");
	script = strstr(d.text, "<script");
	ASSERT_OK_PTR(script, "inline script");
	ASSERT_TRUE(strstr(script, "data-ready"), "the script marks itself ready");
	ASSERT_TRUE(strstr(d.text, "<style"), "inline style");
	doc_free(&d);
	heap__destroy(h);
}

TEST(svg_folded_errors)
{
	static const char *const bad[] = { "no_value\n", "a;b x\n", "a;b 12x\n", " 12\n",
					   "a;b -1\n", "a 99999999999999999999999\n" };
	struct doc d;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(render_folded(bad[i], METRIC_LIVE_BYTES, NULL, &d), -EINVAL,
			  "malformed line %zu", i);
		doc_free(&d);
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 100k stacks of a program of 300 functions, 4 to 24 frames deep */
TEST(svg_100k_stacks)
{
	uint64_t seed = 42, sum = 0;
	const struct frame *f;
	char *folded = NULL;
	size_t size = 0, i;
	double start, took;
	FILE *in = open_memstream(&folded, &size);
	struct doc d;

	ASSERT_OK_PTR(in, "open_memstream");
	for (i = 0; i < 100000; i++) {
		int depth = 4 + test__rand(&seed) % 21, j;
		uint64_t v = 1 + test__rand(&seed) % 10000;

		fputs("main", in);
		for (j = 1; j < depth; j++)
			fprintf(in, ";fn_%03d", (int)(test__rand(&seed) % (j < 3 ? 8 : 300)));
		fprintf(in, " %" PRIu64 "\n", v);
		sum += v;
	}
	fclose(in);
	start = now_s();
	ASSERT_OK(render_folded(folded, METRIC_LIVE_BYTES, NULL, &d), "svg__write_folded");
	took = now_s() - start;
	free(folded);
	/* well under a second on one core; the limit leaves room for a loaded machine */
	ASSERT_LT(took * 1000, 5000, "milliseconds to draw 100k stacks");
	ASSERT_NULL(xml_error(d.text), "XML well-formed");
	f = find_frame(&d, "main", 1);
	ASSERT_OK_PTR(f, "main");
	ASSERT_EQ(f->v, sum, "main holds everything");
	ASSERT_EQ(d.frames[0].v, sum, "root");
	for (i = 0; i < d.count; i++)
		ASSERT_GE(d.frames[i].v * 1000, sum, "frame %zu is at least 0.1%% wide", i);
	ASSERT_LT(d.count, 10000, "frames drawn");
	doc_free(&d);
}

/* an SVG written while events arrive is the SVG of the snapshot */
TEST(svg_while_events_arrive)
{
	struct profile_opts opts = { .allocator_frame = true };
	char *quiet = NULL, *busy = NULL;
	size_t quiet_size = 0, busy_size = 0;
	struct profile *p = NULL;
	struct busy_heap b;
	FILE *out;
	int err;

	ASSERT_OK(busy_heap__init(&b, 30000), "heap");
	b.few = true;
	p = profile__snapshot(b.heap, &opts);
	ASSERT_OK_PTR(p, "profile__snapshot");
	out = open_memstream(&quiet, &quiet_size);
	ASSERT_OK_PTR(out, "open_memstream");
	err = svg__write(out, p, METRIC_ALLOC_BYTES, NULL);
	fclose(out);
	ASSERT_OK(err, "svg__write, no events");
	busy_heap__attach(&b, &p->opts);
	out = open_memstream(&busy, &busy_size);
	ASSERT_OK_PTR(out, "open_memstream");
	err = svg__write(out, p, METRIC_ALLOC_BYTES, NULL);
	fclose(out);
	ASSERT_OK(err, "svg__write, events arriving");
	ASSERT_OK(b.err, "allocations while it was written");
	/* one a stack as it is shown, then more as the rows are sorted and merged */
	ASSERT_GE(b.idle_calls, 30000 + 2 * (30000 / SORT_TICK_EVERY), "idle calls");
	ASSERT_TRUE(quiet_size > 10000 && busy_size == quiet_size && !memcmp(busy, quiet, quiet_size),
		    "the same SVG (%zu and %zu bytes)", quiet_size, busy_size);
	free(quiet);
	free(busy);
	profile__destroy(p);
	busy_heap__destroy(&b);
}
