/* The registered clients of the parameter-server family (ps_clients.h): the partition, the
 * behaviour model and its traces, the per-client counts, and sampling clients for slots. */
#include "algorithms/ps_clients.h"

#include <stdlib.h>
#include <string.h>

#include "sim/rng.h"

/* The behaviour model of the clients section (or the defaults: always online, no dropout,
 * every device the cluster's), its trace files loaded. */
static int init_model(ps_population_t *pop, const scn_t *s, sgd_err_t *err)
{
    const scn_clients_t *c = &s->clients;
    sim_client_model_t *m = &pop->model;
    *m = (sim_client_model_t){.seed = s->seed, .avail = SIM_AVAIL_ALWAYS,
                              .compute_factor = {.kind = SIM_DIST_CONSTANT, .p = {1.0}},
                              .bandwidth_Bps = {.kind = SIM_DIST_CONSTANT,
                                                .p = {s->bandwidth_Bps}}};
    pop->retry_s = 1.0;
    if (!c->given) return 0;
    m->avail = c->avail;
    m->online_s = c->online_s;
    m->offline_s = c->offline_s;
    m->dropout_p = c->dropout_p;
    m->compute_factor = c->compute_factor;
    m->bandwidth_Bps = c->bandwidth_Bps;
    pop->retry_s = c->retry_s;
    if (c->trace) {
        if (sim_fedscale_trace_load(c->trace, &pop->avail_trace, err))
            return sgd_err_prefix(err, "clients.trace");
        m->avail_trace = &pop->avail_trace;
    }
    if (c->device_trace) {
        if (sim_fedscale_capacity_load(c->device_trace, &pop->device_trace, err))
            return sgd_err_prefix(err, "clients.device_trace");
        m->device_trace = &pop->device_trace;
    }
    if (sim_client_model_check(m, err)) return sgd_err_prefix(err, "clients");
    return 0;
}

/* data.partition over the training labels; with sampling, the clients that hold data when
 * some hold none (a slot only ever takes a client with data). */
static int init_partition(ps_population_t *pop, const scn_t *s, const sgd_dataset_t *train,
                          sgd_arena_t *arena, sgd_err_t *err)
{
    if (!s->partition.given) return 0;
    gsl_rng *r = sim_rng_create(s->seed, SIM_STREAM_PARTITION, 0);
    int classes = 0;
    for (int64_t i = 0; i < train->n; i++)
        if (train->y[i] + 1 > classes) classes = train->y[i] + 1;
    int rc = partition_create(&s->partition.spec, train->y, train->n, classes, s->workers, r,
                              &pop->part, err);
    gsl_rng_free(r);
    if (rc) {
        char msg[SGD_ERR_MAX];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return sgd_errf(err, "data.partition.%s", msg);
    }
    pop->labels = train->y;
    int64_t holding = 0;
    for (int64_t i = 0; i < pop->registered; i++) holding += partition_size(pop->part, i) > 0;
    if (!pop->sampling || holding == pop->registered) return 0;
    pop->holders = SGD_ARENA_NEW(arena, holding, int64_t);
    for (int64_t i = 0; i < pop->registered; i++)
        if (partition_size(pop->part, i) > 0) pop->holders[pop->nholders++] = i;
    return 0;
}

/* Whether registered client i is ever online under an availability trace: its trace client
 * has a window. */
static bool ever_online(const ps_population_t *pop, int64_t i)
{
    const sim_fedscale_trace_t *t = &pop->avail_trace;
    const int64_t k = i % t->n;
    return t->first[k + 1] > t->first[k];
}

/* With an availability trace, a slot that samples must be able to find somebody some day:
 * a client that holds data and is online at some time (else it would retry for ever). */
static int check_reachable(const ps_population_t *pop, sgd_err_t *err)
{
    if (pop->model.avail != SIM_AVAIL_TRACE || !pop->sampling) return 0;
    const int64_t n = pop->holders ? pop->nholders : pop->registered;
    for (int64_t j = 0; j < n; j++)
        if (ever_online(pop, pop->holders ? pop->holders[j] : j)) return 0;
    return sgd_errf(err, "clients.trace: no client that holds data is ever online in it, so "
                         "no task could ever start");
}

bool ps_pop_extended(const ps_population_t *pop, const ps_opts_t *o)
{
    return pop->sampling || pop->behaviour || o->local.on || pop->part;
}

int ps_pop_init(ps_population_t *pop, const scn_t *s, const ps_opts_t *o,
                const sgd_dataset_t *train, sgd_arena_t *arena, sgd_err_t *err)
{
    *pop = (ps_population_t){.registered = s->workers, .slots = o->concurrency,
                             .sampling = o->concurrency < s->workers || o->rule->federated,
                             .behaviour = s->clients.given};
    const int64_t share = train->n / s->workers;
    pop->equal_share = share > 0 ? share : 1;
    if (init_model(pop, s, err) || init_partition(pop, s, train, arena, err) ||
        check_reachable(pop, err))
        return -1;
    if (!ps_pop_extended(pop, o)) return 0;
    pop->tasks = SGD_ARENA_NEW(arena, pop->registered, uint32_t);
    pop->contributed = SGD_ARENA_NEW(arena, pop->registered, uint32_t);
    if (pop->sampling) {
        pop->busy = SGD_ARENA_NEW(arena, pop->registered, uint8_t);
        pop->pick = sim_rng_create(s->seed, SIM_STREAM_CLIENT_PICK, PS_POP_PICK_ENTITY);
    }
    pop->scratch = gsl_rng_alloc(sim_rng_xoshiro256ss);
    return 0;
}

void ps_pop_free(ps_population_t *pop)
{
    partition_destroy(pop->part);
    sim_fedscale_trace_free(&pop->avail_trace);
    sim_fedscale_capacity_free(&pop->device_trace);
    if (pop->pick) gsl_rng_free(pop->pick);
    if (pop->scratch) gsl_rng_free(pop->scratch);
    *pop = (ps_population_t){0};
}

int64_t ps_pop_samples(const ps_population_t *pop, int64_t i)
{
    return pop->part ? partition_size(pop->part, i) : pop->equal_share;
}

int64_t ps_pop_pick(ps_population_t *pop, int64_t now)
{
    SGD_ASSERT(pop->sampling);
    for (int t = 0; t < PS_POP_TRIES; t++) {
        const int64_t i =
            pop->holders
                ? pop->holders[gsl_rng_uniform_int(pop->pick, (unsigned long)pop->nholders)]
                : (int64_t)gsl_rng_uniform_int(pop->pick, (unsigned long)pop->registered);
        if (pop->busy[i]) continue;
        if (pop->behaviour && !sim_client_online_at(&pop->model, (uint64_t)i, now)) continue;
        pop->busy[i] = 1;
        return i;
    }
    pop->stats.waits++;
    return -1;
}

int64_t ps_pop_task(ps_population_t *pop, int64_t i)
{
    if (pop->tasks[i] == 0) pop->stats.participated++;
    return pop->tasks[i]++;
}

void ps_pop_contributed(ps_population_t *pop, int64_t i)
{
    const int64_t n = ++pop->contributed[i];
    pop->stats.contributions++;
    if (n == 1) pop->stats.contributors++;
    if (n > pop->stats.contributions_max) pop->stats.contributions_max = n;
}

int ps_pop_metrics(const ps_pop_stats_t *st, alg_ctx_t *ctx, int64_t u, int64_t v,
                   uint64_t push_bytes, uint64_t fetch_bytes, bool rounds)
{
    const double took = st->participated > 0 ? (double)st->participated : 1.0;
    const double gave = st->contributors > 0 ? (double)st->contributors : 1.0;
    return alg_metric(ctx, u, v, "clients_participated", (double)st->participated) ||
                   alg_metric(ctx, u, v, "clients_contributed", (double)st->contributors) ||
                   alg_metric(ctx, u, v, "contributions_mean",
                              (double)st->contributions / gave) ||
                   alg_metric(ctx, u, v, "contributions_max", (double)st->contributions_max) ||
                   alg_metric(ctx, u, v, "tasks_dropped", (double)st->dropped) ||
                   alg_metric(ctx, u, v, "dropped_compute_s", (double)st->lost_ns / 1e9) ||
                   alg_metric(ctx, u, v, "bytes_up_per_client", (double)push_bytes / took) ||
                   alg_metric(ctx, u, v, "bytes_down_per_client", (double)fetch_bytes / took) ||
                   alg_metric(ctx, u, v, "slot_waits", (double)st->waits) ||
                   (rounds && (alg_metric(ctx, u, v, "rounds", (double)st->rounds) ||
                               alg_metric(ctx, u, v, "rounds_empty", (double)st->rounds_empty)))
               ? -1
               : 0;
}

int ps_pop_labels(const ps_population_t *pop, const alg_sink_t *sink, sgd_err_t *err)
{
    if (!pop->part || !sink || !sink->client_labels) return 0;
    const int classes = partition_classes(pop->part);
    int64_t *counts = sgd_xcalloc((size_t)classes, sizeof *counts);
    int rc = 0;
    for (int64_t i = 0; i < pop->registered && rc == 0; i++) {
        partition_label_counts(pop->part, i, pop->labels, counts);
        for (int k = 0; k < classes && rc == 0; k++)
            if (counts[k] > 0) rc = sink->client_labels(sink->ctx, i, k, counts[k], err);
    }
    free(counts);
    return rc;
}

/* ---- checkpoints ----------------------------------------------------------------------- */

void ps_pop_save(const ps_population_t *pop, sgd_ckw_t *w)
{
    sgd_ckw_tag(w, "population");
    sgd_ckw_bytes(w, pop->tasks, (size_t)pop->registered * sizeof *pop->tasks);
    sgd_ckw_bytes(w, pop->contributed, (size_t)pop->registered * sizeof *pop->contributed);
    if (pop->sampling) {
        sgd_ckw_bytes(w, pop->busy, (size_t)pop->registered * sizeof *pop->busy);
        sim_rng_save(pop->pick, w);
    }
    const ps_pop_stats_t *st = &pop->stats;
    const int64_t v[] = {st->participated, st->contributors, st->contributions,
                         st->contributions_max, st->dropped, st->lost_ns, st->waits,
                         st->rounds, st->rounds_empty};
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) sgd_ckw_i64(w, v[k]);
}

/* The statistics agree with the per-client counts they were kept from, and nothing is
 * negative. */
static void check_stats(const ps_population_t *pop, sgd_ckr_t *r)
{
    const ps_pop_stats_t *st = &pop->stats;
    int64_t participated = 0, contributors = 0, contributions = 0, most = 0;
    for (int64_t i = 0; i < pop->registered; i++) {
        participated += pop->tasks[i] > 0;
        contributors += pop->contributed[i] > 0;
        contributions += pop->contributed[i];
        if (pop->contributed[i] > most) most = pop->contributed[i];
    }
    if (st->participated != participated || st->contributors != contributors ||
        st->contributions != contributions || st->contributions_max != most ||
        st->dropped < 0 || st->lost_ns < 0 || st->waits < 0 || st->rounds < 0 ||
        st->rounds_empty < 0 || st->rounds_empty > st->rounds)
        sgd_ckr_fail(r, "population statistics that its counts contradict (%lld clients "
                        "participated, %lld contributed %lld pushes; %lld tasks dropped, "
                        "%lld ns lost, %lld rounds, %lld empty)",
                     (long long)st->participated, (long long)st->contributors,
                     (long long)st->contributions, (long long)st->dropped,
                     (long long)st->lost_ns, (long long)st->rounds, (long long)st->rounds_empty);
}

void ps_pop_restore(ps_population_t *pop, sgd_ckr_t *r)
{
    sgd_ckr_tag(r, "population");
    sgd_ckr_bytes(r, pop->tasks, (size_t)pop->registered * sizeof *pop->tasks, "task counts");
    sgd_ckr_bytes(r, pop->contributed, (size_t)pop->registered * sizeof *pop->contributed,
                  "contribution counts");
    int64_t busy = 0;
    if (pop->sampling) {
        sgd_ckr_bytes(r, pop->busy, (size_t)pop->registered * sizeof *pop->busy, "busy flags");
        sim_rng_restore(pop->pick, r);
    }
    ps_pop_stats_t *st = &pop->stats;
    int64_t *const v[] = {&st->participated, &st->contributors, &st->contributions,
                          &st->contributions_max, &st->dropped, &st->lost_ns, &st->waits,
                          &st->rounds, &st->rounds_empty};
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) *v[k] = sgd_ckr_i64(r);
    if (r->failed) return;
    for (int64_t i = 0; i < pop->registered; i++) {
        if (pop->contributed[i] > pop->tasks[i]) {
            sgd_ckr_fail(r, "client %lld contributed %u times in %u tasks", (long long)i,
                         pop->contributed[i], pop->tasks[i]);
            return;
        }
        if (pop->busy && pop->busy[i] > 1) {
            sgd_ckr_fail(r, "client %lld: busy flag %u", (long long)i, pop->busy[i]);
            return;
        }
        busy += pop->busy ? pop->busy[i] : 0;
    }
    if (busy > pop->slots)
        sgd_ckr_fail(r, "%lld clients busy in %lld slots", (long long)busy,
                     (long long)pop->slots);
    check_stats(pop, r);
}
