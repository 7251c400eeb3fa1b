/* `sgdsim show DB RUN`: everything the database holds about one run, as text sections (run,
 * configuration, final metrics, staleness, traffic, tags, artifacts).  The database is opened
 * read-only, in any schema this build knows (an older one simply has no tags or artifacts);
 * every statement comes from results/rdb_meta.h. */
#include <stdio.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/table.h"
#include "results/rdb_meta.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: sgdsim show DB RUN\n\n"
               "Prints what the results database DB holds about one run: its record (status,\n"
               "times, digest, provenance), every configuration value (key = the params\n"
               "view's dotted path), each metric's final value, the staleness histogram's\n"
               "summary, message traffic, tags and artifacts.  RUN is a run id, or a prefix\n"
               "(at least 4 hex digits) of a run key: the latest run of that configuration.\n"
               "DB is only read; databases of older sgdsim versions are read as they are.\n\n"
               "exit codes: 0 ok, 2 bad input (not a results database, unknown run)\n");
}

/* The run's record, one line per column. */
static int print_record(rdb_t *db, int64_t run_id, sgd_err_t *err)
{
    sqlite3_stmt *st;
    if (rdb_meta_section(db, RDB_META_RUN, run_id, &st, err)) return -1;
    static const char *const head[] = {"field", "value"};
    cli_table_t t;
    cli_table_init(&t, 2, head);
    int rc = sqlite3_step(st);
    for (int i = 0; rc == SQLITE_ROW && i < sqlite3_column_count(st); i++) {
        int row = cli_table_row(&t);
        cli_table_text(&t, row, 0, sqlite3_column_name(st, i));
        cli_table_sql(&t, row, 1, st, i);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW) {
        cli_table_free(&t);
        return sgd_errf(err, "%s: cannot read run %lld", rdb_path(db), (long long)run_id);
    }
    printf("run %lld\n", (long long)run_id);
    cli_table_print(&t, CLI_FMT_TEXT, stdout);
    cli_table_free(&t);
    return 0;
}

/* One section under its title; "(none)" when it has no rows. */
static int print_section(rdb_t *db, rdb_meta_section_t section, const char *title,
                         int64_t run_id, sgd_err_t *err)
{
    sqlite3_stmt *st;
    if (rdb_meta_section(db, section, run_id, &st, err)) return -1;
    printf("\n%s\n", title);
    if (!st) {
        printf("(none: this database's schema has no such table)\n");
        return 0;
    }
    cli_table_t t;
    int rc = cli_table_from_stmt(&t, st);
    if (rc == SQLITE_DONE && t.nrows == 0) printf("(none)\n");
    else if (rc == SQLITE_DONE) cli_table_print(&t, CLI_FMT_TEXT, stdout);
    cli_table_free(&t);
    if (rc != SQLITE_DONE)
        sgd_errf(err, "%s: cannot read %s: %s", rdb_path(db), title,
                 sqlite3_errmsg(rdb_handle(db)));
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int show_run(rdb_t *db, int64_t run_id, sgd_err_t *err)
{
    static const struct {
        rdb_meta_section_t section;
        const char *title;
    } sections[] = {
        {RDB_META_CONFIG, "configuration"},
        {RDB_META_FINAL, "final metrics"},
        {RDB_META_STALENESS, "staleness"},
        {RDB_META_TRAFFIC, "traffic"},
        {RDB_META_TAGS, "tags"},
        {RDB_META_ARTIFACTS, "artifacts"},
    };
    if (print_record(db, run_id, err)) return -1;
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++)
        if (print_section(db, sections[i].section, sections[i].title, run_id, err)) return -1;
    return 0;
}

int cli_show_main(int argc, char **argv)
{
    static const char *const missing[] = {"DB and RUN", "RUN"};
    cli_cmd_spec_t spec = {.cmd = "show", .npos = 2, .missing = missing};
    const char *pos[2];
    bool help;
    int rc = cli_args_parse_fixed(&spec, argc, argv, pos, &help);
    if (rc == 0 && help) usage(stdout);
    if (rc || help) return rc;
    sgd_err_t err = {{0}};
    rdb_t *db;
    int64_t version, run_id, repeats;
    if (rdb_open_meta_reader(pos[0], &version, &db, &err))
        return cli_bad_input("show: %s", err.msg);
    rc = SGD_EXIT_BAD_INPUT;
    if (rdb_meta_find_run(db, pos[1], &run_id, &repeats, &err) == 0) {
        if (repeats > 1)
            fprintf(stderr, "sgdsim: show: %lld runs have the run key %s...; showing the "
                    "latest, run %lld\n", (long long)repeats, pos[1], (long long)run_id);
        rc = show_run(db, run_id, &err) == 0 ? SGD_EXIT_OK : SGD_EXIT_BAD_INPUT;
    }
    if (rc) cli_bad_input("show: %s", err.msg);
    rdb_close(db);
    return rc;
}
