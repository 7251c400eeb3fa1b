/* IDX reader and dataset_load_idx: round trips of small files written here (plain and gzip),
 * and each kind of bad input giving its own message that names the file. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <zlib.h>

#include "models/dataset.h"
#include "models/idx.h"
#include "tests/check.h"

static char dir[64];

static const char *path_of(const char *name)
{
    static char buf[8][256];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, 256, "%s/%s", dir, name);
    return p;
}

/* Serialises an IDX header (magic type/ndims, big-endian dims) plus payload into buf. */
static size_t build(uint8_t *buf, uint8_t type, int ndims, const uint32_t *dims,
                    const uint8_t *data, size_t ndata)
{
    size_t k = 0;
    buf[k++] = 0;
    buf[k++] = 0;
    buf[k++] = type;
    buf[k++] = (uint8_t)ndims;
    for (int i = 0; i < ndims; i++) {
        buf[k++] = (uint8_t)(dims[i] >> 24);
        buf[k++] = (uint8_t)(dims[i] >> 16);
        buf[k++] = (uint8_t)(dims[i] >> 8);
        buf[k++] = (uint8_t)dims[i];
    }
    memcpy(buf + k, data, ndata);
    return k + ndata;
}

static void write_plain(const char *path, const uint8_t *buf, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    CHECK(fwrite(buf, 1, n, f) == n);
    fclose(f);
}

static void write_gz(const char *path, const uint8_t *buf, size_t n)
{
    gzFile f = gzopen(path, "wb");
    CHECK(f != NULL);
    CHECK(gzwrite(f, buf, (unsigned)n) == (int)n);
    gzclose(f);
}

static size_t read_raw(const char *path, uint8_t *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

static uint8_t payload[24];
static const uint32_t dims234[3] = {2, 3, 4};

static void expect_error(const char *path, const char *needle)
{
    idx_array_t a;
    sgd_err_t err = {{0}};
    int rc = idx_read_u8(path, &a, &err);
    CHECK_INT_EQ(rc, -1);
    CHECK(a.data == NULL);
    CHECK_STR_CONTAINS(err.msg, path);
    CHECK_STR_CONTAINS(err.msg, needle);
    idx_array_free(&a);
}

static void test_round_trip(void)
{
    uint8_t buf[256];
    size_t n = build(buf, 0x08, 3, dims234, payload, 24);
    const char *names[2] = {"ok.idx", "ok.idx.gz"};
    write_plain(path_of(names[0]), buf, n);
    write_gz(path_of(names[1]), buf, n);
    for (int t = 0; t < 2; t++) {
        idx_array_t a;
        sgd_err_t err = {{0}};
        CHECK_INT_EQ(idx_read_u8(path_of(names[t]), &a, &err), 0);
        CHECK_STR_CONTAINS(err.msg, ""); /* no message needed on success */
        CHECK_INT_EQ(a.ndims, 3);
        CHECK_INT_EQ(a.dims[0], 2);
        CHECK_INT_EQ(a.dims[1], 3);
        CHECK_INT_EQ(a.dims[2], 4);
        CHECK_INT_EQ(idx_array_size(&a), 24);
        CHECK(a.data && memcmp(a.data, payload, 24) == 0);
        idx_array_free(&a);
        CHECK(a.data == NULL);
    }
    /* 1-dimensional (labels) and 4-dimensional files are accepted too. */
    uint32_t d1[1] = {24}, d4[4] = {1, 2, 3, 4};
    n = build(buf, 0x08, 1, d1, payload, 24);
    write_plain(path_of("one.idx"), buf, n);
    n = build(buf, 0x08, 4, d4, payload, 24);
    write_gz(path_of("four.idx.gz"), buf, n);
    idx_array_t a;
    sgd_err_t err;
    CHECK_INT_EQ(idx_read_u8(path_of("one.idx"), &a, &err), 0);
    CHECK_INT_EQ(a.ndims, 1);
    idx_array_free(&a);
    CHECK_INT_EQ(idx_read_u8(path_of("four.idx.gz"), &a, &err), 0);
    CHECK_INT_EQ(a.ndims, 4);
    CHECK_INT_EQ(a.dims[3], 4);
    idx_array_free(&a);
}

static void test_bad_inputs(void)
{
    uint8_t buf[512], raw[512];
    size_t n;

    expect_error(path_of("does-not-exist.idx"), "cannot open");

    n = build(buf, 0x0D, 3, dims234, payload, 24); /* 0x0D = float32 type */
    write_plain(path_of("magic.idx"), buf, n);
    expect_error(path_of("magic.idx"), "bad IDX magic 0x00000d03");
    buf[3] = 5; /* 5 dimensions */
    buf[2] = 0x08;
    write_plain(path_of("ndims.idx"), buf, n);
    expect_error(path_of("ndims.idx"), "bad IDX magic 0x00000805");

    uint32_t zero[3] = {2, 0, 4};
    n = build(buf, 0x08, 3, zero, payload, 0);
    write_plain(path_of("zero.idx"), buf, n);
    expect_error(path_of("zero.idx"), "dimension 1 is 0: every dimension must be > 0");

    uint32_t huge[2] = {65536, 65536};
    n = build(buf, 0x08, 2, huge, payload, 24);
    write_plain(path_of("huge.idx"), buf, n);
    expect_error(path_of("huge.idx"), "refusing to allocate");

    n = build(buf, 0x08, 3, dims234, payload, 20);
    write_plain(path_of("short.idx"), buf, n);
    expect_error(path_of("short.idx"), "truncated: expected 24 data bytes, got 20");
    write_gz(path_of("short.idx.gz"), buf, n);
    expect_error(path_of("short.idx.gz"), "truncated: expected 24 data bytes, got 20");

    write_plain(path_of("header.idx"), buf, 9);
    expect_error(path_of("header.idx"), "truncated: expected 12 header bytes for 3 dimensions, got 5");
    write_plain(path_of("tiny.idx"), buf, 2);
    expect_error(path_of("tiny.idx"), "truncated: expected a 4-byte IDX header, got 2 bytes");

    uint8_t more[27] = {0};
    n = build(buf, 0x08, 3, dims234, more, 27);
    write_plain(path_of("trailing.idx"), buf, n);
    expect_error(path_of("trailing.idx"), "3 trailing bytes after the 24 data bytes");
    write_gz(path_of("trailing.idx.gz"), buf, n);
    expect_error(path_of("trailing.idx.gz"), "3 trailing bytes");

    /* gzip damage: a wrong CRC in the trailer, and a stream cut short. */
    n = build(buf, 0x08, 3, dims234, payload, 24);
    write_gz(path_of("crc.idx.gz"), buf, n);
    size_t nz = read_raw(path_of("crc.idx.gz"), raw, sizeof raw);
    raw[nz - 8] ^= 0xFF;
    write_plain(path_of("crc.idx.gz"), raw, nz);
    expect_error(path_of("crc.idx.gz"), "corrupt gzip data");
    write_plain(path_of("cut.idx.gz"), raw, nz / 2);
    expect_error(path_of("cut.idx.gz"), "truncated");
    /* Garbage after a valid gzip magic: the deflate stream itself is invalid. */
    uint8_t junk[64];
    memcpy(junk, raw, 10); /* gzip header */
    memset(junk + 10, 0xFF, sizeof junk - 10);
    write_plain(path_of("junk.idx.gz"), junk, sizeof junk);
    expect_error(path_of("junk.idx.gz"), "corrupt gzip data");
}

static void test_dataset_load(void)
{
    uint8_t buf[256];
    uint8_t pix[2 * 2 * 3] = {0, 51, 102, 153, 204, 255, 255, 0, 0, 0, 0, 1};
    uint32_t idims[3] = {2, 2, 3}, ldims[1] = {2};
    size_t n = build(buf, 0x08, 3, idims, pix, sizeof pix);
    write_gz(path_of("img.gz"), buf, n);
    uint8_t labels[3] = {3, 1, 1};
    n = build(buf, 0x08, 1, ldims, labels, 2);
    write_plain(path_of("lab"), buf, n);

    sgd_dataset_t d;
    sgd_err_t err = {{0}};
    dataset_file_t bad = DATASET_FILE_NONE;
    CHECK_INT_EQ(dataset_load_idx(path_of("img.gz"), path_of("lab"), &d, &bad, &err), 0);
    CHECK_INT_EQ(bad, DATASET_FILE_NONE);
    CHECK_INT_EQ(d.n, 2);
    CHECK_INT_EQ(d.dim, 6);
    CHECK_INT_EQ(d.classes, 4);
    CHECK(d.owns);
    CHECK_NEAR(d.x[1], 0.2, 1e-7);
    CHECK_NEAR(d.x[5], 1.0, 0);
    CHECK_NEAR(d.x[11], 1.0 / 255, 1e-9);
    CHECK_INT_EQ(d.y[0], 3);
    CHECK_INT_EQ(d.y[1], 1);
    dataset_free(&d);

    /* All labels 0 still makes a 2-class problem. */
    uint8_t zeros[2] = {0, 0};
    n = build(buf, 0x08, 1, ldims, zeros, 2);
    write_plain(path_of("lab0"), buf, n);
    CHECK_INT_EQ(dataset_load_idx(path_of("img.gz"), path_of("lab0"), &d, NULL, &err), 0);
    CHECK_INT_EQ(d.classes, 2);
    dataset_free(&d);

    uint32_t l3[1] = {3};
    n = build(buf, 0x08, 1, l3, labels, 3);
    write_plain(path_of("lab3"), buf, n);
    CHECK_INT_EQ(dataset_load_idx(path_of("img.gz"), path_of("lab3"), &d, &bad, &err), -1);
    CHECK_INT_EQ(bad, DATASET_FILE_LABELS); /* the count is checked against the images */
    CHECK_STR_CONTAINS(err.msg, "lab3: 3 labels, but ");
    CHECK_STR_CONTAINS(err.msg, "img.gz has 2 images");
    CHECK(d.x == NULL);

    uint8_t big[2] = {1, 10};
    n = build(buf, 0x08, 1, ldims, big, 2);
    write_plain(path_of("lab10"), buf, n);
    CHECK_INT_EQ(dataset_load_idx(path_of("img.gz"), path_of("lab10"), &d, &bad, &err), -1);
    CHECK_INT_EQ(bad, DATASET_FILE_LABELS);
    CHECK_STR_CONTAINS(err.msg, "lab10: label 1 is 10: labels must be < 10");

    /* Swapped arguments: labels as images, images as labels. */
    CHECK_INT_EQ(dataset_load_idx(path_of("lab"), path_of("img.gz"), &d, &bad, &err), -1);
    CHECK_INT_EQ(bad, DATASET_FILE_IMAGES);
    CHECK_STR_CONTAINS(err.msg, "images must have 2 to 4 dimensions");

    /* A missing file is reported with its own name, and as the file that failed. */
    CHECK_INT_EQ(dataset_load_idx(path_of("img.gz"), path_of("nolabels"), &d, &bad, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "nolabels: cannot open");
    CHECK_INT_EQ(bad, DATASET_FILE_LABELS);
    CHECK_INT_EQ(dataset_load_idx(path_of("noimages"), path_of("lab"), &d, &bad, &err), -1);
    CHECK_STR_CONTAINS(err.msg, "noimages: cannot open");
    CHECK_INT_EQ(bad, DATASET_FILE_IMAGES);
}

static void remove_dir(void)
{
    static const char *const files[] = {
        "ok.idx", "ok.idx.gz", "one.idx", "four.idx.gz", "magic.idx", "ndims.idx", "zero.idx",
        "huge.idx", "short.idx", "short.idx.gz", "header.idx", "tiny.idx", "trailing.idx",
        "trailing.idx.gz", "crc.idx.gz", "cut.idx.gz", "junk.idx.gz", "img.gz", "lab", "lab0",
        "lab3", "lab10", NULL};
    for (int i = 0; files[i]; i++) unlink(path_of(files[i]));
    rmdir(dir);
}

int main(void)
{
    for (int i = 0; i < 24; i++) payload[i] = (uint8_t)(i * 11 + 1);
    /* Scratch files go to a fresh temporary directory, never into the source tree. */
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/sgd_idx_XXXXXX", tmp && strlen(tmp) < 40 ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_round_trip();
    test_bad_inputs();
    test_dataset_load();
    remove_dir();
    return check_exit();
}
