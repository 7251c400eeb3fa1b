/* Result tables (see table.h): collection and the three output formats. */
#include "render/table.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "render/text.h"
#include "common/json.h"
#include "common/error.h"
#include "common/number.h"

void rnd_table_init(rnd_table_t *t, int ncols, const char *const *head)
{
    memset(t, 0, sizeof *t);
    t->ncols = ncols;
    t->head = sgd_xcalloc((size_t)ncols, sizeof *t->head);
    for (int i = 0; i < ncols; i++) t->head[i] = sgd_xstrdup(head[i] ? head[i] : "");
}

void rnd_table_free(rnd_table_t *t)
{
    for (int i = 0; i < t->ncols; i++) free(t->head[i]);
    for (int i = 0; i < t->nrows * t->ncols; i++) free(t->cells[i].text);
    free(t->head);
    free(t->cells);
    memset(t, 0, sizeof *t);
}

void rnd_table_clear(rnd_table_t *t)
{
    for (int i = 0; i < t->nrows * t->ncols; i++) free(t->cells[i].text);
    t->nrows = 0;
}

void rnd_table_keep_cols(rnd_table_t *t, int ncols)
{
    SGD_ASSERT(ncols >= 1 && ncols <= t->ncols);
    for (int c = ncols; c < t->ncols; c++) free(t->head[c]);
    for (int r = 0; r < t->nrows; r++) {
        for (int c = ncols; c < t->ncols; c++) free(t->cells[r * t->ncols + c].text);
        /* row r moves down in place: its new start is never after its old one */
        memmove(&t->cells[r * ncols], &t->cells[r * t->ncols], (size_t)ncols * sizeof *t->cells);
    }
    t->ncols = ncols; /* caprows rows of the narrower rows still fit the cells allocated */
}

int rnd_table_row(rnd_table_t *t)
{
    if (t->nrows == t->caprows) {
        t->caprows = t->caprows ? 2 * t->caprows : 16;
        t->cells = sgd_xrealloc(t->cells, (size_t)t->caprows * (size_t)t->ncols * sizeof *t->cells);
    }
    memset(&t->cells[t->nrows * t->ncols], 0, (size_t)t->ncols * sizeof *t->cells);
    return t->nrows++;
}

static rnd_cell_t *cell(rnd_table_t *t, int row, int col)
{
    SGD_ASSERT(row >= 0 && row < t->nrows && col >= 0 && col < t->ncols);
    rnd_cell_t *c = &t->cells[row * t->ncols + col];
    free(c->text);
    c->text = NULL;
    c->kind = RND_CELL_NULL;
    return c;
}

void rnd_table_text(rnd_table_t *t, int row, int col, const char *s)
{
    rnd_cell_t *c = cell(t, row, col);
    if (!s) return;
    c->kind = RND_CELL_TEXT;
    c->text = sgd_xstrdup(s);
}

void rnd_table_int(rnd_table_t *t, int row, int col, int64_t v)
{
    rnd_cell_t *c = cell(t, row, col);
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    c->kind = RND_CELL_INT;
    c->text = sgd_xstrdup(buf);
}

void rnd_table_literal(rnd_table_t *t, int row, int col, const char *json)
{
    rnd_cell_t *c = cell(t, row, col);
    c->kind = RND_CELL_LITERAL;
    c->text = sgd_xstrdup(json);
}

void rnd_table_cell(rnd_table_t *t, int row, int col, const rdb_cell_t *c)
{
    switch (c->kind) {
    case RDB_CELL_NULL: rnd_table_text(t, row, col, NULL); break;
    case RDB_CELL_INT: rnd_table_int(t, row, col, c->i); break;
    case RDB_CELL_REAL: rnd_table_stored_real(t, row, col, c->r); break;
    case RDB_CELL_TEXT: rnd_table_text(t, row, col, c->text); break;
    case RDB_CELL_JSON: rnd_table_literal(t, row, col, c->text); break;
    }
}

void rnd_table_real(rnd_table_t *t, int row, int col, double v)
{
    rnd_cell_t *c = cell(t, row, col);
    if (!isfinite(v)) return;
    char buf[SGD_FMT_DOUBLE_MAX];
    /* Kept exactly; shortened only when printed as a text table. */
    c->kind = RND_CELL_REAL;
    c->text = sgd_xstrdup(sgd_fmt_double(buf, sizeof buf, v));
}

void rnd_table_stored_real(rnd_table_t *t, int row, int col, double v)
{
    char buf[SGD_FMT_DOUBLE_MAX];
    if (isinf(v)) rnd_table_text(t, row, col, sgd_fmt_double(buf, sizeof buf, v));
    else rnd_table_real(t, row, col, v);
}

/* Text form of a cell in an aligned table (malloc'ed): reals shortened to 6 significant
 * digits, text with its control characters escaped, so that a name holding an ESC sequence
 * shows as \x1b[... instead of driving the terminal. */
static char *text_form(const rnd_cell_t *c)
{
    if (c->kind == RND_CELL_NULL) return sgd_xstrdup("NULL");
    if (c->kind == RND_CELL_REAL) {
        char buf[64];
        snprintf(buf, sizeof buf, "%.6g", strtod(c->text, NULL));
        return sgd_xstrdup(buf);
    }
    return rnd_text_escape(c->text);
}

/* Display width in characters (UTF-8 continuation bytes do not count). */
static int width(const char *s)
{
    int w = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80) w++;
    return w;
}

/* CSV keeps every byte as it is (it is data for programs); fields holding a separator, a
 * quote or a line break are quoted (RFC 4180). */
static void print_csv_field(const char *s, FILE *f)
{
    if (!s) return;
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* A JSON string (RFC 8259): control characters (DEL and U+0080..U+009F too, which JSON
 * allows raw but terminals obey) as escapes; bytes that are not well-formed UTF-8, which a
 * JSON text cannot hold, as U+FFFD. */
static void print_json_string(const char *s, FILE *f)
{
    fputc('"', f);
    while (*s) {
        size_t len = sgd_utf8_len(s);
        unsigned char ch = (unsigned char)*s;
        if (len == 0) fputs("\\ufffd", f);
        else if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch == '\n') fputs("\\n", f);
        else if (ch == '\t') fputs("\\t", f);
        else if (ch == '\r') fputs("\\r", f);
        else if (rnd_is_control(s, len))
            fprintf(f, "\\u%04x", len == 1 ? ch : (unsigned char)s[1]);
        else fwrite(s, 1, len, f);
        s += len ? len : 1;
    }
    fputc('"', f);
}

void rnd_table_csv_head(const rnd_table_t *t, FILE *f)
{
    for (int c = 0; c < t->ncols; c++) {
        if (c) fputc(',', f);
        print_csv_field(t->head[c], f);
    }
    fputc('\n', f);
}

void rnd_table_csv_rows(const rnd_table_t *t, FILE *f)
{
    for (int r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++) {
            if (c) fputc(',', f);
            print_csv_field(t->cells[r * t->ncols + c].text, f);
        }
        fputc('\n', f);
    }
}

static void print_csv(const rnd_table_t *t, FILE *f)
{
    rnd_table_csv_head(t, f);
    rnd_table_csv_rows(t, f);
}

static void print_json(const rnd_table_t *t, FILE *f)
{
    fputs("[", f);
    for (int r = 0; r < t->nrows; r++) {
        fputs(r ? ",\n {" : "\n {", f);
        for (int c = 0; c < t->ncols; c++) {
            const rnd_cell_t *x = &t->cells[r * t->ncols + c];
            if (c) fputs(", ", f);
            print_json_string(t->head[c], f);
            fputs(": ", f);
            if (x->kind == RND_CELL_NULL) fputs("null", f);
            else if (x->kind == RND_CELL_TEXT) print_json_string(x->text, f);
            else fputs(x->text, f);
        }
        fputs("}", f);
    }
    fputs(t->nrows ? "\n]\n" : "]\n", f);
}

/* Numbers are right-aligned in a text table. */
static bool is_number(const rnd_cell_t *c)
{
    return c->kind == RND_CELL_INT || c->kind == RND_CELL_REAL ||
           (c->kind == RND_CELL_LITERAL && strpbrk(c->text, "0123456789"));
}

/* A narrowed column is never cut below this many characters (or its header's width). */
enum { MIN_CUT_WIDTH = 8 };

/* Whether column c holds text that may be cut: some cell is neither a number nor NULL.
 * Numbers are never cut: a shortened number would read as another number. */
static bool cuttable(const rnd_table_t *t, int c)
{
    for (int r = 0; r < t->nrows; r++) {
        const rnd_cell_t *x = &t->cells[r * t->ncols + c];
        if (x->kind != RND_CELL_NULL && !is_number(x)) return true;
    }
    return false;
}

/* The narrowest a cuttable column c may become: MIN_CUT_WIDTH, its header, and the widest
 * number in it (numbers are never cut, even in a column that also holds text). */
static int cut_floor(const rnd_table_t *t, char **head, char **form, int c)
{
    int floor = width(head[c]) > MIN_CUT_WIDTH ? width(head[c]) : MIN_CUT_WIDTH;
    for (int r = 0; r < t->nrows; r++) {
        int i = r * t->ncols + c;
        if (is_number(&t->cells[i]) && width(form[i]) > floor) floor = width(form[i]);
    }
    return floor;
}

/* Narrows the widest cuttable column, one character at a time, until the table's lines fit
 * max_width characters or nothing more can be cut (then the lines stay longer). */
static void fit_widths(const rnd_table_t *t, char **head, char **form, int *w, int max_width)
{
    int total = 2 * (t->ncols - 1);
    for (int c = 0; c < t->ncols; c++) total += w[c];
    int *floor = sgd_xcalloc((size_t)t->ncols + 1, sizeof *floor);
    for (int c = 0; c < t->ncols; c++)
        floor[c] = cuttable(t, c) ? cut_floor(t, head, form, c) : w[c];
    while (total > max_width) {
        int widest = -1;
        for (int c = 0; c < t->ncols; c++)
            if (w[c] > floor[c] && (widest < 0 || w[c] > w[widest])) widest = c;
        if (widest < 0) break;
        w[widest]--;
        total--;
    }
    free(floor);
}

/* s cut to w characters, its last one an ellipsis, when it is wider (s is malloc'ed and
 * may be replaced). */
static char *cut_to(char *s, int w)
{
    if (width(s) <= w) return s;
    size_t n = 0; /* bytes of the first w - 1 characters */
    for (int chars = 0; s[n] && chars < w - 1; chars++) {
        size_t len = sgd_utf8_len(s + n);
        n += len ? len : 1;
    }
    char *out = sgd_xmalloc(n + sizeof "\u2026");
    memcpy(out, s, n);
    memcpy(out + n, "\u2026", sizeof "\u2026");
    free(s);
    return out;
}

/* Every header and cell of t in its escaped text form into head[ncols] and form[n], and
 * each column's width into w[ncols]: its widest, narrowed (fit_widths) to fit max_width > 0;
 * text cells wider than their column are cut. */
static void text_layout(const rnd_table_t *t, int max_width, char **head, char **form, int *w)
{
    int n = t->nrows * t->ncols;
    for (int c = 0; c < t->ncols; c++) {
        head[c] = rnd_text_escape(t->head[c]);
        w[c] = width(head[c]);
    }
    for (int i = 0; i < n; i++) {
        form[i] = text_form(&t->cells[i]);
        if (width(form[i]) > w[i % t->ncols]) w[i % t->ncols] = width(form[i]);
    }
    if (max_width > 0) fit_widths(t, head, form, w, max_width);
    for (int i = 0; i < n; i++)
        if (!is_number(&t->cells[i])) form[i] = cut_to(form[i], w[i % t->ncols]);
}

static void free_layout(const rnd_table_t *t, char **head, char **form, int *w)
{
    for (int c = 0; c < t->ncols; c++) free(head[c]);
    for (int i = 0; i < t->nrows * t->ncols; i++) free(form[i]);
    free(head);
    free(form);
    free(w);
}

/* The aligned table: every header and cell in its escaped text form, numbers right-aligned,
 * everything else left-aligned, two spaces between columns; with max_width > 0, text
 * columns are cut (fit_widths) so that lines fit it. */
static void print_text(const rnd_table_t *t, int max_width, FILE *f)
{
    int n = t->nrows * t->ncols;
    char **head = sgd_xcalloc((size_t)t->ncols, sizeof *head);
    char **form = sgd_xcalloc((size_t)n + 1, sizeof *form);
    int *w = sgd_xcalloc((size_t)t->ncols, sizeof *w);
    text_layout(t, max_width, head, form, w);
    for (int c = 0; c < t->ncols; c++)
        fprintf(f, "%s%s%*s", c ? "  " : "", head[c],
                c + 1 < t->ncols ? w[c] - width(head[c]) : 0, "");
    fputc('\n', f);
    for (int c = 0; c < t->ncols; c++) {
        if (c) fputs("  ", f);
        for (int i = 0; i < w[c]; i++) fputc('-', f);
    }
    fputc('\n', f);
    for (int i = 0; i < n; i++) {
        int c = i % t->ncols, pad = w[c] - width(form[i]);
        bool last = c + 1 == t->ncols;
        if (c) fputs("  ", f);
        if (is_number(&t->cells[i])) fprintf(f, "%*s%s", pad, "", form[i]);
        else fprintf(f, "%s%*s", form[i], last ? 0 : pad, "");
        if (last) fputc('\n', f);
    }
    free_layout(t, head, form, w);
}

int rnd_table_fitted_width(const rnd_table_t *t, int max_width)
{
    char **head = sgd_xcalloc((size_t)t->ncols, sizeof *head);
    char **form = sgd_xcalloc((size_t)(t->nrows * t->ncols) + 1, sizeof *form);
    int *w = sgd_xcalloc((size_t)t->ncols, sizeof *w);
    text_layout(t, max_width, head, form, w);
    int total = 2 * (t->ncols - 1);
    for (int c = 0; c < t->ncols; c++) total += w[c];
    free_layout(t, head, form, w);
    return total;
}

void rnd_table_print_fitted(const rnd_table_t *t, int max_width, FILE *f)
{
    print_text(t, max_width, f);
}

void rnd_table_print(const rnd_table_t *t, rnd_format_t fmt, FILE *f)
{
    if (fmt == RND_FMT_CSV) print_csv(t, f);
    else if (fmt == RND_FMT_JSON) print_json(t, f);
    else print_text(t, 0, f);
}
