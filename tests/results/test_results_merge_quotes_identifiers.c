/* Identifiers from a database are data (issue 27, item 4): merge copies OUT's runs columns by
 * name, and a column named to close the quote and inject a SELECT (on OUT, on IN, or on both)
 * stays one column, never SQL; a 3,000-character column name merges without a fixed-size
 * buffer to overflow; merged runs keep IN's seed. */
#include "results/rdb.h"
#include "results/rdb_merge.h"

#include "tests/check.h"
#include "tests/results/rdb_test_util.h"

/* Closes the column list and selects 666 for every column when pasted unquoted. */
#define EVIL "seed\") SELECT 666, 666, 666, 666 FROM src.runs --"

static void write_run(const char *path, uint64_t seed)
{
    rdb_t *db = NULL;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(rdb_open(path, &db, &err), 0);
    int64_t id = 0;
    rdb_run_info_t info = {.run_key = "k", .host = "h", .seed = seed};
    CHECK_INT_EQ(rdb_run_begin(db, &info, &id, &err), 0);
    CHECK_INT_EQ(rdb_metric(db, id, 1, 1, "train_loss", 0.5, &err), 0);
    char digest[32];
    snprintf(digest, sizeof digest, "d%llu", (unsigned long long)seed);
    rdb_run_end_t end = {.status = "complete", .digest = digest};
    CHECK_INT_EQ(rdb_run_end(db, id, &end, &err), 0);
    rdb_close(db);
}

/* ALTER TABLE runs ADD COLUMN <name> (quoted here the SQL way) with value `value`. */
static void add_column(const char *path, const char *name, const char *value)
{
    sqlite3 *h = NULL;
    CHECK_INT_EQ(sqlite3_open(path, &h), SQLITE_OK);
    char *sql = sqlite3_mprintf("ALTER TABLE runs ADD COLUMN \"%w\" TEXT; UPDATE runs SET"
                                " \"%w\" = %Q", name, name, value);
    char *msg = NULL;
    if (sqlite3_exec(h, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "add_column: %s\n", msg);
        CHECK(0);
    }
    sqlite3_free(msg);
    sqlite3_free(sql);
    sqlite3_close(h);
}

static void merge_ok(const char *out_path, const char *in_path, int64_t copied)
{
    rdb_t *out = NULL;
    sgd_err_t err = {{0}};
    rdb_merge_stats_t st;
    CHECK_INT_EQ(rdb_open(out_path, &out, &err), 0);
    int rc = rdb_merge(out, in_path, &st, &err);
    if (rc) fprintf(stderr, "merge: %s\n", err.msg);
    CHECK_INT_EQ(rc, 0);
    CHECK_INT_EQ(st.copied, copied);
    rdb_close(out);
}

int main(void)
{
    char dir[256], in[512], out[512], t[256];
    rdbt_tmpdir(dir);
    rdbt_path(in, dir, "in.db");
    rdbt_path(out, dir, "out.db");
    write_run(in, 7);
    write_run(out, 5);

    /* OUT alone has the crafted column: nothing is injected, IN's seed is kept. */
    add_column(out, EVIL, "out");
    merge_ok(out, in, 1);
    sqlite3 *h = NULL;
    CHECK_INT_EQ(sqlite3_open(out, &h), SQLITE_OK);
    CHECK_STR_EQ(rdbt_text(h, "SELECT group_concat(seed) FROM (SELECT seed FROM runs ORDER BY"
                              " id)", t), "5,7");

    /* Both have it, and a column of 3,000 characters with a quote in it: copied as values. */
    char long_name[3001];
    memset(long_name, 'c', 3000);
    long_name[1500] = '"';
    long_name[3000] = '\0';
    write_run(in, 9); /* a second run of IN, so the merge has one to copy */
    add_column(in, EVIL, "in");
    add_column(in, long_name, "long");
    add_column(out, long_name, "x");
    merge_ok(out, in, 1);
    CHECK_STR_EQ(rdbt_text(h, "SELECT group_concat(seed) FROM (SELECT seed FROM runs ORDER BY"
                              " id)", t), "5,7,9");
    char *sql = sqlite3_mprintf("SELECT \"%w\" || '/' || \"%w\" FROM runs WHERE seed = 9",
                                EVIL, long_name);
    CHECK_STR_EQ(rdbt_text(h, sql, t), "in/long");
    sqlite3_free(sql);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM runs WHERE seed = 666"), 0);
    sqlite3_close(h);

    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
    return check_exit();
}
