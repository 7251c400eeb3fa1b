/* The partition schemes declared in partition.h.
 *
 * Every scheme writes one permutation of the sample indices, client by client, and the
 * client offsets into it.  The draws, in order, per scheme (r is the caller's generator):
 *
 *   IID        the identity permutation shuffled once (gsl_ran_shuffle); client i gets the
 *              i-th run, n / N samples each, the first n mod N clients one more.
 *   DIRICHLET  per draw: the samples grouped by label (ascending index within a label); for
 *              each label k = 0..classes-1: shuffle label k's samples, then draw the clients'
 *              proportions p ~ Dir(alpha) (see log_weights) and cut label k's shuffled
 *              samples at floor(m_k * (p_0 + ... + p_j)), client j taking the j-th piece.
 *              A client's samples are its pieces in label order.
 *   SHARDS     no draw but one shuffle: the samples sorted by label (ascending index within
 *              a label) are cut into S = shards_per_client x N shards of n / S samples, the
 *              first n mod S shards one more; the shard numbers 0..S-1 are shuffled and
 *              client i gets shards perm[i*spc .. (i+1)*spc) in that order.
 *   QUANTITY_* per draw: the identity permutation shuffled, then the clients' shares
 *              (Dir(alpha), or exp(sigma Z) normalised) and the same cut as DIRICHLET's over
 *              all n samples.
 *
 * With min_samples > 0, DIRICHLET and QUANTITY_* draw again, from where r is, until every
 * client holds at least min_samples (as Flower's DirichletPartitioner does with its
 * min_partition_size), at most PARTITION_MAX_DRAWS times.  Sums are taken in client order, so
 * the result depends on nothing but the inputs and the C library's exp and log, as every
 * distribution of the simulator does. */
#include "models/partition.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

const char *const partition_scheme_names[] = {"iid", "dirichlet", "shards",
                                              "quantity_dirichlet", "quantity_lognormal", NULL};

struct partition {
    int64_t clients;
    int64_t n;
    int classes;
    int32_t *index;  /* n sample indices; client i's are index[offset[i] .. offset[i + 1]) */
    int64_t *offset; /* clients + 1 entries, offset[0] = 0, offset[clients] = n */
};

static int check_scheme_params(const partition_spec_t *s, int64_t n, int64_t clients,
                               sgd_err_t *err)
{
    switch (s->scheme) {
    case PARTITION_IID:
        if (clients > n)
            return sgd_errf(err, "clients: %lld clients need a sample each, but there are "
                                 "only %lld samples", (long long)clients, (long long)n);
        return 0;
    case PARTITION_SHARDS:
        if (s->shards_per_client < 1)
            return sgd_errf(err, "shards_per_client: must be >= 1, got %d",
                            s->shards_per_client);
        if (clients > n || (int64_t)s->shards_per_client * clients > n)
            return sgd_errf(err, "shards_per_client: %d shards per client x %lld clients "
                                 "need at least one sample per shard, but there are only "
                                 "%lld samples", s->shards_per_client, (long long)clients,
                            (long long)n);
        return 0;
    case PARTITION_DIRICHLET:
    case PARTITION_QUANTITY_DIRICHLET:
        if (!(s->alpha > 0.0 && s->alpha <= PARTITION_ALPHA_MAX))
            return sgd_errf(err, "alpha: must be a number in (0, %g], got %g",
                            PARTITION_ALPHA_MAX, s->alpha);
        break;
    case PARTITION_QUANTITY_LOGNORMAL:
        if (!(s->sigma >= 0.0 && s->sigma <= PARTITION_SIGMA_MAX))
            return sgd_errf(err, "sigma: must be a number in [0, %g], got %g",
                            PARTITION_SIGMA_MAX, s->sigma);
        break;
    default:
        return sgd_errf(err, "scheme: unknown partition scheme %d", (int)s->scheme);
    }
    if (s->min_samples < 0)
        return sgd_errf(err, "min_samples: must be >= 0, got %lld", (long long)s->min_samples);
    if (s->min_samples > n || s->min_samples * clients > n)
        return sgd_errf(err, "min_samples: %lld clients x %lld samples each exceed the %lld "
                             "samples", (long long)clients, (long long)s->min_samples,
                        (long long)n);
    return 0;
}

static int check_inputs(const partition_spec_t *s, const int32_t *labels, int64_t n,
                        int classes, int64_t clients, sgd_err_t *err)
{
    if (n < 1 || n > INT32_MAX)
        return sgd_errf(err, "n: the number of samples must be in [1, %d], got %lld",
                        INT32_MAX, (long long)n);
    if (classes < 1) return sgd_errf(err, "classes: must be >= 1, got %d", classes);
    for (int64_t i = 0; i < n; i++)
        if (labels[i] < 0 || labels[i] >= classes)
            return sgd_errf(err, "labels[%lld]: %d is outside [0, %d)", (long long)i,
                            (int)labels[i], classes);
    if (clients < 1 || clients > INT32_MAX)
        return sgd_errf(err, "clients: must be in [1, %d], got %lld", INT32_MAX,
                        (long long)clients);
    return check_scheme_params(s, n, clients, err);
}

static void identity(int32_t *a, int64_t n)
{
    for (int64_t i = 0; i < n; i++) a[i] = (int32_t)i;
}

/* gsl_ran_shuffle, except that fewer than two elements draw nothing (GSL's loop would
 * underflow on zero). */
static void shuffle(gsl_rng *r, int32_t *a, int64_t m)
{
    if (m > 1) gsl_ran_shuffle(r, a, (size_t)m, sizeof *a);
}

/* by_label[0..n) = the sample indices sorted by label, ascending within a label (a counting
 * sort); start[k] .. start[k + 1] is label k's range (start has classes + 1 entries). */
static void group_by_label(const int32_t *labels, int64_t n, int classes, int32_t *by_label,
                           int64_t *start)
{
    memset(start, 0, ((size_t)classes + 1) * sizeof *start);
    for (int64_t i = 0; i < n; i++) start[labels[i] + 1]++;
    for (int k = 0; k < classes; k++) start[k + 1] += start[k];
    int64_t *next = sgd_xmalloc((size_t)classes * sizeof *next);
    memcpy(next, start, (size_t)classes * sizeof *next);
    for (int64_t i = 0; i < n; i++) by_label[next[labels[i]]++] = (int32_t)i;
    free(next);
}

/* lw[0..m) = the logarithms of unnormalised shares.  Dirichlet: Gamma(alpha) draws taken as
 * Gamma(alpha + 1) * U^(1/alpha) (the same law), in logarithms, so that tiny alphas, whose
 * Gamma draws underflow to 0, still give proportions; per client, the gamma draw (GSL's
 * Marsaglia-Tsang) and then U = gsl_rng_uniform_pos.  Lognormal: sigma * N(0,1) per client
 * (gsl_ran_gaussian). */
static void log_weights(const partition_spec_t *s, gsl_rng *r, int64_t m, double *lw)
{
    if (s->scheme == PARTITION_QUANTITY_LOGNORMAL) {
        for (int64_t j = 0; j < m; j++) lw[j] = gsl_ran_gaussian(r, 1.0) * s->sigma;
        return;
    }
    for (int64_t j = 0; j < m; j++) {
        double g = gsl_ran_gamma(r, s->alpha + 1.0, 1.0);
        double u = gsl_rng_uniform_pos(r);
        lw[j] = log(g) + log(u) / s->alpha;
    }
}

/* Turns lw[0..m) into shares in place: exp(lw - max), and returns their sum (client order).
 * The largest share is 1, so the sum is >= 1 and finite. */
static double shares(double *lw, int64_t m)
{
    double top = -INFINITY;
    for (int64_t j = 0; j < m; j++)
        if (lw[j] > top) top = lw[j];
    double sum = 0.0;
    for (int64_t j = 0; j < m; j++) {
        lw[j] = exp(lw[j] - top);
        sum += lw[j];
    }
    return sum;
}

/* The end of piece j when `total` items are cut by cumulative share cum out of sum:
 * floor(total * cum / sum), kept in [prev, total] (the last piece is cut at total). */
static int64_t cut_at(double cum, double sum, int64_t total, int64_t prev, int last)
{
    if (last) return total;
    int64_t c = (int64_t)floor(cum / sum * (double)total);
    return c < prev ? prev : c > total ? total : c;
}

static partition_t *partition_alloc(int64_t n, int classes, int64_t clients)
{
    partition_t *p = sgd_xcalloc(1, sizeof *p);
    p->n = n;
    p->classes = classes;
    p->clients = clients;
    p->index = sgd_xmalloc((size_t)n * sizeof *p->index);
    p->offset = sgd_xcalloc((size_t)clients + 1, sizeof *p->offset);
    return p;
}

static int64_t smallest_size(const int64_t *size, int64_t clients)
{
    int64_t least = size[0];
    for (int64_t j = 1; j < clients; j++)
        if (size[j] < least) least = size[j];
    return least;
}

static int too_few(const partition_spec_t *s, int64_t least, sgd_err_t *err)
{
    return sgd_errf(err, "min_samples: none of %d draws gave every client at least %lld "
                         "samples (the smallest client of the last one had %lld); lower "
                         "min_samples or %s", PARTITION_MAX_DRAWS,
                    (long long)s->min_samples, (long long)least,
                    s->scheme == PARTITION_QUANTITY_LOGNORMAL ? "sigma" : "raise alpha");
}

static void fill_iid(partition_t *p, gsl_rng *r)
{
    identity(p->index, p->n);
    shuffle(r, p->index, p->n);
    int64_t base = p->n / p->clients, extra = p->n % p->clients;
    for (int64_t i = 0; i <= p->clients; i++) p->offset[i] = i * base + (i < extra ? i : extra);
}

static int fill_quantity(const partition_spec_t *s, partition_t *p, gsl_rng *r,
                         sgd_err_t *err)
{
    int64_t N = p->clients;
    double *lw = sgd_xmalloc((size_t)N * sizeof *lw);
    int64_t least = 0;
    for (int draw = 0; draw < PARTITION_MAX_DRAWS; draw++) {
        identity(p->index, p->n);
        shuffle(r, p->index, p->n);
        log_weights(s, r, N, lw);
        double sum = shares(lw, N), cum = 0.0;
        least = p->n;
        for (int64_t j = 0; j < N; j++) {
            cum += lw[j];
            p->offset[j + 1] = cut_at(cum, sum, p->n, p->offset[j], j == N - 1);
            if (p->offset[j + 1] - p->offset[j] < least) least = p->offset[j + 1] - p->offset[j];
        }
        if (least >= s->min_samples) break;
    }
    free(lw);
    return least >= s->min_samples ? 0 : too_few(s, least, err);
}

/* One Dirichlet draw over every label: the pieces (client, count), label after label, into
 * piece_client/piece_count (label k's from piece_start[k]), and each client's total into
 * size[0..N).  Pieces of no sample are not kept, so there are at most n of them. */
static void dirichlet_draw(const partition_spec_t *s, const partition_t *p, gsl_rng *r,
                           int32_t *by_label, const int64_t *label_start, double *lw,
                           int32_t *piece_client, int32_t *piece_count, int64_t *piece_start,
                           int64_t *size)
{
    int64_t N = p->clients, pieces = 0;
    memset(size, 0, (size_t)N * sizeof *size);
    for (int k = 0; k < p->classes; k++) {
        int64_t m = label_start[k + 1] - label_start[k];
        piece_start[k] = pieces;
        shuffle(r, by_label + label_start[k], m);
        log_weights(s, r, N, lw);
        double sum = shares(lw, N), cum = 0.0;
        int64_t prev = 0;
        for (int64_t j = 0; j < N; j++) {
            cum += lw[j];
            int64_t end = cut_at(cum, sum, m, prev, j == N - 1);
            if (end > prev) {
                piece_client[pieces] = (int32_t)j;
                piece_count[pieces++] = (int32_t)(end - prev);
                size[j] += end - prev;
            }
            prev = end;
        }
    }
    piece_start[p->classes] = pieces;
}

static int fill_dirichlet(const partition_spec_t *s, const int32_t *labels, partition_t *p,
                          gsl_rng *r, sgd_err_t *err)
{
    int64_t N = p->clients, n = p->n;
    int32_t *by_label = sgd_xmalloc((size_t)n * sizeof *by_label);
    int64_t *label_start = sgd_xmalloc(((size_t)p->classes + 1) * sizeof *label_start);
    int64_t *piece_start = sgd_xmalloc(((size_t)p->classes + 1) * sizeof *piece_start);
    int32_t *piece_client = sgd_xmalloc((size_t)n * sizeof *piece_client);
    int32_t *piece_count = sgd_xmalloc((size_t)n * sizeof *piece_count);
    double *lw = sgd_xmalloc((size_t)N * sizeof *lw);
    int64_t *size = p->offset + 1; /* turned into offsets below */
    int64_t least = 0;
    for (int draw = 0; draw < PARTITION_MAX_DRAWS; draw++) {
        group_by_label(labels, n, p->classes, by_label, label_start);
        dirichlet_draw(s, p, r, by_label, label_start, lw, piece_client, piece_count,
                       piece_start, size);
        least = smallest_size(size, N);
        if (least >= s->min_samples) break;
    }
    free(lw);
    int rc = least >= s->min_samples ? 0 : too_few(s, least, err);
    if (rc == 0) {
        for (int64_t j = 0; j < N; j++) p->offset[j + 1] += p->offset[j];
        /* Each client's pieces, label by label, at its next free place. */
        int64_t *next = sgd_xmalloc((size_t)N * sizeof *next);
        memcpy(next, p->offset, (size_t)N * sizeof *next);
        for (int k = 0; k < p->classes; k++) {
            const int32_t *src = by_label + label_start[k];
            for (int64_t q = piece_start[k]; q < piece_start[k + 1]; q++) {
                int32_t j = piece_client[q], c = piece_count[q];
                memcpy(p->index + next[j], src, (size_t)c * sizeof *src);
                next[j] += c;
                src += c;
            }
        }
        free(next);
    }
    free(by_label);
    free(label_start);
    free(piece_start);
    free(piece_client);
    free(piece_count);
    return rc;
}

static void fill_shards(const partition_spec_t *s, const int32_t *labels, partition_t *p,
                        gsl_rng *r)
{
    int64_t N = p->clients, spc = s->shards_per_client, nshards = spc * N;
    int64_t base = p->n / nshards, extra = p->n % nshards;
    int32_t *sorted = sgd_xmalloc((size_t)p->n * sizeof *sorted);
    int64_t *label_start = sgd_xmalloc(((size_t)p->classes + 1) * sizeof *label_start);
    group_by_label(labels, p->n, p->classes, sorted, label_start);
    free(label_start);
    int32_t *perm = sgd_xmalloc((size_t)nshards * sizeof *perm);
    identity(perm, nshards);
    shuffle(r, perm, nshards);
    int64_t at = 0;
    for (int64_t i = 0; i < N; i++) {
        p->offset[i] = at;
        for (int64_t t = 0; t < spc; t++) {
            int64_t shard = perm[i * spc + t];
            int64_t first = shard * base + (shard < extra ? shard : extra);
            int64_t len = base + (shard < extra ? 1 : 0);
            memcpy(p->index + at, sorted + first, (size_t)len * sizeof *sorted);
            at += len;
        }
    }
    p->offset[N] = at;
    free(perm);
    free(sorted);
}

int partition_create(const partition_spec_t *spec, const int32_t *labels, int64_t n,
                     int classes, int64_t clients, gsl_rng *r, partition_t **out,
                     sgd_err_t *err)
{
    *out = NULL;
    if (check_inputs(spec, labels, n, classes, clients, err)) return -1;
    partition_t *p = partition_alloc(n, classes, clients);
    int rc = 0;
    switch (spec->scheme) {
    case PARTITION_IID:
        fill_iid(p, r);
        break;
    case PARTITION_DIRICHLET:
        rc = fill_dirichlet(spec, labels, p, r, err);
        break;
    case PARTITION_SHARDS:
        fill_shards(spec, labels, p, r);
        break;
    case PARTITION_QUANTITY_DIRICHLET:
    case PARTITION_QUANTITY_LOGNORMAL:
        rc = fill_quantity(spec, p, r, err);
        break;
    }
    if (rc) {
        partition_destroy(p);
        return -1;
    }
    SGD_ASSERT(p->offset[0] == 0 && p->offset[clients] == n);
    *out = p;
    return 0;
}

void partition_destroy(partition_t *p)
{
    if (!p) return;
    free(p->index);
    free(p->offset);
    free(p);
}

int64_t partition_clients(const partition_t *p) { return p->clients; }
int64_t partition_samples(const partition_t *p) { return p->n; }
int partition_classes(const partition_t *p) { return p->classes; }

int64_t partition_size(const partition_t *p, int64_t client)
{
    SGD_ASSERT(client >= 0 && client < p->clients);
    return p->offset[client + 1] - p->offset[client];
}

const int32_t *partition_indices(const partition_t *p, int64_t client)
{
    SGD_ASSERT(client >= 0 && client < p->clients);
    return p->index + p->offset[client];
}

void partition_label_counts(const partition_t *p, int64_t client, const int32_t *labels,
                            int64_t *counts)
{
    memset(counts, 0, (size_t)p->classes * sizeof *counts);
    const int32_t *idx = partition_indices(p, client);
    int64_t m = partition_size(p, client);
    for (int64_t q = 0; q < m; q++) counts[labels[idx[q]]]++;
}

size_t partition_bytes(const partition_t *p)
{
    return sizeof *p + (size_t)p->n * sizeof *p->index +
           ((size_t)p->clients + 1) * sizeof *p->offset;
}
