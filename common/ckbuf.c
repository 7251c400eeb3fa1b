/* Checkpoint byte streams declared in ckbuf.h.  Integers are written little-endian byte by
 * byte, so a checkpoint reads the same on any host that runs the same build. */
#include "common/ckbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sgd_ckw_init(sgd_ckw_t *w) { memset(w, 0, sizeof *w); }

void sgd_ckw_adopt(sgd_ckw_t *w, void *buf, size_t cap)
{
    *w = (sgd_ckw_t){.buf = buf, .len = 0, .cap = buf ? cap : 0};
}

void sgd_ckw_free(sgd_ckw_t *w)
{
    free(w->buf);
    memset(w, 0, sizeof *w);
}

void sgd_ckw_raw(sgd_ckw_t *w, const void *p, size_t n)
{
    if (w->len + n > w->cap) {
        size_t cap = w->cap ? w->cap : 4096;
        while (cap < w->len + n) cap *= 2;
        w->buf = sgd_xrealloc(w->buf, cap);
        w->cap = cap;
    }
    if (n) memcpy(w->buf + w->len, p, n);
    w->len += n;
}

void sgd_ckw_u64(sgd_ckw_t *w, uint64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
    sgd_ckw_raw(w, b, sizeof b);
}

void sgd_ckw_i64(sgd_ckw_t *w, int64_t v) { sgd_ckw_u64(w, (uint64_t)v); }

void sgd_ckw_f64(sgd_ckw_t *w, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u); /* the exact bits: a resumed run must compute the same */
    sgd_ckw_u64(w, u);
}

void sgd_ckw_bytes(sgd_ckw_t *w, const void *p, size_t n)
{
    sgd_ckw_u64(w, (uint64_t)n);
    sgd_ckw_raw(w, p, n);
}

void sgd_ckw_str(sgd_ckw_t *w, const char *s) { sgd_ckw_bytes(w, s, strlen(s)); }

void sgd_ckw_tag(sgd_ckw_t *w, const char *tag) { sgd_ckw_str(w, tag); }

void sgd_ckr_init(sgd_ckr_t *r, const void *p, size_t len)
{
    memset(r, 0, sizeof *r);
    r->p = p;
    r->len = len;
}

int sgd_ckr_fail(sgd_ckr_t *r, const char *fmt, ...)
{
    if (r->failed) return -1;
    r->failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->why, sizeof r->why, fmt, ap);
    va_end(ap);
    return -1;
}

/* n bytes from the stream, or NULL (failed) when fewer are left. */
static const uint8_t *take(sgd_ckr_t *r, size_t n)
{
    if (r->failed) return NULL;
    if (n > r->len - r->pos) {
        sgd_ckr_fail(r, "cut short at byte %zu (%zu more expected)", r->pos, n);
        return NULL;
    }
    const uint8_t *p = r->p + r->pos;
    r->pos += n;
    return p;
}

uint64_t sgd_ckr_u64(sgd_ckr_t *r)
{
    const uint8_t *b = take(r, 8);
    if (!b) return 0;
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)b[i] << (8 * i);
    return v;
}

int64_t sgd_ckr_i64(sgd_ckr_t *r) { return (int64_t)sgd_ckr_u64(r); }

double sgd_ckr_f64(sgd_ckr_t *r)
{
    uint64_t u = sgd_ckr_u64(r);
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

uint64_t sgd_ckr_count(sgd_ckr_t *r, uint64_t max, const char *what)
{
    uint64_t v = sgd_ckr_u64(r);
    if (!r->failed && v > max) {
        sgd_ckr_fail(r, "%s: %llu, at most %llu expected", what, (unsigned long long)v,
                     (unsigned long long)max);
        return 0;
    }
    return v;
}

void sgd_ckr_bytes(sgd_ckr_t *r, void *out, size_t n, const char *what)
{
    uint64_t stored = sgd_ckr_u64(r);
    if (!r->failed && stored != n) {
        sgd_ckr_fail(r, "%s: %llu bytes stored, %zu expected", what,
                     (unsigned long long)stored, n);
        return;
    }
    const uint8_t *p = take(r, n);
    if (p && n) memcpy(out, p, n);
}

void sgd_ckr_str(sgd_ckr_t *r, char *out, size_t size, const char *what)
{
    out[0] = '\0';
    uint64_t n = sgd_ckr_count(r, size - 1, what);
    const uint8_t *p = take(r, (size_t)n);
    if (!p) return;
    memcpy(out, p, (size_t)n);
    out[n] = '\0';
    if (strlen(out) != n) sgd_ckr_fail(r, "%s: holds a NUL byte", what);
}

void sgd_ckr_tag(sgd_ckr_t *r, const char *tag)
{
    char got[64];
    sgd_ckr_str(r, got, sizeof got, "section tag");
    if (!r->failed && strcmp(got, tag) != 0)
        sgd_ckr_fail(r, "section \"%s\" found where \"%s\" was expected", got, tag);
}

int sgd_ckr_check(const sgd_ckr_t *r, const char *what, sgd_err_t *err)
{
    return r->failed ? sgd_errf(err, "%s: %s", what, r->why) : 0;
}
