// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "report.h"
#include "svg.h"

/* geometry, in pixels; the script reads what it needs from the root element */
#define SVG_WIDTH 1200
#define SVG_PAD 10		/* left and right of the frames */
#define SVG_TOP 64		/* title, subtitle and buttons */
#define SVG_BOTTOM 30		/* the details line */
#define SVG_ROW 16		/* one frame high, gap included */
#define SVG_FONT 12
/* a monospace font keeps labels inside their frames without measuring text */
#define SVG_CHAR_WIDTH (SVG_FONT * 0.6)
/* frames narrower than total / SVG_MIN_SHARE are left out: thousands of
 * invisible slivers would only make the file slow to open */
#define SVG_MIN_SHARE 1000

enum frame_kind {
	KIND_CODE,
	KIND_INLINED,
	KIND_ALLOCATOR,
};

struct node {
	const char *name;	/* interned */
	uint64_t value;		/* its stacks, those through its callees included */
	uint32_t parent;
	uint32_t first_child;	/* 0: none; the root, node 0, is nobody's child */
	uint32_t next_sibling;
	uint8_t kind;
};

struct name_slot {
	const char *name;	/* NULL: empty slot */
	size_t len;
	uint64_t hash;
};

struct tree {
	struct node *nodes;
	size_t count, cap;
	uint32_t *by_path;	/* (parent, name, kind) -> node; 0: empty slot */
	size_t by_path_size;	/* a power of two */
	struct name_slot *names;
	size_t names_count, names_size;
	size_t stacks;		/* stacks added, before merging */
};

static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;	/* FNV-1a */
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb34e1cbd5553ULL;
	return x ^ (x >> 33);
}

static int tree_init(struct tree *t)
{
	memset(t, 0, sizeof(*t));
	t->cap = 1024;
	t->nodes = malloc(t->cap * sizeof(*t->nodes));
	t->by_path_size = 2048;
	t->by_path = calloc(t->by_path_size, sizeof(*t->by_path));
	t->names_size = 256;
	t->names = calloc(t->names_size, sizeof(*t->names));
	if (!t->nodes || !t->by_path || !t->names)
		return -ENOMEM;
	t->nodes[0] = (struct node){ .name = "all" };
	t->count = 1;
	return 0;
}

static void tree_destroy(struct tree *t)
{
	size_t i;

	for (i = 0; t->names && i < t->names_size; i++)
		free((char *)t->names[i].name);
	free(t->names);
	free(t->by_path);
	free(t->nodes);
}

static struct name_slot *find_name(struct name_slot *slots, size_t size, const char *name,
				   size_t len, uint64_t hash)
{
	size_t i = hash & (size - 1);

	while (slots[i].name && (slots[i].hash != hash || slots[i].len != len ||
				 memcmp(slots[i].name, name, len)))
		i = (i + 1) & (size - 1);
	return &slots[i];
}

/* one copy of each name: nodes compare names by pointer, and the profile's
 * strings need not outlive the tree */
static const char *intern(struct tree *t, const char *name, size_t len)
{
	uint64_t hash = hash_bytes(name, len);
	struct name_slot *slot;
	char *copy;

	if (2 * (t->names_count + 1) > t->names_size) {
		size_t size = t->names_size * 2, i;
		struct name_slot *grown = calloc(size, sizeof(*grown));

		if (!grown)
			return NULL;
		for (i = 0; i < t->names_size; i++)
			if (t->names[i].name)
				*find_name(grown, size, t->names[i].name, t->names[i].len,
					   t->names[i].hash) = t->names[i];
		free(t->names);
		t->names = grown;
		t->names_size = size;
	}
	slot = find_name(t->names, t->names_size, name, len, hash);
	if (slot->name)
		return slot->name;
	copy = malloc(len + 1);
	if (!copy)
		return NULL;
	memcpy(copy, name, len);
	copy[len] = '\0';
	*slot = (struct name_slot){ .name = copy, .len = len, .hash = hash };
	t->names_count++;
	return copy;
}

static uint64_t path_hash(uint32_t parent, const char *name, uint8_t kind)
{
	return mix(((uint64_t)parent << 2 | kind) ^ mix((uintptr_t)name));
}

static uint32_t *find_path(const struct tree *t, uint32_t *slots, size_t size, uint32_t parent,
			   const char *name, uint8_t kind)
{
	size_t i = path_hash(parent, name, kind) & (size - 1);

	while (slots[i]) {
		const struct node *n = &t->nodes[slots[i]];

		if (n->parent == parent && n->name == name && n->kind == kind)
			break;
		i = (i + 1) & (size - 1);
	}
	return &slots[i];
}

static int grow(struct tree *t)
{
	if (t->count == UINT32_MAX)
		return -E2BIG;
	if (t->count == t->cap) {
		struct node *nodes = realloc(t->nodes, 2 * t->cap * sizeof(*nodes));

		if (!nodes)
			return -ENOMEM;
		t->nodes = nodes;
		t->cap *= 2;
	}
	if (2 * (t->count + 1) > t->by_path_size) {
		size_t size = t->by_path_size * 2, i;
		uint32_t *slots = calloc(size, sizeof(*slots));

		if (!slots)
			return -ENOMEM;
		for (i = 0; i < t->by_path_size; i++) {
			const struct node *n = &t->nodes[t->by_path[i]];

			if (t->by_path[i])
				*find_path(t, slots, size, n->parent, n->name, n->kind) = t->by_path[i];
		}
		free(t->by_path);
		t->by_path = slots;
		t->by_path_size = size;
	}
	return 0;
}

/* moves *at to its callee of that name (made if new) and adds value to it */
static int tree_step(struct tree *t, uint32_t *at, const char *name, size_t len, uint8_t kind,
		     uint64_t value)
{
	const char *interned = intern(t, name, len);
	uint32_t *slot, id;
	int err;

	if (!interned)
		return -ENOMEM;
	err = grow(t);
	if (err)
		return err;
	slot = find_path(t, t->by_path, t->by_path_size, *at, interned, kind);
	if (!*slot) {
		id = (uint32_t)t->count++;
		t->nodes[id] = (struct node){
			.name = interned,
			.parent = *at,
			.next_sibling = t->nodes[*at].first_child,
			.kind = kind,
		};
		t->nodes[*at].first_child = id;
		*slot = id;
	}
	*at = *slot;
	t->nodes[*at].value += value;
	return 0;
}

static int add_shown(struct tree *t, const struct profile *p, const struct shown_frame *frames,
		     int n, uint64_t value)
{
	uint32_t at = 0;
	int i, err;

	t->nodes[0].value += value;
	t->stacks++;
	for (i = n - 1; i >= 0; i--) {
		/* with allocator_frame, profile__show always puts it first */
		uint8_t kind = i == 0 && p->opts.allocator_frame ? KIND_ALLOCATOR :
			       frames[i].inlined ? KIND_INLINED : KIND_CODE;
		const char *name = frames[i].function ? frames[i].function : "[unknown]";

		err = tree_step(t, &at, name, strlen(name), kind, value);
		if (err)
			return err;
	}
	return 0;
}

/* "outer;...;leaf value"; 0 for a blank line */
static int add_folded(struct tree *t, char *line)
{
	static const char inlined_mark[] = "_[i]";
	const size_t mark_len = sizeof(inlined_mark) - 1;
	size_t len = strcspn(line, "\r\n");
	char *space, *end, *frame;
	unsigned long long value;
	uint32_t at = 0;
	int err;

	line[len] = '\0';
	if (!len)
		return 0;
	space = strrchr(line, ' ');
	if (!space || space == line || space[1] < '0' || space[1] > '9')
		return -EINVAL;
	errno = 0;
	value = strtoull(space + 1, &end, 10);
	if (errno || *end)
		return -EINVAL;
	if (!value)
		return 0;
	*space = '\0';
	t->nodes[0].value += value;
	t->stacks++;
	for (frame = line; frame; frame = end ? end + 1 : NULL) {
		size_t flen;
		uint8_t kind = KIND_CODE;

		end = strchr(frame, ';');
		flen = end ? (size_t)(end - frame) : strlen(frame);
		if (flen > mark_len && !memcmp(frame + flen - mark_len, inlined_mark, mark_len)) {
			flen -= mark_len;
			kind = KIND_INLINED;
		}
		err = tree_step(t, &at, frame, flen, kind, value);
		if (err)
			return err;
	}
	return 0;
}

/* ------------------------------------------------------------------ text */

/*
 * The next character of s as XML text: an entity for markup characters, a
 * valid UTF-8 sequence as it is, U+FFFD for bytes that are not UTF-8 or for
 * characters XML 1.0 forbids (ELF names are bytes, not text), a space for a
 * line break. Returns the bytes of s it stands for.
 */
static size_t xml_char(const unsigned char *s, const char **text, size_t *text_len)
{
	static const char replacement[] = "\xef\xbf\xbd";
	unsigned char c = s[0];
	size_t need, i;
	unsigned char lo = 0x80, hi = 0xbf;

	*text = (const char *)s;
	*text_len = 1;
	switch (c) {
	case '&': *text = "&amp;"; *text_len = 5; return 1;
	case '<': *text = "&lt;"; *text_len = 4; return 1;
	case '>': *text = "&gt;"; *text_len = 4; return 1;
	case '"': *text = "&quot;"; *text_len = 6; return 1;
	case '\'': *text = "&apos;"; *text_len = 6; return 1;
	case '\n':
	case '\r':
	case '\t': *text = " "; return 1;
	}
	if (c >= 0x20 && c < 0x7f)
		return 1;
	*text = replacement;
	*text_len = 3;
	if (c < 0xc2 || c > 0xf4)
		return 1;	/* control, continuation byte, overlong lead */
	need = c < 0xe0 ? 1 : c < 0xf0 ? 2 : 3;
	if (c == 0xe0)
		lo = 0xa0;	/* overlong */
	else if (c == 0xed)
		hi = 0x9f;	/* surrogates */
	else if (c == 0xf0)
		lo = 0x90;	/* overlong */
	else if (c == 0xf4)
		hi = 0x8f;	/* above U+10FFFF */
	if (s[1] < lo || s[1] > hi)
		return 1;
	for (i = 2; i <= need; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 1;
	/* U+FFFE and U+FFFF are no characters for XML */
	if (c == 0xef && s[1] == 0xbf && s[2] >= 0xbe)
		return need + 1;
	*text = (const char *)s;
	*text_len = need + 1;
	return need + 1;
}

/* characters of s as shown */
static size_t text_chars(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0, len;
	const char *text;

	while (*p) {
		p += xml_char(p, &text, &len);
		n++;
	}
	return n;
}

/* the first max characters of s, escaped for XML */
static void put_text_n(FILE *out, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	const char *text;
	size_t len;

	for (; *p && max; max--) {
		p += xml_char(p, &text, &len);
		fwrite(text, 1, len, out);
	}
}

static void put_text(FILE *out, const char *s)
{
	put_text_n(out, s, SIZE_MAX);
}

/* what fits in width pixels: all of name, its start and "..", or nothing */
static void put_label(FILE *out, const char *name, double width)
{
	double fit = (width - 6) / SVG_CHAR_WIDTH;
	size_t max = fit > 0 ? (size_t)fit : 0, chars;

	if (max < 3)
		return;
	chars = text_chars(name);
	if (chars <= max) {
		put_text(out, name);
		return;
	}
	put_text_n(out, name, max - 2);
	fputs("..", out);
}

/* in C, whatever the locale: a decimal comma would break the SVG's numbers */
static void put_fixed(FILE *out, double v)
{
	long long hundredths = (long long)(v * 100 + (v < 0 ? -0.5 : 0.5));

	if (hundredths < 0) {
		fputc('-', out);
		hundredths = -hundredths;
	}
	fprintf(out, "%lld", hundredths / 100);
	if (hundredths % 100)
		fprintf(out, ".%02lld", hundredths % 100);
}

/* "1,234,567" */
static void format_count(uint64_t v, char *buf, size_t size)
{
	char digits[32], *out = buf;
	int n = snprintf(digits, sizeof(digits), "%" PRIu64, v), i;

	for (i = 0; i < n && (size_t)(out - buf) + 2 < size; i++) {
		if (i && (n - i) % 3 == 0)
			*out++ = ',';
		*out++ = digits[i];
	}
	*out = '\0';
}

static bool metric_is_bytes(enum metric metric)
{
	return metric == METRIC_LIVE_BYTES || metric == METRIC_ALLOC_BYTES;
}

/* follows a value: "1.50 MiB live", "12 allocations" */
static const char *metric_word(enum metric metric)
{
	switch (metric) {
	case METRIC_LIVE_BYTES: return "live";
	case METRIC_LIVE_COUNT: return "live blocks";
	case METRIC_ALLOC_BYTES: return "allocated";
	case METRIC_ALLOC_COUNT: return "allocations";
	}
	return "";
}

static const char *metric_title(enum metric metric)
{
	switch (metric) {
	case METRIC_LIVE_BYTES: return "Live heap bytes";
	case METRIC_LIVE_COUNT: return "Live heap blocks";
	case METRIC_ALLOC_BYTES: return "Allocated bytes";
	case METRIC_ALLOC_COUNT: return "Allocation calls";
	}
	return "";
}

static void format_value(enum metric metric, uint64_t v, char *buf, size_t size)
{
	char num[32];

	if (metric_is_bytes(metric))
		report__human_bytes(v, num, sizeof(num));
	else
		format_count(v, num, sizeof(num));
	snprintf(buf, size, "%s %s", num, metric_word(metric));
}

/* ---------------------------------------------------------------- drawing */

struct writer {
	FILE *out;
	struct tree *t;
	enum metric metric;
	uint64_t total;
	double min_value;	/* narrower frames are left out */
	double scale;		/* pixels per unit of value */
	int height;
	uint32_t *order;	/* the callees being drawn, per level, alphabetical */
	size_t order_len, order_cap;
	size_t drawn;
	uint32_t max_depth;
};

static bool drawn(const struct writer *w, const struct node *n)
{
	return (double)n->value >= w->min_value;
}

/* how deep the drawn frames go, and how many there are */
static void measure(struct writer *w, uint32_t id, uint32_t depth)
{
	const struct node *n = &w->t->nodes[id];
	uint32_t c;

	w->drawn++;
	if (depth > w->max_depth)
		w->max_depth = depth;
	for (c = n->first_child; c; c = w->t->nodes[c].next_sibling)
		if (drawn(w, &w->t->nodes[c]))
			measure(w, c, depth + 1);
}

static const struct node *sort_nodes;

static int by_name(const void *a, const void *b)
{
	const struct node *x = &sort_nodes[*(const uint32_t *)a], *y = &sort_nodes[*(const uint32_t *)b];
	int cmp = x->name == y->name ? 0 : strcmp(x->name, y->name);

	return cmp ? cmp : (int)x->kind - (int)y->kind;
}

/* deterministic from the name, so one function has one colour in every graph */
static void frame_color(const struct node *n, bool root, int rgb[3])
{
	uint64_t h = mix(hash_bytes(n->name, strlen(n->name)));
	double v1 = (h & 0xffff) / 65535.0, v2 = (h >> 16 & 0xffff) / 65535.0,
	       v3 = (h >> 32 & 0xffff) / 65535.0;

	if (root) {
		rgb[0] = 200, rgb[1] = 200, rgb[2] = 200;
	} else if (n->kind == KIND_INLINED) {	/* flamegraph.pl's "aqua" */
		rgb[0] = 50 + (int)(60 * v1);
		rgb[1] = 165 + (int)(55 * v2);
		rgb[2] = 165 + (int)(55 * v3);
	} else if (n->kind == KIND_ALLOCATOR) {	/* greens: the allocator itself */
		rgb[0] = 90 + (int)(60 * v1);
		rgb[1] = 190 + (int)(50 * v2);
		rgb[2] = 60 + (int)(50 * v3);
	} else {				/* "hot" */
		rgb[0] = 205 + (int)(50 * v3);
		rgb[1] = (int)(230 * v1);
		rgb[2] = (int)(55 * v2);
	}
}

static void put_frame(struct writer *w, uint32_t id, uint64_t x, uint32_t depth)
{
	const struct node *n = &w->t->nodes[id];
	double px = SVG_PAD + x * w->scale, pw = n->value * w->scale;
	int y = w->height - SVG_BOTTOM - (int)(depth + 1) * SVG_ROW, rgb[3];
	char value[64];

	frame_color(n, id == 0, rgb);
	format_value(w->metric, n->value, value, sizeof(value));
	fprintf(w->out, "<g class=\"f\" data-v=\"%" PRIu64 "\" data-x=\"%" PRIu64 "\" data-d=\"%u\"><title>",
		n->value, x, depth);
	put_text(w->out, n->name);
	fprintf(w->out, "\n%s, ", value);
	put_fixed(w->out, 100.0 * n->value / w->total);
	fprintf(w->out, "%%%s</title><rect x=\"", n->kind == KIND_INLINED ? ", inlined" :
		n->kind == KIND_ALLOCATOR ? ", allocator" : "");
	put_fixed(w->out, px);
	fprintf(w->out, "\" y=\"%d\" width=\"", y);
	put_fixed(w->out, pw);
	fprintf(w->out, "\" height=\"%d\" fill=\"rgb(%d,%d,%d)\"/><text x=\"", SVG_ROW - 1, rgb[0],
		rgb[1], rgb[2]);
	put_fixed(w->out, px + 3);
	fprintf(w->out, "\" y=\"%d\">", y + SVG_ROW - 5);
	put_label(w->out, n->name, pw);
	fputs("</text></g>\n", w->out);
}

static int draw(struct writer *w, uint32_t id, uint64_t x, uint32_t depth)
{
	size_t base = w->order_len, count = 0, i;
	uint32_t c;
	int err;

	put_frame(w, id, x, depth);
	for (c = w->t->nodes[id].first_child; c; c = w->t->nodes[c].next_sibling) {
		if (w->order_len == w->order_cap) {
			size_t cap = w->order_cap ? 2 * w->order_cap : 256;
			uint32_t *order = realloc(w->order, cap * sizeof(*order));

			if (!order)
				return -ENOMEM;
			w->order = order;
			w->order_cap = cap;
		}
		w->order[w->order_len++] = c;
		count++;
	}
	sort_nodes = w->t->nodes;
	qsort(w->order + base, count, sizeof(*w->order), by_name);
	/* a frame left out still takes its place: its value counts in its caller */
	for (i = 0; i < count; i++) {
		const struct node *child = &w->t->nodes[w->order[base + i]];

		if (drawn(w, child)) {
			err = draw(w, w->order[base + i], x, depth + 1);
			if (err)
				return err;
		}
		x += child->value;
	}
	w->order_len = base;
	return 0;
}

static const char svg_style[] =
	"<style type=\"text/css\"><![CDATA[\n"
	"text { font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; font-size: 12px; fill: #000; }\n"
	"#title { font-size: 17px; font-weight: bold; }\n"
	"#subtitle { fill: #555; }\n"
	"#details, #matched { fill: #333; }\n"
	".f { cursor: pointer; }\n"
	".f text { pointer-events: none; }\n"
	".f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
	".p rect { fill-opacity: 0.5; }\n"
	".btn { cursor: pointer; fill: #333; text-decoration: underline; }\n"
	".btn:hover { fill: #00c; }\n"
	".h { display: none; }\n"
	"]]></style>\n";

/* kept free of "]]>", which would end the CDATA section */
static const char svg_script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"'use strict';\n"
	"(function () {\n"
	"var svg = document.documentElement;\n"
	"var W = +svg.getAttribute('data-width'), PAD = +svg.getAttribute('data-pad');\n"
	"var CW = +svg.getAttribute('data-char-width'), AVAIL = W - 2 * PAD;\n"
	"var BYTES = svg.getAttribute('data-unit') === 'bytes', WORD = svg.getAttribute('data-word');\n"
	"var HIGHLIGHT = 'rgb(230,0,230)';\n"
	"var F = [], R = [], T = [], X = [], V = [], D = [], N = [], DET = [], FILL = [];\n"
	"var details = document.getElementById('details'), matched = document.getElementById('matched');\n"
	"var unzoomBtn = document.getElementById('unzoom'), searchBtn = document.getElementById('search');\n"
	"var hint = details ? details.textContent : '', zoomed = -1, searching = null;\n"
	"\n"
	"function human(b) {\n"
	"	var units = ['KiB', 'MiB', 'GiB', 'TiB'], v = b, u = -1;\n"
	"	if (b < 1024) return b + ' B';\n"
	"	while (v >= 1023.5 && u < 3) { v /= 1024; u++; }\n"
	"	return (v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0)) + ' ' + units[u];\n"
	"}\n"
	"function count(v) { return String(Math.round(v)).replace(/\\B(?=(\\d{3})+(?!\\d))/g, ','); }\n"
	"function fmt(v) { return (BYTES ? human(v) : count(v)) + ' ' + WORD; }\n"
	"function fit(i, w) {\n"
	"	var n = Math.floor((w - 6) / CW), s = N[i];\n"
	"	if (n < 3) return '';\n"
	"	return s.length <= n ? s : s.slice(0, n - 2) + '..';\n"
	"}\n"
	"function place(i, x, w) {\n"
	"	R[i].setAttribute('x', x.toFixed(2));\n"
	"	R[i].setAttribute('width', w.toFixed(2));\n"
	"	T[i].setAttribute('x', (x + 3).toFixed(2));\n"
	"	T[i].textContent = fit(i, w);\n"
	"}\n"
	"function show(i, on) {\n"
	"	F[i].classList.toggle('h', !on);\n"
	"}\n"
	"function unzoom() {\n"
	"	var total = V[0];\n"
	"	zoomed = -1;\n"
	"	for (var i = 0; i < F.length; i++) {\n"
	"		show(i, true);\n"
	"		F[i].classList.remove('p');\n"
	"		place(i, PAD + X[i] / total * AVAIL, V[i] / total * AVAIL);\n"
	"	}\n"
	"	unzoomBtn.classList.add('h');\n"
	"	svg.removeAttribute('data-zoom');\n"
	"}\n"
	"/* the callers of frame z span the width, its callees fill it in proportion */\n"
	"function zoom(z) {\n"
	"	var zx = X[z], zv = V[z], zd = D[z], hidden = 0;\n"
	"	if (z === 0) return unzoom();\n"
	"	zoomed = z;\n"
	"	for (var i = 0; i < F.length; i++) {\n"
	"		var caller = D[i] < zd && X[i] <= zx && X[i] + V[i] >= zx + zv;\n"
	"		var callee = D[i] >= zd && X[i] >= zx && X[i] < zx + zv;\n"
	"		show(i, caller || callee);\n"
	"		F[i].classList.toggle('p', caller);\n"
	"		if (caller) place(i, PAD, AVAIL);\n"
	"		else if (callee) place(i, PAD + (X[i] - zx) / zv * AVAIL, V[i] / zv * AVAIL);\n"
	"		else hidden++;\n"
	"	}\n"
	"	unzoomBtn.classList.remove('h');\n"
	"	svg.setAttribute('data-zoom', N[z]);\n"
	"	svg.setAttribute('data-hidden', hidden);\n"
	"}\n"
	"function resetSearch() {\n"
	"	for (var i = 0; i < F.length; i++) R[i].setAttribute('fill', FILL[i]);\n"
	"	searching = null;\n"
	"	matched.textContent = '';\n"
	"	searchBtn.textContent = 'Search';\n"
	"	svg.removeAttribute('data-matched');\n"
	"	svg.removeAttribute('data-matched-pct');\n"
	"}\n"
	"/* nested matches count once: the share is the union of their spans */\n"
	"function search(re) {\n"
	"	var rx, spans = [], n = 0, sum = 0, end = -1, pct;\n"
	"	try { rx = new RegExp(re); } catch (e) { matched.textContent = 'Invalid regex: ' + re; return; }\n"
	"	for (var i = 1; i < F.length; i++) {\n"
	"		var hit = rx.test(N[i]);\n"
	"		R[i].setAttribute('fill', hit ? HIGHLIGHT : FILL[i]);\n"
	"		if (hit) { n++; spans.push([X[i], X[i] + V[i]]); }\n"
	"	}\n"
	"	spans.sort(function (a, b) { return a[0] - b[0] || b[1] - a[1]; });\n"
	"	spans.forEach(function (s) {\n"
	"		if (s[1] <= end) return;\n"
	"		sum += s[1] - Math.max(s[0], end);\n"
	"		end = s[1];\n"
	"	});\n"
	"	pct = V[0] ? sum / V[0] * 100 : 0;\n"
	"	searching = re;\n"
	"	searchBtn.textContent = 'Reset Search';\n"
	"	matched.textContent = n ? 'Matched: ' + pct.toFixed(2) + '% (' + fmt(sum) + ', ' + n +\n"
	"		(n === 1 ? ' frame)' : ' frames)') : 'No frame matches ' + re;\n"
	"	svg.setAttribute('data-matched', n);\n"
	"	svg.setAttribute('data-matched-pct', pct.toFixed(2));\n"
	"}\n"
	"function askSearch() {\n"
	"	var re = window.prompt('Search for frames matching this regular expression:', searching || '');\n"
	"	if (re) search(re);\n"
	"}\n"
	"function frameOf(e) {\n"
	"	var g = e.target && e.target.closest ? e.target.closest('g.f') : null;\n"
	"	return g ? g.fgIndex : -1;\n"
	"}\n"
	"\n"
	"var gs = document.querySelectorAll('g.f');\n"
	"for (var i = 0; i < gs.length; i++) {\n"
	"	var g = gs[i], lines = g.querySelector('title').textContent.split('\\n');\n"
	"	g.fgIndex = i;\n"
	"	F.push(g);\n"
	"	R.push(g.querySelector('rect'));\n"
	"	T.push(g.querySelector('text'));\n"
	"	X.push(+g.getAttribute('data-x'));\n"
	"	V.push(+g.getAttribute('data-v'));\n"
	"	D.push(+g.getAttribute('data-d'));\n"
	"	N.push(lines[0]);\n"
	"	DET.push(lines.slice(1).join(' '));\n"
	"	FILL.push(R[i].getAttribute('fill'));\n"
	"}\n"
	"svg.addEventListener('click', function (e) {\n"
	"	var i = frameOf(e);\n"
	"	if (i >= 0) zoom(i);\n"
	"});\n"
	"svg.addEventListener('mouseover', function (e) {\n"
	"	var i = frameOf(e);\n"
	"	if (i >= 0) details.textContent = N[i] + ': ' + DET[i];\n"
	"});\n"
	"svg.addEventListener('mouseout', function (e) {\n"
	"	if (frameOf(e) >= 0) details.textContent = zoomed >= 0 ? 'Zoomed into ' + N[zoomed] : hint;\n"
	"});\n"
	"if (unzoomBtn) unzoomBtn.addEventListener('click', function (e) { e.stopPropagation(); unzoom(); });\n"
	"if (searchBtn) searchBtn.addEventListener('click', function (e) {\n"
	"	e.stopPropagation();\n"
	"	if (searching !== null) resetSearch(); else askSearch();\n"
	"});\n"
	"window.addEventListener('keydown', function (e) {\n"
	"	if (!F.length) return;\n"
	"	if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); askSearch(); }\n"
	"	else if (e.key === 'Escape') { unzoom(); resetSearch(); }\n"
	"});\n"
	"try {\n"
	"	var q = new URLSearchParams(window.location.search), z = q.get('z'), s = q.get('s');\n"
	"	if (z && F.length) {\n"
	"		var zr = new RegExp(z);\n"
	"		for (var j = 1; j < F.length; j++) if (zr.test(N[j])) { zoom(j); break; }\n"
	"	}\n"
	"	if (s && F.length) search(s);\n"
	"} catch (e) {\n"
	"	svg.setAttribute('data-error', String(e));\n"
	"}\n"
	"svg.setAttribute('data-frames', F.length);\n"
	"svg.setAttribute('data-ready', '1');\n"
	"})();\n"
	"]]></script>\n";

static void put_header(struct writer *w, const char *title, int height)
{
	int mid = SVG_WIDTH / 2;

	fprintf(w->out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" data-width=\"%d\" data-pad=\"%d\" data-char-width=\"",
		SVG_WIDTH, height, SVG_WIDTH, height, SVG_WIDTH, SVG_PAD);
	put_fixed(w->out, SVG_CHAR_WIDTH);
	fprintf(w->out, "\" data-unit=\"%s\" data-word=\"%s\" data-total=\"%" PRIu64 "\">\n",
		metric_is_bytes(w->metric) ? "bytes" : "count", metric_word(w->metric), w->total);
	fputs("<title>", w->out);
	put_text(w->out, title);
	fputs("</title>\n", w->out);
	fputs(svg_style, w->out);
	fprintf(w->out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#f8f8f4\"/>\n",
		SVG_WIDTH, height);
	fprintf(w->out, "<text id=\"title\" x=\"%d\" y=\"24\" text-anchor=\"middle\">", mid);
	put_text(w->out, title);
	fputs("</text>\n", w->out);
}

static int write_svg(FILE *out, struct tree *t, enum metric metric, const char *title)
{
	struct writer w = { .out = out, .t = t, .metric = metric, .total = t->nodes[0].value };
	char total[64], stacks[32];
	int err = 0;

	if (!title)
		title = "Heap flamegraph";
	format_value(metric, w.total, total, sizeof(total));
	format_count(t->stacks, stacks, sizeof(stacks));
	if (!w.total) {
		w.height = SVG_TOP + 3 * SVG_ROW + SVG_BOTTOM;
		put_header(&w, title, w.height);
		fprintf(out, "<text id=\"subtitle\" x=\"%d\" y=\"44\" text-anchor=\"middle\">%s by call stack</text>\n",
			SVG_WIDTH / 2, metric_title(metric));
		fprintf(out, "<text id=\"nodata\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">"
			"No data: no call stack has any %s.</text>\n",
			SVG_WIDTH / 2, SVG_TOP + 2 * SVG_ROW,
			metric_is_bytes(metric) ? (metric == METRIC_LIVE_BYTES ? "live bytes" : "allocated bytes") :
			metric_word(metric));
		fputs(svg_script, out);
		fputs("</svg>\n", out);
		return ferror(out) ? -EIO : 0;
	}
	w.min_value = (double)w.total / SVG_MIN_SHARE;
	w.scale = (double)(SVG_WIDTH - 2 * SVG_PAD) / w.total;
	measure(&w, 0, 0);
	w.height = SVG_TOP + (int)(w.max_depth + 1) * SVG_ROW + SVG_BOTTOM;
	put_header(&w, title, w.height);
	fprintf(out, "<text id=\"subtitle\" x=\"%d\" y=\"44\" text-anchor=\"middle\">"
		"%s by call stack: %s in total, %s stack%s</text>\n",
		SVG_WIDTH / 2, metric_title(metric), total, stacks, t->stacks == 1 ? "" : "s");
	fprintf(out, "<text id=\"unzoom\" class=\"btn h\" x=\"%d\" y=\"24\">Reset Zoom</text>\n",
		SVG_PAD);
	fprintf(out, "<text id=\"search\" class=\"btn\" x=\"%d\" y=\"24\" text-anchor=\"end\">Search</text>\n",
		SVG_WIDTH - SVG_PAD);
	fprintf(out, "<text id=\"details\" x=\"%d\" y=\"%d\">Hover: frame details. Click: zoom. "
		"Ctrl-F: search.</text>\n", SVG_PAD, w.height - 10);
	fprintf(out, "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"></text>\n",
		SVG_WIDTH - SVG_PAD, w.height - 10);
	fputs("<g id=\"frames\">\n", out);
	err = draw(&w, 0, 0, 0);
	free(w.order);
	if (err)
		return err;
	fputs("</g>\n", out);
	fputs(svg_script, out);
	fputs("</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}

int svg__write(FILE *out, struct profile *p, enum metric metric, const char *title)
{
	struct tree t;
	size_t i;
	int err = tree_init(&t);

	for (i = 0; !err && i < p->count; i++) {
		const struct shown_frame *frames;
		uint64_t value = profile__value(&p->stacks[i], metric);
		int n;

		if (!value)
			continue;
		n = profile__show(p, &p->stacks[i], &frames);
		if (n < 0)
			err = n;
		else if (n > 0)
			err = add_shown(&t, p, frames, n, value);
	}
	if (!err)
		err = write_svg(out, &t, metric, title);
	tree_destroy(&t);
	return err;
}

int svg__write_folded(FILE *out, FILE *in, enum metric metric, const char *title)
{
	struct tree t;
	char *line = NULL;
	size_t size = 0;
	int err = tree_init(&t);

	while (!err && getline(&line, &size, in) >= 0)
		err = add_folded(&t, line);
	if (!err && ferror(in))
		err = -EIO;
	free(line);
	if (!err)
		err = write_svg(out, &t, metric, title);
	tree_destroy(&t);
	return err;
}
