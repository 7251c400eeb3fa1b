/* `sgdsim export DB --csv DIR`: writes every table and view of a results database to
 * DIR/<name>.csv in long format (one row per database row, a header line, RFC 4180 quoting,
 * reals printed exactly with 17 significant digits), for spreadsheets and data frames. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/table.h"
#include "results/rdb.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: sgdsim export DB --csv DIR\n\n"
               "Writes each table (runs, metrics, traffic, staleness) and view (run_summary) of\n"
               "the results database DB to DIR/<name>.csv (DIR is created if missing; files\n"
               "are replaced whole).\n\nexit codes: 0 ok, 2 bad input\n");
}

static int export_one(sqlite3 *h, const char *db_path, const char *name, const char *dir)
{
    char sql[256], path[4096], tmp[4200];
    snprintf(sql, sizeof sql, "SELECT * FROM \"%s\"", name);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
        return cli_bad_input("export: %s: %s: %s", db_path, name, sqlite3_errmsg(h));
    cli_table_t t;
    int s = cli_table_from_stmt(&t, st);
    int rc = SGD_EXIT_OK;
    if (s != SQLITE_DONE) {
        rc = cli_bad_input("export: %s: %s: %s", db_path, name, sqlite3_errmsg(h));
        goto out;
    }
    /* Written beside the final name and renamed: a reader never sees half a file. */
    snprintf(path, sizeof path, "%s/%s.csv", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        rc = cli_bad_input("export: %s: cannot write: %s", tmp, strerror(errno));
        goto out;
    }
    cli_table_print(&t, CLI_FMT_CSV, f);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        rc = cli_bad_input("export: %s: cannot write: %s", path, strerror(errno));
        remove(tmp);
        goto out;
    }
    printf("%s: %d rows\n", path, t.nrows);
out:
    cli_table_free(&t);
    sqlite3_finalize(st);
    return rc;
}

int cli_export_main(int argc, char **argv)
{
    const char *db_path = NULL, *dir = NULL;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return SGD_EXIT_OK;
        } else if (strcmp(argv[i], "--csv") == 0) {
            if (i + 1 >= argc) return cli_bad_input("export: --csv: missing DIR");
            dir = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_bad_input("export: unknown option %s (see sgdsim export --help)", argv[i]);
        } else if (db_path) {
            return cli_bad_input("export: unexpected argument %s", argv[i]);
        } else {
            db_path = argv[i];
        }
    }
    if (!db_path || !dir) return cli_bad_input("export: usage: sgdsim export DB --csv DIR");
    sgd_err_t err = {{0}};
    rdb_t *db;
    if (rdb_open_readonly(db_path, &db, &err)) return cli_bad_input("export: %s", err.msg);
    struct stat st;
    int rc = SGD_EXIT_OK;
    if (stat(dir, &st) != 0) {
        if (mkdir(dir, 0777) != 0) rc = cli_bad_input("export: %s: cannot create: %s", dir,
                                                      strerror(errno));
    } else if (!S_ISDIR(st.st_mode)) {
        rc = cli_bad_input("export: %s: not a directory", dir);
    }
    sqlite3 *h = rdb_handle(db);
    sqlite3_stmt *list = NULL;
    if (rc == SGD_EXIT_OK &&
        sqlite3_prepare_v2(h, "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view')"
                              " AND name NOT LIKE 'sqlite_%' ORDER BY name", -1, &list,
                           NULL) != SQLITE_OK)
        rc = cli_bad_input("export: %s: %s", db_path, sqlite3_errmsg(h));
    while (rc == SGD_EXIT_OK && sqlite3_step(list) == SQLITE_ROW) {
        char name[128];
        snprintf(name, sizeof name, "%s", (const char *)sqlite3_column_text(list, 0));
        rc = export_one(h, db_path, name, dir);
    }
    sqlite3_finalize(list);
    rdb_close(db);
    return rc;
}
