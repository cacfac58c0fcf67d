// SPDX-License-Identifier: GPL-2.0
#include <curses.h>
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "growth.h"
#include "tui.h"

#define FILTER_LEN 128

struct tui {
	int selected;			/* row of the table */
	int first;			/* the row shown at the top */
	enum report_sort sort;
	bool paused;
	bool editing;			/* typing a filter after '/' */
	char typed[FILTER_LEN];		/* what was typed so far */
	char filter[FILTER_LEN];	/* the filter in force, "" for none */
	regex_t re;
	bool have_re;
	bool bad_re;			/* the last filter did not compile */
	uint32_t selected_id;		/* the selected stack, kept across draws */
};

/* the cycle of s */

/* a line of the screen, cut at its width: a narrow terminal never wraps a
 * line onto the next one */
static void put_line(int y, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put_line(int y, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int cols = getmaxx(stdscr);

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (cols > 0)
		mvaddnstr(y, 0, buf, cols);
}

static const enum report_sort sorts[] = {
	SORT_LIVE_BYTES, SORT_ALLOC_CALLS, SORT_LIVE_COUNT, SORT_GROWTH, SORT_PEAK, SORT_SHORT_LIVED,
};
static const char *const sort_words[] = {
	[SORT_LIVE_BYTES] = "live", [SORT_ALLOC_CALLS] = "calls", [SORT_LIVE_COUNT] = "count",
	[SORT_GROWTH] = "growth", [SORT_PEAK] = "peak", [SORT_SHORT_LIVED] = "short-lived",
};

int tui__new(struct tui **out)
{
	struct tui *t;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return -ENOTTY;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	if (!initscr()) {
		free(t);
		return -ENOTTY;
	}
	cbreak();
	noecho();
	nodelay(stdscr, TRUE);
	keypad(stdscr, TRUE);
	curs_set(0);
	*out = t;
	return 0;
}

void tui__destroy(struct tui *t)
{
	if (!t)
		return;
	endwin();
	if (t->have_re)
		regfree(&t->re);
	free(t);
}

int tui__fd(const struct tui *t)
{
	return STDIN_FILENO;
}

bool tui__paused(const struct tui *t)
{
	return t->paused;
}

static void apply_filter(struct tui *t)
{
	if (t->have_re)
		regfree(&t->re);
	t->have_re = false;
	t->bad_re = false;
	snprintf(t->filter, sizeof(t->filter), "%s", t->typed);
	if (!t->filter[0])
		return;
	if (regcomp(&t->re, t->filter, REG_EXTENDED | REG_NOSUB)) {
		t->bad_re = true;
		t->filter[0] = '\0';
		return;
	}
	t->have_re = true;
	t->selected = t->first = 0;
}

/* a key while a filter is typed */
static void edit_key(struct tui *t, int c)
{
	size_t len = strlen(t->typed);

	if (c == '\n' || c == KEY_ENTER) {
		t->editing = false;
		apply_filter(t);
	} else if (c == 27) {	/* Esc */
		t->editing = false;
	} else if ((c == KEY_BACKSPACE || c == 127 || c == 8) && len) {
		t->typed[len - 1] = '\0';
	} else if (c >= 32 && c < 127 && len + 1 < sizeof(t->typed)) {
		t->typed[len] = (char)c;
		t->typed[len + 1] = '\0';
	}
}

enum tui_action tui__keys(struct tui *t)
{
	enum tui_action act = TUI_NONE;
	size_t i;
	int c;

	while ((c = getch()) != ERR) {
		if (t->editing) {
			edit_key(t, c);
			act = TUI_REDRAW;
			continue;
		}
		switch (c) {
		case 'q':
		case 'Q':
			return TUI_QUIT;
		case 'w':
			act = TUI_WRITE;
			break;
		case 'l':
			act = act == TUI_WRITE ? act : TUI_LEAK_CHECK;
			break;
		case 'm':
			act = act == TUI_WRITE ? act : TUI_MARK;
			break;
		case KEY_DOWN:
		case 'j':
			t->selected++;
			t->selected_id = 0;
			act = act == TUI_WRITE ? act : TUI_REDRAW;
			break;
		case KEY_UP:
		case 'k':
			if (t->selected > 0)
				t->selected--;
			t->selected_id = 0;
			act = act == TUI_WRITE ? act : TUI_REDRAW;
			break;
		case 's':
			for (i = 0; i < sizeof(sorts) / sizeof(sorts[0]) && sorts[i] != t->sort; i++)
				;
			t->sort = sorts[(i + 1) % (sizeof(sorts) / sizeof(sorts[0]))];
			t->selected = t->first = 0;
			t->selected_id = 0;
			act = act == TUI_WRITE ? act : TUI_REDRAW;
			break;
		case '/':
			t->editing = true;
			snprintf(t->typed, sizeof(t->typed), "%s", t->filter);
			act = act == TUI_WRITE ? act : TUI_REDRAW;
			break;
		case 'p':
			t->paused = !t->paused;
			act = act == TUI_WRITE ? act : TUI_REDRAW;
			break;
		case KEY_RESIZE:
			act = act == TUI_WRITE ? act : TUI_REDRAW;
			break;
		}
	}
	return act;
}

/* one stack of the table */
struct row {
	const struct profile_stack *stack;
	double key;
	uint64_t oldest_ns;	/* birth of its oldest live block; 0: none */
	char name[96];		/* its innermost frame that is not the allocator */
};

static double row_key(const struct profile_stack *s, enum report_sort sort)
{
	switch (sort) {
	case SORT_ALLOC_CALLS: return s->totals.alloc_count;
	case SORT_LIVE_COUNT: return s->totals.live_count;
	case SORT_GROWTH: return growth__score(&s->growth);
	case SORT_PEAK: return s->totals.peak_bytes;
	case SORT_SHORT_LIVED: return s->totals.short_lived;
	case SORT_LIVE_BYTES: break;
	}
	return s->totals.live_bytes;
}

static int by_key(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? 1 : -1;
	return (int)x->stack->stack_id - (int)y->stack->stack_id;
}

/* does any frame of the stack match the filter? */
static bool matches(struct tui *t, struct profile *p, const struct profile_stack *s)
{
	const struct shown_frame *frames;
	int n, i;

	if (!t->have_re)
		return profile__kept(p, s);
	n = profile__show(p, s, &frames);
	for (i = 0; i < n; i++)
		if (frames[i].function && !regexec(&t->re, frames[i].function, 0, NULL, 0))
			return true;
	return false;
}

static void name_of(struct profile *p, const struct profile_stack *s, char *buf, size_t size)
{
	const struct shown_frame *frames;
	int n = profile__show(p, s, &frames);

	snprintf(buf, size, "%s", n > 0 && frames[0].function ? frames[0].function : "[unknown]");
}

static void human(uint64_t v, char *buf, size_t size)
{
	report__human_bytes(v, buf, size);
}

static void age(uint64_t ns, char *buf, size_t size)
{
	double s = ns / 1e9;

	if (!ns)
		snprintf(buf, size, "-");
	else if (s < 100)
		snprintf(buf, size, "%.1fs", s);
	else if (s < 6000)
		snprintf(buf, size, "%.0fm", s / 60);
	else
		snprintf(buf, size, "%.0fh", s / 3600);
}

static void draw_header(struct tui *t, struct profile *p, const struct tui_header *h)
{
	char live[32], rate[32], peak[32], mark[48] = "";

	human(p->stats.live_bytes, live, sizeof(live));
	human((uint64_t)h->bytes_per_s, rate, sizeof(rate));
	human(p->stats.peak_live_bytes, peak, sizeof(peak));
	attron(A_BOLD);
	put_line(0, "tracelloc: %s, traced %.0f s", h->target, h->traced_s);
	attroff(A_BOLD);
	put_line(1, "live %s (%llu blocks) | %.0f calls/s %s/s | peak %s | lost %llu",
		 live, (unsigned long long)p->stats.live_count, h->calls_per_s, rate, peak,
		 (unsigned long long)h->lost);
	if (p->mark_ns)
		snprintf(mark, sizeof(mark), " | mark %.0f s ago", h->mark_ago_s);
	put_line(2, "sort: %s%s%s%s%s%s%s", sort_words[t->sort], t->filter[0] ? " | filter: " : "",
		 t->filter, t->paused ? " | PAUSED" : "", mark, h->leak_line ? " | " : "",
		 h->leak_line ? h->leak_line : "");
}

/* the stacks that match the filter, sorted, each with the age of its
 * oldest live block (one pass over the live blocks); how many */
static int collect_rows(struct tui *t, struct profile *p, const struct heap *heap,
			struct row *rows)
{
	const struct live_block *b;
	struct row **by_id = NULL;
	uint32_t max_id = 0;
	size_t pos = 0, k;
	int n = 0, i;

	for (k = 0; k < p->count; k++) {
		const struct profile_stack *s = &p->stacks[k];

		if (!s->totals.alloc_count || !matches(t, p, s))
			continue;
		rows[n].stack = s;
		rows[n].key = row_key(s, t->sort);
		if (s->stack_id > max_id)
			max_id = s->stack_id;
		n++;
	}
	qsort(rows, n, sizeof(*rows), by_key);
	by_id = calloc(max_id + 1, sizeof(*by_id));
	for (i = 0; by_id && i < n; i++)
		by_id[rows[i].stack->stack_id] = &rows[i];
	while (by_id && (b = heap__next_live(heap, &pos, NULL)))
		if (b->stack_id <= max_id && by_id[b->stack_id] &&
		    (!by_id[b->stack_id]->oldest_ns || b->birth_ns < by_id[b->stack_id]->oldest_ns))
			by_id[b->stack_id]->oldest_ns = b->birth_ns;
	free(by_id);
	return n;
}

/* the table's lines from t->first, the selected one in reverse */
static void draw_rows(struct tui *t, struct profile *p, struct row *rows, int n, int table,
		      int cols, uint64_t now_ns, bool lost)
{
	char v1[32], v2[32], v3[32], a[16], l[32] = "", m[32] = "";
	bool mark = p->mark_ns != 0;
	int i, y, w = 48 + (lost ? 10 : 0) + (mark ? 12 : 0);

	attron(A_UNDERLINE);
	put_line(3, "%-*s %9s %8s %8s %10s %6s%s%s", cols > w + 2 ? cols - w : 2, "stack (innermost)",
		 "live", "count", "calls", "growth/s", "oldest", mark ? "  since mark" : "",
		 lost ? "      lost" : "");
	attroff(A_UNDERLINE);
	for (i = t->first, y = 4; i < n && y < 4 + table; i++, y++) {
		const struct profile_stack *s = rows[i].stack;

		/* only the rows on screen are named: a draw over 100,000 stacks
		 * must not keep the ring buffers waiting */
		name_of(p, s, rows[i].name, sizeof(rows[i].name));
		human(s->totals.live_bytes, v1, sizeof(v1));
		human((uint64_t)(s->growth.slope > 0 ? s->growth.slope : 0), v2, sizeof(v2));
		snprintf(v3, sizeof(v3), "%llu", (unsigned long long)s->totals.live_count);
		age(rows[i].oldest_ns && now_ns > rows[i].oldest_ns ? now_ns - rows[i].oldest_ns : 0,
		    a, sizeof(a));
		/* definitely and indirectly lost at the last check */
		if (lost) {
			l[0] = ' ';
			human(s->leaked_bytes, l + 1, sizeof(l) - 1);
		}
		/* live, allocated since the baseline mark */
		if (mark) {
			m[0] = ' ';
			human(s->since_mark_bytes, m + 1, sizeof(m) - 1);
		}
		if (i == t->selected)
			attron(A_REVERSE);
		put_line(y, "%-*.*s %9s %8s %8llu %10s %6s%*s%*s", cols > w + 2 ? cols - w : 2,
			 cols > w + 2 ? cols - w : 2, rows[i].name, v1, v3,
			 (unsigned long long)s->totals.alloc_count, v2, a, mark ? 12 : 0, m,
			 lost ? 10 : 0, l);
		if (i == t->selected)
			attroff(A_REVERSE);
	}
	if (!n)
		put_line(4, t->have_re ? "no stack matches the filter" : "no allocation yet");
}

/* the selected stack, whole, from line y */
static void draw_selected(struct profile *p, const struct profile_stack *s, int y, int lines,
			  int cols)
{
	const struct shown_frame *frames;
	int nframes = profile__show(p, s, &frames), i;

	put_line(y - 1, "-- selected stack ");
	mvhline(y - 1, 18, '-', cols > 18 ? cols - 18 : 0);
	for (i = 0; i < nframes && y < lines - 1; i++, y++) {
		if (frames[i].file)
			put_line(y, "%s%.*s  %s:%d", frames[i].inlined ? "  [inlined] " : "  ",
				 cols / 2, frames[i].function, frames[i].file, frames[i].line);
		else
			put_line(y, "  %.*s", cols - 2, frames[i].function);
	}
}

void tui__draw(struct tui *t, struct profile *p, const struct heap *heap,
	       const struct tui_header *h, uint64_t now_ns)
{
	struct row *rows = calloc(p->count ? p->count : 1, sizeof(*rows));
	int lines, cols, table, n, i;

	getmaxyx(stdscr, lines, cols);
	/* a line someone wrote to the terminal meanwhile (stderr) goes too */
	clearok(stdscr, TRUE);
	erase();
	if (!rows) {
		put_line(0, "tracelloc: out of memory");
		refresh();
		return;
	}
	n = collect_rows(t, p, heap, rows);
	draw_header(t, p, h);
	/* the table: half of what is left, the selected stack below */
	table = (lines - 6) / 2;
	if (table < 3)
		table = 3;
	if (t->selected_id)
		for (i = 0; i < n; i++)
			if (rows[i].stack->stack_id == t->selected_id)
				t->selected = i;
	if (t->selected >= n)
		t->selected = n ? n - 1 : 0;
	if (t->selected < t->first)
		t->first = t->selected;
	if (t->selected >= t->first + table)
		t->first = t->selected - table + 1;
	draw_rows(t, p, rows, n, table, cols, now_ns, h->leak_check);
	if (n) {
		t->selected_id = rows[t->selected].stack->stack_id;
		draw_selected(p, rows[t->selected].stack, 5 + table, lines, cols);
	}
	/* the keys, or the filter being typed */
	if (t->editing)
		put_line(lines - 1, "filter (regex, Enter to apply, Esc to cancel): /%s", t->typed);
	else if (t->bad_re)
		put_line(lines - 1, "not a regular expression | j/k select  s sort  / filter  p pause  w write  q quit");
	else if (h->leak_check)
		put_line(lines - 1, "j/k select  s sort  / filter  p pause  w write  m mark  l leak check  q quit");
	else
		put_line(lines - 1, "j/k select  s sort  / filter  p pause  w write  m mark  q quit");
	refresh();
	free(rows);
}
