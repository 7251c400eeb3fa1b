/* Loads the real Fashion-MNIST test set installed by the Debian package dataset-fashion-mnist
 * and checks its shape and label balance.  Exits 77 (CTest: skipped) when the files are not
 * installed, so the suite passes on machines without the package. */
#include <unistd.h>

#include "models/dataset.h"
#include "tests/check.h"

#define DIR "/usr/share/datasets/fashion-mnist/"

int main(void)
{
    const char *img = DIR "t10k-images-idx3-ubyte.gz", *lab = DIR "t10k-labels-idx1-ubyte.gz";
    if (access(img, R_OK) != 0 || access(lab, R_OK) != 0) {
        printf("skipped: %s or %s not found (apt-get install dataset-fashion-mnist)\n", img, lab);
        return 77;
    }
    sgd_dataset_t d;
    sgd_err_t err = {{0}};
    int rc = dataset_load_idx(img, lab, &d, NULL, &err);
    if (rc != 0) fprintf(stderr, "%s\n", err.msg);
    CHECK_INT_EQ(rc, 0);
    if (rc != 0) return check_exit();
    CHECK_INT_EQ(d.n, 10000);
    CHECK_INT_EQ(d.dim, 784);
    CHECK_INT_EQ(d.classes, 10);
    int count[10] = {0};
    for (int64_t i = 0; i < d.n; i++) count[d.y[i]]++;
    for (int k = 0; k < 10; k++) CHECK_INT_EQ(count[k], 1000); /* the test set is balanced */
    float lo = 1, hi = 0;
    double sum = 0;
    for (int64_t i = 0; i < d.n * d.dim; i++) {
        lo = d.x[i] < lo ? d.x[i] : lo;
        hi = d.x[i] > hi ? d.x[i] : hi;
        sum += d.x[i];
    }
    CHECK(lo == 0.0f && hi == 1.0f);
    printf("fashion-mnist t10k: %lld x %d, %d classes, mean pixel %.4f\n", (long long)d.n, d.dim,
           d.classes, sum / (double)(d.n * d.dim));
    dataset_free(&d);
    return check_exit();
}
