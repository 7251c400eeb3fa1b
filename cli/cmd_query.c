/* `sgdsim query DB "SQL" [--csv|--json]`: runs SQL against a results database opened
 * read-only and prints the rows as an aligned table (default), CSV or JSON.  Statements
 * that would write are refused before they run (sqlite3_stmt_readonly), and the connection
 * itself is read-only, so a query can never change a database. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/table.h"
#include "results/rdb.h"
#include "results/rdb_read.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: sgdsim query DB \"SQL\" [--csv | --json]\n\n"
               "Runs SQL (one or more statements separated by ';') on the results database DB\n"
               "opened read-only, and prints each statement's rows: an aligned table by\n"
               "default, CSV with a header line, or a JSON array of objects.  The schema is\n"
               "documented in docs/results.md; e.g.\n"
               "  sgdsim query sgdsim.db \"" RDB_EXAMPLE_QUERY "\"\n\n"
               "exit codes: 0 ok, 2 bad input (not a results database, SQL error, a statement\n"
               "that would write)\n");
}

/* "DB SQL [--csv|--json]"; 0, or the exit code (with --help: after the usage text). */
static int parse_query_args(int argc, char **argv, const char **pos, int *fmt, bool *help)
{
    static const char *const missing[] = {"DB", "an argument"};
    *fmt = CLI_FMT_TEXT;
    cli_opt_set_t sets[] = {{cli_format_opts, fmt, 0}};
    cli_cmd_spec_t spec = {.cmd = "query", .npos = 2, .missing = missing, .sets = sets,
                           .nsets = 1};
    int rc = cli_args_parse_fixed(&spec, argc, argv, pos, help);
    if (rc == 0 && *help) usage(stdout);
    return rc;
}

/* ---- a statement's rows as a table (the one place in cli/ that reads SQLite itself) ---- */

/* Column i of st's current row into the cell, with its SQLite type. */
static void table_cell_of(cli_table_t *t, int row, int col, sqlite3_stmt *st, int i)
{
    switch (sqlite3_column_type(st, i)) {
    case SQLITE_NULL: cli_table_text(t, row, col, NULL); break;
    case SQLITE_INTEGER: cli_table_int(t, row, col, sqlite3_column_int64(st, i)); break;
    case SQLITE_FLOAT: cli_table_stored_real(t, row, col, sqlite3_column_double(st, i)); break;
    case SQLITE_BLOB: {
        char buf[64];
        int bytes = sqlite3_column_bytes(st, i);
        snprintf(buf, sizeof buf, "<blob, %d byte%s>", bytes, bytes == 1 ? "" : "s");
        cli_table_text(t, row, col, buf);
        break;
    }
    default: cli_table_text(t, row, col, (const char *)sqlite3_column_text(st, i)); break;
    }
}

/* t with st's column names and no rows. */
static void table_init_stmt(cli_table_t *t, sqlite3_stmt *st)
{
    int ncols = sqlite3_column_count(st);
    const char **head = sgd_xcalloc((size_t)ncols + 1, sizeof *head);
    for (int c = 0; c < ncols; c++) head[c] = sqlite3_column_name(st, c);
    cli_table_init(t, ncols, head);
    free(head);
}

/* t with st's column names and every row st yields; the last sqlite3_step() code
 * (SQLITE_DONE on success).  The caller frees t and finalizes st. */
static int table_from_stmt(cli_table_t *t, sqlite3_stmt *st)
{
    table_init_stmt(t, st);
    int ncols = t->ncols;
    int s;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) {
        int r = cli_table_row(t);
        for (int c = 0; c < ncols; c++) table_cell_of(t, r, c, st, c);
    }
    return s;
}

static int refuse_write(const char *db_path, sqlite3_stmt *st)
{
    return cli_bad_input("query: %s: refusing a statement that writes (query opens the "
                         "database read-only; use sqlite3 to change it): %.200s", db_path,
                         sqlite3_sql(st));
}

/* Checks every statement before running any, so "SELECT ...; DELETE ..." prints nothing
 * and is refused as a whole. */
static int check_readonly(sqlite3 *h, const char *db_path, const char *sql)
{
    int rc = SGD_EXIT_OK;
    const char *tail = NULL;
    for (const char *p = sql; p && *p && rc == SGD_EXIT_OK; p = tail) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(h, p, -1, &st, &tail) != SQLITE_OK)
            rc = cli_bad_input("query: %s: SQL error: %s", db_path, sqlite3_errmsg(h));
        else if (st && !sqlite3_stmt_readonly(st))
            rc = refuse_write(db_path, st);
        sqlite3_finalize(st);
    }
    return rc;
}

/* Runs each statement and prints its rows, a blank line between tables in text. */
static int run_statements(sqlite3 *h, const char *db_path, const char *sql, cli_format_t fmt)
{
    int rc = SGD_EXIT_OK, nstmt = 0;
    const char *tail = NULL;
    while (rc == SGD_EXIT_OK && sql && *sql) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(h, sql, -1, &st, &tail) != SQLITE_OK)
            return cli_bad_input("query: %s: SQL error: %s", db_path, sqlite3_errmsg(h));
        sql = tail;
        if (!st) continue; /* whitespace or a comment */
        if (!sqlite3_stmt_readonly(st)) {
            rc = refuse_write(db_path, st);
            sqlite3_finalize(st);
            break;
        }
        cli_table_t t;
        int s = table_from_stmt(&t, st);
        if (s != SQLITE_DONE) {
            rc = cli_bad_input("query: %s: SQL error: %s", db_path, sqlite3_errmsg(h));
        } else if (sqlite3_column_count(st) > 0) {
            if (nstmt++ && fmt == CLI_FMT_TEXT) putchar('\n');
            cli_table_print(&t, fmt, stdout);
        }
        cli_table_free(&t);
        sqlite3_finalize(st);
    }
    return rc;
}

int cli_query_main(int argc, char **argv)
{
    const char *pos[2];
    int fmt;
    bool help;
    int rc = parse_query_args(argc, argv, pos, &fmt, &help);
    if (rc || help) return rc;
    sgd_err_t err = {{0}};
    rdb_t *db;
    if (rdb_open_readonly(pos[0], &db, &err)) return cli_bad_input("query: %s", err.msg);
    rc = check_readonly(rdb_handle(db), pos[0], pos[1]);
    if (rc == SGD_EXIT_OK) rc = run_statements(rdb_handle(db), pos[0], pos[1], (cli_format_t)fmt);
    rdb_close(db);
    return rc;
}
