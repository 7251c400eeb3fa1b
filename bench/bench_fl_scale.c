/* Federated learning at scale (docs/performance.md, "A million clients"): FedBuff with
 * 10^4, 10^5 and 10^6 registered clients, of which 100 or 1,000 train at a time, on a small
 * model and synthetic data; each configuration runs in a process of its own, which reports
 * the simulated client updates (deltas the server applied) per CPU-second of that process
 * and its peak resident memory (getrusage).  Prints measurements only.
 *
 *     bench_fl_scale [UPDATES]     (server updates per configuration, default 5000; 10
 *                                   client updates each) */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "algorithms/alg.h"

/* The setting: FedBuff (buffer 10, 2 local steps of 8 rows), an MLP 64-256-10 (19,210
 * parameters: 77 KB a snapshot, so that models held per client in flight show) on 20,000
 * synthetic rows, heterogeneous devices, 5% dropout; no partition (a client draws from the
 * whole set), validation only at the end. */
static const char *scenario =
    "{\"schema_version\": 1, \"seed\": 1,"
    " \"algorithm\": {\"name\": \"fedbuff\", \"buffer\": 10, \"local\": {\"steps\": 2}},"
    " \"clients\": {\"dropout_p\": 0.05,"
    "               \"compute_factor\": {\"dist\": \"lognormal\", \"mean\": 1, \"cv\": 0.5}},"
    " \"data\": {\"source\": \"synthetic\", \"n_train\": 20000, \"n_validation\": 1000,"
    "           \"dim\": 64, \"classes\": 10},"
    " \"model\": {\"kind\": \"mlp\", \"hidden\": [256]}, \"batch\": {\"per_worker\": 8},"
    " \"optimizer\": {\"lr\": 0.05},"
    " \"compute\": {\"kind\": \"time\", \"time_s\": {\"dist\": \"gamma\", \"mean\": 1,"
    " \"cv\": 0.5}},"
    " \"eval\": {\"every\": 0}}";

static double cpu_s(const struct rusage *ru)
{
    return (double)ru->ru_utime.tv_sec + 1e-6 * (double)ru->ru_utime.tv_usec +
           (double)ru->ru_stime.tv_sec + 1e-6 * (double)ru->ru_stime.tv_usec;
}

/* One configuration, in this (child) process: prints its line, exits. */
static void measure(int64_t lambda, int64_t conc, int64_t updates)
{
    char workers[64], concurrency[64], stop[64];
    snprintf(workers, sizeof workers, "cluster.workers=%lld", (long long)lambda);
    snprintf(concurrency, sizeof concurrency, "algorithm.concurrency=%lld", (long long)conc);
    snprintf(stop, sizeof stop, "stop.updates=%lld", (long long)updates);
    const scn_override_t ov[] = {{workers}, {concurrency}, {stop}};
    scn_t s;
    sgd_err_t err = {{0}};
    alg_outcome_t o;
    if (scn_load_text(scenario, "bench_fl_scale.json", ".", ov, 3, NULL, alg_scenario_table, &s,
                      &err) ||
        alg_run(&s, NULL, &o, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    const double cpu = cpu_s(&ru), deltas = (double)o.updates * 10.0;
    printf("| %9lld | %5lld | %7lld | %9.0f | %6.2f | %9.0f | %7.1f |\n", (long long)lambda,
           (long long)conc, (long long)o.updates, deltas, cpu, deltas / cpu,
           (double)ru.ru_maxrss / 1024.0);
    fflush(stdout);
    free(o.final_params);
    scn_free(&s);
    exit(o.status == ALG_COMPLETE ? 0 : 1);
}

int main(int argc, char **argv)
{
    const int64_t updates = argc > 1 ? atoll(argv[1]) : 5000;
    if (argc > 2 || updates < 1) {
        fprintf(stderr, "usage: %s [UPDATES]\n", argv[0]);
        return 2;
    }
    printf("| registered | in flight | updates | client updates | CPU s | client updates "
           "per CPU-s | peak RSS MB |\n|---|---|---|---|---|---|---|\n");
    fflush(stdout);
    const int64_t lambdas[] = {10000, 100000, 1000000}, concs[] = {100, 1000};
    int failed = 0;
    for (int c = 0; c < 2; c++)
        for (int l = 0; l < 3; l++) {
            pid_t pid = fork();
            if (pid == 0) measure(lambdas[l], concs[c], updates);
            int status = 0;
            if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
                WEXITSTATUS(status) != 0)
                failed = 1;
        }
    return failed;
}
