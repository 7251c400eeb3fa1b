/* A per-run arena (arena.h): aligned blocks carved in bump order.  Small requests share
 * SGD_ARENA_BLOCK-sized blocks; a large one (over a quarter of that) gets a block of its own,
 * linked behind the newest so that the small ones keep filling it. */
#include "common/arena.h"

#include <stdint.h>
#include <stdlib.h>

#include "common/error.h"

#define SGD_ARENA_ALIGN 64
#define SGD_ARENA_BLOCK ((size_t)64 << 10)

struct sgd_arena_block {
    sgd_arena_block_t *next;
    unsigned char *data;     /* the first 64-byte boundary after the header */
    size_t size, used;       /* bytes at data */
};

void sgd_arena_init(sgd_arena_t *a)
{
    a->head = NULL;
    a->bytes = 0;
}

void sgd_arena_free(sgd_arena_t *a)
{
    for (sgd_arena_block_t *b = a->head, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    sgd_arena_init(a);
}

/* Blocks come from calloc: memory fresh from the system is zero already (large blocks are
 * mapped pages that nothing touches until they are used), and a block is never reused, so
 * no array needs clearing. */
static sgd_arena_block_t *new_block(size_t size)
{
    size_t total = sizeof(sgd_arena_block_t) + SGD_ARENA_ALIGN + size;
    sgd_arena_block_t *b = calloc(1, total);
    if (!b) sgd_die(__FILE__, __LINE__, "out of memory (%zu bytes for the run's arena)", total);
    uintptr_t at = (uintptr_t)(b + 1);
    at = (at + SGD_ARENA_ALIGN - 1) / SGD_ARENA_ALIGN * SGD_ARENA_ALIGN;
    b->data = (unsigned char *)at;
    b->size = size;
    return b;
}

void *sgd_arena_alloc(sgd_arena_t *a, size_t n, size_t elem)
{
    if (elem != 0 && n > (SIZE_MAX / 2) / elem)
        sgd_die(__FILE__, __LINE__, "arena request of %zu x %zu bytes overflows", n, elem);
    size_t bytes = (n * elem + SGD_ARENA_ALIGN - 1) / SGD_ARENA_ALIGN * SGD_ARENA_ALIGN;
    if (bytes == 0) bytes = SGD_ARENA_ALIGN;
    sgd_arena_block_t *b = a->head;
    if (bytes > SGD_ARENA_BLOCK / 4) {
        b = new_block(bytes);
        if (a->head) {
            b->next = a->head->next;
            a->head->next = b;
        } else {
            a->head = b;
        }
    } else if (!b || b->size - b->used < bytes) {
        b = new_block(SGD_ARENA_BLOCK);
        b->next = a->head;
        a->head = b;
    }
    unsigned char *p = b->data + b->used;
    b->used += bytes;
    a->bytes += bytes;
    return p;
}
