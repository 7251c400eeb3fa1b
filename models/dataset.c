/* Dataset loading (through the decoded-dataset cache, data_cache.h), synthetic generation and
 * views (see dataset.h). */
#include "models/dataset.h"

#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

/* Images with 2.. dimensions; *dim = values per image. */
static int check_images(const char *images_path, const dcache_array_t *img, int64_t *dim,
                        sgd_err_t *err)
{
    if (img->ndims < 2)
        return sgd_errf(err, "%s: images must have 2 to %d dimensions (samples first), got %d",
                        images_path, IDX_MAX_DIMS, img->ndims);
    *dim = 1;
    for (int i = 1; i < img->ndims; i++) *dim *= img->dims[i]; /* <= 2^31 elements in all */
    if (*dim > INT32_MAX)
        return sgd_errf(err, "%s: %lld features per sample is too many", images_path,
                        (long long)*dim);
    return 0;
}

/* One label per image. */
static int check_label_shape(const char *images_path, const dcache_array_t *img,
                             const char *labels_path, const dcache_array_t *lab, sgd_err_t *err)
{
    if (lab->ndims != 1)
        return sgd_errf(err, "%s: labels must have 1 dimension, got %d", labels_path,
                        lab->ndims);
    if (img->dims[0] != lab->dims[0])
        return sgd_errf(err, "%s: %lld label%s, but %s has %lld image%s", labels_path,
                        (long long)lab->dims[0], lab->dims[0] == 1 ? "" : "s", images_path,
                        (long long)img->dims[0], img->dims[0] == 1 ? "" : "s");
    return 0;
}

/* Every label < DATASET_IDX_MAX_CLASSES; *classes = max label + 1, at least 2. */
static int check_labels(const char *labels_path, const int32_t *y, int64_t n, int *classes,
                        sgd_err_t *err)
{
    int32_t maxlab = 0;
    for (int64_t i = 0; i < n; i++) {
        if (y[i] >= DATASET_IDX_MAX_CLASSES)
            return sgd_errf(err, "%s: label %lld is %d: labels must be < %d", labels_path,
                            (long long)i, (int)y[i], DATASET_IDX_MAX_CLASSES);
        if (y[i] > maxlab) maxlab = y[i];
    }
    *classes = maxlab + 1 < 2 ? 2 : (int)maxlab + 1;
    return 0;
}

int dataset_load_idx_cached(const char *images_path, const char *labels_path, dcache_t *c,
                            sgd_dataset_t *out, dataset_file_t *failed, sgd_err_t *err)
{
    memset(out, 0, sizeof *out);
    dcache_array_t img = {0}, lab = {0};
    int64_t dim = 0;
    int classes = 0, rc = -1;
    dataset_file_t bad = DATASET_FILE_IMAGES;
    if (dcache_load_idx(c, images_path, DCACHE_F32, &img, err) == 0 &&
        check_images(images_path, &img, &dim, err) == 0) {
        /* The labels are checked against the images, so a mismatch is the labels' fault. */
        bad = DATASET_FILE_LABELS;
        if (dcache_load_idx(c, labels_path, DCACHE_I32, &lab, err) == 0 &&
            check_label_shape(images_path, &img, labels_path, &lab, err) == 0 &&
            check_labels(labels_path, lab.data, lab.dims[0], &classes, err) == 0)
            bad = DATASET_FILE_NONE;
    }
    if (bad == DATASET_FILE_NONE) {
        *out = (sgd_dataset_t){.n = img.dims[0], .dim = (int)dim, .classes = classes,
                               .x = img.data, .y = lab.data, .owns = true};
        memset(&img, 0, sizeof img);
        memset(&lab, 0, sizeof lab);
        rc = 0;
    }
    if (failed) *failed = bad;
    dcache_array_free(&img);
    dcache_array_free(&lab);
    return rc;
}

int dataset_load_idx(const char *images_path, const char *labels_path, sgd_dataset_t *out,
                     dataset_file_t *failed, sgd_err_t *err)
{
    return dataset_load_idx_cached(images_path, labels_path, NULL, out, failed, err);
}

void dataset_synthetic(int64_t n, int dim, int classes, double separation, gsl_rng *r,
                       sgd_dataset_t *out)
{
    SGD_ASSERT(n >= 1 && dim >= 1 && classes >= 2 && r);
    memset(out, 0, sizeof *out);
    double *means = sgd_xmalloc((size_t)classes * (size_t)dim * sizeof *means);
    for (int64_t k = 0; k < (int64_t)classes * dim; k++)
        means[k] = separation * gsl_ran_gaussian(r, 1.0);

    out->n = n;
    out->dim = dim;
    out->classes = classes;
    out->x = sgd_xmalloc((size_t)n * (size_t)dim * sizeof *out->x);
    out->y = sgd_xmalloc((size_t)n * sizeof *out->y);
    out->owns = true;
    for (int64_t i = 0; i < n; i++) {
        int32_t c = (int32_t)gsl_rng_uniform_int(r, (unsigned long)classes);
        out->y[i] = c;
        const double *mu = means + (size_t)c * (size_t)dim;
        float *xi = out->x + (size_t)i * (size_t)dim;
        for (int j = 0; j < dim; j++) xi[j] = (float)(mu[j] + gsl_ran_gaussian(r, 1.0));
    }
    free(means);
}

void dataset_view(const sgd_dataset_t *src, int64_t first, int64_t count, sgd_dataset_t *view)
{
    SGD_ASSERT(first >= 0 && count >= 0 && first + count <= src->n);
    /* A compound literal, so view may alias src. */
    *view = (sgd_dataset_t){.n = count, .dim = src->dim, .classes = src->classes,
                            .x = src->x + (size_t)first * (size_t)src->dim,
                            .y = src->y + first};
}

void dataset_free(sgd_dataset_t *d)
{
    if (d->owns) {
        free(d->x);
        free(d->y);
    }
    memset(d, 0, sizeof *d);
}
