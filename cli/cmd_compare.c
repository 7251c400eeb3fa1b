/* `sgdsim compare BASELINE.db CANDIDATE.db [--rtol X] [--metrics a,b,...]`: the regression
 * test for algorithm changes.  Runs are matched by run_key (the configuration hash, so the
 * same scenario point); for each matched run every metric's whole series (update index,
 * virtual time, value) is compared, plus the run's status and final virtual time, and
 * classified as
 *     identical         every row equal bit for bit,
 *     within tolerance  same rows, every value and virtual time within rtol (relative),
 *     regressed         anything else (values beyond rtol, other updates, other status),
 *     missing           the run or metric is in BASELINE but not in CANDIDATE.
 * Exit code 1 when anything regressed or is missing, so a CI job fails; 0 otherwise.
 * When a configuration was run several times, the latest finished run counts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/table.h"
#include "results/rdb.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: sgdsim compare BASELINE.db CANDIDATE.db [--rtol X] [--metrics a,b,...]\n\n"
        "Matches the finished runs of the two databases by run_key (configuration hash) and\n"
        "compares, per run, the status, the final virtual time (vtime_s) and every metric's\n"
        "series: identical / within tolerance (|a-b| <= X * max(|a|,|b|) for every value and\n"
        "virtual time) / regressed / missing.\n"
        "  --rtol X           relative tolerance (default 0: only identical passes)\n"
        "  --metrics a,b,...  compare only these metrics (vtime_s and status always)\n"
        "  --csv | --json     machine-readable output of the per-run table\n\n"
        "exit codes: 0 nothing regressed or missing, 1 a regression or a missing run/metric,\n"
        "2 bad input (not a results database, unknown metric, bad --rtol)\n");
}

typedef struct series {
    int n;
    int64_t *update, *vtime;
    double *value; /* NaN for non-finite, told apart by kind */
    char *kind;    /* 0 finite, 'n' nan, 'i' inf, '-' -inf */
} series_t;

static void series_free(series_t *s)
{
    free(s->update);
    free(s->vtime);
    free(s->value);
    free(s->kind);
    memset(s, 0, sizeof *s);
}

static void series_load(sqlite3 *h, int64_t run, const char *name, series_t *s)
{
    memset(s, 0, sizeof *s);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(h, "SELECT update_idx, vtime_ns, value, nonfinite FROM metrics"
                              " WHERE run_id = ?1 AND name = ?2 ORDER BY update_idx", -1, &st,
                           NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    int cap = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (s->n == cap) {
            cap = cap ? 2 * cap : 64;
            s->update = sgd_xrealloc(s->update, (size_t)cap * sizeof *s->update);
            s->vtime = sgd_xrealloc(s->vtime, (size_t)cap * sizeof *s->vtime);
            s->value = sgd_xrealloc(s->value, (size_t)cap * sizeof *s->value);
            s->kind = sgd_xrealloc(s->kind, (size_t)cap);
        }
        s->update[s->n] = sqlite3_column_int64(st, 0);
        s->vtime[s->n] = sqlite3_column_int64(st, 1);
        const char *nf = (const char *)sqlite3_column_text(st, 3);
        s->kind[s->n] = nf ? nf[0] : 0;
        s->value[s->n] = nf ? NAN : sqlite3_column_double(st, 2);
        s->n++;
    }
    sqlite3_finalize(st);
}

static double rel_diff(double a, double b)
{
    if (a == b) return 0.0;
    double m = fmax(fabs(a), fabs(b));
    return fabs(a - b) / m;
}

typedef enum { V_IDENTICAL, V_WITHIN, V_REGRESSED, V_MISSING } verdict_t;
static const char *const verdict_name[] = {"identical", "within tolerance", "regressed",
                                           "missing"};

/* Compares two series; detail receives the largest difference or the first mismatch. */
static verdict_t compare_series(const series_t *a, const series_t *b, double rtol,
                                char *detail, size_t size)
{
    detail[0] = '\0';
    if (a->n != b->n) {
        snprintf(detail, size, "%d rows in baseline, %d in candidate", a->n, b->n);
        return V_REGRESSED;
    }
    bool identical = true;
    double worst = 0.0;
    int64_t worst_update = 0;
    for (int i = 0; i < a->n; i++) {
        if (a->update[i] != b->update[i]) {
            snprintf(detail, size, "row %d: update %lld vs %lld", i, (long long)a->update[i],
                     (long long)b->update[i]);
            return V_REGRESSED;
        }
        if (a->kind[i] != b->kind[i]) {
            snprintf(detail, size, "update %lld: %s vs %s", (long long)a->update[i],
                     a->kind[i] ? "non-finite" : "finite", b->kind[i] ? "non-finite" : "finite");
            return V_REGRESSED;
        }
        /* Bitwise: the determinism contract promises equal bits, not just equal values. */
        if (memcmp(&a->value[i], &b->value[i], sizeof(double)) != 0 && !a->kind[i])
            identical = false;
        if (a->vtime[i] != b->vtime[i]) identical = false;
        double d = a->kind[i] ? 0.0 : rel_diff(a->value[i], b->value[i]);
        double dt = rel_diff((double)a->vtime[i], (double)b->vtime[i]);
        if (fmax(d, dt) > worst) worst = fmax(d, dt), worst_update = a->update[i];
    }
    if (identical) return V_IDENTICAL;
    snprintf(detail, size, "max relative difference %.3g at update %lld", worst,
             (long long)worst_update);
    return worst <= rtol ? V_WITHIN : V_REGRESSED;
}

static bool in_list(const char *list, const char *name)
{
    if (!list) return true;
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0) return true;
        if (!comma) break;
        p = comma + 1;
    }
    return false;
}


/* One line of the report: which run (key, scenario, label), what was compared, the verdict
 * and its detail. */
static void verdict_row(cli_table_t *t, const char *key, const char *scenario,
                        const char *label, const char *what, const char *verdict,
                        const char *detail)
{
    int r = cli_table_row(t);
    cli_table_text(t, r, 0, key);
    cli_table_text(t, r, 1, scenario);
    cli_table_text(t, r, 2, label);
    cli_table_text(t, r, 3, what);
    cli_table_text(t, r, 4, verdict);
    cli_table_text(t, r, 5, detail);
}

static bool has_metric(sqlite3 *h, const char *name)
{
    sqlite3_stmt *st = NULL;
    bool found = false;
    if (sqlite3_prepare_v2(h, "SELECT 1 FROM metrics WHERE name = ?1 LIMIT 1", -1, &st, NULL) ==
        SQLITE_OK) {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
        found = sqlite3_step(st) == SQLITE_ROW;
    }
    sqlite3_finalize(st);
    return found;
}

int cli_compare_main(int argc, char **argv)
{
    const char *pos[2] = {NULL, NULL}, *metrics = NULL;
    double rtol = 0.0;
    cli_format_t fmt = CLI_FMT_TEXT;
    int npos = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return SGD_EXIT_OK;
        } else if (strcmp(a, "--rtol") == 0 || strcmp(a, "--metrics") == 0) {
            if (i + 1 >= argc) return cli_bad_input("compare: %s: missing value", a);
            const char *v = argv[++i];
            if (a[2] == 'r') {
                char *end;
                rtol = strtod(v, &end);
                if (end == v || *end || !(rtol >= 0) || !isfinite(rtol))
                    return cli_bad_input("compare: --rtol %s: expected a number >= 0", v);
            } else {
                if (!*v || strstr(v, ",,") || v[0] == ',' || v[strlen(v) - 1] == ',')
                    return cli_bad_input("compare: --metrics %s: expected names separated by "
                                         "commas", v);
                metrics = v;
            }
        } else if (strcmp(a, "--csv") == 0) {
            fmt = CLI_FMT_CSV;
        } else if (strcmp(a, "--json") == 0) {
            fmt = CLI_FMT_JSON;
        } else if (a[0] == '-' && a[1]) {
            return cli_bad_input("compare: unknown option %s (see sgdsim compare --help)", a);
        } else if (npos == 2) {
            return cli_bad_input("compare: unexpected argument %s", a);
        } else {
            pos[npos++] = a;
        }
    }
    if (npos != 2) return cli_bad_input("compare: expected BASELINE.db CANDIDATE.db (see sgdsim "
                                        "compare --help)");
    sgd_err_t err = {{0}};
    rdb_t *base = NULL, *cand = NULL;
    if (rdb_open_readonly(pos[0], &base, &err) || rdb_open_readonly(pos[1], &cand, &err)) {
        rdb_close(base);
        return cli_bad_input("compare: %s", err.msg);
    }
    sqlite3 *hb = rdb_handle(base), *hc = rdb_handle(cand);
    int rc = SGD_EXIT_OK;
    if (metrics) {
        char *copy = sgd_xstrdup(metrics), *save = NULL;
        for (char *m = strtok_r(copy, ",", &save); m && rc == SGD_EXIT_OK;
             m = strtok_r(NULL, ",", &save))
            if (strcmp(m, "vtime_s") != 0 && !has_metric(hb, m) && !has_metric(hc, m))
                rc = cli_bad_input("compare: --metrics: no metric \"%s\" in %s or %s", m,
                                   pos[0], pos[1]);
        free(copy);
        if (rc) goto out_db;
    }

    /* The latest finished run of each configuration, in the baseline's order. */
    static const char *const latest_sql =
        "SELECT id, run_key, scenario, algorithm, workers, seed, status, vtime_ns, digest,"
        " blas_core FROM runs WHERE id IN (SELECT max(id) FROM runs WHERE status IN"
        " ('complete', 'diverged') GROUP BY run_key) ORDER BY scenario, algorithm, workers,"
        " seed, run_key";
    sqlite3_stmt *lb = NULL, *find = NULL, *names = NULL, *newc = NULL;
    if (sqlite3_prepare_v2(hb, latest_sql, -1, &lb, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(hc, "SELECT id, status, vtime_ns, digest, blas_core FROM runs WHERE"
                               " run_key = ?1 AND status IN ('complete', 'diverged')"
                               " ORDER BY id DESC LIMIT 1", -1, &find, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(hb, "SELECT DISTINCT name FROM metrics WHERE run_id = ?1 ORDER BY name",
                           -1, &names, NULL) != SQLITE_OK) {
        rc = cli_bad_input("compare: %s", sqlite3_errmsg(hb));
        goto out;
    }
    static const char *const head[] = {"key", "scenario", "run", "metric", "verdict", "detail"};
    cli_table_t t;
    cli_table_init(&t, 6, head);
    int count[4] = {0}, nruns = 0, nmissing_runs = 0;
    bool core_differs = false;
    while (sqlite3_step(lb) == SQLITE_ROW) {
        int64_t bid = sqlite3_column_int64(lb, 0);
        const char *key = (const char *)sqlite3_column_text(lb, 1);
        char short_key[13], label[160], detail[200];
        snprintf(short_key, sizeof short_key, "%s", key ? key : "");
        snprintf(label, sizeof label, "%s P=%lld seed=%lld",
                 (const char *)sqlite3_column_text(lb, 3), (long long)sqlite3_column_int64(lb, 4),
                 (long long)sqlite3_column_int64(lb, 5));
        const char *scenario = (const char *)sqlite3_column_text(lb, 2);
        nruns++;
        sqlite3_bind_text(find, 1, key, -1, SQLITE_TRANSIENT);
        if (sqlite3_step(find) != SQLITE_ROW) {
            sqlite3_reset(find);
            verdict_row(&t, short_key, scenario, label, "(run)", verdict_name[V_MISSING],
                        "no finished run with this key in the candidate");
            count[V_MISSING]++;
            nmissing_runs++;
            continue;
        }
        int64_t cid = sqlite3_column_int64(find, 0);
        const char *bcore = (const char *)sqlite3_column_text(lb, 9);
        const char *ccore = (const char *)sqlite3_column_text(find, 4);
        if (bcore && ccore && strcmp(bcore, ccore) != 0) core_differs = true;
        /* status */
        const char *bs = (const char *)sqlite3_column_text(lb, 6);
        const char *cs = (const char *)sqlite3_column_text(find, 1);
        verdict_t v = strcmp(bs, cs) == 0 ? V_IDENTICAL : V_REGRESSED;
        snprintf(detail, sizeof detail, "%s -> %s", bs, cs);
        verdict_row(&t, short_key, scenario, label, "status", verdict_name[v],
                    v == V_IDENTICAL ? bs : detail);
        count[v]++;
        /* final virtual time */
        series_t a = {0}, b = {0};
        int64_t zero = 0;
        int64_t bv = sqlite3_column_int64(lb, 7), cv = sqlite3_column_int64(find, 2);
        double bvd = (double)bv * 1e-9, cvd = (double)cv * 1e-9;
        char k0 = 0;
        a = (series_t){1, &zero, &zero, &bvd, &k0};
        b = (series_t){1, &zero, &zero, &cvd, &k0};
        v = compare_series(&a, &b, rtol, detail, sizeof detail);
        if (v != V_IDENTICAL) snprintf(detail, sizeof detail, "%.9g s -> %.9g s", bvd, cvd);
        sqlite3_reset(find);
        verdict_row(&t, short_key, scenario, label, "vtime_s", verdict_name[v],
                    detail);
        count[v]++;
        /* metric series */
        sqlite3_bind_int64(names, 1, bid);
        while (sqlite3_step(names) == SQLITE_ROW) {
            const char *name = (const char *)sqlite3_column_text(names, 0);
            if (!in_list(metrics, name)) continue;
            series_load(hb, bid, name, &a);
            series_load(hc, cid, name, &b);
            v = b.n == 0 ? V_MISSING : compare_series(&a, &b, rtol, detail, sizeof detail);
            if (v == V_MISSING)
                snprintf(detail, sizeof detail, "no %s rows in the candidate", name);
            verdict_row(&t, short_key, scenario, label, name, verdict_name[v],
                        detail);
            count[v]++;
            series_free(&a);
            series_free(&b);
        }
        sqlite3_reset(names);
    }
    /* Configurations only the candidate has are news, not failures. */
    int nnew = 0;
    if (sqlite3_prepare_v2(hc, "SELECT run_key FROM runs WHERE status IN ('complete',"
                               " 'diverged') GROUP BY run_key", -1, &newc, NULL) == SQLITE_OK) {
        sqlite3_stmt *inb = NULL;
        sqlite3_prepare_v2(hb, "SELECT 1 FROM runs WHERE run_key = ?1 AND status IN"
                               " ('complete', 'diverged') LIMIT 1", -1, &inb, NULL);
        while (inb && sqlite3_step(newc) == SQLITE_ROW) {
            sqlite3_bind_value(inb, 1, sqlite3_column_value(newc, 0));
            if (sqlite3_step(inb) != SQLITE_ROW) nnew++;
            sqlite3_reset(inb);
        }
        sqlite3_finalize(inb);
    }
    cli_table_print(&t, fmt, stdout);
    cli_table_free(&t);
    fprintf(fmt == CLI_FMT_TEXT ? stdout : stderr,
            "%scompare: %d baseline run%s (%d missing in the candidate), rtol %g: %d identical, "
            "%d within tolerance, %d regressed, %d missing; %d configuration%s only in the "
            "candidate\n", fmt == CLI_FMT_TEXT ? "\n" : "", nruns, nruns == 1 ? "" : "s",
            nmissing_runs, rtol, count[V_IDENTICAL], count[V_WITHIN], count[V_REGRESSED],
            count[V_MISSING], nnew, nnew == 1 ? "" : "s");
    if (core_differs)
        fprintf(stderr, "compare: note: the databases' runs used different BLAS kernels "
                        "(runs.blas_core); last-bit differences are expected, use --rtol\n");
    rc = count[V_REGRESSED] || count[V_MISSING] ? SGD_EXIT_FAILURE : SGD_EXIT_OK;
out:
    sqlite3_finalize(lb);
    sqlite3_finalize(find);
    sqlite3_finalize(names);
    sqlite3_finalize(newc);
out_db:
    rdb_close(base);
    rdb_close(cand);
    return rc;
}
