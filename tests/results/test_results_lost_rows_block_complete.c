/* When a batch cannot be committed, its rows are gone and the runs that owned them can no
 * longer end 'complete': further rows are refused, rdb_run_end(complete) fails, and
 * rdb_run_end(failed) records the loss in status_detail.  A run with no rows in the failed
 * batch is unaffected.  The failure is injected with a trigger created through a second
 * connection, which is exactly how another program could break a write. */
#include "results/rdb.h"

#include "tests/check.h"
#include "tests/results/rdb_test_util.h"

int main(void)
{
    char dir[256], path[512], txt[256];
    rdbt_tmpdir(dir);
    rdbt_path(path, dir, "lost.db");

    sgd_err_t err = {{0}};
    rdb_t *db = NULL;
    if (rdb_open(path, &db, &err)) {
        fprintf(stderr, "rdb_open: %s\n", err.msg);
        return 1;
    }
    int64_t a = 0, b = 0, c = 0;
    rdb_run_info_t info = {.run_key = "a"};
    CHECK_INT_EQ(rdb_run_begin(db, &info, &a, &err), 0);
    info.run_key = "b";
    CHECK_INT_EQ(rdb_run_begin(db, &info, &b, &err), 0);
    info.run_key = "c";
    CHECK_INT_EQ(rdb_run_begin(db, &info, &c, &err), 0);

    /* Run c's rows go in first, in a batch of their own. */
    CHECK_INT_EQ(rdb_metric(db, c, 0, 0, "train_loss", 1.0, &err), 0);
    CHECK_INT_EQ(rdb_flush(db, &err), 0);

    sqlite3 *other = NULL;
    CHECK_INT_EQ(sqlite3_open(path, &other), SQLITE_OK);
    CHECK_INT_EQ(sqlite3_exec(other, "CREATE TRIGGER fail_b BEFORE INSERT ON metrics"
                                     " WHEN NEW.update_idx = 7 BEGIN"
                                     " SELECT RAISE(ABORT, 'injected failure'); END", 0, 0, 0),
                 SQLITE_OK);

    /* A batch with rows of a and b; b's row 7 makes the whole transaction fail. */
    CHECK_INT_EQ(rdb_metric(db, a, 0, 0, "train_loss", 1.0, &err), 0);
    CHECK_INT_EQ(rdb_metric(db, b, 7, 0, "train_loss", 1.0, &err), 0);
    CHECK_INT_EQ(rdb_flush(db, &err), -1);
    fprintf(stderr, "flush: %s\n", err.msg);
    CHECK_STR_CONTAINS(err.msg, path);
    CHECK_STR_CONTAINS(err.msg, "injected failure");
    CHECK_INT_EQ(sqlite3_exec(other, "DROP TRIGGER fail_b", 0, 0, 0), SQLITE_OK);
    sqlite3_close(other);

    CHECK_INT_EQ(rdbt_int(rdb_handle(db), "SELECT count(*) FROM metrics"), 1);
    CHECK_INT_EQ(rdb_metric(db, a, 1, 0, "train_loss", 1.0, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "lost rows");
    CHECK_INT_EQ(rdb_staleness(db, b, 0, 1, &err), -1);
    rdb_run_end_t end = {.status = "complete", .digest = "x"};
    CHECK_INT_EQ(rdb_run_end(db, a, &end, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "only end as 'failed'");

    /* Run c had no rows in the failed batch: it still completes. */
    CHECK_INT_EQ(rdb_metric(db, c, 1, 0, "train_loss", 2.0, &err), 0);
    CHECK_INT_EQ(rdb_run_end(db, c, &end, &err), 0);

    end.status = "failed";
    end.digest = NULL;
    CHECK_INT_EQ(rdb_run_end(db, a, &end, &err), 0);
    end.status_detail = "caller's own reason";
    CHECK_INT_EQ(rdb_run_end(db, b, &end, &err), 0);

    sqlite3 *h = rdb_handle(db);
    CHECK_STR_CONTAINS(rdbt_text(h, "SELECT status || ': ' || status_detail FROM runs"
                                    " WHERE run_key = 'a'", txt),
                       "failed: results rows lost: ");
    CHECK_STR_CONTAINS(txt, "injected failure");
    CHECK_STR_CONTAINS(rdbt_text(h, "SELECT status || ': ' || status_detail FROM runs"
                                    " WHERE run_key = 'b'", txt),
                       "failed: caller's own reason");
    CHECK_STR_CONTAINS(rdbt_text(h, "SELECT status FROM runs WHERE run_key = 'c'", txt),
                       "complete");
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM metrics WHERE run_id = 3"), 2);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM metrics"), 2);
    rdb_close(db);
    rdbt_remove_db(path);
    rmdir(dir);
    return check_exit();
}
