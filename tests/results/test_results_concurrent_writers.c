/* Several processes write runs into one database at the same time, as a sweep with -jN
 * does, and all succeed with no rows lost: WAL mode, the busy timeout and BEGIN
 * IMMEDIATE transactions serialise the writers instead of failing them.  The writers also
 * create the database together, from a path that does not exist yet, so the schema is
 * created exactly once. */
#include "results/rdb.h"

#include <signal.h>
#include <sys/wait.h>

#include "tests/check.h"
#include "tests/results/rdb_test_util.h"

#define NWRITERS 4
#define RUNS_PER_WRITER 3
#define ROWS_PER_RUN 10000 /* metric rows: more than two batches */
#define TIMEOUT_S 120      /* the parent gives up (and kills) after this long */

/* Child: waits for the start signal, then writes RUNS_PER_WRITER complete runs. */
static _Noreturn void writer(const char *path, int writer_id, int start_fd)
{
    char go;
    if (read(start_fd, &go, 1) != 1) _exit(5);
    sgd_err_t err = {{0}};
    rdb_t *db = NULL;
    if (rdb_open(path, &db, &err)) {
        fprintf(stderr, "writer %d: %s\n", writer_id, err.msg);
        _exit(2);
    }
    for (int k = 0; k < RUNS_PER_WRITER; k++) {
        char key[64];
        snprintf(key, sizeof key, "w%d-r%d", writer_id, k);
        rdb_run_info_t info = {.run_key = key, .algorithm = "sasgd", .workers = writer_id,
                               .seed = (uint64_t)k};
        int64_t id = 0;
        int bad = rdb_run_begin(db, &info, &id, &err);
        for (int64_t u = 0; !bad && u < ROWS_PER_RUN; u++)
            bad = rdb_metric(db, id, u, u, "train_loss", (double)(writer_id * 1000 + k), &err);
        for (int i = 0; !bad && i < 10; i++)
            bad = rdb_traffic(db, id, i % 2 ? "push" : "fetch", 1, 100, 0, 0, &err);
        for (int64_t tau = 0; !bad && tau < 20; tau++) bad = rdb_staleness(db, id, tau, 1, &err);
        rdb_run_end_t end = {.status = "complete", .updates = ROWS_PER_RUN, .digest = key};
        if (!bad) bad = rdb_run_end(db, id, &end, &err);
        if (bad) {
            fprintf(stderr, "writer %d run %d: %s\n", writer_id, k, err.msg);
            _exit(3);
        }
    }
    rdb_close(db);
    _exit(0);
}

int main(void)
{
    char dir[256], path[512], sql[256], txt[256];
    rdbt_tmpdir(dir);
    rdbt_path(path, dir, "sweep.db");

    int start[2];
    if (pipe(start)) {
        perror("pipe");
        return 1;
    }
    pid_t pids[NWRITERS];
    for (int w = 0; w < NWRITERS; w++) {
        pids[w] = fork();
        if (pids[w] < 0) {
            perror("fork");
            return 1;
        }
        if (pids[w] == 0) {
            close(start[1]);
            writer(path, w, start[0]);
        }
    }
    close(start[0]);
    /* Release all writers at once; each reads one byte. */
    char go[NWRITERS];
    memset(go, 'g', sizeof go);
    CHECK_INT_EQ(write(start[1], go, sizeof go), NWRITERS);
    close(start[1]);

    double t0 = rdbt_now();
    int running = NWRITERS;
    while (running > 0) {
        for (int w = 0; w < NWRITERS; w++) {
            int status;
            if (pids[w] > 0 && waitpid(pids[w], &status, WNOHANG) == pids[w]) {
                CHECK(WIFEXITED(status));
                CHECK_INT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
                pids[w] = -1;
                running--;
            }
        }
        if (running > 0 && rdbt_now() - t0 > TIMEOUT_S) {
            fprintf(stderr, "writers still running after %d s, killing them\n", TIMEOUT_S);
            for (int w = 0; w < NWRITERS; w++)
                if (pids[w] > 0) kill(pids[w], SIGKILL);
            CHECK(0);
            break;
        }
        rdbt_sleep_ms(5);
    }
    fprintf(stderr, "%d writers x %d runs x %d rows in %.2f s\n", NWRITERS, RUNS_PER_WRITER,
            ROWS_PER_RUN, rdbt_now() - t0);

    rdb_t *ro = rdbt_open_readonly(path);
    CHECK(ro != NULL);
    if (!ro) return 1;
    sqlite3 *h = rdb_handle(ro);
    CHECK_STR_CONTAINS(rdbt_text(h, "PRAGMA integrity_check", txt), "ok");
    CHECK_INT_EQ(rdbt_int(h, "PRAGMA user_version"), RDB_SCHEMA_VERSION);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM runs"), NWRITERS * RUNS_PER_WRITER);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM runs WHERE status = 'complete'"),
                 NWRITERS * RUNS_PER_WRITER);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(DISTINCT run_key) FROM runs"),
                 NWRITERS * RUNS_PER_WRITER);
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM metrics"),
                 (int64_t)NWRITERS * RUNS_PER_WRITER * ROWS_PER_RUN);
    /* Each run's rows carry its own writer's value: no rows went to the wrong run. */
    CHECK_INT_EQ(rdbt_int(h, "SELECT count(*) FROM metrics m JOIN runs r ON r.id = m.run_id"
                             " WHERE m.value <> r.workers * 1000 + r.seed"), 0);
    for (int w = 0; w < NWRITERS; w++) {
        for (int k = 0; k < RUNS_PER_WRITER; k++) {
            snprintf(sql, sizeof sql, "SELECT count(*) FROM metrics m JOIN runs r ON"
                     " r.id = m.run_id WHERE r.run_key = 'w%d-r%d'", w, k);
            CHECK_INT_EQ(rdbt_int(h, sql), ROWS_PER_RUN);
        }
    }
    CHECK_INT_EQ(rdbt_int(h, "SELECT sum(sent_msgs) FROM traffic"),
                 NWRITERS * RUNS_PER_WRITER * 10);
    CHECK_INT_EQ(rdbt_int(h, "SELECT sum(count) FROM staleness"), NWRITERS * RUNS_PER_WRITER * 20);
    rdb_close(ro);
    rdbt_remove_db(path);
    rmdir(dir);
    return check_exit();
}
