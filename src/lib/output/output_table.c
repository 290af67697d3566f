/*
 * Table format: an object as a boxed "key: value" panel, an array of objects
 * as a boxed grid. Layout is computed in terminal cells, not bytes.
 */
#include "lib/output/output_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>

/* Each coloured span is closed with SGR_RESET right away, so a cut cell or
 * an early return can never leak colour into the rest of the terminal. */
#define SGR_RESET "\033[0m"
#define SGR_BOLD "\033[1m"
#define SGR_DIM "\033[2m"
#define SGR_RED "\033[31m"
#define SGR_GREEN "\033[32m"
#define SGR_YELLOW "\033[33m"
#define SGR_BLUE "\033[34m"
#define SGR_CYAN "\033[36m"
#define SGR_HEADER "\033[1;35m"

/* Narrower than this and a cut cell is mostly ellipsis. */
#define MIN_COL 4
/* Panel values get at least this much room before keys are cut. */
#define MIN_VAL 10
#define MIN_LABEL 6

/* One glyph set per charset so the layout code never branches on utf8. */
typedef struct glyphs {
	const char *h, *v, *tl, *tr, *bl, *br;
	const char *t_down, *t_up, *t_right, *t_left, *cross, *ellipsis;
	int ellw;
} glyphs;

static const glyphs utf8_glyphs = {
	"─", "│", "╭", "╮", "╰", "╯", "┬", "┴", "├", "┤", "┼", "…", 1,
};
static const glyphs ascii_glyphs = {
	"-", "|", "+", "+", "+", "+", "+", "+", "+", "+", "+", "...", 3,
};

static const struct state_style {
	const char *name, *icon, *sgr;
} state_styles[] = {
	{ "running", "●", SGR_GREEN },   { "ready", "●", SGR_GREEN },
	{ "pending", "◐", SGR_YELLOW },  { "creating", "◐", SGR_YELLOW },
	{ "paused", "⏸", SGR_BLUE },      { "stopped", "○", SGR_DIM },
	{ "terminated", "○", SGR_DIM },  { "killed", "○", SGR_DIM },
	{ "error", "✗", SGR_RED },       { "failed", "✗", SGR_RED },
};

static const glyphs *G(const ax_out *c)
{
	return c->opts->utf8 ? &utf8_glyphs : &ascii_glyphs;
}

static void put_rep(ax_out *c, const char *s, int times)
{
	for (int i = 0; i < times; i++)
		axo_put(c, s);
}

static void sgr_on(ax_out *c, const char *sgr)
{
	if (c->opts->color && sgr)
		axo_put(c, sgr);
}

static void sgr_off(ax_out *c, const char *sgr)
{
	if (c->opts->color && sgr)
		axo_put(c, SGR_RESET);
}

static void put_styled(ax_out *c, const char *sgr, const char *s, size_t n)
{
	sgr_on(c, sgr);
	axo_put_n(c, s, n);
	sgr_off(c, sgr);
}

/* ---- text measurement ----------------------------------------------------- */

/* Byte length and cell width of the character at S (which is not at NUL).
 * Bytes the locale cannot decode count as one cell each, so layout always
 * advances; non-printable characters take no cell. */
static size_t char_at(const char *s, int *cells)
{
	mbstate_t st;
	wchar_t wc;
	size_t n;

	memset(&st, 0, sizeof st);
	n = mbrtowc(&wc, s, strnlen(s, MB_LEN_MAX), &st);
	if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
		*cells = 1;
		return 1;
	}
	*cells = wcwidth(wc) < 0 ? 0 : wcwidth(wc);
	return n;
}

int ax_display_width(const char *s)
{
	int total = 0, w;

	if (!s)
		return 0;
	while (*s) {
		s += char_at(s, &w);
		total += w;
	}
	return total;
}

/* Bytes of the longest prefix of S that fits in MAXW cells (whole characters
 * only); its width goes to *CELLS. */
static size_t prefix_fit(const char *s, int maxw, int *cells)
{
	const char *p = s;
	int cur = 0, w;

	while (*p) {
		size_t n = char_at(p, &w);
		if (cur + w > maxw)
			break;
		cur += w;
		p += n;
	}
	*cells = cur;
	return (size_t)(p - s);
}

/* Print TEXT in at most MAXW cells, cut with an ellipsis if longer; returns
 * the cells used so the caller can pad. */
static int put_fit(ax_out *c, const char *sgr, const char *text, int maxw)
{
	int tw = ax_display_width(text);
	size_t n = strlen(text);
	bool ell = false;

	if (tw > maxw) {
		ell = maxw >= G(c)->ellw;
		n = prefix_fit(text, ell ? maxw - G(c)->ellw : maxw, &tw);
	}
	sgr_on(c, sgr);
	axo_put_n(c, text, n);
	if (ell)
		axo_put(c, G(c)->ellipsis);
	sgr_off(c, sgr);
	return ell ? tw + G(c)->ellw : tw;
}

/*
 * Greedy word wrap: sets *LEN and *CELLS to the current line of S within W
 * cells and returns where the next line starts, or NULL after the last one.
 * Lines break at newlines and at the last space run that fits; a word longer
 * than W is split between characters.
 */
static const char *wrap_next(const char *s, int w, size_t *len, int *cells)
{
	const char *p = s, *brk = NULL;
	int cur = 0, brkcells = 0, cw;

	while (*p && *p != '\n') {
		size_t n = char_at(p, &cw);
		if (*p == ' ' && p > s && p[-1] != ' ') {
			brk = p;
			brkcells = cur;
		}
		if (cur + cw > w && p > s) {
			if (brk) {
				p = brk;
				cur = brkcells;
			}
			*len = (size_t)(p - s);
			*cells = cur;
			while (*p == ' ')
				p++;
			if (*p == '\n')
				p++;
			return *p ? p : NULL;
		}
		cur += cw;
		p += n;
	}
	*len = (size_t)(p - s);
	*cells = cur;
	return *p == '\n' ? p + 1 : NULL;
}

static int text_width_lines(const char *s)
{
	int max = 0, w;
	size_t len;

	do {
		s = wrap_next(s, INT_MAX, &len, &w);
		if (w > max)
			max = w;
	} while (s);
	return max;
}

/* Control characters would break the grid or let data drive the terminal,
 * so they become spaces (newlines survive only where a panel can wrap): C0,
 * DEL, and the C1 controls U+0080-U+009F (U+009B is CSI to a terminal that
 * reads 8-bit controls), both of whose UTF-8 bytes become spaces. */
static char *flatten(char *s, bool keep_newlines)
{
	size_t n;

	if (!s)
		return NULL;
	for (char *p = s; *p; p++)
		if (((unsigned char)*p < 0x20 && !(keep_newlines && *p == '\n')) || *p == 0x7f)
			*p = ' ';
		else if ((unsigned char)p[0] == 0xc2 && (unsigned char)p[1] >= 0x80 && (unsigned char)p[1] <= 0x9f)
			p[0] = p[1] = ' ';
	if (keep_newlines) {
		for (n = strlen(s); n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' '); n--)
			s[n - 1] = '\0';
	}
	return s;
}

static const struct state_style *state_style(const json_t *v)
{
	if (!json_is_string(v))
		return NULL;
	for (size_t i = 0; i < sizeof state_styles / sizeof state_styles[0]; i++)
		if (strcasecmp(json_string_value(v), state_styles[i].name) == 0)
			return &state_styles[i];
	return NULL;
}

/* ---- table: panel --------------------------------------------------------- */

typedef struct field {
	char *key;  /* NULL for the "(empty)" placeholder */
	char *val;  /* NULL shows as a dim "-" */
	const char *sgr;
} field;

static void panel_top(ax_out *c, const char *title, int total)
{
	const glyphs *g = G(c);
	int tw;

	sgr_on(c, SGR_GREEN);
	axo_put(c, g->tl);
	if (title) {
		axo_put(c, g->h);
		axo_put(c, " ");
		sgr_off(c, SGR_GREEN);
		tw = put_fit(c, SGR_BOLD, title, total - 6);
		sgr_on(c, SGR_GREEN);
		axo_put(c, " ");
		put_rep(c, g->h, total - 5 - tw);
	} else {
		put_rep(c, g->h, total - 2);
	}
	axo_put(c, g->tr);
	sgr_off(c, SGR_GREEN);
	axo_put(c, "\n");
}

static void panel_field(ax_out *c, const field *f, int labelw, int valw)
{
	const char *s = f->val ? f->val : "-";
	bool first = true;
	size_t len;
	int cells, kw;

	do {
		const char *next = wrap_next(s, valw, &len, &cells);
		put_styled(c, SGR_GREEN, G(c)->v, strlen(G(c)->v));
		axo_put(c, " ");
		if (first && f->key) {
			kw = put_fit(c, SGR_BOLD, f->key, labelw - 2);
			axo_put(c, ":");
			put_rep(c, " ", labelw - kw - 1);
		} else {
			put_rep(c, " ", labelw);
		}
		put_styled(c, f->val ? f->sgr : SGR_DIM, s, len);
		put_rep(c, " ", valw - cells + 1);
		put_styled(c, SGR_GREEN, G(c)->v, strlen(G(c)->v));
		axo_put(c, "\n");
		s = next;
		first = false;
	} while (s);
}

static void render_panel(ax_out *c, const json_t *obj, const char *title)
{
	size_t n = json_object_size(obj), i = 0;
	field *f = calloc(n ? n : 1, sizeof *f);
	int keyw = 0, valw = 1, labelw, inner, tw, width = c->opts->width;
	const char *k;
	json_t *v;

	if (!f) {
		c->oom = true;
		return;
	}
	json_object_foreach((json_t *)obj, k, v) {
		f[i].key = flatten(axo_strdup(c, k), false);
		f[i].val = flatten(axo_value_text(c, v, true), true);
		if (f[i].key && ax_display_width(f[i].key) > keyw)
			keyw = ax_display_width(f[i].key);
		if (f[i].val && text_width_lines(f[i].val) > valw)
			valw = text_width_lines(f[i].val);
		i++;
	}
	if (n == 0) {
		f[0].val = axo_strdup(c, "(empty)");
		f[0].sgr = SGR_DIM;
		valw = 7;
		n = 1;
	}

	/* Natural size first, then grow for the title and shrink to the terminal;
	 * values absorb both since they can wrap and keys cannot. */
	labelw = keyw ? keyw + 2 : 0;
	tw = title ? ax_display_width(title) : 0;
	inner = labelw + valw;
	if (title && inner < tw + 2) {
		valw += tw + 2 - inner;
		inner = tw + 2;
	}
	if (width > 0 && inner + 4 > width) {
		inner = width - 4;
		if (labelw && inner - labelw < MIN_VAL) {
			labelw = inner - MIN_VAL;
			if (labelw < MIN_LABEL)
				labelw = keyw + 2 < MIN_LABEL ? keyw + 2 : MIN_LABEL;
		}
		valw = inner - labelw > 0 ? inner - labelw : 1;
		inner = labelw + valw;
	}

	panel_top(c, title, inner + 4);
	for (i = 0; i < n; i++)
		panel_field(c, &f[i], labelw, valw);
	sgr_on(c, SGR_GREEN);
	axo_put(c, G(c)->bl);
	put_rep(c, G(c)->h, inner + 2);
	axo_put(c, G(c)->br);
	sgr_off(c, SGR_GREEN);
	axo_put(c, "\n");

	for (i = 0; i < n; i++) {
		free(f[i].key);
		free(f[i].val);
	}
	free(f);
}

/* ---- table: rows ---------------------------------------------------------- */

typedef struct cell {
	char *text;  /* NULL shows as a dim "-" */
	const char *sgr;
} cell;

typedef struct column {
	int w;
	bool fixed;  /* the id column: cutting ids makes them useless */
} column;

static char *state_text(ax_out *c, const struct state_style *st, char *text)
{
	size_t n;
	char *s;

	if (!text || !c->opts->utf8)
		return text;
	n = strlen(st->icon) + 1 + strlen(text) + 1;
	s = malloc(n);
	if (!s) {
		c->oom = true;
		return text;
	}
	snprintf(s, n, "%s %s", st->icon, text);
	free(text);
	return s;
}

/* Take cells from the widest shrinkable column, one at a time, so widths
 * even out instead of one column collapsing. */
static void fit_columns(column *col, size_t ncols, int avail)
{
	int total = 0;

	for (size_t i = 0; i < ncols; i++)
		total += col[i].w;
	while (total > avail) {
		size_t best = ncols;
		for (size_t i = 0; i < ncols; i++)
			if (!col[i].fixed && col[i].w > MIN_COL &&
			    (best == ncols || col[i].w >= col[best].w))
				best = i;
		if (best == ncols)
			break;
		col[best].w--;
		total--;
	}
}

static void rows_rule(ax_out *c, const char *l, const char *m, const char *r,
		      const column *col, size_t ncols)
{
	axo_put(c, l);
	for (size_t i = 0; i < ncols; i++) {
		put_rep(c, G(c)->h, col[i].w + 2);
		axo_put(c, i + 1 < ncols ? m : r);
	}
	axo_put(c, "\n");
}

static void rows_line(ax_out *c, const cell *row, const column *col, size_t ncols)
{
	axo_put(c, G(c)->v);
	for (size_t i = 0; i < ncols; i++) {
		int w;
		axo_put(c, " ");
		if (row[i].text)
			w = put_fit(c, row[i].sgr, row[i].text, col[i].w);
		else
			w = put_fit(c, SGR_DIM, "-", col[i].w);
		put_rep(c, " ", col[i].w - w + 1);
		axo_put(c, G(c)->v);
	}
	axo_put(c, "\n");
}

static void render_rows(ax_out *c, const json_t *rows, const ax_view *view)
{
	size_t nrows = json_array_size(rows), ncols, r, i;
	const char **keys = axo_row_columns(c, rows, view, &ncols);
	cell *cells = calloc((nrows + 1) * ncols + 1, sizeof *cells);
	column *col = calloc(ncols + 1, sizeof *col);

	if (!keys || !cells || !col) {
		c->oom = true;
		goto out;
	}
	if (ncols == 0) {
		put_styled(c, SGR_DIM, "(no columns)", 12);
		axo_put(c, "\n");
		goto out;
	}
	for (i = 0; i < ncols; i++) {
		cell *h = &cells[i];
		h->text = flatten(axo_strdup(c, keys[i]), false);
		for (char *p = h->text; p && *p; p++)
			if (*p >= 'a' && *p <= 'z')
				*p = (char)(*p - 'a' + 'A');
		h->sgr = SGR_HEADER;
		col[i].fixed = strcasecmp(keys[i], "id") == 0;
		col[i].w = ax_display_width(h->text);
	}
	for (r = 0; r < nrows; r++) {
		const json_t *row = json_array_get(rows, r);
		for (i = 0; i < ncols; i++) {
			cell *ce = &cells[(r + 1) * ncols + i];
			const json_t *v = json_object_get(row, keys[i]);
			const struct state_style *st = NULL;
			int w;

			ce->text = v ? flatten(axo_value_text(c, v, true), false) : NULL;
			if (col[i].fixed)
				ce->sgr = SGR_CYAN;
			else if (strcasecmp(keys[i], "state") == 0 && (st = state_style(v)))
				ce->sgr = st->sgr;
			if (st)
				ce->text = state_text(c, st, ce->text);
			w = ce->text ? ax_display_width(ce->text) : 1;
			if (w > col[i].w)
				col[i].w = w;
		}
	}
	if (c->opts->width > 0)
		fit_columns(col, ncols, c->opts->width - (int)(3 * ncols + 1));

	rows_rule(c, G(c)->tl, G(c)->t_down, G(c)->tr, col, ncols);
	rows_line(c, cells, col, ncols);
	rows_rule(c, G(c)->t_right, G(c)->cross, G(c)->t_left, col, ncols);
	for (r = 0; r < nrows; r++)
		rows_line(c, &cells[(r + 1) * ncols], col, ncols);
	rows_rule(c, G(c)->bl, G(c)->t_up, G(c)->br, col, ncols);
out:
	if (cells)
		for (i = 0; i < (nrows + 1) * ncols; i++)
			free(cells[i].text);
	free(cells);
	free(col);
	free(keys);
}

static void put_title_line(ax_out *c, const char *title)
{
	if (title) {
		put_fit(c, SGR_BOLD, title, c->opts->width > 0 ? c->opts->width : INT_MAX);
		axo_put(c, "\n");
	}
}

void axo_render_table(ax_out *c, const json_t *data, const ax_view *view)
{
	char *title = view->title ? flatten(axo_strdup(c, view->title), false) : NULL;
	size_t i;
	json_t *v;

	if (json_is_object(data)) {
		render_panel(c, data, title);
	} else if (axo_is_rows(data)) {
		put_title_line(c, title);
		render_rows(c, data, view);
	} else if (json_is_array(data)) {
		put_title_line(c, title);
		if (json_array_size(data) == 0) {
			put_styled(c, SGR_DIM, "(no items)", 10);
			axo_put(c, "\n");
		}
		json_array_foreach(data, i, v) {
			char *s = flatten(axo_value_text(c, v, true), false);
			put_styled(c, s ? NULL : SGR_DIM, s ? s : "-", strlen(s ? s : "-"));
			axo_put(c, "\n");
			free(s);
		}
	} else {
		char *s = flatten(axo_value_text(c, data, true), true);
		put_styled(c, s ? NULL : SGR_DIM, s ? s : "-", strlen(s ? s : "-"));
		axo_put(c, "\n");
		free(s);
	}
	free(title);
}

