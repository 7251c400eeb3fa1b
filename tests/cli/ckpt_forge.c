/* A test helper, not a test: changes one field of a checkpoint file and reseals it (writes
 * its SHA-256 afresh), as anyone can -- the CLI tests hand such files to `run --resume`.
 *
 *   ckpt_forge IN OUT header-updates N      the header's update count
 *   ckpt_forge IN OUT event TYPE entity N   the first pending event of TYPE: its entity
 *   ckpt_forge IN OUT first-vtime N         the runner's time of update 1 (ns)
 *   ckpt_forge IN OUT param I nan           parameter I becomes NaN
 *
 * Exit 0 when OUT was written, 1 when IN cannot be read or has no such field. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/ckpt_file.h"
#include "tests/algorithms/ckpt_forge.h"

static int forge(sgd_ckpt_meta_t *m, uint8_t *p, size_t n, int argc, char **argv)
{
    forge_layout_t l;
    if (!forge_layout(p, n, &l)) return -1;
    const char *op = argv[0];
    if (strcmp(op, "header-updates") == 0 && argc == 2) {
        m->updates = strtoll(argv[1], NULL, 10);
    } else if (strcmp(op, "event") == 0 && argc == 4 && strcmp(argv[2], "entity") == 0) {
        int64_t e = forge_event(p, &l, argv[1], 0);
        if (e < 0) return -1;
        forge_put(p, forge_event_at(&l, e, FORGE_EV_ENTITY), strtoull(argv[3], NULL, 10));
    } else if (strcmp(op, "first-vtime") == 0 && argc == 2) {
        forge_put(p, l.books + FORGE_FIRST_VTIME, (uint64_t)strtoll(argv[1], NULL, 10));
    } else if (strcmp(op, "param") == 0 && argc == 3 && strcmp(argv[2], "nan") == 0) {
        size_t at = l.params + 4 * strtoull(argv[1], NULL, 10);
        if (at + 4 > n) return -1;
        forge_put_f32(p, at, NAN);
    } else {
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: ckpt_forge IN OUT OP ARGS...\n");
        return 1;
    }
    sgd_ckpt_meta_t m;
    uint8_t *file;
    const uint8_t *payload;
    size_t n;
    sgd_err_t err = {{0}};
    if (sgd_ckpt_read(argv[1], &m, &file, &payload, &n, &err)) {
        fprintf(stderr, "ckpt_forge: %s\n", err.msg);
        return 1;
    }
    uint8_t *p = sgd_xmalloc(n ? n : 1);
    memcpy(p, payload, n);
    int rc = forge(&m, p, n, argc - 3, argv + 3);
    if (rc) fprintf(stderr, "ckpt_forge: %s: no such field to change\n", argv[1]);
    else if ((rc = sgd_ckpt_write(argv[2], &m, p, n, &err)))
        fprintf(stderr, "ckpt_forge: %s\n", err.msg);
    free(p);
    free(file);
    return rc ? 1 : 0;
}
