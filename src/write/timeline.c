// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "timeline.h"

struct entry {
	uint32_t stack_id;
	uint64_t bytes;
};

struct point {
	double at_s;
	uint64_t rss;
	uint64_t total;
	size_t first;		/* into entries */
	uint32_t count;
};

struct timeline {
	struct point *points;
	size_t npoints;
	/* a point is kept every stride samples (doubled at each thinning), so
	 * that the points stay evenly spread over the whole trace; a sample in
	 * between shows as the last point until the next one replaces it */
	uint64_t stride, samples;
	bool last_provisional;
	struct entry *entries;
	size_t nentries, entries_cap;
};

struct timeline *timeline__new(void)
{
	struct timeline *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->points = calloc(TIMELINE_POINTS + 1, sizeof(*t->points));
	if (!t->points) {
		free(t);
		return NULL;
	}
	t->stride = 1;
	return t;
}

void timeline__destroy(struct timeline *t)
{
	if (!t)
		return;
	free(t->points);
	free(t->entries);
	free(t);
}

/* every other point goes, the newest sample coming next: the resolution halves */
static void thin(struct timeline *t)
{
	size_t i, n = 0, e = 0, k;

	for (i = 0; i < t->npoints; i++) {
		struct point p = t->points[i];

		if (i % 2)
			continue;
		for (k = 0; k < p.count; k++)
			t->entries[e + k] = t->entries[p.first + k];
		p.first = e;
		e += p.count;
		t->points[n++] = p;
	}
	t->npoints = n;
	t->nentries = e;
	t->stride *= 2;
}

int timeline__sample(struct timeline *t, const struct stacks *s, double at_s, uint64_t rss_bytes)
{
	uint32_t n = stacks__count(s), id;
	struct point *p;
	struct entry *grown;
	size_t cap;

	/* the sample in between that stood last: this one replaces it */
	if (t->last_provisional && t->npoints) {
		t->npoints--;
		t->nentries = t->points[t->npoints].first;
	}
	if (t->npoints == TIMELINE_POINTS)
		thin(t);
	t->last_provisional = t->samples++ % t->stride != 0;
	/* the processes gone (the last point, at the end): their last RSS */
	if (!rss_bytes && t->npoints)
		rss_bytes = t->points[t->npoints - 1].rss;
	p = &t->points[t->npoints];
	*p = (struct point){ .at_s = at_s, .rss = rss_bytes, .first = t->nentries };
	for (id = 1; id <= n; id++) {
		uint64_t bytes = stacks__peek(s, id)->live_bytes;

		if (!bytes)
			continue;
		if (t->nentries == t->entries_cap) {
			cap = t->entries_cap ? 2 * t->entries_cap : 4096;
			grown = realloc(t->entries, cap * sizeof(*grown));
			if (!grown)
				return -ENOMEM;
			t->entries = grown;
			t->entries_cap = cap;
		}
		t->entries[t->nentries++] = (struct entry){ .stack_id = id, .bytes = bytes };
		p->total += bytes;
		p->count++;
	}
	t->npoints++;
	return 0;
}

/* text for HTML (and inside an attribute) */
static void html(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
	}
}

/* a stack, innermost first, one frame a line */
static void stack_text(FILE *out, struct profile *p, uint32_t id)
{
	const struct shown_frame *frames = NULL;
	size_t k;
	int n = 0, i;

	for (k = 0; k < p->count && p->stacks[k].stack_id != id; k++)
		;
	if (k < p->count)
		n = profile__show(p, &p->stacks[k], &frames);
	if (n <= 0 || !frames) {
		fputs("[unknown]", out);
		return;
	}
	for (i = 0; i < n; i++) {
		if (i)
			fputs("&#10;", out);
		html(out, frames[i].function);
		if (frames[i].file) {
			fprintf(out, " (");
			html(out, frames[i].file);
			fprintf(out, ":%d)", frames[i].line);
		}
	}
}

static const char *const colors[TIMELINE_BANDS + 1] = {
	"#e6550d", "#3182bd", "#31a354", "#756bb1", "#d6616b", "#636363", "#e7ba52", "#17becf",
	"#8c6d31", "#a55194", "#bdbdbd",
};

#define W 1000.0
#define H 400.0
#define LEFT 80.0
#define TOP 20.0

/* what the chart shows: the bands and the scale */
struct layout {
	uint32_t top[TIMELINE_BANDS];	/* the stacks of the bands, bottom up */
	size_t nb;			/* how many; band nb is the rest */
	uint64_t ymax;
	double tmax;
	/* cum[i * (TIMELINE_BANDS + 2) + b]: bands 0..b-1 stacked at point i */
	uint64_t *cum;
};

#define CUM(l, i, b) ((l)->cum[(i) * (TIMELINE_BANDS + 2) + (b)])
#define X(l, s) (LEFT + (s) / (l)->tmax * W)
#define Y(l, b) (TOP + H - (double)(b) / (l)->ymax * H)

/* the bands: the stacks that held most at any point; 0 or -ENOMEM */
static int lay_out(const struct timeline *t, struct layout *l)
{
	uint32_t nstacks = 0, id;
	uint64_t *max, v, sum;
	size_t i, k, b;

	memset(l, 0, sizeof(*l));
	l->ymax = 1;
	for (i = 0; i < t->npoints; i++)
		for (k = 0; k < t->points[i].count; k++)
			if (t->entries[t->points[i].first + k].stack_id > nstacks)
				nstacks = t->entries[t->points[i].first + k].stack_id;
	max = calloc(nstacks + 1, sizeof(*max));
	l->cum = calloc((t->npoints ? t->npoints : 1) * (TIMELINE_BANDS + 2), sizeof(*l->cum));
	if (!max || !l->cum) {
		free(max);
		free(l->cum);
		return -ENOMEM;
	}
	for (i = 0; i < t->npoints; i++) {
		const struct point *pt = &t->points[i];

		for (k = 0; k < pt->count; k++) {
			const struct entry *e = &t->entries[pt->first + k];

			if (e->bytes > max[e->stack_id])
				max[e->stack_id] = e->bytes;
		}
		if (pt->total > l->ymax)
			l->ymax = pt->total;
		if (pt->rss > l->ymax)
			l->ymax = pt->rss;
	}
	for (l->nb = 0; l->nb < TIMELINE_BANDS; l->nb++) {
		uint32_t best = 0;

		for (id = 1; id <= nstacks; id++)
			if (max[id] && (!best || max[id] > max[best]))
				best = id;
		if (!best)
			break;
		l->top[l->nb] = best;
		max[best] = 0;
	}
	free(max);
	for (i = 0; i < t->npoints; i++) {
		const struct point *pt = &t->points[i];

		for (b = 0, sum = 0; b < l->nb; b++) {
			v = 0;
			for (k = 0; k < pt->count; k++)
				if (t->entries[pt->first + k].stack_id == l->top[b])
					v = t->entries[pt->first + k].bytes;
			CUM(l, i, b + 1) = CUM(l, i, b) + v;
			sum += v;
		}
		CUM(l, i, l->nb + 1) = CUM(l, i, l->nb) + (pt->total - sum);
	}
	l->tmax = t->npoints ? t->points[t->npoints - 1].at_s : 1;
	if (l->tmax <= 0)
		l->tmax = 1;
	return 0;
}

/* the SVG: axes, the bands bottom up, the RSS */
static void write_chart(FILE *out, const struct timeline *t, struct profile *p,
			const struct layout *l)
{
	char label[32];
	size_t i;
	int b;

	fprintf(out, "<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		"height=\"%.0f\">\n", LEFT + W + 20, TOP + H + 40);
	/* axes: bytes at 0, half and the top; seconds at the ends */
	for (b = 0; b <= 2; b++) {
		report__human_bytes(l->ymax * b / 2, label, sizeof(label));
		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", LEFT, LEFT + W,
			Y(l, l->ymax * b / 2), Y(l, l->ymax * b / 2), LEFT - 6,
			Y(l, l->ymax * b / 2) + 4, label);
	}
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">0 s</text><text x=\"%.1f\" y=\"%.1f\" "
		"text-anchor=\"end\">%.1f s</text>\n", LEFT, TOP + H + 18, LEFT + W, TOP + H + 18,
		l->tmax);
	for (b = 0; b <= (int)l->nb && t->npoints; b++) {
		fprintf(out, "<path class=\"band\" data-band=\"%d\" fill=\"%s\" d=\"", b,
			colors[b < (int)l->nb ? b : TIMELINE_BANDS]);
		for (i = 0; i < t->npoints; i++)
			fprintf(out, "%s%.1f,%.1f", i ? " L" : "M", X(l, t->points[i].at_s),
				Y(l, CUM(l, i, b + 1)));
		for (i = t->npoints; i-- > 0;)
			fprintf(out, " L%.1f,%.1f", X(l, t->points[i].at_s), Y(l, CUM(l, i, b)));
		fprintf(out, " Z\"><title>");
		if (b < (int)l->nb)
			stack_text(out, p, l->top[b]);
		else
			fputs("the other stacks", out);
		fprintf(out, "</title></path>\n");
	}
	if (t->npoints) {
		fprintf(out, "<polyline id=\"rss\" fill=\"none\" stroke=\"#000\" stroke-width=\"2\" "
			"points=\"");
		for (i = 0; i < t->npoints; i++)
			fprintf(out, "%s%.1f,%.1f", i ? " " : "", X(l, t->points[i].at_s),
				Y(l, t->points[i].rss));
		fprintf(out, "\"><title>RSS of the traced processes</title></polyline>\n");
	}
	fprintf(out, "</svg>\n");
}

/* a line per band: its stack's innermost frame */
static void write_legend(FILE *out, struct profile *p, const struct layout *l)
{
	size_t k;
	int b;

	fprintf(out, "<ol start=\"0\" id=\"legend\">\n");
	for (b = 0; b <= (int)l->nb; b++) {
		fprintf(out, "<li style=\"color:%s\" data-band=\"%d\">",
			colors[b < (int)l->nb ? b : TIMELINE_BANDS], b);
		if (b < (int)l->nb) {
			const struct shown_frame *frames = NULL;
			int n = 0;

			for (k = 0; k < p->count && p->stacks[k].stack_id != l->top[b]; k++)
				;
			if (k < p->count)
				n = profile__show(p, &p->stacks[k], &frames);
			html(out, n > 0 && frames ? frames[0].function : "[unknown]");
		} else {
			fputs("the other stacks", out);
		}
		fprintf(out, "</li>\n");
	}
	fprintf(out, "</ol>\n");
}

/* the points, for the tooltips, and what a click does */
static void write_script(FILE *out, const struct timeline *t, const struct layout *l)
{
	size_t i;
	int b;

	fprintf(out, "<script>\nvar T=[");
	for (i = 0; i < t->npoints; i++)
		fprintf(out, "%s%.3f", i ? "," : "", t->points[i].at_s);
	fprintf(out, "],R=[");
	for (i = 0; i < t->npoints; i++)
		fprintf(out, "%s%" PRIu64, i ? "," : "", t->points[i].rss);
	fprintf(out, "],C=[");
	for (i = 0; i < t->npoints; i++) {
		fprintf(out, "%s[", i ? "," : "");
		for (b = 0; b <= (int)l->nb; b++)
			fprintf(out, "%s%" PRIu64, b ? "," : "", CUM(l, i, b + 1) - CUM(l, i, b));
		fprintf(out, "]");
	}
	fprintf(out, "],TMAX=%.3f,LEFT=%.1f,W=%.1f;\n"
		"function hb(b){var u=['B','KiB','MiB','GiB'],i=0;while(b>=1024&&i<3){b/=1024;i++}"
		"return (i?b.toFixed(1):b)+' '+u[i]}\n"
		"var tip=document.getElementById('tip');\n"
		"document.querySelectorAll('path.band').forEach(function(p){\n"
		" p.addEventListener('click',function(){document.getElementById('stack').textContent="
		"p.querySelector('title').textContent});\n"
		" p.addEventListener('mousemove',function(e){var s=(e.offsetX-LEFT)/W*TMAX,i=0;"
		"while(i<T.length-1&&T[i+1]<=s)i++;var b=+p.dataset.band;tip.style.display='block';"
		"tip.style.left=(e.pageX+12)+'px';tip.style.top=(e.pageY+12)+'px';"
		"tip.textContent=p.querySelector('title').textContent.split('\\n')[0]+'\\n'+"
		"T[i].toFixed(1)+' s: '+hb(C[i][b])+' live (RSS '+hb(R[i])+')'});\n"
		" p.addEventListener('mouseleave',function(){tip.style.display='none'});\n"
		"});\n"
		/* file.html?band=N: that band's stack shown, as a click would */
		"var m=/[?&]band=(\\d+)/.exec(location.search),q=m&&"
		"document.querySelector('path.band[data-band=\"'+m[1]+'\"]');\n"
		"if(q)document.getElementById('stack').textContent=q.querySelector('title').textContent;\n"
		"</script>\n", l->tmax, LEFT, W);
}

int timeline__write(FILE *out, const struct timeline *t, struct profile *p, const char *title)
{
	struct layout l;

	if (lay_out(t, &l))
		return -ENOMEM;
	fprintf(out, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>");
	html(out, title);
	fprintf(out, "</title>\n<style>body{font:13px sans-serif;margin:16px}"
		"path.band:hover{opacity:.75;cursor:pointer}#tip{position:absolute;background:#fff;"
		"border:1px solid #999;padding:4px 6px;pointer-events:none;display:none;white-space:pre}"
		"pre{background:#f6f6f6;padding:8px}</style></head><body>\n<h2>");
	html(out, title);
	fprintf(out, "</h2>\n");
	write_chart(out, t, p, &l);
	fprintf(out, "<div id=\"tip\"></div>\n<p>Bands, bottom up (click one for its stack); "
		"the black line is the RSS:</p>\n");
	write_legend(out, p, &l);
	fprintf(out, "<pre id=\"stack\">(click a band)</pre>\n");
	write_script(out, t, &l);
	fprintf(out, "</body></html>\n");
	free(l.cum);
	return ferror(out) ? -EIO : 0;
}
