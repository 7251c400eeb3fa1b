/* Paths and files that cannot be results databases are refused with a message that names
 * the path and says why: a text file, an SQLite database of another program, one written
 * by a newer sgdsim, a directory, a path below a regular file, a missing directory, a
 * location the kernel refuses to create files in, and a read-only open of a missing file.
 * A refused file is left as it was (its journal mode too).  Also the argument checks of
 * the write functions.  The cases do not rely on file permissions, so they stay meaningful
 * when the tests run as root. */
#include "results/rdb.h"

#include <stdlib.h>

#include "tests/check.h"
#include "tests/results/rdb_test_util.h"

/* Expects rdb_open (or rdb_open_readonly) of path to fail with a message containing path
 * and each of the given fragments. */
static void expect_refused(int readonly, const char *path, const char *frag1, const char *frag2)
{
    sgd_err_t err = {{0}};
    rdb_t *db = (rdb_t *)&err; /* must be reset to NULL on failure */
    int rc = readonly ? rdb_open_readonly(path, &db, &err) : rdb_open(path, &db, &err);
    fprintf(stderr, "%s(%s) -> %d: %s\n", readonly ? "rdb_open_readonly" : "rdb_open", path, rc,
            err.msg);
    CHECK_INT_EQ(rc, -1);
    CHECK(db == NULL);
    CHECK_STR_CONTAINS(err.msg, path);
    if (frag1) CHECK_STR_CONTAINS(err.msg, frag1);
    if (frag2) CHECK_STR_CONTAINS(err.msg, frag2);
    if (rc == 0) rdb_close(db);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
}

int main(void)
{
    char dir[256], path[512], sub[512];
    rdbt_tmpdir(dir);

    /* Not SQLite at all: a text file, and a short file that cannot even hold a header. */
    rdbt_path(path, dir, "notes.txt");
    write_file(path, "epoch,loss\n1,0.5\n2,0.25\nthis is plainly not an SQLite database\n");
    expect_refused(0, path, "not an sgdsim results database", "file is not SQLite");
    expect_refused(1, path, "not an sgdsim results database", "file is not SQLite");
    rdbt_path(path, dir, "short.db");
    write_file(path, "SQLite");
    expect_refused(0, path, "file is not SQLite", NULL);

    /* An SQLite database of another program: its tables must not be mixed with ours. */
    rdbt_path(path, dir, "other.db");
    sqlite3 *h = NULL;
    CHECK_INT_EQ(sqlite3_open(path, &h), SQLITE_OK);
    CHECK_INT_EQ(sqlite3_exec(h, "CREATE TABLE runs(x); INSERT INTO runs VALUES(1)", 0, 0, 0),
                 SQLITE_OK);
    sqlite3_close(h);
    expect_refused(0, path, "not an sgdsim results database", "not written by sgdsim");
    CHECK_INT_EQ(sqlite3_open(path, &h), SQLITE_OK);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM runs"), 1); /* left untouched */
    /* Refused before the switch to WAL, which would have changed the file's header. */
    CHECK_INT_EQ(rdbt_int(h, "SELECT journal_mode = 'delete' FROM pragma_journal_mode"), 1);
    sqlite3_close(h);
    rdbt_path(path, dir, "otherapp.db");
    CHECK_INT_EQ(sqlite3_open(path, &h), SQLITE_OK);
    CHECK_INT_EQ(sqlite3_exec(h, "PRAGMA application_id = 1234", 0, 0, 0), SQLITE_OK);
    sqlite3_close(h);
    expect_refused(0, path, "not an sgdsim results database", "application_id");

    /* Written by a newer sgdsim: refused for writing and for reading. */
    rdbt_path(path, dir, "newer.db");
    sgd_err_t err = {{0}};
    rdb_t *db = NULL;
    CHECK_INT_EQ(rdb_open(path, &db, &err), 0);
    rdb_close(db);
    CHECK_INT_EQ(sqlite3_open(path, &h), SQLITE_OK);
    CHECK_INT_EQ(sqlite3_exec(h, "PRAGMA user_version = 8", 0, 0, 0), SQLITE_OK);
    sqlite3_close(h);
    expect_refused(0, path, "was written by a newer sgdsim", "schema 8 > 6");
    expect_refused(1, path, "was written by a newer sgdsim", "schema 8 > 6");

    /* Our database with objects sgdsim did not create (a trigger that would zero every
     * metric sgdsim writes, an index): refused for writing, naming them, and unchanged; once
     * they are dropped it opens, with the schema untrusted and SQLite's defensive mode on. */
    rdbt_path(path, dir, "planted.db");
    CHECK_INT_EQ(rdb_open(path, &db, &err), 0);
    rdb_close(db);
    CHECK_INT_EQ(sqlite3_open(path, &h), SQLITE_OK);
    CHECK_INT_EQ(sqlite3_exec(h, "CREATE TRIGGER zero AFTER INSERT ON metrics BEGIN UPDATE"
                                 " metrics SET value = 0 WHERE run_id = new.run_id; END;"
                                 " CREATE INDEX mine ON runs(seed)", 0, 0, 0), SQLITE_OK);
    sqlite3_close(h);
    expect_refused(0, path, "2 schema objects that sgdsim did not create",
                   "(index mine, trigger zero)");
    CHECK_INT_EQ(sqlite3_open(path, &h), SQLITE_OK);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM sqlite_master WHERE name IN ('zero', 'mine')"),
                 2);
    CHECK_INT_EQ(sqlite3_exec(h, "DROP TRIGGER zero; DROP INDEX mine", 0, 0, 0), SQLITE_OK);
    sqlite3_close(h);
    CHECK_INT_EQ(rdb_open(path, &db, &err), 0);
    int trusted = -1, defensive = -1;
    sqlite3_db_config(rdb_handle(db), SQLITE_DBCONFIG_TRUSTED_SCHEMA, -1, &trusted);
    sqlite3_db_config(rdb_handle(db), SQLITE_DBCONFIG_DEFENSIVE, -1, &defensive);
    CHECK_INT_EQ(trusted, 0);
    CHECK_INT_EQ(defensive, 1);
    rdb_close(db);

    /* Places a database cannot be created. */
    expect_refused(0, dir, "is a directory", NULL);
    expect_refused(0, "/etc/passwd/x.db", "'/etc/passwd' is not a directory", NULL);
    snprintf(sub, sizeof sub, "%s/no/such/dir/x.db", dir);
    expect_refused(0, sub, "cannot create results database", "does not exist");
    snprintf(sub, sizeof sub, "%s/file.db/x.db", dir);
    rdbt_path(path, dir, "file.db");
    write_file(path, "");
    expect_refused(0, sub, "is not a directory", NULL);
    /* procfs refuses new files even to root. */
    expect_refused(0, "/proc/sgdsim-results-test.db", "cannot", NULL);
    expect_refused(0, "", NULL, NULL);

    /* Read-only open of a missing file, and of an empty file, are errors (and create
     * nothing). */
    rdbt_path(path, dir, "missing.db");
    expect_refused(1, path, "no such results database", NULL);
    CHECK(access(path, F_OK) != 0);
    rdbt_path(path, dir, "empty.db");
    write_file(path, "");
    expect_refused(1, path, "not an sgdsim results database", NULL);

    /* Argument checks of the writer. */
    rdbt_path(path, dir, "args.db");
    CHECK_INT_EQ(rdb_open(path, &db, &err), 0);
    if (db) {
        int64_t id = 0;
        rdb_run_info_t info = {.run_key = "k"};
        CHECK_INT_EQ(rdb_run_begin(db, &info, &id, &err), 0);
        CHECK_INT_EQ(rdb_metric(db, id + 1, 0, 0, "x", 1.0, &err), -1);
        CHECK_STR_CONTAINS(err.msg, "not active");
        CHECK_INT_EQ(rdb_metric(db, id, 0, 0, "", 1.0, &err), -1);
        CHECK_STR_CONTAINS(err.msg, "metric name is empty");
        CHECK_INT_EQ(rdb_traffic(db, id, "push", UINT64_MAX, 0, 0, 0, &err), -1);
        CHECK_STR_CONTAINS(err.msg, "exceeds");
        CHECK_INT_EQ(rdb_staleness(db, id, -1, 1, &err), -1);
        CHECK_STR_CONTAINS(err.msg, "must be >= 0");
        rdb_run_end_t end = {.status = "done"};
        CHECK_INT_EQ(rdb_run_end(db, id, &end, &err), -1);
        CHECK_STR_CONTAINS(err.msg, "must be complete, failed or diverged");
        CHECK_STR_CONTAINS(err.msg, path);
        end.status = "failed";
        end.status_detail = "scenario error";
        CHECK_INT_EQ(rdb_run_end(db, id, &end, &err), 0);
        char txt[256];
        CHECK_STR_CONTAINS(rdbt_text(rdb_handle(db), "SELECT status || ': ' || status_detail ||"
                                                     " ' ' || (digest IS NULL) FROM runs", txt),
                           "failed: scenario error 1");
        rdb_close(db);
    }

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return check_exit();
}
