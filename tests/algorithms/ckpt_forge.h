/* Rewriting fields of a checkpoint's payload, for the tests that hand the reader hostile
 * input the way anyone can make it: change a value, then reseal the file (its SHA-256 only
 * proves that it was not damaged by accident).  The first sections -- the engine and the
 * runner's books -- are walked by their layout (sim/engine.c, algorithms/runner_ckpt.c);
 * later ones are found by their section tag (common/ckbuf.h: a u64 length and the name).
 * Used by test_checkpoint_hostile.c and the CLI tests' ckpt_forge tool. */
#ifndef SGDSIM_TESTS_ALGORITHMS_CKPT_FORGE_H
#define SGDSIM_TESTS_ALGORITHMS_CKPT_FORGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t forge_get(const uint8_t *p, size_t off)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[off + (size_t)i] << (8 * i);
    return v;
}

static inline void forge_put(uint8_t *p, size_t off, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[off + (size_t)i] = (uint8_t)(v >> (8 * i));
}

static inline void forge_put_f64(uint8_t *p, size_t off, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    forge_put(p, off, u);
}

static inline void forge_put_f32(uint8_t *p, size_t off, float v)
{
    memcpy(p + off, &v, sizeof v);
}

/* The offset just past the first section tag `tag` at or after `from`, or 0. */
static inline size_t forge_find_tag(const uint8_t *p, size_t n, const char *tag, size_t from)
{
    size_t len = strlen(tag);
    for (size_t i = from; i + 8 + len <= n; i++)
        if (forge_get(p, i) == len && memcmp(p + i + 8, tag, len) == 0) return i + 8 + len;
    return 0;
}

/* Where the engine's and the runner's fields are. */
typedef struct forge_layout {
    size_t now;       /* i64 virtual time, then u64 next seq, processed, scheduled, peak */
    size_t events;    /* the first pending event: t, seq, type, entity, arg (40 bytes each) */
    uint64_t nevents;
    char types[64][64]; /* event type names by id */
    uint64_t ntypes;
    size_t books;     /* the runner's fields after its digest (FORGE_* offsets) */
    size_t params;    /* the first parameter (float) */
} forge_layout_t;

/* Offsets from forge_layout_t.books. */
enum {
    FORGE_LAST_EVAL = 0,
    FORGE_LAST_VTIME = 8,
    FORGE_FIRST_VTIME = 16,
    FORGE_TRAIN_LOSS = 24,
    FORGE_UPDATES = 32,
    FORGE_EVENTS_AT_STOP = 40,
};

/* Offsets within a pending event. */
enum { FORGE_EV_TIME = 0, FORGE_EV_SEQ = 8, FORGE_EV_TYPE = 16, FORGE_EV_ENTITY = 24 };

/* Walks the engine section and the runner's books; false when the payload is not laid out
 * as expected. */
static inline bool forge_layout(const uint8_t *p, size_t n, forge_layout_t *l)
{
    memset(l, 0, sizeof *l);
    size_t at = forge_find_tag(p, n, "engine", 0);
    if (!at || at + 8 > n) return false;
    l->ntypes = forge_get(p, at);
    at += 8;
    for (uint64_t i = 0; i < l->ntypes; i++) {
        uint64_t len = forge_get(p, at);
        if (i >= 64 || len >= 64 || at + 8 + len > n) return false;
        memcpy(l->types[i], p + at + 8, len);
        at += 8 + len;
    }
    l->now = at;
    l->nevents = forge_get(p, at + 40);
    l->events = at + 48;
    size_t books = forge_find_tag(p, n, "runner", l->events + 40 * l->nevents);
    if (!books) return false;
    l->books = books + 8 * 8 + 8 + 8 + 64 + 8; /* the digest: h, nbytes, block, nblock */
    l->params = l->books + 80 + 8;             /* ... counters, parameter count, length */
    return l->params <= n;
}

/* The index of the first pending event of type `name` (skip: how many of them to pass
 * over), or -1. */
static inline int64_t forge_event(const uint8_t *p, const forge_layout_t *l, const char *name,
                                  int skip)
{
    for (uint64_t i = 0; i < l->nevents; i++) {
        uint64_t type = forge_get(p, l->events + 40 * i + FORGE_EV_TYPE);
        if (type < l->ntypes && strcmp(l->types[type], name) == 0 && skip-- == 0)
            return (int64_t)i;
    }
    return -1;
}

static inline size_t forge_event_at(const forge_layout_t *l, int64_t i, size_t field)
{
    return l->events + 40 * (size_t)i + field;
}

#endif
