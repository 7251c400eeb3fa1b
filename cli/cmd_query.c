/* `sgdsim query DB "SQL" [--csv|--json]`: runs SQL against a results database opened
 * read-only and prints the rows as an aligned table (default), CSV or JSON.  Statements
 * that would write are refused before they run (sqlite3_stmt_readonly), and the connection
 * itself is read-only, so a query can never change a database. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/table.h"
#include "results/rdb.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: sgdsim query DB \"SQL\" [--csv | --json]\n\n"
               "Runs SQL (one or more statements separated by ';') on the results database DB\n"
               "opened read-only, and prints each statement's rows: an aligned table by\n"
               "default, CSV with a header line, or a JSON array of objects.  The schema is\n"
               "documented in docs/results.md; e.g.\n"
               "  sgdsim query sgdsim.db \"SELECT * FROM run_summary\"\n\n"
               "exit codes: 0 ok, 2 bad input (not a results database, SQL error, a statement\n"
               "that would write)\n");
}

/* Parses the shared "DB [ARG] [--csv|--json]" command line of the reading commands. */
int cli_parse_reader_args(const char *cmd, int argc, char **argv, int npos, const char **pos,
                          cli_format_t *fmt, bool *help)
{
    int n = 0;
    *fmt = CLI_FMT_TEXT;
    *help = false;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            *help = true;
            return 0;
        } else if (strcmp(a, "--csv") == 0) {
            *fmt = CLI_FMT_CSV;
        } else if (strcmp(a, "--json") == 0) {
            *fmt = CLI_FMT_JSON;
        } else if (a[0] == '-' && a[1]) {
            return cli_bad_input("%s: unknown option %s (see sgdsim %s --help)", cmd, a, cmd);
        } else if (n == npos) {
            return cli_bad_input("%s: unexpected argument %s (see sgdsim %s --help)", cmd, a, cmd);
        } else {
            pos[n++] = a;
        }
    }
    if (n < npos) return cli_bad_input("%s: missing %s (see sgdsim %s --help)", cmd,
                                       n == 0 ? "DB" : "an argument", cmd);
    return 0;
}

int cli_query_main(int argc, char **argv)
{
    const char *pos[2];
    cli_format_t fmt;
    bool help;
    int rc = cli_parse_reader_args("query", argc, argv, 2, pos, &fmt, &help);
    if (rc || help) {
        if (help) usage(stdout);
        return rc;
    }
    sgd_err_t err = {{0}};
    rdb_t *db;
    if (rdb_open_readonly(pos[0], &db, &err)) return cli_bad_input("query: %s", err.msg);
    sqlite3 *h = rdb_handle(db);
    const char *sql = pos[1], *tail = NULL;
    int nstmt = 0;
    rc = SGD_EXIT_OK;
    /* Check every statement before running any, so "SELECT ...; DELETE ..." prints nothing
     * and is refused as a whole. */
    for (const char *p = sql; p && *p && rc == SGD_EXIT_OK; p = tail) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(h, p, -1, &st, &tail) != SQLITE_OK)
            rc = cli_bad_input("query: %s: SQL error: %s", pos[0], sqlite3_errmsg(h));
        else if (st && !sqlite3_stmt_readonly(st))
            rc = cli_bad_input("query: %s: refusing a statement that writes (query opens the "
                               "database read-only; use sqlite3 to change it): %.200s",
                               pos[0], sqlite3_sql(st));
        sqlite3_finalize(st);
    }
    while (rc == SGD_EXIT_OK && sql && *sql) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(h, sql, -1, &st, &tail) != SQLITE_OK) {
            rc = cli_bad_input("query: %s: SQL error: %s", pos[0], sqlite3_errmsg(h));
            break;
        }
        sql = tail;
        if (!st) continue; /* whitespace or a comment */
        if (!sqlite3_stmt_readonly(st)) {
            rc = cli_bad_input("query: %s: refusing a statement that writes (query opens the "
                               "database read-only; use sqlite3 to change it): %.200s",
                               pos[0], sqlite3_sql(st));
            sqlite3_finalize(st);
            break;
        }
        cli_table_t t;
        int s = cli_table_from_stmt(&t, st);
        int ncols = sqlite3_column_count(st);
        if (s != SQLITE_DONE) {
            rc = cli_bad_input("query: %s: SQL error: %s", pos[0], sqlite3_errmsg(h));
        } else if (ncols > 0) {
            if (nstmt++ && fmt == CLI_FMT_TEXT) putchar('\n');
            cli_table_print(&t, fmt, stdout);
        }
        cli_table_free(&t);
        sqlite3_finalize(st);
        if (rc) break;
    }
    rdb_close(db);
    return rc;
}
