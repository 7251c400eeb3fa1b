/* `sgdsim export DB --csv DIR`: writes every table and view of a results database to
 * DIR/<name>.csv (the name encoded so that it stays a file inside DIR) in long format (one row per database row, a header line, RFC 4180 quoting,
 * reals printed exactly with 17 significant digits), for spreadsheets and data frames. */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/outpath.h"
#include "cli/table.h"
#include "cli/text.h"
#include "results/rdb.h"
#include "results/rdb_dump.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: sgdsim export DB --csv DIR\n\n"
               "Writes each table (runs, metrics, traffic, staleness, version_age, tags,\n"
               "artifacts, client_labels) and view (run_summary, finished_runs, params, final_metrics,\n"
               "final_metrics_long) of the results database DB to DIR/<name>.csv (DIR is\n"
               "created if missing; files are replaced whole).  In a name, every byte but\n"
               "A-Z a-z 0-9 _ - is written as %%XX, so a file never leaves DIR.  A file that\n"
               "would be DB or one of SQLite's files beside it is refused before anything is\n"
               "written.  Rows are streamed (memory does not grow with a table's size);\n"
               "SIGINT or SIGTERM stop it between rows, removing the file being written.\n"
               "\nexit codes: 0 ok, 2 bad input\n");
}

/* A table's name is the database's text, never a path: every byte but A-Z a-z 0-9 _ -
 * becomes %XX (so "../x" is "%2E%2E%2Fx", and no two names share a file); false when the
 * file name would be too long for a file system. */
static bool file_name(const char *name, char *out, size_t size)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
        bool plain = (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
                     (*c >= '0' && *c <= '9') || *c == '_' || *c == '-';
        if (n + 4 >= size) return false;
        if (plain) out[n++] = (char)*c;
        else out[n++] = '%', out[n++] = hex[*c >> 4], out[n++] = hex[*c & 15];
    }
    out[n] = '\0';
    return n > 0;
}

/* One table or view and the file it goes to, DIR/<encoded name>.csv. */
typedef struct export_item {
    char *name, *path;
} export_item_t;

/* Set by SIGINT or SIGTERM while export writes: it stops between two rows, removes the
 * file it was writing and keeps the ones it finished (an endless view is written until
 * then, or until the disk is full). */
static volatile sig_atomic_t export_stop;

static void on_stop_signal(int sig)
{
    (void)sig;
    export_stop = 1;
}

/* Why streaming a table's rows ended. */
typedef enum { EXPORT_DONE, EXPORT_SQL_ERROR, EXPORT_WRITE_ERROR, EXPORT_STOPPED } export_end_t;

/* Streams every row of d into f as CSV, holding one row at a time, so memory stays the same
 * whatever the number of rows (a 191 MB database's metrics, an endless view); *nrows counts
 * the rows written. */
static export_end_t export_rows(rdb_dump_t *d, FILE *f, int64_t *nrows, sgd_err_t *err)
{
    int ncols;
    const char *const *head = rdb_dump_head(d, &ncols);
    cli_table_t t;
    cli_table_init(&t, ncols, head);
    cli_table_csv_head(&t, f);
    *nrows = 0;
    export_end_t end = EXPORT_DONE;
    const rdb_cell_t *row;
    int s;
    while ((s = rdb_dump_next(d, &row, err)) > 0) {
        cli_table_clear(&t);
        int r = cli_table_row(&t);
        for (int c = 0; c < ncols; c++) cli_table_cell(&t, r, c, &row[c]);
        cli_table_csv_rows(&t, f);
        ++*nrows;
        if (ferror(f)) {
            end = EXPORT_WRITE_ERROR;
            break;
        }
        if (export_stop) {
            end = EXPORT_STOPPED;
            break;
        }
    }
    if (end == EXPORT_DONE && s < 0) end = EXPORT_SQL_ERROR;
    cli_table_free(&t);
    return end;
}

/* Closes f and puts the file in place when its rows were all written; otherwise removes the
 * temporary file.  The exit code, after a message naming the file (err: the read error). */
static int export_finish(sgd_outfile_t *out, FILE *f, export_end_t end, const sgd_err_t *read_err,
                         const export_item_t *it)
{
    sgd_err_t err = {{0}};
    bool bad = ferror(f) != 0;
    int e = errno;
    if (fclose(f) != 0) bad = true, e = errno;
    if (end == EXPORT_DONE && !bad) {
        if (sgd_outfile_commit(out, true, &err)) return cli_bad_input("export: %s", err.msg);
        return SGD_EXIT_OK;
    }
    sgd_outfile_abort(out, true);
    if (end == EXPORT_SQL_ERROR) return cli_bad_input("export: %s", read_err->msg);
    if (end == EXPORT_STOPPED) {
        fprintf(stderr, "sgdsim: export: stopped by a signal; %s was not written (the files "
                "listed before it were)\n", it->path);
        return SGD_EXIT_FAILURE;
    }
    return cli_bad_input("export: %s: cannot write: %s", it->path, strerror(e));
}

/* Writes one table or view into its file, by way of a temporary file beside it
 * (common/outpath.h): a reader never sees half a file, and nothing planted is followed.  A
 * table that cannot be read, or a write that fails, leaves no file. */
static int export_one(rdb_t *db, const export_item_t *it)
{
    rdb_dump_t *d = NULL;
    sgd_err_t err = {{0}};
    if (rdb_dump_open(db, it->name, &d, &err)) return cli_bad_input("export: %s", err.msg);
    int rc;
    sgd_outfile_t out;
    FILE *f = NULL;
    if (sgd_outfile_open(&out, it->path, &err)) {
        rc = cli_bad_input("export: %s", err.msg);
    } else if (!(f = fdopen(out.fd, "w"))) {
        sgd_outfile_abort(&out, false);
        rc = cli_bad_input("export: %s: cannot write", it->path);
    } else {
        int64_t n = 0;
        export_end_t end = export_rows(d, f, &n, &err);
        rc = export_finish(&out, f, end, &err, it);
        if (rc == SGD_EXIT_OK)
            printf("%s: %lld row%s\n", it->path, (long long)n, n == 1 ? "" : "s");
    }
    rdb_dump_close(d);
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

/* Every table and view but SQLite's own, by name, with its file; 0 or the exit code. */
static int list_items(rdb_t *db, const export_args_t *a, export_item_t **items, int *n)
{
    sgd_err_t err = {{0}};
    char **names = NULL;
    int nnames = 0;
    *items = NULL;
    *n = 0;
    if (rdb_table_names(db, &names, &nnames, &err)) return cli_bad_input("export: %s", err.msg);
    int rc = SGD_EXIT_OK;
    *items = sgd_xcalloc((size_t)nnames + 1, sizeof **items);
    for (int i = 0; i < nnames && rc == SGD_EXIT_OK; i++) {
        char file[208];
        if (!file_name(names[i], file, sizeof file)) {
            char *shown = cli_text_escape(names[i]);
            rc = cli_bad_input("export: %s: a table's name (\"%s\") is too long for a file "
                               "name; nothing was written", a->db_path, shown);
            free(shown);
            break;
        }
        size_t size = strlen(a->dir) + strlen(file) + 6;
        char *path = sgd_xmalloc(size);
        snprintf(path, size, "%s/%s.csv", a->dir, file);
        (*items)[(*n)++] = (export_item_t){sgd_xstrdup(names[i]), path};
    }
    rdb_names_free(names, nnames);
    return rc;
}

/* No file may be the database or one of its companions (common/outpath.h); all are
 * checked before the first is written. */
static int check_items(const export_args_t *a, const export_item_t *items, int n)
{
    sgd_outpath_input_t in = {a->db_path, "the results database DB", true};
    int rc = SGD_EXIT_OK;
    for (int i = 0; i < n && rc == SGD_EXIT_OK; i++)
        rc = cli_outpath_refuse("export", "--csv", items[i].path, false, &in, 1);
    return rc;
}

static int export_all(rdb_t *db, const export_args_t *a)
{
    export_item_t *items;
    int n, rc = list_items(db, a, &items, &n);
    if (rc == SGD_EXIT_OK) rc = check_items(a, items, n);
    if (rc == SGD_EXIT_OK) rc = prepare_dir(a->dir);
    struct sigaction sa = {.sa_handler = on_stop_signal}, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    for (int i = 0; i < n && rc == SGD_EXIT_OK; i++) rc = export_one(db, &items[i]);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    for (int i = 0; i < n; i++) free(items[i].name), free(items[i].path);
    free(items);
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
    if (rdb_dump_check_schema(db, &err)) rc = cli_bad_input("export: %s", err.msg);
    else rc = export_all(db, &a);
    rdb_close(db);
    return rc;
}
