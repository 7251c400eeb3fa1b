/* Client availability, dropout and devices declared in client_behaviour.h.
 *
 * Draws go through a gsl_rng made on the stack around state the caller owns (a cursor's
 * stream, or a local one for a device or a task), so answering for 10^6 clients allocates
 * nothing and a cursor stays plain data that can be copied and checkpointed. */
#include "sim/client_behaviour.h"

#include <math.h>
#include <string.h>

#include "sim/rng.h"

const char *const sim_client_avail_names[] = {"always", "renewal", "trace", NULL};

/* A generator of type sim_rng_xoshiro256ss over `state`, seeded as sim_rng_create(seed, kind,
 * entity) would be. */
static gsl_rng stream_over(uint64_t state[4], uint64_t seed, uint32_t kind, uint64_t entity)
{
    SGD_ASSERT(sim_rng_xoshiro256ss->size == 4 * sizeof state[0]);
    gsl_rng g = {.type = sim_rng_xoshiro256ss, .state = state};
    sim_rng_reseed(&g, seed, kind, entity);
    return g;
}

int sim_client_model_check(const sim_client_model_t *m, sgd_err_t *err)
{
    if (m->avail != SIM_AVAIL_ALWAYS && m->avail != SIM_AVAIL_RENEWAL &&
        m->avail != SIM_AVAIL_TRACE)
        return sgd_errf(err, "avail: unknown availability process %d", (int)m->avail);
    if (m->avail == SIM_AVAIL_TRACE && (!m->avail_trace || m->avail_trace->n < 1))
        return sgd_errf(err, "avail_trace: availability \"trace\" needs a loaded trace");
    if (m->avail == SIM_AVAIL_RENEWAL) {
        if (!(sim_dist_mean(&m->online_s) >= SIM_CLIENT_PERIOD_MEAN_MIN_S))
            return sgd_errf(err, "online_s: the mean online period must be at least %g s, "
                                 "got %g s", SIM_CLIENT_PERIOD_MEAN_MIN_S,
                            sim_dist_mean(&m->online_s));
        if (!(sim_dist_mean(&m->offline_s) >= SIM_CLIENT_PERIOD_MEAN_MIN_S))
            return sgd_errf(err, "offline_s: the mean offline period must be at least %g s, "
                                 "got %g s", SIM_CLIENT_PERIOD_MEAN_MIN_S,
                            sim_dist_mean(&m->offline_s));
    }
    if (m->device_trace && m->device_trace->n < 1)
        return sgd_errf(err, "device_trace: a capacity file without devices");
    if (!(m->dropout_p >= 0.0 && m->dropout_p <= 1.0))
        return sgd_errf(err, "dropout_p: must be a probability in [0, 1], got %g", m->dropout_p);
    return 0;
}

/* One period's length: a draw in seconds, in ns, at least 1 ns (so every step moves time). */
static int64_t period_ns(const sim_dist_t *d, gsl_rng *g)
{
    int64_t ns = sim_seconds_to_ns(sim_dist_sample(d, g));
    return ns < 1 ? 1 : ns;
}

/* TRACE: c's state at t, and its next change, straight from the trace. */
static void trace_place(const sim_client_model_t *m, sim_client_avail_t *c, int64_t t_ns)
{
    const sim_fedscale_trace_t *tr = m->avail_trace;
    int64_t k = (int64_t)(c->client % (uint64_t)tr->n);
    c->since_ns = t_ns;
    c->online = sim_fedscale_trace_online(tr, k, t_ns);
    c->until_ns = sim_fedscale_trace_next_change(tr, k, t_ns);
}

void sim_client_avail_start(const sim_client_model_t *m, uint64_t client,
                            sim_client_avail_t *c)
{
    memset(c, 0, sizeof *c);
    c->client = client;
    c->since_ns = 0;
    if (m->avail == SIM_AVAIL_ALWAYS) {
        c->online = 1;
        c->until_ns = SIM_TIME_BEYOND_NS;
        return;
    }
    if (m->avail == SIM_AVAIL_TRACE) {
        trace_place(m, c, 0);
        return;
    }
    gsl_rng g = stream_over(c->stream, m->seed, SIM_STREAM_AVAILABILITY, client);
    double on = sim_dist_mean(&m->online_s), off = sim_dist_mean(&m->offline_s);
    c->online = gsl_rng_uniform(&g) < on / (on + off);
    c->until_ns = period_ns(c->online ? &m->online_s : &m->offline_s, &g);
}

/* Moves c to the period holding t (t >= c->since_ns). */
static void walk_to(const sim_client_model_t *m, sim_client_avail_t *c, int64_t t_ns)
{
    if (c->until_ns > t_ns || c->until_ns >= SIM_TIME_BEYOND_NS) return;
    gsl_rng g = {.type = sim_rng_xoshiro256ss, .state = c->stream};
    while (c->until_ns <= t_ns && c->until_ns < SIM_TIME_BEYOND_NS) {
        c->since_ns = c->until_ns;
        c->online = !c->online;
        c->until_ns = sim_time_add(c->since_ns,
                                   period_ns(c->online ? &m->online_s : &m->offline_s, &g));
    }
}

static void move_to(const sim_client_model_t *m, sim_client_avail_t *c, int64_t t_ns)
{
    SGD_ASSERT(t_ns >= 0 && t_ns <= SIM_TIME_MAX_NS);
    if (m->avail == SIM_AVAIL_TRACE) {
        trace_place(m, c, t_ns);
        return;
    }
    if (t_ns < c->since_ns) sim_client_avail_start(m, c->client, c);
    walk_to(m, c, t_ns);
}

bool sim_client_online(const sim_client_model_t *m, sim_client_avail_t *c, int64_t t_ns)
{
    move_to(m, c, t_ns);
    return c->online != 0;
}

int64_t sim_client_next_change(const sim_client_model_t *m, sim_client_avail_t *c,
                               int64_t t_ns)
{
    move_to(m, c, t_ns);
    return c->until_ns;
}

bool sim_client_online_at(const sim_client_model_t *m, uint64_t client, int64_t t_ns)
{
    sim_client_avail_t c;
    sim_client_avail_start(m, client, &c);
    return sim_client_online(m, &c, t_ns);
}

/* The task's own coin: whether it drops, and where in [start, start + duration). */
static bool task_coin(const sim_client_model_t *m, uint64_t client, uint64_t task_key,
                      int64_t start_ns, int64_t duration_ns, int64_t *at_ns)
{
    uint64_t state[4];
    uint64_t per_client = sim_rng_mix(m->seed, SIM_STREAM_DROPOUT, client);
    gsl_rng g = stream_over(state, per_client, SIM_STREAM_DROPOUT, task_key);
    double coin = gsl_rng_uniform(&g), u = gsl_rng_uniform(&g);
    int64_t into = (int64_t)floor(u * (double)duration_ns);
    if (into > duration_ns - 1) into = duration_ns - 1; /* u * d may round up to d */
    *at_ns = start_ns + into;
    return coin < m->dropout_p;
}

sim_client_task_t sim_client_task(const sim_client_model_t *m, sim_client_avail_t *c,
                                  uint64_t task_key, int64_t start_ns, int64_t duration_ns)
{
    SGD_ASSERT(duration_ns >= 0 && duration_ns <= SIM_TIME_BEYOND_NS);
    sim_client_task_t out = {.completes = true, .went_offline = false,
                             .end_ns = sim_time_add(start_ns, duration_ns)};
    if (!sim_client_online(m, c, start_ns))
        return (sim_client_task_t){.completes = false, .went_offline = true,
                                   .end_ns = start_ns};
    if (c->until_ns < out.end_ns) {
        out.completes = false;
        out.went_offline = true;
        out.end_ns = c->until_ns;
    }
    int64_t at;
    if (m->dropout_p > 0.0 && duration_ns > 0 &&
        task_coin(m, c->client, task_key, start_ns, duration_ns, &at) &&
        (out.completes || at < out.end_ns))
        out = (sim_client_task_t){.completes = false, .went_offline = false, .end_ns = at};
    return out;
}

sim_client_device_t sim_client_device(const sim_client_model_t *m, uint64_t client)
{
    if (m->device_trace) {
        const sim_fedscale_capacity_t *cap = m->device_trace;
        const sim_fedscale_device_t *dev = &cap->dev[client % (uint64_t)cap->n];
        return (sim_client_device_t){
            .compute_factor = dev->compute_ms / cap->mean_compute_ms,
            .bandwidth_Bps = fmax(1.0, sim_fedscale_bytes_per_s(dev->bandwidth_kbps))};
    }
    uint64_t state[4];
    gsl_rng g = stream_over(state, m->seed, SIM_STREAM_DEVICE, client);
    sim_client_device_t d;
    d.compute_factor = sim_dist_sample(&m->compute_factor, &g);
    d.bandwidth_Bps = sim_dist_sample(&m->bandwidth_Bps, &g);
    if (!(d.bandwidth_Bps >= 1.0)) d.bandwidth_Bps = 1.0;
    return d;
}

void sim_client_avail_save(const sim_client_avail_t *c, sgd_ckw_t *w)
{
    for (int i = 0; i < 4; i++) sgd_ckw_u64(w, c->stream[i]);
    sgd_ckw_i64(w, c->since_ns);
    sgd_ckw_i64(w, c->until_ns);
    sgd_ckw_u64(w, c->client);
    sgd_ckw_u64(w, c->online);
}

void sim_client_avail_restore(sim_client_avail_t *c, sgd_ckr_t *r)
{
    memset(c, 0, sizeof *c);
    for (int i = 0; i < 4; i++) c->stream[i] = sgd_ckr_u64(r);
    c->since_ns = sgd_ckr_i64(r);
    c->until_ns = sgd_ckr_i64(r);
    c->client = sgd_ckr_u64(r);
    uint64_t online = sgd_ckr_u64(r);
    if (r->failed) return;
    bool stream_zero = (c->stream[0] | c->stream[1] | c->stream[2] | c->stream[3]) == 0;
    /* An all-zero xoshiro state is the one no seed gives: it would draw zeros forever. */
    if (online > 1 || c->since_ns < 0 || c->until_ns <= c->since_ns ||
        c->until_ns > SIM_TIME_BEYOND_NS || (stream_zero && c->until_ns < SIM_TIME_BEYOND_NS)) {
        sgd_ckr_fail(r, "client %llu's availability: period [%lld, %lld) ns, flag %llu",
                     (unsigned long long)c->client, (long long)c->since_ns,
                     (long long)c->until_ns, (unsigned long long)online);
        memset(c, 0, sizeof *c);
        return;
    }
    c->online = (uint32_t)online;
}
