/* The lease of a running run (results/rdb_lease.h, schema 4): a resumed sweep's clean-up
 * (rdb_delete_unfinished) removes an unfinished run only when its owner is provably gone —
 * a dead or recycled pid on this host, a reboot, a stale heartbeat on another host, no lease
 * (older schema), or the run failed — and leaves a live one alone; ids are never reused; and
 * a writer whose row was deleted or taken over stops at its next commit with an error naming
 * the database and the run, without writing a row anywhere.  The run a point's checkpoint
 * continues is kept while the point's other abandoned runs go, and a checkpoint's run that
 * the database does not hold (another id, or the same id started at another time) changes
 * nothing. */
#include "results/rdb.h"
#include "results/rdb_lease.h"
#include "results/rdb_read.h"
#include "results/rdb_resume.h"

#include <sys/wait.h>

#include "tests/check.h"
#include "tests/results/rdb_test_util.h"

static int64_t begin(rdb_t *db, const char *key)
{
    int64_t id = 0;
    sgd_err_t err = {{0}};
    rdb_run_info_t info = {.run_key = key, .host = "h"};
    CHECK_INT_EQ(rdb_run_begin(db, &info, &id, &err), 0);
    return id;
}

static void exec(sqlite3 *h, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(h, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", sql, msg);
        CHECK(0);
    }
    sqlite3_free(msg);
}

/* Deletes what is abandoned of `key` through `db`; returns how many were deleted. */
static int clean(rdb_t *db, const char *key, int *nlive, rdb_live_run_t *live)
{
    int ndel = -1;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(rdb_delete_unfinished(db, key, NULL, &ndel, nlive, live, &err), 0);
    return ndel;
}

/* A pid that no process has now: a child that has exited and been reaped. */
static int64_t dead_pid(void)
{
    pid_t pid = fork();
    if (pid == 0) _exit(0);
    waitpid(pid, NULL, 0);
    return (int64_t)pid;
}

static void live_runs_are_left_alone(const char *dir)
{
    char path[512];
    rdbt_path(path, dir, "live.db");
    rdb_t *owner = NULL, *sweep = NULL;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(rdb_open(path, &owner, &err), 0);
    CHECK_INT_EQ(rdb_open(path, &sweep, &err), 0);
    int64_t id = begin(owner, "k");
    int nlive = 0;
    rdb_live_run_t live;
    CHECK_INT_EQ(clean(sweep, "k", &nlive, &live), 0);
    CHECK_INT_EQ(nlive, 1);
    CHECK_INT_EQ(live.id, id);
    CHECK_INT_EQ(live.pid, (int64_t)getpid());
    CHECK(live.this_host);
    /* The owner goes on and ends its run. */
    CHECK_INT_EQ(rdb_metric(owner, id, 1, 10, "train_loss", 1.0, &err), 0);
    rdb_run_end_t end = {.status = "complete", .digest = "d"};
    CHECK_INT_EQ(rdb_run_end(owner, id, &end, &err), 0);
    sqlite3 *h = rdb_handle(sweep);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM run_owner"), 0); /* dropped at the end */
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM metrics"), 1);
    rdb_close(sweep);
    rdb_close(owner);
}

/* One abandoned run per way of being gone, each with key `k`, plus live ones of other
 * hosts: clean() deletes exactly the abandoned. */
static void abandoned_runs_are_deleted(const char *dir)
{
    char path[512], sql[512];
    rdbt_path(path, dir, "dead.db");
    rdb_t *db = NULL;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(rdb_open(path, &db, &err), 0);
    sqlite3 *h = rdb_handle(db);
    rdb_owner_t self;
    rdb_owner_self(&self);
    CHECK(self.start_ticks > 0);
    int64_t now = rdb_wall_ms(), stale = now - RDB_LEASE_STALE_MS - 1000;
    /* Runs begun on this handle and then closed leave their leases, as killed runs do. */
    int64_t ids[9];
    for (int i = 0; i < 9; i++) ids[i] = begin(db, "k");
    rdb_close(db);
    CHECK_INT_EQ(rdb_open(path, &db, &err), 0);
    h = rdb_handle(db);
    snprintf(sql, sizeof sql,
             "UPDATE run_owner SET pid = %lld WHERE run_id = %lld;"          /* dead pid */
             /* a recycled pid */
             "UPDATE run_owner SET start_ticks = start_ticks + 1 WHERE run_id = %lld;"
             "UPDATE run_owner SET boot_id = 'another-boot' WHERE run_id = %lld;"     /* reboot */
             "UPDATE run_owner SET host = 'elsewhere', heartbeat_ms = %lld WHERE run_id = %lld;"
             "DELETE FROM run_owner WHERE run_id = %lld;"                    /* older schema */
             "UPDATE runs SET status = 'failed' WHERE id = %lld;",
             (long long)dead_pid(), (long long)ids[0], (long long)ids[1], (long long)ids[2],
             (long long)stale, (long long)ids[3], (long long)ids[4], (long long)ids[5]);
    exec(h, sql);
    /* Live: another host with a fresh heartbeat; this process itself (twice: its pid and
     * start time are what the lease says). */
    snprintf(sql, sizeof sql,
             "UPDATE run_owner SET host = 'elsewhere', heartbeat_ms = %lld WHERE run_id = %lld",
             (long long)now, (long long)ids[6]);
    exec(h, sql);
    int nlive = 0;
    rdb_live_run_t live;
    CHECK_INT_EQ(clean(db, "k", &nlive, &live), 6);
    CHECK_INT_EQ(nlive, 3);
    CHECK_INT_EQ(live.id, ids[6]);
    CHECK(!live.this_host);
    CHECK_STR_EQ(live.host, "elsewhere");
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM runs"), 3);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM run_owner"), 3);
    /* Ids are never reused, though the largest ones were deleted. */
    exec(h, "DELETE FROM runs");
    CHECK_INT_EQ(begin(db, "k"), ids[8] + 1);
    rdb_close(db);
}

/* Three abandoned runs of `k` (failed, failed, killed) and one of another key: keeping the
 * second deletes the first and third only; keeping a run the database does not have deletes
 * nothing and says so. */
static void checkpointed_run_is_kept(const char *dir)
{
    char path[512], started[64];
    rdbt_path(path, dir, "keep.db");
    rdb_t *db = NULL;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(rdb_open(path, &db, &err), 0);
    int64_t ids[3];
    for (int i = 0; i < 3; i++) ids[i] = begin(db, "k");
    int64_t other = begin(db, "other");
    rdb_close(db);
    CHECK_INT_EQ(rdb_open(path, &db, &err), 0);
    sqlite3 *h = rdb_handle(db);
    char sql[160];
    snprintf(sql, sizeof sql, "UPDATE run_owner SET pid = %lld", (long long)dead_pid());
    exec(h, sql); /* every owner is gone */
    exec(h, "UPDATE runs SET status = 'failed' WHERE run_key = 'k' AND id < (SELECT max(id)"
            " FROM runs WHERE run_key = 'k')");
    int ndel = -1, nlive = -1;
    rdb_live_run_t live;
    rdb_keep_run_t stranger = {.id = ids[1], .started_at = "1999-01-01T00:00:00.000Z"};
    CHECK_INT_EQ(rdb_delete_unfinished(db, "k", &stranger, &ndel, &nlive, &live, &err), 0);
    CHECK(!stranger.found);
    CHECK_INT_EQ(ndel, 0);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM runs"), 4);
    rdb_keep_run_t absent = {.id = other + 100, .started_at = "x"};
    CHECK_INT_EQ(rdb_delete_unfinished(db, "k", &absent, &ndel, &nlive, &live, &err), 0);
    CHECK(!absent.found);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM runs"), 4);
    CHECK_INT_EQ(rdb_run_started_at(db, ids[1], started, sizeof started, &err), 0);
    rdb_keep_run_t keep = {.id = ids[1], .started_at = started};
    CHECK_INT_EQ(rdb_delete_unfinished(db, "k", &keep, &ndel, &nlive, &live, &err), 0);
    CHECK(keep.found);
    CHECK_INT_EQ(ndel, 2);
    CHECK_INT_EQ(nlive, 0);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM runs WHERE id IN (%lld, %lld)",
             (long long)ids[1], (long long)other);
    CHECK_INT_EQ(rdbt_int(h, sql), 2);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM runs"), 2);
    rdb_close(db);
}

/* The pure decision, for the cases a live process cannot stage. */
static void owner_alive_rules(void)
{
    rdb_owner_t self, o;
    rdb_owner_self(&self);
    int64_t now = rdb_wall_ms();
    o = self;
    CHECK(rdb_owner_alive(&o, 0, &self, now)); /* our own process, however old the beat */
    o.pid = dead_pid();
    CHECK(!rdb_owner_alive(&o, now, &self, now));
    o = self;
    snprintf(o.host, sizeof o.host, "elsewhere");
    CHECK(rdb_owner_alive(&o, now - RDB_LEASE_STALE_MS + 1000, &self, now));
    CHECK(!rdb_owner_alive(&o, now - RDB_LEASE_STALE_MS, &self, now));
    /* A heartbeat ahead of this clock: alive within the bound, stale beyond it, whatever
     * the database holds (no overflow at the extremes). */
    CHECK(rdb_owner_alive(&o, now + RDB_LEASE_AHEAD_MS - 1000, &self, now));
    CHECK(!rdb_owner_alive(&o, now + RDB_LEASE_AHEAD_MS, &self, now));
    CHECK(!rdb_owner_alive(&o, now + INT64_C(315360000000), &self, now)); /* ten years */
    CHECK(!rdb_owner_alive(&o, INT64_MAX, &self, now));
    CHECK(!rdb_owner_alive(&o, INT64_MIN, &self, now));
    CHECK(rdb_lease_age_ms(now, INT64_MIN) == INT64_MAX);
    CHECK(rdb_lease_age_ms(-2, INT64_MAX) == INT64_MIN);
    CHECK_INT_EQ(rdb_lease_age_ms(now, now + 5000), -5000);
    o = self; /* same host and boot, another pid namespace: only the heartbeat can tell */
    snprintf(o.boot_id, sizeof o.boot_id, "%.*s pid:[1]", (int)strcspn(self.boot_id, " "),
             self.boot_id);
    if (strcmp(o.boot_id, self.boot_id) != 0) {
        o.pid = dead_pid();
        CHECK(rdb_owner_alive(&o, now, &self, now));
        CHECK(!rdb_owner_alive(&o, now - RDB_LEASE_STALE_MS, &self, now));
        CHECK(!rdb_owner_alive(&o, now + RDB_LEASE_AHEAD_MS, &self, now));
    }
    CHECK(rdb_proc_start_ticks(0) == -1);
    CHECK(rdb_proc_start_ticks((int64_t)getpid()) == self.start_ticks);
}

/* A writer whose row is deleted, or whose lease is taken or whose status is changed by
 * someone else (the SQL `how`, completed with the run id), stops at its next commit. */
static void writer_stops_when_its_row_is_gone(const char *dir, const char *how)
{
    char path[512], sql[256];
    rdbt_path(path, dir, "gone.db");
    rdbt_remove_db(path);
    rdb_t *db = NULL;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(rdb_open(path, &db, &err), 0);
    int64_t id = begin(db, "k");
    CHECK_INT_EQ(rdb_metric(db, id, 0, 0, "train_loss", 2.0, &err), 0);
    sqlite3 *other = NULL;
    CHECK_INT_EQ(sqlite3_open(path, &other), SQLITE_OK);
    snprintf(sql, sizeof sql, "%s%lld", how, (long long)id);
    exec(other, sql);
    CHECK(!rdb_run_gone(db, id));
    CHECK_INT_EQ(rdb_flush(db, &err), -1);
    fprintf(stderr, "after '%s': %s\n", sql, err.msg);
    CHECK_STR_CONTAINS(err.msg, path);
    char run[32];
    snprintf(run, sizeof run, "run %lld", (long long)id);
    CHECK_STR_CONTAINS(err.msg, run);
    CHECK(rdb_run_gone(db, id));
    CHECK_INT_EQ(rdb_metric(db, id, 1, 1, "train_loss", 1.0, &err), -1);
    rdb_run_end_t end = {.status = "failed"};
    CHECK_INT_EQ(rdb_run_end(db, id, &end, &err), -1);
    CHECK_INT_EQ(rdbt_int(other, "SELECT count(*) FROM metrics"), 0);
    CHECK_INT_EQ(rdbt_int(other, "SELECT count(*) FROM runs WHERE status <> 'running' AND"
                                 " finished_at IS NOT NULL"), 0);
    sqlite3_close(other);
    rdb_close(db);
}

int main(void)
{
    char dir[256];
    rdbt_tmpdir(dir);
    live_runs_are_left_alone(dir);
    abandoned_runs_are_deleted(dir);
    checkpointed_run_is_kept(dir);
    owner_alive_rules();
    writer_stops_when_its_row_is_gone(dir, "PRAGMA foreign_keys = ON; DELETE FROM runs WHERE"
                                           " id = ");
    writer_stops_when_its_row_is_gone(dir, "UPDATE run_owner SET token = 'x' WHERE run_id ="
                                           " ");
    writer_stops_when_its_row_is_gone(dir, "UPDATE runs SET status = 'failed' WHERE id ="
                                           " ");
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return check_exit();
}
