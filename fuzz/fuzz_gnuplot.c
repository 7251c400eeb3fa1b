/* libFuzzer target: the gnuplot script builder of `sgdsim plot` (cli/gnuplot_script.h).
 *
 * Input: one flags byte (figure format, log axes, bands, a size), then NUL-separated
 * strings: the title, the two axis labels, the legend's title and up to 8 legend entries
 * (an input of odd length draws two panels, titled with the axis labels' strings);
 * each legend entry's bytes also make its points, arbitrary doubles included (NaN,
 * infinities), and with the band flag its band's edges.  The script is checked by a small
 * reader of gnuplot's syntax, written apart from the builder:
 *   - every string is single-quoted pieces joined by ."\047". (a quote) or ."\n". (a line
 *     break, where the input had a space or a control character), each closing on
 *     its own line and never followed by another ' (which gnuplot would read as a quote
 *     inside it); it holds no control character, is well-formed UTF-8 and reads back as
 *     the input string whenever the input was printable UTF-8;
 *   - every datablock line is two finite numbers until EOD (three in a band's $b block);
 *   - outside strings the script is exactly the script built with every string replaced by
 *     as many x's as it has characters, spaces kept (the layout may depend on a string's
 *     length and where it may wrap, never on its bytes), so no byte of a string ever becomes gnuplot syntax (a command, a
 *     backquote, a macro);
 *   - the script's strings, less the builder's own ('%g' and '', the tick labels' formats),
 *     are the input's in the script's order: each panel's title, then the figure's title,
 *     axis labels and legend title, then the legend entries not marked legend_dup; a
 *     printable one reads back as it was given, a legend entry possibly shortened to its
 *     start and end around "…";
 *   - gnuplot's macro pass, which keeps its own count of quotes, sees no @ or # outside
 *     quotes.
 * Any violation aborts. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/gnuplot_script.h"
#include "fuzz/fuzz_text.h"

#define MAX_LINES 8
#define NFIXED 4 /* title, axis labels, legend title */
#define MAX_STRINGS (NFIXED + MAX_LINES)
#define MAX_SCRIPT_STRINGS (MAX_STRINGS + 2 + 8) /* two panels' titles repeat two strings;
                                                 * four tick formats per panel */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Bytes of the UTF-8 character at s, or 0 when s is not well-formed there (RFC 3629). */
static size_t utf8_char(const unsigned char *s)
{
    size_t n = s[0] < 0x80 ? 1 : s[0] >= 0xC2 && s[0] < 0xE0 ? 2 : s[0] >= 0xE0 && s[0] < 0xF0 ? 3
               : s[0] >= 0xF0 && s[0] < 0xF5 ? 4 : 0;
    uint32_t cp = n == 1 ? s[0] : n == 2 ? s[0] & 0x1Fu : n == 3 ? s[0] & 0x0Fu : s[0] & 0x07u;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = cp << 6 | (s[i] & 0x3Fu);
    }
    static const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
    if (n == 0 || cp < min[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return n;
}

/* Printable: well-formed UTF-8 without C0, DEL or C1 control characters. */
static bool printable(const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        size_t n = utf8_char(u + i);
        if (n == 0 || i + n > len || u[i] < 0x20 || u[i] == 0x7F ||
            (n == 2 && u[i] == 0xC2 && u[i + 1] < 0xA0))
            return false;
        i += n;
    }
    return true;
}

typedef struct reader {
    char *skeleton; /* the script with every string's contents taken out */
    size_t len;
    char *strings[MAX_SCRIPT_STRINGS]; /* the strings as gnuplot reads them, in order */
    int nstrings;
} reader_t;

/* gnuplot 5.4 reads '' right after a character of a single-quoted string as a quote in
 * it; the builder must never write that, so a piece that ends before another ' aborts. */
static const char *read_piece(const char *s, char *value, size_t *n)
{
    for (s++; *s != '\''; s++) {
        if (*s == '\0' || *s == '\n') abort(); /* unclosed on its line */
        value[(*n)++] = *s;
    }
    if (s[1] == '\'') abort();
    return s + 1;
}

/* Reads the string expression opening at *p: single-quoted pieces joined by ."\047". (a
 * quote); appends its value and aborts unless it is printable. */
static void read_string(reader_t *r, const char **p)
{
    static const char join[] = ".\"\\047\".", newline[] = ".\"\\n\".";
    char *value = malloc(strlen(*p) + 1);
    size_t n = 0;
    const char *s = read_piece(*p, value, &n);
    for (;;) {
        if (strncmp(s, join, sizeof join - 1) == 0 && s[sizeof join - 1] == '\'') {
            value[n++] = '\'';
            s = read_piece(s + sizeof join - 1, value, &n);
        } else if (strncmp(s, newline, sizeof newline - 1) == 0 && s[sizeof newline - 1] == '\'') {
            value[n++] = ' '; /* a label wrapped where it had a space */
            s = read_piece(s + sizeof newline - 1, value, &n);
        } else {
            break;
        }
    }
    value[n] = '\0';
    if (!printable(value, n) || r->nstrings == MAX_SCRIPT_STRINGS) abort();
    r->strings[r->nstrings++] = value;
    *p = s;
}

/* Checks a datablock's lines after its header line: ncols finite numbers each, then EOD. */
static const char *read_datablock(const char *p, int ncols)
{
    for (;;) {
        if (strncmp(p, "EOD\n", 4) == 0) return p + 4;
        for (int c = 0; c < ncols; c++) {
            char *end;
            double v = strtod(p, &end);
            if (end == p || *end != (c + 1 < ncols ? ' ' : '\n') || !isfinite(v)) abort();
            p = end + 1;
        }
    }
}

/* A datablock's first line: $name << EOD. */
static bool datablock_header(const char *p)
{
    if (*p++ != '$') return false;
    p += strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789");
    return strncmp(p, " << EOD\n", 8) == 0;
}

static void reader_read(reader_t *r, const char *script)
{
    memset(r, 0, sizeof *r);
    r->skeleton = malloc(strlen(script) + 1);
    for (const char *p = script; *p;) {
        bool line_start = p == script || p[-1] == '\n';
        if (line_start && datablock_header(p)) {
            int ncols = p[1] == 'b' ? 3 : 2; /* $b<i>: a band's x, lower and upper edge */
            const char *body = strchr(p, '\n') + 1;
            memcpy(r->skeleton + r->len, p, (size_t)(body - p));
            r->len += (size_t)(body - p);
            p = body;
            const char *end = read_datablock(p, ncols);
            memcpy(r->skeleton + r->len, p, (size_t)(end - p));
            r->len += (size_t)(end - p);
            p = end;
        } else if (*p == '\'') {
            read_string(r, &p); /* its skeleton is that of an empty string */
            r->skeleton[r->len++] = '\'';
            r->skeleton[r->len++] = '\'';
        } else {
            r->skeleton[r->len++] = *p++;
        }
    }
    r->skeleton[r->len] = '\0';
}

/* Aborts where gnuplot's macro pass, which runs over each line (continuations joined)
 * before the scanner, would expand @name or start a comment: it toggles its single-quote
 * state at every ' and its double-quote state at every " not after a backslash. */
static void check_macro_pass(const char *script)
{
    bool sq = false, dq = false, after_backslash = false;
    for (const char *c = script; *c; c++) {
        if (*c == '\n' && (c == script || c[-1] != '\\')) sq = dq = after_backslash = false;
        else if (*c == '\'') sq = !sq;
        else if (*c == '"' && !after_backslash) dq = !dq;
        if ((*c == '@' || *c == '#') && !sq && !dq) abort();
        after_backslash = *c == '\\' && dq ? !after_backslash : false;
    }
}

static void reader_free(reader_t *r)
{
    for (int i = 0; i < r->nstrings; i++) free(r->strings[i]);
    free(r->skeleton);
}

/* One small value per byte; bytes 0xfd..0xff are NaN and the infinities, which cannot
 * come from whole doubles (their zero bytes would end the string). */
static double byte_value(unsigned char c)
{
    return c == 0xFD ? NAN : c == 0xFE ? INFINITY : c == 0xFF ? -INFINITY : (double)c - 128;
}

/* Points from a legend entry's bytes: small ones from its first bytes, and whole doubles
 * (any bit pattern without a zero byte) from each further 16 bytes. */
static int make_points(const char *label, size_t len, double *x, double *y)
{
    int n = 0;
    for (size_t k = 0; k < len && k < 4; k++, n++)
        x[n] = (double)k, y[n] = byte_value((unsigned char)label[k]);
    for (size_t k = 4; k + 16 <= len && n < 12; k += 16, n++) {
        memcpy(&x[n], label + k, 8);
        memcpy(&y[n], label + k + 8, 8);
    }
    return n;
}

/* s with each character (as the builder counts them: a well-formed UTF-8 sequence, or
 * one byte that is not part of one) replaced by an x, but spaces and control characters
 * (drawn as spaces, where labels may wrap) by a space (malloc'ed). */
static char *neutral(const char *s)
{
    char *out = malloc(strlen(s) + 1), *o = out;
    for (const unsigned char *u = (const unsigned char *)s; *u; o++) {
        size_t n = utf8_char(u);
        *o = n && !printable((const char *)u, n) ? ' ' : *u == ' ' ? ' ' : 'x';
        u += n ? n : 1;
    }
    *o = '\0';
    return out;
}

/* The builder's own strings, which are left out of the comparison with the input. */
static bool builders(const char *s)
{
    return strcmp(s, "") == 0 || strcmp(s, "%g") == 0;
}

static char *build(const gp_plot_t *p, const char *const *text, const gp_series_t *series,
                   const char *const *labels)
{
    gp_plot_t q = *p;
    gp_series_t s[MAX_LINES];
    for (int i = 0; i < p->nseries; i++) s[i] = series[i], s[i].label = labels[i];
    q.title = text[0], q.xlabel = text[1], q.ylabel = text[2], q.key_title = text[3];
    q.series = s;
    const char *panel_titles[2] = {text[1], text[2]}; /* with panels: the axis labels again */
    if (q.npanels) q.panel_titles = panel_titles;
    return gp_script_build(&q);
}

/* Which input string each string of the script is, in the script's order (builders'
 * strings left out): each panel's title (an axis label again), then the fixed ones (the
 * legend's title only with a legend), then the legend entries listed; with no series,
 * none (nothing is drawn). */
static int expected_order(const gp_plot_t *p, const gp_series_t *series, const char *const *str,
                          int nstr, int *order)
{
    int n = 0;
    if (p->nseries == 0) return 0;
    for (int k = 0; k < p->npanels; k++) order[n++] = 1 + k;
    for (int i = 0; i < NFIXED - 1; i++) order[n++] = i;
    order[n++] = NFIXED - 1; /* the first series is never a legend_dup: there is a legend */
    for (int i = 0; i < nstr - NFIXED; i++)
        if (!series[i].legend_dup) order[n++] = NFIXED + i;
    int kept = 0;
    for (int i = 0; i < n; i++)
        if (!builders(str[order[i]])) order[kept++] = order[i];
    return kept;
}

/* A legend entry as drawn: the input, or its start and end around one "…" (a shortened
 * one; the input may hold "…" of its own, so each is tried). */
static bool entry_matches(const char *got, const char *want)
{
    if (strcmp(got, want) == 0) return true;
    size_t len = strlen(want);
    for (const char *cut = strstr(got, "\xe2\x80\xa6"); cut; cut = strstr(cut + 1, "\xe2\x80\xa6")) {
        size_t head = (size_t)(cut - got), tail = strlen(cut + 3);
        if (head + tail < len && strncmp(got, want, head) == 0 &&
            strcmp(cut + 3, want + len - tail) == 0)
            return true;
    }
    return false;
}

static void check(const gp_plot_t *p, const char *const *str, const size_t *len, int nstr,
                  const gp_series_t *series)
{
    char *blank_text[MAX_STRINGS];
    for (int i = 0; i < nstr; i++) blank_text[i] = neutral(str[i]);
    const char *const *blank_str = (const char *const *)blank_text;
    char *script = build(p, str, series, str + NFIXED);
    char *blank = build(p, blank_str, series, blank_str + NFIXED);
    reader_t r, b;
    reader_read(&r, script);
    reader_read(&b, blank);
    check_macro_pass(script);
    int order[MAX_SCRIPT_STRINGS], n = expected_order(p, series, str, nstr, order);
    if (strcmp(r.skeleton, b.skeleton) != 0 || strpbrk(r.skeleton, "`\"@!")) abort();
    int seen = 0;
    for (int i = 0; i < r.nstrings; i++) {
        if (builders(r.strings[i])) continue;
        if (seen == n) abort();
        int k = order[seen++];
        size_t got = strlen(r.strings[i]);
        bool clean = printable(str[k], len[k]), entry = k >= NFIXED;
        if (got > len[k] + (entry ? 2 : 0)) abort();
        if (clean && (entry ? !entry_matches(r.strings[i], str[k])
                            : strcmp(r.strings[i], str[k]) != 0))
            abort();
    }
    if (seen != n) abort();
    reader_free(&r);
    reader_free(&b);
    free(script);
    free(blank);
    for (int i = 0; i < nstr; i++) free(blank_text[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    char *text = fuzz_text(data + 1, size - 1);
    if (!text) return 0;
    const char *str[MAX_STRINGS];
    size_t len[MAX_STRINGS];
    int nstr = 0;
    for (const char *s = text; nstr < MAX_STRINGS && s <= text + size - 1; s += strlen(s) + 1)
        len[nstr] = strlen(s), str[nstr++] = s;
    while (nstr < NFIXED) len[nstr] = 0, str[nstr++] = "";
    static double x[MAX_LINES][12], y[MAX_LINES][12], lo[MAX_LINES][12], hi[MAX_LINES][12];
    bool band = data[0] & 16, panels = size % 2; /* odd sizes: two panels */
    gp_series_t series[MAX_LINES];
    for (int i = 0; i < nstr - NFIXED; i++) {
        int n = make_points(str[NFIXED + i], len[NFIXED + i], x[i], y[i]);
        for (int k = 0; k < n; k++) lo[i][k] = y[i][k] - x[i][k], hi[i][k] = y[i][k] * 2;
        series[i] = (gp_series_t){str[NFIXED + i], x[i], y[i], band ? lo[i] : NULL,
                                  band ? hi[i] : NULL, n, i, i / 2, panels ? i % 2 : 0,
                                  panels && i % 3 == 2};
    }
    /* Sizes from the flags' top bits: 0 is the default, others 64 to 448 (whole pixels, or
     * hundredths of an inch for PDF). */
    int side = (data[0] >> 5) * 64;
    gp_plot_t p = {.format = (gp_format_t)(data[0] % 3), .logx = data[0] & 4,
                   .logy = data[0] & 8, .width = side, .height = side, .series = series,
                   .nseries = nstr - NFIXED, .npanels = panels ? 2 : 0};
    check(&p, str, len, nstr, series);
    free(text);
    return 0;
}
