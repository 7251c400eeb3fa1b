/* How readers reach a database (results/rdb_reader.h), tested where the shell tests cannot
 * go: the tests run as root in CI, and root may create files in a directory without write
 * permission, so "the directory is not writable" is only reached for real on a read-only
 * mount or as another user (tests/cli/test_cli_databases_untouched.sh does both where it
 * can).  Here, the decision between SQLite's normal read-only mode, its immutable mode and
 * a refusal is checked case by case as a function of the facts, the URI escaping byte by
 * byte, and names that mean something in a URI ('?', '#', '%', "file:", spaces, UTF-8) are
 * shown to open exactly the file they name, for writing and for reading, leaving nothing
 * beside it. */
#include "results/rdb_reader.h"

#include <stdlib.h>
#include <sys/stat.h>

#include "results/rdb.h"
#include "tests/check.h"
#include "tests/results/rdb_test_util.h"

static rdb_read_mode_t mode_of(bool dir_w, bool file_w, bool wal, bool wal_empty, bool shm)
{
    rdb_reader_facts_t f = {.dir_writable = dir_w, .file_writable = file_w,
                            .wal_exists = wal, .wal_empty = wal && wal_empty,
                            .shm_exists = shm};
    return rdb_read_mode(&f);
}

static void test_the_decision(void)
{
    /* Writable place, no log: read normally (the reader removes what it creates). */
    CHECK_INT_EQ(mode_of(true, true, false, false, false), RDB_READ_NORMAL);
    /* Read-only directory or mount, no log: immutable, so nothing needs creating. */
    CHECK_INT_EQ(mode_of(false, true, false, false, false), RDB_READ_IMMUTABLE);
    CHECK_INT_EQ(mode_of(false, false, false, false, false), RDB_READ_IMMUTABLE);
    /* Read-only file in a writable directory, no log: SQLite would create side files that
     * nobody could remove afterwards; immutable. */
    CHECK_INT_EQ(mode_of(true, false, false, false, false), RDB_READ_IMMUTABLE);
    /* A stale PATH-shm alone changes nothing: there is no log to read. */
    CHECK_INT_EQ(mode_of(false, false, false, false, true), RDB_READ_IMMUTABLE);
    /* A log exists (a writer is running, or crashed): only a normal open sees its
     * transactions, which works if PATH-shm exists or can be created. */
    CHECK_INT_EQ(mode_of(true, true, true, false, true), RDB_READ_NORMAL);
    CHECK_INT_EQ(mode_of(true, false, true, false, false), RDB_READ_NORMAL);
    CHECK_INT_EQ(mode_of(false, false, true, false, true), RDB_READ_NORMAL);
    /* A log with content, no PATH-shm, and no way to create it: immutable mode would hide
     * its transactions, so refuse. */
    CHECK_INT_EQ(mode_of(false, false, true, false, false), RDB_READ_REFUSE);
    CHECK_INT_EQ(mode_of(false, true, true, false, false), RDB_READ_REFUSE);
    /* An empty log holds nothing: immutable is exact. */
    CHECK_INT_EQ(mode_of(false, false, true, true, false), RDB_READ_IMMUTABLE);
}

static void expect_uri(const char *path, const char *query, const char *want)
{
    char *got = rdb_uri(path, query);
    CHECK_STR_EQ(got, want);
    free(got);
}

static void test_the_uri(void)
{
    expect_uri("/data/r.db", NULL, "file:///data/r.db");
    expect_uri("r.db", "mode=ro", "file:r.db?mode=ro");
    expect_uri("sub/r-1_a~.db", NULL, "file:sub/r-1_a~.db");
    expect_uri("/data/a b?.db", "immutable=1", "file:///data/a%20b%3F.db?immutable=1");
    expect_uri("x#y%z&w=v.db", NULL, "file:x%23y%25z%26w%3Dv.db");
    expect_uri("file:r.db", NULL, "file:file%3Ar.db");
    expect_uri("//host/r.db", NULL, "file:////host/r.db"); /* empty authority kept */
    expect_uri("caf\xc3\xa9.db", NULL, "file:caf%C3%A9.db");
    expect_uri("a\nb\x7f.db", NULL, "file:a%0Ab%7F.db");
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* rdb_open and rdb_open_readonly on name (in dir) reach exactly that file. */
static void test_a_name(const char *dir, const char *name)
{
    char path[512], side[600];
    rdbt_path(path, dir, name);
    sgd_err_t err = {{0}};
    rdb_t *db = NULL;
    CHECK_INT_EQ(rdb_open(path, &db, &err), 0);
    if (!db) {
        fprintf(stderr, "rdb_open(%s): %s\n", path, err.msg);
        return;
    }
    rdb_close(db);
    CHECK(exists(path));
    CHECK_INT_EQ(rdb_open_readonly(path, &db, &err), 0);
    if (db) {
        CHECK_INT_EQ(rdbt_int(rdb_handle(db), "PRAGMA user_version"), RDB_SCHEMA_VERSION);
        rdb_close(db);
    } else {
        fprintf(stderr, "rdb_open_readonly(%s): %s\n", path, err.msg);
    }
    snprintf(side, sizeof side, "%s-wal", path);
    CHECK(!exists(side));
    snprintf(side, sizeof side, "%s-shm", path);
    CHECK(!exists(side));
    rdbt_remove_db(path);
}

static void test_names_that_mean_something_in_a_uri(void)
{
    char dir[256];
    rdbt_tmpdir(dir);
    test_a_name(dir, "plain.db");
    test_a_name(dir, "a b?c=1#frag.db");
    test_a_name(dir, "100%25.db");
    test_a_name(dir, "file:x.db");
    test_a_name(dir, "caf\xc3\xa9.db");
    /* The decoded name must not be the bare "a b" SQLite would open for "a b?c=1". */
    char wrong[512];
    rdbt_path(wrong, dir, "a b");
    CHECK(!exists(wrong));
    CHECK_INT_EQ(rmdir(dir), 0); /* nothing else was left in it */
}

int main(void)
{
    test_the_decision();
    test_the_uri();
    test_names_that_mean_something_in_a_uri();
    return check_exit();
}
