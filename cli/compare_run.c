/* `compare --run SCENARIO`: seeds run in batches until every row that counts is decided
 * (compare.h), the group-sequential rule of analysis/multiplicity.h.
 *
 * Looks are planned before any test: with s_1 the fewest seeds both sides share among the
 * paired configurations (at least 2; configurations with fewer, or with no candidate runs
 * yet, are brought up to it first), look k is at s_k = min(N, s_1 + (k - 1) b) seeds a side
 * (N = --max-seeds, b = --batch), information time t_k = s_k / N, and it tests the whole
 * family at alpha(t_k) - alpha(t_{k-1}).  A row keeps the verdict of the first look that
 * decided it; a configuration whose counting rows are all decided gets no more seeds.
 *
 * Seeds for a configuration: the candidate runs the baseline's seeds it lacks (they pair);
 * with --run-baseline the baseline then runs the candidate's seeds it lacks and both run new
 * ones.  Runs are made as `sgdsim sweep` makes points (cli/sweep_plan.h, sweep_exec.h), of
 * SCENARIO with --set for each key the configuration's sweep varied (runs.sweep_axes, less
 * the seed and the keys the match leaves out), the user's --set, and the seeds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "analysis/multiplicity.h"
#include "cli/cli.h"
#include "cli/compare.h"
#include "cli/machine.h"
#include "cli/sweep_exec.h"
#include "cli/sweep_plan.h"
#include "common/strbuf.h"
#include "results/rdb.h"

/* A row's first decision, by its configuration (the baseline group's identity) and what. */
typedef struct frozen {
    char *config, *what;
    ana_ab_row_t row;
    int look, seeds;
} frozen_t;

/* One configuration's progress. */
typedef struct conf {
    char *config;  /* the baseline group's identity */
    char *label;   /* "fasgd P=16" */
    int seeds;     /* seeds both sides share at its last look */
    int grown_to;  /* the shared seeds the last batch was to bring it to; 0: none ran */
    bool exhausted; /* no seed left to pair with (without --run-baseline) */
    bool decided;
} conf_t;

/* Seeds to run once the databases are closed: SCENARIO with sets into db. */
typedef struct job {
    const char *scenario, *db;
    char **sets; /* "key=value" (owned) */
    int nsets;
    int64_t *seeds;
    int nseeds;
    char *what; /* "3 candidate seeds of fasgd P=16" (owned) */
} job_t;

typedef struct run_state {
    const compare_args_t *a;
    job_t *job;
    int njobs;
    frozen_t *frozen;
    int nfrozen;
    conf_t *conf;
    int nconf;
    int look, cand_runs, base_runs;
    double spent;
} run_state_t;

/* ---- seeds a configuration shares ----------------------------------------------------- */

static bool has_seed(const ana_ab_run_t *runs, const ana_group_t *g, int64_t seed)
{
    for (int i = 0; g && i < g->n; i++)
        if (runs[g->idx[i]].seed == seed) return true;
    return false;
}

static int shared_seeds(const side_t *s, const ana_ab_t *ab, int p)
{
    const ana_pair_t *pr = &ab->pairs.pair[p];
    if (pr->kind != ANA_PAIRED) return 0;
    const ana_group_t *gb = &ab->pairs.base.group[pr->base], *gc = &ab->pairs.cand.group[pr->cand];
    int n = 0;
    for (int i = 0; i < gb->n; i++) n += has_seed(s[1].ab, gc, s[0].ab[gb->idx[i]].seed);
    return n;
}

static conf_t *conf_of(run_state_t *st, const char *config, const side_t *s, int first)
{
    for (int i = 0; i < st->nconf; i++)
        if (strcmp(st->conf[i].config, config) == 0) return &st->conf[i];
    st->conf = sgd_xrealloc(st->conf, (size_t)(st->nconf + 1) * sizeof *st->conf);
    char label[160];
    side_label(s, first, label, sizeof label);
    st->conf[st->nconf] = (conf_t){.config = sgd_xstrdup(config), .label = sgd_xstrdup(label)};
    return &st->conf[st->nconf++];
}

/* ---- the --set assignments of a configuration ----------------------------------------- */

static bool under(const char *k, const ana_keys_t *keys)
{
    for (int i = 0; i < keys->n; i++) {
        size_t len = strlen(keys->v[i]);
        if (strncmp(k, keys->v[i], len) == 0 && (k[len] == '\0' || k[len] == '.')) return true;
    }
    return false;
}

static void add_set(job_t *j, char *set)
{
    j->sets = sgd_xrealloc(j->sets, (size_t)(j->nsets + 1) * sizeof *j->sets);
    j->sets[j->nsets++] = set;
}

/* "key=JSON" for each key of run r's sweep axes (less the seed; when `matched`, only the
 * keys the match compares), with the values of configuration c, appended to j's sets. */
static void axis_sets(const crun_t *r, const ana_config_t *c, const ana_match_t *m,
                      bool matched, job_t *j)
{
    cJSON *axes = r->sweep_axes ? cJSON_Parse(r->sweep_axes) : NULL;
    for (const cJSON *e = cJSON_IsArray(axes) ? axes->child : NULL; e; e = e->next) {
        if (!cJSON_IsString(e) || strcmp(e->valuestring, "seed") == 0) continue;
        const char *k = e->valuestring;
        if (matched && (m->match_on.n ? !under(k, &m->match_on) : under(k, &m->ignore)))
            continue;
        for (int i = 0; i < c->n; i++) {
            if (strcmp(c->kv[i].key, k) != 0) continue;
            sgd_strbuf_t b = {0};
            sgd_strbuf_printf(&b, "%s=%s", k, c->kv[i].json);
            add_set(j, sgd_strbuf_take(&b));
        }
    }
    cJSON_Delete(axes);
}

/* ---- running seeds -------------------------------------------------------------------- */

/* Runs job j's seeds as a sweep's points; the sweep's exit code (0 when every run ended
 * complete or diverged). */
static int run_job(const run_state_t *st, const job_t *j)
{
    const char *scenario = j->scenario, *db = j->db;
    sgd_strbuf_t s = {0};
    sgd_strbuf_puts(&s, "seed=");
    for (int i = 0; i < j->nseeds; i++)
        sgd_strbuf_printf(&s, "%s%lld", i ? "," : "", (long long)j->seeds[i]);
    const char **lists = sgd_xcalloc((size_t)j->nsets + 2, sizeof *lists);
    for (int i = 0; i < j->nsets; i++) lists[i] = j->sets[i];
    lists[j->nsets] = s.p;
    scn_machine_t machine;
    cli_machine_get((int64_t)st->a->jobs, &machine);
    cli_sweep_plan_opts_t po = {.lists = lists, .nlists = j->nsets + 1, .machine = &machine};
    cli_sweep_plan_t plan;
    sgd_err_t err = {{0}};
    int rc = cli_sweep_plan(scenario, &po, &plan, &err) ? cli_bad_input("compare: --run: %s",
                                                                        err.msg) : 0;
    if (rc == 0) {
        int *idx = sgd_xcalloc((size_t)plan.npoints + 1, sizeof *idx), *todo = sgd_xcalloc(
            (size_t)plan.npoints + 1, sizeof *todo), ntodo = 0;
        for (int i = 0; i < plan.npoints; i++) idx[i] = i;
        cli_sweep_exec_t x = {.scenario = scenario, .db = db, .jobs = (int)st->a->jobs,
                              .quiet = true, .who = ""};
        if (cli_sweep_pending(db, &plan, idx, plan.npoints, todo, &ntodo, &err))
            rc = cli_bad_input("compare: --run: %s", err.msg);
        else rc = cli_sweep_execute(&x, &plan, todo, ntodo, plan.npoints, plan.npoints - ntodo);
        free(idx), free(todo);
        cli_sweep_plan_free(&plan);
    }
    free(lists);
    sgd_strbuf_free(&s);
    return rc;
}

/* The seeds to add to one configuration to reach `target` shared seeds: for the candidate
 * (cand) and the baseline (base); false when the target cannot be reached. */
static bool plan_seeds(const run_state_t *st, const side_t *s, const ana_group_t *gb,
                       const ana_group_t *gc, int have, int target, int64_t *cand, int *nc,
                       int64_t *base, int *nb)
{
    int need = target - have;
    *nc = *nb = 0;
    for (int i = 0; gb && i < gb->n && need > 0; i++) /* the baseline's seeds first */
        if (!has_seed(s[1].ab, gc, s[0].ab[gb->idx[i]].seed))
            cand[(*nc)++] = s[0].ab[gb->idx[i]].seed, need--;
    if (!st->a->base_scenario) return need <= 0;
    for (int i = 0; gc && i < gc->n && need > 0; i++) /* then the candidate's, on the baseline */
        if (!has_seed(s[0].ab, gb, s[1].ab[gc->idx[i]].seed))
            base[(*nb)++] = s[1].ab[gc->idx[i]].seed, need--;
    int64_t next = 1;
    for (int i = 0; gb && i < gb->n; i++) next = s[0].ab[gb->idx[i]].seed >= next ? s[0].ab[gb->idx[i]].seed + 1 : next;
    for (int i = 0; gc && i < gc->n; i++) next = s[1].ab[gc->idx[i]].seed >= next ? s[1].ab[gc->idx[i]].seed + 1 : next;
    for (; need > 0; need--, next++) cand[(*nc)++] = next, base[(*nb)++] = next;
    return true;
}

/* A new job of `n` seeds (moved in), with the user's --set first. */
static job_t *add_job(run_state_t *st, const char *scenario, const char *db,
                      const cli_list_t *given, int64_t *seeds, int n, const char *what,
                      const char *label)
{
    st->job = sgd_xrealloc(st->job, (size_t)(st->njobs + 1) * sizeof *st->job);
    job_t *j = &st->job[st->njobs++];
    *j = (job_t){.scenario = scenario, .db = db, .seeds = seeds, .nseeds = n};
    for (int i = 0; i < given->n; i++) add_set(j, sgd_xstrdup(given->v[i]));
    sgd_strbuf_t b = {0};
    sgd_strbuf_printf(&b, "%d %s seed%s of %s into %s", n, what, n == 1 ? "" : "s", label, db);
    j->what = sgd_strbuf_take(&b);
    return j;
}

static void job_free(job_t *j)
{
    for (int i = 0; i < j->nsets; i++) free(j->sets[i]);
    free(j->sets), free(j->seeds), free(j->what);
}

/* Plans the seeds that bring pair p to `target` shared seeds (run_jobs runs them). */
static void grow_pair(run_state_t *st, const side_t *s, const ana_ab_t *ab, int p, int target)
{
    const ana_pairing_t *pg = &ab->pairs;
    const ana_pair_t *pr = &pg->pair[p];
    if (pr->kind == ANA_AMBIGUOUS_PAIR) return;
    const ana_group_t *gb = &pg->base.group[pr->base];
    const ana_group_t *gc = pr->kind == ANA_PAIRED ? &pg->cand.group[pr->cand] : NULL;
    conf_t *c = conf_of(st, gb->identity ? gb->identity : "", &s[0], gb->idx[0]);
    int n = gb->n + (gc ? gc->n : 0) + target + 1, nc, nb;
    int64_t *cand = sgd_xcalloc((size_t)n, sizeof *cand), *base = sgd_xcalloc((size_t)n,
                                                                               sizeof *base);
    int have = shared_seeds(s, ab, p);
    if (!plan_seeds(st, s, gb, gc, have, target, cand, &nc, base, &nb))
        c->exhausted = true; /* then only the baseline's seeds the candidate lacked ran */
    if (nc || nb) c->grown_to = c->exhausted ? have + nc : target;
    const ana_match_t *m = &st->a->match;
    if (nc) {
        job_t *j = add_job(st, st->a->run_scenario, st->a->cand_path, &st->a->sets, cand, nc,
                           "candidate", c->label);
        if (gc) axis_sets(&s[1].run[gc->idx[0]], &pg->cand.flat[pr->cand], m, false, j);
        else axis_sets(&s[0].run[gb->idx[0]], &pg->base.flat[pr->base], m, true, j);
        cand = NULL;
    }
    if (nb) {
        job_t *j = add_job(st, st->a->base_scenario, st->a->base_path, &st->a->base_sets, base,
                           nb, "baseline", c->label);
        axis_sets(&s[0].run[gb->idx[0]], &pg->base.flat[pr->base], m, false, j);
        base = NULL;
    }
    free(cand), free(base);
}

/* Runs the planned jobs (the databases closed), counting the runs; 0 or the exit code. */
static int run_jobs(run_state_t *st)
{
    int rc = 0;
    for (int i = 0; i < st->njobs; i++) {
        job_t *j = &st->job[i];
        if (rc == 0) {
            fprintf(stderr, "compare: --run: look %d: %s\n", st->look + 1, j->what);
            rc = run_job(st, j);
            if (j->db == st->a->cand_path) st->cand_runs += j->nseeds;
            else st->base_runs += j->nseeds;
        }
        job_free(j);
    }
    free(st->job);
    st->job = NULL, st->njobs = 0;
    return rc;
}

/* ---- decisions across looks ----------------------------------------------------------- */

static const char *config_of(const ana_ab_t *ab, const ana_ab_row_t *r)
{
    const ana_group_t *g = &ab->pairs.base.group[ab->pairs.pair[r->pair].base];
    return g->identity ? g->identity : "";
}

static frozen_t *find_frozen(run_state_t *st, const char *config, const char *what)
{
    for (int i = 0; i < st->nfrozen; i++)
        if (strcmp(st->frozen[i].config, config) == 0 && strcmp(st->frozen[i].what, what) == 0)
            return &st->frozen[i];
    return NULL;
}

/* Keeps the first decision of every row that counts. */
static void freeze(run_state_t *st, const side_t *s, const ana_ab_t *ab)
{
    for (int i = 0; i < ab->nrows; i++) {
        const ana_ab_row_t *r = &ab->row[i];
        const char *config = config_of(ab, r);
        if (!r->counts || r->verdict == ANA_INCONCLUSIVE || find_frozen(st, config, r->what))
            continue;
        st->frozen = sgd_xrealloc(st->frozen, (size_t)(st->nfrozen + 1) * sizeof *st->frozen);
        frozen_t *f = &st->frozen[st->nfrozen++];
        *f = (frozen_t){.config = sgd_xstrdup(config), .what = sgd_xstrdup(r->what),
                        .look = st->look, .seeds = shared_seeds(s, ab, r->pair)};
        ana_ab_row_copy(r, &f->row);
    }
}

/* Whether pair p has a row that counts and no look has decided yet. */
static bool undecided(run_state_t *st, const ana_ab_t *ab, int p)
{
    for (int i = 0; i < ab->nrows; i++) {
        const ana_ab_row_t *r = &ab->row[i];
        if (r->pair == p && r->counts && r->verdict == ANA_INCONCLUSIVE &&
            !find_frozen(st, config_of(ab, r), r->what))
            return true;
    }
    return false;
}

/* The rows of the last look, each replaced by its first decision. */
static void substitute(run_state_t *st, ana_ab_t *ab)
{
    for (int i = 0; i < ab->nrows; i++) {
        ana_ab_row_t *r = &ab->row[i];
        frozen_t *f = find_frozen(st, config_of(ab, r), r->what);
        if (!f || f->look == st->look) continue;
        int pair = r->pair;
        ana_ab_row_free(r);
        ana_ab_row_copy(&f->row, r);
        r->pair = pair;
        sgd_strbuf_t b = {0};
        sgd_strbuf_printf(&b, "%s%sdecided at look %d (%d seeds a side)", r->note ? r->note : "",
                          r->note ? "; " : "", f->look, f->seeds);
        free(r->note);
        r->note = sgd_strbuf_take(&b);
    }
    ana_ab_recount(ab);
}

/* ---- the looks ------------------------------------------------------------------------ */

/* --run-baseline adds runs to the baseline: only with the build that made it. */
static int check_baseline_build(const compare_args_t *a, const side_t *base)
{
    for (int i = 0; a->base_scenario && i < base->n; i++) {
        const char *b = ana_build_name(base->ab[i].build);
        if (strcmp(b, ana_build_name(cli_git_rev())) != 0)
            return cli_bad_input("compare: --run-baseline: %s holds runs of build %s, and this "
                                 "sgdsim is build %s: its runs would not be seeds of the same "
                                 "sample; extend the baseline with the build that made it",
                                 a->base_path, b, ana_build_name(cli_git_rev()));
    }
    return SGD_EXIT_OK;
}

/* The fewest seeds both sides share among the paired configurations, at least 2 (a batch
 * when the candidate has none yet). */
static int first_look_seeds(const side_t *s, const ana_ab_t *ab, int batch)
{
    int least = -1;
    for (int p = 0; p < ab->pairs.npairs; p++) {
        if (ab->pairs.pair[p].kind != ANA_PAIRED) continue;
        int n = shared_seeds(s, ab, p);
        if (least < 0 || n < least) least = n;
    }
    return least < 0 ? (batch < 2 ? 2 : batch) : least < 2 ? 2 : least;
}

/* Notes each configuration's shared seeds and whether every row of it that counts is
 * decided; whether one is still open (undecided, with seeds left to pair). */
static bool note_confs(run_state_t *st, const side_t *s, const ana_ab_t *ab)
{
    bool open = false;
    for (int p = 0; p < ab->pairs.npairs; p++) {
        const ana_group_t *gb = &ab->pairs.base.group[ab->pairs.pair[p].base];
        conf_t *c = conf_of(st, gb->identity ? gb->identity : "", &s[0], gb->idx[0]);
        c->seeds = shared_seeds(s, ab, p);
        c->decided = !undecided(st, ab, p);
        open |= !c->decided && !c->exhausted && ab->pairs.pair[p].kind != ANA_AMBIGUOUS_PAIR;
    }
    return open;
}

/* Brings every configuration that counts for the next look up to `target` shared seeds:
 * those not yet decided (all of them before the first look). */
static void grow(run_state_t *st, const side_t *s, const ana_ab_t *ab, int target, bool all)
{
    note_confs(st, s, ab);
    for (int p = 0; p < ab->pairs.npairs; p++) {
        const ana_pair_t *pr = &ab->pairs.pair[p];
        const ana_group_t *gb = &ab->pairs.base.group[pr->base];
        conf_t *c = conf_of(st, gb->identity ? gb->identity : "", &s[0], gb->idx[0]);
        bool wanted = pr->kind != ANA_AMBIGUOUS_PAIR && (all || !c->decided);
        if (wanted && !c->exhausted && c->seeds < target) grow_pair(st, s, ab, p, target);
    }
}

/* A configuration that was given seeds must share them at the next look: else SCENARIO
 * does not make the candidate's configuration; exit 2 naming it. */
static int check_grown(run_state_t *st, const side_t *s, const ana_ab_t *ab)
{
    for (int p = 0; p < ab->pairs.npairs; p++) {
        const ana_pair_t *pr = &ab->pairs.pair[p];
        const ana_group_t *gb = &ab->pairs.base.group[pr->base];
        conf_t *c = conf_of(st, gb->identity ? gb->identity : "", &s[0], gb->idx[0]);
        int want = c->grown_to;
        c->grown_to = 0;
        if (want && shared_seeds(s, ab, p) < want)
            return cli_bad_input("compare: --run %s: the runs made for baseline configuration "
                                 "%s did not pair with it (compare without --run names the "
                                 "keys that differ): give the candidate's scenario, its --set, "
                                 "and --ignore or --match-on as for the comparison",
                                 st->a->run_scenario, c->label);
    }
    return SGD_EXIT_OK;
}

/* "--run: 3 looks ...; seeds a side: fasgd P=16 6 (decided), ...; 9 candidate runs". */
static char *run_summary(const run_state_t *st, int n_max)
{
    sgd_strbuf_t b = {0};
    sgd_strbuf_printf(&b, "--run: %d look%s, alpha spent %.3g of %g (O'Brien-Fleming over "
                      "%d seeds a side); seeds a side:", st->look, st->look == 1 ? "" : "s",
                      st->spent, st->a->rule.alpha, n_max);
    for (int i = 0; i < st->nconf; i++)
        sgd_strbuf_printf(&b, "%s %s %d (%s)", i ? "," : "", st->conf[i].label,
                          st->conf[i].seeds, st->conf[i].decided ? "decided"
                                             : st->conf[i].exhausted ? "no seed left to pair"
                                                                     : "undecided");
    sgd_strbuf_printf(&b, "; %d candidate run%s and %d baseline run%s made", st->cand_runs,
                      st->cand_runs == 1 ? "" : "s", st->base_runs,
                      st->base_runs == 1 ? "" : "s");
    return sgd_strbuf_take(&b);
}

static void state_free(run_state_t *st)
{
    for (int i = 0; i < st->nfrozen; i++) {
        free(st->frozen[i].config), free(st->frozen[i].what);
        ana_ab_row_free(&st->frozen[i].row);
    }
    for (int i = 0; i < st->nconf; i++) free(st->conf[i].config), free(st->conf[i].label);
    for (int i = 0; i < st->njobs; i++) job_free(&st->job[i]);
    free(st->frozen), free(st->conf), free(st->job);
}

/* The first look's seeds (after bringing every configuration up to them); 0 or exit code. */
static int prepare(run_state_t *st, int *s1)
{
    side_t s[2];
    ana_ab_t ab;
    int rc = compare_open(st->a, &s[0], &s[1]);
    if (rc) return rc;
    rc = check_baseline_build(st->a, &s[0]);
    if (rc == 0) rc = compare_judge(st->a, st->a->rule.alpha, s, &ab);
    if (rc == 0) {
        *s1 = first_look_seeds(s, &ab, (int)st->a->batch);
        if (*s1 > (int)st->a->max_seeds) *s1 = (int)st->a->max_seeds;
        grow(st, s, &ab, *s1, true);
        ana_ab_free(&ab);
    }
    compare_close(&s[0], &s[1]);
    return rc ? rc : run_jobs(st);
}

/* One look at `target` seeds a side: judged at its share of alpha, decisions frozen; *done
 * when nothing is left to run (the comparison is printed then, and *rc is its exit code). */
/* Whether this look will be the last whatever it finds: at --max-seeds, or no configuration
 * still open after the last look has seeds left to pair (the baseline's are all used and
 * --run-baseline was not given).  Known before the test, so the last look may spend what
 * alpha is left: the looks' levels still add up to alpha. */
static bool last_look(run_state_t *st, side_t *s, int target)
{
    if (target >= (int)st->a->max_seeds) return true;
    if (st->a->base_scenario) return false;
    ana_pair_run_t *pr[2];
    for (int k = 0; k < 2; k++) {
        pr[k] = sgd_xcalloc((size_t)s[k].n + 1, sizeof *pr[k]);
        for (int i = 0; i < s[k].n; i++)
            pr[k][i] = (ana_pair_run_t){s[k].ab[i].id, s[k].ab[i].seed, s[k].ab[i].config_json,
                                        s[k].ab[i].build};
    }
    ana_pairing_t p;
    sgd_err_t err = {{0}};
    bool last = true;
    if (ana_pair_runs(pr[0], s[0].n, pr[1], s[1].n, &st->a->match, &p, &err) == 0) {
        for (int i = 0; i < p.npairs && last; i++) {
            const ana_group_t *gb = &p.base.group[p.pair[i].base];
            const ana_group_t *gc = p.pair[i].kind == ANA_PAIRED ? &p.cand.group[p.pair[i].cand]
                                                                 : NULL;
            bool open = true;
            for (int c = 0; c < st->nconf; c++)
                if (strcmp(st->conf[c].config, gb->identity ? gb->identity : "") == 0)
                    open = !st->conf[c].decided;
            for (int k = 0; k < gb->n && open && last; k++)
                last = has_seed(s[1].ab, gc, s[0].ab[gb->idx[k]].seed);
        }
        ana_pairing_free(&p);
    }
    free(pr[0]), free(pr[1]);
    return last;
}

static int look(run_state_t *st, int target, bool *done)
{
    const compare_args_t *a = st->a;
    int n_max = (int)a->max_seeds;
    side_t s[2];
    ana_ab_t ab;
    int rc = compare_open(a, &s[0], &s[1]);
    if (rc) return rc;
    st->look++;
    double spend = last_look(st, s, target) ? a->rule.alpha
                                            : ana_obf_spent(a->rule.alpha, (double)target / n_max);
    rc = compare_judge(a, spend - st->spent, s, &ab);
    st->spent = spend;
    if (rc == 0) {
        rc = check_grown(st, s, &ab);
        freeze(st, s, &ab);
        bool open = rc == 0 && note_confs(st, s, &ab) && target < n_max;
        if (open) { /* the next look's seeds; none left to run ends it here */
            grow(st, s, &ab, target + (int)a->batch > n_max ? n_max : target + (int)a->batch,
                 false);
            open = st->njobs > 0;
        }
        *done = rc == 0 && !open;
        if (*done) {
            substitute(st, &ab);
            char *extra = run_summary(st, n_max);
            rc = ana_ab_exit(&ab);
            compare_render(a, &ab, s, rc, extra);
            free(extra);
        }
        ana_ab_free(&ab);
    }
    compare_close(&s[0], &s[1]);
    return rc || *done ? rc : run_jobs(st);
}

/* A candidate database that does not exist yet is made, as `sweep --db` makes it: --run
 * can start from nothing. */
static int make_candidate(const compare_args_t *a)
{
    if (access(a->cand_path, F_OK) == 0) return 0;
    rdb_t *db;
    sgd_err_t err = {{0}};
    if (rdb_open(a->cand_path, &db, &err)) return cli_bad_input("compare: --run: %s", err.msg);
    rdb_close(db);
    return 0;
}

int compare_run(const compare_args_t *a)
{
    run_state_t st = {.a = a};
    int target = 0, n_max = (int)a->max_seeds, rc = make_candidate(a);
    if (rc == 0) rc = prepare(&st, &target);
    for (bool done = false; rc == 0 && !done;) {
        rc = look(&st, target, &done);
        target = target + (int)a->batch > n_max ? n_max : target + (int)a->batch;
    }
    /* done: rc is the comparison's exit code (0, 1 or 4), or the error of a run or read */
    state_free(&st);
    return rc;
}
