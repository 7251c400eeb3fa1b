/* `sgdsim show DB RUN`: everything the database holds about one run, as text sections (run,
 * configuration, final metrics, staleness, traffic, tags, artifacts), ending with the
 * command line that ran it.  The database is opened
 * read-only, in any schema this build knows (an older one simply has no tags or artifacts);
 * every statement comes from results/rdb_meta.h, read whole through results/rdb_rows.h.  A run
 * without a clock (analysis/clock.h) shows "no clock (uniform driver)" for its virtual time
 * and images/s. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/clock.h"
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/table.h"
#include "cli/text.h"
#include "results/rdb_meta.h"
#include "results/rdb_rows.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: sgdsim show DB RUN\n\n"
               "Prints what the results database DB holds about one run: its record (status,\n"
               "times, digest, provenance), every configuration value (key = the params\n"
               "view's dotted path), each metric's final value, the staleness histogram's\n"
               "summary, message traffic, tags and artifacts, and last the command line that\n"
               "ran it.  RUN is a run id, or a prefix (at least 4 hex digits) of a run key:\n"
               "the latest run of that configuration.\n"
               "DB is only read; databases of older sgdsim versions are read as they are.\n\n"
               "exit codes: 0 ok, 2 bad input (not a results database, unknown run)\n");
}

/* What show prints instead of a number that would need a clock the run has not
 * (analysis/clock.h): its virtual time, its images/s. */
static bool clockless_field(bool clock, const char *name)
{
    return !clock && (strcmp(name, "vtime_ns") == 0 || strcmp(name, "images_per_s") == 0);
}

/* runs.command_line, the recipe to run the run again (its words are shell-quoted as they
 * were written), shown escaped for the terminal; runs before schema 3 have none.  The last
 * thing show prints, where a reader looks for it (and copies it from). */
static void print_command_line(const char *command_line)
{
    if (!command_line) {
        printf("\ncommand line: not recorded (a run written before schema 3)\n");
        return;
    }
    char *shown = cli_text_escape(command_line);
    printf("\ncommand line:\n  %s\n", shown);
    free(shown);
}

/* The run's record, one line per column; its command line (malloc'ed, NULL when none) into
 * *command_line, which show prints last. */
static int print_record(rdb_t *db, int64_t run_id, bool clock, char **command_line,
                        sgd_err_t *err)
{
    rdb_table_t rec;
    *command_line = NULL;
    if (rdb_meta_table(db, RDB_META_RUN, run_id, &rec, err)) return -1;
    if (rec.nrows != 1) {
        rdb_table_free(&rec);
        return sgd_errf(err, "%s: cannot read run %lld", rdb_path(db), (long long)run_id);
    }
    static const char *const head[] = {"field", "value"};
    cli_table_t t;
    cli_table_init(&t, 2, head);
    for (int i = 0; i < rec.ncols; i++) {
        if (strcmp(rec.head[i], "command_line") == 0) { /* long: printed on its own, last */
            if (rec.cell[i].kind == RDB_CELL_TEXT) *command_line = sgd_xstrdup(rec.cell[i].text);
            continue;
        }
        int row = cli_table_row(&t);
        cli_table_text(&t, row, 0, rec.head[i]);
        if (clockless_field(clock, rec.head[i])) cli_table_text(&t, row, 1, ANA_NO_CLOCK_TEXT);
        else cli_table_cell(&t, row, 1, &rec.cell[i]);
    }
    printf("run %lld\n", (long long)run_id);
    cli_table_print(&t, CLI_FMT_TEXT, stdout);
    cli_table_free(&t);
    rdb_table_free(&rec);
    return 0;
}

/* A section's rows as a table; a row whose first cell names a clockless field (the final
 * images_per_s of a run without a clock) says so instead of its values. */
static void section_table(const rdb_table_t *s, bool clock, cli_table_t *t)
{
    cli_table_init(t, s->ncols, (const char *const *)s->head);
    for (int r = 0; r < s->nrows; r++) {
        const rdb_cell_t *row = &s->cell[(size_t)r * (size_t)s->ncols];
        bool no_clock = row[0].kind == RDB_CELL_TEXT && clockless_field(clock, row[0].text);
        int tr = cli_table_row(t);
        for (int c = 0; c < s->ncols; c++)
            if (no_clock && c == s->ncols - 1) cli_table_text(t, tr, c, ANA_NO_CLOCK_TEXT);
            else cli_table_cell(t, tr, c, &row[c]);
    }
}

/* One section under its title; "(none)" when it has no rows. */
static int print_section(rdb_t *db, rdb_meta_section_t section, const char *title,
                         int64_t run_id, bool clock, sgd_err_t *err)
{
    rdb_table_t s;
    if (rdb_meta_table(db, section, run_id, &s, err)) {
        sgd_err_prefix(err, title);
        return -1;
    }
    printf("\n%s\n", title);
    if (s.absent) printf("(none: this database's schema has no such table)\n");
    else if (s.nrows == 0) printf("(none)\n");
    else {
        cli_table_t t;
        section_table(&s, clock, &t);
        cli_table_print(&t, CLI_FMT_TEXT, stdout);
        cli_table_free(&t);
    }
    rdb_table_free(&s);
    return 0;
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
    char *config;
    if (rdb_run_config(db, run_id, &config, err)) return -1;
    bool clock = ana_config_has_clock(config);
    free(config);
    char *command_line = NULL;
    if (print_record(db, run_id, clock, &command_line, err)) return -1;
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++)
        if (print_section(db, sections[i].section, sections[i].title, run_id, clock, err)) {
            free(command_line);
            return -1;
        }
    print_command_line(command_line);
    free(command_line);
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
