/* Result tables for the reading subcommands (query, report, compare): rows of typed cells
 * collected first, then printed as an aligned text table, CSV (RFC 4180) or JSON (an array
 * of objects), so every command offers the same three formats with the same quoting.
 *
 * Text from a database is whatever its writer put there.  The aligned table is for a
 * terminal: control characters in headers and cells are shown escaped (\x1b, \n, \t; see
 * cli/text.h), never sent raw.  CSV and JSON are for programs and stay faithful: CSV keeps
 * every byte, quoting fields that hold a comma, a quote or a line break; JSON escapes what
 * RFC 8259 requires and control characters (DEL and U+0080..U+009F included), and writes
 * bytes that are not UTF-8, which JSON cannot hold, as U+FFFD.
 *
 * Ownership: cli_table_init/cli_table_free on a caller-allocated table; cells are copied. */
#ifndef SGDSIM_CLI_TABLE_H
#define SGDSIM_CLI_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "results/rdb_rows.h"

typedef enum { CLI_FMT_TEXT, CLI_FMT_CSV, CLI_FMT_JSON } cli_format_t;
/* CLI_CELL_LITERAL: a JSON literal other than a string (an exact number, true, false),
 * printed as it is in every format. */
typedef enum {
    CLI_CELL_NULL, CLI_CELL_INT, CLI_CELL_REAL, CLI_CELL_TEXT, CLI_CELL_LITERAL
} cli_cell_kind_t;

typedef struct cli_cell {
    cli_cell_kind_t kind;
    char *text; /* printed form (owned); NULL for CLI_CELL_NULL */
} cli_cell_t;

typedef struct cli_table {
    int ncols;
    char **head;      /* ncols column names (owned) */
    cli_cell_t *cells; /* nrows x ncols, row-major */
    int nrows, caprows;
} cli_table_t;

void cli_table_init(cli_table_t *t, int ncols, const char *const *head);
void cli_table_free(cli_table_t *t);

/* Drops every row (the columns and the memory for rows stay): a caller streaming rows keeps
 * one row at a time. */
void cli_table_clear(cli_table_t *t);

/* Appends an empty row and returns its index; cells are then set with the setters. */
int cli_table_row(cli_table_t *t);
void cli_table_text(cli_table_t *t, int row, int col, const char *s); /* NULL -> null cell */
void cli_table_int(cli_table_t *t, int row, int col, int64_t v);
/* Reals print with %.6g in text tables and exactly in CSV and JSON, as the shortest text
 * that reads back as the same double (common/number.h: 0.32, not 0.32000000000000001);
 * non-finite values, which the callers compute for "no value", become null cells (empty in
 * CSV, null in JSON, NULL in a text table). */
void cli_table_real(cli_table_t *t, int row, int col, double v);
/* A REAL as a database holds it: as cli_table_real, but an infinity (SQLite stores them;
 * NaN it stores as NULL) is the text "inf" or "-inf", as the results database's nonfinite
 * column spells it: a string in JSON, which has no such number. */
void cli_table_stored_real(cli_table_t *t, int row, int col, double v);
/* A JSON literal other than a string: an exact number, true or false (right-aligned in a
 * text table when it is a number). */
void cli_table_literal(cli_table_t *t, int row, int col, const char *json);
/* A cell read from a results database (results/rdb_rows.h), with its type. */
void cli_table_cell(cli_table_t *t, int row, int col, const rdb_cell_t *c);

/* CSV in two parts, for callers that stream rows (export): the header line, then the rows
 * t holds; cli_table_print(.., CLI_FMT_CSV, ..) is the two in a row. */
void cli_table_csv_head(const cli_table_t *t, FILE *f);
void cli_table_csv_rows(const cli_table_t *t, FILE *f);

void cli_table_print(const cli_table_t *t, cli_format_t fmt, FILE *f);

/* The aligned text table with lines of at most max_width characters where it can: the
 * widest text columns are cut, each cut cell ending in an ellipsis ("\u2026"); numbers,
 * headers and columns of 8 characters or fewer are never cut. */
void cli_table_print_fitted(const cli_table_t *t, int max_width, FILE *f);

#endif
