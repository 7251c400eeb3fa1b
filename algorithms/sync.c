/* The shared synchronous machinery declared in sync.h. */
#include "algorithms/sync.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "models/optim.h"
#include "sim/rng.h"

/* The collective calls of one gradient exchange.  Per tensor: one call per parameter tensor,
 * in framework order (as the LSGD authors' code loops over model.parameters()).  Fused:
 * tensors taken in reverse order (the order backward produces gradients, as PyTorch's DDP
 * buckets them) are appended to a bucket until it holds at least bucket_bytes, which is then
 * one call. */
static void build_plan(alg_sync_t *y)
{
    const alg_ctx_t *ctx = y->ctx;
    y->call_elems = sgd_xmalloc((size_t)ctx->ntensors * sizeof *y->call_elems);
    if (y->s->granularity == SCN_GRAN_PER_TENSOR) {
        memcpy(y->call_elems, ctx->tensor_elems, (size_t)ctx->ntensors * sizeof *y->call_elems);
        y->ncalls = ctx->ntensors;
        return;
    }
    uint64_t cur = 0;
    for (int i = ctx->ntensors - 1; i >= 0; i--) {
        cur += ctx->tensor_elems[i];
        if (cur * sizeof(float) >= (uint64_t)y->s->bucket_bytes || i == 0) {
            y->call_elems[y->ncalls++] = cur;
            cur = 0;
        }
    }
}

/* Timeline: messages are drawn on one track per link (sim_net_set_trace); name the tracks
 * after what the links are, so a trace viewer shows "worker 2 uplink", "node 0 NIC tx". */
static void name_link_tracks(alg_sync_t *y)
{
    sim_trace_t *tr = y->ctx->trace;
    const sim_topo_t *t = &y->topo;
    sim_net_set_trace(y->net, tr);
    if (!tr) return;
    char name[64];
    bool flat = t->spec.kind == SIM_TOPO_FLAT;
    int up0 = flat ? t->star.uplink0 : t->up0, down0 = flat ? t->star.downlink0 : t->down0;
    for (int i = 0; i < t->workers; i++) {
        snprintf(name, sizeof name, "worker %d uplink", i);
        sim_trace_name_track(tr, SIM_TRACK_LINK, (uint32_t)(up0 + i), name);
        snprintf(name, sizeof name, "worker %d downlink", i);
        sim_trace_name_track(tr, SIM_TRACK_LINK, (uint32_t)(down0 + i), name);
    }
    if (t->spec.kind != SIM_TOPO_CLUSTER) return;
    for (int a = 0; a < t->nodes; a++) {
        snprintf(name, sizeof name, "node %d NIC tx", a);
        sim_trace_name_track(tr, SIM_TRACK_LINK, (uint32_t)(t->tx0 + a), name);
        snprintf(name, sizeof name, "node %d NIC rx", a);
        sim_trace_name_track(tr, SIM_TRACK_LINK, (uint32_t)(t->rx0 + a), name);
        if (t->core0 >= 0) {
            snprintf(name, sizeof name, "node %d core share", a);
            sim_trace_name_track(tr, SIM_TRACK_LINK, (uint32_t)(t->core0 + a), name);
        }
    }
}

void alg_sync_trace_coll(const alg_sync_t *y, sim_coll_t *c, const char *kind, int nranks,
                         int comm0, int ncomm, int worker0)
{
    if (!y->ctx->trace) return;
    char (*buf)[48] = sgd_xmalloc((size_t)nranks * sizeof *buf);
    const char **names = sgd_xmalloc((size_t)nranks * sizeof *names);
    for (int r = 0; r < nranks; r++) {
        if (r < ncomm) snprintf(buf[r], sizeof buf[r], "node %d communicator", comm0 + r);
        else snprintf(buf[r], sizeof buf[r], "worker %d", worker0 + r - ncomm);
        names[r] = buf[r];
    }
    sim_coll_set_trace(c, kind, "update", names);
    free(names);
    free(buf);
}

static void build_network(alg_sync_t *y)
{
    const scn_t *s = y->s;
    sim_topo_spec_t spec = {.workers = y->p};
    if (s->topo.kind == SCN_TOPO_FLAT) {
        spec.kind = SIM_TOPO_FLAT;
        spec.link_Bps = s->bandwidth_Bps;
        spec.link_latency_ns = s->latency_ns;
    } else {
        spec.kind = SIM_TOPO_CLUSTER;
        spec.nodes = (int)s->topo.nodes;
        spec.gpus_per_node = (int)s->topo.gpus_per_node;
        spec.intra_Bps = s->topo.intra_Bps;
        spec.intra_latency_ns = s->topo.intra_latency_ns;
        spec.nic_Bps = s->topo.nic_Bps;
        spec.nic_latency_ns = s->topo.nic_latency_ns;
        spec.oversubscription = s->topo.oversubscription;
    }
    y->net = sim_net_create();
    sim_topo_init(&y->topo, y->net, &spec);
    name_link_tracks(y);
}

void alg_sync_init(alg_sync_t *y, alg_ctx_t *ctx)
{
    const scn_t *s = ctx->scn;
    memset(y, 0, sizeof *y);
    y->ctx = ctx;
    y->s = s;
    y->p = (int)s->workers;
    y->b = (int)s->batch_per_worker;
    y->workers = sgd_xcalloc((size_t)y->p, sizeof *y->workers);
    for (int i = 0; i < y->p; i++) {
        alg_sync_worker_t *w = &y->workers[i];
        w->compute_rng = sim_rng_create(s->seed, SIM_STREAM_COMPUTE, (uint64_t)i);
        w->io_rng = sim_rng_create(s->seed, SIM_STREAM_IO, (uint64_t)i);
        gsl_rng *speed = sim_rng_create(s->seed, SIM_STREAM_SPEED, (uint64_t)i);
        w->time_factor = sim_dist_sample(&s->time_factor, speed);
        gsl_rng_free(speed);
    }
    build_network(y);
    build_plan(y);
    ctx->samples_per_update = (int64_t)y->p * y->b;
    if (!ctx->numerics) return;

    size_t B = (size_t)y->p * (size_t)y->b;
    y->rows = sgd_xmalloc(B * sizeof *y->rows);
    y->order = sgd_xmalloc((size_t)ctx->train->n * sizeof(uint32_t));
    for (int64_t r = 0; r < ctx->train->n; r++) y->order[r] = (uint32_t)r;
    y->order_rng = sim_rng_create(s->seed, SIM_STREAM_DATA_ORDER, 0);
    /* Start with a fresh permutation for the first epoch. */
    y->order_pos = s->sampling == SCN_SAMPLING_SHUFFLE ? ctx->train->n : 0;
}

void alg_sync_free(alg_sync_t *y)
{
    for (int i = 0; i < y->p; i++) {
        gsl_rng_free(y->workers[i].compute_rng);
        gsl_rng_free(y->workers[i].io_rng);
    }
    free(y->workers);
    sim_net_destroy(y->net);
    free(y->call_elems);
    if (y->order_rng) gsl_rng_free(y->order_rng);
    free(y->rows);
    free(y->order);
    memset(y, 0, sizeof *y);
}

/* The backend's resident training starts at the first update (or a restore), not at
 * create: a backend's failure is then the run's (`failed`, its rows kept), not a refusal to
 * start it. */
static int sync_begin(alg_sync_t *y, sgd_err_t *err)
{
    alg_ctx_t *ctx = y->ctx;
    if (y->begun) return 0;
    if (sgd_backend_sync_begin(ctx->backend, ctx->train, &y->s->sgd, ctx->params, err))
        return -1;
    y->begun = true;
    return 0;
}

int alg_sync_save(const alg_sync_t *y, sgd_ckw_t *w, sgd_err_t *err)
{
    const alg_ctx_t *ctx = y->ctx;
    sgd_ckw_tag(w, "sync");
    sgd_ckw_u64(w, (uint64_t)y->p);
    for (int i = 0; i < y->p; i++) {
        sim_rng_save(y->workers[i].compute_rng, w);
        sim_rng_save(y->workers[i].io_rng, w);
    }
    sim_net_save(y->net, w);
    sgd_ckw_f64(w, y->loss);
    sgd_ckw_f64(w, y->lr);
    if (!ctx->numerics) return 0;
    sgd_ckw_bytes(w, y->order, (size_t)ctx->train->n * sizeof *y->order);
    sgd_ckw_i64(w, y->order_pos);
    sim_rng_save(y->order_rng, w);
    /* Saved after an update, so training has begun; the velocity is its state. */
    SGD_ASSERT(y->begun);
    float *velocity = sgd_xmalloc(ctx->nparams * sizeof *velocity);
    int rc = sgd_backend_sync_export(ctx->backend, velocity, err);
    if (rc == 0) sgd_ckw_bytes(w, velocity, ctx->nparams * sizeof *velocity);
    free(velocity);
    return rc;
}

/* The sampler's permutation must be one of the training rows, or a later batch would read
 * outside the data. */
static void check_order(const alg_sync_t *y, sgd_ckr_t *r)
{
    int64_t n = y->ctx->train->n;
    bool *seen = sgd_xcalloc((size_t)n + 1, sizeof *seen);
    for (int64_t k = 0; k < n && !r->failed; k++) {
        uint32_t row = y->order[k];
        if ((int64_t)row >= n || seen[row]) /* a permutation: each row once */
            sgd_ckr_fail(r, "sampler: row %u out of range or drawn twice", row);
        else
            seen[row] = true;
    }
    free(seen);
    if (!r->failed && (y->order_pos < 0 || y->order_pos > n))
        sgd_ckr_fail(r, "sampler: position %lld out of range", (long long)y->order_pos);
}

int alg_sync_restore(alg_sync_t *y, sgd_ckr_t *r, sgd_err_t *err)
{
    alg_ctx_t *ctx = y->ctx;
    sgd_ckr_tag(r, "sync");
    uint64_t p = sgd_ckr_u64(r);
    if (!r->failed && p != (uint64_t)y->p)
        sgd_ckr_fail(r, "%llu workers saved, this run has %d", (unsigned long long)p, y->p);
    for (int i = 0; i < y->p && !r->failed; i++) {
        sim_rng_restore(y->workers[i].compute_rng, r);
        sim_rng_restore(y->workers[i].io_rng, r);
    }
    if (sgd_ckr_check(r, "sync", err) || sim_net_restore(y->net, r, err)) return -1;
    y->loss = sgd_ckr_f64(r);
    y->lr = sgd_ckr_f64(r);
    /* the latest update's: a run that made them NaN had diverged, and stopped there */
    if (!r->failed && !(isfinite(y->loss) && isfinite(y->lr) && y->lr >= 0))
        sgd_ckr_fail(r, "loss %g and learning rate %g of the latest update", y->loss, y->lr);
    if (!ctx->numerics) return sgd_ckr_check(r, "sync", err);
    sgd_ckr_bytes(r, y->order, (size_t)ctx->train->n * sizeof *y->order, "sampler");
    y->order_pos = sgd_ckr_i64(r);
    sim_rng_restore(y->order_rng, r);
    check_order(y, r);
    float *velocity = sgd_xmalloc(ctx->nparams * sizeof *velocity);
    sgd_ckr_bytes(r, velocity, ctx->nparams * sizeof *velocity, "velocity");
    if (!r->failed && alg_any_nonfinite(velocity, ctx->nparams))
        sgd_ckr_fail(r, "velocity: a value is NaN or infinite");
    int rc = sgd_ckr_check(r, "sync", err);
    if (rc == 0 && (sync_begin(y, err) ||
                    sgd_backend_sync_import(ctx->backend, ctx->params, velocity, err)))
        rc = sgd_err_prefix(err, "sync: restoring the backend's state");
    free(velocity);
    return rc;
}

size_t alg_sync_state_size(const alg_sync_t *y)
{
    size_t size = (size_t)y->p * 2 * 40 + (size_t)sim_net_nlinks(y->net) * 24 + 64;
    if (y->ctx->numerics)
        size += (size_t)y->ctx->train->n * sizeof *y->order + y->ctx->nparams * sizeof(float);
    return size;
}

/* Picks the stacked global batch of the next update (P*b row indices in worker order). */
static void draw_global_batch(alg_sync_t *y)
{
    const sgd_dataset_t *d = y->ctx->train;
    int64_t n = d->n, B = (int64_t)y->p * y->b;
    bool shuffle = y->s->sampling == SCN_SAMPLING_SHUFFLE;
    if (shuffle && y->order_pos + B > n) {
        /* New epoch; the incomplete tail of the old permutation is dropped (drop_last). */
        gsl_ran_shuffle(y->order_rng, y->order, (size_t)n, sizeof *y->order);
        y->order_pos = 0;
    }
    for (int64_t k = 0; k < B; k++)
        y->rows[k] = shuffle ? y->order[y->order_pos + k] : (y->order_pos + k) % n;
    y->order_pos = shuffle ? y->order_pos + B : (y->order_pos + B) % n;
}

int alg_sync_update(alg_sync_t *y, int64_t update_index)
{
    alg_ctx_t *ctx = y->ctx;
    y->lr = lr_at(&y->s->lr, update_index, (int64_t)y->p * y->b);
    if (!ctx->numerics) {
        y->loss = 0.0;
        return 0;
    }
    draw_global_batch(y);
    /* One stacked pass over every worker's minibatch, then the step (backend.h). */
    sgd_err_t err = {{0}};
    if (sync_begin(y, &err) ||
        sgd_backend_sync_step(ctx->backend, y->rows, y->p * y->b, (float)y->lr, ctx->params,
                              &y->loss, &err)) {
        alg_backend_failed(ctx, &err);
        return -1;
    }
    return 0;
}

static int64_t draw_ns(const sim_dist_t *dist, gsl_rng *r, double factor)
{
    return sim_seconds_to_ns(sim_dist_sample(dist, r) * factor);
}

int64_t alg_sync_io_ns(alg_sync_t *y, int i)
{
    return draw_ns(&y->s->io_time_s, y->workers[i].io_rng, 1.0);
}

int64_t alg_sync_compute_ns(alg_sync_t *y, int i)
{
    alg_sync_worker_t *w = &y->workers[i];
    if (y->s->compute_kind == SCN_COMPUTE_FLOPS) {
        double flops = y->ctx->flops_per_sample * y->b;
        return sim_seconds_to_ns(flops / (y->s->device_gflops * 1e9) * w->time_factor);
    }
    return draw_ns(&y->s->compute_time_s, w->compute_rng, w->time_factor);
}

int64_t alg_sync_step_ns(alg_sync_t *y, int i)
{
    return draw_ns(&y->s->update_time_s, y->workers[i].compute_rng, 1.0);
}

/* Most messages one allreduce call's schedule may hold (a ring over ~2,900 ranks). */
#define SYNC_MAX_SCHED_MESSAGES (1u << 24)

/* The most ranks, up to nranks, whose allreduce under alg fits SYNC_MAX_SCHED_MESSAGES (the
 * size grows with the ranks). */
static int most_ranks_fitting(sim_allreduce_alg_t alg, int nranks)
{
    int lo = 1, hi = nranks;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (sim_sched_allreduce_size(alg, mid) <= SYNC_MAX_SCHED_MESSAGES)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The advice for a schedule too large: the other algorithms that fit nranks, or, when none
 * does, how many ranks the smallest one fits -- so it is true for every configuration. */
static void allreduce_advice(const scn_t *s, int nranks, const char *ranks_key, char *buf,
                             size_t n)
{
    size_t k = 0;
    int fits = 0, smallest = -1;
    for (int a = 0; sim_allreduce_names[a]; a++) {
        uint64_t m = sim_sched_allreduce_size((sim_allreduce_alg_t)a, nranks);
        if (smallest < 0 || m < sim_sched_allreduce_size((sim_allreduce_alg_t)smallest, nranks))
            smallest = a;
        if (a == s->allreduce_alg || m > SYNC_MAX_SCHED_MESSAGES || k >= n) continue;
        k += (size_t)snprintf(buf + k, n - k, "%s\"%s\"", fits++ ? " or " : "use ",
                              sim_allreduce_names[a]);
    }
    if (fits == 0)
        snprintf(buf, n, "no allreduce algorithm fits %d ranks (\"%s\", the smallest, fits at "
                         "most %d): lower %s", nranks, sim_allreduce_names[smallest],
                 most_ranks_fitting((sim_allreduce_alg_t)smallest, nranks), ranks_key);
}

int alg_sync_check_allreduce(const scn_t *s, int nranks, const char *ranks_key, sgd_err_t *err)
{
    uint64_t m = sim_sched_allreduce_size((sim_allreduce_alg_t)s->allreduce_alg, nranks);
    if (m <= SYNC_MAX_SCHED_MESSAGES) return 0;
    char advice[256];
    allreduce_advice(s, nranks, ranks_key, advice, sizeof advice);
    return sgd_errf(err, "network.allreduce: a %s allreduce over %d ranks has %llu messages per "
                         "call, too many to simulate (limit %u); %s",
                    sim_allreduce_names[s->allreduce_alg], nranks, (unsigned long long)m,
                    SYNC_MAX_SCHED_MESSAGES, advice);
}

int64_t alg_sync_analytic_ns(const alg_sync_t *y, const sim_sched_t *s, const int *endpoints)
{
    /* Many tensors share a size (ResNet-50: 161 tensors, few distinct sizes): cost each
     * distinct size once. */
    int64_t total = 0;
    int64_t *cost = sgd_xmalloc((size_t)y->ncalls * sizeof *cost);
    for (int c = 0; c < y->ncalls; c++) {
        int prev = 0;
        while (prev < c && y->call_elems[prev] != y->call_elems[c]) prev++;
        cost[c] = prev < c ? cost[prev]
                           : sim_sched_analytic_ns(s, &y->topo, y->net, endpoints,
                                                   y->call_elems[c], sizeof(float));
        total += cost[c];
    }
    free(cost);
    return total;
}

void alg_sync_traffic(const alg_sync_t *y, const sim_sched_t *s, uint64_t *messages,
                      uint64_t *bytes)
{
    *messages = *bytes = 0;
    for (int c = 0; c < y->ncalls; c++) {
        uint64_t m, b;
        sim_sched_traffic(s, y->call_elems[c], sizeof(float), &m, &b);
        *messages += m;
        *bytes += b;
    }
}
