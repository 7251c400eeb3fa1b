/* The fixture of the decoded-dataset cache's tests (test_models_data_cache.c,
 * test_models_data_cache_dirs.c): IDX sources of N random images written into a fresh
 * temporary directory (root), the reference decoding they must give, and helpers on files
 * and loads.  Each test executable has its own copy. */
#ifndef SGDSIM_TESTS_MODELS_DATA_CACHE_FIXTURE_H
#define SGDSIM_TESTS_MODELS_DATA_CACHE_FIXTURE_H

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
static inline char *path_of(const char *name)
{
    static char buf[8][256];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, 256, "%s/%s", root, name);
    return p;
}

static inline char *keep_path(const char *name) { return strdup(path_of(name)); }

/* ---- files ------------------------------------------------------------------------------ */

static inline size_t idx_header(uint8_t *h, int ndims, const uint32_t *dims)
{
    size_t k = 0;
    h[k++] = 0, h[k++] = 0, h[k++] = 0x08, h[k++] = (uint8_t)ndims;
    for (int i = 0; i < ndims; i++)
        for (int s = 24; s >= 0; s -= 8) h[k++] = (uint8_t)(dims[i] >> s);
    return k;
}

static inline void write_idx(const char *path, bool gz, int ndims, const uint32_t *dims,
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

static inline void make_sources(void)
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

static inline void spit(const char *path, const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(b, 1, n, f) == n);
    if (f) fclose(f);
}

/* Files in dir: *entries counts cache entries, the return value every file. */
static inline int count_files(const char *dir, int *entries, int *temps)
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
static inline char *drain(FILE *f)
{
    long n = ftell(f);
    char *s = calloc((size_t)n + 1, 1);
    rewind(f);
    CHECK(fread(s, 1, (size_t)n, f) == (size_t)n);
    return s;
}

static inline int count_lines(const char *s)
{
    int k = 0;
    for (; *s; s++) k += *s == '\n';
    return k;
}

/* ---- loads -------------------------------------------------------------------------------- */

static inline void check_same(const sgd_dataset_t *d)
{
    CHECK_INT_EQ(d->n, ref.n);
    CHECK_INT_EQ(d->dim, ref.dim);
    CHECK_INT_EQ(d->classes, ref.classes);
    CHECK(d->x && memcmp(d->x, ref.x, sizeof(float) * (size_t)(ref.n * ref.dim)) == 0);
    CHECK(d->y && memcmp(d->y, ref.y, sizeof(int32_t) * (size_t)ref.n) == 0);
}

/* Loads img.gz + lab through c and compares with the reference; *mapped: both arrays came
 * from cache files (two hits). */
static inline void load_and_check(dcache_t *c, bool *mapped)
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

/* Makes root, a fresh temporary directory, and the sources in it; 0, or 1 when it cannot. */
static inline int fixture_begin(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/sgd_dcache_XXXXXX", tmp && strlen(tmp) < 80 ? tmp : "/tmp");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    make_sources();
    return 0;
}

/* Removes root and the reference. */
static inline void fixture_end(void)
{
    remove_tree(root);
    free(ref.x), free(ref.y);
}

#endif
