/* A writer killed with SIGKILL at an arbitrary moment leaves a valid database: integrity
 * check 'ok', the killed run still 'running' with whole batches of rows only (a multiple of
 * RDB_BATCH_ROWS, because each batch is one transaction), and the runs completed before it
 * intact with all their rows.  The database stays writable afterwards.  Repeated for
 * several kill delays, so kills land both between and inside batch transactions.  The
 * writer's clock stands still, so that its only transactions are batches of RDB_BATCH_ROWS
 * however slowly it runs (a sanitizer build under load): the rows a commit every
 * RDB_COMMIT_EVERY_MS writes are whole transactions too, but of any size. */
#include "results/rdb.h"
#include "results/rdb_internal.h"

#include <signal.h>
#include <sys/wait.h>

#include "tests/check.h"
#include "tests/results/rdb_test_util.h"

#define COMPLETE_ROWS 3000   /* metric rows of each completed run */
#define CHILD_MAX_SECONDS 60 /* a child left alive by a broken parent stops on its own */

/* Rows of this round's killed run: the newest run, once the child has begun it. */
#define KILLED_ROWS_SQL                                                                   \
    "SELECT count(*) FROM metrics m JOIN runs r ON r.id = m.run_id WHERE"                 \
    " r.run_key = 'killed' AND r.id = (SELECT max(id) FROM runs)"

/* Writes one complete run with COMPLETE_ROWS metrics, 2 traffic kinds, 5 staleness bins. */
static int64_t write_complete_run(const char *path)
{
    sgd_err_t err = {{0}};
    rdb_t *db = NULL;
    int64_t id = -1;
    if (rdb_open(path, &db, &err)) {
        fprintf(stderr, "rdb_open: %s\n", err.msg);
        return -1;
    }
    rdb_run_info_t info = {.run_key = "done", .algorithm = "csgd", .workers = 4, .seed = 1};
    rdb_run_end_t end = {.status = "complete", .updates = COMPLETE_ROWS, .digest = "ok"};
    int bad = rdb_run_begin(db, &info, &id, &err);
    for (int64_t u = 0; !bad && u < COMPLETE_ROWS; u++)
        bad = rdb_metric(db, id, u, u, "train_loss", (double)u, &err);
    if (!bad) bad = rdb_traffic(db, id, "allreduce", 1, 2, 3, 4, &err);
    if (!bad) bad = rdb_traffic(db, id, "broadcast", 1, 2, 3, 4, &err);
    for (int64_t tau = 0; !bad && tau < 5; tau++) bad = rdb_staleness(db, id, tau, 7, &err);
    if (!bad) bad = rdb_run_end(db, id, &end, &err);
    if (bad) fprintf(stderr, "writing a complete run: %s\n", err.msg);
    rdb_close(db);
    return bad ? -1 : id;
}

static int64_t frozen_clock(void) { return 0; }

/* Child: begins a run and writes metrics until killed. */
static _Noreturn void child_writer(const char *path)
{
    sgd_err_t err = {{0}};
    rdb_t *db = NULL;
    int64_t id;
    rdb_run_info_t info = {.run_key = "killed", .algorithm = "sasgd", .workers = 8, .seed = 2};
    if (rdb_open(path, &db, &err)) {
        fprintf(stderr, "child: %s\n", err.msg);
        _exit(2);
    }
    rdb_set_clock(db, frozen_clock);
    if (rdb_run_begin(db, &info, &id, &err)) {
        fprintf(stderr, "child: %s\n", err.msg);
        _exit(2);
    }
    double t0 = rdbt_now();
    for (int64_t u = 0;; u++) {
        if (rdb_metric(db, id, u, 10 * u, "train_loss", 1.0 / (double)(u + 1), &err)) {
            fprintf(stderr, "child: %s\n", err.msg);
            _exit(3);
        }
        if (u % 1024 == 0 && rdbt_now() - t0 > CHILD_MAX_SECONDS) _exit(4);
    }
}

int main(void)
{
    char dir[256], path[512], txt[256];
    rdbt_tmpdir(dir);
    rdbt_path(path, dir, "kill.db");
    static const int delays_ms[] = {0, 1, 3, 7, 15, 40, 100};
    const int ndelays = (int)(sizeof delays_ms / sizeof *delays_ms);

    int64_t complete_ids[16];
    int ncomplete = 0;
    for (int k = 0; k < ndelays; k++) {
        int64_t done = write_complete_run(path);
        CHECK(done > 0);
        if (done <= 0) break;
        complete_ids[ncomplete++] = done;

        /* No SQLite connection is open across fork(): the parent's were all closed. */
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 1;
        }
        if (pid == 0) child_writer(path);

        /* Wait (bounded) until the child has committed at least one batch. */
        sgd_err_t err = {{0}};
        rdb_t *ro = NULL;
        int64_t rows = 0;
        double t0 = rdbt_now();
        if (rdb_open_readonly(path, &ro, &err) == 0) {
            while (rdbt_now() - t0 < 30) {
                rows = rdbt_int(rdb_handle(ro), KILLED_ROWS_SQL);
                if (rows > 0) break;
                int status;
                if (waitpid(pid, &status, WNOHANG) == pid) {
                    fprintf(stderr, "child exited early with status %d\n", status);
                    pid = -1;
                    break;
                }
                rdbt_sleep_ms(1);
            }
            rdb_close(ro);
        } else {
            fprintf(stderr, "rdb_open_readonly: %s\n", err.msg);
        }
        CHECK(rows > 0);
        if (pid < 0) break;
        rdbt_sleep_ms(delays_ms[k]);
        kill(pid, SIGKILL);
        int status = 0;
        waitpid(pid, &status, 0);
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

        /* The aftermath, through a writable handle (which also recovers the WAL). */
        rdb_t *db = NULL;
        CHECK_INT_EQ(rdb_open(path, &db, &err), 0);
        if (!db) {
            fprintf(stderr, "reopen after kill: %s\n", err.msg);
            break;
        }
        sqlite3 *h = rdb_handle(db);
        CHECK_STR_CONTAINS(rdbt_text(h, "PRAGMA integrity_check", txt), "ok");
        CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
        int64_t killed_rows = rdbt_int(h, KILLED_ROWS_SQL);
        fprintf(stderr, "delay %3d ms: killed run has %lld rows\n", delays_ms[k],
                (long long)killed_rows);
        CHECK(killed_rows >= RDB_BATCH_ROWS);
        CHECK_INT_EQ(killed_rows % RDB_BATCH_ROWS, 0);
        CHECK_STR_CONTAINS(rdbt_text(h, "SELECT status FROM runs WHERE id = (SELECT max(id)"
                                        " FROM runs)", txt), "running");
        CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM runs WHERE run_key = 'killed' AND"
                                 " status <> 'running'"), 0);
        CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM runs WHERE run_key = 'killed' AND"
                                 " finished_at IS NOT NULL"), 0);
        for (int i = 0; i < ncomplete; i++) {
            char sql[256];
            snprintf(sql, sizeof sql, "SELECT status FROM runs WHERE id = %lld",
                     (long long)complete_ids[i]);
            CHECK_STR_CONTAINS(rdbt_text(h, sql, txt), "complete");
            snprintf(sql, sizeof sql, "SELECT count(*) FROM metrics WHERE run_id = %lld",
                     (long long)complete_ids[i]);
            CHECK_INT_EQ(rdbt_int(h, sql), COMPLETE_ROWS);
            snprintf(sql, sizeof sql, "SELECT sum(value) FROM metrics WHERE run_id = %lld",
                     (long long)complete_ids[i]);
            CHECK_INT_EQ(rdbt_int(h, sql), (int64_t)COMPLETE_ROWS * (COMPLETE_ROWS - 1) / 2);
            snprintf(sql, sizeof sql, "SELECT count(*) FROM traffic WHERE run_id = %lld",
                     (long long)complete_ids[i]);
            CHECK_INT_EQ(rdbt_int(h, sql), 2);
            snprintf(sql, sizeof sql, "SELECT sum(count) FROM staleness WHERE run_id = %lld",
                     (long long)complete_ids[i]);
            CHECK_INT_EQ(rdbt_int(h, sql), 35);
        }
        rdb_close(db);
    }
    CHECK_INT_EQ(ncomplete, ndelays);

    rdbt_remove_db(path);
    rmdir(dir);
    return check_exit();
}
