/* Schema 3's version_age table: rows written by rdb_version_age (bins added up, bad bins
 * refused with the table's name), a schema 2 database migrated by opening it for writing
 * (the table added empty, nothing else changed), and merge copying the rows from a schema 3
 * input and reading a schema 2 input, which has none, without changing it. */
#include "results/rdb.h"
#include "results/rdb_merge.h"

#include "tests/check.h"
#include "tests/results/rdb_test_util.h"

#define ROWS_SIGNATURE                                                                        \
    "SELECT (SELECT group_concat(run_id || name || update_idx || quote(value)) FROM metrics)" \
    " || (SELECT group_concat(run_id || '/' || tau || '/' || count) FROM staleness)"

/* A database at path with one complete run (digest `digest`): a metric, staleness bins 0:7
 * and 3:2, and version_age bins 0:5, 3:2 and 9:2 (bin 9 written in two parts). */
static void write_run(const char *path, const char *digest)
{
    rdb_t *db = NULL;
    sgd_err_t err = {{0}};
    int64_t id = 0;
    rdb_run_info_t info = {.run_key = "k1", .scenario_name = "s", .host = "h"};
    rdb_run_end_t end = {.status = "complete", .digest = digest};
    CHECK_INT_EQ(rdb_open(path, &db, &err), 0);
    CHECK_INT_EQ(rdb_run_begin(db, &info, &id, &err), 0);
    CHECK_INT_EQ(rdb_metric(db, id, 1, 1, "staleness_mean", 1.5, &err), 0);
    CHECK_INT_EQ(rdb_staleness(db, id, 0, 7, &err), 0);
    CHECK_INT_EQ(rdb_staleness(db, id, 3, 2, &err), 0);
    CHECK_INT_EQ(rdb_version_age(db, id, 0, 5, &err), 0);
    CHECK_INT_EQ(rdb_version_age(db, id, 3, 2, &err), 0);
    CHECK_INT_EQ(rdb_version_age(db, id, 9, 1, &err), 0);
    CHECK_INT_EQ(rdb_version_age(db, id, 9, 1, &err), 0);
    CHECK_INT_EQ(rdb_version_age(db, id, -1, 1, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "version_age bin age -1, count 1: both must be >= 0");
    CHECK_INT_EQ(rdb_run_end(db, id, &end, &err), 0);
    rdb_close(db);
}

static void rows_are_written_and_added_up(const char *dir)
{
    char path[512], t[256];
    rdbt_path(path, dir, "v3.db");
    write_run(path, "d3");
    sqlite3 *h = NULL;
    CHECK_INT_EQ(sqlite3_open(path, &h), SQLITE_OK);
    CHECK_INT_EQ(rdbt_int(h, "PRAGMA user_version"), RDB_SCHEMA_VERSION);
    CHECK_STR_EQ(rdbt_text(h, "SELECT group_concat(age || ':' || count) FROM (SELECT * FROM"
                              " version_age ORDER BY age)", t), "0:5,3:2,9:2");
    sqlite3_close(h);
}

/* A schema 2 database: this build's file without what schema 3 added. */
static void make_v2(const char *path)
{
    write_run(path, "d2");
    CHECK_INT_EQ(rdbt_exec_file(path, RDBT_UNDO_SCHEMA_3_SQL), SQLITE_OK);
}

static void opening_a_schema_2_file_for_writing_adds_the_table(const char *dir)
{
    char path[512], before[256], t[256];
    rdbt_path(path, dir, "v2.db");
    make_v2(path);
    rdbt_text_file(path, ROWS_SIGNATURE, before);

    rdb_t *db = NULL;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(rdb_open(path, &db, &err), 0);
    sqlite3 *h = rdb_handle(db);
    CHECK_INT_EQ(rdbt_int(h, "PRAGMA user_version"), RDB_SCHEMA_VERSION);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM version_age"), 0);
    CHECK_STR_EQ(rdbt_text(h, ROWS_SIGNATURE, t), before);
    rdb_close(db);
}

static void merge_copies_the_rows_and_reads_schema_2(const char *dir)
{
    char in3[512], in2[512], out_path[512];
    rdbt_path(in3, dir, "in3.db");
    rdbt_path(in2, dir, "in2.db");
    rdbt_path(out_path, dir, "out.db");
    write_run(in3, "d3");
    make_v2(in2); /* another run record: its digest differs */
    rdb_t *out = NULL;
    sgd_err_t err = {{0}};
    rdb_merge_stats_t st;
    CHECK_INT_EQ(rdb_open(out_path, &out, &err), 0);
    CHECK_INT_EQ(rdb_merge(out, in3, &st, &err), 0);
    CHECK_INT_EQ(st.copied, 1);
    CHECK_INT_EQ(st.rows, 1 + 2 + 3); /* metric, staleness, version_age */
    sqlite3 *h = rdb_handle(out);
    CHECK_INT_EQ(rdbt_int(h, "SELECT sum(count) FROM version_age"), 9);
    /* The other run record, from a file without the table. */
    CHECK_INT_EQ(rdb_merge(out, in2, &st, &err), 0);
    CHECK_INT_EQ(st.copied, 1);
    CHECK_INT_EQ(st.rows, 1 + 2);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM runs"), 2);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(DISTINCT run_id) FROM version_age"), 1);
    rdb_close(out);
    sqlite3 *h2 = NULL;
    CHECK_INT_EQ(sqlite3_open(in2, &h2), SQLITE_OK);
    CHECK_INT_EQ(rdbt_int(h2, "PRAGMA user_version"), 2); /* IN is only read */
    CHECK_INT_EQ(rdbt_int(h2, "SELECT count(*) FROM sqlite_master WHERE name = 'version_age'"),
                 0);
    sqlite3_close(h2);
}

int main(void)
{
    char dir[256];
    rdbt_tmpdir(dir);
    rows_are_written_and_added_up(dir);
    opening_a_schema_2_file_for_writing_adds_the_table(dir);
    merge_copies_the_rows_and_reads_schema_2(dir);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
    return check_exit();
}
