/* Result tables (see table.h): collection and the three output formats. */
#include "cli/table.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/text.h"
#include "common/json.h"
#include "common/error.h"
#include "common/number.h"

void cli_table_init(cli_table_t *t, int ncols, const char *const *head)
{
    memset(t, 0, sizeof *t);
    t->ncols = ncols;
    t->head = sgd_xcalloc((size_t)ncols, sizeof *t->head);
    for (int i = 0; i < ncols; i++) t->head[i] = sgd_xstrdup(head[i] ? head[i] : "");
}

void cli_table_free(cli_table_t *t)
{
    for (int i = 0; i < t->ncols; i++) free(t->head[i]);
    for (int i = 0; i < t->nrows * t->ncols; i++) free(t->cells[i].text);
    free(t->head);
    free(t->cells);
    memset(t, 0, sizeof *t);
}

void cli_table_clear(cli_table_t *t)
{
    for (int i = 0; i < t->nrows * t->ncols; i++) free(t->cells[i].text);
    t->nrows = 0;
}

int cli_table_row(cli_table_t *t)
{
    if (t->nrows == t->caprows) {
        t->caprows = t->caprows ? 2 * t->caprows : 16;
        t->cells = sgd_xrealloc(t->cells, (size_t)t->caprows * (size_t)t->ncols * sizeof *t->cells);
    }
    memset(&t->cells[t->nrows * t->ncols], 0, (size_t)t->ncols * sizeof *t->cells);
    return t->nrows++;
}

static cli_cell_t *cell(cli_table_t *t, int row, int col)
{
    SGD_ASSERT(row >= 0 && row < t->nrows && col >= 0 && col < t->ncols);
    cli_cell_t *c = &t->cells[row * t->ncols + col];
    free(c->text);
    c->text = NULL;
    c->kind = CLI_CELL_NULL;
    return c;
}

void cli_table_text(cli_table_t *t, int row, int col, const char *s)
{
    cli_cell_t *c = cell(t, row, col);
    if (!s) return;
    c->kind = CLI_CELL_TEXT;
    c->text = sgd_xstrdup(s);
}

void cli_table_int(cli_table_t *t, int row, int col, int64_t v)
{
    cli_cell_t *c = cell(t, row, col);
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    c->kind = CLI_CELL_INT;
    c->text = sgd_xstrdup(buf);
}

void cli_table_literal(cli_table_t *t, int row, int col, const char *json)
{
    cli_cell_t *c = cell(t, row, col);
    c->kind = CLI_CELL_LITERAL;
    c->text = sgd_xstrdup(json);
}

void cli_table_cell(cli_table_t *t, int row, int col, const rdb_cell_t *c)
{
    switch (c->kind) {
    case RDB_CELL_NULL: cli_table_text(t, row, col, NULL); break;
    case RDB_CELL_INT: cli_table_int(t, row, col, c->i); break;
    case RDB_CELL_REAL: cli_table_stored_real(t, row, col, c->r); break;
    case RDB_CELL_TEXT: cli_table_text(t, row, col, c->text); break;
    case RDB_CELL_JSON: cli_table_literal(t, row, col, c->text); break;
    }
}

void cli_table_real(cli_table_t *t, int row, int col, double v)
{
    cli_cell_t *c = cell(t, row, col);
    if (!isfinite(v)) return;
    char buf[SGD_FMT_DOUBLE_MAX];
    /* Kept exactly; shortened only when printed as a text table. */
    c->kind = CLI_CELL_REAL;
    c->text = sgd_xstrdup(sgd_fmt_double(buf, sizeof buf, v));
}

void cli_table_stored_real(cli_table_t *t, int row, int col, double v)
{
    char buf[SGD_FMT_DOUBLE_MAX];
    if (isinf(v)) cli_table_text(t, row, col, sgd_fmt_double(buf, sizeof buf, v));
    else cli_table_real(t, row, col, v);
}

/* Text form of a cell in an aligned table (malloc'ed): reals shortened to 6 significant
 * digits, text with its control characters escaped, so that a name holding an ESC sequence
 * shows as \x1b[... instead of driving the terminal. */
static char *text_form(const cli_cell_t *c)
{
    if (c->kind == CLI_CELL_NULL) return sgd_xstrdup("NULL");
    if (c->kind == CLI_CELL_REAL) {
        char buf[64];
        snprintf(buf, sizeof buf, "%.6g", strtod(c->text, NULL));
        return sgd_xstrdup(buf);
    }
    return cli_text_escape(c->text);
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
        else if (cli_is_control(s, len))
            fprintf(f, "\\u%04x", len == 1 ? ch : (unsigned char)s[1]);
        else fwrite(s, 1, len, f);
        s += len ? len : 1;
    }
    fputc('"', f);
}

void cli_table_csv_head(const cli_table_t *t, FILE *f)
{
    for (int c = 0; c < t->ncols; c++) {
        if (c) fputc(',', f);
        print_csv_field(t->head[c], f);
    }
    fputc('\n', f);
}

void cli_table_csv_rows(const cli_table_t *t, FILE *f)
{
    for (int r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++) {
            if (c) fputc(',', f);
            print_csv_field(t->cells[r * t->ncols + c].text, f);
        }
        fputc('\n', f);
    }
}

static void print_csv(const cli_table_t *t, FILE *f)
{
    cli_table_csv_head(t, f);
    cli_table_csv_rows(t, f);
}

static void print_json(const cli_table_t *t, FILE *f)
{
    fputs("[", f);
    for (int r = 0; r < t->nrows; r++) {
        fputs(r ? ",\n {" : "\n {", f);
        for (int c = 0; c < t->ncols; c++) {
            const cli_cell_t *x = &t->cells[r * t->ncols + c];
            if (c) fputs(", ", f);
            print_json_string(t->head[c], f);
            fputs(": ", f);
            if (x->kind == CLI_CELL_NULL) fputs("null", f);
            else if (x->kind == CLI_CELL_TEXT) print_json_string(x->text, f);
            else fputs(x->text, f);
        }
        fputs("}", f);
    }
    fputs(t->nrows ? "\n]\n" : "]\n", f);
}

/* Numbers are right-aligned in a text table. */
static bool is_number(const cli_cell_t *c)
{
    return c->kind == CLI_CELL_INT || c->kind == CLI_CELL_REAL ||
           (c->kind == CLI_CELL_LITERAL && strpbrk(c->text, "0123456789"));
}

/* A narrowed column is never cut below this many characters (or its header's width). */
enum { MIN_CUT_WIDTH = 8 };

/* Whether column c holds text that may be cut: some cell is neither a number nor NULL.
 * Numbers are never cut: a shortened number would read as another number. */
static bool cuttable(const cli_table_t *t, int c)
{
    for (int r = 0; r < t->nrows; r++) {
        const cli_cell_t *x = &t->cells[r * t->ncols + c];
        if (x->kind != CLI_CELL_NULL && !is_number(x)) return true;
    }
    return false;
}

/* Narrows the widest cuttable column, one character at a time, until the table's lines fit
 * max_width characters or nothing more can be cut (then the lines stay longer). */
static void fit_widths(const cli_table_t *t, char **head, int *w, int max_width)
{
    int total = 2 * (t->ncols - 1);
    for (int c = 0; c < t->ncols; c++) total += w[c];
    bool *cut = sgd_xcalloc((size_t)t->ncols + 1, sizeof *cut);
    for (int c = 0; c < t->ncols; c++) cut[c] = cuttable(t, c);
    while (total > max_width) {
        int widest = -1;
        for (int c = 0; c < t->ncols; c++) {
            int floor = width(head[c]) > MIN_CUT_WIDTH ? width(head[c]) : MIN_CUT_WIDTH;
            if (cut[c] && w[c] > floor && (widest < 0 || w[c] > w[widest])) widest = c;
        }
        if (widest < 0) break;
        w[widest]--;
        total--;
    }
    free(cut);
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

/* The aligned table: every header and cell in its escaped text form, numbers right-aligned,
 * everything else left-aligned, two spaces between columns; with max_width > 0, text
 * columns are cut (fit_widths) so that lines fit it. */
static void print_text(const cli_table_t *t, int max_width, FILE *f)
{
    int n = t->nrows * t->ncols;
    char **head = sgd_xcalloc((size_t)t->ncols, sizeof *head);
    char **form = sgd_xcalloc((size_t)n + 1, sizeof *form);
    int *w = sgd_xcalloc((size_t)t->ncols, sizeof *w);
    for (int c = 0; c < t->ncols; c++) {
        head[c] = cli_text_escape(t->head[c]);
        w[c] = width(head[c]);
    }
    for (int i = 0; i < n; i++) {
        form[i] = text_form(&t->cells[i]);
        if (width(form[i]) > w[i % t->ncols]) w[i % t->ncols] = width(form[i]);
    }
    if (max_width > 0) fit_widths(t, head, w, max_width);
    for (int i = 0; i < n; i++) form[i] = cut_to(form[i], w[i % t->ncols]);
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
    for (int c = 0; c < t->ncols; c++) free(head[c]);
    for (int i = 0; i < n; i++) free(form[i]);
    free(head);
    free(form);
    free(w);
}

void cli_table_print_fitted(const cli_table_t *t, int max_width, FILE *f)
{
    print_text(t, max_width, f);
}

void cli_table_print(const cli_table_t *t, cli_format_t fmt, FILE *f)
{
    if (fmt == CLI_FMT_CSV) print_csv(t, f);
    else if (fmt == CLI_FMT_JSON) print_json(t, f);
    else print_text(t, 0, f);
}
