/* A slab of equal-sized blocks (slab.h): how big each chunk is, the kernel calls that map and
 * populate it, and the free list.  Under AddressSanitizer, blocks not handed out (given back,
 * or never taken yet) are poisoned, so a use after sgd_slab_give is still reported. */
#include "common/slab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"

#if defined(__linux__)
#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#define SLAB_MMAP 1
#else
#define SLAB_MMAP 0
#endif

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLAB_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(SLAB_ASAN)
#define SLAB_ASAN 1
#endif
#ifdef SLAB_ASAN
#include <sanitizer/asan_interface.h>
#define SLAB_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define SLAB_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define SLAB_POISON(p, n) ((void)(p), (void)(n))
#define SLAB_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define HUGE_PAGE ((size_t)2 << 20)
#define FIRST_CHUNK_MIN ((size_t)64 << 10)
#define DEFRAG_FILE "/sys/kernel/mm/transparent_hugepage/defrag"

struct sgd_slab_chunk {
    sgd_slab_chunk_t *next;
    unsigned char *base;    /* first block; what unmap_chunk releases */
    size_t bytes;
};

static size_t round_up(size_t n, size_t unit)
{
    return (n + unit - 1) / unit * unit;
}

/* ---- the huge-page rule ------------------------------------------------------------------ */

bool sgd_slab_defrag_allows_huge(const char *defrag)
{
    if (!defrag) return false;
    const char *open = strchr(defrag, '[');
    const char *close = open ? strchr(open, ']') : NULL;
    if (!close) return false;
    size_t len = (size_t)(close - open - 1);
    return len == 5 && (strncmp(open + 1, "defer", 5) == 0 || strncmp(open + 1, "never", 5) == 0);
}

#if SLAB_MMAP
static bool huge_allowed;
static pthread_once_t huge_once = PTHREAD_ONCE_INIT;

static void read_defrag_file(void)
{
    FILE *f = fopen(DEFRAG_FILE, "r");
    if (!f) return; /* no transparent huge pages in this kernel, or /sys not mounted */
    char text[256];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    huge_allowed = sgd_slab_defrag_allows_huge(text);
}

bool sgd_slab_huge_pages(void)
{
    pthread_once(&huge_once, read_defrag_file);
    return huge_allowed;
}
#else
bool sgd_slab_huge_pages(void)
{
    return false;
}
#endif

/* ---- chunks ------------------------------------------------------------------------------ */

#if SLAB_MMAP
/* bytes (a multiple of 2 MiB) at a 2 MiB boundary, so that the kernel can back all of it with
 * huge pages: map 2 MiB more and unmap what lies outside the boundaries. */
static unsigned char *map_huge_aligned(size_t bytes)
{
    size_t len = bytes + HUGE_PAGE;
    unsigned char *raw = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                              -1, 0);
    if (raw == MAP_FAILED) return NULL;
    unsigned char *p = (unsigned char *)round_up((uintptr_t)raw, HUGE_PAGE);
    size_t head = (size_t)(p - raw), tail = len - head - bytes;
    if (head) munmap(raw, head);
    if (tail) munmap(p + bytes, tail);
    return p;
}

/* A chunk of bytes (whole pages; whole 2 MiB pages when huge), its pages filled in one call:
 * MAP_POPULATE, or for huge pages the hint first and then MADV_POPULATE_WRITE (Linux 5.14;
 * an older kernel leaves them to first touch). */
static unsigned char *map_chunk(sgd_slab_t *s, size_t bytes, bool huge)
{
    unsigned char *p;
    if (!huge) {
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (p == MAP_FAILED) p = NULL;
        else s->populated++;
    } else {
        p = map_huge_aligned(bytes);
        if (p && madvise(p, bytes, MADV_HUGEPAGE) == 0) s->huge++;
#ifdef MADV_POPULATE_WRITE /* headers older than Linux 5.14 lack it: first touch then */
        if (p && madvise(p, bytes, MADV_POPULATE_WRITE) == 0) s->populated++;
#endif
    }
    if (!p) sgd_die(__FILE__, __LINE__, "out of memory (a slab chunk of %zu bytes)", bytes);
    return p;
}

static void unmap_chunk(sgd_slab_chunk_t *c)
{
    munmap(c->base, c->bytes);
}

static size_t page_size(void)
{
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? (size_t)page : 4096;
}
#else
static unsigned char *map_chunk(sgd_slab_t *s, size_t bytes, bool huge)
{
    (void)s;
    (void)huge;
    unsigned char *p = aligned_alloc(SGD_SLAB_ALIGN, bytes);
    if (!p) sgd_die(__FILE__, __LINE__, "out of memory (a slab chunk of %zu bytes)", bytes);
    return p;
}

static void unmap_chunk(sgd_slab_chunk_t *c)
{
    free(c->base);
}

static size_t page_size(void)
{
    return 4096;
}
#endif

/* The next chunk: the whole blocks that fit in next_bytes (at least one), in whole pages --
 * whole huge pages where they are allowed and the chunk is big enough -- and the chunk after
 * it twice as big. */
static void add_chunk(sgd_slab_t *s)
{
    size_t blocks = s->next_bytes / s->block;
    size_t want = (blocks ? blocks : 1) * s->block;
    bool huge = s->hugepages && want >= HUGE_PAGE;
    size_t bytes = round_up(want, huge ? HUGE_PAGE : page_size());
    sgd_slab_chunk_t *c = sgd_xmalloc(sizeof *c);
    c->base = map_chunk(s, bytes, huge);
    c->bytes = bytes;
    c->next = s->chunks;
    s->chunks = c;
    s->nchunks++;
    s->mapped += bytes;
    blocks = bytes / s->block;
    s->capacity += blocks;
    s->carve = c->base;
    s->carve_end = c->base + blocks * s->block;
    SLAB_POISON(c->base, bytes);
    s->next_bytes = s->next_bytes > SGD_SLAB_MAX_CHUNK / 2 ? SGD_SLAB_MAX_CHUNK
                                                          : 2 * s->next_bytes;
}

/* ---- blocks ------------------------------------------------------------------------------ */

void sgd_slab_init(sgd_slab_t *s, size_t block_bytes)
{
    SGD_ASSERT(block_bytes > 0 && block_bytes <= SIZE_MAX / (4 * SGD_SLAB_FIRST_BLOCKS));
    memset(s, 0, sizeof *s);
    s->block = round_up(block_bytes, SGD_SLAB_ALIGN);
    s->hugepages = sgd_slab_huge_pages();
    size_t first = SGD_SLAB_FIRST_BLOCKS * s->block;
    if (first < FIRST_CHUNK_MIN) first = FIRST_CHUNK_MIN;
    s->next_bytes = first < SGD_SLAB_MAX_CHUNK ? first : SGD_SLAB_MAX_CHUNK;
}

void sgd_slab_free(sgd_slab_t *s)
{
    for (sgd_slab_chunk_t *c = s->chunks, *next; c; c = next) {
        next = c->next;
        SLAB_UNPOISON(c->base, c->bytes);
        unmap_chunk(c);
        free(c);
    }
    if (s->block) /* else zeroed already: freed before, or by its owner's own reset */
        sgd_slab_init(s, s->block);
}

void *sgd_slab_take(sgd_slab_t *s)
{
    unsigned char *b = s->free_list;
    if (b) {
        SLAB_UNPOISON(b, s->block);
        memcpy(&s->free_list, b, sizeof s->free_list);
        s->nfree--;
        return b;
    }
    if (s->carve == s->carve_end) add_chunk(s);
    b = s->carve;
    s->carve += s->block;
    s->carved++;
    SLAB_UNPOISON(b, s->block);
    return b;
}

/* Whether b is the start of a block of one of s's chunks. */
static bool owns(const sgd_slab_t *s, const void *b)
{
    uintptr_t at = (uintptr_t)b;
    for (const sgd_slab_chunk_t *c = s->chunks; c; c = c->next) {
        uintptr_t base = (uintptr_t)c->base;
        if (at >= base && at < base + c->bytes / s->block * s->block)
            return (at - base) % s->block == 0;
    }
    return false;
}

void sgd_slab_give(sgd_slab_t *s, void *block)
{
    SGD_ASSERT(block && owns(s, block));
    memcpy(block, &s->free_list, sizeof s->free_list);
    s->free_list = block;
    s->nfree++;
    SLAB_POISON(block, s->block);
}
