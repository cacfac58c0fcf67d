// SPDX-License-Identifier: GPL-2.0
/*
 * The flamegraph is built as flamegraph.pl builds it: every stack becomes a
 * row of frame names, outermost first; the rows are sorted, so that stacks
 * through the same callers lie side by side; one pass then merges equal
 * prefixes into frames, each frame spanning the values of its run of rows.
 * That needs no tree of pointers and no hash of paths, and frames come out
 * in the order they are drawn: callers before callees, siblings alphabetical.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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

/* a frame of a row: name id << 2 | kind; after ranking, the name's rank, so
 * that rows compare as integers in alphabetical order */
#define SYM(name, kind) ((uint32_t)(name) << 2 | (kind))
#define SYM_NAME(sym) ((sym) >> 2)
#define SYM_KIND(sym) ((sym) & 3)
#define MAX_NAMES (1u << 30)

struct row {
	size_t first;		/* its frames: syms[first], ... */
	uint32_t len;
	uint64_t value;
};

struct name_slot {
	const char *name;	/* NULL: empty slot */
	size_t len;
	uint64_t hash;
	uint32_t id;
};

/* rows, frames or syms handled between two looks at the clock (profile__idle) */
#define IDLE_ROWS 1024
#define IDLE_SYMS 65536

/* the profile's strings live as long as the writer: a name seen before is
 * known by its address, without hashing it again */
#define PTR_CACHE 4096

struct rows {
	uint32_t *syms;
	size_t nsyms, syms_cap;
	struct row *rows;
	size_t count, cap;
	uint32_t max_len;
	uint64_t total;
	struct name_slot *slots;	/* name -> id */
	size_t slots_size;		/* a power of two */
	char **names;			/* by id; by rank once ranked */
	size_t nnames, names_cap;
	struct {
		const char *ptr;
		uint32_t id;
	} ptr_cache[PTR_CACHE];
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

static struct rows *rows_new(void)
{
	struct rows *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->slots_size = 256;
	r->slots = calloc(r->slots_size, sizeof(*r->slots));
	if (!r->slots) {
		free(r);
		return NULL;
	}
	return r;
}

static void rows_destroy(struct rows *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nnames; i++)
		free(r->names[i]);
	free(r->names);
	free(r->slots);
	free(r->rows);
	free(r->syms);
	free(r);
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

/* the id of a name, a copy of it made the first time; negative errno */
static int64_t name_id(struct rows *r, const char *name, size_t len)
{
	uint64_t hash = hash_bytes(name, len);
	struct name_slot *slot;
	char *copy;

	if (2 * (r->nnames + 1) > r->slots_size) {
		size_t size = r->slots_size * 2, i;
		struct name_slot *grown = calloc(size, sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		for (i = 0; i < r->slots_size; i++)
			if (r->slots[i].name)
				*find_name(grown, size, r->slots[i].name, r->slots[i].len,
					   r->slots[i].hash) = r->slots[i];
		free(r->slots);
		r->slots = grown;
		r->slots_size = size;
	}
	slot = find_name(r->slots, r->slots_size, name, len, hash);
	if (slot->name)
		return slot->id;
	if (r->nnames == MAX_NAMES)
		return -E2BIG;
	if (r->nnames == r->names_cap) {
		size_t cap = r->names_cap ? 2 * r->names_cap : 256;
		char **names = realloc(r->names, cap * sizeof(*names));

		if (!names)
			return -ENOMEM;
		r->names = names;
		r->names_cap = cap;
	}
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, name, len);
	copy[len] = '\0';
	r->names[r->nnames] = copy;
	*slot = (struct name_slot){ .name = copy, .len = len, .hash = hash, .id = (uint32_t)r->nnames };
	return r->nnames++;
}

/* a string of the profile: the same address is the same name */
static int64_t cached_name_id(struct rows *r, const char *name)
{
	size_t i = mix((uintptr_t)name) & (PTR_CACHE - 1);
	int64_t id;

	if (r->ptr_cache[i].ptr == name)
		return r->ptr_cache[i].id;
	id = name_id(r, name, strlen(name));
	if (id >= 0) {
		r->ptr_cache[i].ptr = name;
		r->ptr_cache[i].id = (uint32_t)id;
	}
	return id;
}

static int push_sym(struct rows *r, uint32_t sym)
{
	if (r->nsyms == r->syms_cap) {
		size_t cap = r->syms_cap ? 2 * r->syms_cap : 4096;
		uint32_t *syms = realloc(r->syms, cap * sizeof(*syms));

		if (!syms)
			return -ENOMEM;
		r->syms = syms;
		r->syms_cap = cap;
	}
	r->syms[r->nsyms++] = sym;
	return 0;
}

/* the frames pushed since first make a row */
static int end_row(struct rows *r, size_t first, uint64_t value)
{
	uint32_t len = (uint32_t)(r->nsyms - first);

	if (r->count == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 1024;
		struct row *rows = realloc(r->rows, cap * sizeof(*rows));

		if (!rows)
			return -ENOMEM;
		r->rows = rows;
		r->cap = cap;
	}
	r->rows[r->count++] = (struct row){ .first = first, .len = len, .value = value };
	if (len > r->max_len)
		r->max_len = len;
	r->total += value;
	return 0;
}

static int add_shown(struct rows *r, const struct profile *p, const struct shown_frame *frames,
		     int n, uint64_t value)
{
	size_t first = r->nsyms;
	int i, err;

	for (i = n - 1; i >= 0; i--) {
		/* with allocator_frame, profile__show always puts it first */
		uint8_t kind = i == 0 && p->opts.allocator_frame ? KIND_ALLOCATOR :
			       frames[i].inlined ? KIND_INLINED : KIND_CODE;
		int64_t id = cached_name_id(r, frames[i].function ? frames[i].function : "[unknown]");

		if (id < 0)
			return (int)id;
		err = push_sym(r, SYM(id, kind));
		if (err)
			return err;
	}
	return end_row(r, first, value);
}

/* "outer;...;leaf value"; nothing for a blank line */
static int add_folded(struct rows *r, char *line)
{
	static const char inlined_mark[] = "_[i]";
	const size_t mark_len = sizeof(inlined_mark) - 1;
	size_t len = strcspn(line, "\r\n"), first = r->nsyms;
	char *space, *end, *frame;
	unsigned long long value;
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
	for (frame = line; frame; frame = end ? end + 1 : NULL) {
		uint8_t kind = KIND_CODE;
		size_t flen;
		int64_t id;

		end = strchr(frame, ';');
		flen = end ? (size_t)(end - frame) : strlen(frame);
		if (flen > mark_len && !memcmp(frame + flen - mark_len, inlined_mark, mark_len)) {
			flen -= mark_len;
			kind = KIND_INLINED;
		}
		id = name_id(r, frame, flen);
		if (id < 0)
			return (int)id;
		err = push_sym(r, SYM(id, kind));
		if (err)
			return err;
	}
	return end_row(r, first, value);
}

static int by_name(const void *a, const void *b, void *names)
{
	char *const *n = names;

	return strcmp(n[*(const uint32_t *)a], n[*(const uint32_t *)b]);
}

static int by_frames(const void *a, const void *b, void *syms)
{
	const struct row *x = a, *y = b;
	const uint32_t *p = (const uint32_t *)syms + x->first, *q = (const uint32_t *)syms + y->first;
	uint32_t n = x->len < y->len ? x->len : y->len, i;

	for (i = 0; i < n; i++)
		if (p[i] != q[i])
			return p[i] < q[i] ? -1 : 1;
	/* a caller's own value goes before its callees', as in flamegraph.pl */
	return x->len < y->len ? -1 : x->len > y->len;
}

/* names renumbered in alphabetical order, then rows sorted; idles through p */
static int sort_rows(struct rows *r, struct profile *p)
{
	uint32_t *order = malloc((r->nnames ? r->nnames : 1) * sizeof(*order));
	uint32_t *rank = malloc((r->nnames ? r->nnames : 1) * sizeof(*rank));
	char **names = malloc((r->nnames ? r->nnames : 1) * sizeof(*names));
	size_t i;
	int err = -ENOMEM;

	if (!order || !rank || !names)
		goto out;
	for (i = 0; i < r->nnames; i++)
		order[i] = (uint32_t)i;
	err = profile__sort(p, order, r->nnames, sizeof(*order), by_name, r->names);
	if (err)
		goto out;
	for (i = 0; i < r->nnames; i++) {
		rank[order[i]] = (uint32_t)i;
		names[i] = r->names[order[i]];
	}
	for (i = 0; i < r->nsyms; i++) {
		if (i % IDLE_SYMS == 0)
			profile__idle(p);
		r->syms[i] = SYM(rank[SYM_NAME(r->syms[i])], SYM_KIND(r->syms[i]));
	}
	free(r->names);
	r->names = names;
	r->names_cap = r->nnames;
	names = NULL;
	err = profile__sort(p, r->rows, r->count, sizeof(*r->rows), by_frames, r->syms);
out:
	free(order);
	free(rank);
	free(names);
	return err;
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
	return metric == METRIC_LIVE_BYTES || metric == METRIC_ALLOC_BYTES ||
	       metric == METRIC_PEAK_BYTES || metric == METRIC_LEAKED_BYTES ||
	       metric == METRIC_EXIT_BYTES;
}

/* how each metric reads: after a value ("1.50 MiB live"), as a title, and
 * in "no call stack has any ..." */
static const struct metric_text {
	const char *word;
	const char *title;
	const char *noun;
} metric_texts[] = {
	[METRIC_LIVE_BYTES] = { "live", "Live heap bytes", "live bytes" },
	[METRIC_LIVE_COUNT] = { "live blocks", "Live heap blocks", "live blocks" },
	[METRIC_ALLOC_BYTES] = { "allocated", "Allocated bytes", "allocated bytes" },
	[METRIC_ALLOC_COUNT] = { "allocations", "Allocation calls", "allocations" },
	[METRIC_PEAK_BYTES] = { "at peak", "Live heap bytes at the peak", "bytes at the peak" },
	[METRIC_LEAKED_BYTES] = { "lost", "Bytes lost (leak check)", "lost bytes" },
	[METRIC_EXIT_BYTES] = { "held at exit", "Bytes held by processes at their exits",
				"bytes held at exit" },
	[METRIC_EXIT_COUNT] = { "blocks held at exit", "Blocks held by processes at their exits",
				"blocks held at exit" },
};

static const struct metric_text *metric_text(enum metric metric)
{
	static const struct metric_text none = { "", "", "" };

	return (unsigned)metric < sizeof(metric_texts) / sizeof(metric_texts[0]) &&
		       metric_texts[metric].word ? &metric_texts[metric] : &none;
}

static const char *metric_word(enum metric metric)
{
	return metric_text(metric)->word;
}

static const char *metric_title(enum metric metric)
{
	return metric_text(metric)->title;
}

static const char *metric_noun(enum metric metric)
{
	return metric_text(metric)->noun;
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

/* ---------------------------------------------------------------- merging */

/* a frame as drawn: a run of rows that share its path */
struct frame {
	uint32_t sym;		/* ranked; ROOT_SYM for the root */
	uint32_t depth;		/* 0: the root */
	uint64_t x;		/* the values of the rows before its run */
	uint64_t value;		/* the values of its run */
};

#define ROOT_SYM UINT32_MAX

struct graph {
	struct frame *frames;	/* callers before callees, siblings alphabetical */
	size_t count, cap;
	uint32_t max_depth;
};

static int open_frame(struct graph *g, uint32_t sym, uint32_t depth, uint64_t x)
{
	if (g->count == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 1024;
		struct frame *frames = realloc(g->frames, cap * sizeof(*frames));

		if (!frames)
			return -ENOMEM;
		g->frames = frames;
		g->cap = cap;
	}
	g->frames[g->count++] = (struct frame){ .sym = sym, .depth = depth, .x = x };
	return 0;
}

static void close_frame(struct graph *g, size_t i, uint64_t end, double min_value)
{
	struct frame *f = &g->frames[i];

	f->value = end - f->x;
	/* its callees, after it, are narrower still: all go; their values stay
	 * in the callers' */
	if ((double)f->value < min_value) {
		g->count = i;
		return;
	}
	if (f->depth > g->max_depth)
		g->max_depth = f->depth;
}

/* the sorted rows merged into frames, those narrower than min_value left out */
static int merge(const struct rows *r, double min_value, struct graph *g, struct profile *p)
{
	size_t *open = malloc(((size_t)r->max_len + 1) * sizeof(*open)); /* the path, by depth */
	const struct row *prev = NULL;
	uint32_t depth = 0, d;
	uint64_t x = 0;
	size_t i;
	int err = open ? open_frame(g, ROOT_SYM, 0, 0) : -ENOMEM;

	for (i = 0; !err && i < r->count; i++) {
		const struct row *row = &r->rows[i];
		const uint32_t *syms = r->syms + row->first;
		uint32_t common = 0;

		if (i % IDLE_ROWS == 0)
			profile__idle(p);
		while (prev && common < prev->len && common < row->len &&
		       r->syms[prev->first + common] == syms[common])
			common++;
		for (d = depth; d > common; d--)
			close_frame(g, open[d], x, min_value);
		for (d = common + 1; !err && d <= row->len; d++) {
			open[d] = g->count;
			err = open_frame(g, syms[d - 1], d, x);
		}
		depth = row->len;
		x += row->value;
		prev = row;
	}
	if (!err) {
		for (d = depth; d > 0; d--)
			close_frame(g, open[d], x, min_value);
		g->frames[0].value = x;
	}
	free(open);
	return err;
}

/* ---------------------------------------------------------------- drawing */

struct writer {
	FILE *out;
	const struct rows *r;
	enum metric metric;
	uint64_t total;
	double scale;		/* pixels per unit of value */
	int height;
};

/* deterministic from the name, so one function has one colour in every graph */
static void frame_color(const char *name, int kind, bool root, int rgb[3])
{
	uint64_t h = mix(hash_bytes(name, strlen(name)));
	double v1 = (h & 0xffff) / 65535.0, v2 = (h >> 16 & 0xffff) / 65535.0,
	       v3 = (h >> 32 & 0xffff) / 65535.0;

	if (root) {
		rgb[0] = 200, rgb[1] = 200, rgb[2] = 200;
	} else if (kind == KIND_INLINED) {	/* flamegraph.pl's "aqua" */
		rgb[0] = 50 + (int)(60 * v1);
		rgb[1] = 165 + (int)(55 * v2);
		rgb[2] = 165 + (int)(55 * v3);
	} else if (kind == KIND_ALLOCATOR) {	/* greens: the allocator itself */
		rgb[0] = 90 + (int)(60 * v1);
		rgb[1] = 190 + (int)(50 * v2);
		rgb[2] = 60 + (int)(50 * v3);
	} else {				/* "hot" */
		rgb[0] = 205 + (int)(50 * v3);
		rgb[1] = (int)(230 * v1);
		rgb[2] = (int)(55 * v2);
	}
}

static void put_frame(struct writer *w, const struct frame *f)
{
	bool root = f->sym == ROOT_SYM;
	const char *name = root ? "all" : w->r->names[SYM_NAME(f->sym)];
	int kind = root ? KIND_CODE : (int)SYM_KIND(f->sym);
	double px = SVG_PAD + f->x * w->scale, pw = f->value * w->scale;
	int y = w->height - SVG_BOTTOM - (int)(f->depth + 1) * SVG_ROW, rgb[3];
	char value[64];

	frame_color(name, kind, root, rgb);
	format_value(w->metric, f->value, value, sizeof(value));
	fprintf(w->out, "<g class=\"f\" data-v=\"%" PRIu64 "\" data-x=\"%" PRIu64 "\" data-d=\"%u\"><title>",
		f->value, f->x, f->depth);
	put_text(w->out, name);
	fprintf(w->out, "\n%s, ", value);
	put_fixed(w->out, 100.0 * f->value / w->total);
	fprintf(w->out, "%%%s</title><rect x=\"", kind == KIND_INLINED ? ", inlined" :
		kind == KIND_ALLOCATOR ? ", allocator" : "");
	put_fixed(w->out, px);
	fprintf(w->out, "\" y=\"%d\" width=\"", y);
	put_fixed(w->out, pw);
	fprintf(w->out, "\" height=\"%d\" rx=\"2\" ry=\"2\" fill=\"rgb(%d,%d,%d)\"/><text x=\"",
		SVG_ROW - 1, rgb[0], rgb[1], rgb[2]);
	put_fixed(w->out, px + 3);
	fprintf(w->out, "\" y=\"%d\">", y + SVG_ROW - 5);
	put_label(w->out, name, pw);
	fputs("</text></g>\n", w->out);
}

static const char svg_style[] =
	"<style type=\"text/css\"><![CDATA[\n"
	"text { font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; font-size: 12px; fill: #000; }\n"
	"#title, #subtitle { font-family: Verdana, 'DejaVu Sans', sans-serif; }\n"
	"#title { font-size: 17px; font-weight: bold; }\n"
	"#subtitle { fill: #555; }\n"
	"#details, #matched { fill: #333; }\n"
	".f { cursor: pointer; }\n"
	".f text { pointer-events: none; }\n"
	".f rect { stroke: #fff; stroke-width: 0.3; }\n"
	".f:hover rect { stroke: #000; stroke-width: 0.7; }\n"
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
	"function zoomText() { return 'Zoomed into ' + N[zoomed] + ': ' + DET[zoomed] + '. Click all or Escape: reset.'; }\n"
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
	"	details.textContent = hint;\n"
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
	"	details.textContent = zoomText();\n"
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
	"	if (frameOf(e) >= 0) details.textContent = zoomed >= 0 ? zoomText() : hint;\n"
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

/* p: the profile to idle through; NULL for folded input */
static int write_svg(FILE *out, struct rows *r, enum metric metric, const char *title,
		     struct profile *p)
{
	struct writer w = { .out = out, .r = r, .metric = metric, .total = r->total };
	struct graph g = {};
	char total[64], stacks[32];
	size_t i;
	int err;

	if (!title)
		title = "Heap flamegraph";
	if (!w.total) {
		w.height = SVG_TOP + 3 * SVG_ROW + SVG_BOTTOM;
		put_header(&w, title, w.height);
		fprintf(out, "<text id=\"subtitle\" x=\"%d\" y=\"44\" text-anchor=\"middle\">"
			"%s by call stack</text>\n", SVG_WIDTH / 2, metric_title(metric));
		fprintf(out, "<text id=\"nodata\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">"
			"No data: no call stack has any %s.</text>\n",
			SVG_WIDTH / 2, SVG_TOP + 2 * SVG_ROW, metric_noun(metric));
		fputs(svg_script, out);
		fputs("</svg>\n", out);
		return ferror(out) ? -EIO : 0;
	}
	err = sort_rows(r, p);
	if (!err)
		err = merge(r, (double)w.total / SVG_MIN_SHARE, &g, p);
	if (err) {
		free(g.frames);
		return err;
	}
	w.scale = (double)(SVG_WIDTH - 2 * SVG_PAD) / w.total;
	w.height = SVG_TOP + (int)(g.max_depth + 1) * SVG_ROW + SVG_BOTTOM;
	format_value(metric, w.total, total, sizeof(total));
	format_count(r->count, stacks, sizeof(stacks));
	put_header(&w, title, w.height);
	fprintf(out, "<text id=\"subtitle\" x=\"%d\" y=\"44\" text-anchor=\"middle\">"
		"%s by call stack: %s in total, %s stack%s</text>\n",
		SVG_WIDTH / 2, metric_title(metric), total, stacks, r->count == 1 ? "" : "s");
	fprintf(out, "<text id=\"unzoom\" class=\"btn h\" x=\"%d\" y=\"24\">Reset Zoom</text>\n",
		SVG_PAD);
	fprintf(out, "<text id=\"search\" class=\"btn\" x=\"%d\" y=\"24\" text-anchor=\"end\">"
		"Search</text>\n", SVG_WIDTH - SVG_PAD);
	fprintf(out, "<text id=\"details\" x=\"%d\" y=\"%d\">Hover: frame details. Click: zoom. "
		"Ctrl-F: search.</text>\n", SVG_PAD, w.height - 10);
	fprintf(out, "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"></text>\n",
		SVG_WIDTH - SVG_PAD, w.height - 10);
	fputs("<g id=\"frames\">\n", out);
	for (i = 0; i < g.count; i++) {
		if (i % IDLE_ROWS == 0)
			profile__idle(p);
		put_frame(&w, &g.frames[i]);
	}
	free(g.frames);
	fputs("</g>\n", out);
	fputs(svg_script, out);
	fputs("</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}

int svg__write(FILE *out, struct profile *p, enum metric metric, const char *title)
{
	struct rows *r = rows_new();
	size_t i;
	int err = r ? 0 : -ENOMEM;

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
			err = add_shown(r, p, frames, n, value);
	}
	if (!err)
		err = write_svg(out, r, metric, title, p);
	rows_destroy(r);
	return err;
}

int svg__write_folded(FILE *out, FILE *in, enum metric metric, const char *title)
{
	struct rows *r = rows_new();
	char *line = NULL;
	size_t size = 0;
	int err = r ? 0 : -ENOMEM;

	while (!err && getline(&line, &size, in) >= 0)
		err = add_folded(r, line);
	if (!err && ferror(in))
		err = -EIO;
	free(line);
	if (!err)
		err = write_svg(out, r, metric, title, NULL);
	rows_destroy(r);
	return err;
}
