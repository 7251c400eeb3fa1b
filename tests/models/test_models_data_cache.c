/* The decoded-dataset cache (models/data_cache.h) through dataset_load_idx_cached: a miss
 * then a hit give the same bits as decoding (memcmp against byte / 255.0f); the entry is
 * keyed by the source's content; every kind of damaged or mismatching entry is detected,
 * named and rebuilt; a disabled cache writes nothing; an unusable directory gives one
 * warning and correct data; two processes building the same entries at once leave valid
 * entries; and the directory is chosen in the documented order.  Scratch files live in a
 * fresh temporary directory. */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zlib.h>

#include "models/data_cache.h"
#include "models/dataset.h"
#include "tests/check.h"

#define N 600 /* images */
#define ROWS 28
#define COLS 28

static char root[128];
static uint8_t pixels[N * ROWS * COLS], labels[N];
static sgd_dataset_t ref; /* what decoding must give, computed here from the bytes */

/* root/name in one of 8 rotating buffers: for immediate use only (keep_path keeps one). */
static char *path_of(const char *name)
{
    static char buf[8][256];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, 256, "%s/%s", root, name);
    return p;
}

static char *keep_path(const char *name) { return strdup(path_of(name)); }

/* ---- files ------------------------------------------------------------------------------ */

static size_t idx_header(uint8_t *h, int ndims, const uint32_t *dims)
{
    size_t k = 0;
    h[k++] = 0, h[k++] = 0, h[k++] = 0x08, h[k++] = (uint8_t)ndims;
    for (int i = 0; i < ndims; i++)
        for (int s = 24; s >= 0; s -= 8) h[k++] = (uint8_t)(dims[i] >> s);
    return k;
}

static void write_idx(const char *path, bool gz, int ndims, const uint32_t *dims,
                      const uint8_t *data, size_t n)
{
    uint8_t h[32];
    size_t hn = idx_header(h, ndims, dims);
    if (gz) {
        gzFile f = gzopen(path, "wb");
        CHECK(f && gzwrite(f, h, (unsigned)hn) == (int)hn &&
              gzwrite(f, data, (unsigned)n) == (int)n);
        gzclose(f);
    } else {
        FILE *f = fopen(path, "wb");
        CHECK(f && fwrite(h, 1, hn, f) == hn && fwrite(data, 1, n, f) == n);
        fclose(f);
    }
}

static void make_sources(void)
{
    for (int i = 0; i < N * ROWS * COLS; i++) pixels[i] = (uint8_t)((i * 37 + i / 611) % 256);
    for (int i = 0; i < N; i++) labels[i] = (uint8_t)((i * 7) % 10);
    const uint32_t idims[3] = {N, ROWS, COLS}, ldims[1] = {N};
    write_idx(path_of("img.gz"), true, 3, idims, pixels, sizeof pixels);
    write_idx(path_of("lab"), false, 1, ldims, labels, sizeof labels);
    /* The reference: the conversion every load has always made, written out here. */
    ref.n = N;
    ref.dim = ROWS * COLS;
    ref.classes = 10;
    ref.x = malloc(sizeof(float) * N * ROWS * COLS);
    ref.y = malloc(sizeof(int32_t) * N);
    for (int i = 0; i < N * ROWS * COLS; i++) ref.x[i] = (float)pixels[i] / 255.0f;
    for (int i = 0; i < N; i++) ref.y[i] = labels[i];
}

static void spit(const char *path, const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(b, 1, n, f) == n);
    if (f) fclose(f);
}

/* Files in dir: *entries counts cache entries, the return value every file. */
static int count_files(const char *dir, int *entries, int *temps)
{
    int all = 0;
    *entries = *temps = 0;
    DIR *d = opendir(dir);
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        all++;
        if (strstr(e->d_name, ".tmp."))
            ++*temps;
        else if (strncmp(e->d_name, "idx-", 4) == 0)
            ++*entries;
    }
    closedir(d);
    return all;
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        unlink(dir);
        return;
    }
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        remove_tree(p);
    }
    closedir(d);
    rmdir(dir);
}

/* What a warning stream received; the caller frees. */
static char *drain(FILE *f)
{
    long n = ftell(f);
    char *s = calloc((size_t)n + 1, 1);
    rewind(f);
    CHECK(fread(s, 1, (size_t)n, f) == (size_t)n);
    return s;
}

static int count_lines(const char *s)
{
    int k = 0;
    for (; *s; s++) k += *s == '\n';
    return k;
}

/* ---- loads -------------------------------------------------------------------------------- */

static void check_same(const sgd_dataset_t *d)
{
    CHECK_INT_EQ(d->n, ref.n);
    CHECK_INT_EQ(d->dim, ref.dim);
    CHECK_INT_EQ(d->classes, ref.classes);
    CHECK(d->x && memcmp(d->x, ref.x, sizeof(float) * (size_t)(ref.n * ref.dim)) == 0);
    CHECK(d->y && memcmp(d->y, ref.y, sizeof(int32_t) * (size_t)ref.n) == 0);
}

/* Loads img.gz + lab through c and compares with the reference; *mapped: both arrays came
 * from cache files (two hits). */
static void load_and_check(dcache_t *c, bool *mapped)
{
    sgd_dataset_t d;
    sgd_err_t err = {{0}};
    int64_t hits = c ? c->hits : 0;
    int rc = dataset_load_idx_cached(path_of("img.gz"), path_of("lab"), c, &d, NULL, &err);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    CHECK_INT_EQ(rc, 0);
    check_same(&d);
    *mapped = c && c->hits == hits + 2;
    dataset_free(&d);
    CHECK(d.x == NULL && d.y == NULL);
}

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

/* ---- settings and environments --------------------------------------------------------- */

static void test_disabled_writes_nothing(void)
{
    char *dir = keep_path("never");
    FILE *w = tmpfile();
    dcache_t c;
    dcache_init(&c, false, dir, w);
    CHECK(c.dir == NULL);
    bool mapped;
    load_and_check(&c, &mapped);
    CHECK(!mapped);
    CHECK_INT_EQ(c.stores + c.hits, 0);
    struct stat st;
    CHECK(stat(dir, &st) != 0); /* not even created */
    /* Likewise SGDSIM_CACHE_DIR=off when the scenario names no directory. */
    setenv(DCACHE_ENV_DIR, "off", 1);
    dcache_init(&c, true, NULL, w);
    CHECK(c.dir == NULL);
    load_and_check(&c, &mapped);
    CHECK(!mapped);
    unsetenv(DCACHE_ENV_DIR);
    char *said = drain(w);
    CHECK_STR_EQ(said, "");
    free(said);
    fclose(w);
    free(dir);
}

/* A directory below a regular file can never be made (CI runs as root, where chmod does
 * not stop writes); nor can a regular file be used as one. */
static void test_unusable_dir_warns_once(void)
{
    spit(path_of("plain"), (const uint8_t *)"x", 1);
    char *dirs[] = {keep_path("plain/cache"), keep_path("plain")};
    const char *why[] = {"Not a directory", "is not a directory"};
    for (int k = 0; k < 2; k++) {
        FILE *w = tmpfile();
        dcache_t c;
        dcache_init(&c, true, dirs[k], w);
        bool mapped;
        load_and_check(&c, &mapped); /* images and labels: two failed stores */
        load_and_check(&c, &mapped);
        CHECK(!mapped);
        CHECK(c.no_store);
        CHECK_INT_EQ(c.stores, 0);
        char *said = drain(w);
        if (count_lines(said) != 1) fprintf(stderr, "said:\n%s", said);
        CHECK_INT_EQ(count_lines(said), 1);
        CHECK_STR_CONTAINS(said, "sgdsim: warning: data cache: ");
        CHECK_STR_CONTAINS(said, why[k]);
        CHECK_STR_CONTAINS(said, "data is loaded without the cache");
        free(said);
        fclose(w);
        dcache_free(&c);
        free(dirs[k]);
    }
}

/* A source that is not a regular file is read without the cache (the reader's own error). */
static void test_non_regular_source(void)
{
    dcache_t c;
    dcache_init(&c, true, path_of("cache/nonreg"), NULL);
    dcache_array_t a;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(dcache_load_idx(&c, "/dev/null", DCACHE_F32, &a, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "/dev/null: truncated");
    CHECK_INT_EQ(dcache_load_idx(&c, path_of("missing.gz"), DCACHE_F32, &a, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "missing.gz: cannot open");
    struct stat st;
    CHECK(stat(path_of("cache/nonreg"), &st) != 0);
    dcache_free(&c);
}

static void expect_dir(bool enabled, const char *dir, const char *want)
{
    FILE *w = tmpfile();
    dcache_t c;
    dcache_init(&c, enabled, dir, w);
    if (want)
        CHECK_STR_EQ(c.dir, want);
    else
        CHECK(c.dir == NULL);
    char *said = drain(w);
    /* Only "no HOME at all" says something. */
    CHECK_INT_EQ(count_lines(said), enabled && !want && !getenv("HOME") ? 1 : 0);
    free(said);
    fclose(w);
    dcache_free(&c);
}

static void test_dir_precedence(void)
{
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    char *xdg = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME")) : NULL;
    setenv(DCACHE_ENV_DIR, "/env/dir", 1);
    setenv("XDG_CACHE_HOME", "/xdg", 1);
    setenv("HOME", "/home/u", 1);
    expect_dir(false, "/scn", NULL);        /* data.cache false wins */
    expect_dir(true, "/scn", "/scn");       /* then data.cache_dir */
    expect_dir(true, NULL, "/env/dir");     /* then the environment */
    expect_dir(true, "", "/env/dir");
    setenv(DCACHE_ENV_DIR, "off", 1);
    expect_dir(true, NULL, NULL);
    expect_dir(true, "/scn", "/scn");       /* a scenario's directory beats "off" */
    setenv(DCACHE_ENV_DIR, "", 1);          /* empty = unset */
    expect_dir(true, NULL, "/xdg/sgdsim");
    setenv("XDG_CACHE_HOME", "rel", 1);     /* relative: ignored, as the XDG spec says */
    expect_dir(true, NULL, "/home/u/.cache/sgdsim");
    unsetenv("XDG_CACHE_HOME");
    expect_dir(true, NULL, "/home/u/.cache/sgdsim");
    unsetenv("HOME");
    expect_dir(true, NULL, NULL);           /* nowhere: off, with one warning */
    unsetenv(DCACHE_ENV_DIR);
    if (home) setenv("HOME", home, 1);
    if (xdg) setenv("XDG_CACHE_HOME", xdg, 1);
    free(home), free(xdg);
}

/* ---- concurrency ------------------------------------------------------------------------- */

/* A child: waits for the start signal, then 20 times deletes the entries (every other time,
 * taking turns with the other child) and loads, so that each builds them again and again
 * while the other reads or builds too.  Every load must give the right data and never meet
 * a partial entry (it would be rejected, or fault on a mapping cut short). */
static _Noreturn void builder(int start_fd, const char *dir, int id, char *const entries[2])
{
    char go;
    if (read(start_fd, &go, 1) < 0) _exit(2);
    for (int k = 0; k < 20; k++) {
        if (k % 2 == id) unlink(entries[0]), unlink(entries[1]);
        dcache_t c;
        dcache_init(&c, true, dir, stderr);
        bool mapped;
        load_and_check(&c, &mapped);
        CHECK_INT_EQ(c.rejected, 0);
        CHECK(!c.no_store);
        dcache_free(&c);
    }
    _exit(check_failures ? 1 : 0);
}

static void test_two_processes_build_at_once(void)
{
    char *dir = keep_path("cache/race");
    dcache_t names;
    dcache_init(&names, true, dir, NULL);
    char *entry[2] = {dcache_entry_path(&names, path_of("img.gz"), DCACHE_F32),
                      dcache_entry_path(&names, path_of("lab"), DCACHE_I32)};
    dcache_free(&names);
    for (int round = 0; round < 3; round++) {
        remove_tree(dir);
        int fds[2];
        CHECK(pipe(fds) == 0);
        fflush(NULL);
        pid_t kids[2];
        for (int k = 0; k < 2; k++) {
            kids[k] = fork();
            CHECK(kids[k] >= 0);
            if (kids[k] == 0) {
                close(fds[1]);
                builder(fds[0], dir, k, entry);
            }
        }
        close(fds[0]);
        close(fds[1]); /* both children's read() returns now */
        for (int k = 0; k < 2; k++) {
            int status = 0;
            CHECK(waitpid(kids[k], &status, 0) == kids[k]);
            CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        }
        int entries, temps;
        CHECK_INT_EQ(count_files(dir, &entries, &temps), 2);
        CHECK_INT_EQ(entries, 2);
        CHECK_INT_EQ(temps, 0);
        dcache_t c;
        dcache_init(&c, true, dir, NULL);
        bool mapped;
        load_and_check(&c, &mapped);
        CHECK(mapped);
        CHECK_INT_EQ(c.hits, 2);
        CHECK_INT_EQ(c.rejected, 0);
        dcache_free(&c);
    }
    free(dir), free(entry[0]), free(entry[1]);
}

/* ---- the real data ----------------------------------------------------------------------- */

/* Fashion-MNIST's test set, when installed: cached (miss, then hit) equals uncached. */
static void test_fashion_mnist_bits(void)
{
    const char *img = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz";
    const char *lab = "/usr/share/datasets/fashion-mnist/t10k-labels-idx1-ubyte.gz";
    if (access(img, R_OK) != 0 || access(lab, R_OK) != 0) {
        printf("fashion-mnist not installed: its part skipped\n");
        return;
    }
    sgd_dataset_t plain, cached;
    sgd_err_t err = {{0}};
    CHECK_INT_EQ(dataset_load_idx(img, lab, &plain, NULL, &err), 0);
    dcache_t c;
    dcache_init(&c, true, path_of("cache/fm"), NULL);
    for (int pass = 0; pass < 2; pass++) {
        CHECK_INT_EQ(dataset_load_idx_cached(img, lab, &c, &cached, NULL, &err), 0);
        CHECK_INT_EQ(cached.n, plain.n);
        CHECK(memcmp(cached.x, plain.x, sizeof(float) * (size_t)(plain.n * plain.dim)) == 0);
        CHECK(memcmp(cached.y, plain.y, sizeof(int32_t) * (size_t)plain.n) == 0);
        CHECK_INT_EQ(c.hits, 2 * pass);
        dataset_free(&cached);
    }
    CHECK_INT_EQ(c.hits, 2);
    dcache_free(&c);
    dataset_free(&plain);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/sgd_dcache_XXXXXX", tmp && strlen(tmp) < 80 ? tmp : "/tmp");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    make_sources();
    test_miss_then_hit();
    test_keyed_by_content();
    test_damaged_entries_are_rebuilt();
    test_entry_not_regular();
    test_entry_changed_after_load();
    test_disabled_writes_nothing();
    test_unusable_dir_warns_once();
    test_non_regular_source();
    test_dir_precedence();
    test_two_processes_build_at_once();
    test_fashion_mnist_bits();
    remove_tree(root);
    free(ref.x), free(ref.y);
    return check_exit();
}
