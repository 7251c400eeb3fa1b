/* Schema 2's migration of run keys: a database as schema 1 left it (its DDL below is that
 * version's, frozen here) is opened for writing and every run's run_key and config_hash are
 * recomputed from its config_json, the old values kept in prev_run_key / prev_config_hash and
 * the outcome in key_note; nothing else changes and no row is lost.  A config_json that
 * cannot be re-hashed keeps its old key, and says so.  Merging a schema 1 file into a
 * schema 2 database gives the same keys and leaves the input untouched. */
#include "common/json.h"
#include "results/rdb.h"
#include "results/rdb_merge.h"

#include "tests/check.h"
#include "tests/results/rdb_test_util.h"

/* Schema 1 exactly as sgdsim created it. */
static const char schema_v1[] =
    "CREATE TABLE runs ("
    "  id             INTEGER PRIMARY KEY,"
    "  run_key        TEXT,"
    "  scenario       TEXT,"
    "  scenario_path  TEXT,"
    "  algorithm      TEXT,"
    "  workers        INTEGER,"
    "  seed           INTEGER,"
    "  backend        TEXT,"
    "  config_json    TEXT,"
    "  config_hash    TEXT,"
    "  sgdsim_version TEXT,"
    "  git_rev        TEXT,"
    "  build_options  TEXT,"
    "  blas_core      TEXT,"
    "  host           TEXT,"
    "  status         TEXT NOT NULL"
    "                 CHECK (status IN ('running','complete','failed','diverged')),"
    "  status_detail  TEXT,"
    "  started_at     TEXT,"
    "  finished_at    TEXT,"
    "  wall_s         REAL,"
    "  vtime_ns       INTEGER,"
    "  updates        INTEGER,"
    "  events         INTEGER,"
    "  events_per_s   REAL,"
    "  digest         TEXT"
    ");"
    "CREATE INDEX runs_by_key ON runs(run_key);"
    "CREATE TABLE metrics ("
    "  run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  update_idx INTEGER NOT NULL,"
    "  vtime_ns   INTEGER NOT NULL,"
    "  name       TEXT NOT NULL,"
    "  value      REAL,"
    "  nonfinite  TEXT CHECK (nonfinite IN ('nan','inf','-inf')),"
    "  CHECK ((value IS NULL) <> (nonfinite IS NULL)),"
    "  PRIMARY KEY (run_id, name, update_idx)"
    ") WITHOUT ROWID;"
    "CREATE INDEX metrics_by_update ON metrics(run_id, update_idx);"
    "CREATE TABLE traffic ("
    "  run_id        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  kind          TEXT NOT NULL,"
    "  sent_msgs     INTEGER NOT NULL DEFAULT 0,"
    "  sent_bytes    INTEGER NOT NULL DEFAULT 0,"
    "  skipped_msgs  INTEGER NOT NULL DEFAULT 0,"
    "  skipped_bytes INTEGER NOT NULL DEFAULT 0,"
    "  PRIMARY KEY (run_id, kind)"
    ") WITHOUT ROWID;"
    "CREATE TABLE staleness ("
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    "  tau    INTEGER NOT NULL CHECK (tau >= 0),"
    "  count  INTEGER NOT NULL CHECK (count >= 0),"
    "  PRIMARY KEY (run_id, tau)"
    ") WITHOUT ROWID;"
    /* The final value of a metric is its row with the largest update_idx; the primary key
     * (run_id, name, update_idx) answers that with one descending index probe per run. */
    "CREATE VIEW run_summary AS"
    "  SELECT r.id, r.run_key, r.scenario, r.algorithm, r.workers, r.seed, r.backend,"
    "         r.status, r.vtime_ns / 1e9 AS vtime_s, r.updates, r.wall_s,"
    "         (SELECT m.value FROM metrics m WHERE m.run_id = r.id AND m.name = 'val_error'"
    "           ORDER BY m.update_idx DESC LIMIT 1) AS final_val_error,"
    "         (SELECT m.value FROM metrics m WHERE m.run_id = r.id AND m.name = 'train_loss'"
    "           ORDER BY m.update_idx DESC LIMIT 1) AS final_train_loss"
    "  FROM runs r;";

/* The three kinds of row a schema 1 database may hold: a run sgdsim wrote (run_key is the
 * configuration hash; its numbers printed with 15 digits, threads included), a config_json
 * that is not JSON, and a run_key that was not the configuration hash. */
static const char rows_v1[] =
    "INSERT INTO runs(id, run_key, scenario, config_json, config_hash, host, started_at,"
    " status, digest) VALUES"
    " (1, 'oldhash1', 'a', '{\"schema_version\":1,\"seed\":9.00719925474099e+15,"
    "\"optimizer\":{\"lr\":0.3},\"numerics\":{\"blas_core\":\"Haswell\",\"threads\":4}}',"
    " 'oldhash1', 'h', 't1', 'complete', 'd1'),"
    " (2, 'oldhash2', 'b', 'not json', 'oldhash2', 'h', 't2', 'failed', NULL),"
    " (3, 'custom', 'c', '{\"x\":1}', 'oldhash3', 'h', 't3', 'diverged', 'd3');"
    "INSERT INTO metrics VALUES (1, 0, 0, 'train_loss', 2.5, NULL), (1, 1, 10, 'train_loss',"
    " 1.5, NULL), (3, 0, 0, 'val_error', NULL, 'nan');"
    "INSERT INTO traffic VALUES (1, 'push', 3, 300, 1, 100);"
    "INSERT INTO staleness VALUES (1, 0, 7), (1, 2, 1);"
    "PRAGMA application_id = 1397179475; PRAGMA user_version = 1;";

static void make_v1(const char *path)
{
    sqlite3 *h = NULL;
    CHECK_INT_EQ(sqlite3_open(path, &h), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(h, schema_v1, NULL, NULL, &msg) != SQLITE_OK ||
        sqlite3_exec(h, rows_v1, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "make_v1: %s\n", msg);
        CHECK(0);
    }
    sqlite3_free(msg);
    sqlite3_close(h);
}

/* Every schema 1 column but the two keys, for "nothing else changed". */
#define OTHER_COLUMNS                                                                         \
    "SELECT group_concat(quote(id) || quote(scenario) || quote(config_json) || quote(host) ||" \
    " quote(started_at) || quote(status) || quote(digest), ';') FROM (SELECT * FROM runs"  \
    " ORDER BY id)"
#define ROWS_SIGNATURE                                                                        \
    "SELECT (SELECT group_concat(run_id || name || update_idx || quote(value) ||"             \
    " quote(nonfinite)) FROM metrics) || (SELECT group_concat(run_id || kind || sent_msgs ||" \
    " sent_bytes || skipped_msgs || skipped_bytes) FROM traffic) || (SELECT"                  \
    " group_concat(run_id || '/' || tau || '/' || count) FROM staleness)"

/* The key schema 2 gives run 1: its configuration's canonical hash, which neither the order
 * of keys nor numerics.threads changes. */
static void expected_key(char hex[SGD_SHA256_HEX_LEN + 1])
{
    CHECK_INT_EQ(sgd_config_hash_text("{\"numerics\":{\"threads\":1,\"blas_core\":\"Haswell\"},"
                                      "\"optimizer\":{\"lr\":0.3},\"seed\":9007199254740990,"
                                      "\"schema_version\":1}", hex), 0);
}

static void check_migrated_rows(sqlite3 *h)
{
    char t[256], key[SGD_SHA256_HEX_LEN + 1];
    expected_key(key);
    CHECK_STR_EQ(rdbt_text(h, "SELECT run_key FROM runs WHERE scenario = 'a'", t), key);
    CHECK_STR_EQ(rdbt_text(h, "SELECT config_hash FROM runs WHERE scenario = 'a'", t), key);
    CHECK_STR_EQ(rdbt_text(h, "SELECT prev_run_key FROM runs WHERE scenario = 'a'", t),
                 "oldhash1");
    CHECK_STR_CONTAINS(rdbt_text(h, "SELECT key_note FROM runs WHERE scenario = 'a'", t),
                       "run_key and config_hash recomputed from config_json");
    CHECK_STR_EQ(rdbt_text(h, "SELECT run_key || config_hash FROM runs WHERE scenario = 'b'",
                           t), "oldhash2oldhash2");
    CHECK_STR_CONTAINS(rdbt_text(h, "SELECT key_note FROM runs WHERE scenario = 'b'", t),
                       "cannot be re-hashed");
    CHECK_STR_EQ(rdbt_text(h, "SELECT run_key FROM runs WHERE scenario = 'c'", t), "custom");
    CHECK_STR_EQ(rdbt_text(h, "SELECT prev_config_hash FROM runs WHERE scenario = 'c'", t),
                 "oldhash3");
    CHECK_STR_CONTAINS(rdbt_text(h, "SELECT key_note FROM runs WHERE scenario = 'c'", t),
                       "run_key kept");
}

/* Schema 4 rebuilt runs with AUTOINCREMENT: every column, the index, the views and the
 * foreign keys of the other tables are as before, and the lease table is there; schema 5
 * added runs.resumes (0 for every migrated run), schema 7 runs.has_clock. */
static void check_schema_4(sqlite3 *h)
{
    char t[256];
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM sqlite_master WHERE name = 'runs' AND"
                             " sql LIKE '%id%INTEGER PRIMARY KEY AUTOINCREMENT%'"), 1);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM pragma_table_info('runs')"), 32);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM runs WHERE resumes <> 0"), 0);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND"
                             " name = 'runs_by_key' AND tbl_name = 'runs'"), 1);
    CHECK_STR_EQ(rdbt_text(h, "SELECT group_concat(name) FROM (SELECT name FROM sqlite_master"
                              " WHERE type = 'view' ORDER BY name)", t),
                 "final_metrics,final_metrics_long,finished_runs,params,run_summary");
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM sqlite_master WHERE name = 'run_owner'"), 1);
    static const char *const children[] = {"metrics", "traffic", "staleness", "version_age",
                                           "tags", "artifacts", "run_owner"};
    for (size_t i = 0; i < sizeof children / sizeof *children; i++) {
        char sql[200];
        snprintf(sql, sizeof sql, "SELECT count(*) FROM pragma_foreign_key_list('%s') WHERE"
                 " \"table\" = 'runs' AND on_delete = 'CASCADE'", children[i]);
        CHECK_INT_EQ(rdbt_int(h, sql), 1);
    }
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
    CHECK_STR_EQ(rdbt_text(h, "PRAGMA integrity_check", t), "ok");
}

static void opening_for_writing_migrates(const char *dir)
{
    char path[512], before[256], rows[256], t[256];
    rdbt_path(path, dir, "v1.db");
    make_v1(path);
    sqlite3 *h = NULL;
    CHECK_INT_EQ(sqlite3_open(path, &h), SQLITE_OK);
    rdbt_text(h, OTHER_COLUMNS, before);
    rdbt_text(h, ROWS_SIGNATURE, rows);
    sqlite3_close(h);

    rdb_t *db = NULL;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(rdb_open(path, &db, &err), 0);
    h = rdb_handle(db);
    CHECK_INT_EQ(rdbt_int(h, "PRAGMA user_version"), RDB_SCHEMA_VERSION);
    check_migrated_rows(h);
    check_schema_4(h);
    CHECK_STR_EQ(rdbt_text(h, OTHER_COLUMNS, t), before);
    CHECK_STR_EQ(rdbt_text(h, ROWS_SIGNATURE, t), rows);
    rdb_close(db);
    /* Migrated once: opening again changes nothing. */
    CHECK_INT_EQ(rdb_open(path, &db, &err), 0);
    h = rdb_handle(db);
    check_migrated_rows(h);
    /* Ids are never reused after the migration: the largest deleted, the next is larger. */
    CHECK_INT_EQ(sqlite3_exec(h, "PRAGMA foreign_keys = ON; DELETE FROM runs WHERE id = 3",
                              NULL, NULL, NULL), SQLITE_OK);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM metrics WHERE run_id = 3"), 0);
    int64_t id = 0;
    rdb_run_info_t info = {.run_key = "k"};
    CHECK_INT_EQ(rdb_run_begin(db, &info, &id, &err), 0);
    CHECK_INT_EQ(id, 4);
    rdb_close(db);
}

static void merging_a_schema_1_file_gives_the_migrated_keys(const char *dir)
{
    char in[512], out_path[512], t[256];
    rdbt_path(in, dir, "in-v1.db");
    rdbt_path(out_path, dir, "out.db");
    make_v1(in);
    rdb_t *out = NULL;
    sgd_err_t err = {{0}};
    rdb_merge_stats_t st;
    CHECK_INT_EQ(rdb_open(out_path, &out, &err), 0);
    CHECK_INT_EQ(rdb_merge(out, in, &st, &err), 0);
    CHECK_INT_EQ(st.copied, 3);
    CHECK_INT_EQ(st.rows, 6);
    sqlite3 *h = rdb_handle(out);
    check_migrated_rows(h);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM temp.sqlite_master"), 0);
    /* Idempotent across the change too. */
    CHECK_INT_EQ(rdb_merge(out, in, &st, &err), 0);
    CHECK_INT_EQ(st.copied, 0);
    CHECK_INT_EQ(st.present, 3);
    rdb_close(out);
    /* IN is only read. */
    CHECK_INT_EQ(sqlite3_open(in, &h), SQLITE_OK);
    CHECK_INT_EQ(rdbt_int(h, "PRAGMA user_version"), 1);
    CHECK_STR_EQ(rdbt_text(h, "SELECT group_concat(run_key) FROM (SELECT run_key FROM runs ORDER BY id)", t),
                 "oldhash1,oldhash2,custom");
    sqlite3_close(h);
}

int main(void)
{
    char dir[256];
    rdbt_tmpdir(dir);
    opening_for_writing_migrates(dir);
    merging_a_schema_1_file_gives_the_migrated_keys(dir);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
    return check_exit();
}
