/* The checkpoint container and its byte streams: a round trip keeps every field and the
 * payload; a file cut short anywhere, a flipped byte anywhere, a foreign file, another format
 * and trailing bytes are each refused with their own reason; the streams refuse reads past
 * the end, oversized counts and wrong section tags; a failed write leaves the old file.  The
 * header alone (sgd_ckpt_read_header) reads back every field from the file, also when its
 * content is damaged, and refuses a file cut within its header, a foreign file, another
 * format, a missing file and a directory.  A large file (512 MiB, sparse) that is foreign, or
 * whose header announces another size, is refused from its first bytes: the reading process
 * never holds more than a few MiB. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/ckbuf.h"
#include "common/ckpt_file.h"
#include "tests/check.h"

static sgd_ckpt_meta_t sample_meta(void)
{
    sgd_ckpt_meta_t m = {.run_id = 7, .updates = 1234, .db_rows = 4321, .db_last_update = 1234};
    snprintf(m.sgdsim_version, sizeof m.sgdsim_version, "1.2.3");
    snprintf(m.git_rev, sizeof m.git_rev, "v1.2.3-4-gabcdef");
    snprintf(m.blas_core, sizeof m.blas_core, "Haswell");
    snprintf(m.algorithm, sizeof m.algorithm, "csgd");
    memset(m.run_key, 'a', SGD_SHA256_HEX_LEN);
    memset(m.scenario_hash, 'b', SGD_SHA256_HEX_LEN);
    snprintf(m.run_started, sizeof m.run_started, "2024-01-01T00:00:00Z");
    return m;
}

static void test_streams(void)
{
    sgd_ckw_t w;
    sgd_ckw_init(&w);
    sgd_ckw_tag(&w, "part");
    sgd_ckw_u64(&w, UINT64_MAX);
    sgd_ckw_i64(&w, -5);
    sgd_ckw_f64(&w, -0.0);
    float v[3] = {1.5f, -2.0f, 3.25f};
    sgd_ckw_bytes(&w, v, sizeof v);
    sgd_ckw_str(&w, "hello");
    sgd_ckr_t r;
    sgd_ckr_init(&r, w.buf, w.len);
    sgd_ckr_tag(&r, "part");
    CHECK(sgd_ckr_u64(&r) == UINT64_MAX);
    CHECK(sgd_ckr_i64(&r) == -5);
    double z = sgd_ckr_f64(&r);
    CHECK(z == 0.0 && signbit(z));
    float back[3];
    sgd_ckr_bytes(&r, back, sizeof back, "values");
    CHECK(memcmp(back, v, sizeof v) == 0);
    char s[16];
    sgd_ckr_str(&r, s, sizeof s, "text");
    CHECK_STR_EQ(s, "hello");
    CHECK(sgd_ckr_done(&r));
    sgd_ckr_u64(&r); /* past the end */
    CHECK(r.failed);
    CHECK_STR_CONTAINS(r.why, "cut short");

    sgd_ckr_init(&r, w.buf, w.len);
    sgd_ckr_tag(&r, "other");
    CHECK(r.failed);
    CHECK_STR_CONTAINS(r.why, "\"part\" found where \"other\"");
    sgd_err_t err = {{0}};
    CHECK(sgd_ckr_check(&r, "engine", &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "engine: section");

    sgd_ckr_init(&r, w.buf, w.len);
    sgd_ckr_tag(&r, "part");
    sgd_ckr_count(&r, 10, "workers");
    CHECK(r.failed);
    CHECK_STR_CONTAINS(r.why, "workers");
    sgd_ckr_init(&r, w.buf, w.len);
    sgd_ckr_tag(&r, "part");
    sgd_ckr_u64(&r);
    sgd_ckr_i64(&r);
    sgd_ckr_f64(&r);
    float two[2];
    sgd_ckr_bytes(&r, two, sizeof two, "values");
    CHECK(r.failed);
    CHECK_STR_CONTAINS(r.why, "12 bytes stored, 8 expected");
    sgd_ckw_free(&w);
}

static void expect_refused(const uint8_t *b, size_t len, const char *reason)
{
    sgd_ckpt_meta_t m;
    const uint8_t *p;
    size_t n;
    sgd_err_t err = {{0}};
    CHECK(sgd_ckpt_parse(b, len, &m, &p, &n, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, reason);
}

/* Writes len bytes of b to path. */
static void put_bytes(const char *path, const uint8_t *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    SGD_ASSERT(f && fwrite(b, 1, len, f) == len);
    fclose(f);
}

static void expect_header_refused(const char *path, const char *reason)
{
    sgd_ckpt_meta_t m;
    sgd_err_t err = {{0}};
    CHECK(sgd_ckpt_read_header(path, &m, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, path);
    CHECK_STR_CONTAINS(err.msg, reason);
}

/* sgd_ckpt_read_header on the checkpoint at path (written from m) and damaged copies of it
 * in dir. */
static void test_header_only(const char *path, const char *dir, const sgd_ckpt_meta_t *m)
{
    sgd_ckpt_meta_t got;
    sgd_err_t err = {{0}};
    CHECK(sgd_ckpt_read_header(path, &got, &err) == 0);
    CHECK(memcmp(&got, m, sizeof *m) == 0);
    size_t len;
    uint8_t *b = check_read_file(path, &len);
    char copy[600];
    snprintf(copy, sizeof copy, "%s/copy.ckpt", dir);
    b[len - 3] ^= 1; /* the digest is the run's to check, not the header reader's */
    put_bytes(copy, b, len);
    CHECK(sgd_ckpt_read_header(copy, &got, &err) == 0);
    CHECK(got.run_id == m->run_id && got.updates == m->updates);
    b[len - 3] ^= 1;
    put_bytes(copy, b, 40);
    expect_header_refused(copy, "truncated");
    put_bytes(copy, b, 4);
    expect_header_refused(copy, "not an sgdsim checkpoint");
    b[8] = 9;
    put_bytes(copy, b, len);
    expect_header_refused(copy, "checkpoint format 9");
    unlink(copy);
    expect_header_refused(copy, "cannot open");
    expect_header_refused(dir, "not a regular file");
    free(b);
}

static void test_file(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/run.ckpt", dir);
    sgd_ckpt_meta_t m = sample_meta(), got;
    const char payload[] = "the state of a run";
    sgd_err_t err = {{0}};
    CHECK(sgd_ckpt_write(path, &m, payload, sizeof payload, &err) == 0);
    uint8_t *file;
    const uint8_t *p;
    size_t n;
    CHECK(sgd_ckpt_read(path, &got, &file, &p, &n, &err) == 0);
    CHECK(n == sizeof payload && memcmp(p, payload, n) == 0);
    CHECK(memcmp(&got, &m, sizeof m) == 0);
    char diff[256];
    CHECK(sgd_ckpt_meta_diff(&got, &m, diff, sizeof diff) == 0);
    snprintf(got.blas_core, sizeof got.blas_core, "SkylakeX");
    CHECK(sgd_ckpt_meta_diff(&got, &m, diff, sizeof diff) == -1);
    CHECK_STR_CONTAINS(diff, "BLAS kernel: the checkpoint's \"SkylakeX\", this run's \"Haswell\"");
    free(file);

    size_t len;
    uint8_t *b = check_read_file(path, &len);
    for (size_t cut = 0; cut < len; cut++) /* every truncation */
        expect_refused(b, cut, cut < 8 ? "not an sgdsim checkpoint" : "");
    expect_refused(b, len - 1, "truncated");
    for (size_t i = 16; i < len; i++) { /* every flipped byte after magic and format */
        b[i] ^= 0x40;
        expect_refused(b, len, "");
        b[i] ^= 0x40;
    }
    b[len - 3] ^= 1;
    expect_refused(b, len, "SHA-256 does not match");
    b[len - 3] ^= 1;
    b[8] = 9;
    expect_refused(b, len, "checkpoint format 9");
    b[8] = 1; /* the format before the database's rows were in the header */
    expect_refused(b, len, "checkpoint format 1, this sgdsim reads format 2 (the file was written "
                           "by another version of sgdsim");
    b[8] = SGD_CKPT_FORMAT;
    b[0] = 'X';
    expect_refused(b, len, "not an sgdsim checkpoint");
    b[0] = 'S';
    uint8_t *longer = sgd_xmalloc(len + 1);
    memcpy(longer, b, len);
    longer[len] = 0;
    expect_refused(longer, len + 1, "unexpected bytes");
    free(longer);
    free(b);

    char missing[600];
    snprintf(missing, sizeof missing, "%s/none.ckpt", dir);
    CHECK(sgd_ckpt_read(missing, &got, &file, &p, &n, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "none.ckpt: cannot open");
    CHECK(sgd_ckpt_read(dir, &got, &file, &p, &n, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "not a regular file");

    test_header_only(path, dir, &m);

    /* A write that cannot happen leaves the old checkpoint as it was. */
    char bad[600];
    snprintf(bad, sizeof bad, "%s/no/such/dir.ckpt", dir);
    CHECK(sgd_ckpt_write(bad, &m, payload, sizeof payload, &err) == -1);
    CHECK_STR_CONTAINS(err.msg, "cannot write");
    unlink(path);
}

/* A sparse file of `size` bytes at path whose first len bytes are b. */
static void put_sparse(const char *path, const uint8_t *b, size_t len, off_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    SGD_ASSERT(fd >= 0 && ftruncate(fd, size) == 0 && write(fd, b, len) == (ssize_t)len);
    close(fd);
}

/* sgd_ckpt_read of path in a child process: refused with `reason`, and the child's peak
 * resident memory in KiB. */
static long read_in_child(const char *path, const char *reason)
{
    pid_t pid = fork();
    SGD_ASSERT(pid >= 0);
    if (pid == 0) {
        sgd_ckpt_meta_t m;
        uint8_t *file;
        const uint8_t *p;
        size_t n;
        sgd_err_t err = {{0}};
        int rc = sgd_ckpt_read(path, &m, &file, &p, &n, &err);
        if (rc == 0) free(file);
        _exit(rc == -1 && strstr(err.msg, reason) ? 0 : 1);
    }
    int status;
    struct rusage ru;
    SGD_ASSERT(wait4(pid, &status, 0, &ru) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return ru.ru_maxrss;
}

static void test_large_files(const char *dir)
{
    char path[600], big[600];
    snprintf(path, sizeof path, "%s/small.ckpt", dir);
    snprintf(big, sizeof big, "%s/big.ckpt", dir);
    sgd_ckpt_meta_t m = sample_meta();
    const char payload[] = "a small state";
    sgd_err_t err = {{0}};
    CHECK(sgd_ckpt_write(path, &m, payload, sizeof payload, &err) == 0);
    size_t len;
    uint8_t *b = check_read_file(path, &len);
    const off_t size = (off_t)512 << 20;
    const char foreign[] = "{\"not\": \"a checkpoint\"}";
    put_sparse(big, (const uint8_t *)foreign, sizeof foreign - 1, size);
    long kib = read_in_child(big, "not an sgdsim checkpoint");
    CHECK(kib < 64 * 1024);
    /* A whole small checkpoint at the start of a large file: its header announces its own
     * size, which the file's is not. */
    put_sparse(big, b, len, size);
    kib = read_in_child(big, "unexpected bytes after the end of the checkpoint");
    CHECK(kib < 64 * 1024);
    unlink(big);
    unlink(path);
    free(b);
}

int main(void)
{
    char dir[] = "/tmp/sgdsim-ckpt-XXXXXX";
    SGD_ASSERT(mkdtemp(dir));
    test_streams();
    test_file(dir);
    test_large_files(dir);
    rmdir(dir);
    return check_exit();
}
