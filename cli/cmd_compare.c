/* `sgdsim compare BASELINE.db CANDIDATE.db [--last K] [--alpha A] [--min-effect E] [--rtol X]
 * [--metrics a,b,...] [--match-on KEYS] [--ignore KEYS]`: the regression test for algorithm
 * changes and the A/B of a hyper-parameter.
 *
 * Configurations (a run's configuration less its seed) are paired across the two databases
 * (analysis/pairs.h), and for each pair every metric is judged over the seeds
 * (analysis/verdict.h): each run's value is the mean of the last K rows of its series (for
 * vtime_s its final virtual time), and the seeds' values of the two sides are compared —
 * same (bit-equal), within noise (--rtol, Welch's test at --alpha, --min-effect), better,
 * worse, differs, inconclusive (one seed), missing (naming the keys that differ), ambiguous.
 * A run that diverged or failed where the baseline's completed is worse, and so is its
 * shorter virtual time.  Runs without a clock (analysis/clock.h) get no virtual time.
 * This file only reads the databases (results/rdb_rows.h, rdb_read.h), parses and renders.
 *
 * Exit codes (a contract for CI): 0 nothing worse, missing or ambiguous; 1 something is;
 * 2 bad input. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/clock.h"
#include "analysis/pairs.h"
#include "analysis/verdict.h"
#include "cli/cli.h"
#include "cli/compare_side.h"
#include "cli/compare_table.h"
#include "cli/options.h"
#include "cli/table.h"
#include "results/rdb.h"
#include "results/rdb_read.h"
#include "results/rdb_rows.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: sgdsim compare BASELINE.db CANDIDATE.db [--last K] [--alpha A]\n"
        "                      [--min-effect E] [--rtol X] [--metrics a,b,...]\n"
        "                      [--match-on KEYS] [--ignore KEYS] [--csv | --json]\n\n"
        "Pairs the configurations of the two databases (a run's configuration less its\n"
        "seed) and judges, per configuration, the status, the virtual time (vtime_s) and\n"
        "every metric over the seeds: each run's value is the mean of the last K rows of\n"
        "its series, and the two sides' values are same (every series bit-equal) / within\n"
        "noise (inside --rtol, or not significant by Welch's test at --alpha, or an effect\n"
        "below --min-effect) / better / worse (lower is better for losses, errors and\n"
        "vtime_s, higher for images_per_s) / differs (other metrics) / inconclusive (one\n"
        "seed) / missing (naming the keys that differ) / ambiguous. A run that diverged or\n"
        "failed where the baseline's completed is worse. Runs of the uniform driver have no\n"
        "clock: no virtual time is compared.\n"
        "  --last K           each run's value: the mean of its last K rows (default 3)\n"
        "  --alpha A          Welch's test level, 0 < A < 1 (default 0.05)\n"
        "  --min-effect E     smallest relative change of the mean that is better or\n"
        "                     worse (default 0.01)\n"
        "  --rtol X           means within X relative are within noise (default 0)\n"
        "  --metrics a,b,...  compare only these metrics (vtime_s and status always)\n"
        "  --match-on KEYS    configurations match when these keys (a.b,c.d) agree\n"
        "                     (default: the whole configuration less the seed)\n"
        "  --ignore KEYS      configurations match on all but these keys\n"
        "  --csv | --json     machine-readable rows; statistics are numbers\n\n"
        "exit codes: 0 nothing worse, missing or ambiguous; 1 something worse, missing or\n"
        "ambiguous; 2 bad input (not a results database, unknown metric or key, bad value)\n");
}

/* ---- the command line ---------------------------------------------------------------- */

typedef struct compare_args {
    const char *base_path, *cand_path;
    ana_rule_t rule;     /* --rtol, --alpha, --min-effect */
    uint64_t last;       /* --last K */
    const char *metrics; /* --metrics a,b,...; NULL: every metric */
    cli_list_t match_on; /* --match-on values as given */
    cli_list_t ignore;   /* --ignore values as given */
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

/* --alpha A: a test level strictly between 0 and 1. */
static bool opt_alpha(void *target, const char *opt, const char *v, char *msg, size_t size)
{
    compare_args_t *a = target;
    char *end;
    double x = strtod(v, &end);
    if (end == v || *end || !(x > 0 && x < 1)) {
        snprintf(msg, size, "%s %s: expected a number between 0 and 1", opt, v);
        return false;
    }
    a->rule.alpha = x;
    return true;
}

static const cli_opt_t compare_opts[] = {
    {.name = "--rtol", .kind = CLI_ARG_DOUBLE, .off = offsetof(compare_args_t, rule.rtol),
     .min = 0.0, .expect = "expected a number >= 0"},
    {.name = "--min-effect", .kind = CLI_ARG_DOUBLE,
     .off = offsetof(compare_args_t, rule.min_effect), .min = 0.0,
     .expect = "expected a number >= 0"},
    {.name = "--alpha", .kind = CLI_ARG_CUSTOM, .parse = opt_alpha},
    {.name = "--last", .kind = CLI_ARG_U64, .off = offsetof(compare_args_t, last), .lo = 1,
     .hi = 1000000, .expect = "expected a whole number of rows >= 1"},
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
    *a = (compare_args_t){.rule = {.rtol = 0.0, .alpha = 0.05, .min_effect = 0.01},
                          .last = 3, .format = CLI_FMT_TEXT};
    cli_opt_set_t sets[] = {{compare_opts, a, 0}, {cli_format_opts, &a->format, 0}};
    cli_cmd_spec_t spec = {.cmd = "compare", .npos = 2, .missing = missing, .sets = sets,
                           .nsets = 2};
    const char *pos[2];
    int rc = cli_args_parse_fixed(&spec, argc, argv, pos, help);
    if (rc == 0 && *help) usage(stdout);
    if (rc == 0 && !*help) a->base_path = pos[0], a->cand_path = pos[1];
    return rc;
}

/* The --match-on and --ignore values as key lists; 0 or the exit code. */
static int parse_match(const compare_args_t *a, ana_match_t *m)
{
    sgd_err_t err = {{0}};
    for (int i = 0; i < a->match_on.n; i++)
        if (ana_keys_parse(a->match_on.v[i], "--match-on", &m->match_on, &err))
            return cli_bad_input("compare: %s", err.msg);
    for (int i = 0; i < a->ignore.n; i++)
        if (ana_keys_parse(a->ignore.v[i], "--ignore", &m->ignore, &err))
            return cli_bad_input("compare: %s", err.msg);
    return SGD_EXIT_OK;
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

/* ---- the report ----------------------------------------------------------------------- */

/* The comparison under way: the arguments, both sides, their pairing, the two tables (text
 * with prose, machine-readable with numbers) and the verdict counts. */
typedef struct compare {
    const compare_args_t *a;
    const ana_match_t *match;
    side_t base, cand;
    ana_pairing_t pairs;
    compare_table_t tab;
    ana_rule_t rule; /* the pair being compared: the arguments' and its kernels */
    int count[ANA_NVERDICTS];
    bool kernels_differ;
} compare_t;

/* ---- one pair of configurations ------------------------------------------------------- */

static cgroup_t group_of(const side_t *s, const ana_group_t *g)
{
    cgroup_t r = {.run = sgd_xcalloc((size_t)g->n + 1, sizeof *r.run), .n = g->n};
    for (int i = 0; i < g->n; i++) r.run[i] = &s->run[g->idx[i]];
    return r;
}

/* Whether both sides ran the same seeds. */
static bool same_seeds(const cgroup_t *b, const cgroup_t *c)
{
    if (b->n != c->n) return false;
    for (int i = 0; i < b->n; i++)
        if (b->run[i]->seed != c->run[i]->seed) return false;
    return true;
}

static bool complete(const crun_t *r)
{
    return strcmp(r->status, "complete") == 0;
}

static int count_incomplete(const cgroup_t *g)
{
    int n = 0;
    for (int i = 0; i < g->n; i++) n += !complete(g->run[i]);
    return n;
}

/* "complete" or "seed 2 diverged at update 64, ..." for one side. */
static void statuses_text(const cgroup_t *g, char *buf, size_t size)
{
    buf[0] = '\0';
    for (int i = 0, k = 0; i < g->n; i++) {
        const crun_t *r = g->run[i];
        size_t len = strlen(buf);
        if (!complete(r) && len < size)
            snprintf(buf + len, size - len, "%sseed %lld %s at update %lld", k++ ? ", " : "",
                     (long long)r->seed, r->status, (long long)r->updates);
    }
    if (!buf[0]) snprintf(buf, size, "complete");
}

/* The status row; returns its verdict (worse when a candidate run did not complete where
 * the baseline's did). */
static ana_verdict_t compare_status(compare_t *c, const clabel_t *l, const cgroup_t *b,
                                    const cgroup_t *k)
{
    bool same = same_seeds(b, k);
    for (int i = 0; same && i < b->n; i++)
        same = strcmp(b->run[i]->status, k->run[i]->status) == 0;
    ana_verdict_t v = ana_status_verdict(count_incomplete(b), b->n, count_incomplete(k), k->n,
                                         same);
    char sb[200], sk[200], detail[420];
    statuses_text(b, sb, sizeof sb);
    statuses_text(k, sk, sizeof sk);
    if (strcmp(sb, sk) == 0) snprintf(detail, sizeof detail, "%s", sb);
    else snprintf(detail, sizeof detail, "%s -> %s", sb, sk);
    compare_table_add(&c->tab, l, "status", v, detail, &(row_data_t){0});
    return v;
}

/* A status that moved overrides a metric with a sense: a run that stopped early is worse,
 * whatever its last values (or its shorter virtual time) say. */
static ana_verdict_t status_override(ana_verdict_t v, ana_verdict_t status, ana_sense_t sense)
{
    if (v == ANA_SAME || (status != ANA_WORSE && status != ANA_BETTER)) return v;
    return sense == ANA_NEUTRAL ? ANA_DIFFERS : status;
}

/* One metric's judgement from each side's per-seed values. */
typedef struct values {
    double *v;
    int n, nonfinite;
} values_t;

static void judge_row(compare_t *c, const clabel_t *l, const char *name, const values_t *vb,
                      const values_t *vk, bool bit_equal, ana_verdict_t status)
{
    ana_metric_in_t in = {.base = vb->v, .cand = vk->v, .nbase = vb->n, .ncand = vk->n,
                          .nonfinite_base = vb->nonfinite, .nonfinite_cand = vk->nonfinite,
                          .bit_equal = bit_equal};
    ana_sense_t sense = ana_metric_sense(name);
    ana_judgement_t j = ana_judge(&in, sense, &c->rule);
    ana_verdict_t v = status_override(j.verdict, status, sense);
    char detail[400];
    compare_judgement_text(&j, detail, sizeof detail);
    if (v != j.verdict) {
        size_t len = strlen(detail);
        snprintf(detail + len, sizeof detail - len, "; a run did not complete");
    }
    j.verdict = v;
    compare_table_add(&c->tab, l, name, v, detail, &(row_data_t){.j = &j});
}

/* vtime_s: each run's final virtual time, or no row of numbers without a clock. */
static void compare_vtime(compare_t *c, const clabel_t *l, const cgroup_t *b,
                          const cgroup_t *k, ana_verdict_t status)
{
    if (!b->run[0]->clock || !k->run[0]->clock) {
        compare_table_add(&c->tab, l, "vtime_s", ANA_NO_CLOCK, ANA_NO_CLOCK_TEXT, &(row_data_t){0});
        return;
    }
    values_t vb = {sgd_xcalloc((size_t)b->n + 1, sizeof(double)), b->n, 0};
    values_t vk = {sgd_xcalloc((size_t)k->n + 1, sizeof(double)), k->n, 0};
    bool equal = same_seeds(b, k);
    for (int i = 0; i < b->n; i++) vb.v[i] = (double)b->run[i]->vtime_ns * 1e-9;
    for (int i = 0; i < k->n; i++) vk.v[i] = (double)k->run[i]->vtime_ns * 1e-9;
    for (int i = 0; equal && i < b->n; i++) equal = b->run[i]->vtime_ns == k->run[i]->vtime_ns;
    judge_row(c, l, "vtime_s", &vb, &vk, equal, status);
    free(vb.v);
    free(vk.v);
}

/* Each run's series of `name` (empty when unreadable: it then differs or is missing). */
static rdb_series_t *read_series(const side_t *s, const cgroup_t *g, const char *name)
{
    rdb_series_t *sr = sgd_xcalloc((size_t)g->n + 1, sizeof *sr);
    for (int i = 0; i < g->n; i++) {
        sgd_err_t err = {{0}};
        if (rdb_read_series(s->db, g->run[i]->id, name, &sr[i], &err))
            sr[i] = (rdb_series_t){0};
    }
    return sr;
}

static void free_series(rdb_series_t *s, int n)
{
    for (int i = 0; i < n; i++) rdb_series_free(&s[i]);
    free(s);
}

/* The window value of every series that has rows. */
static values_t window_values(const rdb_series_t *s, int n, int last, int *nrows)
{
    values_t v = {sgd_xcalloc((size_t)n + 1, sizeof(double)), 0, 0};
    *nrows = 0;
    for (int i = 0; i < n; i++) {
        if (s[i].n == 0) continue;
        (*nrows)++;
        if (ana_window(&s[i], last, &v.v[v.n])) v.n++;
        else v.nonfinite++;
    }
    return v;
}

static void compare_metric(compare_t *c, const clabel_t *l, const cgroup_t *b,
                           const cgroup_t *k, const char *name, ana_verdict_t status)
{
    if (!b->run[0]->clock && strcmp(name, "images_per_s") == 0) {
        compare_table_add(&c->tab, l, name, ANA_NO_CLOCK, ANA_NO_CLOCK_TEXT, &(row_data_t){0});
        return;
    }
    rdb_series_t *sb = read_series(&c->base, b, name), *sk = read_series(&c->cand, k, name);
    int rows_b, rows_k;
    values_t vb = window_values(sb, b->n, (int)c->a->last, &rows_b);
    values_t vk = window_values(sk, k->n, (int)c->a->last, &rows_k);
    bool equal = same_seeds(b, k);
    for (int i = 0; equal && i < b->n; i++) equal = ana_series_identical(&sb[i], &sk[i]);
    if (rows_k == 0) {
        char detail[200];
        snprintf(detail, sizeof detail, "no %s rows in the candidate", name);
        compare_table_add(&c->tab, l, name, ANA_MISSING, detail, &(row_data_t){0});
    } else {
        judge_row(c, l, name, &vb, &vk, equal, status);
    }
    free(vb.v), free(vk.v);
    free_series(sb, b->n);
    free_series(sk, k->n);
}

/* Status, vtime_s and every (selected) metric of the baseline's first run. */
static void compare_pair(compare_t *c, const ana_pair_t *p)
{
    cgroup_t b = group_of(&c->base, &c->pairs.base.group[p->base]);
    cgroup_t k = group_of(&c->cand, &c->pairs.cand.group[p->cand]);
    clabel_t l = side_label(&b, &k);
    c->rule = c->a->rule;
    c->rule.kernels_differ = strcmp(b.run[0]->blas_core, k.run[0]->blas_core) != 0;
    c->kernels_differ |= c->rule.kernels_differ;
    ana_verdict_t status = compare_status(c, &l, &b, &k);
    compare_vtime(c, &l, &b, &k, status);
    char **names;
    int n;
    sgd_err_t err = {{0}};
    if (rdb_run_metric_names(c->base.db, b.run[0]->id, &names, &n, &err)) n = 0;
    for (int i = 0; i < n; i++)
        if (in_list(c->a->metrics, names[i])) compare_metric(c, &l, &b, &k, names[i], status);
    rdb_names_free(names, n);
    free(b.run);
    free(k.run);
}

/* A baseline configuration without a single partner: missing or ambiguous. */
static void report_unpaired(compare_t *c, const ana_pair_t *p)
{
    cgroup_t b = group_of(&c->base, &c->pairs.base.group[p->base]);
    clabel_t l = side_label(&b, NULL);
    char detail[1200];
    if (p->kind == ANA_UNPAIRED) {
        if (p->differs)
            snprintf(detail, sizeof detail, "no candidate configuration matches; the nearest "
                     "differs in %s", p->differs);
        else snprintf(detail, sizeof detail, "the candidate has no runs");
        compare_table_add(&c->tab, &l, "(configuration)", ANA_MISSING, detail,
                &(row_data_t){.differs = p->differs});
    } else {
        snprintf(detail, sizeof detail, "%d baseline and %d candidate configurations match; "
                 "match on more keys or ignore fewer", p->nbase, p->ncand);
        compare_table_add(&c->tab, &l, "(configuration)", ANA_AMBIGUOUS, detail, &(row_data_t){0});
    }
    free(b.run);
}

/* ---- the whole comparison ------------------------------------------------------------- */

/* The summary line: how configurations were paired, the window and thresholds, the
 * counts of every verdict. */
static void print_summary(const compare_t *c, FILE *f)
{
    const int *n = c->tab.count;
    char how[512];
    ana_match_describe(c->match, how, sizeof how);
    int missing = 0, ambiguous = 0;
    for (int i = 0; i < c->pairs.npairs; i++) {
        missing += c->pairs.pair[i].kind == ANA_UNPAIRED;
        ambiguous += c->pairs.pair[i].kind == ANA_AMBIGUOUS_PAIR;
    }
    fprintf(f, "compare: %d baseline configuration%s paired %s (%d missing in the candidate, "
               "%d ambiguous); each run's value: the mean of its last %llu rows; rtol %g, "
               "alpha %g, min effect %g: %d same, %d within noise, %d differ (different "
               "kernel), %d better, %d worse, %d differ, %d inconclusive, %d no clock, "
               "%d missing, %d ambiguous; %d configuration%s only in the candidate\n",
            c->pairs.npairs, c->pairs.npairs == 1 ? "" : "s", how, missing, ambiguous,
            (unsigned long long)c->a->last, c->a->rule.rtol, c->a->rule.alpha,
            c->a->rule.min_effect, n[ANA_SAME], n[ANA_NOISE], n[ANA_KERNEL], n[ANA_BETTER],
            n[ANA_WORSE], n[ANA_DIFFERS], n[ANA_INCONCLUSIVE], n[ANA_NO_CLOCK],
            n[ANA_MISSING], n[ANA_AMBIGUOUS], c->pairs.nnew, c->pairs.nnew == 1 ? "" : "s");
}

/* The tables and the summary line; returns the exit code they stand for. */
static int render(const compare_t *c)
{
    cli_format_t fmt = (cli_format_t)c->a->format;
    if (fmt == CLI_FMT_TEXT) {
        cli_table_print(&c->tab.text, fmt, stdout);
        printf("\n");
    } else {
        cli_table_print(&c->tab.data, fmt, stdout);
    }
    print_summary(c, fmt == CLI_FMT_TEXT ? stdout : stderr);
    if (c->kernels_differ)
        fprintf(stderr, "compare: note: paired runs used different BLAS kernels "
                        "(runs.blas_core); last-bit differences are expected, and within "
                        "--rtol they read \"differs (different kernel)\"\n");
    bool fails = false;
    for (int v = 0; v < ANA_NVERDICTS; v++)
        fails |= c->tab.count[v] && ana_verdict_fails((ana_verdict_t)v);
    return fails ? SGD_EXIT_FAILURE : SGD_EXIT_OK;
}

/* Pairs the configurations and compares every baseline configuration. */
static int compare_sides(compare_t *c)
{
    sgd_err_t err = {{0}};
    ana_pair_run_t *pb = side_pair_runs(&c->base), *pc = side_pair_runs(&c->cand);
    int rc = ana_pair_runs(pb, c->base.n, pc, c->cand.n, c->match, &c->pairs, &err);
    free(pb);
    free(pc);
    if (rc) return cli_bad_input("compare: %s", err.msg);
    compare_table_init(&c->tab);
    for (int i = 0; i < c->pairs.npairs; i++) {
        const ana_pair_t *p = &c->pairs.pair[i];
        if (p->kind == ANA_PAIRED) compare_pair(c, p);
        else report_unpaired(c, p);
    }
    rc = render(c);
    compare_table_free(&c->tab);
    ana_pairing_free(&c->pairs);
    return rc;
}

/* Opens and reads both databases, checks the metrics and keys named, then compares:
 * nothing is printed before every argument is known good. */
static int compare_dbs(const compare_args_t *a, const ana_match_t *m)
{
    compare_t c = {.a = a, .match = m, .base.path = a->base_path, .cand.path = a->cand_path};
    sgd_err_t err = {{0}};
    int rc = SGD_EXIT_OK;
    if (rdb_open_readonly(a->base_path, &c.base.db, &err) ||
        rdb_open_readonly(a->cand_path, &c.cand.db, &err))
        rc = cli_bad_input("compare: %s", err.msg);
    if (rc == SGD_EXIT_OK) rc = check_metrics(c.base.db, c.cand.db, a);
    if (rc == SGD_EXIT_OK) rc = side_load(&c.base);
    if (rc == SGD_EXIT_OK) rc = side_load(&c.cand);
    if (rc == SGD_EXIT_OK) rc = compare_sides(&c);
    side_free(&c.base);
    side_free(&c.cand);
    rdb_close(c.base.db);
    rdb_close(c.cand.db);
    return rc;
}

int cli_compare_main(int argc, char **argv)
{
    compare_args_t a;
    bool help;
    int rc = parse_compare_args(argc, argv, &a, &help);
    ana_match_t m = {{0}, {0}};
    if (rc == SGD_EXIT_OK && !help) rc = parse_match(&a, &m);
    if (rc == SGD_EXIT_OK && !help) rc = compare_dbs(&a, &m);
    ana_keys_free(&m.match_on);
    ana_keys_free(&m.ignore);
    cli_list_free(&a.match_on);
    cli_list_free(&a.ignore);
    return rc;
}
