/* `sgdsim export DB --csv DIR`: writes every table and view of a results database to
 * DIR/<name>.csv in long format (one row per database row, a header line, RFC 4180 quoting,
 * reals printed exactly with 17 significant digits), for spreadsheets and data frames. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/table.h"
#include "results/rdb.h"
#include "results/rdb_read.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: sgdsim export DB --csv DIR\n\n"
               "Writes each table (runs, metrics, traffic, staleness, version_age, tags,\n"
               "artifacts) and view (run_summary, finished_runs, params, final_metrics,\n"
               "final_metrics_long) of the results database DB to DIR/<name>.csv (DIR is\n"
               "created if missing; files are replaced whole).\n\nexit codes: 0 ok, 2 bad input\n");
}

static int export_one(rdb_t *db, const char *db_path, const char *name, const char *dir)
{
    char path[4096], tmp[4200];
    sqlite3_stmt *st = NULL;
    sgd_err_t err = {{0}};
    if (rdb_read_prepare_all(db, name, &st, &err))
        return cli_bad_input("export: %s", err.msg);
    cli_table_t t;
    int s = cli_table_from_stmt(&t, st);
    int rc = SGD_EXIT_OK;
    if (s != SQLITE_DONE) {
        rc = cli_bad_input("export: %s: %s: %s", db_path, name,
                           sqlite3_errmsg(sqlite3_db_handle(st)));
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
    printf("%s: %d row%s\n", path, t.nrows, t.nrows == 1 ? "" : "s");
out:
    cli_table_free(&t);
    sqlite3_finalize(st);
    return rc;
}

typedef struct export_args {
    const char *db_path;
    const char *dir; /* --csv DIR */
} export_args_t;

static const cli_opt_t export_opts[] = {
    {.name = "--csv", .kind = CLI_ARG_STRING, .off = offsetof(export_args_t, dir),
     .metavar = "DIR", .flags = CLI_ARG_REQUIRED},
    {.name = NULL},
};

/* "DB --csv DIR"; 0, or the exit code (with --help: after the usage text). */
static int parse_export_args(int argc, char **argv, export_args_t *a, bool *help)
{
    static const char *const missing[] = {"DB"};
    *a = (export_args_t){0};
    cli_opt_set_t sets[] = {{export_opts, a, 0}};
    cli_cmd_spec_t spec = {.cmd = "export", .npos = 1, .missing = missing, .sets = sets,
                           .nsets = 1};
    int rc = cli_args_parse_fixed(&spec, argc, argv, &a->db_path, help);
    if (rc == 0 && *help) usage(stdout);
    return rc;
}

/* DIR exists as a directory afterwards, or the exit code after the message. */
static int prepare_dir(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        if (mkdir(dir, 0777) != 0)
            return cli_bad_input("export: %s: cannot create: %s", dir, strerror(errno));
    } else if (!S_ISDIR(st.st_mode)) {
        return cli_bad_input("export: %s: not a directory", dir);
    }
    return SGD_EXIT_OK;
}

/* Every table and view but SQLite's own, by name. */
static int export_all(rdb_t *db, const export_args_t *a)
{
    sqlite3_stmt *list = NULL;
    sgd_err_t err = {{0}};
    int rc = SGD_EXIT_OK;
    if (rdb_read_prepare(db, RDB_Q_TABLES, &list, &err))
        rc = cli_bad_input("export: %s", err.msg);
    while (rc == SGD_EXIT_OK && sqlite3_step(list) == SQLITE_ROW) {
        char name[128];
        snprintf(name, sizeof name, "%s", (const char *)sqlite3_column_text(list, 0));
        rc = export_one(db, a->db_path, name, a->dir);
    }
    sqlite3_finalize(list);
    return rc;
}

int cli_export_main(int argc, char **argv)
{
    export_args_t a;
    bool help;
    int rc = parse_export_args(argc, argv, &a, &help);
    if (rc || help) return rc;
    sgd_err_t err = {{0}};
    rdb_t *db;
    if (rdb_open_readonly(a.db_path, &db, &err)) return cli_bad_input("export: %s", err.msg);
    rc = prepare_dir(a.dir);
    if (rc == SGD_EXIT_OK) rc = export_all(db, &a);
    rdb_close(db);
    return rc;
}
