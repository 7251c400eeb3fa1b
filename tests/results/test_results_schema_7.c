/* Schema 7: runs.has_clock, written from rdb_run_info_t.no_clock; a schema 6 database (this
 * build's file with schema 7 taken out) is read as it is by a read-only reader (has_clock not
 * recorded) and migrated by opening it for writing -- every old run's has_clock from its
 * configuration's driver, no other row changed, final_metrics' named columns as before and
 * final_json beside them, holding every metric's last value whatever its name (one no named
 * column has, a non-finite one as null); merge of a schema 6 input leaves has_clock not
 * recorded. */
#include "results/rdb.h"
#include "results/rdb_internal.h"
#include "results/rdb_merge.h"
#include "results/rdb_rows.h"

#include <math.h>

#include "tests/check.h"
#include "tests/results/rdb_test_util.h"

#define ROWS_SIGNATURE                                                                        \
    "SELECT (SELECT group_concat(run_id || name || update_idx || quote(value)) FROM metrics)" \
    " || (SELECT group_concat(id || run_key || config_json) FROM runs)"

/* Four complete runs: a parameter-server run of the uniform driver (no clock), one timed, a
 * synchronous one, and one whose configuration is not JSON; each with metrics. */
static void write_runs(const char *path)
{
    static const struct {
        const char *key, *config;
        bool no_clock;
    } runs[] = {
        {"u", "{\"algorithm\":{\"name\":\"b-fasgd\",\"driver\":\"uniform\"}}", true},
        {"t", "{\"algorithm\":{\"name\":\"dc-asgd\",\"driver\":\"timed\"}}", false},
        {"c", "{\"algorithm\":{\"name\":\"csgd\"}}", false},
        {"x", "not json", false},
    };
    rdb_t *db = NULL;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(rdb_open(path, &db, &err), 0);
    for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
        int64_t id = 0;
        rdb_run_info_t info = {.run_key = runs[i].key, .scenario_name = "s", .host = "h",
                               .config_json = runs[i].config, .no_clock = runs[i].no_clock};
        rdb_run_end_t end = {.status = "complete", .digest = "d"};
        CHECK_INT_EQ(rdb_run_begin(db, &info, &id, &err), 0);
        CHECK_INT_EQ(rdb_metric(db, id, 1, 1, "val_error", 0.5, &err), 0);
        CHECK_INT_EQ(rdb_metric(db, id, 2, 2, "val_error", 0.25, &err), 0);
        CHECK_INT_EQ(rdb_metric(db, id, 2, 2, "participation", 0.75, &err), 0);
        CHECK_INT_EQ(rdb_metric(db, id, 2, 2, "train_loss", NAN, &err), 0);
        CHECK_INT_EQ(rdb_run_end(db, id, &end, &err), 0);
    }
    rdb_close(db);
}

static void make_v6(const char *path)
{
    write_runs(path);
    sqlite3 *h = NULL;
    CHECK_INT_EQ(sqlite3_open(path, &h), SQLITE_OK);
    CHECK_INT_EQ(sqlite3_exec(h, RDBT_UNDO_SCHEMA_7_SQL, NULL, NULL, NULL), SQLITE_OK);
    CHECK_INT_EQ(rdbt_int(h, "PRAGMA user_version"), 6);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM pragma_table_info('final_metrics')"), 18);
    sqlite3_close(h);
}

/* has_clock of runs u, t, c, x ("1,0,..."), as the file holds it. */
static const char *clocks(sqlite3 *h, char out[256])
{
    return rdbt_text(h, "SELECT group_concat(coalesce(has_clock, 'null')) FROM (SELECT"
                        " has_clock FROM runs ORDER BY id)", out);
}

static void written_by_this_build(const char *dir)
{
    char path[512], t[256];
    rdbt_path(path, dir, "v7.db");
    write_runs(path);
    sqlite3 *h = NULL;
    CHECK_INT_EQ(sqlite3_open(path, &h), SQLITE_OK);
    CHECK_INT_EQ(rdbt_int(h, "PRAGMA user_version"), RDB_SCHEMA_VERSION);
    CHECK_STR_EQ(clocks(h, t), "0,1,1,1");
    CHECK_STR_EQ(rdbt_text(h, "SELECT final_json FROM final_metrics WHERE run_id = 1", t),
                 "{\"participation\":0.75,\"train_loss\":null,\"val_error\":0.25}");
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM final_metrics WHERE val_error = 0.25 AND"
                             " train_loss IS NULL"), 4);
    sqlite3_close(h);
}

static void a_schema_6_file_read_and_migrated(const char *dir)
{
    char path[512], before[256], t[256];
    rdbt_path(path, dir, "v6.db");
    make_v6(path);
    rdbt_text_file(path, ROWS_SIGNATURE, before);

    /* read as it is: no run recorded its clock */
    rdb_t *db = NULL;
    sgd_err_t err = {{0}};
    rdb_rows_it_t *it = NULL;
    rdb_run_row_t row;
    CHECK_INT_EQ(rdb_open_readonly(path, &db, &err), 0);
    CHECK_INT_EQ(rdb_runs_open(db, &(rdb_runs_query_t){0}, &it, &err), 0);
    int n = 0;
    while (rdb_runs_next(it, &row, &err) > 0) {
        n++;
        CHECK(!row.clock_recorded);
    }
    CHECK_INT_EQ(n, 4);
    rdb_rows_close(it);
    rdb_close(db);

    /* migrated by a writer */
    CHECK_INT_EQ(rdb_open(path, &db, &err), 0);
    sqlite3 *h = rdb_handle(db);
    CHECK_INT_EQ(rdbt_int(h, "PRAGMA user_version"), RDB_SCHEMA_VERSION);
    CHECK_STR_EQ(clocks(h, t), "0,1,1,1");
    CHECK_STR_EQ(rdbt_text(h, ROWS_SIGNATURE, t), before);
    CHECK_INT_EQ(rdb_runs_open(db, &(rdb_runs_query_t){0}, &it, &err), 0);
    while (rdb_runs_next(it, &row, &err) > 0)
        CHECK(row.clock_recorded && row.has_clock == (row.id == 1 ? 0 : 1));
    rdb_rows_close(it);
    rdb_close(db);
    /* the views as a reader sees them (a writer's connection does not run them: its schema
     * is untrusted, and SQLite 3.40 does not mark the JSON functions innocuous) */
    CHECK_INT_EQ(sqlite3_open(path, &h), SQLITE_OK);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM pragma_table_info('final_metrics')"), 19);
    CHECK_STR_EQ(rdbt_text(h, "SELECT final_json FROM final_metrics WHERE run_id = 3", t),
                 "{\"participation\":0.75,\"train_loss\":null,\"val_error\":0.25}");
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM final_metrics WHERE val_error = 0.25"), 4);
    sqlite3_close(h);

    /* the migrated file opens again: its views are the ones a new file has */
    CHECK_INT_EQ(rdb_open_readonly(path, &db, &err), 0);
    CHECK_INT_EQ(rdb_schema_refuse_unknown(db, &err), 0);
    rdb_close(db);
}

static void merge_of_a_schema_6_input(const char *dir)
{
    char in[512], out[512], t[256];
    rdbt_path(in, dir, "in6.db");
    rdbt_path(out, dir, "out.db");
    make_v6(in);
    sgd_err_t err = {{0}};
    rdb_t *db = NULL;
    rdb_merge_stats_t st;
    CHECK_INT_EQ(rdb_open(out, &db, &err), 0);
    CHECK_INT_EQ(rdb_merge(db, in, &st, &err), 0);
    rdb_close(db);
    sqlite3 *h = NULL;
    CHECK_INT_EQ(sqlite3_open(out, &h), SQLITE_OK);
    CHECK_STR_EQ(clocks(h, t), "null,null,null,null");
    sqlite3_close(h);
}

int main(void)
{
    char dir[256];
    rdbt_tmpdir(dir);
    written_by_this_build(dir);
    a_schema_6_file_read_and_migrated(dir);
    merge_of_a_schema_6_input(dir);
    return check_exit();
}
