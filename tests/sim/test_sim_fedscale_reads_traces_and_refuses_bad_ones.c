/* FedScale's device capacity file and availability trace (sim/fedscale.h), read from the
 * synthetic files in FedScale's format (tests/data/fedscale/, protocols 4 and 2): the
 * hand-written entries' exact values, windows merged and dropped as documented, online and
 * next-change across the period's wrap, the behaviour model driven by both files; and hostile
 * files (made here, opcode by opcode) refused with a message naming the file, the client and
 * the field: wrong types, missing fields, NaN, zero and negative numbers, duplicate ids,
 * unsorted, overlapping and inverted windows, windows past 'finish_time', truncation. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/client_behaviour.h"
#include "sim/fedscale.h"
#include "tests/check.h"

#define S_NS ((int64_t)1000000000)
#define FINISH 518400

static const char *data_dir;
static char tmp_path[64];

/* ---- A pickle writer for the hostile files (protocol 2 opcodes). ---- */

typedef struct pk {
    uint8_t b[8192];
    size_t n;
} pk_t;

static void raw(pk_t *w, const void *p, size_t n)
{
    SGD_ASSERT(w->n + n <= sizeof w->b);
    memcpy(w->b + w->n, p, n);
    w->n += n;
}
static void op(pk_t *w, uint8_t c) { raw(w, &c, 1); }
static void pint(pk_t *w, int32_t v)
{
    uint8_t b[5] = {'J', (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    raw(w, b, 5);
}
static void pfloat(pk_t *w, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    op(w, 'G');
    for (int i = 7; i >= 0; i--) op(w, (uint8_t)(bits >> (8 * i)));
}
static void pstr(pk_t *w, const char *s)
{
    op(w, 0x8c);
    op(w, (uint8_t)strlen(s));
    raw(w, s, strlen(s));
}
static void begin(pk_t *w)
{
    w->n = 0;
    raw(w, "\x80\x02}(", 4);
}
static void end(pk_t *w) { raw(w, "u.", 2); }

/* id: {'computation': comp, 'communication': comm} */
static void cap_entry(pk_t *w, int32_t id, double comp, double comm)
{
    pint(w, id);
    raw(w, "}(", 2);
    pstr(w, "computation");
    pfloat(w, comp);
    pstr(w, "communication");
    pfloat(w, comm);
    op(w, 'u');
}

static void float_list(pk_t *w, const double *v, int n)
{
    raw(w, "](", 2);
    for (int i = 0; i < n; i++) pfloat(w, v[i]);
    op(w, 'e');
}

/* id: {'duration': 0, 'active': [...], 'inactive': [...], 'finish_time': finish} */
static void trace_entry(pk_t *w, int32_t id, double finish, const double *on, int non,
                        const double *off, int noff)
{
    pint(w, id);
    raw(w, "}(", 2);
    pstr(w, "duration");
    pint(w, 0);
    pstr(w, "active");
    float_list(w, on, non);
    pstr(w, "inactive");
    float_list(w, off, noff);
    pstr(w, "finish_time");
    pfloat(w, finish);
    op(w, 'u');
}

static const char *write_tmp(const pk_t *w)
{
    FILE *f = fopen(tmp_path, "wb");
    SGD_ASSERT(f && fwrite(w->b, 1, w->n, f) == w->n && fclose(f) == 0);
    return tmp_path;
}

/* Refused by the capacity (trace = 0) or trace loader, naming the file and each needle. */
static void refused(const pk_t *w, int trace, const char *needle1, const char *needle2)
{
    sgd_err_t err = {{0}};
    const char *path = write_tmp(w);
    int rc;
    if (trace) {
        sim_fedscale_trace_t t;
        rc = sim_fedscale_trace_load(path, &t, &err);
        if (rc == 0) sim_fedscale_trace_free(&t);
    } else {
        sim_fedscale_capacity_t c;
        rc = sim_fedscale_capacity_load(path, &c, &err);
        if (rc == 0) sim_fedscale_capacity_free(&c);
    }
    CHECK_INT_EQ(rc, -1);
    CHECK(strncmp(err.msg, path, strlen(path)) == 0);
    CHECK_STR_CONTAINS(err.msg, needle1);
    if (needle2) CHECK_STR_CONTAINS(err.msg, needle2);
}

/* ---- The committed files. ---- */

static void data_path(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s/%s", data_dir, name);
}

static void capacity_values(void)
{
    char p4[4096], p2[4096];
    data_path(p4, sizeof p4, "client_device_capacity");
    data_path(p2, sizeof p2, "client_device_capacity.p2");
    sim_fedscale_capacity_t a, b;
    sgd_err_t err = {{0}};
    if (sim_fedscale_capacity_load(p4, &a, &err) || sim_fedscale_capacity_load(p2, &b, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        check_failures++;
        return;
    }
    CHECK_INT_EQ(a.n, 40);
    CHECK(b.n == a.n && memcmp(a.dev, b.dev, (size_t)a.n * sizeof *a.dev) == 0);
    CHECK(a.dev[0].id == 1 && a.dev[0].compute_ms == 162.0 &&
          a.dev[0].bandwidth_kbps == 5648.109619499134);
    CHECK(a.dev[1].id == 2 && a.dev[1].compute_ms == 20.0 && a.dev[1].bandwidth_kbps == 1000.0);
    CHECK(a.dev[2].id == 3 && a.dev[2].compute_ms == 400.5 && a.dev[2].bandwidth_kbps == 250.25);
    double sum = 0.0;
    for (int64_t i = 0; i < a.n; i++) sum += a.dev[i].compute_ms;
    CHECK(a.mean_compute_ms == sum / 40.0);
    CHECK(sim_fedscale_bytes_per_s(1000.0) == 128000.0);

    /* The behaviour model on the file: client i is device i mod 40. */
    sim_client_model_t m = {.avail = SIM_AVAIL_ALWAYS, .device_trace = &a};
    CHECK_INT_EQ(sim_client_model_check(&m, &err), 0);
    sim_client_device_t d = sim_client_device(&m, 41); /* device 1: id 2 */
    CHECK(d.compute_factor == 20.0 / a.mean_compute_ms && d.bandwidth_Bps == 128000.0);
    double mean_factor = 0.0;
    for (uint64_t i = 0; i < 40; i++) mean_factor += sim_client_device(&m, i).compute_factor;
    CHECK_NEAR(mean_factor / 40.0, 1.0, 1e-12);
    sim_fedscale_capacity_free(&a);
    sim_fedscale_capacity_free(&b);
    CHECK(a.dev == NULL && a.n == 0);
}

/* Client k's windows, in seconds, are exactly want[0..2n). */
static void windows_are(const sim_fedscale_trace_t *t, int64_t k, const int64_t *want, int n)
{
    CHECK_INT_EQ(t->first[k + 1] - t->first[k], n);
    if (t->first[k + 1] - t->first[k] != n) return;
    for (int j = 0; j < 2 * n; j++) CHECK_INT_EQ(t->win[2 * t->first[k] + j], want[j] * S_NS);
}

/* At many times: the state holds on [t, next) and differs at next. */
static int next_change_disagreements(const sim_fedscale_trace_t *t, int64_t k)
{
    int bad = 0;
    for (int64_t s = 0; s < 3 * FINISH; s += 997) {
        int64_t at = s * S_NS + 123;
        bool up = sim_fedscale_trace_online(t, k, at);
        int64_t next = sim_fedscale_trace_next_change(t, k, at);
        if (next == SIM_TIME_BEYOND_NS) {
            bad += sim_fedscale_trace_online(t, k, at + 7 * FINISH * S_NS) != up;
            continue;
        }
        bad += next <= at;
        bad += sim_fedscale_trace_online(t, k, next - 1) != up;
        bad += sim_fedscale_trace_online(t, k, at + (next - at) / 2) != up;
        bad += sim_fedscale_trace_online(t, k, next) == up;
    }
    return bad;
}

static void trace_values(void)
{
    char p4[4096], p2[4096];
    data_path(p4, sizeof p4, "client_behave_trace");
    data_path(p2, sizeof p2, "client_behave_trace.p2");
    sim_fedscale_trace_t t, u;
    sgd_err_t err = {{0}};
    if (sim_fedscale_trace_load(p4, &t, &err) || sim_fedscale_trace_load(p2, &u, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        check_failures++;
        return;
    }
    CHECK_INT_EQ(t.n, 24);
    CHECK(u.n == t.n && memcmp(t.first, u.first, (size_t)(t.n + 1) * 8) == 0 &&
          memcmp(t.win, u.win, (size_t)t.first[t.n] * 16) == 0 &&
          memcmp(t.period_ns, u.period_ns, (size_t)t.n * 8) == 0);
    CHECK(t.id[0] == 101 && t.id[3] == 104 && t.id[23] == 124);
    CHECK_INT_EQ(t.period_ns[0], FINISH * S_NS);
    CHECK_INT_EQ(t.period_ns[3], 3600 * S_NS);
    windows_are(&t, 0, (const int64_t[]){100, 200, 1000, 5000}, 2);
    /* 102: [0,50] [200,300] [300,600] [700,700] [518000,518400]: touching ones merged, the
     * empty one dropped. */
    windows_are(&t, 1, (const int64_t[]){0, 50, 200, 600, 518000, FINISH}, 3);
    windows_are(&t, 2, NULL, 0);
    windows_are(&t, 3, (const int64_t[]){0, 3600}, 1);

    /* 101: online on [100, 200) and [1000, 5000) of each period. */
    CHECK(!sim_fedscale_trace_online(&t, 0, 99 * S_NS));
    CHECK(sim_fedscale_trace_online(&t, 0, 100 * S_NS));
    CHECK_INT_EQ(sim_fedscale_trace_next_change(&t, 0, 150 * S_NS), 200 * S_NS);
    CHECK(!sim_fedscale_trace_online(&t, 0, 200 * S_NS));
    CHECK_INT_EQ(sim_fedscale_trace_next_change(&t, 0, 200 * S_NS), 1000 * S_NS);
    CHECK_INT_EQ(sim_fedscale_trace_next_change(&t, 0, 6000 * S_NS), (FINISH + 100) * S_NS);
    CHECK(sim_fedscale_trace_online(&t, 0, (2 * FINISH + 150) * S_NS));
    /* 102: online from 518000 s across the period's end to 50 s of the next. */
    CHECK(sim_fedscale_trace_online(&t, 1, 518100 * S_NS));
    CHECK_INT_EQ(sim_fedscale_trace_next_change(&t, 1, 518100 * S_NS), (FINISH + 50) * S_NS);
    CHECK_INT_EQ(sim_fedscale_trace_next_change(&t, 1, 10 * S_NS), 50 * S_NS);
    CHECK_INT_EQ(sim_fedscale_trace_next_change(&t, 1, 650 * S_NS), 518000 * S_NS);
    CHECK(sim_fedscale_trace_online(&t, 1, 599 * S_NS));
    CHECK(!sim_fedscale_trace_online(&t, 1, 600 * S_NS));
    /* 103 never, 104 always. */
    CHECK(!sim_fedscale_trace_online(&t, 2, 7 * S_NS));
    CHECK_INT_EQ(sim_fedscale_trace_next_change(&t, 2, 7 * S_NS), SIM_TIME_BEYOND_NS);
    CHECK(sim_fedscale_trace_online(&t, 3, 7 * S_NS));
    CHECK_INT_EQ(sim_fedscale_trace_next_change(&t, 3, 7 * S_NS), SIM_TIME_BEYOND_NS);
    int bad = 0;
    for (int64_t k = 0; k < t.n; k++) bad += next_change_disagreements(&t, k);
    CHECK_INT_EQ(bad, 0);

    /* The behaviour model: client i follows trace client i mod 24, and a task on 101 that
     * starts at 150 s and needs 100 s is cut at 200 s. */
    sim_client_model_t m = {.avail = SIM_AVAIL_TRACE, .avail_trace = &t,
                            .compute_factor = {.kind = SIM_DIST_CONSTANT, .p = {1}},
                            .bandwidth_Bps = {.kind = SIM_DIST_CONSTANT, .p = {1}}};
    CHECK_INT_EQ(sim_client_model_check(&m, &err), 0);
    sim_client_avail_t c;
    sim_client_avail_start(&m, 24, &c);
    CHECK(!sim_client_online(&m, &c, 99 * S_NS));
    CHECK_INT_EQ(sim_client_next_change(&m, &c, 99 * S_NS), 100 * S_NS);
    sim_client_task_t r = sim_client_task(&m, &c, 1, 150 * S_NS, 100 * S_NS);
    CHECK(!r.completes && r.went_offline && r.end_ns == 200 * S_NS);
    CHECK(sim_client_task(&m, &c, 2, 1000 * S_NS, 4000 * S_NS).completes);
    CHECK(sim_client_online_at(&m, 24 + 3, 5 * S_NS)); /* 104: always */
    m.avail_trace = NULL;
    CHECK_INT_EQ(sim_client_model_check(&m, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "avail_trace:");
    sim_fedscale_trace_free(&t);
    sim_fedscale_trace_free(&u);
}

/* ---- Hostile files. ---- */

static void bad_capacity_files(void)
{
    pk_t w;
    begin(&w), cap_entry(&w, 7, 10.0, NAN), end(&w);
    refused(&w, 0, "client 7: 'communication' must be a number in (0, 1e+12], got nan", NULL);
    begin(&w), cap_entry(&w, 7, 0.0, 1.0), end(&w);
    refused(&w, 0, "client 7: 'computation'", "got 0");
    begin(&w), cap_entry(&w, 7, -3.0, 1.0), end(&w);
    refused(&w, 0, "client 7: 'computation'", "got -3");
    begin(&w), cap_entry(&w, 7, INFINITY, 1.0), end(&w);
    refused(&w, 0, "client 7: 'computation'", "got inf");
    begin(&w), cap_entry(&w, 7, 1.0, 2.0), cap_entry(&w, 8, 1.0, 2.0), cap_entry(&w, 7, 1.0, 2.0),
        end(&w);
    refused(&w, 0, "client 7 appears twice", NULL);
    /* 'computation' a str; 'communication' missing; the value a list; the key a str. */
    begin(&w), pint(&w, 9), raw(&w, "}(", 2), pstr(&w, "computation"), pstr(&w, "fast"),
        pstr(&w, "communication"), pfloat(&w, 1), op(&w, 'u'), end(&w);
    refused(&w, 0, "client 9: 'computation' must be a number, found a str", NULL);
    begin(&w), pint(&w, 9), raw(&w, "}(", 2), pstr(&w, "computation"), pfloat(&w, 1),
        op(&w, 'u'), end(&w);
    refused(&w, 0, "client 9: no 'communication'", NULL);
    begin(&w), pint(&w, 9), raw(&w, "](e", 3), end(&w);
    refused(&w, 0, "client 9: expected a dict, found a list", NULL);
    begin(&w), pstr(&w, "9"), raw(&w, "}", 1), end(&w);
    refused(&w, 0, "entry 0: the key is a str, not an int client id", NULL);
    /* Not a dict; an empty dict; truncated; code. */
    w.n = 0, raw(&w, "\x80\x02](e.", 6);
    refused(&w, 0, "is not a dict of clients (found a list)", NULL);
    w.n = 0, raw(&w, "\x80\x02}.", 4);
    refused(&w, 0, "holds no client", NULL);
    begin(&w), cap_entry(&w, 7, 10.0, 1.0), end(&w);
    w.n -= 3;
    refused(&w, 0, "the file ends", NULL);
    begin(&w), pint(&w, 7), raw(&w, "cos\nsystem\n", 11), end(&w);
    refused(&w, 0, "GLOBAL", "nothing is run");
    sgd_err_t err = {{0}};
    sim_fedscale_capacity_t c;
    CHECK_INT_EQ(sim_fedscale_capacity_load("/nonexistent/client_device_capacity", &c, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "/nonexistent/client_device_capacity: cannot open");
    CHECK_INT_EQ(sim_fedscale_capacity_load(data_dir, &c, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "not a regular file");
}

static void bad_trace_files(void)
{
    pk_t w;
    const double ok_on[] = {10, 100}, ok_off[] = {20, 200};
    begin(&w), trace_entry(&w, 5, FINISH, ok_on, 2, ok_off, 2), end(&w);
    sgd_err_t err = {{0}};
    sim_fedscale_trace_t t;
    int rc = sim_fedscale_trace_load(write_tmp(&w), &t, &err);
    CHECK_INT_EQ(rc, 0); /* the baseline is fine */
    if (rc == 0) sim_fedscale_trace_free(&t);

    begin(&w), trace_entry(&w, 5, FINISH, (const double[]){-5, 100}, 2, ok_off, 2), end(&w);
    refused(&w, 1, "client 5: 'active'[0] = -5 is not a time >= 0", NULL);
    begin(&w), trace_entry(&w, 5, FINISH, ok_on, 2, (const double[]){20, NAN}, 2), end(&w);
    refused(&w, 1, "client 5: 'inactive'[1] = nan is not a time >= 0", NULL);
    begin(&w), trace_entry(&w, 5, FINISH, (const double[]){100, 10}, 2,
                           (const double[]){200, 20}, 2), end(&w);
    refused(&w, 1, "client 5: window 1 starts at 10, before window 0 ends at 200", NULL);
    begin(&w), trace_entry(&w, 5, FINISH, (const double[]){10, 15}, 2, ok_off, 2), end(&w);
    refused(&w, 1, "client 5: window 1 starts at 15, before window 0 ends at 20", NULL);
    begin(&w), trace_entry(&w, 5, FINISH, (const double[]){30, 100}, 2, ok_off, 2), end(&w);
    refused(&w, 1, "client 5: window 0 ends ('inactive' 20) before it starts ('active' 30)",
            NULL);
    begin(&w), trace_entry(&w, 5, FINISH, ok_on, 2, ok_off, 1), end(&w);
    refused(&w, 1, "client 5: 'active' has 2 times but 'inactive' 1", NULL);
    begin(&w), trace_entry(&w, 5, 150, ok_on, 2, ok_off, 2), end(&w);
    refused(&w, 1, "client 5: 'inactive'[1] = 200 lies beyond 'finish_time' 150", NULL);
    begin(&w), trace_entry(&w, 5, 0, ok_on, 0, ok_off, 0), end(&w);
    refused(&w, 1, "client 5: 'finish_time' must be a number in (0,", NULL);
    begin(&w), trace_entry(&w, 5, 1e300, ok_on, 0, ok_off, 0), end(&w);
    refused(&w, 1, "client 5: 'finish_time'", "got 1e+300");
    begin(&w), trace_entry(&w, 5, NAN, ok_on, 0, ok_off, 0), end(&w);
    refused(&w, 1, "client 5: 'finish_time'", "got nan");
    begin(&w), trace_entry(&w, 5, 1e-10, ok_on, 0, ok_off, 0), end(&w);
    refused(&w, 1, "client 5: 'finish_time' 1e-10 s is under 1 ns", NULL);
    begin(&w), trace_entry(&w, 5, FINISH, ok_on, 2, ok_off, 2),
        trace_entry(&w, 5, FINISH, ok_on, 2, ok_off, 2), end(&w);
    refused(&w, 1, "client 5 appears twice", NULL);
    /* 'active' a dict; an item a str; no 'inactive'. */
    begin(&w), pint(&w, 6), raw(&w, "}(", 2), pstr(&w, "finish_time"), pint(&w, 100),
        pstr(&w, "active"), raw(&w, "}", 1), pstr(&w, "inactive"), raw(&w, "](e", 3),
        op(&w, 'u'), end(&w);
    refused(&w, 1, "client 6: 'active' must be a list, found a dict", NULL);
    begin(&w), pint(&w, 6), raw(&w, "}(", 2), pstr(&w, "finish_time"), pint(&w, 100),
        pstr(&w, "active"), raw(&w, "](", 2), pint(&w, 1), op(&w, 'e'), pstr(&w, "inactive"),
        raw(&w, "](", 2), pstr(&w, "2"), op(&w, 'e'), op(&w, 'u'), end(&w);
    refused(&w, 1, "client 6: 'inactive'[0] must be a number, found a str", NULL);
    begin(&w), pint(&w, 6), raw(&w, "}(", 2), pstr(&w, "finish_time"), pint(&w, 100),
        pstr(&w, "active"), raw(&w, "](e", 3), op(&w, 'u'), end(&w);
    refused(&w, 1, "client 6: no 'inactive'", NULL);
    begin(&w), pint(&w, 6), raw(&w, "}(", 2), pstr(&w, "active"), raw(&w, "](e", 3),
        pstr(&w, "inactive"), raw(&w, "](e", 3), op(&w, 'u'), end(&w);
    refused(&w, 1, "client 6: no 'finish_time'", NULL);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIR (tests/data/fedscale)\n", argv[0]);
        return 2;
    }
    data_dir = argv[1];
    snprintf(tmp_path, sizeof tmp_path, "/tmp/sgdsim-fedscale-%ld", (long)getpid());
    capacity_values();
    trace_values();
    bad_capacity_files();
    bad_trace_files();
    unlink(tmp_path);
    return check_exit();
}
