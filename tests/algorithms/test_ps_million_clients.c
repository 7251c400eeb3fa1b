/* A million registered clients in bounded memory (docs/federated.md, "Clients, slots and
 * rounds"): FedBuff with 10^6 registered clients of which 10 are in flight, with a clients
 * section and a partition that leaves most clients empty, runs complete, and the process's
 * peak resident memory stays under a generous bound -- and grows, from a run of 10^3
 * registered clients, by about the bytes per registered client the design promises, never
 * by anything the size of a model per client.  Memory only: nothing here measures time. */
#include <stdlib.h>
#include <sys/resource.h>

#include "tests/algorithms/run_scenario.h"
#include "tests/check.h"

#define BASE                                                                               \
    "{\"schema_version\": 1, \"seed\": 2,"                                                  \
    " \"algorithm\": {\"name\": \"fedbuff\", \"buffer\": 5, \"concurrency\": 10,"           \
    "                 \"local\": {\"steps\": 1}},"                                           \
    " \"clients\": {\"dropout_p\": 0.1, \"compute_factor\": {\"dist\": \"lognormal\","       \
    "               \"mean\": 1, \"cv\": 0.5}},"                                              \
    " \"data\": {\"source\": \"synthetic\", \"n_train\": 20000, \"n_validation\": 500,"       \
    "           \"dim\": 20, \"classes\": 5,"                                                 \
    "           \"partition\": {\"scheme\": \"dirichlet\", \"alpha\": 0.5}},"               \
    " \"model\": {\"kind\": \"mlp\", \"hidden\": [64]}, \"batch\": {\"per_worker\": 8},"      \
    " \"optimizer\": {\"lr\": 0.05},"                                                         \
    " \"compute\": {\"kind\": \"time\", \"time_s\": 0.01},"                                   \
    " \"stop\": {\"updates\": 100}, \"eval\": {\"every\": 50}}"

/* Peak resident memory of this process so far, MB. */
static double peak_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

static void run(const char *workers)
{
    const char *sets[] = {workers};
    alg_outcome_t o = run_scenario(BASE, "million.json", sets, 1, NULL);
    CHECK_INT_EQ(o.status, ALG_COMPLETE);
    CHECK_INT_EQ(o.updates, 100);
    free(o.final_params);
}

int main(void)
{
    run("cluster.workers=1000");
    const double small = peak_mb();
    run("cluster.workers=1000000");
    const double big = peak_mb();
    fprintf(stderr, "peak RSS: %.1f MB with 10^3 registered clients, %.1f MB with 10^6\n",
            small, big);
    /* 10^6 clients: 9 bytes each of counts and flags, 8 of the partition's offsets, the
     * list of clients that hold data and the partition's build -- about 50 MB at its peak;
     * a model per client would be 10^6 x 1669 parameters x 4 bytes = 6.7 GB. */
    CHECK(big - small < 256.0);
    CHECK(big < 512.0);
    return check_exit();
}
