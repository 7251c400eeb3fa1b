/* web/study.h, web/model_json.h: a database of three seeds of one configuration and one run
 * of another, written here through the results writer, reads back as two groups whose band
 * is the seeds' mean and sample sd at each update; a hostile metric name and tag come out
 * escaped for a <script>; a long series is decimated with its exact rows in the second
 * document; two databases get compare's verdicts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/rdb.h"
#include "tests/check.h"
#include "web/bands.h"
#include "web/model_json.h"
#include "web/study.h"
#include "web/verdicts.h"

#define HOSTILE "</script><img onerror=x>\xe2\x80\xa8"

/* One finished run: metric "loss" = base + seed at updates 0..n-1. */
static void write_run(rdb_t *db, const char *config, int64_t seed, int n, double base)
{
    sgd_err_t err = {{0}};
    rdb_tag_t tag = {"note", HOSTILE};
    rdb_run_info_t info = {.run_key = config, .scenario_name = "s", .algorithm = "csgd",
                           .workers = 2, .seed = (uint64_t)seed, .config_json = config,
                           .config_hash = "h", .tags = &tag, .ntags = 1};
    int64_t id;
    CHECK(rdb_run_begin(db, &info, &id, &err) == 0);
    for (int u = 0; u < n; u++) {
        CHECK(rdb_metric(db, id, u, (int64_t)u * 1000000, "loss", base + (double)seed + u, &err) == 0);
        CHECK(rdb_metric(db, id, u, (int64_t)u * 1000000, HOSTILE, 1.0, &err) == 0);
    }
    rdb_run_end_t end = {.status = "complete", .vtime_ns = (int64_t)n * 1000000, .updates = n};
    CHECK(rdb_run_end(db, id, &end, &err) == 0);
}

static void make_db(const char *path, int n)
{
    sgd_err_t err = {{0}};
    rdb_t *db;
    unlink(path);
    CHECK(rdb_open(path, &db, &err) == 0);
    const char *a = "{\"algorithm\":{\"name\":\"csgd\"},\"optimizer\":{\"lr\":0.1},\"seed\":1}";
    for (int64_t seed = 1; seed <= 3; seed++) write_run(db, a, seed, n, 0);
    write_run(db, "{\"algorithm\":{\"name\":\"csgd\"},\"optimizer\":{\"lr\":0.2},\"seed\":1}", 1,
              n, 10);
    rdb_close(db);
}

static void check_groups(const web_study_t *s)
{
    CHECK_INT_EQ(s->nruns, 4);
    CHECK_INT_EQ(s->ngroups, 2);
    CHECK_INT_EQ(s->group[0].n, 3);
    CHECK(strcmp(s->group[0].label, "optimizer.lr=0.1") == 0);
    const web_band_t *b = NULL;
    for (int i = 0; i < s->group[0].nbands; i++)
        if (strcmp(s->group[0].band[i].name, "loss") == 0) b = &s->group[0].band[i];
    CHECK(b != NULL);
    if (!b) return;
    CHECK_INT_EQ(b->n, 50);
    CHECK_NEAR(b->sum[7].mean, 2.0 + 7, 1e-12); /* seeds 1, 2, 3: mean 2 + u, sd 1 */
    CHECK_NEAR(b->sum[7].sd, 1.0, 1e-12);
    CHECK_INT_EQ(b->sum[7].n, 3);
    CHECK_NEAR(b->vtime_s[7], 0.007, 1e-12);
    CHECK_NEAR(b->final.mean, 2.0 + 49, 1e-12);
}

static void check_json(const web_study_t *s)
{
    web_buf_t data = {0}, series = {0}, exact = {0};
    web_model_opts_t o = {.generator = "test", .columns = 10};
    web_model_json(s, NULL, &o, &data, &series, &exact);
    const char *block[] = {data.p, series.p, exact.p};
    for (int k = 0; k < 3; k++) {
        CHECK(strchr(block[k], '<') == NULL && strchr(block[k], '>') == NULL);
        CHECK(strstr(block[k], "\xe2\x80\xa8") == NULL);
    }
    CHECK(strstr(data.p, "\\u003c/script\\u003e\\u003cimg onerror=x\\u003e\\u2028") != NULL);
    CHECK(strstr(data.p, "\"dec\":true") != NULL);   /* a band of 50 points in 10 columns */
    CHECK(strstr(series.p, "\"dec\":true") != NULL); /* a run's 50 rows */
    CHECK(strstr(exact.p, "\"n\":50,\"dec\":false,\"u\":[0,1,2,3") != NULL);
    web_buf_free(&data), web_buf_free(&series), web_buf_free(&exact);
}

int main(void)
{
    char a[] = "/tmp/test_web_model_a_XXXXXX", b[] = "/tmp/test_web_model_b_XXXXXX";
    int fa = mkstemp(a), fb = mkstemp(b);
    CHECK(fa >= 0 && fb >= 0);
    close(fa), close(fb);
    make_db(a, 50);
    make_db(b, 50);
    sgd_err_t err = {{0}};
    web_study_t s;
    const char *one[] = {a};
    CHECK(web_study_load(one, 1, &s, &err) == 0);
    check_groups(&s);
    check_json(&s);
    web_study_free(&s);

    const char *two[] = {a, b};
    CHECK(web_study_load(two, 2, &s, &err) == 0);
    web_verdicts_t v;
    CHECK(web_verdicts(&s, &v, &err) == 0);
    CHECK(v.n > 0);
    for (int i = 0; i < v.n; i++)
        CHECK(v.row[i].verdict == ANA_SAME || strcmp(v.row[i].metric, "status") == 0);
    web_verdicts_free(&v);
    web_study_free(&s);

    const char *missing[] = {"/nonexistent/x.db"};
    CHECK(web_study_load(missing, 1, &s, &err) == -1);
    CHECK(strstr(err.msg, "/nonexistent/x.db") != NULL);
    unlink(a), unlink(b);
    return check_exit();
}
