/* A per-run arena: scratch arrays that live exactly as long as one run's state, taken in
 * any number and returned all at once.
 *
 * Why: an algorithm's state holds a dozen scratch arrays sized at create time (buffers of
 * client indices, gradients, stacked minibatches).  Allocating them from one arena gives one
 * free, no per-array cleanup to forget on an error path, and 64-byte alignment for every
 * array (a cache line; what vectorised loops over them like best).
 *
 * Ownership: sgd_arena_init/sgd_arena_free on a caller-allocated sgd_arena_t; every pointer
 * sgd_arena_alloc returns stays valid (and is never moved) until sgd_arena_free.  Memory is
 * zeroed.  Out of memory and size overflow abort with file:line (common/error.h). */
#ifndef SGDSIM_COMMON_ARENA_H
#define SGDSIM_COMMON_ARENA_H

#include <stddef.h>

typedef struct sgd_arena_block sgd_arena_block_t;

typedef struct sgd_arena {
    sgd_arena_block_t *head; /* newest block first */
    size_t bytes;            /* handed out so far, padding included */
} sgd_arena_t;

void sgd_arena_init(sgd_arena_t *a);
void sgd_arena_free(sgd_arena_t *a);

/* n elements of elem bytes each, zeroed and 64-byte aligned; n = 0 gives a valid pointer. */
void *sgd_arena_alloc(sgd_arena_t *a, size_t n, size_t elem);

/* Typed form: SGD_ARENA_NEW(&arena, count, float). */
#define SGD_ARENA_NEW(a, n, type) ((type *)sgd_arena_alloc((a), (size_t)(n), sizeof(type)))

#endif
