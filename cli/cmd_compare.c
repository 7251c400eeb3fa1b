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
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/table.h"
#include "results/rdb.h"
#include "results/rdb_read.h"

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

/* One metric of one run (results/rdb_read.h). */
typedef rdb_series_t series_t;

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

/* ---- the command line ---------------------------------------------------------------- */

typedef struct compare_args {
    const char *base_path, *cand_path;
    double rtol;         /* --rtol X */
    const char *metrics; /* --metrics a,b,...; NULL: every metric */
    int format;          /* cli_format_t: --csv, --json */
} compare_args_t;

/* --metrics a,b,...: names separated by single commas. */
static bool opt_metrics(void *target, const char *opt, const char *v, char *msg, size_t size)
{
    compare_args_t *a = target;
    if (!*v || strstr(v, ",,") || v[0] == ',' || v[strlen(v) - 1] == ',') {
        snprintf(msg, size, "%s %s: expected names separated by commas", opt, v);
        return false;
    }
    a->metrics = v;
    return true;
}

static const cli_opt_t compare_opts[] = {
    {.name = "--rtol", .kind = CLI_ARG_DOUBLE, .off = offsetof(compare_args_t, rtol),
     .min = 0.0, .expect = "expected a number >= 0"},
    {.name = "--metrics", .kind = CLI_ARG_CUSTOM, .parse = opt_metrics},
    {.name = NULL},
};

/* 0 with the arguments in a, or the exit code (with --help: after the usage text, and
 * *help set). */
static int parse_compare_args(int argc, char **argv, compare_args_t *a, bool *help)
{
    static const char *const missing[] = {"BASELINE.db CANDIDATE.db", "CANDIDATE.db"};
    *a = (compare_args_t){.rtol = 0.0, .format = CLI_FMT_TEXT};
    cli_opt_set_t sets[] = {{compare_opts, a, 0}, {cli_format_opts, &a->format, 0}};
    cli_cmd_spec_t spec = {.cmd = "compare", .npos = 2, .missing = missing, .sets = sets,
                           .nsets = 2};
    const char *pos[2];
    int rc = cli_args_parse_fixed(&spec, argc, argv, pos, help);
    if (rc == 0 && *help) usage(stdout);
    if (rc == 0 && !*help) a->base_path = pos[0], a->cand_path = pos[1];
    return rc;
}

/* Every name of --metrics (but vtime_s) must be a metric of one of the databases. */
static int check_metrics(rdb_t *hb, rdb_t *hc, const compare_args_t *a)
{
    if (!a->metrics) return SGD_EXIT_OK;
    int rc = SGD_EXIT_OK;
    char *copy = sgd_xstrdup(a->metrics), *save = NULL;
    for (char *m = strtok_r(copy, ",", &save); m && rc == SGD_EXIT_OK;
         m = strtok_r(NULL, ",", &save))
        if (strcmp(m, "vtime_s") != 0 && !rdb_has_metric(hb, m) && !rdb_has_metric(hc, m))
            rc = cli_bad_input("compare: --metrics: no metric \"%s\" in %s or %s", m,
                               a->base_path, a->cand_path);
    free(copy);
    return rc;
}

/* ---- comparing ------------------------------------------------------------------------ */

/* The comparison under way: the two databases, their statements, the report's rows and
 * the counts of its summary line. */
typedef struct compare {
    const compare_args_t *a;
    rdb_t *hb, *hc;
    sqlite3_stmt *latest; /* baseline: the latest finished run of each configuration */
    sqlite3_stmt *find;   /* candidate: the latest finished run with a key */
    sqlite3_stmt *names;  /* baseline: the metric names of a run */
    cli_table_t t;
    int count[4], nruns, nmissing_runs, nnew;
    bool core_differs;
} compare_t;

/* Which baseline run a row is about: key (shortened), scenario, "ALG P=.. seed=..". */
typedef struct run_label {
    char key[13], label[160];
    const char *scenario;
} run_label_t;

static void add_verdict(compare_t *c, const run_label_t *l, const char *what, verdict_t v,
                        const char *detail)
{
    verdict_row(&c->t, l->key, l->scenario, l->label, what, verdict_name[v], detail);
    c->count[v]++;
}

static int prepare_statements(compare_t *c)
{
    sgd_err_t err = {{0}};
    if (rdb_read_prepare(c->hb, RDB_Q_LATEST_FINISHED, &c->latest, &err) ||
        rdb_read_prepare(c->hc, RDB_Q_FINISHED_OF_KEY, &c->find, &err) ||
        rdb_read_prepare(c->hb, RDB_Q_RUN_METRIC_NAMES, &c->names, &err))
        return cli_bad_input("compare: %s", err.msg);
    return SGD_EXIT_OK;
}

/* The status and final virtual time of the baseline run at c->latest and the candidate's
 * at c->find. */
static void compare_status_vtime(compare_t *c, const run_label_t *l)
{
    char detail[200];
    const char *bcore = (const char *)sqlite3_column_text(c->latest, 9);
    const char *ccore = (const char *)sqlite3_column_text(c->find, 4);
    if (bcore && ccore && strcmp(bcore, ccore) != 0) c->core_differs = true;
    const char *bs = (const char *)sqlite3_column_text(c->latest, 6);
    const char *cs = (const char *)sqlite3_column_text(c->find, 1);
    verdict_t v = strcmp(bs, cs) == 0 ? V_IDENTICAL : V_REGRESSED;
    snprintf(detail, sizeof detail, "%s -> %s", bs, cs);
    add_verdict(c, l, "status", v, v == V_IDENTICAL ? bs : detail);
    int64_t zero = 0;
    int64_t bv = sqlite3_column_int64(c->latest, 7), cv = sqlite3_column_int64(c->find, 2);
    double bvd = (double)bv * 1e-9, cvd = (double)cv * 1e-9;
    char k0 = 0;
    series_t a = {1, &zero, &zero, &bvd, &k0}, b = {1, &zero, &zero, &cvd, &k0};
    v = compare_series(&a, &b, c->a->rtol, detail, sizeof detail);
    if (v != V_IDENTICAL) snprintf(detail, sizeof detail, "%.9g s -> %.9g s", bvd, cvd);
    add_verdict(c, l, "vtime_s", v, detail);
}

/* Every (selected) metric series of baseline run bid against candidate run cid. */
static void compare_metrics(compare_t *c, const run_label_t *l, int64_t bid, int64_t cid)
{
    char detail[200];
    sqlite3_bind_int64(c->names, 1, bid);
    while (sqlite3_step(c->names) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(c->names, 0);
        if (!in_list(c->a->metrics, name)) continue;
        series_t a, b;
        sgd_err_t err = {{0}};
        /* An unreadable series compares as an empty one: regressed or missing. */
        rdb_read_series(c->hb, bid, name, &a, &err);
        rdb_read_series(c->hc, cid, name, &b, &err);
        verdict_t v = b.n == 0 ? V_MISSING
                               : compare_series(&a, &b, c->a->rtol, detail, sizeof detail);
        if (v == V_MISSING) snprintf(detail, sizeof detail, "no %s rows in the candidate", name);
        add_verdict(c, l, name, v, detail);
        rdb_series_free(&a);
        rdb_series_free(&b);
    }
    sqlite3_reset(c->names);
}

/* The baseline run at the current row of c->latest against the candidate's run with its
 * key, or a missing row. */
static void compare_run(compare_t *c)
{
    sqlite3_stmt *lb = c->latest;
    int64_t bid = sqlite3_column_int64(lb, 0);
    const char *key = (const char *)sqlite3_column_text(lb, 1);
    run_label_t l = {.scenario = (const char *)sqlite3_column_text(lb, 2)};
    snprintf(l.key, sizeof l.key, "%s", key ? key : "");
    snprintf(l.label, sizeof l.label, "%s P=%lld seed=%lld",
             (const char *)sqlite3_column_text(lb, 3), (long long)sqlite3_column_int64(lb, 4),
             (long long)sqlite3_column_int64(lb, 5));
    c->nruns++;
    sqlite3_bind_text(c->find, 1, key, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(c->find) != SQLITE_ROW) {
        sqlite3_reset(c->find);
        add_verdict(c, &l, "(run)", V_MISSING, "no finished run with this key in the candidate");
        c->nmissing_runs++;
        return;
    }
    int64_t cid = sqlite3_column_int64(c->find, 0);
    compare_status_vtime(c, &l);
    sqlite3_reset(c->find);
    compare_metrics(c, &l, bid, cid);
}

/* Configurations only the candidate has are news, not failures: how many. */
static int count_new(rdb_t *hb, rdb_t *hc)
{
    int nnew = 0;
    sgd_err_t err = {{0}};
    rdb_finished_keys_not_in(hc, hb, &nnew, &err); /* on an error: those counted so far */
    return nnew;
}

/* The per-run table and the summary line; returns the exit code they stand for. */
static int render(const compare_t *c)
{
    cli_format_t fmt = (cli_format_t)c->a->format;
    cli_table_print(&c->t, fmt, stdout);
    fprintf(fmt == CLI_FMT_TEXT ? stdout : stderr,
            "%scompare: %d baseline run%s (%d missing in the candidate), rtol %g: %d identical, "
            "%d within tolerance, %d regressed, %d missing; %d configuration%s only in the "
            "candidate\n", fmt == CLI_FMT_TEXT ? "\n" : "", c->nruns, c->nruns == 1 ? "" : "s",
            c->nmissing_runs, c->a->rtol, c->count[V_IDENTICAL], c->count[V_WITHIN],
            c->count[V_REGRESSED], c->count[V_MISSING], c->nnew, c->nnew == 1 ? "" : "s");
    if (c->core_differs)
        fprintf(stderr, "compare: note: the databases' runs used different BLAS kernels "
                        "(runs.blas_core); last-bit differences are expected, use --rtol\n");
    return c->count[V_REGRESSED] || c->count[V_MISSING] ? SGD_EXIT_FAILURE : SGD_EXIT_OK;
}

/* Compares every finished baseline run with the candidate and prints the report. */
static int compare_dbs(rdb_t *hb, rdb_t *hc, const compare_args_t *a)
{
    static const char *const head[] = {"key", "scenario", "run", "metric", "verdict", "detail"};
    compare_t c = {.a = a, .hb = hb, .hc = hc};
    int rc = prepare_statements(&c);
    if (rc == SGD_EXIT_OK) {
        cli_table_init(&c.t, 6, head);
        while (sqlite3_step(c.latest) == SQLITE_ROW) compare_run(&c);
        c.nnew = count_new(hb, hc);
        rc = render(&c);
        cli_table_free(&c.t);
    }
    sqlite3_finalize(c.latest);
    sqlite3_finalize(c.find);
    sqlite3_finalize(c.names);
    return rc;
}

int cli_compare_main(int argc, char **argv)
{
    compare_args_t a;
    bool help;
    int rc = parse_compare_args(argc, argv, &a, &help);
    if (rc || help) return rc;
    sgd_err_t err = {{0}};
    rdb_t *base = NULL, *cand = NULL;
    if (rdb_open_readonly(a.base_path, &base, &err) ||
        rdb_open_readonly(a.cand_path, &cand, &err)) {
        rdb_close(base);
        return cli_bad_input("compare: %s", err.msg);
    }
    rc = check_metrics(base, cand, &a);
    if (rc == SGD_EXIT_OK) rc = compare_dbs(base, cand, &a);
    rdb_close(base);
    rdb_close(cand);
    return rc;
}
