/* A checkpoint is input: one value changed by hand (what anyone can do, and reseal) is
 * refused by alg_restore with a message naming it, for every part of every algorithm
 * family's state -- a pending event's worker, client or node out of range or doubled, the
 * engine's counters, the runner's times, evaluation point and loss, NaN parameters,
 * velocity, snapshots, normaliser and mean-square statistics and B-FASGD's last gradient, an
 * all-zero random stream, a sampler that draws a row twice, CSGD's and LSGD's books of the
 * iteration, the clients' counts, a collective's message count, a link busy after every
 * pending event; and the federated state (ps_clients.h): a slot's client out of range, a
 * task's steps or start out of range, a client that contributed more than it ran, a busy
 * flag that is not 0 or 1, a busy client in no slot, a retry for a slot out of range, a
 * round with more clients than slots.
 * The unchanged checkpoint restores (the changes, not the files, are refused). */
#include <math.h>

#include "tests/algorithms/ckpt_forge.h"
#include "tests/algorithms/ckpt_harness.h"

#define DATA                                                                                   \
    " \"data\": {\"source\": \"synthetic\", \"n_train\": 300, \"n_validation\": 60,"            \
    "           \"dim\": 10, \"classes\": 3, \"separation\": 2.0},"                             \
    " \"model\": {\"kind\": \"mlp\", \"hidden\": [12]},"                                       \
    " \"compute\": {\"kind\": \"time\", \"time_s\": {\"dist\": \"uniform\", \"min\": 0.002, "  \
    "\"max\": 0.005}},"                                                                        \
    " \"io\": {\"time_s\": {\"dist\": \"uniform\", \"min\": 0.001, \"max\": 0.003}},"          \
    " \"stop\": {\"updates\": 40}, \"eval\": {\"every\": 7}}"

static const char *csgd_text =
    "{\"schema_version\": 1, \"seed\": 11, \"algorithm\": {\"name\": \"csgd\"},"
    " \"cluster\": {\"workers\": 4}, \"batch\": {\"per_worker\": 8},"
    " \"optimizer\": {\"lr\": 0.05, \"momentum\": 0.9}," DATA;

static const char *lsgd_text =
    "{\"schema_version\": 1, \"seed\": 7, \"algorithm\": {\"name\": \"lsgd\"},"
    " \"cluster\": {\"workers\": 8}, \"batch\": {\"per_worker\": 5},"
    " \"topology\": {\"kind\": \"cluster\", \"gpus_per_node\": 4},"
    " \"optimizer\": {\"lr\": 0.05, \"momentum\": 0.9}," DATA;

static const char *ps_text =
    "{\"schema_version\": 1, \"seed\": 5, \"algorithm\": {\"name\": \"fasgd\","
    " \"driver\": \"timed\"}, \"cluster\": {\"workers\": 4}, \"batch\": {\"per_worker\": 4},"
    " \"optimizer\": {\"lr\": 0.05}," DATA;

/* The payload of a checkpoint after update `at` of s (allocated). */
static uint8_t *checkpoint_of(const scn_t *s, int64_t at, size_t *n)
{
    static rows_t rows;
    rows.n = 0;
    store_t st = {0};
    alg_checkpoint_opts_t co = {.exit_at_update = at, .write = keep, .ctx = &st};
    alg_outcome_t o = execute(s, NULL, 0, &co, &rows);
    SGD_ASSERT(o.status == ALG_CHECKPOINTED);
    free(o.final_params);
    uint8_t *p = st.last;
    *n = st.n;
    st.last = NULL;
    free_store(&st);
    return p;
}

/* alg_restore of payload into a fresh run of s: 0, or -1 with the message in why. */
static int restore(const scn_t *s, const uint8_t *payload, size_t n, char *why, size_t size)
{
    alg_prepare_opts_t po = {.backend = ALG_BACKEND_NEEDED};
    alg_prepared_t *run;
    sgd_err_t err = {{0}};
    SGD_ASSERT(alg_prepare(s, &po, &run, &err) == 0);
    int rc = alg_restore(run, payload, n, &err);
    snprintf(why, size, "%s", err.msg);
    alg_prepared_free(run);
    return rc;
}

/* The payload with one change must be refused, and the message must contain needle. */
static void expect_refused(const scn_t *s, const uint8_t *forged, size_t n, const char *what,
                           const char *needle)
{
    char why[SGD_ERR_MAX];
    int rc = restore(s, forged, n, why, sizeof why);
    if (rc == 0) fprintf(stderr, "%s: accepted\n", what);
    CHECK(rc == -1);
    if (rc == -1 && !strstr(why, needle)) fprintf(stderr, "%s: %s\n", what, why);
    CHECK(rc == -1 && strstr(why, needle));
}

/* A copy of payload to change. */
static uint8_t *copy_of(const uint8_t *p, size_t n)
{
    uint8_t *c = sgd_xmalloc(n);
    memcpy(c, p, n);
    return c;
}

/* The engine's and the runner's fields: the same in every algorithm's checkpoint. */
static void check_common(const scn_t *s, const uint8_t *p, size_t n, const char *event)
{
    forge_layout_t l;
    SGD_ASSERT(forge_layout(p, n, &l));
    char why[SGD_ERR_MAX];
    CHECK(restore(s, p, n, why, sizeof why) == 0);
    int64_t e = forge_event(p, &l, event, 0);
    SGD_ASSERT(e >= 0);
    uint8_t *f = copy_of(p, n);
    forge_put(f, forge_event_at(&l, e, FORGE_EV_ENTITY), 1000);
    expect_refused(s, f, n, "an event's entity out of range", "entity 1000");
    memcpy(f, p, n);
    forge_put(f, l.now + 16, forge_get(p, l.now + 16) + 1); /* events processed */
    expect_refused(s, f, n, "the engine's counters", "counters disagree");
    memcpy(f, p, n);
    forge_put(f, l.books + FORGE_FIRST_VTIME, (uint64_t)-5);
    expect_refused(s, f, n, "a negative first virtual time", "virtual times out of order");
    memcpy(f, p, n);
    forge_put(f, l.books + FORGE_LAST_VTIME, forge_get(p, l.now) + 1);
    expect_refused(s, f, n, "the latest update after the clock", "virtual times out of order");
    memcpy(f, p, n);
    forge_put(f, l.books + FORGE_LAST_EVAL, 3);
    expect_refused(s, f, n, "an evaluation at another update", "last evaluation at update 3");
    memcpy(f, p, n);
    forge_put_f64(f, l.books + FORGE_TRAIN_LOSS, NAN);
    expect_refused(s, f, n, "a NaN training loss", "training loss");
    memcpy(f, p, n);
    forge_put_f32(f, l.params + 4 * 5, NAN);
    expect_refused(s, f, n, "a NaN parameter", "parameters: a value is NaN");
    memcpy(f, p, n);
    forge_put_f32(f, l.params, INFINITY);
    expect_refused(s, f, n, "an infinite parameter", "parameters: a value is NaN");
    memcpy(f, p, n);
    forge_put(f, l.books + FORGE_EVENTS_AT_STOP, 99);
    expect_refused(s, f, n, "events at a stop", "event counts");
    free(f);
}

/* The synchronous machinery (sync.c): the latest loss, the velocity, a worker's stream. */
static void check_sync(const scn_t *s, const uint8_t *p, size_t n)
{
    size_t sync = forge_find_tag(p, n, "sync", 0), net = forge_find_tag(p, n, "network", sync);
    SGD_ASSERT(sync && net);
    size_t loss = net + 8 + 24 * forge_get(p, net), order = loss + 16;
    size_t velocity = order + 8 + forge_get(p, order) + 8 + 40 + 8;
    uint8_t *f = copy_of(p, n);
    forge_put_f64(f, loss, NAN);
    expect_refused(s, f, n, "a NaN loss", "loss nan");
    memcpy(f, p, n);
    forge_put_f64(f, loss + 8, -1.0);
    expect_refused(s, f, n, "a negative learning rate", "learning rate -1");
    memcpy(f, p, n);
    forge_put_f32(f, velocity + 4, NAN);
    expect_refused(s, f, n, "a NaN velocity", "velocity: a value is NaN");
    memcpy(f, p, n);
    memset(f + sync + 16, 0, 32); /* worker 0's compute stream */
    expect_refused(s, f, n, "an all-zero stream", "all-zero");
    memcpy(f, p, n);
    memcpy(f + order + 8 + 4, f + order + 8, 4); /* the sampler's row 1 becomes row 0's */
    expect_refused(s, f, n, "a row drawn twice", "drawn twice");
    free(f);
}

static void check_csgd(void)
{
    scn_t s;
    load(csgd_text, NULL, 0, 1, &s);
    size_t n;
    uint8_t *p = checkpoint_of(&s, 13, &n);
    check_common(&s, p, n, "csgd.io_done");
    check_sync(&s, p, n);
    forge_layout_t l;
    SGD_ASSERT(forge_layout(p, n, &l));
    uint8_t *f = copy_of(p, n);
    /* two events of one worker: one of another worker's made this one's */
    int64_t a = forge_event(p, &l, "csgd.io_done", 0), b = forge_event(p, &l, "csgd.io_done", 1);
    if (b < 0) b = forge_event(p, &l, "csgd.compute_done", 0);
    SGD_ASSERT(a >= 0 && b >= 0);
    forge_put(f, forge_event_at(&l, b, FORGE_EV_ENTITY),
              forge_get(p, forge_event_at(&l, a, FORGE_EV_ENTITY)));
    expect_refused(&s, f, n, "two events of one worker", "a worker with two events");
    memcpy(f, p, n);
    forge_put(f, forge_event_at(&l, a, FORGE_EV_ENTITY), 4);
    expect_refused(&s, f, n, "worker 4 of 4", "worker 4 of 4");
    memcpy(f, p, n);
    /* the section after sync's (the first "csgd" is the algorithm's name) */
    size_t books = forge_find_tag(p, n, "csgd", forge_find_tag(p, n, "network", 0));
    forge_put(f, books + 24, 1); /* nstepped */
    expect_refused(&s, f, n, "a worker stepped", "1 workers stepped");
    memcpy(f, p, n);
    forge_put(f, books + 80, 12); /* applied[0], after t_reduce_ns[] */
    expect_refused(&s, f, n, "a worker's updates", "worker 0 applied 12 updates");
    memcpy(f, p, n);
    size_t net = forge_find_tag(p, n, "network", 0);
    forge_put(f, net + 8, (uint64_t)1 << 50); /* link 0 busy until */
    expect_refused(&s, f, n, "a link busy after every event", "link 0 busy until");
    memcpy(f, p, n);
    /* the allreduce's message count, its section's last two values but one */
    size_t coll = forge_find_tag(p, n, "collective", 0), end = n - 8 - 3; /* "end" tag */
    SGD_ASSERT(coll);
    forge_put(f, end - 16, forge_get(p, end - 16) + 1);
    expect_refused(&s, f, n, "a message never sent", "messages");
    free(f);
    free(p);
    scn_free(&s);
}

static void check_lsgd(void)
{
    const char *analytic[] = {"network.fidelity=analytic"};
    for (int k = 0; k < 2; k++) {
        scn_t s;
        load(lsgd_text, analytic, k, 1, &s);
        size_t n;
        uint8_t *p = checkpoint_of(&s, 13, &n);
        check_common(&s, p, n, "lsgd.compute_done");
        forge_layout_t l;
        SGD_ASSERT(forge_layout(p, n, &l));
        uint8_t *f = copy_of(p, n);
        size_t w0 = forge_find_tag(p, n, "lsgd", forge_find_tag(p, n, "network", 0));
        forge_put(f, w0, forge_get(p, w0) | 4); /* worker 0 stepping */
        expect_refused(&s, f, n, "a worker stepping", "worker 0 in iteration");
        memcpy(f, p, n);
        forge_put(f, w0 + 8, 2); /* worker 0's iteration */
        expect_refused(&s, f, n, "a worker's iteration", "worker 0 in iteration 2");
        memcpy(f, p, n);
        int64_t e = forge_event(p, &l, "lsgd.compute_done", 0);
        forge_put(f, forge_event_at(&l, e, FORGE_EV_ENTITY), 8);
        expect_refused(&s, f, n, "worker 8 of 8", "worker 8 of 8");
        free(f);
        free(p);
        scn_free(&s);
    }
}

/* The parameter-server family's timed driver, FASGD's normaliser. */
static void check_ps_timed(void)
{
    scn_t s;
    load(ps_text, NULL, 0, 1, &s);
    size_t n;
    uint8_t *p = checkpoint_of(&s, 13, &n);
    check_common(&s, p, n, "ps.compute_done");
    forge_layout_t l;
    SGD_ASSERT(forge_layout(p, n, &l));
    uint8_t *f = copy_of(p, n);
    int64_t a = forge_event(p, &l, "ps.compute_done", 0), b = forge_event(p, &l, "ps.compute_done", 1);
    SGD_ASSERT(a >= 0 && b >= 0);
    forge_put(f, forge_event_at(&l, a, FORGE_EV_ENTITY), 4);
    expect_refused(&s, f, n, "client 4 of 4", "client 4 of 4");
    memcpy(f, p, n);
    forge_put(f, forge_event_at(&l, b, FORGE_EV_ENTITY),
              forge_get(p, forge_event_at(&l, a, FORGE_EV_ENTITY)));
    expect_refused(&s, f, n, "a client computing twice", "places");
    memcpy(f, p, n);
    size_t snaps = forge_find_tag(p, n, "snapshots", 0);
    forge_put_f32(f, snaps + 8 + 8 + 8 + 4 * 3, NAN); /* the first snapshot's 4th value */
    expect_refused(&s, f, n, "a NaN snapshot", "snapshot of version");
    memcpy(f, p, n);
    size_t rule = forge_find_tag(p, n, "rule", 0);
    forge_put_f32(f, rule + 8 + 4 * 2, -1.0f);
    expect_refused(&s, f, n, "a negative normaliser", "normaliser m[2]");
    memcpy(f, p, n);
    forge_put_f32(f, rule + 8, NAN);
    expect_refused(&s, f, n, "a NaN normaliser", "normaliser m[0]");
    memcpy(f, p, n);
    size_t client0 = forge_find_tag(p, n, "clients", 0);
    forge_put(f, client0 + 16, forge_get(p, client0 + 16) + 1); /* its steps */
    expect_refused(&s, f, n, "a client's steps", "gradients requested");
    memcpy(f, p, n);
    forge_put(f, client0 + 8, forge_get(p, client0 + 8) + 1); /* its stamp, past its snapshot */
    expect_refused(&s, f, n, "a client's stamp", "client 0: versions out of order");
    memcpy(f, p, n);
    size_t net = forge_find_tag(p, n, "network", forge_find_tag(p, n, "timed", 0));
    forge_put(f, net + 8 + 24, (uint64_t)1 << 50); /* link 1 busy until */
    expect_refused(&s, f, n, "a link busy after every event", "link 1 busy until");
    free(f);
    free(p);
    scn_free(&s);
}

/* The uniform driver's one iteration; B-FASGD's last gradient; DC-ASGD-a's mean square. */
static void check_ps_rules(void)
{
    const char *bfasgd[] = {"algorithm.name=b-fasgd", "algorithm.driver=uniform",
                            "algorithm.c_push=0.02"};
    scn_t s;
    load(ps_text, bfasgd, 3, 1, &s);
    size_t n;
    uint8_t *p = checkpoint_of(&s, 13, &n);
    check_common(&s, p, n, "ps.iteration");
    uint8_t *f = copy_of(p, n);
    size_t client0 = forge_find_tag(p, n, "clients", 0), push = client0 + 24;
    size_t grad = push + 8 + 16 * forge_get(p, push) + 32 + 40 + 8;
    forge_put_f32(f, grad + 4, INFINITY);
    expect_refused(&s, f, n, "an infinite last gradient", "last gradient or loss");
    free(f);
    free(p);
    scn_free(&s);

    const char *dcasgd[] = {"algorithm.name=dc-asgd", "algorithm.variant=a", "algorithm.n=2"};
    load(ps_text, dcasgd, 3, 1, &s);
    p = checkpoint_of(&s, 13, &n);
    f = copy_of(p, n);
    size_t rule = forge_find_tag(p, n, "rule", 0);
    forge_put_f32(f, rule + 8 + 4, -0.5f);
    expect_refused(&s, f, n, "a negative mean square", "mean square [1]");
    free(f);
    free(p);
    scn_free(&s);
}

/* Sampled clients (2 slots for 4 clients) with availability, dropout, a partition and local
 * training: the population's counts, the slots' clients and tasks, the dropout events; a
 * round of FedAvg. */
static void check_ps_federated(void)
{
    const char *fedbuff[] = {
        "algorithm={\"name\": \"fedbuff\", \"buffer\": 2, \"concurrency\": 2,"
        " \"local\": {\"steps\": 2}}",
        "clients={\"availability\": \"renewal\", \"online_s\": {\"dist\": \"exponential\","
        " \"mean\": 0.02}, \"offline_s\": {\"dist\": \"exponential\", \"mean\": 0.01},"
        " \"dropout_p\": 0.5}",
        "data.partition={\"scheme\": \"dirichlet\", \"alpha\": 0.5}"};
    scn_t s;
    load(ps_text, fedbuff, 3, 1, &s);
    size_t n;
    uint8_t *p = checkpoint_of(&s, 13, &n);
    char why[SGD_ERR_MAX];
    CHECK_INT_EQ(restore(&s, p, n, why, sizeof why), 0);
    forge_layout_t l;
    SGD_ASSERT(forge_layout(p, n, &l));
    uint8_t *f = copy_of(p, n);
    const size_t lambda = 4;
    /* the population: tasks[4], contributed[4], busy[4], each behind its length */
    const size_t pop = forge_find_tag(p, n, "population", 0), tasks = pop + 8;
    const size_t contributed = tasks + 4 * lambda + 8, busy = contributed + 4 * lambda + 8;
    uint32_t t0;
    memcpy(&t0, p + tasks, 4);
    const uint32_t more = t0 + 1;
    memcpy(f + contributed, &more, 4);
    expect_refused(&s, f, n, "a client contributed more than it ran", "contributed");
    memcpy(f, p, n);
    int idle = -1;
    for (int i = 0; i < (int)lambda; i++)
        if (p[busy + (size_t)i] == 0) idle = i;
    SGD_ASSERT(idle >= 0);
    f[busy + (size_t)idle] = 1;
    expect_refused(&s, f, n, "a busy client in no slot", "clients busy");
    memcpy(f, p, n);
    f[busy] = 2;
    expect_refused(&s, f, n, "a busy flag of 2", "busy flag 2");
    /* slot 0: snapshot version, stamp, steps, then its client, task, steps and start */
    const size_t slot0 = forge_find_tag(p, n, "clients", 0), id = slot0 + 24;
    memcpy(f, p, n);
    forge_put(f, id, (uint64_t)lambda);
    expect_refused(&s, f, n, "a slot's client out of range", "slot 0: client 4");
    memcpy(f, p, n);
    forge_put(f, id + 16, (uint64_t)-1); /* its task's steps */
    expect_refused(&s, f, n, "a task of -1 steps", "of -1 steps");
    memcpy(f, p, n);
    forge_put(f, id + 24, (uint64_t)1 << 60); /* started after now */
    expect_refused(&s, f, n, "a task started after now", "started at");
    /* a dropout pending for a slot that does not exist */
    /* a slot's retry pending for a slot that does not exist */
    const int64_t r = forge_event(p, &l, "ps.retry", 0);
    SGD_ASSERT(r >= 0);
    memcpy(f, p, n);
    forge_put(f, forge_event_at(&l, r, FORGE_EV_ENTITY), 2);
    expect_refused(&s, f, n, "a retry for slot 2 of 2", "slot 2 of 2");
    free(f);
    free(p);
    scn_free(&s);

    const char *fedavg[] = {"algorithm={\"name\": \"fedavg\", \"clients_per_round\": 2,"
                            " \"local\": {\"steps\": 1}}"};
    load(ps_text, fedavg, 1, 1, &s);
    p = checkpoint_of(&s, 13, &n);
    CHECK_INT_EQ(restore(&s, p, n, why, sizeof why), 0);
    f = copy_of(p, n);
    const size_t round = forge_find_tag(p, n, "round", 0);
    forge_put(f, round, 3); /* selected */
    expect_refused(&s, f, n, "a round of 3 clients in 2 slots", "a round with");
    free(f);
    free(p);
    scn_free(&s);
}

int main(void)
{
    check_csgd();
    check_lsgd();
    check_ps_timed();
    check_ps_rules();
    check_ps_federated();
    return check_exit();
}
