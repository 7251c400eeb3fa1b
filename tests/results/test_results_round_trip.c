/* A run written through the rdb_ API reads back intact: 10,000 metric rows (several
 * batches of RDB_BATCH_ROWS), traffic counters added over several calls, a staleness
 * histogram, the runs row with provenance and final counters, the schema version, and the
 * run_summary view.  Also: rows cannot be added to an ended run, and reopening for writing
 * keeps earlier runs. */
#include "results/rdb.h"

#include "tests/check.h"
#include "tests/results/rdb_test_util.h"

#define NUPDATES 5000 /* two metrics per update: 10,000 rows */

static double train_loss(int64_t u) { return 1.0 / (double)(u + 1); }
static double val_error(int64_t u) { return 0.5 - 1e-5 * (double)u; }

static int write_run(const char *path, int64_t *run_id)
{
    sgd_err_t err = {{0}};
    rdb_t *db = NULL;
    if (rdb_open(path, &db, &err)) {
        fprintf(stderr, "rdb_open: %s\n", err.msg);
        return -1;
    }
    rdb_run_info_t info = {
        .run_key = "key-abc", .scenario_name = "mnist-softmax",
        .scenario_path = "scenarios/mnist.json", .algorithm = "sasgd", .workers = 16,
        .seed = UINT64_C(0xFFFFFFFFFFFFFFFE), .backend = "cpu", .config_json = "{\"a\":1}",
        .config_hash = "hash123", .sgdsim_version = "0.1.0", .git_rev = "abc-dirty",
        .build_options = "RelWithDebInfo", .blas_core = "Haswell", .host = "testhost"};
    CHECK_INT_EQ(rdb_run_begin(db, &info, run_id, &err), 0);
    for (int64_t u = 0; u < NUPDATES; u++) {
        CHECK_INT_EQ(rdb_metric(db, *run_id, u, u * 1000, "train_loss", train_loss(u), &err), 0);
        CHECK_INT_EQ(rdb_metric(db, *run_id, u, u * 1000, "val_error", val_error(u), &err), 0);
        if (u == 100) CHECK_INT_EQ(rdb_flush(db, &err), 0);
        if (u % 1000 == 0) {
            CHECK_INT_EQ(rdb_traffic(db, *run_id, "push", 10, 1000, 1, 100, &err), 0);
            CHECK_INT_EQ(rdb_traffic(db, *run_id, "fetch", 10, 4000, 0, 0, &err), 0);
        }
    }
    /* Same (run, name, update) twice: the later value is kept. */
    CHECK_INT_EQ(rdb_metric(db, *run_id, 7, 7000, "train_loss", 42.0, &err), 0);
    for (int64_t tau = 0; tau < 10; tau++)
        CHECK_INT_EQ(rdb_staleness(db, *run_id, tau, tau + 1, &err), 0);
    CHECK_INT_EQ(rdb_staleness(db, *run_id, 3, 100, &err), 0);

    /* The run reads 'running' until rdb_run_end commits its last rows. */
    char txt[256], sql[128];
    snprintf(sql, sizeof sql, "SELECT status FROM runs WHERE id = %lld", (long long)*run_id);
    CHECK_STR_CONTAINS(rdbt_text(rdb_handle(db), sql, txt), "running");

    rdb_run_end_t end = {.status = "complete", .vtime_ns = 5000000, .updates = NUPDATES,
                         .events = 123456, .wall_s = 2.5, .events_per_s = 49382.4,
                         .digest = "d1g3st"};
    CHECK_INT_EQ(rdb_run_end(db, *run_id, &end, &err), 0);
    if (err.msg[0]) fprintf(stderr, "last error: %s\n", err.msg);

    /* An ended run takes no more rows. */
    CHECK_INT_EQ(rdb_metric(db, *run_id, NUPDATES, 0, "train_loss", 1.0, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "not active");
    CHECK_STR_CONTAINS(err.msg, path);
    CHECK_INT_EQ(rdb_run_end(db, *run_id, &end, &err), -1);
    rdb_close(db);
    return 0;
}

int main(void)
{
    char dir[256], path[512], sql[512], txt[256];
    rdbt_tmpdir(dir);
    rdbt_path(path, dir, "results.db");

    int64_t run_id = 0;
    if (write_run(path, &run_id)) return 1;
    CHECK_INT_EQ(run_id, 1);

    rdb_t *ro = rdbt_open_readonly(path);
    CHECK(ro != NULL);
    if (!ro) return 1;
    sqlite3 *h = rdb_handle(ro);
    CHECK_INT_EQ(rdbt_int(h, "PRAGMA user_version"), RDB_SCHEMA_VERSION);
    CHECK_INT_EQ(rdbt_int(h, "PRAGMA application_id"), RDB_APPLICATION_ID);
    CHECK_STR_CONTAINS(rdbt_text(h, "PRAGMA journal_mode", txt), "wal");

    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM metrics"), 2 * NUPDATES);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM metrics WHERE name = 'val_error'"), NUPDATES);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM metrics WHERE nonfinite IS NOT NULL"), 0);

    /* Every value read back exactly as written (doubles round-trip through REAL). */
    sqlite3_stmt *st = NULL;
    int64_t nread = 0, nbad = 0;
    CHECK_INT_EQ(sqlite3_prepare_v2(h, "SELECT update_idx, vtime_ns, name, value FROM metrics"
                                       " WHERE run_id = 1 ORDER BY update_idx, name",
                                    -1, &st, NULL), SQLITE_OK);
    while (st && sqlite3_step(st) == SQLITE_ROW) {
        int64_t u = sqlite3_column_int64(st, 0);
        const char *name = (const char *)sqlite3_column_text(st, 2);
        double want = strcmp(name, "train_loss") == 0 ? (u == 7 ? 42.0 : train_loss(u))
                                                      : val_error(u);
        if (sqlite3_column_int64(st, 1) != u * 1000 || sqlite3_column_double(st, 3) != want) {
            if (nbad++ < 5)
                fprintf(stderr, "row u=%lld %s: vtime %lld value %.17g, want %.17g\n",
                        (long long)u, name, (long long)sqlite3_column_int64(st, 1),
                        sqlite3_column_double(st, 3), want);
        }
        nread++;
    }
    sqlite3_finalize(st);
    CHECK_INT_EQ(nread, 2 * NUPDATES);
    CHECK_INT_EQ(nbad, 0);

    CHECK_INT_EQ(rdbt_int(h, "SELECT sent_msgs FROM traffic WHERE run_id = 1 AND kind = 'push'"), 50);
    CHECK_INT_EQ(rdbt_int(h, "SELECT sent_bytes FROM traffic WHERE kind = 'push'"), 5000);
    CHECK_INT_EQ(rdbt_int(h, "SELECT skipped_msgs FROM traffic WHERE kind = 'push'"), 5);
    CHECK_INT_EQ(rdbt_int(h, "SELECT skipped_bytes FROM traffic WHERE kind = 'push'"), 500);
    CHECK_INT_EQ(rdbt_int(h, "SELECT sent_bytes FROM traffic WHERE kind = 'fetch'"), 20000);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM traffic"), 2);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM staleness WHERE run_id = 1"), 10);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count FROM staleness WHERE tau = 3"), 104);
    CHECK_INT_EQ(rdbt_int(h, "SELECT sum(count) FROM staleness"), 155);

    CHECK_STR_CONTAINS(rdbt_text(h, "SELECT status FROM runs WHERE id = 1", txt), "complete");
    CHECK_STR_CONTAINS(rdbt_text(h, "SELECT status_detail IS NULL FROM runs", txt), "1");
    CHECK_STR_CONTAINS(rdbt_text(h, "SELECT digest FROM runs", txt), "d1g3st");
    CHECK_STR_CONTAINS(rdbt_text(h, "SELECT scenario FROM runs", txt), "mnist-softmax");
    CHECK_STR_CONTAINS(rdbt_text(h, "SELECT scenario_path FROM runs", txt), "scenarios/mnist.json");
    CHECK_STR_CONTAINS(rdbt_text(h, "SELECT algorithm FROM runs", txt), "sasgd");
    CHECK_STR_CONTAINS(rdbt_text(h, "SELECT run_key FROM runs", txt), "key-abc");
    CHECK_STR_CONTAINS(rdbt_text(h, "SELECT blas_core || '|' || host || '|' || git_rev || '|' ||"
                                    " backend || '|' || config_hash || '|' || config_json ||"
                                    " '|' || sgdsim_version || '|' || build_options FROM runs",
                                 txt),
                       "Haswell|testhost|abc-dirty|cpu|hash123|{\"a\":1}|0.1.0|RelWithDebInfo");
    CHECK_INT_EQ(rdbt_int(h, "SELECT workers FROM runs"), 16);
    CHECK_INT_EQ(rdbt_int(h, "SELECT seed FROM runs"), -2);
    CHECK((uint64_t)rdbt_int(h, "SELECT seed FROM runs") == UINT64_C(0xFFFFFFFFFFFFFFFE));
    CHECK_INT_EQ(rdbt_int(h, "SELECT vtime_ns FROM runs"), 5000000);
    CHECK_INT_EQ(rdbt_int(h, "SELECT updates FROM runs"), NUPDATES);
    CHECK_INT_EQ(rdbt_int(h, "SELECT events FROM runs"), 123456);
    CHECK_INT_EQ(rdbt_int(h, "SELECT wall_s * 10 FROM runs"), 25);
    CHECK_INT_EQ(rdbt_int(h, "SELECT round(events_per_s * 10) FROM runs"), 493824);
    CHECK_INT_EQ(rdbt_int(h, "SELECT started_at GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]"
                             "T[0-9][0-9]:[0-9][0-9]:[0-9][0-9].[0-9][0-9][0-9]Z' FROM runs"), 1);
    CHECK_INT_EQ(rdbt_int(h, "SELECT finished_at >= started_at FROM runs"), 1);

    /* run_summary: final values are those of the largest update_idx. */
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM run_summary"), 1);
    snprintf(sql, sizeof sql, "SELECT final_val_error = %.17g AND final_train_loss = %.17g"
             " AND vtime_s = 0.005 AND updates = %d AND status = 'complete' FROM run_summary",
             val_error(NUPDATES - 1), train_loss(NUPDATES - 1), NUPDATES);
    CHECK_INT_EQ(rdbt_int(h, sql), 1);
    CHECK_STR_CONTAINS(rdbt_text(h, "PRAGMA integrity_check", txt), "ok");
    rdb_close(ro);

    /* Reopening for writing neither migrates nor touches the existing run. */
    int64_t run2 = 0;
    if (write_run(path, &run2)) return 1;
    CHECK_INT_EQ(run2, 2);
    ro = rdbt_open_readonly(path);
    CHECK(ro != NULL);
    if (ro) {
        CHECK_INT_EQ(rdbt_int(rdb_handle(ro), "SELECT count(*) FROM metrics WHERE run_id = 1"),
                     2 * NUPDATES);
        CHECK_INT_EQ(rdbt_int(rdb_handle(ro), "SELECT count(*) FROM metrics"), 4 * NUPDATES);
        rdb_close(ro);
    }

    rdbt_remove_db(path);
    rmdir(dir);
    return check_exit();
}
