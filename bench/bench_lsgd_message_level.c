/* How message-level collectives scale: the LSGD study's ResNet-50 scenarios
 * (scenarios/lsgd/, per-tensor collectives, 4 GPUs per node) run for a few updates with every
 * message simulated, at 4..256 GPUs, next to the same runs in closed form.  Prints, per
 * algorithm and size: events, wall-clock seconds, events/s, wall-clock per simulated
 * iteration, and images/s of virtual time at message level relative to the closed form
 * (the closed form's lockstep error, measured).  Wall-clock time is read only here, for the
 * report; it never enters virtual time.
 *
 *   build/bench/bench_lsgd_message_level [UPDATES] [MAX_GPUS]     (default 4, 256)
 * Run from the repository root (it reads scenarios/lsgd/). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/alg.h"

typedef struct {
    double ips;
} rate_t;

static int rate_metric(void *ctx, int64_t update, int64_t vtime_ns, const char *name,
                       double value, sgd_err_t *err)
{
    (void)update, (void)vtime_ns, (void)err;
    if (strcmp(name, "images_per_s") == 0) ((rate_t *)ctx)->ips = value;
    return 0;
}

static int run(const char *alg, int p, int updates, const char *fidelity, alg_outcome_t *o,
               double *ips)
{
    char path[128], w[64], u[64], f[64];
    snprintf(path, sizeof path, "scenarios/lsgd/resnet50_%s.json", alg);
    snprintf(w, sizeof w, "cluster.workers=%d", p);
    snprintf(u, sizeof u, "stop.updates=%d", updates);
    snprintf(f, sizeof f, "network.fidelity=%s", fidelity);
    scn_override_t ov[3] = {{w}, {u}, {f}};
    scn_t s;
    sgd_err_t err = {{0}};
    if (scn_load(path, ov, 3, NULL, alg_scenario_table, &s, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    rate_t r = {0};
    alg_sink_t sink = {.ctx = &r, .metric = rate_metric};
    int rc = alg_run(&s, &sink, o, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    scn_free(&s);
    free(o->final_params);
    *ips = r.ips;
    return rc;
}

int main(int argc, char **argv)
{
    int updates = argc > 1 ? atoi(argv[1]) : 4, maxp = argc > 2 ? atoi(argv[2]) : 256;
    if (updates < 2) updates = 2;
    printf("%-5s %5s %11s %8s %11s %12s %14s %14s %9s\n", "alg", "gpus", "events", "wall_s",
           "events/s", "wall_ms/iter", "img/s message", "img/s analytic", "msg/anal");
    for (int a = 0; a < 2; a++) {
        const char *alg = a ? "lsgd" : "csgd";
        for (int p = 4; p <= maxp; p *= 2) {
            alg_outcome_t m, c;
            double ips_m, ips_c;
            if (run(alg, p, updates, "message", &m, &ips_m) ||
                run(alg, p, updates, "analytic", &c, &ips_c))
                return 1;
            printf("%-5s %5d %11llu %8.3f %11.3g %12.2f %14.1f %14.1f %9.4f\n", alg, p,
                   (unsigned long long)m.events, m.wall_s, m.events_per_s,
                   1e3 * m.wall_s / updates, ips_m, ips_c, ips_c > 0 ? ips_m / ips_c : 0.0);
            fflush(stdout);
        }
    }
    return 0;
}
