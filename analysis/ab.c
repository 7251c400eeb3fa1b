/* One A/B comparison (ab.h): pairing, the rows of each pair, the family's decisions, and
 * the prose every front end prints. */
#include "analysis/ab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/clock.h"

/* The comparison under way. */
typedef struct cmp {
    const ana_ab_run_t *run[2];
    int nrun[2];
    const ana_ab_source_t *src;
    ana_ab_t *ab;
    sgd_err_t *err;
} cmp_t;

/* One configuration's runs on one side, in seed order (indices into that side's runs). */
typedef struct grp {
    int side;
    const int *idx;
    int n;
} grp_t;

static const ana_ab_run_t *grp_run(const cmp_t *c, const grp_t *g, int i)
{
    return &c->run[g->side][g->idx[i]];
}

static ana_ab_row_t *add_row(ana_ab_t *ab, int pair, const char *what, ana_verdict_t v,
                             bool counts)
{
    ab->row = sgd_xrealloc(ab->row, (size_t)(ab->nrows + 1) * sizeof *ab->row);
    ana_ab_row_t *r = &ab->row[ab->nrows++];
    *r = (ana_ab_row_t){.pair = pair, .what = sgd_xstrdup(what), .verdict = v, .counts = counts};
    return r;
}

static bool same_seeds(const cmp_t *c, const grp_t *b, const grp_t *k)
{
    if (b->n != k->n) return false;
    for (int i = 0; i < b->n; i++)
        if (grp_run(c, b, i)->seed != grp_run(c, k, i)->seed) return false;
    return true;
}

static bool complete(const ana_ab_run_t *r)
{
    return r->status && strcmp(r->status, "complete") == 0;
}

/* ---- status --------------------------------------------------------------------------- */

/* "complete" or "seed 2 diverged at update 64, ..." for one side. */
static void statuses_text(const cmp_t *c, const grp_t *g, sgd_strbuf_t *b)
{
    size_t start = b->n;
    for (int i = 0, k = 0; i < g->n; i++) {
        const ana_ab_run_t *r = grp_run(c, g, i);
        if (!complete(r))
            sgd_strbuf_printf(b, "%sseed %lld %s at update %lld", k++ ? ", " : "",
                              (long long)r->seed, r->status ? r->status : "(no status)",
                              (long long)r->updates);
    }
    if (b->n == start) sgd_strbuf_puts(b, "complete");
}

static ana_verdict_t status_row(cmp_t *c, int pair, const grp_t *b, const grp_t *k,
                                bool kernel_only)
{
    bool same = same_seeds(c, b, k);
    int bad_b = 0, bad_k = 0;
    for (int i = 0; i < b->n; i++) bad_b += !complete(grp_run(c, b, i));
    for (int i = 0; i < k->n; i++) bad_k += !complete(grp_run(c, k, i));
    for (int i = 0; same && i < b->n; i++) {
        const char *x = grp_run(c, b, i)->status, *y = grp_run(c, k, i)->status;
        same = x && y && strcmp(x, y) == 0;
    }
    ana_verdict_t v = ana_status_verdict(bad_b, b->n, bad_k, k->n, same);
    if (kernel_only && (v == ANA_WORSE || v == ANA_BETTER)) v = ANA_KERNEL;
    sgd_strbuf_t sb = {0}, sk = {0};
    statuses_text(c, b, &sb);
    statuses_text(c, k, &sk);
    ana_ab_row_t *r = add_row(c->ab, pair, "status", v, true);
    if (strcmp(sb.p, sk.p) == 0) r->note = sgd_strbuf_take(&sb);
    else {
        sgd_strbuf_printf(&sb, " -> %s", sk.p);
        r->note = sgd_strbuf_take(&sb);
    }
    sgd_strbuf_free(&sb);
    sgd_strbuf_free(&sk);
    return v;
}

/* ---- a judged row --------------------------------------------------------------------- */

static ana_ab_values_t values_alloc(int n)
{
    return (ana_ab_values_t){.seed = sgd_xcalloc((size_t)n + 1, sizeof(int64_t)),
                             .run = sgd_xcalloc((size_t)n + 1, sizeof(int64_t)),
                             .value = sgd_xcalloc((size_t)n + 1, sizeof(double))};
}

static void values_free(ana_ab_values_t *v)
{
    free(v->seed), free(v->run), free(v->value);
    *v = (ana_ab_values_t){0};
}

/* The pair's facts every judged row shares. */
typedef struct pair_ctx {
    int pair;
    grp_t b, k;
    bool kernel_only;
    ana_verdict_t status;
} pair_ctx_t;

/* Judges a row from its per-seed values (moved into the row) and applies a status that
 * moved. */
static void judged_row(cmp_t *c, const pair_ctx_t *p, const char *what, ana_ab_values_t *vb,
                       ana_ab_values_t *vk, bool bit_equal)
{
    ana_sense_t sense = ana_metric_sense(what);
    ana_metric_in_t in = {.base = {vb->seed, vb->value, vb->n},
                          .cand = {vk->seed, vk->value, vk->n}, .sense = sense,
                          .bit_equal = bit_equal, .kernel_only = p->kernel_only};
    ana_ab_row_t *r = add_row(c->ab, p->pair, what, ANA_INCONCLUSIVE, sense != ANA_NEUTRAL);
    r->judged = true;
    r->j = ana_judge(&in, &c->ab->opts.rule);
    r->base = *vb, r->cand = *vk;
    *vb = *vk = (ana_ab_values_t){0};
    bool moved = p->status == ANA_WORSE || p->status == ANA_BETTER;
    if (moved && r->j.verdict != ANA_SAME) { /* outside the family: no test */
        r->j.verdict = sense == ANA_NEUTRAL ? ANA_DIFFERS : p->status;
        r->j.why = "a run did not complete";
        r->j.effect.kind = ANA_TEST_NONE;
    }
}

static void vtime_row(cmp_t *c, const pair_ctx_t *p)
{
    if (!grp_run(c, &p->b, 0)->clock || !grp_run(c, &p->k, 0)->clock) {
        ana_ab_row_t *r = add_row(c->ab, p->pair, "vtime_s", ANA_NO_CLOCK, true);
        r->note = sgd_xstrdup(ANA_NO_CLOCK_TEXT);
        return;
    }
    const grp_t *g[2] = {&p->b, &p->k};
    ana_ab_values_t v[2];
    for (int s = 0; s < 2; s++) {
        v[s] = values_alloc(g[s]->n);
        for (int i = 0; i < g[s]->n; i++) {
            const ana_ab_run_t *r = grp_run(c, g[s], i);
            v[s].seed[v[s].n] = r->seed, v[s].run[v[s].n] = r->id;
            v[s].value[v[s].n++] = (double)r->vtime_ns * 1e-9;
        }
    }
    bool equal = same_seeds(c, &p->b, &p->k);
    for (int i = 0; equal && i < p->b.n; i++)
        equal = grp_run(c, &p->b, i)->vtime_ns == grp_run(c, &p->k, i)->vtime_ns;
    judged_row(c, p, "vtime_s", &v[0], &v[1], equal);
}

/* Every run's series of `name` on one side (entries without rows are empty). */
static int read_series(cmp_t *c, const grp_t *g, const char *name, rdb_series_t *s, bool *own)
{
    for (int i = 0; i < g->n; i++) {
        s[i] = (rdb_series_t){0};
        if (c->src->series(c->src->ctx, g->side, g->idx[i], name, &s[i], &own[i], c->err))
            return -1;
    }
    return 0;
}

/* The window values of the runs with rows; how many runs had rows. */
static int window_values(const cmp_t *c, const grp_t *g, const rdb_series_t *s,
                         ana_ab_values_t *v)
{
    int rows = 0;
    *v = values_alloc(g->n);
    for (int i = 0; i < g->n; i++) {
        double x;
        if (!ana_window(&s[i], c->ab->opts.last, &x)) continue;
        rows++;
        v->seed[v->n] = grp_run(c, g, i)->seed, v->run[v->n] = grp_run(c, g, i)->id;
        v->value[v->n++] = x;
    }
    return rows;
}

static int metric_row(cmp_t *c, const pair_ctx_t *p, const char *name)
{
    if (!grp_run(c, &p->b, 0)->clock && strcmp(name, "images_per_s") == 0) {
        ana_ab_row_t *r = add_row(c->ab, p->pair, name, ANA_NO_CLOCK, true);
        r->note = sgd_xstrdup(ANA_NO_CLOCK_TEXT);
        return 0;
    }
    int n = p->b.n + p->k.n;
    rdb_series_t *s = sgd_xcalloc((size_t)n + 1, sizeof *s);
    bool *own = sgd_xcalloc((size_t)n + 1, sizeof *own);
    int rc = read_series(c, &p->b, name, s, own) || read_series(c, &p->k, name, s + p->b.n,
                                                                own + p->b.n) ? -1 : 0;
    if (rc == 0) {
        ana_ab_values_t vb, vk;
        window_values(c, &p->b, s, &vb);
        int rows_k = window_values(c, &p->k, s + p->b.n, &vk);
        bool equal = same_seeds(c, &p->b, &p->k);
        for (int i = 0; equal && i < p->b.n; i++)
            equal = ana_series_identical(&s[i], &s[p->b.n + i]);
        if (rows_k == 0) {
            ana_ab_row_t *r = add_row(c->ab, p->pair, name, ANA_MISSING, true);
            sgd_strbuf_t b = {0};
            sgd_strbuf_printf(&b, "no %s rows in the candidate", name);
            r->note = sgd_strbuf_take(&b);
        } else {
            judged_row(c, p, name, &vb, &vk, equal);
        }
        values_free(&vb);
        values_free(&vk);
    }
    for (int i = 0; i < n; i++)
        if (own[i]) rdb_series_free(&s[i]);
    free(s);
    free(own);
    return rc;
}

static bool in_list(const char *list, const char *name)
{
    if (!list) return true;
    size_t n = strlen(name);
    for (const char *q = list; *q;) {
        const char *comma = strchr(q, ',');
        size_t len = comma ? (size_t)(comma - q) : strlen(q);
        if (len == n && strncmp(q, name, n) == 0) return true;
        if (!comma) break;
        q = comma + 1;
    }
    return false;
}

/* ---- pairs ---------------------------------------------------------------------------- */

static grp_t group_of(const ana_side_t *s, int side, int g)
{
    return (grp_t){side, s->group[g].idx, s->group[g].n};
}

static int paired(cmp_t *c, int i)
{
    const ana_pairing_t *pr = &c->ab->pairs;
    const ana_pair_t *p = &pr->pair[i];
    pair_ctx_t x = {.pair = i, .b = group_of(&pr->base, 0, p->base),
                    .k = group_of(&pr->cand, 1, p->cand),
                    .kernel_only = ana_pair_kernel_only(pr, p)};
    const char *kb = grp_run(c, &x.b, 0)->blas_core, *kk = grp_run(c, &x.k, 0)->blas_core;
    c->ab->kernels_differ |= strcmp(kb ? kb : "", kk ? kk : "") != 0;
    c->ab->pooled += (pr->base.nbuilds[p->base] > 1) + (pr->cand.nbuilds[p->cand] > 1);
    x.status = status_row(c, i, &x.b, &x.k, x.kernel_only);
    vtime_row(c, &x);
    char **names = NULL;
    int n = 0;
    if (c->src->metric_names(c->src->ctx, 0, x.b.idx[0], &names, &n, c->err)) return -1;
    int rc = 0;
    for (int m = 0; m < n && rc == 0; m++)
        if (in_list(c->ab->opts.metrics, names[m])) rc = metric_row(c, &x, names[m]);
    for (int m = 0; m < n; m++) free(names[m]);
    free(names);
    return rc;
}

static void unpaired(cmp_t *c, int i)
{
    const ana_pair_t *p = &c->ab->pairs.pair[i];
    sgd_strbuf_t d = {0};
    if (p->kind == ANA_UNPAIRED && p->differs)
        sgd_strbuf_printf(&d, "no candidate configuration matches; the nearest differs in %s",
                          p->differs);
    else if (p->kind == ANA_UNPAIRED)
        sgd_strbuf_puts(&d, "the candidate has no runs");
    else if (p->by_build)
        sgd_strbuf_printf(&d, "this configuration was run by several builds (%d baseline and "
                          "%d candidate groups); runs of different builds are never pooled: "
                          "compare one build, or pass --pool-builds", p->nbase, p->ncand);
    else
        sgd_strbuf_printf(&d, "%d baseline and %d candidate configurations match; match on "
                          "more keys or ignore fewer", p->nbase, p->ncand);
    ana_ab_row_t *r = add_row(c->ab, i, "(configuration)",
                              p->kind == ANA_UNPAIRED ? ANA_MISSING : ANA_AMBIGUOUS, true);
    r->note = sgd_strbuf_take(&d);
    sgd_strbuf_free(&d);
}

static ana_pair_run_t *pair_runs(const ana_ab_run_t *r, int n)
{
    ana_pair_run_t *p = sgd_xcalloc((size_t)n + 1, sizeof *p);
    for (int i = 0; i < n; i++)
        p[i] = (ana_pair_run_t){r[i].id, r[i].seed, r[i].config_json ? r[i].config_json : "",
                                r[i].build};
    return p;
}

/* The family's decisions and the verdict counts. */
static void decide(ana_ab_t *ab)
{
    ana_judgement_t **j = sgd_xcalloc((size_t)ab->nrows + 1, sizeof *j);
    int n = 0;
    for (int i = 0; i < ab->nrows; i++)
        if (ab->row[i].judged) j[n++] = &ab->row[i].j;
    ab->family = ana_decide_family(j, n, &ab->opts.rule);
    free(j);
    for (int i = 0; i < ab->nrows; i++) {
        ana_ab_row_t *r = &ab->row[i];
        if (r->judged) r->verdict = r->j.verdict;
        ab->count[r->verdict]++;
    }
}

int ana_ab_compare(const ana_ab_run_t *base, int nb, const ana_ab_run_t *cand, int nc,
                   const ana_ab_source_t *src, const ana_ab_opts_t *o, ana_ab_t *ab,
                   sgd_err_t *err)
{
    *ab = (ana_ab_t){.opts = *o};
    ana_pair_run_t *pb = pair_runs(base, nb), *pc = pair_runs(cand, nc);
    int rc = ana_pair_runs(pb, nb, pc, nc, &o->match, &ab->pairs, err);
    free(pb);
    free(pc);
    if (rc) return -1;
    cmp_t c = {.run = {base, cand}, .nrun = {nb, nc}, .src = src, .ab = ab, .err = err};
    for (int i = 0; i < ab->pairs.npairs && rc == 0; i++) {
        if (ab->pairs.pair[i].kind == ANA_PAIRED) rc = paired(&c, i);
        else unpaired(&c, i);
    }
    if (rc) {
        ana_ab_free(ab);
        return -1;
    }
    decide(ab);
    return 0;
}

static ana_ab_values_t values_copy(const ana_ab_values_t *v)
{
    ana_ab_values_t c = values_alloc(v->n);
    c.n = v->n;
    for (int i = 0; i < v->n; i++)
        c.seed[i] = v->seed[i], c.run[i] = v->run[i], c.value[i] = v->value[i];
    return c;
}

void ana_ab_row_copy(const ana_ab_row_t *from, ana_ab_row_t *to)
{
    *to = *from;
    to->what = sgd_xstrdup(from->what);
    to->note = from->note ? sgd_xstrdup(from->note) : NULL;
    to->base = values_copy(&from->base);
    to->cand = values_copy(&from->cand);
}

void ana_ab_row_free(ana_ab_row_t *r)
{
    free(r->what), free(r->note);
    values_free(&r->base), values_free(&r->cand);
    r->what = r->note = NULL;
}

void ana_ab_recount(ana_ab_t *ab)
{
    memset(ab->count, 0, sizeof ab->count);
    for (int i = 0; i < ab->nrows; i++) ab->count[ab->row[i].verdict]++;
}

void ana_ab_free(ana_ab_t *ab)
{
    for (int i = 0; i < ab->nrows; i++) ana_ab_row_free(&ab->row[i]);
    free(ab->row);
    ana_pairing_free(&ab->pairs);
    *ab = (ana_ab_t){0};
}

int ana_ab_exit(const ana_ab_t *ab)
{
    bool fails = false, open = false;
    for (int i = 0; i < ab->nrows; i++) {
        const ana_ab_row_t *r = &ab->row[i];
        fails |= ana_verdict_fails(r->verdict) && r->counts;
        open |= r->counts && r->verdict == ANA_INCONCLUSIVE;
    }
    return fails ? ANA_AB_EXIT_FAILS : open ? ANA_AB_EXIT_INCONCLUSIVE : 0;
}

bool ana_ab_pair_undecided(const ana_ab_t *ab, int p)
{
    for (int i = 0; i < ab->nrows; i++)
        if (ab->row[i].pair == p && ab->row[i].counts && ab->row[i].verdict == ANA_INCONCLUSIVE)
            return true;
    return false;
}
