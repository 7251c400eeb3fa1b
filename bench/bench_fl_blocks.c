/* The federated-learning building blocks at scale (docs/federated.md, "Building blocks"):
 * partitions of 60,000 samples over 10^4, 10^5 and 10^6 clients, availability and device
 * questions for 10^6 clients, and -- given FedScale files -- their loading; each with its
 * wall time and the process's peak resident memory so far.  Prints measurements only.
 *
 *     bench_fl_blocks [CAPACITY_FILE TRACE_FILE] */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include <gsl/gsl_rng.h>

#include "models/partition.h"
#include "sim/client_behaviour.h"
#include "sim/fedscale.h"
#include "sim/rng.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double peak_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

static void partitions(void)
{
    enum { N_SAMPLES = 60000 };
    int32_t *y = malloc(N_SAMPLES * sizeof *y);
    for (int i = 0; i < N_SAMPLES; i++) y[i] = i % 10;
    const partition_spec_t specs[] = {
        {.scheme = PARTITION_DIRICHLET, .alpha = 0.5},
        {.scheme = PARTITION_QUANTITY_LOGNORMAL, .sigma = 1.0},
    };
    for (int k = 0; k < 2; k++)
        for (int64_t clients = 10000; clients <= 1000000; clients *= 10) {
            gsl_rng *r = sim_rng_create(1, SIM_STREAM_PARTITION, 0);
            partition_t *p;
            sgd_err_t err;
            double t0 = now_s();
            if (partition_create(&specs[k], y, N_SAMPLES, 10, clients, r, &p, &err)) {
                fprintf(stderr, "%s\n", err.msg);
                exit(1);
            }
            printf("partition %-18s %8lld clients: %6.3f s, holds %6.1f MB, peak RSS %6.1f MB\n",
                   partition_scheme_names[specs[k].scheme], (long long)clients, now_s() - t0,
                   (double)partition_bytes(p) / 1e6, peak_mb());
            partition_destroy(p);
            gsl_rng_free(r);
        }
    free(y);
}

static void behaviour(void)
{
    sim_client_model_t m = {
        .seed = 1, .avail = SIM_AVAIL_RENEWAL,
        .online_s = {.kind = SIM_DIST_EXPONENTIAL, .p = {7200}},
        .offline_s = {.kind = SIM_DIST_EXPONENTIAL, .p = {21600}},
        .dropout_p = 0.1,
        .compute_factor = {.kind = SIM_DIST_LOGNORMAL, .p = {1.0, 0.5}},
        .bandwidth_Bps = {.kind = SIM_DIST_UNIFORM, .p = {1e5, 1e7}},
    };
    double t0 = now_s();
    long up = 0;
    for (uint64_t i = 0; i < 1000000; i++) up += sim_client_online_at(&m, i, 86400000000000);
    double t1 = now_s();
    double f = 0.0;
    for (uint64_t i = 0; i < 1000000; i++) f += sim_client_device(&m, i).compute_factor;
    double t2 = now_s();
    printf("behaviour: 10^6 clients online at 24 h from a fresh cursor: %.3f s (%ld online); "
           "10^6 devices: %.3f s (mean factor %.3f); peak RSS %.1f MB\n",
           t1 - t0, up, t2 - t1, f / 1e6, peak_mb());
}

static void fedscale(const char *capacity, const char *trace)
{
    sgd_err_t err;
    double t0 = now_s();
    sim_fedscale_capacity_t c;
    if (sim_fedscale_capacity_load(capacity, &c, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    double t1 = now_s();
    printf("fedscale capacity: %lld devices in %.3f s, peak RSS %.1f MB\n", (long long)c.n,
           t1 - t0, peak_mb());
    sim_fedscale_trace_t t;
    if (sim_fedscale_trace_load(trace, &t, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    printf("fedscale trace: %lld clients, %lld windows in %.3f s, peak RSS %.1f MB\n",
           (long long)t.n, (long long)t.first[t.n], now_s() - t1, peak_mb());
    sim_fedscale_capacity_free(&c);
    sim_fedscale_trace_free(&t);
}

int main(int argc, char **argv)
{
    if (argc != 1 && argc != 3) {
        fprintf(stderr, "usage: %s [CAPACITY_FILE TRACE_FILE]\n", argv[0]);
        return 2;
    }
    if (argc == 3) fedscale(argv[1], argv[2]); /* first, so that its peak is its own */
    partitions();
    behaviour();
    return 0;
}
