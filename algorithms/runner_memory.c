/* The memory guard of a run (alg.h): estimates compared, before anything is allocated, with
 * the memory the process may use, so that a typo such as "hidden": [200000, 200000] is an
 * input error rather than an out-of-memory abort minutes later; and the IDX headers' claims,
 * checked before a file is decoded. */
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "algorithms/alg.h"
#include "models/idx.h"

static alg_memory_observer_t memory_observer;
static void *memory_observer_ctx;

void alg_observe_memory(alg_memory_observer_t observer, void *ctx)
{
    memory_observer = observer;
    memory_observer_ctx = ctx;
}

/* The memory a run may use: physical memory, or less when the process's address space or
 * data segment is limited (ulimit -v, ulimit -d), which an allocation hits first; 0 when
 * unknown.  *which names it for a message ("... more than WHICH 4 GiB"). */
static double memory_limit(const char **which)
{
    static const struct {
        int resource;
        const char *name;
    } limits[] = {{RLIMIT_AS, "the address-space limit (ulimit -v) of"},
                  {RLIMIT_DATA, "the data-segment limit (ulimit -d) of"}};
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    double limit = pages > 0 && page > 0 ? (double)pages * (double)page : 0.0;
    *which = "this machine's";
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; i++) {
        struct rlimit r;
        if (getrlimit(limits[i].resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) continue;
        if (limit == 0 || (double)r.rlim_cur < limit) {
            limit = (double)r.rlim_cur;
            *which = limits[i].name;
        }
    }
    return limit;
}

int alg_check_memory(const char *what, double bytes, sgd_err_t *err)
{
    const char *which;
    double limit = memory_limit(&which);
    if (memory_observer) memory_observer(memory_observer_ctx, what, bytes, limit);
    if (limit > 0 && bytes > limit)
        return sgd_errf(err, "%s: needs about %.3g GiB of memory, more than %s %.3g GiB", what,
                        bytes / 1073741824.0, which, limit / 1073741824.0);
    return 0;
}

/* "2739137 images of 28 x 28", "60000 labels", "500 rows of 20 values": what an IDX header
 * claims, in a message. */
static void describe_idx(const idx_array_t *a, bool labels, char *buf, size_t n)
{
    int k = snprintf(buf, n, "%lld %s", (long long)a->dims[0],
                     a->ndims == 1 ? (labels ? "labels" : "values")
                                   : a->ndims == 2 ? "rows of" : "images of");
    for (int i = 1; i < a->ndims && k > 0 && (size_t)k < n; i++)
        k += snprintf(buf + k, n - (size_t)k, "%s%lld", i > 1 ? " x " : " ",
                      (long long)a->dims[i]);
    if (a->ndims == 2 && k > 0 && (size_t)k < n) snprintf(buf + k, n - (size_t)k, " values");
}

int alg_check_idx_memory(const scn_data_t *d, sgd_err_t *err)
{
    if (d->source != SCN_DATA_IDX) return 0;
    const struct {
        const char *key, *path;
        bool labels;
    } files[] = {{"data.train_images", d->train_images, false},
                 {"data.train_labels", d->train_labels, true},
                 {"data.test_images", d->test_images, false},
                 {"data.test_labels", d->test_labels, true}};
    const char *which;
    double limit = memory_limit(&which), decoded = 0, widest = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        idx_array_t a;
        sgd_err_t ignored = {{0}};
        /* A file that cannot be read is the load's to report, with its own message. */
        if (!files[i].path || idx_read_shape(files[i].path, &a, &ignored) != 0) continue;
        double n = (double)idx_array_size(&a);
        /* While a file is decoded its inflated bytes and its 4-byte values are both held. */
        if (limit > 0 && 5.0 * n > limit) {
            char shape[128];
            describe_idx(&a, files[i].labels, shape, sizeof shape);
            return sgd_errf(err, "%s: %s: the IDX header claims %s (%.3g GiB as %s, %.3g GiB "
                                 "while decoding), more than %s %.3g GiB",
                            files[i].key, files[i].path, shape, 4.0 * n / 1073741824.0,
                            files[i].labels ? "int32 labels" : "floats",
                            5.0 * n / 1073741824.0, which, limit / 1073741824.0);
        }
        decoded += 4.0 * n;
        if (n > widest) widest = n;
    }
    return alg_check_memory("data", decoded + widest, err);
}
