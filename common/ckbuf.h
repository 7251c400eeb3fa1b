/* The byte streams of a checkpoint: a growable writer and a bounds-checked reader of
 * little-endian integers, doubles (their exact bits), byte strings and section tags.
 *
 * Every layer saves its own state through these (sim/engine.c its queue, sim/rng.c its
 * streams, the algorithms theirs), so the checkpoint container (common/ckpt_file.h) never
 * learns what it carries.  A section tag is a short name written before a part's state:
 * a reader that finds another tag than it expects stops with a message naming both, so a
 * checkpoint of another build's layout is refused, not misread.
 *
 * The reader never trusts what it reads: any read past the end, a length larger than what
 * is left, a tag that differs, marks the reader failed (sticky; every later read returns
 * zeros) with a message in r->why, which callers check once after reading a part
 * (sgd_ckr_failed).  It allocates nothing.
 *
 * Ownership: sgd_ckw_t owns its buffer (sgd_ckw_free); sgd_ckr_t borrows the bytes it reads. */
#ifndef SGDSIM_COMMON_CKBUF_H
#define SGDSIM_COMMON_CKBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

typedef struct sgd_ckw {
    uint8_t *buf;
    size_t len, cap;
} sgd_ckw_t;

void sgd_ckw_init(sgd_ckw_t *w);
/* An empty writer over buf (cap bytes, from malloc; NULL with cap 0 is an empty writer),
 * which it now owns: a buffer kept from an earlier checkpoint, whose memory the process has
 * already touched. */
void sgd_ckw_adopt(sgd_ckw_t *w, void *buf, size_t cap);
void sgd_ckw_free(sgd_ckw_t *w);
void sgd_ckw_u64(sgd_ckw_t *w, uint64_t v);
void sgd_ckw_i64(sgd_ckw_t *w, int64_t v);
void sgd_ckw_f64(sgd_ckw_t *w, double v);
/* n bytes as they are, without a length (a magic number, a closing digest). */
void sgd_ckw_raw(sgd_ckw_t *w, const void *p, size_t n);
/* n raw bytes, preceded by n (so the reader can check it). */
void sgd_ckw_bytes(sgd_ckw_t *w, const void *p, size_t n);
/* A NUL-terminated string, as its bytes without the NUL. */
void sgd_ckw_str(sgd_ckw_t *w, const char *s);
/* A section tag (a short name, e.g. "engine"). */
void sgd_ckw_tag(sgd_ckw_t *w, const char *tag);

typedef struct sgd_ckr {
    const uint8_t *p;
    size_t len, pos;
    bool failed;
    char why[256];
} sgd_ckr_t;

void sgd_ckr_init(sgd_ckr_t *r, const void *p, size_t len);
uint64_t sgd_ckr_u64(sgd_ckr_t *r);
int64_t sgd_ckr_i64(sgd_ckr_t *r);
double sgd_ckr_f64(sgd_ckr_t *r);
/* A count stored as u64 that must be at most max (else failed, naming what). */
uint64_t sgd_ckr_count(sgd_ckr_t *r, uint64_t max, const char *what);
/* Exactly n bytes written by sgd_ckw_bytes into out (a stored length other than n fails,
 * naming what). */
void sgd_ckr_bytes(sgd_ckr_t *r, void *out, size_t n, const char *what);
/* A string of at most size - 1 bytes into out (NUL-terminated). */
void sgd_ckr_str(sgd_ckr_t *r, char *out, size_t size, const char *what);
/* Reads a tag and fails unless it is `tag`. */
void sgd_ckr_tag(sgd_ckr_t *r, const char *tag);
/* Marks the reader failed with a message (the first one is kept); returns -1. */
int sgd_ckr_fail(sgd_ckr_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* -1 with err = "WHAT: why" when the reader failed, else 0. */
int sgd_ckr_check(const sgd_ckr_t *r, const char *what, sgd_err_t *err);
/* Whether every byte was read. */
static inline bool sgd_ckr_done(const sgd_ckr_t *r) { return !r->failed && r->pos == r->len; }

#endif
