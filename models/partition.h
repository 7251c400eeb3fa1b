/* Partitions of a labelled dataset over clients: IID, Dirichlet label skew, label shards and
 * quantity skew, the splits federated-learning experiments use (docs/federated.md,
 * "Building blocks").
 *
 * A partition is a pure function of (the generator's state, the scheme and its parameters,
 * the labels, the number of clients): partition_create reads nothing else, draws from the
 * generator the caller passes in a fixed documented order, and does no floating-point sum
 * whose order could vary.  The caller seeds that generator from its own stream (the
 * simulator's one stream per entity), so the partition follows from the run's seed.
 *
 * Memory is bytes per client, never per-client structures: one permutation of the sample
 * indices (int32 per sample) and per-client offsets into it (int64 per client), so 10^6
 * clients cost 8 MB plus 4 bytes per sample.  Creation needs 8 more bytes per client and
 * (Dirichlet, shards) 12 per sample, freed before it returns.  A client's samples are a
 * contiguous run of the permutation; a client may hold none (Dirichlet and quantity skew
 * with min_samples 0).
 *
 * Ownership: partition_create returns a partition owned by the caller, freed with
 * partition_destroy.  The partition keeps no pointer to the labels. */
#ifndef SGDSIM_MODELS_PARTITION_H
#define SGDSIM_MODELS_PARTITION_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "common/error.h"

/* The order matches partition_scheme_names. */
typedef enum {
    PARTITION_IID,                /* a shuffle cut into equal runs (sizes differ by <= 1) */
    PARTITION_DIRICHLET,          /* per label, proportions over clients ~ Dir(alpha) */
    PARTITION_SHARDS,             /* sorted by label, cut into shards, shards dealt out */
    PARTITION_QUANTITY_DIRICHLET, /* sizes ~ Dir(alpha) over clients, labels IID */
    PARTITION_QUANTITY_LOGNORMAL, /* sizes proportional to exp(sigma Z), labels IID */
} partition_scheme_t;

/* NULL-terminated names, indexed by partition_scheme_t: "iid", "dirichlet", "shards",
 * "quantity_dirichlet", "quantity_lognormal". */
extern const char *const partition_scheme_names[];

/* How many times a scheme with min_samples > 0 draws its proportions before giving up. */
#define PARTITION_MAX_DRAWS 100

/* Bounds on the parameters (beyond them nothing changes but the risk of overflow). */
#define PARTITION_ALPHA_MAX 1e9
#define PARTITION_SIGMA_MAX 1e3

typedef struct partition_spec {
    partition_scheme_t scheme;
    double alpha;          /* DIRICHLET, QUANTITY_DIRICHLET: concentration, in (0, 1e9] */
    double sigma;          /* QUANTITY_LOGNORMAL: sd of the log-sizes, in [0, 1e3] */
    int shards_per_client; /* SHARDS: >= 1 (McMahan et al. 2017: 2) */
    int64_t min_samples;   /* DIRICHLET, QUANTITY_*: redraw (up to PARTITION_MAX_DRAWS times)
                            * until every client holds at least this many; 0 = accept empty
                            * clients.  Ignored by IID and SHARDS, which never leave one empty */
} partition_spec_t;

typedef struct partition partition_t;

/* Partitions samples 0..n-1 with labels[0..n) in [0, classes) over `clients` clients,
 * drawing from r (any GSL generator; the simulator passes its stream for the partition).
 * Returns 0 with *out set, or -1 with a message that starts with the offending parameter's
 * name ("alpha", "sigma", "shards_per_client", "min_samples", "clients", "labels[i]", "n")
 * and *out NULL.  Refused: n < 1 or n > INT32_MAX; classes < 1; a label outside
 * [0, classes); clients < 1; IID with clients > n; SHARDS with shards_per_client < 1 or
 * shards_per_client x clients > n; alpha not in (0, 1e9]; sigma not in [0, 1e3];
 * min_samples < 0 or min_samples x clients > n; no draw of PARTITION_MAX_DRAWS meeting
 * min_samples.  The algorithms, and the order in which they draw, are in partition.c and
 * docs/federated.md. */
int partition_create(const partition_spec_t *spec, const int32_t *labels, int64_t n,
                     int classes, int64_t clients, gsl_rng *r, partition_t **out,
                     sgd_err_t *err);

void partition_destroy(partition_t *p);

int64_t partition_clients(const partition_t *p);
int64_t partition_samples(const partition_t *p);
int partition_classes(const partition_t *p);

/* Number of samples of client i (0 <= i < clients, asserted). */
int64_t partition_size(const partition_t *p, int64_t client);

/* Client i's sample indices: partition_size(p, i) of them, valid while p lives. */
const int32_t *partition_indices(const partition_t *p, int64_t client);

/* counts[0..classes) = how many of client i's samples have each label; labels must be the
 * array the partition was created from. */
void partition_label_counts(const partition_t *p, int64_t client, const int32_t *labels,
                            int64_t *counts);

/* Bytes the partition holds: 4 per sample + 8 per client + 8 + the struct. */
size_t partition_bytes(const partition_t *p);

#endif
