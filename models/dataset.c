/* Dataset loading, synthetic generation and views (see dataset.h). */
#include "models/dataset.h"

#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "models/idx.h"

/* Checks the labels against the images' sample count and the class limit; *maxlab gets
 * the largest label. */
static int check_labels(const idx_array_t *img, const idx_array_t *lab, const char *images_path,
                        const char *labels_path, int *maxlab, sgd_err_t *err)
{
    if (lab->ndims != 1)
        return sgd_errf(err, "%s: labels must have 1 dimension, got %d", labels_path,
                        lab->ndims);
    if (img->dims[0] != lab->dims[0])
        return sgd_errf(err, "%s: %lld labels, but %s has %lld images", labels_path,
                        (long long)lab->dims[0], images_path, (long long)img->dims[0]);
    *maxlab = 0;
    for (int64_t i = 0; i < lab->dims[0]; i++) {
        if (lab->data[i] >= DATASET_IDX_MAX_CLASSES)
            return sgd_errf(err, "%s: label %lld is %d: labels must be < %d", labels_path,
                            (long long)i, lab->data[i], DATASET_IDX_MAX_CLASSES);
        if (lab->data[i] > *maxlab) *maxlab = lab->data[i];
    }
    return 0;
}

/* Reads the images file and checks its shape; *dim gets the features per sample. */
static int read_images(const char *images_path, idx_array_t *img, int64_t *dim, sgd_err_t *err)
{
    if (idx_read_u8(images_path, img, err) != 0) return -1;
    if (img->ndims < 2)
        return sgd_errf(err, "%s: images must have 2 to %d dimensions (samples first), got %d",
                        images_path, IDX_MAX_DIMS, img->ndims);
    *dim = idx_array_size(img) / img->dims[0]; /* <= 2^31 total elements, so dim fits */
    if (*dim > INT32_MAX)
        return sgd_errf(err, "%s: %lld features per sample is too many", images_path,
                        (long long)*dim);
    return 0;
}

int dataset_load_idx(const char *images_path, const char *labels_path, sgd_dataset_t *out,
                     dataset_file_t *failed, sgd_err_t *err)
{
    memset(out, 0, sizeof *out);
    idx_array_t img = {0}, lab = {0};
    dataset_file_t bad = DATASET_FILE_IMAGES;
    int64_t dim = 0;
    int maxlab = 0, rc = -1;

    if (read_images(images_path, &img, &dim, err)) goto done;
    bad = DATASET_FILE_LABELS;
    if (idx_read_u8(labels_path, &lab, err) != 0 ||
        check_labels(&img, &lab, images_path, labels_path, &maxlab, err))
        goto done;
    bad = DATASET_FILE_NONE;

    int64_t n = img.dims[0];
    out->n = n;
    out->dim = (int)dim;
    out->classes = maxlab + 1 < 2 ? 2 : maxlab + 1;
    out->x = sgd_xmalloc((size_t)(n * dim) * sizeof *out->x);
    out->y = sgd_xmalloc((size_t)n * sizeof *out->y);
    out->owns = true;
    for (int64_t i = 0; i < n * dim; i++) out->x[i] = (float)img.data[i] / 255.0f;
    for (int64_t i = 0; i < n; i++) out->y[i] = lab.data[i];
    rc = 0;
done:
    if (failed) *failed = bad;
    idx_array_free(&img);
    idx_array_free(&lab);
    return rc;
}

void dataset_synthetic(int64_t n, int dim, int classes, double separation, gsl_rng *r,
                       sgd_dataset_t *out)
{
    SGD_ASSERT(n >= 1 && dim >= 1 && classes >= 2 && r);
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
    view->n = count;
    view->dim = src->dim;
    view->classes = src->classes;
    view->x = src->x + (size_t)first * (size_t)src->dim;
    view->y = src->y + first;
    view->owns = false;
}

void dataset_free(sgd_dataset_t *d)
{
    if (d->owns) {
        free(d->x);
        free(d->y);
    }
    memset(d, 0, sizeof *d);
}
