/* Scenario files: load, validate, fill defaults, hash.
 *
 * A scenario is a JSON file (docs/scenario.md documents every field).  scn_load() reads it,
 * applies command-line overrides (--set key.path=value, --seed), checks every field's type
 * and range, rejects unknown keys, and produces
 *   - a typed scn_t the rest of the program reads, and
 *   - the resolved configuration (every default filled in) as JSON with exact numbers,
 *     plus the SHA-256 of its canonical form (the run key), stored with each run so a
 *     result can always be traced to its exact inputs.
 * Errors name the file and the JSON path: "quickstart.json: cluster.workers: expected
 * integer >= 1, got \"four\"". */
#ifndef SGDSIM_CONFIG_SCENARIO_H
#define SGDSIM_CONFIG_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "common/json.h"
#include "common/sha256.h"
#include "models/blas_kernel.h"
#include "models/model.h"
#include "models/optim.h"
#include "models/partition.h"
#include "sim/client_behaviour.h"
#include "sim/dist.h"

#define SCN_SCHEMA_VERSION 1

/* The largest seed, in the file and from --seed: 2^53 - 1, since a JSON number (a double)
 * holds every integer below 2^53 exactly and 2^53 + 1 would read as 2^53. */
#define SCN_SEED_MAX ((int64_t)9007199254740991)

/* numerics.threads: the most threads a run may use (and what "auto" is capped at). */
#define SCN_THREADS_MAX 256

typedef enum { SCN_DATA_IDX, SCN_DATA_SYNTHETIC } scn_data_source_t;
typedef enum { SCN_VAL_TEST, SCN_VAL_TRAIN_TAIL } scn_val_from_t;
typedef enum { SCN_SAMPLING_SHUFFLE, SCN_SAMPLING_SEQUENTIAL } scn_sampling_t;
typedef enum { SCN_COMPUTE_TIME, SCN_COMPUTE_FLOPS } scn_compute_kind_t;
typedef enum { SCN_FIDELITY_MESSAGE, SCN_FIDELITY_ANALYTIC } scn_fidelity_t;
typedef enum { SCN_TOPO_FLAT, SCN_TOPO_CLUSTER } scn_topo_kind_t;
typedef enum { SCN_GRAN_FUSED, SCN_GRAN_PER_TENSOR } scn_granularity_t;

/* topology: the cluster's shape and links (docs/scenario.md).  Flat: the network section's
 * star.  Cluster: N = workers / G nodes of G GPUs. */
typedef struct scn_topology {
    scn_topo_kind_t kind;
    int64_t gpus_per_node;    /* G (cluster), 1 for flat */
    int64_t nodes;            /* N = workers / G (cluster), workers for flat */
    double intra_Bps;         /* topology.intra.bandwidth_gbps in bytes/s */
    int64_t intra_latency_ns; /* topology.intra.latency_us in ns */
    double nic_Bps;           /* topology.nic.bandwidth_gbps in bytes/s */
    int64_t nic_latency_ns;   /* topology.nic.latency_us in ns */
    double oversubscription;  /* >= 1 */
} scn_topology_t;

typedef struct scn_data {
    scn_data_source_t source;
    /* IDX files, resolved relative to the scenario file's directory (owned) */
    char *train_images, *train_labels, *test_images, *test_labels;
    int64_t train_size;      /* training rows used, 0 = all that remain */
    scn_val_from_t val_from; /* validation rows come from the test files or the train tail */
    int64_t val_size;        /* validation rows, 0 = all test rows (val_from = test) */
    /* The decoded-dataset cache (models/data_cache.h).  Not part of resolved_json: where
     * decoded data is kept changes no result, so it must not change a run's configuration
     * hash (a sweep resumed with another cache directory would redo every point). */
    bool cache;              /* data.cache, default true */
    char *cache_dir;         /* data.cache_dir resolved like the files (owned), NULL = not given */
    /* synthetic */
    int64_t synth_train, synth_val; /* rows */
    int synth_dim, synth_classes;
    double synth_separation; /* scale of the class means relative to unit noise */
} scn_data_t;

/* data.partition: how the training data is split over the registered clients
 * (models/partition.h); only the parameter-server family reads it. */
typedef struct scn_partition {
    bool given;               /* false: no partition (and nothing in resolved_json) */
    partition_spec_t spec;
} scn_partition_t;

/* The "clients" section: how registered clients behave as devices (sim/client_behaviour.h,
 * docs/scenario.md#clients); only the parameter-server family reads it. */
typedef struct scn_clients {
    bool given;               /* false: always online, no dropout, the cluster's devices */
    sim_avail_kind_t avail;
    sim_dist_t online_s, offline_s; /* renewal: period lengths, s */
    char *trace;              /* availability "trace": FedScale's file, resolved (owned) */
    double dropout_p;         /* per-task dropout probability, in [0, 1) */
    sim_dist_t compute_factor; /* per-client multiplier on compute time */
    sim_dist_t bandwidth_Bps; /* per-client link bandwidth, bytes/s */
    char *device_trace;       /* FedScale's capacity file instead of the two laws (owned) */
    double retry_s;           /* a slot that found no client tries again after this, s */
} scn_clients_t;

/* One axis of a scenario's "sweep" block: a key path of the scenario and the values it
 * takes in a sweep (sgdsim sweep), each kept as JSON text so it can be applied exactly like a
 * --set override. */
typedef struct scn_sweep_axis {
    char *key;     /* "cluster.workers" (owned) */
    char **values; /* nvalues JSON texts, e.g. "250" or "\"csgd\"" (owned) */
    int nvalues;   /* >= 1 */
} scn_sweep_axis_t;

/* One group of the sweep block's "zip" list: axes of the block that advance together (the
 * i-th point of the group takes the i-th value of each) instead of being crossed. */
typedef struct scn_sweep_zip {
    char **keys; /* nkeys >= 2 axis keys of the block, in the group's order (owned) */
    int nkeys;
} scn_sweep_zip_t;

/* numerics: how the numerics layer computes (docs/scenario.md#numerics). */
typedef struct scn_numerics {
    /* numerics.blas_core: "auto" or an OpenBLAS kernel in OpenBLAS's spelling ("SkylakeX");
     * after scn_resolve_numerics() always the kernel this run must run on. */
    char blas_core[BLAS_KERNEL_NAME_MAX];
    /* Who asked for blas_core, for the messages of the resolution:
     * "x.json: numerics.blas_core", "--set numerics.blas_core=Haswell: numerics.blas_core",
     * "--blas-core Haswell". */
    char blas_core_from[SGD_JPATH_MAX + 64];
    int64_t threads;          /* numerics.threads as requested: 0 = auto, 1..SCN_THREADS_MAX */
    int64_t threads_resolved; /* threads of this run (>= 1) after scn_resolve_numerics(), else 0 */
    bool resolved;            /* scn_resolve_numerics() succeeded */
} scn_numerics_t;

typedef struct scn {
    char *path;      /* scenario file as given (owned) */
    char *name;      /* "name" or the file's base name without .json (owned) */
    uint64_t seed;   /* master seed */
    char *algorithm; /* algorithm.name (owned) */
    char *backend;   /* "cpu" or "cuda" (owned; models/backend.h) */
    scn_numerics_t numerics; /* BLAS kernel and threads */

    int64_t workers;         /* cluster.workers: P, or lambda for asynchronous algorithms */
    sim_dist_t time_factor;  /* cluster.time_factor: per-worker compute-time multiplier,
                                drawn once per worker */

    scn_data_t data;
    scn_partition_t partition;   /* data.partition */
    scn_clients_t clients;       /* clients */

    model_spec_t model;          /* its kind's (models/model_kind.h); ninputs and nclasses come
                                    from the data at run setup; kind NULL when cost_only */
    model_init_t init;
    bool cost_only;              /* model.kind "preset": no numerics, only the preset's costs */
    int cost_preset;             /* model_preset_id_t charged for time (model.preset, or
                                    model.cost_preset for a hybrid run); -1 = the real model */

    int64_t batch_per_worker;
    scn_sampling_t sampling;

    optim_sgd_t sgd;
    lr_schedule_t lr;

    scn_compute_kind_t compute_kind;
    sim_dist_t compute_time_s;   /* compute.time_s, seconds per minibatch (kind "time") */
    double device_gflops;        /* compute.device_gflops (kind "flops") */
    sim_dist_t update_time_s;    /* compute.update_time_s: optimizer step, seconds */
    sim_dist_t io_time_s;        /* io.time_s: storage load per minibatch, seconds */

    double bandwidth_Bps;        /* network.bandwidth_gbps converted to bytes/s */
    int64_t latency_ns;          /* network.latency_us converted to ns */
    scn_fidelity_t fidelity;     /* network.fidelity */
    int allreduce_alg;           /* network.allreduce: sim_allreduce_alg_t */
    scn_granularity_t granularity; /* network.granularity */
    int64_t bucket_bytes;        /* network.bucket_bytes (fused) */

    scn_topology_t topo;         /* topology */

    int64_t stop_updates;        /* stop.updates */
    int64_t stop_vtime_ns;       /* stop.vtime_s in ns, 0 = no limit */

    int64_t eval_every;          /* validation every N updates (0 = only at the end) */
    int64_t train_loss_every;    /* record train_loss every N updates */

    void *alg_opts;              /* the algorithm's own options (owned), or NULL */
    void (*alg_opts_free)(void *opts);

    /* The "sweep" block, in file order (owned), or NULL / 0.  Deliberately not part of
     * resolved_json: a run's configuration hash must not change when values are added to the
     * sweep it belongs to, or resuming an extended sweep would redo every finished point. */
    scn_sweep_axis_t *sweep;
    int nsweep;
    scn_sweep_zip_t *sweep_zip; /* the block's "zip" groups, in file order (owned) */
    int nsweep_zip;

    char *resolved_json;         /* resolved configuration, exact numbers, in reading order
                                    (owned) */
    char config_hash[SGD_SHA256_HEX_LEN + 1]; /* SHA-256 hex of resolved_json's canonical
                                                 form (sorted keys, exact numbers) without
                                                 numerics.threads, which never changes a
                                                 result (sgd_config_hash_tree,
                                                 docs/results.md) */
} scn_t;

/* How the loader learns which algorithms exist and reads each one's own options.  The
 * algorithms layer provides the table (alg_scenario_table in algorithms/alg.h) and the caller
 * passes it in, so this layer stays below the algorithms. */
typedef struct scn_algorithm {
    const char *name; /* value of algorithm.name */
    /* Optional.  Reads the algorithm's own keys of the "algorithm" object `alg` (whose "name"
     * is already read), after every other section, so options may be checked against them.
     * Must reject unknown keys (sgd_jobj_check_keys, listing "name" too).  Owned options go to
     * s->alg_opts with s->alg_opts_free.  NULL: the algorithm takes no options. */
    int (*parse_options)(const sgd_jobj_t *alg, struct scn *s, sgd_err_t *err);
    /* Whether it reads data.partition and the clients section (the others refuse them). */
    bool takes_clients;
} scn_algorithm_t;

/* One --set override: "key.path=value".  The whole value is parsed as JSON (numbers,
 * true/false/null, arrays, objects, quoted strings); a value that is not JSON is taken as a
 * plain string only when it does not start with a digit, sign, quote, bracket or brace
 * ("--set algorithm.name=csgd"), else refused.  Empty key segments ("a..b") are refused. */
typedef struct scn_override {
    const char *assignment;
} scn_override_t;

/* Loads and validates `path`.  seed_override may be NULL; `algorithms` is the NULL-terminated
 * table of algorithms that algorithm.name may select.  On error returns -1 with a message
 * starting with the file name (or the --set argument at fault); *out is then left zeroed.
 * On success the caller frees with scn_free(). */
int scn_load(const char *path, const scn_override_t *sets, int nsets,
             const uint64_t *seed_override, const scn_algorithm_t *const *algorithms,
             scn_t *out, sgd_err_t *err);

/* Same, from JSON text already in memory (tests; `display_name` plays the file's role). */
int scn_load_text(const char *text, const char *display_name, const char *base_dir,
                  const scn_override_t *sets, int nsets, const uint64_t *seed_override,
                  const scn_algorithm_t *const *algorithms, scn_t *out, sgd_err_t *err);

void scn_free(scn_t *s);

/* What the machine-dependent numerics fields resolve against: the BLAS side
 * (models/blas_kernel.h) and the CPUs this process may use, shared by `jobs` processes (a
 * sweep's -j; 1 for a run). */
typedef struct scn_machine {
    blas_machine_t blas;
    int64_t cpus; /* >= 1 */
    int64_t jobs; /* >= 1 */
} scn_machine_t;

/* numerics.threads resolved: `requested` when > 0, else auto = cpus / jobs, at least 1 and
 * at most SCN_THREADS_MAX. */
int64_t scn_threads_resolve(int64_t requested, int64_t cpus, int64_t jobs);

/* Command-line flags over the numerics section (--blas-core, --threads): they win over the
 * file and every --set, and messages name them. */
typedef struct scn_numerics_flags {
    const char *blas_core;       /* "auto" or a kernel name; NULL when not given */
    const char *blas_core_label; /* the flag as typed, "--blas-core Haswell", for messages */
    int64_t threads;             /* 0..SCN_THREADS_MAX, or -1 when not given */
} scn_numerics_flags_t;

/* Applies `flags` (may be NULL) and resolves s's numerics against machine m: blas_core
 * becomes the kernel to run (blas_kernel_resolve: "auto", the user's OPENBLAS_CORETYPE, a
 * pinned kernel this machine must run) and threads the number to use.  resolved_json and
 * config_hash are rewritten with both, so they show the real kernel and thread count (the
 * hash covers the kernel, not the threads).  scn_load() leaves "auto" and the requested
 * threads in them until this is called; only the CLI, which knows the machine, calls it.
 * Errors name who asked (numerics.blas_core_from, the flag) or the environment variable. */
int scn_resolve_numerics(scn_t *s, const scn_numerics_flags_t *flags, const scn_machine_t *m,
                         sgd_err_t *err);

#endif
