/* A slab of equal-sized blocks: carved from large chunks that the kernel fills with pages in
 * one call, and reused through a free list, so that taking many blocks of fresh memory does
 * not page-fault once per 4 KiB.
 *
 * Why: the parameter server (algorithms/ps_server.c) gives every parameter version a client
 * fetches its own snapshot; with many clients the first ~lambda updates each need a buffer
 * nobody used before, and faulting those in one page at a time was about a tenth of such a
 * run (docs/performance.md, "snapshot page faults").
 *
 * Chunks.  The first holds SGD_SLAB_FIRST_BLOCKS blocks (at least 64 KiB), each further one
 * twice as many bytes as the one before, up to SGD_SLAB_MAX_CHUNK (64 MiB) or one block where
 * a block is larger: memory populated but never used stays below the newest chunk, so a small
 * model or a run with few clients maps little.  On Linux a chunk is an anonymous mapping
 * populated at once (MAP_POPULATE); a chunk of 2 MiB or more also gets MADV_HUGEPAGE, then
 * MADV_POPULATE_WRITE (plain first touch where the kernel lacks it), but only when
 * /sys/kernel/mm/transparent_hugepage/defrag selects "defer" or "never" -- there the kernel
 * never compacts memory synchronously for a huge page, which made huge pages 2.1x slower on a
 * fragmented host under "madvise".  That file is read once per process; no file, no huge
 * pages.  Elsewhere chunks come from aligned_alloc and fault in on first touch.
 *
 * Blocks are 64-byte aligned (the block size is rounded up to a multiple of 64) and never
 * move.  A block given back goes to the free list (its first bytes hold the list's link) and
 * is the next one taken; memory is not returned before sgd_slab_free, so a slab stays at the
 * peak of the blocks held at once (rounded up to its chunks).  A fresh block is zero; a
 * reused one holds whatever was left in it.  Nothing about where a block came from may
 * matter to what its user computes.
 *
 * Ownership: sgd_slab_init/sgd_slab_free on a caller-allocated sgd_slab_t; every block is
 * valid until sgd_slab_free, which releases all chunks whether their blocks were given back
 * or not.  Not thread-safe (one slab per user).  Out of memory aborts with file:line
 * (common/error.h). */
#ifndef SGDSIM_COMMON_SLAB_H
#define SGDSIM_COMMON_SLAB_H

#include <stdbool.h>
#include <stddef.h>

#define SGD_SLAB_ALIGN 64
#define SGD_SLAB_FIRST_BLOCKS 4
#define SGD_SLAB_MAX_CHUNK ((size_t)64 << 20)

typedef struct sgd_slab_chunk sgd_slab_chunk_t;

typedef struct sgd_slab {
    size_t block;              /* bytes per block: a multiple of SGD_SLAB_ALIGN */
    bool hugepages;            /* give chunks of 2 MiB or more MADV_HUGEPAGE: set by
                                  sgd_slab_init from sgd_slab_huge_pages(); a test may
                                  change it before the first take */
    size_t next_bytes;         /* bytes the next chunk asks for (before rounding) */
    sgd_slab_chunk_t *chunks;  /* newest first */
    unsigned char *carve;      /* the newest chunk's blocks never taken: carve .. carve_end */
    unsigned char *carve_end;
    void *free_list;           /* blocks given back, the latest first */
    size_t nchunks;
    size_t populated;          /* chunks whose pages the kernel filled at creation */
    size_t huge;               /* chunks given MADV_HUGEPAGE */
    size_t capacity;           /* blocks all chunks hold */
    size_t carved;             /* blocks ever taken from a chunk (not from the free list) */
    size_t nfree;              /* blocks on the free list */
    size_t mapped;             /* bytes of all chunks */
} sgd_slab_t;

/* block_bytes > 0 (asserted); maps nothing until the first sgd_slab_take. */
void sgd_slab_init(sgd_slab_t *s, size_t block_bytes);
/* Releases every chunk and leaves s as sgd_slab_init(s, block) would (freeing twice, or a
 * zeroed sgd_slab_t, is harmless). */
void sgd_slab_free(sgd_slab_t *s);

/* A block: the latest one given back, else the next one of the newest chunk, else the first
 * of a new chunk. */
void *sgd_slab_take(sgd_slab_t *s);
/* Gives back a block taken from s (its contents are lost). */
void sgd_slab_give(sgd_slab_t *s, void *block);

/* Whether this process gives chunks of 2 MiB or more MADV_HUGEPAGE (the defrag rule above;
 * false off Linux). */
bool sgd_slab_huge_pages(void);
/* The rule itself, on the text of a transparent_hugepage/defrag file (NULL: no file): true
 * when its selected mode, the one in brackets, is "defer" or "never". */
bool sgd_slab_defrag_allows_huge(const char *defrag);

#endif
