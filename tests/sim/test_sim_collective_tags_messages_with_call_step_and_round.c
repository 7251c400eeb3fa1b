/* A traced collective tags every message with the round of its sender (the k-th entry is
 * round k), the call of the sequence, the schedule's step and the two ranks' names -- the
 * same whether the sender moves the data at once (eager) or only once the receiver posted
 * its receive (rendezvous, where the receiver's place names it).  Checked against the
 * schedule itself: a binomial broadcast and Rabenseifner's allreduce over 5 ranks (so with
 * the fold-in steps), 2 calls, 2 rounds, on a flat star where every message crosses 2 links,
 * some ranks entering late so that rendezvous sends wait. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "sim/collective.h"
#include "sim/trace.h"
#include "tests/check.h"

#define NRANKS 5
#define ROUNDS 2

static const char *const names[NRANKS] = {"r0", "r1", "r2", "r3", "r4"};

typedef struct run {
    sim_coll_t *c;
    int rounds_done[NRANKS];
} run_t;

/* Each rank enters its next round as soon as it is done, rank 3 a while later. */
static void on_done(void *ctx, int rank, int64_t t)
{
    run_t *r = ctx;
    if (++r->rounds_done[rank] < ROUNDS) sim_coll_enter(r->c, rank, t + (rank == 3 ? 50000 : 0));
}

static int by_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "round call step from to" for every message span of the trace at path, sorted. */
static char **traced(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    char *text = calloc(1, 1 << 22);
    size_t got = fread(text, 1, (1 << 22) - 1, f);
    fclose(f);
    text[got] = '\0';
    cJSON *root = cJSON_Parse(text);
    CHECK(root != NULL);
    char **out = NULL;
    *n = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(root, "traceEvents")) {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(e, "name");
        if (!cJSON_IsString(nm) || strcmp(nm->valuestring, "message") != 0) continue;
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(e, "args");
        char buf[64];
        snprintf(buf, sizeof buf, "%d %d %d %s %s",
                 cJSON_GetObjectItemCaseSensitive(a, "update")->valueint,
                 cJSON_GetObjectItemCaseSensitive(a, "call")->valueint,
                 cJSON_GetObjectItemCaseSensitive(a, "step")->valueint,
                 cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(a, "from")),
                 cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(a, "to")));
        out = realloc(out, (*n + 1) * sizeof *out);
        out[(*n)++] = strdup(buf);
    }
    cJSON_Delete(root);
    free(text);
    qsort(out, *n, sizeof *out, by_text);
    return out;
}

/* The same from the schedule: each message twice (its two links). */
static char **expected(const sim_sched_t *s, size_t *n)
{
    char **out = NULL;
    *n = 0;
    for (int round = 1; round <= ROUNDS; round++)
        for (int call = 0; call < 2; call++)
            for (int st = 0; st < sim_sched_nsteps(s); st++) {
                int count;
                const sim_sched_msg_t *m = sim_sched_step(s, st, &count);
                for (int i = 0; i < 2 * count; i++) {
                    char buf[64];
                    snprintf(buf, sizeof buf, "%d %d %d %s %s", round, call, st,
                             names[m[i / 2].src], names[m[i / 2].dst]);
                    out = realloc(out, (*n + 1) * sizeof *out);
                    out[(*n)++] = strdup(buf);
                }
            }
    qsort(out, *n, sizeof *out, by_text);
    return out;
}

static void check(sim_sched_t *s, const char *kind, bool rendezvous, const char *path)
{
    sgd_err_t err = {{0}};
    sim_trace_t *tr;
    sim_trace_opts_t o = {.t0_ns = 0, .t1_ns = INT64_MAX, .level = SIM_TRACE_LEVEL_MESSAGE};
    CHECK(sim_trace_open(path, &o, &tr, &err) == 0);
    sim_topo_spec_t spec = {.kind = SIM_TOPO_FLAT, .workers = NRANKS, .link_Bps = 1e9,
                            .link_latency_ns = 1000};
    sim_engine_t *e = sim_engine_create();
    sim_net_t *n = sim_net_create();
    sim_net_set_trace(n, tr);
    sim_topo_t t;
    sim_topo_init(&t, n, &spec);
    int eps[NRANKS] = {0, 1, 2, 3, 4};
    uint64_t elems[2] = {1000, 10};
    run_t r = {0};
    r.c = sim_coll_create(e, n, &t, s, eps, elems, 2, 4, on_done, &r, kind);
    sim_coll_set_rendezvous(r.c, rendezvous);
    sim_coll_set_trace(r.c, kind, "update", names);
    for (int k = 0; k < NRANKS; k++) sim_coll_enter(r.c, k, k == 3 ? 20000 : 0);
    sim_engine_run(e, NULL);
    for (int k = 0; k < NRANKS; k++) CHECK_INT_EQ(r.rounds_done[k], ROUNDS);
    CHECK(sim_trace_close(tr, &err) == 0);
    size_t ngot, nwant;
    char **got = traced(path, &ngot), **want = expected(s, &nwant);
    CHECK_INT_EQ(ngot, nwant);
    CHECK_INT_EQ(ngot, 2 * sim_coll_messages(r.c));
    for (size_t i = 0; i < ngot && i < nwant; i++)
        if (strcmp(got[i], want[i]) != 0) {
            fprintf(stderr, "%s%s: message %zu traced as \"%s\", the schedule has \"%s\"\n", kind,
                    rendezvous ? " (rendezvous)" : "", i, got[i], want[i]);
            CHECK(0);
            break;
        }
    for (size_t i = 0; i < ngot; i++) free(got[i]);
    for (size_t i = 0; i < nwant; i++) free(want[i]);
    free(got);
    free(want);
    sim_coll_destroy(r.c);
    sim_net_destroy(n);
    sim_engine_destroy(e);
}

int main(void)
{
    char path[] = "/tmp/sgdsim-coll-tags-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    sim_sched_t *bcast = sim_sched_broadcast(SIM_ROOTED_BINOMIAL, NRANKS);
    sim_sched_t *ar = sim_sched_allreduce(SIM_AR_RSAG, NRANKS);
    CHECK(sim_sched_nsteps(bcast) == 3 && sim_sched_nsteps(ar) == 6);
    for (int rv = 0; rv <= 1; rv++) {
        check(bcast, "broadcast", rv, path);
        check(ar, "allreduce", rv, path);
    }
    sim_sched_destroy(bcast);
    sim_sched_destroy(ar);
    unlink(path);
    return check_exit();
}
