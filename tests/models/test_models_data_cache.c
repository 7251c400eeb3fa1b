/* The decoded-dataset cache (models/data_cache.h) through dataset_load_idx_cached: a miss
 * then a hit give the same bits as decoding (memcmp against byte / 255.0f); the entry is
 * keyed by the source's content; every kind of damaged or mismatching entry is detected,
 * named and rebuilt; what is not a regular file at an entry's path is never waited on,
 * followed or read, and an entry changed after a load changes nothing for it.  Its settings,
 * directories and concurrent writers: test_models_data_cache_dirs.c.  Scratch files live in a
 * fresh temporary directory (data_cache_fixture.h). */
#include "tests/models/data_cache_fixture.h"

static void test_miss_then_hit(void)
{
    char *dir = keep_path("cache/a/b"); /* parents made too */
    FILE *w = tmpfile();
    dcache_t c;
    dcache_init(&c, true, dir, w);
    bool mapped = true;
    load_and_check(&c, &mapped);
    CHECK(!mapped); /* a miss returns the decoded heap arrays */
    CHECK_INT_EQ(c.stores, 2);
    CHECK_INT_EQ(c.hits, 0);
    int entries, temps;
    CHECK_INT_EQ(count_files(dir, &entries, &temps), 2);
    CHECK_INT_EQ(entries, 2);
    load_and_check(&c, &mapped);
    CHECK(mapped);
    CHECK_INT_EQ(c.hits, 2);
    CHECK_INT_EQ(c.stores, 2);
    CHECK_INT_EQ(c.rejected, 0);
    /* The uncached load agrees too (both equal the reference). */
    dcache_t off;
    dcache_init(&off, false, dir, w);
    load_and_check(&off, &mapped);
    CHECK(!mapped);
    dcache_free(&off);
    char *said = drain(w);
    CHECK_STR_EQ(said, "");
    free(said);
    fclose(w);
    dcache_free(&c);
    free(dir);
}

/* A copy of the source elsewhere finds the same entry; other content, another one. */
static void test_keyed_by_content(void)
{
    dcache_t c;
    dcache_init(&c, true, path_of("cache/a/b"), NULL);
    size_t n;
    uint8_t *b = check_read_file(path_of("img.gz"), &n);
    spit(path_of("copy.gz"), b, n);
    char *e1 = dcache_entry_path(&c, path_of("img.gz"), DCACHE_F32);
    char *e2 = dcache_entry_path(&c, path_of("copy.gz"), DCACHE_F32);
    CHECK_STR_EQ(e1, e2);
    dcache_array_t a;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(dcache_load_idx(&c, path_of("copy.gz"), DCACHE_F32, &a, &err), 0);
    CHECK_INT_EQ(c.hits, 1);
    CHECK(a.data != NULL);
    dcache_array_free(&a);
    b[n - 9] ^= 1; /* the gzip trailer's CRC: other bytes, another entry */
    spit(path_of("copy.gz"), b, n);
    char *e3 = dcache_entry_path(&c, path_of("copy.gz"), DCACHE_F32);
    CHECK(e3 && strcmp(e1, e3) != 0);
    char *e4 = dcache_entry_path(&c, path_of("img.gz"), DCACHE_I32);
    CHECK(e4 && strcmp(e1, e4) != 0); /* the type is part of the key */
    free(e1), free(e2), free(e3), free(e4), free(b);
    unlink(path_of("copy.gz"));
    dcache_free(&c);
}

/* ---- damaged entries ------------------------------------------------------------------- */

typedef enum { FLIP, PATCH, TRUNCATE, REPLACE } damage_kind_t;

typedef struct damage {
    const char *what;
    damage_kind_t kind;
    size_t offset; /* FLIP: byte to flip (from the payload's start when >= 128); PATCH: where */
    uint32_t value; /* PATCH: the uint32 written; TRUNCATE: the new length (0: one byte less);
                       REPLACE: 0 = by the labels' entry, 1 = by the images' int32 entry */
    const char *why; /* expected reason */
} damage_t;

static void apply(const damage_t *d, const char *entry, const uint8_t *good, size_t n,
                  const char *const others[2])
{
    uint8_t *b = malloc(n);
    memcpy(b, good, n);
    if (d->kind == FLIP) {
        b[d->offset] ^= 0x40;
        spit(entry, b, n);
    } else if (d->kind == PATCH) {
        memcpy(b + d->offset, &d->value, sizeof d->value);
        spit(entry, b, n);
    } else if (d->kind == TRUNCATE) {
        spit(entry, b, d->value ? d->value : n - 1);
    } else {
        size_t m;
        uint8_t *o = check_read_file(others[d->value], &m);
        spit(entry, o, m);
        free(o);
    }
    free(b);
}

/* Each damage is detected with its reason, the images are decoded again, and the entry is
 * rewritten byte for byte as it was. */
static void test_damaged_entries_are_rebuilt(void)
{
    static const damage_t cases[] = {
        {"a payload byte flipped", FLIP, 128 + 1000, 0, "payload checksum mismatch"},
        {"the last payload byte flipped", FLIP, 0, 0, "payload checksum mismatch"},
        {"one byte cut off", TRUNCATE, 0, 0, "(truncated?)"},
        {"cut inside the header", TRUNCATE, 0, 100, "shorter than the header"},
        {"one byte long", TRUNCATE, 0, 1, "shorter than the header"},
        {"wrong magic", FLIP, 3, 0, "bad magic"},
        {"wrong version", PATCH, 8, DCACHE_VERSION + 1, "format version 2, this sgdsim reads 1"},
        {"other byte order", PATCH, 16, 0x04030201, "another byte order"},
        {"a dimension changed", FLIP, 40, 0, "header checksum mismatch"},
        {"another source's entry", REPLACE, 0, 0, "made from another source file"},
        {"another type's entry", REPLACE, 0, 1, "holds element type 2, not 1"},
    };
    char *dir = keep_path("cache/a/b");
    dcache_t c;
    dcache_init(&c, true, dir, NULL);
    char *entry = dcache_entry_path(&c, path_of("img.gz"), DCACHE_F32);
    char *others[2] = {dcache_entry_path(&c, path_of("lab"), DCACHE_I32),
                       dcache_entry_path(&c, path_of("img.gz"), DCACHE_I32)};
    dcache_array_t a;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(dcache_load_idx(&c, path_of("img.gz"), DCACHE_I32, &a, &err), 0);
    dcache_array_free(&a);
    dcache_free(&c);
    size_t n;
    uint8_t *good = check_read_file(entry, &n);
    CHECK_INT_EQ(n, DCACHE_HEADER_BYTES + sizeof(float) * N * ROWS * COLS);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        damage_t d = cases[k];
        if (d.kind == FLIP && d.offset == 0) d.offset = n - 1;
        apply(&d, entry, good, n, (const char *const *)others);
        FILE *w = tmpfile();
        dcache_init(&c, true, dir, w);
        bool mapped;
        load_and_check(&c, &mapped);
        if (c.rejected != 1 || !strstr(c.why, d.why))
            fprintf(stderr, "case \"%s\": rejected %lld, why \"%s\"\n", d.what,
                    (long long)c.rejected, c.why);
        CHECK_INT_EQ(c.rejected, 1);
        CHECK_STR_CONTAINS(c.why, d.why);
        CHECK_INT_EQ(c.stores, 1); /* the images rebuilt; the labels were a hit */
        CHECK_INT_EQ(c.hits, 1);
        char *said = drain(w);
        CHECK_STR_CONTAINS(said, "rebuilding it");
        CHECK_INT_EQ(count_lines(said), 1);
        free(said);
        fclose(w);
        size_t m;
        uint8_t *now = check_read_file(entry, &m);
        CHECK(m == n && memcmp(now, good, n) == 0);
        free(now);
        dcache_free(&c);
    }
    free(good), free(entry), free(others[0]), free(others[1]), free(dir);
}

/* ---- what lies at an entry's path ----------------------------------------------------- */

typedef enum { AT_FIFO, AT_SYMLINK, AT_DIR } odd_kind_t;

/* Puts a FIFO, a symbolic link to a valid copy of the entry, or a directory at the entry's
 * path.  None may be waited on, followed or read: each is rejected with its reason; the FIFO
 * and the link are replaced by the rebuilt entry, the directory stays (the store fails, with
 * a warning).  An alarm ends the test if a load waits on the FIFO. */
static void test_entry_not_regular(void)
{
    static const struct {
        odd_kind_t kind;
        const char *why;
        bool replaced;
    } cases[] = {
        {AT_FIFO, "a FIFO, not a regular file", true},
        {AT_SYMLINK, "a symbolic link, not followed", true},
        {AT_DIR, "a directory, not a regular file", false},
    };
    char *dir = keep_path("cache/odd");
    dcache_t c;
    dcache_init(&c, true, dir, NULL);
    bool hit;
    load_and_check(&c, &hit); /* builds both entries */
    char *entry = dcache_entry_path(&c, path_of("img.gz"), DCACHE_F32);
    char *copy = keep_path("entry-copy");
    size_t n;
    uint8_t *good = check_read_file(entry, &n);
    spit(copy, good, n);
    dcache_free(&c);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        unlink(entry);
        int made = cases[k].kind == AT_FIFO      ? mkfifo(entry, 0600)
                   : cases[k].kind == AT_SYMLINK ? symlink(copy, entry)
                                                 : mkdir(entry, 0700);
        CHECK_INT_EQ(made, 0);
        FILE *w = tmpfile();
        dcache_init(&c, true, dir, w);
        alarm(20);
        load_and_check(&c, &hit);
        alarm(0);
        CHECK_INT_EQ(c.rejected, 1);
        char *said = drain(w);
        CHECK_STR_CONTAINS(said, cases[k].why);
        if (!cases[k].replaced) CHECK_STR_CONTAINS(said, "Is a directory; data is loaded without");
        free(said);
        struct stat st;
        CHECK(lstat(entry, &st) == 0);
        CHECK(cases[k].replaced ? S_ISREG(st.st_mode) : S_ISDIR(st.st_mode));
        if (cases[k].replaced) {
            size_t m;
            uint8_t *now = check_read_file(entry, &m);
            CHECK(m == n && memcmp(now, good, n) == 0);
            free(now);
        } else {
            rmdir(entry);
        }
        fclose(w);
        dcache_free(&c);
    }
    unlink(copy);
    free(good), free(copy), free(entry), free(dir);
}

/* A hit's values are the process's own: the entry cut short, rewritten in place with other
 * values, or deleted after the load changes nothing (a mapping would fault, SIGBUS, or see
 * the new bytes). */
static void test_entry_changed_after_load(void)
{
    char *dir = keep_path("cache/changed");
    dcache_t c;
    dcache_init(&c, true, dir, NULL);
    bool hit;
    load_and_check(&c, &hit);
    char *entry = dcache_entry_path(&c, path_of("img.gz"), DCACHE_F32);
    size_t n;
    uint8_t *good = check_read_file(entry, &n);
    for (int change = 0; change < 3; change++) {
        sgd_dataset_t d;
        sgd_err_t err = {{0}};
        int64_t hits = c.hits;
        CHECK_INT_EQ(dataset_load_idx_cached(path_of("img.gz"), path_of("lab"), &c, &d, NULL,
                                             &err), 0);
        CHECK_INT_EQ(c.hits, hits + 2);
        if (change == 0) {
            CHECK_INT_EQ(truncate(entry, 64), 0);
        } else if (change == 1) {
            uint8_t *other = malloc(n);
            memcpy(other, good, DCACHE_HEADER_BYTES);
            memset(other + DCACHE_HEADER_BYTES, 0x3f, n - DCACHE_HEADER_BYTES);
            int fd = open(entry, O_WRONLY);
            CHECK(fd >= 0 && pwrite(fd, other, n, 0) == (ssize_t)n);
            close(fd);
            free(other);
        } else {
            CHECK_INT_EQ(unlink(entry), 0);
        }
        check_same(&d); /* every value read again after the change */
        dataset_free(&d);
        spit(entry, good, n);
    }
    dcache_free(&c);
    free(good), free(entry), free(dir);
}

int main(void)
{
    if (fixture_begin()) return 1;
    test_miss_then_hit();
    test_keyed_by_content();
    test_damaged_entries_are_rebuilt();
    test_entry_not_regular();
    test_entry_changed_after_load();
    fixture_end();
    return check_exit();
}
