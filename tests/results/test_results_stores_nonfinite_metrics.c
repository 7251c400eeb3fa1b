/* NaN and infinite metric values are stored as value NULL plus nonfinite 'nan', 'inf' or
 * '-inf' (SQLite itself would turn NaN into NULL and lose which of the three it was); the
 * table refuses a row that is neither a number nor marked non-finite; run_summary shows
 * NULL for a final value that was not finite; non-finite wall_s / events_per_s are NULL. */
#include "results/rdb.h"

#include "tests/check.h"
#include "tests/results/rdb_test_util.h"

int main(void)
{
    char dir[256], path[512], txt[256];
    rdbt_tmpdir(dir);
    rdbt_path(path, dir, "nan.db");

    sgd_err_t err = {{0}};
    rdb_t *db = NULL;
    if (rdb_open(path, &db, &err)) {
        fprintf(stderr, "rdb_open: %s\n", err.msg);
        return 1;
    }
    int64_t id = 0;
    rdb_run_info_t info = {.run_key = "nan", .algorithm = "fasgd", .workers = 32, .seed = 9};
    CHECK_INT_EQ(rdb_run_begin(db, &info, &id, &err), 0);
    CHECK_INT_EQ(rdb_metric(db, id, 0, 0, "train_loss", 2.0, &err), 0);
    CHECK_INT_EQ(rdb_metric(db, id, 1, 10, "train_loss", INFINITY, &err), 0);
    CHECK_INT_EQ(rdb_metric(db, id, 2, 20, "train_loss", -INFINITY, &err), 0);
    CHECK_INT_EQ(rdb_metric(db, id, 3, 30, "train_loss", NAN, &err), 0);
    CHECK_INT_EQ(rdb_metric(db, id, 3, 30, "val_error", 0.75, &err), 0);
    rdb_run_end_t end = {.status = "diverged", .status_detail = "loss became NaN at update 3",
                         .vtime_ns = 30, .updates = 4, .events = 8, .wall_s = NAN,
                         .events_per_s = INFINITY};
    CHECK_INT_EQ(rdb_run_end(db, id, &end, &err), 0);
    if (err.msg[0]) fprintf(stderr, "error: %s\n", err.msg);

    sqlite3 *h = rdb_handle(db);
    CHECK_INT_EQ(rdbt_int(h, "SELECT value = 2.0 AND nonfinite IS NULL FROM metrics"
                             " WHERE update_idx = 0"), 1);
    CHECK_STR_CONTAINS(rdbt_text(h, "SELECT quote(value) || ' ' || nonfinite FROM metrics"
                                    " WHERE name = 'train_loss' AND update_idx = 1", txt),
                       "NULL inf");
    CHECK_STR_CONTAINS(rdbt_text(h, "SELECT quote(value) || ' ' || nonfinite FROM metrics"
                                    " WHERE name = 'train_loss' AND update_idx = 2", txt),
                       "NULL -inf");
    CHECK_STR_CONTAINS(rdbt_text(h, "SELECT quote(value) || ' ' || nonfinite FROM metrics"
                                    " WHERE name = 'train_loss' AND update_idx = 3", txt),
                       "NULL nan");
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM metrics WHERE value IS NULL"), 3);
    /* The documented way to read a metric back as a C double. */
    CHECK_STR_CONTAINS(rdbt_text(h, "SELECT group_concat(coalesce(value, nonfinite), ',')"
                                    " FROM (SELECT * FROM metrics WHERE name = 'train_loss'"
                                    " ORDER BY update_idx)", txt),
                       "2.0,inf,-inf,nan");

    CHECK_STR_CONTAINS(rdbt_text(h, "SELECT status || ': ' || status_detail FROM runs", txt),
                       "diverged: loss became NaN at update 3");
    CHECK_INT_EQ(rdbt_int(h, "SELECT wall_s IS NULL AND events_per_s IS NULL FROM runs"), 1);
    CHECK_INT_EQ(rdbt_int(h, "SELECT final_train_loss IS NULL AND final_val_error = 0.75"
                             " AND status = 'diverged' FROM run_summary"), 1);

    /* The table's CHECK keeps the encoding unambiguous for other writers too. */
    static const char *const bad[] = {
        "INSERT INTO metrics VALUES (1, 9, 0, 'x', NULL, NULL)",
        "INSERT INTO metrics VALUES (1, 9, 0, 'x', 1.0, 'nan')",
        "INSERT INTO metrics VALUES (1, 9, 0, 'x', NULL, 'NaN')",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = sqlite3_exec(h, bad[i], NULL, NULL, NULL);
        fprintf(stderr, "%s -> %d (%s)\n", bad[i], rc, sqlite3_errmsg(h));
        CHECK_INT_EQ(rc & 0xff, SQLITE_CONSTRAINT);
    }
    rdb_close(db);
    rdbt_remove_db(path);
    rmdir(dir);
    return check_exit();
}
