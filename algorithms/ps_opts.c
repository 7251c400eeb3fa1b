/* Options of the parameter-server family: parsing and validation of the `algorithm` section
 * (ps_opts.h).  Defaults follow the authors' code where the papers are silent
 * (docs/papers.md §2-3); docs/scenario.md lists every key, its unit and its default. */
#include "algorithms/ps_opts.h"

#include <stdlib.h>
#include <string.h>

/* Keys every rule of the family takes, and the one softsync's protocol adds. */
static const char *const common_keys[] = {"name",      "driver",         "minibatch",
                                          "server_time_s", "denormals", "gradient_batch",
                                          "fetch",     "local",          "concurrency",
                                          NULL};
static const char *const softsync_keys[] = {"n", NULL};

static bool listed(const char *const *keys, const char *key)
{
    for (; keys && *keys; keys++)
        if (strcmp(*keys, key) == 0) return true;
    return false;
}

/* Whether rule r takes key. */
static bool rule_takes(const ps_rule_t *r, const char *key)
{
    return listed(common_keys, key) || listed(r->keys, key) ||
           (r->protocol == PS_PROTO_SOFTSYNC && listed(softsync_keys, key));
}

/* The registered rules that take key, "a, b, c", into buf. */
static void key_owners(const char *key, char *buf, size_t size)
{
    buf[0] = '\0';
    for (const alg_ops_t *const *a = alg_registry; *a; a++) {
        if (!ps_is_rule(*a) || !rule_takes(ps_rule_of(*a), key)) continue;
        if (buf[0]) strncat(buf, ", ", size - strlen(buf) - 1);
        strncat(buf, (*a)->scenario.name, size - strlen(buf) - 1);
    }
}

/* Every key known to `rule`; a key of another rule of the family is refused with the names
 * it belongs to, instead of a bare "unknown key". */
static int check_keys(const sgd_jobj_t *a, const ps_rule_t *rule, sgd_err_t *err)
{
    if (!a->in) return 0;
    const char *allowed[64];
    size_t n = 0;
    for (const char *const *k = common_keys; *k; k++) allowed[n++] = *k;
    if (rule->protocol == PS_PROTO_SOFTSYNC) allowed[n++] = softsync_keys[0];
    for (const char *const *k = rule->keys; k && *k; k++) {
        SGD_ASSERT(n + 1 < sizeof allowed / sizeof allowed[0]);
        allowed[n++] = *k;
    }
    allowed[n] = NULL;
    for (const cJSON *it = a->in->child; it; it = it->next) {
        if (rule_takes(rule, it->string)) continue;
        char owners[256];
        key_owners(it->string, owners, sizeof owners);
        if (owners[0])
            return sgd_errf(err, "%s.%s: only valid with name %s, not \"%s\"", a->path,
                            it->string, owners, rule->ops.scenario.name);
    }
    return sgd_jobj_check_keys(a, allowed, err);
}

int ps_reject_key(const sgd_jobj_t *a, const char *key, const char *why, sgd_err_t *err)
{
    if (sgd_jobj_has(a, key)) return sgd_errf(err, "%s.%s: %s", a->path, key, why);
    return 0;
}

/* Keys every algorithm of the family takes: driver, minibatch, denormals, gradient_batch
 * and (timed) server_time_s. */
static int parse_common(const sgd_jobj_t *a, const scn_t *s, ps_opts_t *o, sgd_err_t *err)
{
    static const char *const drivers[] = {"uniform", "timed", NULL};
    static const char *const minibatches[] = {"cyclic", "random", NULL};
    const bool fl = o->rule->federated, part = s->partition.given;
    int drv, mb;
    /* FL rules run on the clock only; with a partition a client's minibatches are drawn from
     * its own samples ("cyclic" walks the whole training set in one order). */
    if (sgd_jobj_enum(a, "driver", drivers, fl ? 1 : 0, &drv, err) ||
        sgd_jobj_enum(a, "minibatch", minibatches, part ? 1 : 0, &mb, err))
        return -1;
    o->driver = (ps_driver_t)drv;
    o->minibatch = (ps_minibatch_t)mb;
    if (fl && o->driver == PS_DRIVER_UNIFORM)
        return sgd_errf(err, "%s.driver: %s needs \"timed\": its clients train for modelled "
                             "times and its protocol follows them", a->path, ps_name(o));
    if (part && o->minibatch == PS_MB_CYCLIC)
        return sgd_errf(err, "%s.minibatch: with data.partition a client draws its minibatches "
                             "from its own samples: use \"random\" (the default there)",
                        a->path);
    /* Denormal floats: with the authors' N(0,1) weights and FASGD's normalised steps the
     * softmax saturates, its gradients underflow into denormals, and x86 sgemm on denormal
     * inputs runs about 10x slower (measured: bench/bench_ps 128 128 300, 36 vs 340
     * updates/s).  Flushing them to zero (as TensorFlow does on CPUs) is the default where the
     * CPU has the switch; "keep" gives IEEE gradual underflow. */
    static const char *const denormals[] = {"flush", "keep", NULL};
    int dn;
    if (sgd_jobj_enum(a, "denormals", denormals, PS_HAVE_MXCSR ? 0 : 1, &dn, err)) return -1;
    if (dn == 0 && !PS_HAVE_MXCSR)
        return sgd_errf(err, "%s.denormals: \"flush\" needs an x86 CPU (MXCSR FTZ/DAZ); use "
                             "\"keep\"", a->path);
    o->flush_denormals = dn == 0;
    /* On the CPU a batch's requests are evaluated on the run's threads (numerics.threads):
     * 16 ready gradients keep a few cores busy and cost 16 gradients of memory.  On a GPU
     * one call evaluates the whole batch with strided-batched GEMMs.  Results are the same
     * bits for any value, so the default never depends on the thread count (it is part of
     * the run key). */
    if (sgd_jobj_int(a, "gradient_batch", strcmp(s->backend, "cuda") == 0 ? 64 : 16, 1, 4096,
                     &o->gradient_batch, err))
        return -1;
    if (o->driver == PS_DRIVER_TIMED)
        return sim_dist_parse(a, "server_time_s", 0.0, &o->server_time_s, err);
    return ps_reject_key(a, "server_time_s", "only valid with driver \"timed\"", err);
}

/* The normaliser's own keys; those of the other normalisers are refused. */
static int parse_normaliser(const sgd_jobj_t *a, ps_norm_cfg_t *nm, sgd_err_t *err)
{
    if (nm->kind == PS_NORM_NONE) {
        for (const char *const *k = (const char *const[]){"decay", "gamma", "beta", "eps", NULL};
             *k; k++)
            if (ps_reject_key(a, *k, "only valid with a normaliser (normaliser is \"none\")", err))
                return -1;
        return 0;
    }
    if (nm->kind == PS_NORM_FRED)
        return ps_reject_key(a, "gamma", "only valid with normaliser \"paper\"", err) ||
                       ps_reject_key(a, "beta", "only valid with normaliser \"paper\"", err) ||
                       sgd_jobj_num(a, "decay", 0.9, 0.0, false, 0.999999, &nm->decay, err) ||
                       sgd_jobj_num(a, "eps", 1e-3, 0.0, true, 1e3, &nm->eps, err)
                   ? -1
                   : 0;
    return ps_reject_key(a, "decay", "only valid with normaliser \"fred\"", err) ||
                   sgd_jobj_num(a, "gamma", 0.9, 0.0, false, 0.999999, &nm->gamma, err) ||
                   sgd_jobj_num(a, "beta", 0.9, 0.0, false, 0.999999, &nm->beta, err) ||
                   sgd_jobj_num(a, "eps", 1e-6, 0.0, true, 1e3, &nm->eps, err)
               ? -1
               : 0;
}

static void resolve_as_before(const sgd_jobj_t *a, const char *key, bool at_default);

/* n-softsync's n: c = C / n gradients per update, C the clients in flight (lambda unless
 * algorithm.concurrency is lower). */
static int parse_softsync(const sgd_jobj_t *a, int64_t lambda, ps_opts_t *o, sgd_err_t *err)
{
    const int64_t conc = o->concurrency;
    if (sgd_jobj_int(a, "n", conc, 1, conc, &o->n, err)) return -1;
    if (conc % o->n != 0 && conc == lambda)
        return sgd_errf(err, "%s.n: must divide cluster.workers (lambda = %lld), got %lld: "
                             "n-softsync applies lambda / n gradients per update",
                        a->path, (long long)lambda, (long long)o->n);
    if (conc % o->n != 0)
        return sgd_errf(err, "%s.n: must divide algorithm.concurrency (C = %lld), got %lld: "
                             "n-softsync applies C / n gradients per update",
                        a->path, (long long)conc, (long long)o->n);
    o->c = conc / o->n;
    return 0;
}

/* algorithm.concurrency: C, the clients in flight at most, <= lambda.  The default is lambda
 * (every client always in flight: today's behaviour, and left out of the resolved
 * configuration then), or the rule's (FedBuff's), at most lambda.  Rounds (FedAvg) have
 * their own: clients_per_round.  Fewer slots than clients means sampling (ps_clients.h),
 * which needs the clock and a rule whose task is one fetch, compute and push. */
static int parse_concurrency(const sgd_jobj_t *a, const scn_t *s, ps_opts_t *o,
                             sgd_err_t *err)
{
    const ps_rule_t *r = o->rule;
    const int64_t lambda = s->workers;
    if (r->protocol == PS_PROTO_ROUNDS)
        return ps_reject_key(a, "concurrency", "a round's clients in flight are its "
                                               "clients_per_round", err);
    int64_t def = r->default_concurrency > 0 && r->default_concurrency < lambda
                      ? r->default_concurrency
                      : lambda;
    if (sgd_jobj_int(a, "concurrency", def, 1, lambda, &o->concurrency, err)) return -1;
    if (!r->federated) resolve_as_before(a, "concurrency", o->concurrency == lambda);
    if (o->concurrency == lambda) return 0;
    if (o->driver == PS_DRIVER_UNIFORM)
        return sgd_errf(err, "%s.concurrency: fewer clients in flight than cluster.workers "
                             "(%lld < %lld) needs driver \"timed\"", a->path,
                        (long long)o->concurrency, (long long)lambda);
    if (r->gated || r->protocol == PS_PROTO_DOWNPOUR)
        return sgd_errf(err, "%s.concurrency: not valid with name %s, whose clients keep state "
                             "across tasks (use %lld, cluster.workers)", a->path, ps_name(o),
                        (long long)lambda);
    return 0;
}

/* The clients section (client behaviour, ps_clients.h) needs the clock, and a rule whose
 * task is one fetch, compute and push, so that a dropped task leaves nothing half sent. */
static int check_clients(const sgd_jobj_t *a, const scn_t *s, const ps_opts_t *o,
                         sgd_err_t *err)
{
    if (!s->clients.given) return 0;
    if (o->driver == PS_DRIVER_UNIFORM)
        return sgd_errf(err, "clients: needs %s.driver \"timed\" (availability and dropout "
                             "happen in virtual time)", a->path);
    if (o->rule->gated || o->rule->protocol == PS_PROTO_DOWNPOUR)
        return sgd_errf(err, "clients: not valid with name %s, whose clients keep state "
                             "across tasks", ps_name(o));
    return 0;
}

int ps_parse_scaling(const sgd_jobj_t *a, ps_opts_t *o, ps_staleness_t stale_default,
                     ps_norm_kind_t norm_default, bool need_norm, sgd_err_t *err)
{
    static const char *const stale[] = {"none", "paper", "fred", NULL};
    static const char *const norms[] = {"none", "fred", "paper", NULL};
    int st, nk;
    if (sgd_jobj_enum(a, "staleness", stale, (int)stale_default, &st, err) ||
        sgd_jobj_enum(a, "normaliser", norms, (int)norm_default, &nk, err))
        return -1;
    o->staleness = (ps_staleness_t)st;
    o->norm.kind = (ps_norm_kind_t)nk;
    if (need_norm && o->norm.kind == PS_NORM_NONE)
        return sgd_errf(err, "%s.normaliser: %s needs \"fred\" or \"paper\" (without a "
                             "normaliser it is sasgd)", a->path, ps_name(o));
    return parse_normaliser(a, &o->norm, err);
}

/* Keys added after runs were recorded without them: at the value that is the behaviour from
 * before (their default), they are left out of the resolved configuration, so those runs'
 * keys stay the keys of the same configuration today. */
static void resolve_as_before(const sgd_jobj_t *a, const char *key, bool at_default)
{
    if (a->out && at_default) cJSON_DeleteItemFromObjectCaseSensitive(a->out, key);
}

/* When a client that pushed may fetch (ps_fetch_t).  "after_update" is the behaviour from
 * before the key existed.  Hardsync is defined by its clients waiting for the update of every
 * client's gradient on one version: with "after_push" a fast client would push twice into
 * one update, which is sasgd with n = 1 and staleness "none", so it is refused there. */
static int parse_fetch(const sgd_jobj_t *a, ps_opts_t *o, sgd_err_t *err)
{
    static const char *const fetches[] = {"after_update", "after_push", NULL};
    int f;
    if (o->rule->federated) { /* a slot that frees takes a new client (ps_clients.h) */
        o->fetch = PS_FETCH_AFTER_PUSH;
        return ps_reject_key(a, "fetch", "fixed by the FL rule's protocol (a client whose push "
                                         "the server took in leaves its slot)", err);
    }
    if (sgd_jobj_enum(a, "fetch", fetches, 0, &f, err)) return -1;
    o->fetch = (ps_fetch_t)f;
    resolve_as_before(a, "fetch", f == 0);
    if (o->fetch == PS_FETCH_AFTER_PUSH && o->rule->protocol == PS_PROTO_HARDSYNC)
        return sgd_errf(err, "%s.fetch: \"after_push\" is not valid with name hardsync, whose "
                             "clients wait for the update of every client's gradient on one "
                             "version (with \"after_push\" a client could push twice into one "
                             "update: that is sasgd with n = 1 and staleness \"none\")",
                        a->path);
    return 0;
}

/* B-FASGD: how a client's first push is treated.  "gate" (the default, sgdsim's behaviour
 * since B-FASGD was added): like every push, with v = initial_v until the server took in a
 * gradient.  "always" (FRED): sent without a coin, so no gate ever opens before the first
 * gradient arrives and initial_v would never be read -- it is refused there. */
static int parse_first_push(const sgd_jobj_t *a, ps_opts_t *o, sgd_err_t *err)
{
    static const char *const first[] = {"gate", "always", NULL};
    int fp;
    if (sgd_jobj_enum(a, "first_push", first, 0, &fp, err)) return -1;
    o->first_push_always = fp == 1;
    resolve_as_before(a, "first_push", fp == 0);
    if (o->first_push_always)
        return ps_reject_key(a, "initial_v", "only read with first_push \"gate\" (with "
                                          "\"always\" no gate opens before the server has "
                                          "taken in a gradient)", err);
    if (sgd_jobj_num(a, "initial_v", 0.0, 0.0, false, 1e6, &o->initial_v, err)) return -1;
    resolve_as_before(a, "initial_v", o->initial_v == 0.0);
    return 0;
}

/* B-FASGD: the gating constants and how a skipped fetch counts staleness. */
int ps_parse_gating(const sgd_jobj_t *a, ps_opts_t *o, sgd_err_t *err)
{
    if (sgd_jobj_num(a, "c_fetch", 0.0, 0.0, false, 1e12, &o->c_fetch, err) ||
        sgd_jobj_num(a, "c_push", 0.0, 0.0, false, 1e12, &o->c_push, err) ||
        sgd_jobj_num(a, "gating_eps", 1e-4, 0.0, true, 1e6, &o->gate_eps, err))
        return -1;
    /* "truthful": tau counts from the parameters the client really holds.  "fred": as the
     * authors' simulator, a skipped fetch still records the server's current timestamp for
     * the client, so its next gradient looks fresher than it is (docs/papers.md §2). */
    static const char *const skip_tau[] = {"truthful", "fred", NULL};
    int st;
    if (sgd_jobj_enum(a, "skipped_fetch_tau", skip_tau, 0, &st, err)) return -1;
    o->fred_skip_tau = st == 1;
    return parse_first_push(a, o, err);
}

/* Options of other sections that this family does not model: refused rather than ignored. */
static int refuse_unmodelled(const scn_t *s, const ps_rule_t *rule, sgd_err_t *err)
{
    if (s->cost_only) /* no data, no parameters to snapshot */
        return sgd_errf(err, "model.kind: \"preset\" is a cost-only model, and %s computes "
                             "real gradients on snapshots of real parameters: use a real model "
                             "(with model.cost_preset for a preset's costs)",
                        rule->ops.scenario.name);
    if (s->sgd.momentum != 0.0 || s->sgd.nesterov)
        return sgd_errf(err, "optimizer.momentum: the parameter-server algorithms apply their "
                             "own update rule on the server; must be 0, got %g",
                        s->sgd.momentum);
    if (s->sgd.weight_decay != 0.0)
        return sgd_errf(err, "optimizer.weight_decay: not supported by the parameter-server "
                             "algorithms; must be 0, got %g", s->sgd.weight_decay);
    if (s->sampling != SCN_SAMPLING_SHUFFLE)
        return sgd_errf(err, "batch.sampling: not used by the parameter-server algorithms; "
                             "choose minibatches with algorithm.minibatch (\"cyclic\" or "
                             "\"random\")");
    return 0;
}

static void free_opts(void *opts)
{
    ps_opts_t *o = opts;
    if (o) free(o->rule_opts);
    free(o);
}

int ps_opts_parse(const sgd_jobj_t *a, scn_t *s, const ps_rule_t *rule, sgd_err_t *err)
{
    const int64_t lambda = s->workers;
    ps_opts_t o = {.rule = rule, .n = lambda, .c = 1, .k_fetch = 1, .k_push = 1,
                   .concurrency = lambda};
    if (check_keys(a, rule, err) || parse_common(a, s, &o, err) || parse_fetch(a, &o, err) ||
        ps_local_parse(a, s, rule->federated, &o.local, err) ||
        parse_concurrency(a, s, &o, err) || check_clients(a, s, &o, err) ||
        (rule->protocol == PS_PROTO_SOFTSYNC && parse_softsync(a, lambda, &o, err)) ||
        (rule->parse && rule->parse(a, s, &o, err)) || refuse_unmodelled(s, rule, err)) {
        free(o.rule_opts);
        return -1;
    }
    if (rule->protocol == PS_PROTO_HARDSYNC) o.c = o.concurrency;
    o.merge = rule->merge && o.norm.kind == PS_NORM_NONE && !o.local.on;
    ps_opts_t *heap = sgd_xmalloc(sizeof *heap);
    *heap = o;
    s->alg_opts = heap;
    s->alg_opts_free = free_opts;
    return 0;
}

const char *ps_name(const ps_opts_t *o)
{
    return o->rule->ops.scenario.name;
}

int64_t ps_rows(const ps_opts_t *o, int64_t mu)
{
    return o->merge ? o->c * o->k_push * mu : mu;
}

double ps_snapshot_versions(const scn_t *s, const ps_opts_t *o)
{
    if (o->rule->protocol == PS_PROTO_HARDSYNC || o->rule->protocol == PS_PROTO_ROUNDS)
        return 2.0;
    double versions = (double)o->concurrency;
    /* fetch "after_push": the pushes the server buffers (c - 1 at most) hold versions their
     * clients may have replaced since */
    if (o->fetch == PS_FETCH_AFTER_PUSH) versions += (double)(o->c - 1);
    if (s->stop_updates > 0 && (double)s->stop_updates < versions)
        versions = (double)s->stop_updates;
    return versions + 1.0;
}
