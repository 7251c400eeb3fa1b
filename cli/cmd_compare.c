/* `sgdsim compare BASELINE.db CANDIDATE.db [--rtol X] [--metrics a,b,...] [--match-on KEYS]
 * [--ignore KEYS]`: the regression test for algorithm changes and the A/B of a
 * hyper-parameter.  Runs are matched by run key, or on configuration keys
 * (cli/compare_match.h); for each matched pair the status, the final virtual time and every
 * metric's whole series (update index, virtual time, value) are compared and classified
 * (cli/compare_verdict.h) as
 *     same                        every row equal bit for bit,
 *     differs within tolerance    same rows, every value and virtual time within rtol,
 *     differs (different kernel)  the same, on runs of different BLAS kernels,
 *     better / worse              beyond rtol, the final value moved the metric's way,
 *     differs                     beyond rtol, a metric without a sense or only its path,
 *     missing                     the run or metric is in BASELINE but not in CANDIDATE,
 *     ambiguous                   several runs match, none is compared.
 * Exit code 1 when anything is worse, missing or ambiguous, so a CI job fails; 0 otherwise.
 * When a configuration was run several times, the latest finished run counts. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/compare_match.h"
#include "cli/compare_verdict.h"
#include "cli/options.h"
#include "cli/table.h"
#include "results/rdb.h"
#include "results/rdb_read.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: sgdsim compare BASELINE.db CANDIDATE.db [--rtol X] [--metrics a,b,...]\n"
        "                      [--match-on KEYS] [--ignore KEYS] [--csv | --json]\n\n"
        "Matches the finished runs of the two databases and compares, per run, the status,\n"
        "the final virtual time (vtime_s) and every metric's series: same / differs within\n"
        "tolerance (|a-b| <= X * max(|a|,|b|) for every value and virtual time) / differs\n"
        "(different kernel) / better / worse (by the final value: lower is better for losses,\n"
        "errors and vtime_s, higher for images_per_s) / differs (other metrics) / missing /\n"
        "ambiguous (several runs match).\n"
        "  --rtol X           relative tolerance (default 0: only bit-equal is the same)\n"
        "  --metrics a,b,...  compare only these metrics (vtime_s and status always)\n"
        "  --match-on KEYS    runs match when these configuration keys (a.b,c.d) and the\n"
        "                     seed agree (default: the whole configuration, the run key)\n"
        "  --ignore KEYS      runs match on the whole configuration but these keys;\n"
        "                     (with --match-on: only seed, to leave it out of the match)\n"
        "  --csv | --json     machine-readable output of the per-run table\n\n"
        "exit codes: 0 nothing worse, missing or ambiguous; 1 something worse, missing or\n"
        "ambiguous; 2 bad input (not a results database, unknown metric or key, bad --rtol)\n");
}

/* ---- the command line ---------------------------------------------------------------- */

typedef struct compare_args {
    const char *base_path, *cand_path;
    double rtol;           /* --rtol X */
    const char *metrics;   /* --metrics a,b,...; NULL: every metric */
    cli_list_t match_on;   /* --match-on values as given */
    cli_list_t ignore;     /* --ignore values as given */
    int format;            /* cli_format_t: --csv, --json */
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
    {.name = "--match-on", .kind = CLI_ARG_LIST, .off = offsetof(compare_args_t, match_on),
     .metavar = "KEYS"},
    {.name = "--ignore", .kind = CLI_ARG_LIST, .off = offsetof(compare_args_t, ignore),
     .metavar = "KEYS"},
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

/* ---- comparing ------------------------------------------------------------------------ */

/* The comparison under way: the two sides, the report's rows and the counts of its
 * summary line. */
typedef struct compare {
    const compare_args_t *a;
    const cmp_match_t *match;
    cmp_side_t base, cand;
    sqlite3_stmt *names; /* baseline: the metric names of a run */
    cli_table_t t;
    int count[CMP_NVERDICTS], nmissing_runs, nambiguous_runs, nnew;
    bool core_differs;
} compare_t;

/* Which baseline run a row is about: key (shortened), scenario, "ALG P=.. seed=..". */
typedef struct run_label {
    char key[13], label[160];
    const char *scenario;
} run_label_t;

static run_label_t label_of(const cmp_run_t *r)
{
    run_label_t l = {.scenario = r->scenario};
    snprintf(l.key, sizeof l.key, "%s", r->run_key);
    snprintf(l.label, sizeof l.label, "%s P=%lld seed=%lld", r->algorithm,
             (long long)r->workers, (long long)r->seed);
    return l;
}

/* One line of the report: which run, what was compared, the verdict and its detail. */
static void add_verdict(compare_t *c, const run_label_t *l, const char *what, cmp_verdict_t v,
                        const char *detail)
{
    int r = cli_table_row(&c->t);
    cli_table_text(&c->t, r, 0, l->key);
    cli_table_text(&c->t, r, 1, l->scenario);
    cli_table_text(&c->t, r, 2, l->label);
    cli_table_text(&c->t, r, 3, what);
    cli_table_text(&c->t, r, 4, cmp_verdict_name[v]);
    cli_table_text(&c->t, r, 5, detail);
    c->count[v]++;
}

/* The runs' status and final virtual time. */
static void compare_status_vtime(compare_t *c, const run_label_t *l, const cmp_run_t *b,
                                 const cmp_run_t *k, const cmp_rule_t *rule)
{
    char detail[200];
    cmp_verdict_t v = cmp_status(b->status, k->status);
    snprintf(detail, sizeof detail, "%s -> %s", b->status, k->status);
    add_verdict(c, l, "status", v, v == CMP_SAME ? b->status : detail);
    v = cmp_scalar((double)b->vtime_ns * 1e-9, (double)k->vtime_ns * 1e-9,
                   cmp_metric_sense("vtime_s"), rule, detail, sizeof detail);
    add_verdict(c, l, "vtime_s", v, detail);
}

/* Every (selected) metric series of baseline run b against candidate run k. */
static void compare_metrics(compare_t *c, const run_label_t *l, const cmp_run_t *b,
                            const cmp_run_t *k, const cmp_rule_t *rule)
{
    char detail[300];
    sqlite3_bind_int64(c->names, 1, b->id);
    while (sqlite3_step(c->names) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(c->names, 0);
        if (!in_list(c->a->metrics, name)) continue;
        rdb_series_t sb, sk;
        sgd_err_t err = {{0}};
        /* An unreadable series compares as an empty one: it differs or is missing. */
        rdb_read_series(c->base.db, b->id, name, &sb, &err);
        rdb_read_series(c->cand.db, k->id, name, &sk, &err);
        cmp_verdict_t v = CMP_MISSING;
        if (sk.n == 0) snprintf(detail, sizeof detail, "no %s rows in the candidate", name);
        else if (sb.n == 0) v = CMP_DIFFERS, snprintf(detail, sizeof detail, "unreadable");
        else v = cmp_series(&sb, &sk, cmp_metric_sense(name), rule, detail, sizeof detail);
        add_verdict(c, l, name, v, detail);
        rdb_series_free(&sb);
        rdb_series_free(&sk);
    }
    sqlite3_reset(c->names);
}

/* Several runs share b's signature: say which, compare none. */
static void report_ambiguous(compare_t *c, const run_label_t *l, int nbase, int ncand,
                             int first)
{
    char detail[300];
    size_t len = (size_t)snprintf(detail, sizeof detail, "%d baseline and %d candidate runs "
                                  "match (candidate ids", nbase, ncand);
    for (int i = 0; i < ncand && i < 8 && len < sizeof detail; i++)
        len += (size_t)snprintf(detail + len, sizeof detail - len, "%s %lld", i ? "," : "",
                                (long long)c->cand.by_sig[first + i]->id);
    if (len < sizeof detail)
        snprintf(detail + len, sizeof detail - len, "%s); match on more keys or ignore fewer",
                 ncand > 8 ? " ..." : "");
    add_verdict(c, l, "(run)", CMP_AMBIGUOUS, detail);
    c->nambiguous_runs++;
}

/* Baseline run b against the candidate run with its signature. */
static void compare_run(compare_t *c, const cmp_run_t *b)
{
    run_label_t l = label_of(b);
    int first, unused, ncand = cmp_side_find(&c->cand, b->sig, &first);
    int nbase = cmp_side_find(&c->base, b->sig, &unused);
    if (ncand == 0) {
        add_verdict(c, &l, "(run)", CMP_MISSING, "no finished run matches in the candidate");
        c->nmissing_runs++;
        return;
    }
    if (nbase > 1 || ncand > 1) {
        report_ambiguous(c, &l, nbase, ncand, first);
        return;
    }
    const cmp_run_t *k = c->cand.by_sig[first];
    cmp_rule_t rule = {.rtol = c->a->rtol, .kernels_differ = strcmp(b->blas_core, k->blas_core)};
    if (rule.kernels_differ) c->core_differs = true;
    compare_status_vtime(c, &l, b, k, &rule);
    compare_metrics(c, &l, b, k, &rule);
}

/* Signatures only the candidate has are news, not failures: how many. */
static int count_new(const compare_t *c)
{
    int nnew = 0, unused;
    for (int i = 0; i < c->cand.n; i++) {
        const char *sig = c->cand.by_sig[i]->sig;
        if (i > 0 && strcmp(sig, c->cand.by_sig[i - 1]->sig) == 0) continue;
        if (cmp_side_find(&c->base, sig, &unused) == 0) nnew++;
    }
    return nnew;
}

/* The per-run table and the summary line; returns the exit code they stand for. */
static int render(const compare_t *c)
{
    cli_format_t fmt = (cli_format_t)c->a->format;
    const int *n = c->count;
    char how[512];
    cmp_match_describe(c->match, how, sizeof how);
    cli_table_print(&c->t, fmt, stdout);
    fprintf(fmt == CLI_FMT_TEXT ? stdout : stderr,
            "%scompare: %d baseline run%s matched %s (%d missing in the candidate, %d "
            "ambiguous), rtol %g: %d same, %d differ within tolerance, %d differ (different "
            "kernel), %d better, %d worse, %d differ, %d missing, %d ambiguous; %d "
            "configuration%s only in the candidate\n", fmt == CLI_FMT_TEXT ? "\n" : "",
            c->base.n, c->base.n == 1 ? "" : "s", how, c->nmissing_runs, c->nambiguous_runs,
            c->a->rtol, n[CMP_SAME], n[CMP_WITHIN], n[CMP_KERNEL], n[CMP_BETTER],
            n[CMP_WORSE], n[CMP_DIFFERS], n[CMP_MISSING], n[CMP_AMBIGUOUS], c->nnew,
            c->nnew == 1 ? "" : "s");
    if (c->core_differs)
        fprintf(stderr, "compare: note: matched runs used different BLAS kernels "
                        "(runs.blas_core); last-bit differences are expected, and within "
                        "--rtol they read \"differs (different kernel)\"\n");
    return n[CMP_WORSE] || n[CMP_MISSING] || n[CMP_AMBIGUOUS] ? SGD_EXIT_FAILURE : SGD_EXIT_OK;
}

/* Compares every finished baseline run with the candidate and prints the report. */
static int compare_sides(compare_t *c)
{
    static const char *const head[] = {"key", "scenario", "run", "metric", "verdict", "detail"};
    sgd_err_t err = {{0}};
    if (rdb_read_prepare(c->base.db, RDB_Q_RUN_METRIC_NAMES, &c->names, &err))
        return cli_bad_input("compare: %s", err.msg);
    cmp_side_sign(&c->base, c->match);
    cmp_side_sign(&c->cand, c->match);
    cli_table_init(&c->t, 6, head);
    for (int i = 0; i < c->base.n; i++) compare_run(c, &c->base.run[i]);
    c->nnew = count_new(c);
    int rc = render(c);
    cli_table_free(&c->t);
    sqlite3_finalize(c->names);
    return rc;
}

/* Opens and reads both databases, checks the metrics and keys named, then compares:
 * nothing is printed before every argument is known good. */
static int compare_dbs(const compare_args_t *a, const cmp_match_t *m)
{
    compare_t c = {.a = a, .match = m, .base.path = a->base_path, .cand.path = a->cand_path};
    sgd_err_t err = {{0}};
    int rc = SGD_EXIT_OK;
    if (rdb_open_readonly(a->base_path, &c.base.db, &err) ||
        rdb_open_readonly(a->cand_path, &c.cand.db, &err))
        rc = cli_bad_input("compare: %s", err.msg);
    if (rc == SGD_EXIT_OK) rc = check_metrics(c.base.db, c.cand.db, a);
    if (rc == SGD_EXIT_OK) rc = cmp_side_load(&c.base);
    if (rc == SGD_EXIT_OK) rc = cmp_side_load(&c.cand);
    if (rc == SGD_EXIT_OK) rc = cmp_match_check(m, &c.base, &c.cand);
    if (rc == SGD_EXIT_OK) rc = compare_sides(&c);
    cmp_side_free(&c.base);
    cmp_side_free(&c.cand);
    rdb_close(c.base.db);
    rdb_close(c.cand.db);
    return rc;
}

int cli_compare_main(int argc, char **argv)
{
    compare_args_t a;
    bool help;
    int rc = parse_compare_args(argc, argv, &a, &help);
    cmp_match_t m = {.match_on = {0}, .ignore = {0}};
    if (rc == SGD_EXIT_OK && !help) rc = cmp_keys_parse(&a.match_on, "--match-on", &m.match_on);
    if (rc == SGD_EXIT_OK && !help) rc = cmp_keys_parse(&a.ignore, "--ignore", &m.ignore);
    if (rc == SGD_EXIT_OK && !help) rc = compare_dbs(&a, &m);
    cmp_keys_free(&m.match_on);
    cmp_keys_free(&m.ignore);
    cli_list_free(&a.match_on);
    cli_list_free(&a.ignore);
    return rc;
}
