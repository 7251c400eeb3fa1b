/* FedScale's capacity file and availability trace (fedscale.h): the file read whole, parsed
 * by the data-only pickle reader, then checked field by field into flat arrays. */
#include "sim/fedscale.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/dist.h"
#include "sim/pickle.h"

/* The largest capacity value accepted (ms per sample, kbit/s): far beyond any device. */
#define CAPACITY_MAX 1e12

static int read_whole(const char *path, uint8_t **buf, size_t *len, sgd_err_t *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return sgd_errf(err, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return sgd_errf(err, "%s: not a regular file", path);
    }
    if (st.st_size > SIM_FEDSCALE_MAX_BYTES) {
        fclose(f);
        return sgd_errf(err, "%s: %lld bytes is more than the %lld a trace file may have",
                        path, (long long)st.st_size, (long long)SIM_FEDSCALE_MAX_BYTES);
    }
    *len = (size_t)st.st_size;
    *buf = sgd_xmalloc(*len ? *len : 1);
    size_t got = fread(*buf, 1, *len, f);
    int bad = ferror(f) || got != *len;
    fclose(f);
    if (bad) {
        free(*buf);
        *buf = NULL;
        return sgd_errf(err, "%s: read error", path);
    }
    return 0;
}

/* The file parsed, with its root checked to be a dict of at least one entry. */
static int load_doc(const char *path, uint8_t **buf, sim_pickle_t **doc, sgd_err_t *err)
{
    size_t len = 0;
    *doc = NULL;
    if (read_whole(path, buf, &len, err)) return -1;
    if (sim_pickle_parse(*buf, len, doc, err)) {
        free(*buf);
        *buf = NULL;
        return sgd_err_prefix(err, path);
    }
    sim_pickle_val_t root = sim_pickle_root(*doc);
    const char *why = NULL;
    if (root.type != SIM_PICKLE_DICT) why = "is not a dict of clients";
    else if (sim_pickle_count(*doc, root) == 0) why = "holds no client";
    if (why) {
        int rc = sgd_errf(err, "%s: the pickled object %s (found a %s)", path, why,
                          sim_pickle_type_name(root));
        sim_pickle_free(*doc);
        free(*buf);
        *doc = NULL;
        *buf = NULL;
        return rc;
    }
    return 0;
}

/* Entry i's key as a client id. */
static int entry_id(const char *path, const sim_pickle_t *doc, size_t i, int64_t *id,
                    sgd_err_t *err)
{
    sim_pickle_val_t k = sim_pickle_key(doc, sim_pickle_root(doc), i);
    if (k.type != SIM_PICKLE_INT)
        return sgd_errf(err, "%s: entry %zu: the key is a %s, not an int client id", path, i,
                        sim_pickle_type_name(k));
    *id = k.u.i;
    return 0;
}

/* Entry i's value, which must be a dict. */
static int entry_dict(const char *path, const sim_pickle_t *doc, size_t i, int64_t id,
                      sim_pickle_val_t *out, sgd_err_t *err)
{
    *out = sim_pickle_value(doc, sim_pickle_root(doc), i);
    if (out->type != SIM_PICKLE_DICT)
        return sgd_errf(err, "%s: client %lld: expected a dict, found a %s", path,
                        (long long)id, sim_pickle_type_name(*out));
    return 0;
}

static int as_number(sim_pickle_val_t v, double *x)
{
    if (v.type == SIM_PICKLE_INT) *x = (double)v.u.i;
    else if (v.type == SIM_PICKLE_FLOAT) *x = v.u.f;
    else return -1;
    return 0;
}

/* Field `key` of client id's dict d: a finite number in [lo, hi] (lo itself excluded when
 * lo_open). */
static int field_number(const char *path, const sim_pickle_t *doc, sim_pickle_val_t d,
                        int64_t id, const char *key, double lo, bool lo_open, double hi,
                        double *x, sgd_err_t *err)
{
    sim_pickle_val_t v;
    if (!sim_pickle_get(doc, d, key, &v))
        return sgd_errf(err, "%s: client %lld: no '%s'", path, (long long)id, key);
    if (as_number(v, x))
        return sgd_errf(err, "%s: client %lld: '%s' must be a number, found a %s", path,
                        (long long)id, key, sim_pickle_type_name(v));
    if (!isfinite(*x) || *x < lo || (lo_open && *x == lo) || *x > hi)
        return sgd_errf(err, "%s: client %lld: '%s' must be a number in %c%g, %g], got %g",
                        path, (long long)id, key, lo_open ? '(' : '[', lo, hi, *x);
    return 0;
}

static int by_value(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* ids[0..n) holds no value twice (Python would keep only the last). */
static int unique_ids(const char *path, const int64_t *ids, int64_t n, sgd_err_t *err)
{
    int64_t *sorted = sgd_xmalloc((size_t)n * sizeof *sorted);
    memcpy(sorted, ids, (size_t)n * sizeof *sorted);
    qsort(sorted, (size_t)n, sizeof *sorted, by_value);
    int rc = 0;
    for (int64_t i = 1; i < n && rc == 0; i++)
        if (sorted[i] == sorted[i - 1])
            rc = sgd_errf(err, "%s: client %lld appears twice", path, (long long)sorted[i]);
    free(sorted);
    return rc;
}

int sim_fedscale_capacity_load(const char *path, sim_fedscale_capacity_t *out, sgd_err_t *err)
{
    memset(out, 0, sizeof *out);
    uint8_t *buf;
    sim_pickle_t *doc;
    if (load_doc(path, &buf, &doc, err)) return -1;
    int64_t n = (int64_t)sim_pickle_count(doc, sim_pickle_root(doc));
    sim_fedscale_device_t *dev = sgd_xcalloc((size_t)n, sizeof *dev);
    int64_t *ids = sgd_xmalloc((size_t)n * sizeof *ids);
    int rc = 0;
    double sum = 0.0;
    for (int64_t i = 0; i < n && rc == 0; i++) {
        sim_pickle_val_t d;
        rc = entry_id(path, doc, (size_t)i, &dev[i].id, err) ||
             entry_dict(path, doc, (size_t)i, dev[i].id, &d, err) ||
             field_number(path, doc, d, dev[i].id, "computation", 0.0, true, CAPACITY_MAX,
                          &dev[i].compute_ms, err) ||
             field_number(path, doc, d, dev[i].id, "communication", 0.0, true, CAPACITY_MAX,
                          &dev[i].bandwidth_kbps, err);
        ids[i] = dev[i].id;
        sum += dev[i].compute_ms;
    }
    if (rc == 0) rc = unique_ids(path, ids, n, err);
    free(ids);
    sim_pickle_free(doc);
    free(buf);
    if (rc) {
        free(dev);
        return -1;
    }
    *out = (sim_fedscale_capacity_t){.n = n, .dev = dev, .mean_compute_ms = sum / (double)n};
    return 0;
}

void sim_fedscale_capacity_free(sim_fedscale_capacity_t *c)
{
    free(c->dev);
    memset(c, 0, sizeof *c);
}

double sim_fedscale_bytes_per_s(double bandwidth_kbps) { return bandwidth_kbps * 128.0; }

/* Field `key` of client id's dict: a list of numbers. */
static int field_list(const char *path, const sim_pickle_t *doc, sim_pickle_val_t d,
                      int64_t id, const char *key, sim_pickle_val_t *list, sgd_err_t *err)
{
    if (!sim_pickle_get(doc, d, key, list))
        return sgd_errf(err, "%s: client %lld: no '%s'", path, (long long)id, key);
    if (list->type != SIM_PICKLE_LIST)
        return sgd_errf(err, "%s: client %lld: '%s' must be a list, found a %s", path,
                        (long long)id, key, sim_pickle_type_name(*list));
    return 0;
}

/* Item j of client id's list `key`: a time in [0, period_s]. */
static int window_time(const char *path, const sim_pickle_t *doc, sim_pickle_val_t list,
                       int64_t id, const char *key, size_t j, double period_s, double *s,
                       sgd_err_t *err)
{
    sim_pickle_val_t v = sim_pickle_item(doc, list, j);
    if (as_number(v, s))
        return sgd_errf(err, "%s: client %lld: '%s'[%zu] must be a number, found a %s", path,
                        (long long)id, key, j, sim_pickle_type_name(v));
    if (!isfinite(*s) || *s < 0.0)
        return sgd_errf(err, "%s: client %lld: '%s'[%zu] = %g is not a time >= 0", path,
                        (long long)id, key, j, *s);
    if (*s > period_s)
        return sgd_errf(err, "%s: client %lld: '%s'[%zu] = %g lies beyond 'finish_time' %g",
                        path, (long long)id, key, j, *s, period_s);
    return 0;
}

/* A growable array of window bounds in ns. */
typedef struct bounds {
    int64_t *v;
    size_t n, cap;
} bounds_t;

/* Appends [a, b) ns, dropping it when empty and merging it into the previous window of the
 * same client when they touch (at or after first, the client's first bound). */
static void add_window(bounds_t *w, size_t first, int64_t a, int64_t b)
{
    if (a == b) return;
    if (w->n > first && w->v[w->n - 1] == a) {
        w->v[w->n - 1] = b;
        return;
    }
    if (w->n + 2 > w->cap) {
        w->cap = w->cap ? 2 * w->cap : 1024;
        w->v = sgd_xrealloc(w->v, w->cap * sizeof *w->v);
    }
    w->v[w->n++] = a;
    w->v[w->n++] = b;
}

/* Client id's windows, checked and appended to w. */
static int client_windows(const char *path, const sim_pickle_t *doc, sim_pickle_val_t d,
                          int64_t id, double period_s, bounds_t *w, sgd_err_t *err)
{
    sim_pickle_val_t on, off;
    if (field_list(path, doc, d, id, "active", &on, err) ||
        field_list(path, doc, d, id, "inactive", &off, err))
        return -1;
    size_t m = sim_pickle_count(doc, on);
    if (sim_pickle_count(doc, off) != m)
        return sgd_errf(err, "%s: client %lld: 'active' has %zu times but 'inactive' %zu", path,
                        (long long)id, m, sim_pickle_count(doc, off));
    size_t first = w->n;
    double prev_end = 0.0;
    for (size_t j = 0; j < m; j++) {
        double a, b;
        if (window_time(path, doc, on, id, "active", j, period_s, &a, err) ||
            window_time(path, doc, off, id, "inactive", j, period_s, &b, err))
            return -1;
        if (b < a)
            return sgd_errf(err, "%s: client %lld: window %zu ends ('inactive' %g) before it "
                                 "starts ('active' %g)", path, (long long)id, j, b, a);
        if (a < prev_end)
            return sgd_errf(err, "%s: client %lld: window %zu starts at %g, before window %zu "
                                 "ends at %g (windows must be sorted and disjoint)",
                            path, (long long)id, j, a, j - 1, prev_end);
        prev_end = b;
        add_window(w, first, sim_seconds_to_ns(a), sim_seconds_to_ns(b));
    }
    return 0;
}

int sim_fedscale_trace_load(const char *path, sim_fedscale_trace_t *out, sgd_err_t *err)
{
    memset(out, 0, sizeof *out);
    uint8_t *buf;
    sim_pickle_t *doc;
    if (load_doc(path, &buf, &doc, err)) return -1;
    int64_t n = (int64_t)sim_pickle_count(doc, sim_pickle_root(doc));
    sim_fedscale_trace_t t = {.n = n};
    t.id = sgd_xcalloc((size_t)n, sizeof *t.id);
    t.period_ns = sgd_xcalloc((size_t)n, sizeof *t.period_ns);
    t.first = sgd_xcalloc((size_t)n + 1, sizeof *t.first);
    bounds_t w = {0};
    int rc = 0;
    for (int64_t i = 0; i < n && rc == 0; i++) {
        sim_pickle_val_t d;
        double period_s = 0.0;
        rc = entry_id(path, doc, (size_t)i, &t.id[i], err) ||
             entry_dict(path, doc, (size_t)i, t.id[i], &d, err) ||
             field_number(path, doc, d, t.id[i], "finish_time", 0.0, true, SIM_VTIME_MAX_S,
                          &period_s, err) ||
             client_windows(path, doc, d, t.id[i], period_s, &w, err);
        if (rc) break;
        t.period_ns[i] = sim_seconds_to_ns(period_s);
        if (t.period_ns[i] < 1)
            rc = sgd_errf(err, "%s: client %lld: 'finish_time' %g s is under 1 ns", path,
                          (long long)t.id[i], period_s);
        t.first[i + 1] = (int64_t)(w.n / 2);
    }
    if (rc == 0) rc = unique_ids(path, t.id, n, err);
    sim_pickle_free(doc);
    free(buf);
    t.win = w.v;
    if (rc) {
        sim_fedscale_trace_free(&t);
        return -1;
    }
    *out = t;
    return 0;
}

void sim_fedscale_trace_free(sim_fedscale_trace_t *t)
{
    free(t->id);
    free(t->period_ns);
    free(t->first);
    free(t->win);
    memset(t, 0, sizeof *t);
}

/* The last of client k's windows starting at or before x (an index into win's pairs), or
 * first - 1 when none does. */
static int64_t window_at(const sim_fedscale_trace_t *t, int64_t k, int64_t x)
{
    int64_t lo = t->first[k], hi = t->first[k + 1]; /* answer in [lo - 1, hi) */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (t->win[2 * mid] <= x) lo = mid + 1;
        else hi = mid;
    }
    return lo - 1;
}

/* base + offset, at most SIM_TIME_BEYOND_NS (base <= 2^61 + 1, offset <= 2 periods < 2^62:
 * no overflow). */
static int64_t at(int64_t base, int64_t offset)
{
    int64_t s = base + offset;
    return s < SIM_TIME_BEYOND_NS ? s : SIM_TIME_BEYOND_NS;
}

bool sim_fedscale_trace_online(const sim_fedscale_trace_t *t, int64_t k, int64_t t_ns)
{
    SGD_ASSERT(k >= 0 && k < t->n && t_ns >= 0);
    int64_t x = t_ns % t->period_ns[k], j = window_at(t, k, x);
    return j >= t->first[k] && x < t->win[2 * j + 1];
}

int64_t sim_fedscale_trace_next_change(const sim_fedscale_trace_t *t, int64_t k,
                                       int64_t t_ns)
{
    SGD_ASSERT(k >= 0 && k < t->n && t_ns >= 0 && t_ns <= SIM_TIME_BEYOND_NS);
    int64_t p = t->period_ns[k], lo = t->first[k], hi = t->first[k + 1];
    if (lo == hi) return SIM_TIME_BEYOND_NS; /* never online */
    const int64_t *w = t->win;
    bool wraps = w[2 * lo] == 0 && w[2 * (hi - 1) + 1] == p; /* online across the period's end */
    if (wraps && hi - lo == 1) return SIM_TIME_BEYOND_NS;    /* always online */
    int64_t x = t_ns % p, base = t_ns - x, j = window_at(t, k, x);
    if (j >= lo && x < w[2 * j + 1]) { /* online: until the window ends */
        if (j == hi - 1 && wraps) return at(base, p + w[2 * lo + 1]);
        return at(base, w[2 * j + 1]);
    }
    if (j + 1 < hi) return at(base, w[2 * (j + 1)]); /* offline: the next window */
    return at(base, p + w[2 * lo]);
}
