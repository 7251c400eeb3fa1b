/* web/study.h, web/model_json.h: a database of three seeds of one configuration and one run
 * of another, written here through the results writer, reads back as two groups whose band
 * is the seeds' mean and sample sd at each update; a hostile metric name and tag come out
 * escaped for a <script>; the runs' series come out as gzip-compressed packs (read back
 * here as the page reads them): a long one decimated, in single precision, in the first, and
 * every one whole and exact (non-finite rows too) in the second; two databases get
 * compare's verdicts. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/rdb.h"
#include "tests/check.h"
#include "tests/web/pack_read.h"
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
    const double div[] = {1, NAN, INFINITY, -INFINITY}; /* rows of every kind */
    for (int u = 0; u < 4; u++) CHECK(rdb_metric(db, id, u, 0, "div", div[u], &err) == 0);
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

/* ---- the packs (web/pack.h), read back as the page reads them ------------------------ */

/* A series of a pack: its head and where its points start in each section. */
typedef struct packed {
    double head[5];
    size_t u, t, v;
} packed_t;

/* Series (run, metric) of the pack p (inflated) into *out, with the sections' offsets and
 * sizes; -1 when it holds none. */
static int find_series(const sgd_strbuf_t *p, int run, int metric, packed_t *out, size_t at[5],
                       size_t count[5])
{
    const unsigned char *b = (const unsigned char *)p->p;
    CHECK(p->n >= 16 && memcmp(b, "sgdpack1", 8) == 0);
    size_t ns = (size_t)webt_element(b + 8, 1, 0, 8), found = SIZE_MAX;
    memset(count, 0, 5 * sizeof *count);
    count[0] = 5 * ns;
    packed_t cur = {0};
    for (size_t k = 0; k < ns; k++) {
        double h[5];
        for (int f = 0; f < 5; f++) h[f] = webt_element(b + 16, 5 * ns, 5 * k + (size_t)f, 8);
        if ((int)h[0] == run && (int)h[1] == metric) {
            memcpy(cur.head, h, sizeof h);
            cur.u = count[1], cur.t = count[2], cur.v = ((int)h[4] & 2) ? count[4] : count[3];
            found = k;
        }
        count[1] += (size_t)h[3];
        if ((int)h[4] & 1) count[2] += (size_t)h[3];
        count[((int)h[4] & 2) ? 4 : 3] += (size_t)h[3];
    }
    at[0] = 16;
    for (int s = 1; s < 5; s++) at[s] = at[s - 1] + count[s - 1] * 8;
    CHECK(at[4] + count[4] * 4 == p->n); /* the sections fill the document exactly */
    *out = cur;
    return found == SIZE_MAX ? -1 : 0;
}

/* Run 0 (seed 1) has "loss" = 1 + u at u = 0..49, time u ms: exact in exact, every row;
 * decimated in series, single precision, each kept point on the line. */
static void check_packs(const sgd_strbuf_t *series, const sgd_strbuf_t *exact, int loss)
{
    for (int d = 0; d < 2; d++) {
        const sgd_strbuf_t *gz = d ? exact : series;
        sgd_strbuf_t p = {0};
        CHECK(gz->n > 2 && (unsigned char)gz->p[0] == 0x1f && (unsigned char)gz->p[1] == 0x8b);
        CHECK(webt_gunzip(gz, &p) == 0);
        packed_t s;
        size_t at[5], count[5];
        CHECK(find_series(&p, 0, loss, &s, at, count) == 0);
        const unsigned char *b = (const unsigned char *)p.p;
        CHECK(s.head[2] == 50 && (d ? s.head[3] == 50 : s.head[3] < 50));
        CHECK((int)s.head[4] == (d ? 1 : 3)); /* clock; series: single precision */
        double u = 0, t = 0;
        for (size_t i = 0; i < (size_t)s.head[3]; i++) {
            u += webt_element(b + at[1], count[1], s.u + i, 8);
            t += webt_element(b + at[2], count[2], s.t + i, 8);
            double v = d ? webt_element(b + at[3], count[3], s.v + i, 8)
                         : webt_element(b + at[4], count[4], s.v + i, 4);
            CHECK(d == 0 || u == (double)i);
            CHECK(t == u * 1e6);
            CHECK(v == 1 + u); /* exact, and small integers are exact in a float too */
        }
        sgd_strbuf_free(&p);
    }
}

/* Run 0's "div" rows (1, NaN, +Inf, -Inf) come out of the exact pack as those doubles. */
static void check_nonfinite(const sgd_strbuf_t *exact, int div)
{
    sgd_strbuf_t p = {0};
    CHECK(webt_gunzip(exact, &p) == 0);
    packed_t s;
    size_t at[5], count[5];
    CHECK(find_series(&p, 0, div, &s, at, count) == 0);
    CHECK(s.head[3] == 4);
    const unsigned char *b = (const unsigned char *)p.p;
    double v[4];
    for (size_t i = 0; i < 4; i++) v[i] = webt_element(b + at[3], count[3], s.v + i, 8);
    CHECK(v[0] == 1 && isnan(v[1]) && v[2] == INFINITY && v[3] == -INFINITY);
    sgd_strbuf_free(&p);
}

static int metric_index(const web_study_t *s, const char *name)
{
    for (int m = 0; m < s->nmetrics; m++)
        if (strcmp(s->metric[m], name) == 0) return m;
    return -1;
}

static void check_json(const web_study_t *s)
{
    sgd_strbuf_t data = {0}, series = {0}, exact = {0};
    web_model_opts_t o = {.generator = "test", .columns = 10};
    web_verdicts_t colors = {0};
    web_group_colors(s, &colors);
    web_model_json(s, &colors, &o, &data, &series, &exact);
    web_verdicts_free(&colors);
    CHECK(strstr(data.p, "\"verdicts\":null") != NULL);
    CHECK(strchr(data.p, '<') == NULL && strchr(data.p, '>') == NULL);
    CHECK(strstr(data.p, "\xe2\x80\xa8") == NULL);
    CHECK(strstr(data.p, "\\u003c/script\\u003e\\u003cimg onerror=x\\u003e\\u2028") != NULL);
    CHECK(strstr(data.p, "\"dec\":true") != NULL); /* a band of 50 points in 10 columns */
    int loss = metric_index(s, "loss"), div = metric_index(s, "div");
    CHECK(loss >= 0 && div >= 0);
    check_packs(&series, &exact, loss);
    check_nonfinite(&exact, div);
    sgd_strbuf_free(&data), sgd_strbuf_free(&series), sgd_strbuf_free(&exact);
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
    CHECK(web_study_load(one, 1, false, &s, &err) == 0);
    check_groups(&s);
    check_json(&s);
    web_study_free(&s);

    const char *two[] = {a, b};
    CHECK(web_study_load(two, 2, false, &s, &err) == 0);
    web_verdicts_t v;
    ana_match_t whole = {{0}, {0}, false};
    CHECK(web_verdicts(&s, &whole, &v, &err) == 0);
    CHECK(v.n > 0);
    for (int i = 0; i < v.n; i++)
        CHECK(v.row[i].verdict == ANA_SAME || strcmp(v.row[i].metric, "status") == 0);
    /* Each baseline group shares its colour with the candidate group paired with it. */
    for (int g = 0; g < s.ngroups; g++)
        for (int k = 0; k < s.ngroups; k++)
            if (s.group[g].db == 0 && s.group[k].db == 1 &&
                strcmp(strchr(s.group[g].label, ':'), strchr(s.group[k].label, ':')) == 0)
                CHECK_INT_EQ(v.color[g], v.color[k]);
    web_verdicts_free(&v);
    web_study_free(&s);

    const char *missing[] = {"/nonexistent/x.db"};
    CHECK(web_study_load(missing, 1, false, &s, &err) == -1);
    CHECK(strstr(err.msg, "/nonexistent/x.db") != NULL);
    unlink(a), unlink(b);
    return check_exit();
}
