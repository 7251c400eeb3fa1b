/* results/rdb_rows.h: the typed row readers give what was written, field by field.  Three
 * runs (two finished, one still running) with metrics, a non-finite final value, a staleness
 * histogram and traffic are written through rdb_; the iterators read them back: runs in id
 * and in scenario order, finished only, NULLs as has_ = false / NaN / NULL, the final row of
 * every metric of the finished runs, one run's final value, staleness and traffic, and the
 * sorted metric names; every metric row, staleness bin and traffic kind of the finished runs in
 * order (the running run's left out).  The same runs read from a schema 2 copy give NULL sweep axes. */
#include <math.h>

#include <sqlite3.h>

#include "results/rdb.h"
#include "results/rdb_rows.h"
#include "tests/check.h"
#include "tests/results/rdb_test_util.h"

static int64_t begin(rdb_t *db, const char *scenario, uint64_t seed, const char *axes)
{
    sgd_err_t err = {{0}};
    rdb_run_info_t info = {.run_key = "key", .scenario_name = scenario, .algorithm = "fasgd",
                           .workers = 4, .seed = seed, .backend = "cpu",
                           .config_json = "{\"seed\":1}", .config_hash = "hash",
                           .blas_core = "Haswell", .sweep_axes = axes};
    int64_t id = -1;
    CHECK_INT_EQ(rdb_run_begin(db, &info, &id, &err), 0);
    return id;
}

static void end(rdb_t *db, int64_t id, const char *status)
{
    sgd_err_t err = {{0}};
    rdb_run_end_t e = {.status = status, .vtime_ns = 2000, .updates = 20, .wall_s = 1.5};
    CHECK_INT_EQ(rdb_run_end(db, id, &e, &err), 0);
}

/* b (id 1, complete), a (id 2, diverged, final val_error nan), c (id 3, running). */
static void write_runs(const char *path)
{
    sgd_err_t err = {{0}};
    rdb_t *db = NULL;
    CHECK_INT_EQ(rdb_open(path, &db, &err), 0);
    int64_t b = begin(db, "b", 1, "[\"seed\"]"), a = begin(db, "a", 2, NULL);
    for (int64_t u = 0; u <= 20; u += 10) {
        CHECK_INT_EQ(rdb_metric(db, b, u, u * 100, "val_error", 0.5 - 0.01 * (double)u, &err), 0);
        CHECK_INT_EQ(rdb_metric(db, a, u, u * 100, "val_error", u == 20 ? NAN : 0.4, &err), 0);
        CHECK_INT_EQ(rdb_metric(db, b, u, u * 100, "train_loss", 2.0 - (double)u / 20, &err), 0);
    }
    CHECK_INT_EQ(rdb_staleness(db, b, 0, 3, &err), 0);
    CHECK_INT_EQ(rdb_staleness(db, b, 4, 1, &err), 0);
    CHECK_INT_EQ(rdb_staleness(db, b, 9, 0, &err), 0);
    CHECK_INT_EQ(rdb_traffic(db, b, "push", 10, 2000000, 5, 1000000, &err), 0);
    CHECK_INT_EQ(rdb_traffic(db, b, "fetch", 7, 500000, 0, 0, &err), 0);
    end(db, b, "complete");
    end(db, a, "diverged");
    int64_t c = begin(db, "c", 3, NULL); /* running: none of its rows is read */
    CHECK_INT_EQ(rdb_metric(db, c, 0, 0, "val_error", 0.9, &err), 0);
    CHECK_INT_EQ(rdb_staleness(db, c, 1, 1, &err), 0);
    CHECK_INT_EQ(rdb_traffic(db, c, "push", 1, 1, 1, 1, &err), 0);
    CHECK_INT_EQ(rdb_flush(db, &err), 0);
    rdb_close(db);
}

static void check_runs(rdb_t *db, bool schema3)
{
    sgd_err_t err = {{0}};
    rdb_rows_it_t *it = NULL;
    rdb_run_row_t r;
    CHECK_INT_EQ(rdb_runs_open(db, &(rdb_runs_query_t){0}, &it, &err), 0);
    if (!it) return;
    CHECK_INT_EQ(rdb_runs_next(it, &r, &err), 1);
    CHECK_INT_EQ(r.id, 1);
    CHECK_STR_EQ(r.scenario, "b");
    CHECK_STR_EQ(r.status, "complete");
    CHECK_STR_EQ(r.run_key, "key");
    CHECK_STR_EQ(r.config_hash, "hash");
    CHECK_STR_EQ(r.algorithm, "fasgd");
    CHECK_STR_EQ(r.blas_core, "Haswell");
    CHECK_STR_EQ(r.config_json, "{\"seed\":1}");
    CHECK(r.has_workers && r.has_updates && r.has_vtime_ns);
    CHECK_INT_EQ(r.workers, 4);
    CHECK_INT_EQ(r.seed, 1);
    CHECK_INT_EQ(r.updates, 20);
    CHECK_INT_EQ(r.vtime_ns, 2000);
    CHECK_NEAR(r.wall_s, 1.5, 0);
    if (schema3) CHECK_STR_EQ(r.sweep_axes, "[\"seed\"]");
    else CHECK(r.sweep_axes == NULL);
    CHECK_INT_EQ(rdb_runs_next(it, &r, &err), 1);
    CHECK(r.id == 2 && r.sweep_axes == NULL);
    CHECK_INT_EQ(rdb_runs_next(it, &r, &err), 1);
    CHECK_STR_EQ(r.status, "running");
    CHECK(!r.has_updates && !r.has_vtime_ns && isnan(r.wall_s));
    CHECK_INT_EQ(rdb_runs_next(it, &r, &err), 0);
    rdb_rows_close(it);
    /* finished only, by scenario: a (2), b (1) */
    CHECK_INT_EQ(rdb_runs_open(db, &(rdb_runs_query_t){.finished_only = true,
                                                      .by_scenario = true}, &it, &err), 0);
    CHECK_INT_EQ(rdb_runs_next(it, &r, &err), 1);
    CHECK_INT_EQ(r.id, 2);
    CHECK_INT_EQ(rdb_runs_next(it, &r, &err), 1);
    CHECK_INT_EQ(r.id, 1);
    CHECK_INT_EQ(rdb_runs_next(it, &r, &err), 0);
    rdb_rows_close(it);
}

static void check_finals(rdb_t *db)
{
    sgd_err_t err = {{0}};
    rdb_rows_it_t *it = NULL;
    rdb_metric_row_t m;
    CHECK_INT_EQ(rdb_finals_open(db, &it, &err), 0);
    if (!it) return;
    CHECK_INT_EQ(rdb_metrics_next(it, &m, &err), 1); /* run 1, train_loss */
    CHECK(m.run_id == 1 && m.update == 20 && m.vtime_ns == 2000 && m.nonfinite == NULL);
    CHECK_STR_EQ(m.name, "train_loss");
    CHECK_NEAR(m.value, 1.0, 0);
    CHECK_INT_EQ(rdb_metrics_next(it, &m, &err), 1); /* run 1, val_error */
    CHECK_STR_EQ(m.name, "val_error");
    CHECK_NEAR(m.value, 0.3, 1e-15);
    CHECK_INT_EQ(rdb_metrics_next(it, &m, &err), 1); /* run 2, val_error: nan */
    CHECK(m.run_id == 2 && isnan(m.value));
    CHECK_STR_EQ(m.nonfinite, "nan");
    CHECK_INT_EQ(rdb_metrics_next(it, &m, &err), 0);
    rdb_rows_close(it);
}

static void check_facts(rdb_t *db)
{
    sgd_err_t err = {{0}};
    rdb_run_facts_t *f = NULL;
    CHECK_INT_EQ(rdb_run_facts_open(db, &f, &err), 0);
    if (!f) return;
    rdb_metric_row_t m;
    CHECK_INT_EQ(rdb_run_final(f, 1, "val_error", &m, &err), 1);
    CHECK_NEAR(m.value, 0.3, 1e-15);
    CHECK_INT_EQ(rdb_run_final(f, 1, "no_such", &m, &err), 0);
    rdb_staleness_row_t s;
    CHECK_INT_EQ(rdb_run_staleness(f, 1, &s, &err), 0);
    CHECK_NEAR(s.mean_tau, 1.0, 1e-15); /* (0*3 + 4*1) / 4 */
    CHECK(s.has_max_tau && s.max_tau == 4); /* the bin at 9 counted nothing */
    CHECK_NEAR(s.gradients, 4, 0);
    CHECK_INT_EQ(rdb_run_staleness(f, 2, &s, &err), 0);
    CHECK(isnan(s.mean_tau) && !s.has_max_tau && isnan(s.gradients));
    rdb_traffic_row_t t;
    CHECK_INT_EQ(rdb_run_traffic(f, 1, &t, &err), 0);
    CHECK_NEAR(t.sent_mb, 2.5, 1e-12);
    CHECK_NEAR(t.skipped_mb, 1.0, 1e-12);
    CHECK(t.has_sent_msgs && t.sent_msgs == 17);
    CHECK_INT_EQ(rdb_run_traffic(f, 2, &t, &err), 0);
    CHECK(isnan(t.sent_mb) && !t.has_sent_msgs);
    rdb_run_facts_close(f);
    char **names;
    int n;
    CHECK_INT_EQ(rdb_metric_names(db, &names, &n, &err), 0);
    CHECK_INT_EQ(n, 2);
    if (n == 2) {
        CHECK_STR_EQ(names[0], "train_loss");
        CHECK_STR_EQ(names[1], "val_error");
    }
    rdb_names_free(names, n);
}

/* Every row of the finished runs: curves by run, name, update; bins; traffic kinds. */
static void check_whole_rows(rdb_t *db)
{
    sgd_err_t err = {{0}};
    rdb_rows_it_t *it = NULL;
    rdb_metric_row_t m = {0};
    static const char *const name[] = {"train_loss", "val_error", "val_error"};
    static const int64_t run[] = {1, 1, 2};
    CHECK_INT_EQ(rdb_curves_of_finished_open(db, &it, &err), 0);
    for (int k = 0; it && k < 3; k++)
        for (int64_t u = 0; u <= 20; u += 10) {
            CHECK_INT_EQ(rdb_metrics_next(it, &m, &err), 1);
            CHECK(m.run_id == run[k] && m.update == u);
            CHECK_STR_EQ(m.name, name[k]);
        }
    CHECK(isnan(m.value)); /* run 2's last val_error */
    CHECK_INT_EQ(rdb_metrics_next(it, &m, &err), 0);
    rdb_rows_close(it);
    rdb_staleness_bin_t b = {0};
    static const int64_t tau[] = {0, 4, 9}, count[] = {3, 1, 0};
    CHECK_INT_EQ(rdb_staleness_bins_open(db, &it, &err), 0);
    for (int k = 0; it && k < 3; k++) {
        CHECK_INT_EQ(rdb_staleness_bins_next(it, &b, &err), 1);
        CHECK(b.run_id == 1 && b.tau == tau[k] && b.count == count[k]);
    }
    CHECK_INT_EQ(rdb_staleness_bins_next(it, &b, &err), 0);
    rdb_rows_close(it);
    rdb_traffic_kind_row_t t = {0};
    CHECK_INT_EQ(rdb_traffic_kinds_open(db, &it, &err), 0);
    CHECK_INT_EQ(rdb_traffic_kinds_next(it, &t, &err), 1); /* by kind: fetch, then push */
    CHECK_STR_EQ(t.kind, "fetch");
    CHECK(t.run_id == 1 && t.sent_msgs == 7 && t.sent_bytes == 500000 && t.skipped_msgs == 0);
    CHECK_INT_EQ(rdb_traffic_kinds_next(it, &t, &err), 1);
    CHECK_STR_EQ(t.kind, "push");
    CHECK(t.sent_msgs == 10 && t.sent_bytes == 2000000 && t.skipped_msgs == 5 &&
          t.skipped_bytes == 1000000);
    CHECK_INT_EQ(rdb_traffic_kinds_next(it, &t, &err), 0);
    rdb_rows_close(it);
}

static void check_file(const char *path, bool schema3)
{
    sgd_err_t err = {{0}};
    rdb_t *db = NULL;
    CHECK_INT_EQ(rdb_open_readonly(path, &db, &err), 0);
    if (!db) return;
    check_runs(db, schema3);
    check_finals(db);
    check_facts(db);
    check_whole_rows(db);
    rdb_close(db);
}

int main(void)
{
    char dir[256], path[512];
    rdbt_tmpdir(dir);
    rdbt_path(path, dir, "rows.db");
    write_runs(path);
    check_file(path, true);
    sqlite3 *raw = NULL;
    CHECK_INT_EQ(sqlite3_open(path, &raw), SQLITE_OK);
    CHECK_INT_EQ(sqlite3_exec(raw, RDBT_UNDO_SCHEMA_3_SQL, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(raw);
    check_file(path, false);
    rdbt_remove_db(path);
    rmdir(dir);
    return check_exit();
}
