/* LSGD: the paper's equivalence shown exactly (same seed => LSGD's parameters equal CSGD's
 * bit for bit after every update, while virtual times differ), the per-iteration time the
 * protocol implies (closed form: R + max(load, A) + B + compute + step with overlap, the sum
 * without), message level == closed form where the closed form is exact, cost-only and
 * hybrid models. */
#include <stdlib.h>

#include "algorithms/alg.h"
#include "models/preset.h"
#include "sim/collective.h"
#include "tests/algorithms/run_scenario.h"
#include "tests/check.h"

static const char *base =
    "{\"schema_version\": 1, \"seed\": 7, \"algorithm\": {\"name\": \"lsgd\"},"
    " \"cluster\": {\"workers\": 8},"
    " \"data\": {\"source\": \"synthetic\", \"n_train\": 700, \"n_validation\": 100,"
    "           \"dim\": 10, \"classes\": 3, \"separation\": 2.0},"
    " \"model\": {\"kind\": \"mlp\", \"hidden\": [12], \"init\": \"glorot\"},"
    " \"batch\": {\"per_worker\": 5},"
    " \"optimizer\": {\"lr\": 0.05, \"momentum\": 0.9, \"weight_decay\": 0.001},"
    " \"compute\": {\"kind\": \"time\", \"time_s\": 0.004},"
    " \"io\": {\"time_s\": 0.003},"
    " \"topology\": {\"kind\": \"cluster\", \"gpus_per_node\": 4,"
    "              \"intra\": {\"bandwidth_gbps\": 8, \"latency_us\": 1},"
    "              \"nic\": {\"bandwidth_gbps\": 1, \"latency_us\": 5}},"
    " \"network\": {\"granularity\": \"per_tensor\"},"
    " \"stop\": {\"updates\": 25}, \"eval\": {\"every\": 5}}";

#define MAXROWS 4096
typedef struct rows {
    int n;
    int64_t update[MAXROWS], vtime[MAXROWS];
    char name[MAXROWS][16];
    double value[MAXROWS];
} rows_t;

static int sink_metric(void *ctx, int64_t update, int64_t vtime_ns, const char *name,
                       double value, sgd_err_t *err)
{
    (void)err;
    rows_t *r = ctx;
    if (r->n < MAXROWS) {
        r->update[r->n] = update;
        r->vtime[r->n] = vtime_ns;
        snprintf(r->name[r->n], sizeof r->name[r->n], "%s", name);
        r->value[r->n] = value;
        r->n++;
    }
    return 0;
}

static alg_outcome_t run(const char *const *sets, int nsets, rows_t *rows)
{
    if (rows) rows->n = 0;
    alg_sink_t sink = {.ctx = rows, .metric = sink_metric};
    alg_outcome_t o = run_scenario(base, "lsgd.json", sets, nsets, rows ? &sink : NULL);
    CHECK_INT_EQ(o.status, ALG_COMPLETE);
    return o;
}

/* Virtual time of update u in the collected rows (-1 if absent). */
static int64_t vtime_of(const rows_t *r, int64_t u)
{
    for (int i = 0; i < r->n; i++)
        if (r->update[i] == u && strcmp(r->name[i], "lr") == 0) return r->vtime[i];
    return -1;
}

static double metric(const rows_t *r, const char *name)
{
    for (int i = r->n - 1; i >= 0; i--)
        if (strcmp(r->name[i], name) == 0) return r->value[i];
    return -1;
}

static void lsgd_and_csgd_have_identical_parameters_after_every_update(void)
{
    static rows_t rl, rc;
    const char *fid[] = {"network.fidelity=message", "network.fidelity=analytic"};
    const char *gran[] = {"network.granularity=per_tensor", "network.granularity=fused"};
    for (int f = 0; f < 2; f++) {
        const char *l_sets[] = {fid[f], gran[f], "algorithm.name=lsgd"};
        const char *c_sets[] = {fid[f], gran[f], "algorithm.name=csgd"};
        alg_outcome_t l = run(l_sets, 3, &rl), c = run(c_sets, 3, &rc);
        /* Every metric row (train_loss and lr of every update, val_loss/val_error every 5)
         * has the same value; the virtual times differ. */
        CHECK_INT_EQ(rl.n, rc.n);
        int differing_times = 0;
        for (int i = 0; i < rl.n && i < rc.n; i++) {
            CHECK_STR_EQ(rl.name[i], rc.name[i]);
            CHECK_INT_EQ(rl.update[i], rc.update[i]);
            if (strcmp(rl.name[i], "images_per_s") != 0 && rl.value[i] != rc.value[i]) {
                fprintf(stderr, "row %d (%s, update %lld): lsgd %.17g csgd %.17g\n", i,
                        rl.name[i], (long long)rl.update[i], rl.value[i], rc.value[i]);
                check_failures++;
            }
            differing_times += rl.vtime[i] != rc.vtime[i];
        }
        CHECK(differing_times > rl.n / 2);
        CHECK(same_params(&l, &c));
        CHECK(strcmp(l.digest, c.digest) != 0); /* the digests cover the virtual times */
        free(l.final_params);
        free(c.final_params);
    }
    /* The parameters after k updates, for several k, compared directly. */
    const int ks[] = {1, 2, 3, 8, 13};
    for (int i = 0; i < 5; i++) {
        char stop[64];
        snprintf(stop, sizeof stop, "stop.updates=%d", ks[i]);
        const char *l_sets[] = {stop, "algorithm.name=lsgd", "batch.sampling=sequential"};
        const char *c_sets[] = {stop, "algorithm.name=csgd", "batch.sampling=sequential"};
        alg_outcome_t l = run(l_sets, 3, NULL), c = run(c_sets, 3, NULL);
        CHECK(same_params(&l, &c));
        CHECK(l.vtime_ns != c.vtime_ns);
        free(l.final_params);
        free(c.final_params);
    }
    /* A stacked batch of 8 x 40 = 320 rows is computed in shards (models/backend_cpu.c):
     * LSGD and CSGD still agree bit for bit. */
    const char *l_big[] = {"batch.per_worker=40", "algorithm.name=lsgd"};
    const char *c_big[] = {"batch.per_worker=40", "algorithm.name=csgd"};
    alg_outcome_t l = run(l_big, 2, NULL), c = run(c_big, 2, NULL);
    CHECK(same_params(&l, &c));
    free(l.final_params);
    free(c.final_params);
}

/* The closed-form phase costs, computed here from sim/ directly. */
typedef struct { int64_t r, a, b; } phases_t;

static phases_t phase_costs(int nodes, int g, double intra_Bps, int64_t intra_lat,
                            double nic_Bps, int64_t nic_lat, const uint64_t *calls, int ncalls)
{
    sim_topo_spec_t spec = {.kind = SIM_TOPO_CLUSTER, .nodes = nodes, .gpus_per_node = g,
                            .workers = nodes * g, .intra_Bps = intra_Bps,
                            .intra_latency_ns = intra_lat, .nic_Bps = nic_Bps,
                            .nic_latency_ns = nic_lat, .oversubscription = 1.0};
    sim_net_t *n = sim_net_create();
    sim_topo_t t;
    sim_topo_init(&t, n, &spec);
    sim_sched_t *red = sim_sched_reduce(SIM_ROOTED_STAR, g + 1),
                *bc = sim_sched_broadcast(SIM_ROOTED_STAR, g + 1),
                *ar = sim_sched_allreduce(SIM_AR_RING, nodes);
    int node_eps[17], hosts[64];
    node_eps[0] = sim_topo_host(&t, 0);
    for (int i = 0; i < g; i++) node_eps[i + 1] = i;
    for (int a = 0; a < nodes; a++) hosts[a] = sim_topo_host(&t, a);
    phases_t p = {0, 0, 0};
    for (int c = 0; c < ncalls; c++) {
        p.r += sim_sched_analytic_ns(red, &t, n, node_eps, calls[c], 4);
        p.b += sim_sched_analytic_ns(bc, &t, n, node_eps, calls[c], 4);
        p.a += sim_sched_analytic_ns(ar, &t, n, hosts, calls[c], 4);
    }
    sim_sched_destroy(red);
    sim_sched_destroy(bc);
    sim_sched_destroy(ar);
    sim_net_destroy(n);
    return p;
}

static void iteration_time_is_the_protocols_cost_model(void)
{
    static rows_t r;
    /* MLP 10-12-3: tensors 120, 12, 36, 3. */
    const uint64_t tensors[] = {120, 12, 36, 3};
    phases_t ph = phase_costs(2, 4, 1e9, 1000, 1.25e8, 5000, tensors, 4);
    CHECK(ph.a > 0 && ph.r > 0 && ph.b > 0);
    const int64_t C = 4000000, S = 500000;
    /* load longer than the inter-node allreduce: hidden; shorter: the allreduce shows. */
    const double loads[] = {0.003, 0.00001};
    for (int k = 0; k < 2; k++) {
        int64_t L = (int64_t)(loads[k] * 1e9 + 0.5);
        char io[64];
        snprintf(io, sizeof io, "io.time_s=%g", loads[k]);
        const char *sets[] = {io, "network.fidelity=analytic", "compute.update_time_s=0.0005"};
        alg_outcome_t o = run(sets, 3, &r);
        int64_t T = ph.r + (L > ph.a ? L : ph.a) + ph.b + C + S;
        for (int u = 2; u <= 25; u++) CHECK_INT_EQ(vtime_of(&r, u) - vtime_of(&r, u - 1), T);
        /* update 1: load, compute, reduce, allreduce, broadcast, then the step after the
         * second load */
        CHECK_INT_EQ(vtime_of(&r, 1), L + C + ph.r + (L > ph.a ? L : ph.a) + ph.b + S);
        CHECK_NEAR(metric(&r, "images_per_s"), 40.0 / ((double)T * 1e-9),
                   1e-6 * 40.0 / ((double)T * 1e-9));
        free(o.final_params);

        /* Without overlap the load adds to everything else. */
        const char *no[] = {io, "network.fidelity=analytic", "compute.update_time_s=0.0005",
                            "algorithm.overlap=false"};
        o = run(no, 4, &r);
        int64_t Tn = ph.r + ph.a + ph.b + L + C + S;
        for (int u = 2; u <= 25; u++) CHECK_INT_EQ(vtime_of(&r, u) - vtime_of(&r, u - 1), Tn);
        free(o.final_params);
    }
}

static void message_level_equals_closed_form_where_it_is_exact(void)
{
    /* Zero intra-node latency (so a worker's send is complete when it has arrived), equal
     * workers, a homogeneous ring among the communicators: lockstep holds. */
    const char *n[] = {"io.time_s=0.0001", "topology.intra={\"bandwidth_gbps\":8,\"latency_us\":0}",
                       "network.fidelity=message"};
    const char *a[] = {"io.time_s=0.0001", "topology.intra={\"bandwidth_gbps\":8,\"latency_us\":0}",
                       "network.fidelity=analytic"};
    alg_outcome_t m = run(n, 3, NULL), c = run(a, 3, NULL);
    CHECK_INT_EQ(m.vtime_ns, c.vtime_ns);
    CHECK(m.events > c.events);
    CHECK(same_params(&m, &c));
    free(m.final_params);
    free(c.final_params);
}

static void cost_only_and_hybrid_models(void)
{
    static rows_t r;
    /* Cost-only ResNet-50: no data, no numerics; per-tensor exchanges of the preset. */
    const char *sets[] = {"model={\"kind\":\"preset\",\"preset\":\"resnet50\"}",
                          "network.fidelity=analytic", "stop.updates=3",
                          "compute={\"kind\":\"flops\",\"device_gflops\":9000}"};
    alg_outcome_t o = run(sets, 4, &r);
    CHECK_INT_EQ(o.nparams, 0);
    CHECK(o.final_params == NULL);
    CHECK(metric(&r, "train_loss") < 0); /* no such row */
    CHECK(metric(&r, "images_per_s") > 0);
    model_preset_t p;
    model_preset_build(MODEL_PRESET_RESNET50, &p);
    phases_t ph = phase_costs(2, 4, 1e9, 1000, 1.25e8, 5000, p.tensor_elems, p.ntensors);
    int64_t C = (int64_t)(p.train_flops_per_sample * 5 / 9000e9 * 1e9 + 0.5);
    int64_t L = 3000000;
    CHECK_INT_EQ(vtime_of(&r, 3) - vtime_of(&r, 2), ph.r + (L > ph.a ? L : ph.a) + ph.b + C);
    model_preset_free(&p);
    free(o.final_params);

    /* Hybrid: the real MLP is trained (same parameters as without the preset) while time is
     * charged as ResNet-50's. */
    const char *hyb[] = {"model.cost_preset=resnet50", "network.fidelity=analytic"};
    const char *real[] = {"network.fidelity=analytic"};
    alg_outcome_t h = run(hyb, 2, NULL), q = run(real, 1, NULL);
    CHECK(same_params(&h, &q));
    CHECK(h.vtime_ns > 10 * q.vtime_ns);
    free(h.final_params);
    free(q.final_params);
}

/* Heterogeneous workers and random load times put the ranks out of lockstep; every
 * collective variant must still complete, repeat bit for bit, and leave the numerics alone. */
static void stragglers_complete_repeat_and_keep_the_numerics(void)
{
    const char *variants[][3] = {
        {"algorithm.reduce=star", "algorithm.broadcast=star", "algorithm.overlap=true"},
        {"algorithm.reduce=binomial", "algorithm.broadcast=binomial", "algorithm.overlap=true"},
        {"algorithm.reduce=binomial", "algorithm.broadcast=star", "algorithm.overlap=false"},
    };
    const char *ars[] = {"network.allreduce=ring", "network.allreduce=rsag",
                         "network.allreduce=recursive_doubling"};
    for (int v = 0; v < 3; v++) {
        const char *sets[] = {variants[v][0], variants[v][1], variants[v][2], ars[v],
                              "cluster.workers=12", "topology.gpus_per_node=3", "stop.updates=12",
                              "cluster.time_factor={\"dist\":\"uniform\",\"min\":1,\"max\":2}",
                              "io.time_s={\"dist\":\"lognormal\",\"mean\":0.003,\"cv\":0.5}"};
        alg_outcome_t a = run(sets, 9, NULL), b = run(sets, 9, NULL);
        CHECK_INT_EQ(a.updates, 12);
        CHECK_STR_EQ(a.digest, b.digest);
        CHECK_INT_EQ(a.vtime_ns, b.vtime_ns);
        free(a.final_params);
        free(b.final_params);
    }
    /* 12 workers x 5 rows in both: same numbers as CSGD with 12 workers. */
    const char *c12[] = {"algorithm.name=csgd", "stop.updates=12", "cluster.workers=12",
                         "topology.gpus_per_node=3"};
    const char *l12[] = {"stop.updates=12", "cluster.workers=12", "topology.gpus_per_node=3",
                         "algorithm.reduce=binomial",
                         "cluster.time_factor={\"dist\":\"uniform\",\"min\":1,\"max\":2}"};
    alg_outcome_t c = run(c12, 4, NULL), l = run(l12, 5, NULL);
    CHECK(same_params(&c, &l));
    free(c.final_params);
    free(l.final_params);
}

int main(void)
{
    stragglers_complete_repeat_and_keep_the_numerics();
    lsgd_and_csgd_have_identical_parameters_after_every_update();
    iteration_time_is_the_protocols_cost_model();
    message_level_equals_closed_form_where_it_is_exact();
    cost_only_and_hybrid_models();
    return check_exit();
}
