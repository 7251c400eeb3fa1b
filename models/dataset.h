/* In-memory classification datasets: features as one float matrix, labels as int32.
 *
 * Two sources: IDX files (MNIST, Fashion-MNIST; see idx.h), decoded once and then read from
 * the decoded-dataset cache (data_cache.h) into private memory, and a seeded synthetic generator of Gaussian
 * clusters, which needs no files and is what the tests and quick scenarios use.  A dataset
 * can also be a view of a contiguous range of rows of another one (train/validation splits,
 * per-worker shards) without copying.
 *
 * A loaded dataset is read-only: nothing writes to it after loading (every model and backend
 * function takes const pointers).  It never depends on a file after loading: x and y are
 * this process's own memory, whatever happens to the files or the cache meanwhile. */
#ifndef SGDSIM_MODELS_DATASET_H
#define SGDSIM_MODELS_DATASET_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "common/error.h"
#include "models/data_cache.h"

/* IDX label files with a label of this value or more are rejected: the datasets we read are
 * 10-class, and a larger "label" almost always means the wrong file (e.g. an image file
 * passed as labels). */
#define DATASET_IDX_MAX_CLASSES 10

typedef struct sgd_dataset {
    int64_t n;   /* number of samples */
    int dim;     /* features per sample */
    int classes; /* number of classes, >= 2 */
    float *x;    /* n x dim, row-major; read-only */
    int32_t *y;  /* n labels in [0, classes); read-only */
    bool owns;   /* true: x and y are heap memory owned and freed by dataset_free; false: a view */
} sgd_dataset_t;

/* Which of the two files of dataset_load_idx an error is about. */
typedef enum {
    DATASET_FILE_NONE,   /* no error */
    DATASET_FILE_IMAGES, /* the images file (unreadable, not IDX, wrong shape) */
    DATASET_FILE_LABELS, /* the labels file (unreadable, not IDX, wrong shape, count, value) */
} dataset_file_t;

/* Loads images (n, rows, cols) -- any IDX file with 2..4 dimensions, the first being the
 * sample count -- and labels (n) from IDX files, plain or .gz.  Pixels are scaled to [0, 1]
 * by /255.  The counts must match and every label must be < DATASET_IDX_MAX_CLASSES; classes
 * = max label + 1, at least 2.  Returns 0, or -1 with a message naming the offending file
 * (*out is then empty) and, when `failed` is not NULL, which file it is (a count mismatch
 * is the labels' fault: they are checked against the images).  On success the caller owns
 * *out and frees it with dataset_free. */
int dataset_load_idx(const char *images_path, const char *labels_path, sgd_dataset_t *out,
                     dataset_file_t *failed, sgd_err_t *err);

/* The same through the decoded-dataset cache c (NULL: no cache, as dataset_load_idx): each
 * file's decoded values are read from its cache entry when a valid one exists (c->hits
 * counts them) or are decoded and stored.  The same bits either way; the same
 * errors, for the same files.  A cache problem is never an error (data_cache.h). */
int dataset_load_idx_cached(const char *images_path, const char *labels_path, dcache_t *c,
                            sgd_dataset_t *out, dataset_file_t *failed, sgd_err_t *err);

/* Fills *out (owned; free with dataset_free) with n samples of `dim` features in `classes`
 * Gaussian clusters.  Draws from r in this fixed order, so the same generator state always
 * gives the same dataset: first the class means, class by class, each coordinate
 * separation * N(0,1); then sample by sample, the label uniform in [0, classes), then dim
 * coordinates mean[label][j] + N(0,1).  n >= 1, dim >= 1, classes >= 2 (asserted). */
void dataset_synthetic(int64_t n, int dim, int classes, double separation, gsl_rng *r,
                       sgd_dataset_t *out);

/* Makes *view describe rows [first, first + count) of src, sharing its memory (owns = false).
 * The view is valid while src lives; dataset_free on it only clears it.  The range must lie
 * inside src (asserted). */
void dataset_view(const sgd_dataset_t *src, int64_t first, int64_t count, sgd_dataset_t *view);

/* Frees the arrays if d owns them, then zeroes *d.  Safe on a
 * zeroed dataset. */
void dataset_free(sgd_dataset_t *d);

#endif
