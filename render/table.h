/* Result tables for the reading subcommands (query, report, compare): rows of typed cells
 * collected first, then printed as an aligned text table, CSV (RFC 4180) or JSON (an array
 * of objects), so every command offers the same three formats with the same quoting.
 *
 * Text from a database is whatever its writer put there.  The aligned table is for a
 * terminal: control characters in headers and cells are shown escaped (\x1b, \n, \t; see
 * render/text.h), never sent raw.  CSV and JSON are for programs and stay faithful: CSV keeps
 * every byte, quoting fields that hold a comma, a quote or a line break; JSON escapes what
 * RFC 8259 requires and control characters (DEL and U+0080..U+009F included), and writes
 * bytes that are not UTF-8, which JSON cannot hold, as U+FFFD.
 *
 * Ownership: rnd_table_init/rnd_table_free on a caller-allocated table; cells are copied. */
#ifndef SGDSIM_RENDER_TABLE_H
#define SGDSIM_RENDER_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "results/rdb_rows.h"

typedef enum { RND_FMT_TEXT, RND_FMT_CSV, RND_FMT_JSON } rnd_format_t;
/* RND_CELL_LITERAL: a JSON literal other than a string (an exact number, true, false),
 * printed as it is in every format. */
typedef enum {
    RND_CELL_NULL, RND_CELL_INT, RND_CELL_REAL, RND_CELL_TEXT, RND_CELL_LITERAL
} rnd_cell_kind_t;

typedef struct rnd_cell {
    rnd_cell_kind_t kind;
    char *text; /* printed form (owned); NULL for RND_CELL_NULL */
} rnd_cell_t;

typedef struct rnd_table {
    int ncols;
    char **head;      /* ncols column names (owned) */
    rnd_cell_t *cells; /* nrows x ncols, row-major */
    int nrows, caprows;
} rnd_table_t;

void rnd_table_init(rnd_table_t *t, int ncols, const char *const *head);
void rnd_table_free(rnd_table_t *t);

/* Drops every row (the columns and the memory for rows stay): a caller streaming rows keeps
 * one row at a time. */
void rnd_table_clear(rnd_table_t *t);

/* Keeps the first ncols columns (1 <= ncols <= t->ncols), their headers and cells; the
 * rest are freed. */
void rnd_table_keep_cols(rnd_table_t *t, int ncols);

/* Appends an empty row and returns its index; cells are then set with the setters. */
int rnd_table_row(rnd_table_t *t);
void rnd_table_text(rnd_table_t *t, int row, int col, const char *s); /* NULL -> null cell */
void rnd_table_int(rnd_table_t *t, int row, int col, int64_t v);
/* Reals print with %.6g in text tables and exactly in CSV and JSON, as the shortest text
 * that reads back as the same double (common/number.h: 0.32, not 0.32000000000000001);
 * non-finite values, which the callers compute for "no value", become null cells (empty in
 * CSV, null in JSON, NULL in a text table). */
void rnd_table_real(rnd_table_t *t, int row, int col, double v);
/* A REAL as a database holds it: as rnd_table_real, but an infinity (SQLite stores them;
 * NaN it stores as NULL) is the text "inf" or "-inf", as the results database's nonfinite
 * column spells it: a string in JSON, which has no such number. */
void rnd_table_stored_real(rnd_table_t *t, int row, int col, double v);
/* A JSON literal other than a string: an exact number, true or false (right-aligned in a
 * text table when it is a number). */
void rnd_table_literal(rnd_table_t *t, int row, int col, const char *json);
/* A cell read from a results database (results/rdb_rows.h), with its type. */
void rnd_table_cell(rnd_table_t *t, int row, int col, const rdb_cell_t *c);

/* CSV in two parts, for callers that stream rows (export): the header line, then the rows
 * t holds; rnd_table_print(.., RND_FMT_CSV, ..) is the two in a row. */
void rnd_table_csv_head(const rnd_table_t *t, FILE *f);
void rnd_table_csv_rows(const rnd_table_t *t, FILE *f);

void rnd_table_print(const rnd_table_t *t, rnd_format_t fmt, FILE *f);

/* The aligned text table with lines of at most max_width characters where it can: the
 * widest text columns are cut, each cut cell ending in an ellipsis ("\u2026"); numbers
 * (also in a column that holds text), headers and columns of 8 characters or fewer are never
 * cut, so lines may stay longer. */
void rnd_table_print_fitted(const rnd_table_t *t, int max_width, FILE *f);

/* How wide rnd_table_print_fitted's lines are, in characters, for that max_width. */
int rnd_table_fitted_width(const rnd_table_t *t, int max_width);

#endif
