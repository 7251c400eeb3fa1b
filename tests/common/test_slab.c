/* The slab of equal-sized blocks (common/slab.h): blocks are 64-byte aligned, disjoint and
 * zero when fresh; a block given back is the next one taken; chunks double up to 64 MiB (one
 * block where a block is larger); populated chunks take no page faults when first written;
 * huge-page chunks sit on 2 MiB boundaries; sgd_slab_free returns every chunk to the system;
 * the huge-page rule reads the defrag file's selected mode; a foreign pointer is refused. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/slab.h"
#include "tests/check.h"

#define MIB ((size_t)1 << 20)
#define NBLOCKS 200

static size_t page(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

/* A slab with exactly the chunk sizes of slab.h's rule for small pages, whatever this host's
 * huge-page setting. */
static void init_small_pages(sgd_slab_t *s, size_t block)
{
    sgd_slab_init(s, block);
    s->hugepages = false;
}

static void blocks_are_aligned_disjoint_zero_and_keep_their_contents(void)
{
    sgd_slab_t s;
    init_small_pages(&s, 1000);
    CHECK_INT_EQ(s.block, 1024);
    CHECK_INT_EQ(s.nchunks, 0); /* nothing mapped before the first take */
    static unsigned char *b[NBLOCKS];
    for (int i = 0; i < NBLOCKS; i++) {
        b[i] = sgd_slab_take(&s);
        CHECK_INT_EQ((uintptr_t)b[i] % 64, 0);
        size_t nonzero = 0;
        for (size_t k = 0; k < s.block; k++) nonzero += b[i][k] != 0;
        CHECK_INT_EQ(nonzero, 0);
        memset(b[i], i + 1, s.block);
    }
    size_t wrong = 0, overlaps = 0;
    for (int i = 0; i < NBLOCKS; i++) {
        for (size_t k = 0; k < s.block; k++) wrong += b[i][k] != (unsigned char)(i + 1);
        for (int j = 0; j < i; j++)
            overlaps += !(b[i] + s.block <= b[j] || b[j] + s.block <= b[i]);
    }
    CHECK_INT_EQ(wrong, 0);
    CHECK_INT_EQ(overlaps, 0);
    CHECK_INT_EQ(s.carved, NBLOCKS);
    sgd_slab_free(&s);
}

static void a_block_given_back_is_the_next_one_taken(void)
{
    sgd_slab_t s;
    init_small_pages(&s, 4096);
    void *a = sgd_slab_take(&s), *b = sgd_slab_take(&s), *c = sgd_slab_take(&s);
    size_t mapped = s.mapped;
    sgd_slab_give(&s, a);
    sgd_slab_give(&s, c);
    sgd_slab_give(&s, b);
    CHECK_INT_EQ(s.nfree, 3);
    CHECK(sgd_slab_take(&s) == b); /* the latest given back first */
    CHECK(sgd_slab_take(&s) == c);
    CHECK(sgd_slab_take(&s) == a);
    CHECK_INT_EQ(s.nfree, 0);
    CHECK_INT_EQ(s.carved, 3);     /* reuse carves nothing ... */
    CHECK_INT_EQ(s.mapped, mapped); /* ... and maps nothing */
    void *d = sgd_slab_take(&s);
    CHECK(d != a && d != b && d != c);
    CHECK_INT_EQ(s.carved, 4);
    /* A churn of take/give around a steady number held carves one block, then reuses it. */
    for (int i = 0; i < 1000; i++) {
        void *x = sgd_slab_take(&s);
        sgd_slab_give(&s, x);
    }
    CHECK_INT_EQ(s.carved, 5);
    CHECK_INT_EQ(s.nfree, 1);
    CHECK_INT_EQ(s.mapped, mapped);
    sgd_slab_free(&s);
}

/* Takes blocks until the slab has `chunks` chunks; the capacity it had before each new one in
 * before[]. */
static void take_until_chunks(sgd_slab_t *s, size_t chunks, size_t *before)
{
    while (s->nchunks < chunks) {
        size_t had = s->nchunks, cap = s->capacity;
        (void)sgd_slab_take(s);
        if (s->nchunks > had) before[had] = cap;
    }
}

static void chunks_double_from_a_few_blocks_up_to_64_mib(void)
{
    /* 1 KiB blocks: the first chunk is the 64 KiB minimum, then 128, 256, 512 KiB, 1 MiB. */
    sgd_slab_t s;
    init_small_pages(&s, 1024);
    size_t before[5];
    take_until_chunks(&s, 5, before);
    CHECK_INT_EQ(before[1], 64);
    CHECK_INT_EQ(before[2], 64 + 128);
    CHECK_INT_EQ(before[4], 64 + 128 + 256 + 512);
    CHECK_INT_EQ(s.mapped, (64 + 128 + 256 + 512 + 1024) * 1024);
    sgd_slab_free(&s);

    /* 13 MiB blocks: 4 in the first chunk (52 MiB); doubled would be 104 MiB, over the 64 MiB
     * ceiling, so the second holds the 4 blocks that fit in it. */
    init_small_pages(&s, 13 * MIB);
    take_until_chunks(&s, 2, before);
    CHECK_INT_EQ(before[1], 4);
    CHECK_INT_EQ(s.capacity, 8);
    CHECK_INT_EQ(s.mapped, 104 * MIB);
    sgd_slab_free(&s);

    /* A block over the ceiling: one block a chunk, in whole pages. */
    init_small_pages(&s, SGD_SLAB_MAX_CHUNK + 64);
    take_until_chunks(&s, 2, before);
    CHECK_INT_EQ(before[1], 1);
    CHECK_INT_EQ(s.capacity, 2);
    CHECK_INT_EQ(s.mapped, 2 * (SGD_SLAB_MAX_CHUNK + page()));
    sgd_slab_free(&s);
}

static long minor_faults(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt;
}

/* Writes every block of a fresh chunk; returns the minor page faults that took. */
static long faults_writing_a_chunk(sgd_slab_t *s)
{
    unsigned char *first = sgd_slab_take(s);
    size_t n = s->capacity;
    long f0 = minor_faults();
    memset(first, 1, s->block);
    for (size_t i = 1; i < n; i++) memset(sgd_slab_take(s), 1, s->block);
    return minor_faults() - f0;
}

/* How many of the pages of [p, p + bytes) (page-aligned) are in memory. */
static size_t resident_pages(void *p, size_t bytes)
{
    size_t n = bytes / page(), in = 0;
    unsigned char *vec = calloc(n, 1);
    if (!vec || mincore(p, bytes, vec) != 0) {
        free(vec);
        return 0;
    }
    for (size_t i = 0; i < n; i++) in += vec[i] & 1;
    free(vec);
    return in;
}

static void populated_chunks_take_no_faults_when_written(void)
{
    sgd_slab_t s;
    init_small_pages(&s, MIB); /* one 4 MiB chunk: 1024 pages of 4 KiB */
    long faults = faults_writing_a_chunk(&s);
    CHECK_INT_EQ(s.nchunks, 1);
    CHECK_INT_EQ(s.populated, 1); /* MAP_POPULATE */
    CHECK(faults < (long)(s.mapped / page() / 8));
    sgd_slab_free(&s);
}

static void huge_page_chunks_are_2_mib_aligned(void)
{
    sgd_slab_t s;
    sgd_slab_init(&s, MIB + 1); /* rounded up to MiB + 64: 4 blocks want 4 MiB + 256 bytes */
    s.hugepages = true;
    unsigned char *first = sgd_slab_take(&s);
    CHECK_INT_EQ((uintptr_t)first % (2 * MIB), 0);
    CHECK_INT_EQ(s.mapped, 6 * MIB); /* whole huge pages */
    CHECK_INT_EQ(s.capacity, 5);
    /* Without transparent huge pages in the kernel the hint is refused, which is harmless. */
    if (access("/sys/kernel/mm/transparent_hugepage", F_OK) == 0) CHECK_INT_EQ(s.huge, 1);
    /* MADV_POPULATE_WRITE (Linux 5.14 and later): every page is there before anything is
     * written (a huge page would take one fault per 2 MiB, so faults cannot tell). */
    if (s.populated == 1) CHECK_INT_EQ(resident_pages(first, s.mapped), s.mapped / page());
    /* A chunk under 2 MiB gets no huge page and plain page rounding. */
    sgd_slab_t small;
    sgd_slab_init(&small, 1000);
    small.hugepages = true;
    (void)sgd_slab_take(&small);
    CHECK_INT_EQ(small.huge, 0);
    CHECK_INT_EQ(small.mapped, 64 * 1024);
    sgd_slab_free(&small);
    sgd_slab_free(&s);
}

/* This process's mapped size in pages (first field of /proc/self/statm). */
static long mapped_pages(void)
{
    long size = -1;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld", &size) != 1) size = -1;
        fclose(f);
    }
    return size;
}

static void free_returns_every_chunk(void)
{
    sgd_slab_t s;
    init_small_pages(&s, 300 * 1024);
    for (int i = 0; i < 40; i++) {
        void *b = sgd_slab_take(&s);
        if (i % 3 == 0) sgd_slab_give(&s, b); /* given back or not: all released */
    }
    size_t mapped = s.mapped, block = s.block;
    CHECK(s.nchunks >= 3);
    long before = mapped_pages();
    sgd_slab_free(&s);
    long after = mapped_pages();
    CHECK(before > 0 && after > 0);
    CHECK((before - after) * (long)page() >= (long)mapped);
    CHECK_INT_EQ(s.nchunks, 0);
    CHECK_INT_EQ(s.mapped, 0);
    CHECK_INT_EQ(s.capacity, 0);
    CHECK_INT_EQ(s.nfree, 0);
    CHECK(s.free_list == NULL && s.chunks == NULL);
    CHECK_INT_EQ(s.block, block);
    sgd_slab_free(&s); /* twice: harmless */
    void *again = sgd_slab_take(&s); /* and usable again, from scratch */
    CHECK(again != NULL);
    CHECK_INT_EQ(s.carved, 1);
    sgd_slab_free(&s);
    sgd_slab_t zeroed;
    memset(&zeroed, 0, sizeof zeroed);
    sgd_slab_free(&zeroed); /* as after its owner's reset */
    CHECK_INT_EQ(zeroed.block, 0);
}

static void the_huge_page_rule_reads_the_selected_defrag_mode(void)
{
    CHECK(sgd_slab_defrag_allows_huge("always defer defer+madvise madvise [never]\n"));
    CHECK(sgd_slab_defrag_allows_huge("always [defer] defer+madvise madvise never\n"));
    CHECK(!sgd_slab_defrag_allows_huge("always defer defer+madvise [madvise] never\n"));
    CHECK(!sgd_slab_defrag_allows_huge("always defer [defer+madvise] madvise never\n"));
    CHECK(!sgd_slab_defrag_allows_huge("[always] defer defer+madvise madvise never\n"));
    CHECK(!sgd_slab_defrag_allows_huge("defer never"));   /* nothing selected */
    CHECK(!sgd_slab_defrag_allows_huge("[defer"));
    CHECK(!sgd_slab_defrag_allows_huge(""));
    CHECK(!sgd_slab_defrag_allows_huge(NULL));            /* no file */
    /* This process follows the rule on this host's file. */
    char text[256] = "";
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/defrag", "r");
    if (f) {
        size_t n = fread(text, 1, sizeof text - 1, f);
        text[n] = '\0';
        fclose(f);
    }
    CHECK(sgd_slab_huge_pages() == sgd_slab_defrag_allows_huge(f ? text : NULL));
    sgd_slab_t s;
    sgd_slab_init(&s, 64);
    CHECK(s.hugepages == sgd_slab_huge_pages());
    sgd_slab_free(&s);
}

/* Whether giving back p (not one of the slab's blocks) aborts, in a child process. */
static bool give_aborts(size_t offset)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stderr)) _exit(3);
        sgd_slab_t s;
        init_small_pages(&s, 1024);
        unsigned char *b = sgd_slab_take(&s);
        sgd_slab_give(&s, offset ? b + offset : (void *)&s);
        _exit(0);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) return false;
    return WIFSIGNALED(status);
}

static void a_pointer_that_is_not_a_block_is_refused(void)
{
    CHECK(give_aborts(0));  /* not in any chunk */
    CHECK(give_aborts(64)); /* inside a block, not at its start */
}

int main(void)
{
    blocks_are_aligned_disjoint_zero_and_keep_their_contents();
    a_block_given_back_is_the_next_one_taken();
    chunks_double_from_a_few_blocks_up_to_64_mib();
    populated_chunks_take_no_faults_when_written();
    huge_page_chunks_are_2_mib_aligned();
    free_returns_every_chunk();
    the_huge_page_rule_reads_the_selected_defrag_mode();
    a_pointer_that_is_not_a_block_is_refused();
    return check_exit();
}
