/* `sgdsim diff DB RUN_A RUN_B [--csv|--json]`: the configuration keys whose values differ
 * between two runs of one database, with both values.  Read-only, any schema this build
 * knows; the rows come from results/rdb_rows.h (rdb_config_diff). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "render/table.h"
#include "common/error.h"
#include "results/rdb_meta.h"
#include "results/rdb_rows.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: sgdsim diff DB RUN_A RUN_B [--csv | --json]\n\n"
               "Prints every configuration key (the params view's dotted path, e.g.\n"
               "cluster.workers or model.hidden[0]) whose value differs between two runs of\n"
               "the results database DB, or that only one of them has (NULL on the other\n"
               "side), with both values under columns named after the runs (\"run 12\"):\n"
               "numbers exact, strings in double quotes in the text table, so \"4\" and 4\n"
               "differ; --csv and --json keep each value's type.  RUN is a run id, or a prefix (at least 4 hex digits) of a run key: the\n"
               "latest run of that configuration.  DB is only read.\n\n"
               "exit codes: 0 ok (whether or not anything differs), 2 bad input (not a results\n"
               "database, unknown run)\n");
}

/* "DB RUN_A RUN_B [--csv|--json]"; 0, or the exit code (with --help: after the usage). */
static int parse_diff_args(int argc, char **argv, const char **pos, int *fmt, bool *help)
{
    static const char *const missing[] = {"DB, RUN_A and RUN_B", "RUN_A and RUN_B", "RUN_B"};
    *fmt = RND_FMT_TEXT;
    cli_opt_set_t sets[] = {{cli_format_opts, fmt, 0}};
    cli_cmd_spec_t spec = {.cmd = "diff", .npos = 3, .missing = missing, .sets = sets,
                           .nsets = 1};
    int rc = cli_args_parse_fixed(&spec, argc, argv, pos, help);
    if (rc == 0 && *help) usage(stdout);
    return rc;
}

/* Resolves RUN_A and RUN_B; -1 naming the one not found. */
static int find_runs(rdb_t *db, const char *const *which, int64_t *ids, sgd_err_t *err)
{
    for (int i = 0; i < 2; i++) {
        int64_t repeats;
        if (rdb_meta_find_run(db, which[i], &ids[i], &repeats, err)) return -1;
        if (repeats > 1)
            fprintf(stderr, "sgdsim: diff: %lld runs have the run key %s...; using the "
                    "latest, run %lld\n", (long long)repeats, which[i], (long long)ids[i]);
    }
    return 0;
}

/* One side's value.  The text table shows strings in double quotes, so "4" and 4 differ at
 * a glance; CSV and JSON keep every value with its type. */
static void value_cell(rnd_table_t *t, int row, int col, const rdb_cell_t *c, rnd_format_t fmt)
{
    if (c->kind != RDB_CELL_TEXT || fmt != RND_FMT_TEXT) {
        rnd_table_cell(t, row, col, c);
        return;
    }
    size_t n = strlen(c->text) + 3;
    char *quoted = sgd_xmalloc(n);
    snprintf(quoted, n, "\"%s\"", c->text);
    rnd_table_text(t, row, col, quoted);
    free(quoted);
}

static int print_diff(rdb_t *db, const int64_t *ids, rnd_format_t fmt, sgd_err_t *err)
{
    rdb_table_t d;
    if (rdb_config_diff(db, ids[0], ids[1], &d, err)) return -1;
    if (d.nrows == 0 && fmt == RND_FMT_TEXT) {
        printf("runs %lld and %lld have the same configuration\n", (long long)ids[0],
               (long long)ids[1]);
        rdb_table_free(&d);
        return 0;
    }
    rnd_table_t t;
    rnd_table_init(&t, d.ncols, (const char *const *)d.head);
    for (int r = 0; r < d.nrows; r++) {
        const rdb_cell_t *row = &d.cell[(size_t)r * (size_t)d.ncols];
        int tr = rnd_table_row(&t);
        rnd_table_text(&t, tr, 0, row[0].text);
        for (int c = 1; c < d.ncols; c++) value_cell(&t, tr, c, &row[c], fmt);
    }
    rnd_table_print(&t, fmt, stdout);
    rnd_table_free(&t);
    rdb_table_free(&d);
    return 0;
}

int cli_diff_main(int argc, char **argv)
{
    const char *pos[3];
    int fmt;
    bool help;
    int rc = parse_diff_args(argc, argv, pos, &fmt, &help);
    if (rc || help) return rc;
    sgd_err_t err = {{0}};
    rdb_t *db;
    int64_t version, ids[2];
    if (rdb_open_meta_reader(pos[0], &version, &db, &err))
        return cli_bad_input("diff: %s", err.msg);
    rc = SGD_EXIT_OK;
    if (find_runs(db, pos + 1, ids, &err) || print_diff(db, ids, (rnd_format_t)fmt, &err))
        rc = cli_bad_input("diff: %s", err.msg);
    rdb_close(db);
    return rc;
}
