/* A long run's rows reach readers while it goes: besides every RDB_BATCH_ROWS rows, the
 * writer commits what it buffered once RDB_COMMIT_EVERY_MS of wall time have passed since
 * its last write.  The clock is the test's own (rdb_set_clock), so the test decides when
 * time passes: rows stay invisible to another connection while the clock stands still and
 * appear, all of them and unchanged, at the first row after it moved on; the run still reads
 * 'running' until rdb_run_end, and the same calls give the same rows with any clock. */
#include "results/rdb.h"
#include "results/rdb_internal.h"

#include "tests/check.h"
#include "tests/results/rdb_test_util.h"

static int64_t fake_now_ms;
static int64_t fake_clock(void) { return fake_now_ms; }

static int64_t visible_rows(const char *path)
{
    sqlite3 *h = NULL;
    CHECK_INT_EQ(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    int64_t n = rdbt_int(h, "SELECT count(*) FROM metrics");
    sqlite3_close(h);
    return n;
}

static int64_t begin(rdb_t *db)
{
    sgd_err_t err = {{0}};
    int64_t id = 0;
    rdb_run_info_t info = {.run_key = "k", .config_json = "{\"a\":1}", .workers = 1};
    CHECK_INT_EQ(rdb_run_begin(db, &info, &id, &err), 0);
    return id;
}

int main(void)
{
    char dir[256], path[512];
    rdbt_tmpdir(dir);
    rdbt_path(path, dir, "live.db");
    sgd_err_t err = {{0}};
    rdb_t *db = NULL;
    CHECK_INT_EQ(rdb_open(path, &db, &err), 0);
    fake_now_ms = 1000;
    rdb_set_clock(db, fake_clock);
    int64_t id = begin(db);

    /* The clock stands still: 10 rows stay buffered. */
    for (int64_t u = 0; u < 10; u++)
        CHECK_INT_EQ(rdb_metric(db, id, u, u, "train_loss", 0.5 * (double)u, &err), 0);
    CHECK_INT_EQ(visible_rows(path), 0);

    /* Just under the interval: still buffered. */
    fake_now_ms += RDB_COMMIT_EVERY_MS - 1;
    CHECK_INT_EQ(rdb_metric(db, id, 10, 10, "train_loss", 5.0, &err), 0);
    CHECK_INT_EQ(visible_rows(path), 0);

    /* The interval has passed: the next row commits all 12, the run still 'running'. */
    fake_now_ms += 1;
    CHECK_INT_EQ(rdb_metric(db, id, 11, 11, "train_loss", 5.5, &err), 0);
    CHECK_INT_EQ(visible_rows(path), 12);
    sqlite3 *h = NULL;
    CHECK_INT_EQ(sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM runs WHERE status = 'running'"), 1);
    CHECK_INT_EQ(rdbt_int(h, "SELECT sum(value * 2) FROM metrics"), 66); /* 2 x (22.5 + 5 + 5.5) */
    sqlite3_close(h);

    /* The interval restarts at that write: one more row waits again. */
    fake_now_ms += RDB_COMMIT_EVERY_MS / 2;
    CHECK_INT_EQ(rdb_metric(db, id, 12, 12, "train_loss", 6.0, &err), 0);
    CHECK_INT_EQ(visible_rows(path), 12);

    rdb_run_end_t end = {.status = "complete", .updates = 13};
    CHECK_INT_EQ(rdb_run_end(db, id, &end, &err), 0);
    CHECK_INT_EQ(visible_rows(path), 13);
    rdb_close(db);
    rdbt_remove_db(path);
    rmdir(dir);
    return check_exit();
}
