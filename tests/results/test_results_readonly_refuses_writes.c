/* A read-only handle reads everything and writes nothing: SQL writes through rdb_handle
 * fail with SQLITE_READONLY, the rdb_ write functions refuse with a message naming the
 * path, and the file is unchanged afterwards. */
#include "results/rdb.h"

#include "tests/check.h"
#include "tests/results/rdb_test_util.h"

int main(void)
{
    char dir[256], path[512], txt[256];
    rdbt_tmpdir(dir);
    rdbt_path(path, dir, "ro.db");

    sgd_err_t err = {{0}};
    rdb_t *db = NULL;
    int64_t id = 0;
    rdb_run_info_t info = {.run_key = "k", .algorithm = "lsgd", .workers = 2, .seed = 3};
    rdb_run_end_t end = {.status = "complete", .digest = "abc"};
    if (rdb_open(path, &db, &err)) {
        fprintf(stderr, "rdb_open: %s\n", err.msg);
        return 1;
    }
    CHECK_INT_EQ(rdb_run_begin(db, &info, &id, &err), 0);
    CHECK_INT_EQ(rdb_metric(db, id, 0, 0, "train_loss", 2.5, &err), 0);
    CHECK_INT_EQ(rdb_run_end(db, id, &end, &err), 0);
    rdb_close(db);

    rdb_t *ro = rdbt_open_readonly(path);
    CHECK(ro != NULL);
    if (!ro) return 1;
    sqlite3 *h = rdb_handle(ro);
    CHECK_INT_EQ(sqlite3_db_readonly(h, "main"), 1);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM metrics"), 1);

    static const char *const writes[] = {
        "INSERT INTO runs(status) VALUES ('running')",
        "INSERT INTO metrics VALUES (1, 1, 1, 'train_loss', 1.0, NULL)",
        "UPDATE runs SET status = 'failed'",
        "DELETE FROM metrics",
        "CREATE TABLE extra(x)",
        "PRAGMA user_version = 2",
    };
    for (size_t i = 0; i < sizeof writes / sizeof *writes; i++) {
        int rc = sqlite3_exec(h, writes[i], NULL, NULL, NULL);
        fprintf(stderr, "%s -> %d (%s)\n", writes[i], rc, sqlite3_errmsg(h));
        CHECK_INT_EQ(rc & 0xff, SQLITE_READONLY);
    }

    CHECK_INT_EQ(rdb_run_begin(ro, &info, &id, &err), -1);
    CHECK_STR_CONTAINS(err.msg, path);
    CHECK_STR_CONTAINS(err.msg, "read-only");
    CHECK_INT_EQ(rdb_metric(ro, 1, 1, 1, "train_loss", 1.0, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "read-only");
    CHECK_INT_EQ(rdb_traffic(ro, 1, "push", 1, 1, 0, 0, &err), -1);
    CHECK_INT_EQ(rdb_staleness(ro, 1, 0, 1, &err), -1);
    CHECK_INT_EQ(rdb_flush(ro, &err), -1);
    CHECK_INT_EQ(rdb_run_end(ro, 1, &end, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "read-only");
    rdb_close(ro);

    /* Unchanged, as seen by a fresh connection. */
    CHECK_INT_EQ(rdb_open_readonly(path, &ro, &err), 0);
    if (ro) {
        h = rdb_handle(ro);
        CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM runs"), 1);
        CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM metrics"), 1);
        CHECK_INT_EQ(rdbt_int(h, "PRAGMA user_version"), RDB_SCHEMA_VERSION);
        CHECK_STR_CONTAINS(rdbt_text(h, "SELECT status FROM runs", txt), "complete");
        rdb_close(ro);
    }
    rdbt_remove_db(path);
    rmdir(dir);
    return check_exit();
}
