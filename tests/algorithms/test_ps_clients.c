/* The parameter-server family's registered clients (algorithms/ps_clients.h, ps_slots.c):
 *   - availability from FedScale's trace format (tests/data/fedscale): from the run's
 *     timeline, a client's every completed task ran while it was online, every task cut
 *     short ended when it went offline (no dropout coin here), and the trace's client that
 *     is never online never runs one; the trace changes the schedule (a digest of its own);
 *   - the dropout coin: tasks dropped, their compute time lost, and another result;
 *   - devices: a capacity file or laws make the clients' speeds differ (another virtual
 *     time), and bandwidths slow the pushes;
 *   - sampling: with C < lambda no client is in two slots at once (each compute span names
 *     its client: no two overlap), over a long run every client takes part (the default
 *     path, C = lambda without an FL rule or a clients section, is the run it always was:
 *     test_cli_golden_digest);
 *   - data.partition: per-client samples (FedAvg's weights), and empty clients, which fixed
 *     mode refuses and sampling skips;
 *   - every bad key of the clients section and of data.partition refused naming its path.
 * Argument: the folder of the synthetic FedScale files. */
#include <math.h>
#include <stdlib.h>

#include <cJSON.h>

#include "sim/fedscale.h"
#include "sim/trace.h"
#include "tests/algorithms/ps_sink.h"
#include "tests/algorithms/run_scenario.h"
#include "tests/check.h"

static const char *data_dir;

#define BASE                                                                               \
    "{\"schema_version\": 1, \"seed\": 21, \"algorithm\": {\"name\": \"fedbuff\","           \
    " \"buffer\": 2, \"concurrency\": 4, \"local\": {\"steps\": 1}},"                       \
    " \"cluster\": {\"workers\": 24},"                                                      \
    " \"data\": {\"source\": \"synthetic\", \"n_train\": 480, \"n_validation\": 96,"          \
    "           \"dim\": 8, \"classes\": 4, \"separation\": 2.0},"                            \
    " \"model\": {\"kind\": \"softmax\"}, \"batch\": {\"per_worker\": 4},"                    \
    " \"optimizer\": {\"lr\": 0.05},"                                                         \
    " \"compute\": {\"kind\": \"time\", \"time_s\": {\"dist\": \"exponential\","              \
    " \"mean\": 60}},"                                                                        \
    " \"stop\": {\"updates\": 40}, \"eval\": {\"every\": 20}}"

static alg_outcome_t run_traced(const char *const *sets, int nsets, rows_t *rows,
                                const char *trace_path)
{
    alg_sink_t sink = ps_sink(rows);
    sim_trace_t *t = NULL;
    sgd_err_t err = {{0}};
    const sim_trace_opts_t opts = {.t1_ns = INT64_MAX};
    if (trace_path) CHECK_INT_EQ(sim_trace_open(trace_path, &opts, &t, &err), 0);
    sink.trace = t;
    alg_outcome_t o = run_scenario(BASE, "clients.json", sets, nsets, &sink);
    if (t) CHECK_INT_EQ(sim_trace_close(t, &err), 0);
    return o;
}

static alg_outcome_t run(const char *const *sets, int nsets, rows_t *rows)
{
    return run_traced(sets, nsets, rows, NULL);
}

/* The trace file's spans of `name` on the slots' tracks (category "worker"): client, start
 * and end (ns). */
typedef struct span {
    int64_t client, t0, t1;
    int64_t sent;   /* fetch: when the server sent it (a sampled client: when chosen), ns */
    int tid;
} span_t;

static int64_t us_to_ns(const cJSON *v)
{
    return (int64_t)llround(v->valuedouble * 1000.0);
}

static int read_spans(const char *path, const char *name, span_t *out, int max)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f) return 0;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    text[fread(text, 1, (size_t)size, f)] = '\0';
    fclose(f);
    cJSON *root = cJSON_Parse(text);
    free(text);
    int n = 0;
    const cJSON *ev;
    cJSON_ArrayForEach(ev, cJSON_GetObjectItem(root, "traceEvents"))
    {
        const cJSON *nm = cJSON_GetObjectItem(ev, "name"), *ph = cJSON_GetObjectItem(ev, "ph");
        const cJSON *cat = cJSON_GetObjectItem(ev, "cat");
        if (!cJSON_IsString(nm) || strcmp(nm->valuestring, name) != 0 || !cJSON_IsString(ph) ||
            strcmp(ph->valuestring, "X") != 0 || !cJSON_IsString(cat) ||
            strcmp(cat->valuestring, "worker") != 0 || n == max)
            continue;
        const cJSON *args = cJSON_GetObjectItem(ev, "args");
        const cJSON *c = args ? cJSON_GetObjectItem(args, "client") : NULL;
        const cJSON *sent = args ? cJSON_GetObjectItem(args, "sent_ns") : NULL;
        const int64_t t0 = us_to_ns(cJSON_GetObjectItem(ev, "ts"));
        out[n++] = (span_t){.client = c ? (int64_t)c->valuedouble : -1, .t0 = t0,
                            .t1 = t0 + us_to_ns(cJSON_GetObjectItem(ev, "dur")),
                            .sent = sent ? (int64_t)sent->valuedouble : -1,
                            .tid = cJSON_GetObjectItem(ev, "tid")->valueint};
    }
    cJSON_Delete(root);
    return n;
}

enum { MAX_SPANS = 4096 };

/* Every client was online when it was chosen (its fetch sent); every completed task of
 * client c ran inside one of its trace client's windows; the trace's client 103 (file
 * position 2) is never online, so clients 2 and 26 are never chosen. */
static void trace_availability_governs_the_tasks(void)
{
    char trace[512], set[640], out[] = "/tmp/sgdsim-clients-XXXXXX";
    snprintf(trace, sizeof trace, "%s/client_behave_trace", data_dir);
    snprintf(set, sizeof set, "clients={\"availability\": \"trace\", \"trace\": \"%s\"}", trace);
    CHECK(mkdtemp(out) != NULL);
    char path[600];
    snprintf(path, sizeof path, "%s/t.json", out);
    rows_t *rows = malloc(sizeof *rows);
    const char *sets[] = {set};
    alg_outcome_t a = run_traced(sets, 1, rows, path);
    CHECK_INT_EQ(a.status, ALG_COMPLETE);
    sim_fedscale_trace_t tr;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(sim_fedscale_trace_load(trace, &tr, &err), 0);
    span_t *sp = malloc(MAX_SPANS * sizeof *sp);
    const int n = read_spans(path, "compute", sp, MAX_SPANS);
    CHECK(n > 40);
    int outside = 0, never = 0;
    for (int i = 0; i < n; i++) {
        const int64_t k = sp[i].client % tr.n;
        if (!sim_fedscale_trace_online(&tr, k, sp[i].t0) ||
            (sp[i].t1 > sp[i].t0 && !sim_fedscale_trace_online(&tr, k, sp[i].t1 - 1)))
            outside++;
        never += k == 2;
    }
    CHECK_INT_EQ(outside, 0);
    CHECK_INT_EQ(never, 0);
    const int nf = read_spans(path, "fetch", sp, MAX_SPANS);
    int offline_chosen = 0;
    CHECK(nf > 40);
    for (int i = 0; i < nf; i++) {
        CHECK(sp[i].sent >= 0 && sp[i].client >= 0);
        offline_chosen += !sim_fedscale_trace_online(&tr, sp[i].client % tr.n, sp[i].sent);
    }
    CHECK_INT_EQ(offline_chosen, 0);
    /* without a coin a task is cut only by its client going offline, exactly then */
    const int nd = read_spans(path, "dropped", sp, MAX_SPANS);
    CHECK(nd > 0);
    CHECK(last(rows, "tasks_dropped") == (double)nd);
    int still_online = 0;
    for (int i = 0; i < nd; i++)
        still_online += sim_fedscale_trace_online(&tr, sp[i].client % tr.n, sp[i].t1);
    CHECK_INT_EQ(still_online, 0);
    free(sp);
    /* the trace changes the schedule */
    rows_t *plain = malloc(sizeof *plain);
    alg_outcome_t b = run(NULL, 0, plain);
    CHECK(strcmp(a.digest, b.digest) != 0);
    CHECK(last(plain, "tasks_dropped") == 0.0);
    sim_fedscale_trace_free(&tr);
    free(a.final_params);
    free(b.final_params);
    free(rows);
    free(plain);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
    CHECK_INT_EQ(system(cmd), 0);
}

/* C < lambda: a client is in at most one slot at a time, so its compute spans never
 * overlap; over a long run every one of the 24 clients takes part. */
static void a_client_runs_in_one_slot_at_a_time(void)
{
    char out[] = "/tmp/sgdsim-clients-XXXXXX", path[600];
    CHECK(mkdtemp(out) != NULL);
    snprintf(path, sizeof path, "%s/t.json", out);
    rows_t *rows = malloc(sizeof *rows);
    const char *sets[] = {"stop.updates=200"};
    alg_outcome_t a = run_traced(sets, 1, rows, path);
    CHECK_INT_EQ(a.status, ALG_COMPLETE);
    span_t *sp = malloc(MAX_SPANS * sizeof *sp);
    const int n = read_spans(path, "compute", sp, MAX_SPANS);
    int overlaps = 0, slots_seen = 0;
    for (int i = 0; i < n; i++) {
        slots_seen |= 1 << sp[i].tid;
        for (int j = 0; j < i; j++)
            if (sp[i].client == sp[j].client && sp[i].t0 < sp[j].t1 && sp[j].t0 < sp[i].t1)
                overlaps++;
    }
    CHECK_INT_EQ(overlaps, 0);
    CHECK_INT_EQ(slots_seen, 0xf); /* four slots */
    CHECK(last(rows, "clients_participated") == 24.0);
    CHECK(last(rows, "clients_contributed") == 24.0);
    free(sp);
    free(a.final_params);
    free(rows);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
    CHECK_INT_EQ(system(cmd), 0);
}

/* The coin: about 30% of the tasks dropped, their compute lost, another result. */
static void dropout_drops_tasks(void)
{
    rows_t *r0 = malloc(sizeof *r0), *r1 = malloc(sizeof *r1);
    const char *coin[] = {"clients={\"dropout_p\": 0.3}"};
    alg_outcome_t a = run(NULL, 0, r0), b = run(coin, 1, r1);
    CHECK(last(r1, "tasks_dropped") > 5.0);
    CHECK(last(r1, "dropped_compute_s") > 0.0);
    /* every fetch is a task: it pushed, dropped, or still runs at the end (4 slots) */
    const double running = last(r1, "fetch_sent") - last(r1, "push_sent") -
                           last(r1, "tasks_dropped");
    CHECK(running >= 0.0 && running <= 4.0);
    CHECK(strcmp(a.digest, b.digest) != 0);
    free(a.final_params);
    free(b.final_params);
    free(r0);
    free(r1);
}

/* Devices: faster or slower clients change the virtual time of the same number of updates;
 * a slow link slows the pushes. */
static void devices_change_the_clock(void)
{
    char cap[512], set[640];
    snprintf(cap, sizeof cap, "%s/client_device_capacity", data_dir);
    snprintf(set, sizeof set, "clients={\"device_trace\": \"%s\"}", cap);
    rows_t *r = malloc(sizeof *r);
    const char *file[] = {set};
    const char *slow[] = {"clients={\"compute_factor\": 3}"};
    const char *link[] = {"clients={\"bandwidth_Bps\": 1000}"};
    alg_outcome_t a = run(NULL, 0, r), b = run(file, 1, r), c = run(slow, 1, r),
                  d = run(link, 1, r);
    CHECK(b.vtime_ns != a.vtime_ns);
    CHECK(c.vtime_ns > 2 * a.vtime_ns);
    /* 36 parameters x 4 bytes at 1000 B/s: 0.144 s a message, small against 60 s tasks but
     * not nothing */
    CHECK(d.vtime_ns > a.vtime_ns);
    free(a.final_params);
    free(b.final_params);
    free(c.final_params);
    free(d.final_params);
    free(r);
}

/* data.partition: fixed mode needs every client to hold data; sampling skips empty ones. */
static void partitions_and_empty_clients(void)
{
    rows_t *r = malloc(sizeof *r);
    const char *dir[] = {"data.partition={\"scheme\": \"dirichlet\", \"alpha\": 0.05}",
                         "cluster.workers=400"};
    alg_outcome_t a = run(dir, 2, r);
    CHECK_INT_EQ(a.status, ALG_COMPLETE);
    free(a.final_params);
    /* sasgd with every client always in flight: an empty client is refused */
    scn_override_t ov[] = {{"algorithm={\"name\": \"sasgd\", \"driver\": \"timed\"}"},
                           {"data.partition={\"scheme\": \"dirichlet\", \"alpha\": 0.05}"},
                           {"cluster.workers=400"}};
    scn_t s;
    sgd_err_t err = {{0}};
    alg_outcome_t o;
    CHECK_INT_EQ(scn_load_text(BASE, "c.json", ".", ov, 3, NULL, alg_scenario_table, &s, &err),
                 0);
    CHECK_INT_EQ(alg_run(&s, NULL, &o, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "data.partition: client");
    CHECK_STR_CONTAINS(err.msg, "holds no sample");
    scn_free(&s);
    free(r);
}

static void bad_keys_are_refused(void)
{
    static const struct {
        const char *set, *msg;
    } cases[] = {
        {"clients={\"availability\": \"sometimes\"}", "clients.availability"},
        {"clients={\"availability\": \"renewal\"}", "clients.online_s: required"},
        {"clients={\"availability\": \"renewal\", \"online_s\": 1}",
         "clients.offline_s: required"},
        {"clients={\"availability\": \"renewal\", \"online_s\": 0.0001, \"offline_s\": 1}",
         "clients.online_s: the mean period must be at least"},
        {"clients={\"availability\": \"always\", \"online_s\": 1}",
         "clients.online_s: not read with availability \"always\""},
        {"clients={\"availability\": \"trace\"}", "clients.trace"},
        {"clients={\"availability\": \"trace\", \"trace\": \"\"}", "clients.trace"},
        {"clients={\"trace\": \"x\"}", "clients.trace: not read"},
        {"clients={\"dropout_p\": 1}", "clients.dropout_p"},
        {"clients={\"dropout_p\": -0.1}", "clients.dropout_p"},
        {"clients={\"compute_factor\": -1}", "clients.compute_factor"},
        {"clients={\"bandwidth_Bps\": {\"dist\": \"pareto\"}}", "clients.bandwidth_Bps"},
        {"clients={\"device_trace\": \"x\", \"compute_factor\": 2}",
         "clients.compute_factor: not read with device_trace"},
        {"clients={\"retry_s\": 0}", "clients.retry_s"},
        {"clients={\"colour\": 1}", "clients.colour: unknown key"},
        {"clients=[]", "clients"},
        {"data.partition={\"scheme\": \"random\"}", "data.partition.scheme"},
        {"data.partition={\"scheme\": \"iid\", \"alpha\": 1}",
         "data.partition.alpha: not read with scheme \"iid\""},
        {"data.partition={\"scheme\": \"dirichlet\", \"alpha\": 0}", "data.partition.alpha"},
        {"data.partition={\"scheme\": \"shards\", \"shards_per_client\": 0}",
         "data.partition.shards_per_client"},
        {"data.partition={\"scheme\": \"shards\", \"sigma\": 1}",
         "data.partition.sigma: not read with scheme \"shards\""},
        {"data.partition={\"scheme\": \"quantity_lognormal\", \"sigma\": -1}",
         "data.partition.sigma"},
        {"data.partition={\"scheme\": \"dirichlet\", \"min_samples\": -1}",
         "data.partition.min_samples"},
        {"data.partition={\"scheme\": \"iid\", \"spread\": 1}",
         "data.partition.spread: unknown key"},
        {"algorithm={\"name\": \"csgd\"}", "clients: only valid with name sasgd"},
        {"algorithm={\"name\": \"sasgd\"}", "clients: needs algorithm.driver \"timed\""},
        {"algorithm={\"name\": \"downpour\", \"driver\": \"timed\"}",
         "clients: not valid with name downpour"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* the last three keep a valid clients section, to meet the algorithm's check */
        const bool alg = strncmp(cases[i].set, "algorithm", 9) == 0;
        scn_override_t ov[] = {{cases[i].set}, {"clients={\"dropout_p\": 0.1}"}};
        scn_t s;
        sgd_err_t err = {{0}};
        const int rc = scn_load_text(BASE, "c.json", ".", ov, alg ? 2 : 1, NULL,
                                     alg_scenario_table, &s, &err);
        CHECK_INT_EQ(rc, -1);
        if (rc == 0) scn_free(&s);
        CHECK_STR_CONTAINS(err.msg, cases[i].msg);
    }
    /* files that cannot be read: exit-2 errors of the run's setup, naming the key */
    const char *missing[] = {"clients={\"availability\": \"trace\", \"trace\": \"/nonexistent\"}",
                             "clients={\"device_trace\": \"/nonexistent\"}"};
    for (int i = 0; i < 2; i++) {
        scn_override_t ov[] = {{missing[i]}};
        scn_t s;
        sgd_err_t err = {{0}};
        alg_outcome_t o;
        CHECK_INT_EQ(scn_load_text(BASE, "c.json", ".", ov, 1, NULL, alg_scenario_table, &s,
                                   &err),
                     0);
        CHECK_INT_EQ(alg_run(&s, NULL, &o, &err), -1);
        CHECK_STR_CONTAINS(err.msg, i == 0 ? "clients.trace: /nonexistent"
                                           : "clients.device_trace: /nonexistent");
        scn_free(&s);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DATA_DIR\n", argv[0]);
        return 2;
    }
    data_dir = argv[1];
    trace_availability_governs_the_tasks();
    a_client_runs_in_one_slot_at_a_time();
    dropout_drops_tasks();
    devices_change_the_clock();
    partitions_and_empty_clients();
    bad_keys_are_refused();
    return check_exit();
}
