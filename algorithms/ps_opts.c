/* Options of the parameter-server family: parsing and validation of the `algorithm` section
 * (ps_opts.h).  Defaults follow the authors' code where the papers are silent
 * (docs/papers.md §2-3); docs/scenario.md lists every key, its unit and its default. */
#include "algorithms/ps_opts.h"

#include <stdlib.h>
#include <string.h>

static const char *const kind_names[] = {"sasgd", "fasgd", "b-fasgd", "downpour", "hardsync"};

/* Which algorithm names accept each key (bit i = kind i), for messages that say where a key
 * belongs instead of a bare "unknown key". */
#define K(x) (1u << (x))
#define K_ALL (K(PS_SASGD) | K(PS_FASGD) | K(PS_BFASGD) | K(PS_DOWNPOUR) | K(PS_HARDSYNC))
#define K_STALE (K(PS_SASGD) | K(PS_FASGD) | K(PS_BFASGD))
static const struct {
    const char *key;
    unsigned kinds;
} ps_keys[] = {
    {"name", K_ALL},         {"driver", K_ALL},        {"minibatch", K_ALL},
    {"server_time_s", K_ALL}, {"n", K_STALE},          {"staleness", K_STALE},
    {"normaliser", K_STALE}, {"decay", K_STALE},       {"gamma", K_STALE},
    {"beta", K_STALE},       {"eps", K_STALE},         {"c_fetch", K(PS_BFASGD)},
    {"c_push", K(PS_BFASGD)}, {"gating_eps", K(PS_BFASGD)}, {"k_fetch", K(PS_DOWNPOUR)},
    {"k_push", K(PS_DOWNPOUR)}, {"denormals", K_ALL}, {"skipped_fetch_tau", K(PS_BFASGD)},
    {"gradient_batch", K_ALL}, {"first_push", K(PS_BFASGD)}, {"initial_v", K(PS_BFASGD)},
};
#define PS_NKEYS (sizeof ps_keys / sizeof ps_keys[0])

static int check_key_owners(const sgd_jobj_t *a, ps_kind_t kind, sgd_err_t *err)
{
    if (!a->in) return 0;
    for (const cJSON *it = a->in->child; it; it = it->next) {
        for (size_t k = 0; k < PS_NKEYS; k++) {
            if (strcmp(it->string, ps_keys[k].key) != 0 || (ps_keys[k].kinds & K(kind)))
                continue;
            char owners[96] = "";
            for (int j = 0; j <= PS_HARDSYNC; j++)
                if (ps_keys[k].kinds & K(j)) {
                    if (owners[0]) strncat(owners, ", ", sizeof owners - strlen(owners) - 1);
                    strncat(owners, kind_names[j], sizeof owners - strlen(owners) - 1);
                }
            return sgd_errf(err, "%s.%s: only valid with name %s, not \"%s\"", a->path,
                            it->string, owners, kind_names[kind]);
        }
    }
    return 0;
}

static int reject_key(const sgd_jobj_t *a, const char *key, const char *why, sgd_err_t *err)
{
    if (sgd_jobj_has(a, key)) return sgd_errf(err, "%s.%s: %s", a->path, key, why);
    return 0;
}

/* Every key known, and each used only with the algorithm names that accept it. */
static int check_keys(const sgd_jobj_t *a, ps_kind_t kind, sgd_err_t *err)
{
    const char *keys[PS_NKEYS + 1];
    for (size_t k = 0; k < PS_NKEYS; k++) keys[k] = ps_keys[k].key;
    keys[PS_NKEYS] = NULL;
    return check_key_owners(a, kind, err) || sgd_jobj_check_keys(a, keys, err) ? -1 : 0;
}

/* Keys every algorithm of the family takes: driver, minibatch, denormals, gradient_batch
 * and (timed) server_time_s. */
static int parse_common(const sgd_jobj_t *a, const scn_t *s, ps_opts_t *o, sgd_err_t *err)
{
    static const char *const drivers[] = {"uniform", "timed", NULL};
    static const char *const minibatches[] = {"cyclic", "random", NULL};
    int drv, mb;
    if (sgd_jobj_enum(a, "driver", drivers, 0, &drv, err) ||
        sgd_jobj_enum(a, "minibatch", minibatches, 0, &mb, err))
        return -1;
    o->driver = (ps_driver_t)drv;
    o->minibatch = (ps_minibatch_t)mb;
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
    return reject_key(a, "server_time_s", "only valid with driver \"timed\"", err);
}

/* The normaliser's own keys; those of the other normalisers are refused. */
static int parse_normaliser(const sgd_jobj_t *a, ps_norm_cfg_t *nm, sgd_err_t *err)
{
    if (nm->kind == PS_NORM_NONE) {
        for (const char *const *k = (const char *const[]){"decay", "gamma", "beta", "eps", NULL};
             *k; k++)
            if (reject_key(a, *k, "only valid with a normaliser (normaliser is \"none\")", err))
                return -1;
        return 0;
    }
    if (nm->kind == PS_NORM_FRED)
        return reject_key(a, "gamma", "only valid with normaliser \"paper\"", err) ||
                       reject_key(a, "beta", "only valid with normaliser \"paper\"", err) ||
                       sgd_jobj_num(a, "decay", 0.9, 0.0, false, 0.999999, &nm->decay, err) ||
                       sgd_jobj_num(a, "eps", 1e-3, 0.0, true, 1e3, &nm->eps, err)
                   ? -1
                   : 0;
    return reject_key(a, "decay", "only valid with normaliser \"fred\"", err) ||
                   sgd_jobj_num(a, "gamma", 0.9, 0.0, false, 0.999999, &nm->gamma, err) ||
                   sgd_jobj_num(a, "beta", 0.9, 0.0, false, 0.999999, &nm->beta, err) ||
                   sgd_jobj_num(a, "eps", 1e-6, 0.0, true, 1e3, &nm->eps, err)
               ? -1
               : 0;
}

/* SASGD, FASGD, B-FASGD: n-softsync's n, the staleness rule and the normaliser. */
static int parse_softsync(const sgd_jobj_t *a, int64_t lambda, ps_opts_t *o, sgd_err_t *err)
{
    static const char *const stale[] = {"none", "paper", "fred", NULL};
    static const char *const norms[] = {"none", "fred", "paper", NULL};
    const bool sasgd = o->kind == PS_SASGD;
    int st, nk;
    if (sgd_jobj_int(a, "n", lambda, 1, lambda, &o->n, err) ||
        sgd_jobj_enum(a, "staleness", stale, sasgd ? 1 : 2, &st, err) ||
        sgd_jobj_enum(a, "normaliser", norms, sasgd ? 0 : 1, &nk, err))
        return -1;
    if (lambda % o->n != 0)
        return sgd_errf(err, "%s.n: must divide cluster.workers (lambda = %lld), got %lld: "
                             "n-softsync applies lambda / n gradients per update",
                        a->path, (long long)lambda, (long long)o->n);
    o->c = lambda / o->n;
    o->staleness = (ps_staleness_t)st;
    o->norm.kind = (ps_norm_kind_t)nk;
    if (!sasgd && o->norm.kind == PS_NORM_NONE)
        return sgd_errf(err, "%s.normaliser: %s needs \"fred\" or \"paper\" (without a "
                             "normaliser it is sasgd)", a->path, kind_names[o->kind]);
    return parse_normaliser(a, &o->norm, err);
}

/* Keys added after runs were recorded without them: at the value that is the behaviour from
 * before (their default), they are left out of the resolved configuration, so those runs'
 * keys stay the keys of the same configuration today. */
static void resolve_as_before(const sgd_jobj_t *a, const char *key, bool at_default)
{
    if (a->out && at_default) cJSON_DeleteItemFromObjectCaseSensitive(a->out, key);
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
        return reject_key(a, "initial_v", "only read with first_push \"gate\" (with "
                                          "\"always\" no gate opens before the server has "
                                          "taken in a gradient)", err);
    if (sgd_jobj_num(a, "initial_v", 0.0, 0.0, false, 1e6, &o->initial_v, err)) return -1;
    resolve_as_before(a, "initial_v", o->initial_v == 0.0);
    return 0;
}

/* B-FASGD: the gating constants and how a skipped fetch counts staleness. */
static int parse_gating(const sgd_jobj_t *a, ps_opts_t *o, sgd_err_t *err)
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
static int refuse_unmodelled(const scn_t *s, sgd_err_t *err)
{
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

int ps_opts_parse(const sgd_jobj_t *a, scn_t *s, ps_kind_t kind, sgd_err_t *err)
{
    const int64_t lambda = s->workers;
    ps_opts_t o = {.kind = kind, .n = lambda, .c = kind == PS_HARDSYNC ? lambda : 1,
                   .k_fetch = 1, .k_push = 1};
    const bool softsync = kind == PS_SASGD || kind == PS_FASGD || kind == PS_BFASGD;
    if (check_keys(a, kind, err) || parse_common(a, s, &o, err) ||
        (softsync && parse_softsync(a, lambda, &o, err)) ||
        (kind == PS_BFASGD && parse_gating(a, &o, err)) ||
        (kind == PS_DOWNPOUR &&
         (sgd_jobj_int(a, "k_fetch", 1, 1, 1 << 20, &o.k_fetch, err) ||
          sgd_jobj_int(a, "k_push", 1, 1, 1 << 20, &o.k_push, err))) ||
        refuse_unmodelled(s, err))
        return -1;
    ps_opts_t *heap = sgd_xmalloc(sizeof *heap);
    *heap = o;
    s->alg_opts = heap;
    s->alg_opts_free = free;
    return 0;
}

const char *ps_kind_name(ps_kind_t kind)
{
    return kind_names[kind];
}

int64_t ps_rows(const ps_opts_t *o, int64_t mu)
{
    return o->norm.kind == PS_NORM_NONE ? o->c * o->k_push * mu : mu;
}

double ps_snapshot_versions(const scn_t *s, const ps_opts_t *o)
{
    if (o->kind == PS_HARDSYNC) return 2.0;
    double versions = (double)s->workers;
    if (s->stop_updates > 0 && (double)s->stop_updates < versions)
        versions = (double)s->stop_updates;
    return versions + 1.0;
}
