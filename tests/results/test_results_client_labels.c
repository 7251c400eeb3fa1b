/* Schema 6's client_labels table (a run's data partition over its clients): rows written by
 * rdb_client_labels (a second entry of a pair replaces the first; bad entries refused naming
 * the table), a schema 5 database migrated by opening it for writing (the table added empty,
 * nothing else changed), merge copying the rows from a schema 6 input and reading a schema 5
 * input, which has none, and a resumed run's rows deleted (the run writes them again at its
 * end). */
#include "results/rdb.h"
#include "results/rdb_merge.h"
#include "results/rdb_resume.h"

#include "tests/check.h"
#include "tests/results/rdb_test_util.h"

#define ROWS_SIGNATURE                                                                        \
    "SELECT (SELECT group_concat(run_id || name || update_idx || quote(value)) FROM metrics)" \
    " || (SELECT group_concat(run_id || '/' || tau || '/' || count) FROM staleness)"

/* A database at path with one run (digest `digest`, ended `status`): a metric, a staleness
 * bin and the label counts of two clients, client 1's label 2 written twice. */
static int64_t write_run(const char *path, const char *digest, const char *status)
{
    rdb_t *db = NULL;
    sgd_err_t err = {{0}};
    int64_t id = 0;
    rdb_run_info_t info = {.run_key = "k1", .scenario_name = "s", .host = "h"};
    rdb_run_end_t end = {.status = status, .digest = digest};
    CHECK_INT_EQ(rdb_open(path, &db, &err), 0);
    CHECK_INT_EQ(rdb_run_begin(db, &info, &id, &err), 0);
    CHECK_INT_EQ(rdb_metric(db, id, 1, 1, "clients_participated", 2.0, &err), 0);
    CHECK_INT_EQ(rdb_staleness(db, id, 0, 3, &err), 0);
    CHECK_INT_EQ(rdb_client_labels(db, id, 0, 0, 5, &err), 0);
    CHECK_INT_EQ(rdb_client_labels(db, id, 0, 9, 1, &err), 0);
    CHECK_INT_EQ(rdb_client_labels(db, id, 1, 2, 4, &err), 0);
    CHECK_INT_EQ(rdb_client_labels(db, id, 1, 2, 7, &err), 0);
    CHECK_INT_EQ(rdb_client_labels(db, id, 1, 3, 0, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "client_labels client 1, label 3, count 0");
    CHECK_INT_EQ(rdb_client_labels(db, id, -1, 3, 2, &err), -1);
    CHECK_INT_EQ(rdb_client_labels(db, id, 4, -2, 2, &err), -1);
    CHECK_INT_EQ(rdb_run_end(db, id, &end, &err), 0);
    rdb_close(db);
    return id;
}

static void rows_are_written_and_replaced(const char *dir)
{
    char path[512], t[256];
    rdbt_path(path, dir, "v6.db");
    write_run(path, "d6", "complete");
    sqlite3 *h = NULL;
    CHECK_INT_EQ(sqlite3_open(path, &h), SQLITE_OK);
    CHECK_INT_EQ(rdbt_int(h, "PRAGMA user_version"), RDB_SCHEMA_VERSION);
    CHECK_STR_EQ(rdbt_text(h, "SELECT group_concat(client || ':' || label || ':' || count) FROM"
                              " (SELECT * FROM client_labels ORDER BY client, label)", t),
                 "0:0:5,0:9:1,1:2:7");
    /* the table refuses what the writer refuses */
    CHECK(sqlite3_exec(h, "INSERT INTO client_labels VALUES (1, 3, 1, 0)", 0, 0, 0) !=
          SQLITE_OK);
    sqlite3_close(h);
}

static void make_v5(const char *path)
{
    write_run(path, "d5", "complete");
    CHECK_INT_EQ(rdbt_exec_file(path, RDBT_UNDO_SCHEMA_6_SQL), SQLITE_OK);
}

static void opening_a_schema_5_file_for_writing_adds_the_table(const char *dir)
{
    char path[512], before[256], t[256];
    rdbt_path(path, dir, "v5.db");
    make_v5(path);
    rdbt_text_file(path, ROWS_SIGNATURE, before);
    rdb_t *db = NULL;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(rdb_open(path, &db, &err), 0);
    sqlite3 *h = rdb_handle(db);
    CHECK_INT_EQ(rdbt_int(h, "PRAGMA user_version"), RDB_SCHEMA_VERSION);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM client_labels"), 0);
    CHECK_STR_EQ(rdbt_text(h, ROWS_SIGNATURE, t), before);
    rdb_close(db);
}

static void merge_copies_the_rows_and_reads_schema_5(const char *dir)
{
    char in6[512], in5[512], out_path[512];
    rdbt_path(in6, dir, "in6.db");
    rdbt_path(in5, dir, "in5.db");
    rdbt_path(out_path, dir, "out.db");
    write_run(in6, "d6", "complete");
    make_v5(in5);
    rdb_t *out = NULL;
    sgd_err_t err = {{0}};
    rdb_merge_stats_t st;
    CHECK_INT_EQ(rdb_open(out_path, &out, &err), 0);
    CHECK_INT_EQ(rdb_merge(out, in6, &st, &err), 0);
    CHECK_INT_EQ(st.copied, 1);
    CHECK_INT_EQ(st.rows, 1 + 1 + 3); /* metric, staleness, client_labels */
    sqlite3 *h = rdb_handle(out);
    CHECK_INT_EQ(rdbt_int(h, "SELECT sum(count) FROM client_labels"), 13);
    CHECK_INT_EQ(rdb_merge(out, in5, &st, &err), 0);
    CHECK_INT_EQ(st.copied, 1);
    CHECK_INT_EQ(st.rows, 1 + 1);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(DISTINCT run_id) FROM client_labels"), 1);
    rdb_close(out);
    sqlite3 *h2 = NULL;
    CHECK_INT_EQ(sqlite3_open(in5, &h2), SQLITE_OK);
    CHECK_INT_EQ(rdbt_int(h2, "PRAGMA user_version"), 5); /* IN is only read */
    sqlite3_close(h2);
}

static void a_resumed_run_loses_its_rows(const char *dir)
{
    char path[512];
    rdbt_path(path, dir, "resume.db");
    const int64_t id = write_run(path, NULL, "failed");
    rdb_t *db = NULL;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(rdb_open(path, &db, &err), 0);
    sqlite3 *h = rdb_handle(db);
    char key[256], started[256];
    rdbt_text(h, "SELECT run_key FROM runs", key);
    rdbt_text(h, "SELECT started_at FROM runs", started);
    const rdb_resume_t q = {.run_id = id, .run_key = key, .started_at = started,
                            .after_update = 1, .expect_rows = 1, .expect_last_update = 1};
    CHECK_INT_EQ(rdb_run_resume(db, &q, &err), 0);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM client_labels"), 0);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM metrics"), 1);
    rdb_run_end_t end = {.status = "failed"};
    CHECK_INT_EQ(rdb_run_end(db, id, &end, &err), 0);
    rdb_close(db);
}

int main(void)
{
    char dir[256];
    rdbt_tmpdir(dir);
    rows_are_written_and_replaced(dir);
    opening_a_schema_5_file_for_writing_adds_the_table(dir);
    merge_copies_the_rows_and_reads_schema_5(dir);
    a_resumed_run_loses_its_rows(dir);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
    return check_exit();
}
