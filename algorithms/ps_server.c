/* Versioned parameters with shared, reference-counted snapshots (see ps_server.h). */
#include "algorithms/ps_server.h"

#include <stdlib.h>
#include <string.h>

#include "algorithms/alg.h"
#include "common/error.h"

/* A snapshot's block: its header, then its data at the next 64-byte boundary. */
#define PS_SNAP_HEADER \
    ((sizeof(ps_snap_t) + SGD_SLAB_ALIGN - 1) / SGD_SLAB_ALIGN * SGD_SLAB_ALIGN)

void ps_server_init(ps_server_t *s, float *params, size_t nparams)
{
    memset(s, 0, sizeof *s);
    s->params = params;
    s->nparams = nparams;
    sgd_slab_init(&s->snaps, PS_SNAP_HEADER + nparams * sizeof(float));
}

/* The snapshot's last holder left: it stops counting as live; its block goes back to the slab
 * (the next snapshot's) when unpinned. */
static void snap_destroy(ps_server_t *s, ps_snap_t *p)
{
    s->live--;
    if (p->pins > 0)
        p->dead = true;
    else
        sgd_slab_give(&s->snaps, p);
}

void ps_server_free(ps_server_t *s)
{
    for (int64_t i = s->unfilled_head; i < s->nunfilled; i++) ps_snap_unpin(s, s->unfilled[i]);
    free(s->unfilled);
    if (s->current && s->current->refs == 0) snap_destroy(s, s->current);
    s->current = NULL;
    sgd_slab_free(&s->snaps);
    ps_hist_free(&s->tau);
    ps_hist_free(&s->age);
    memset(s, 0, sizeof *s);
}

ps_snap_t *ps_server_snapshot(ps_server_t *s)
{
    if (!s->current) {
        ps_snap_t *p = sgd_slab_take(&s->snaps);
        p->version = s->version;
        p->refs = 0;
        p->pins = 0;
        p->dead = false;
        p->data = (float *)((unsigned char *)p + PS_SNAP_HEADER);
        if (s->applied == s->version) {
            memcpy(p->data, s->params, s->nparams * sizeof *p->data);
        } else { /* the parameters lag behind the schedule: copy them when they get here */
            if (s->nunfilled == s->unfilled_cap) {
                s->unfilled_cap = s->unfilled_cap ? 2 * s->unfilled_cap : 16;
                s->unfilled = sgd_xrealloc(s->unfilled,
                                           (size_t)s->unfilled_cap * sizeof *s->unfilled);
            }
            s->unfilled[s->nunfilled++] = p;
            p->pins = 1;
        }
        s->current = p;
        if (++s->live > s->peak_live) s->peak_live = s->live;
    }
    s->current->refs++;
    return s->current;
}

ps_snap_t *ps_snap_ref(ps_snap_t *p)
{
    SGD_ASSERT(p && p->refs > 0);
    p->refs++;
    return p;
}

void ps_snap_release(ps_server_t *s, ps_snap_t *p)
{
    SGD_ASSERT(p && p->refs > 0);
    /* The current version's snapshot stays cached at zero references: the next fetch of the
     * same version would only copy the same bytes again. */
    if (--p->refs == 0 && p != s->current) snap_destroy(s, p);
}

void ps_snap_pin(ps_snap_t *p)
{
    SGD_ASSERT(p && !p->dead);
    p->pins++;
}

void ps_snap_unpin(ps_server_t *s, ps_snap_t *p)
{
    SGD_ASSERT(p && p->pins > 0);
    if (--p->pins == 0 && p->dead) sgd_slab_give(&s->snaps, p);
}

/* Holders gone and no scheduled gradient on it: nobody will read it. */
static bool unread(const ps_snap_t *p)
{
    return p->dead && p->pins == 1;
}

float *ps_server_next_fill(const ps_server_t *s)
{
    if (s->unfilled_head == s->nunfilled) return NULL;
    ps_snap_t *p = s->unfilled[s->unfilled_head];
    return p->version == s->applied + 1 && !unread(p) ? p->data : NULL;
}

void ps_server_applied_filled(ps_server_t *s, const float *filled)
{
    SGD_ASSERT(s->applied < s->version);
    s->applied++;
    while (s->unfilled_head < s->nunfilled &&
           s->unfilled[s->unfilled_head]->version == s->applied) {
        ps_snap_t *p = s->unfilled[s->unfilled_head++];
        if (!unread(p) && p->data != filled)
            memcpy(p->data, s->params, s->nparams * sizeof *p->data);
        ps_snap_unpin(s, p);
    }
    if (s->unfilled_head == s->nunfilled) s->unfilled_head = s->nunfilled = 0;
}

void ps_server_applied(ps_server_t *s)
{
    ps_server_applied_filled(s, NULL);
}

void ps_server_bump(ps_server_t *s)
{
    s->version++;
    if (s->current && s->current->refs == 0) snap_destroy(s, s->current);
    s->current = NULL;
}

void ps_server_record(ps_server_t *s, int64_t tau, int64_t age)
{
    ps_hist_add(&s->tau, tau);
    ps_hist_add(&s->age, age);
}

void ps_hist_add(ps_hist_t *h, int64_t x)
{
    SGD_ASSERT(x >= 0);
    if (x >= h->len) {
        int64_t len = h->len ? h->len : 64;
        while (len <= x) len *= 2;
        h->bins = sgd_xrealloc(h->bins, (size_t)len * sizeof *h->bins);
        memset(h->bins + h->len, 0, (size_t)(len - h->len) * sizeof *h->bins);
        h->len = len;
    }
    h->bins[x]++;
    h->n++;
    h->sum += (double)x;
}

int64_t ps_hist_quantile(const ps_hist_t *h, double q)
{
    if (h->n == 0) return -1;
    /* ceil(q * n) values at or below the answer, computed in integers past the product. */
    double want_d = q * (double)h->n;
    int64_t want = (int64_t)want_d;
    if ((double)want < want_d) want++;
    if (want < 1) want = 1;
    int64_t seen = 0;
    for (int64_t x = 0; x < h->len; x++) {
        seen += h->bins[x];
        if (seen >= want) return x;
    }
    return h->len - 1;
}

double ps_hist_mean(const ps_hist_t *h)
{
    return h->n ? h->sum / (double)h->n : 0.0;
}

void ps_hist_free(ps_hist_t *h)
{
    free(h->bins);
    memset(h, 0, sizeof *h);
}

/* ---- checkpoints ----------------------------------------------------------------------- */

/* A histogram as its non-empty bins (value, count), its count and sum: its length follows
 * from its largest value as it did when the values were added. */
static void hist_save(const ps_hist_t *h, sgd_ckw_t *w)
{
    uint64_t used = 0;
    for (int64_t x = 0; x < h->len; x++) used += h->bins[x] != 0;
    sgd_ckw_u64(w, used);
    for (int64_t x = 0; x < h->len; x++)
        if (h->bins[x]) {
            sgd_ckw_i64(w, x);
            sgd_ckw_i64(w, h->bins[x]);
        }
    sgd_ckw_i64(w, h->n);
    sgd_ckw_f64(w, h->sum);
}

/* Values are staleness or ages: at most the server's version. */
static void hist_restore(ps_hist_t *h, int64_t max, sgd_ckr_t *r)
{
    uint64_t used = sgd_ckr_count(r, (uint64_t)max + 1, "histogram bins");
    int64_t total = 0, last = -1;
    for (uint64_t i = 0; i < used && !r->failed; i++) {
        int64_t x = sgd_ckr_i64(r), count = sgd_ckr_i64(r);
        if (r->failed) break;
        if (x <= last || x > max || count <= 0 || count > INT64_MAX - total) {
            sgd_ckr_fail(r, "histogram: bin %lld of %lld out of order or range", (long long)x,
                         (long long)count);
            break;
        }
        sgd_err_t err = {{0}};
        if (alg_check_memory("histogram", 16.0 * (double)x, &err)) {
            sgd_ckr_fail(r, "%s", err.msg);
            break;
        }
        ps_hist_add(h, x); /* grows the bins as the run did */
        h->bins[x] = count;
        total += count;
        last = x;
    }
    h->n = sgd_ckr_i64(r);
    h->sum = sgd_ckr_f64(r);
    if (!r->failed && h->n != total)
        sgd_ckr_fail(r, "histogram: %lld values saved, its bins hold %lld", (long long)h->n,
                     (long long)total);
}

static void traffic_save(const ps_traffic_t *t, sgd_ckw_t *w)
{
    sgd_ckw_u64(w, t->sent_msgs);
    sgd_ckw_u64(w, t->sent_bytes);
    sgd_ckw_u64(w, t->skipped_msgs);
    sgd_ckw_u64(w, t->skipped_bytes);
}

static void traffic_restore(ps_traffic_t *t, sgd_ckr_t *r)
{
    t->sent_msgs = sgd_ckr_u64(r);
    t->sent_bytes = sgd_ckr_u64(r);
    t->skipped_msgs = sgd_ckr_u64(r);
    t->skipped_bytes = sgd_ckr_u64(r);
}

void ps_server_save(const ps_server_t *s, sgd_ckw_t *w)
{
    SGD_ASSERT(s->applied == s->version && s->unfilled_head == s->nunfilled);
    sgd_ckw_tag(w, "server");
    sgd_ckw_i64(w, s->version);
    sgd_ckw_i64(w, s->peak_live);
    hist_save(&s->tau, w);
    hist_save(&s->age, w);
    traffic_save(&s->fetch, w);
    traffic_save(&s->push, w);
}

int ps_server_restore(ps_server_t *s, int64_t updates, sgd_ckr_t *r)
{
    SGD_ASSERT(s->version == 0 && s->live == 0 && !s->current);
    sgd_ckr_tag(r, "server");
    int64_t version = sgd_ckr_i64(r), peak = sgd_ckr_i64(r);
    if (!r->failed && (version != updates || peak < 0))
        return sgd_ckr_fail(r, "server: version %lld after %lld updates, snapshot peak %lld",
                            (long long)version, (long long)updates, (long long)peak);
    s->version = s->applied = version;
    s->peak_live = peak;
    hist_restore(&s->tau, version, r);
    hist_restore(&s->age, version, r);
    traffic_restore(&s->fetch, r);
    traffic_restore(&s->push, r);
    return r->failed ? -1 : 0;
}

ps_snap_t *ps_server_revive(ps_server_t *s, int64_t version)
{
    SGD_ASSERT(version >= 0 && version <= s->version);
    ps_snap_t *p = sgd_slab_take(&s->snaps);
    *p = (ps_snap_t){.version = version,
                     .data = (float *)((unsigned char *)p + PS_SNAP_HEADER)};
    if (version == s->version) s->current = p;
    if (++s->live > s->peak_live) s->peak_live = s->live;
    return p;
}

ps_snap_t *ps_snap_hold(ps_snap_t *p)
{
    p->refs++;
    return p;
}
