/* The checkpoint container declared in ckpt_file.h. */
#include "common/ckpt_file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/ckbuf.h"
#include "common/outpath.h"

#define DIGEST_BYTES 32

/* The raw 32 bytes of the SHA-256 of a then b (sha256.h gives hex). */
static void digest_of2(const void *a, size_t na, const void *b, size_t nb,
                       uint8_t out[DIGEST_BYTES])
{
    char hex[SGD_SHA256_HEX_LEN + 1];
    sgd_sha256_t s;
    sgd_sha256_init(&s);
    sgd_sha256_update(&s, a, na);
    sgd_sha256_update(&s, b, nb);
    sgd_sha256_final_hex(&s, hex);
    for (int i = 0; i < DIGEST_BYTES; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
}

static void digest_of(const void *p, size_t n, uint8_t out[DIGEST_BYTES])
{
    digest_of2(p, n, NULL, 0, out);
}

/* Everything before the payload's bytes: magic, format, header, the payload's length.  The
 * payload follows as it is and the digest closes the file, so a checkpoint of gigabytes is
 * written from the run's own buffer, never copied. */
static void encode_head(sgd_ckw_t *w, const sgd_ckpt_meta_t *m, size_t n)
{
    sgd_ckw_init(w);
    sgd_ckw_raw(w, SGD_CKPT_MAGIC, 8);
    sgd_ckw_u64(w, SGD_CKPT_FORMAT);
    sgd_ckw_str(w, m->sgdsim_version);
    sgd_ckw_str(w, m->git_rev);
    sgd_ckw_str(w, m->blas_core);
    sgd_ckw_str(w, m->algorithm);
    sgd_ckw_str(w, m->run_key);
    sgd_ckw_str(w, m->scenario_hash);
    sgd_ckw_str(w, m->run_started);
    sgd_ckw_i64(w, m->run_id);
    sgd_ckw_i64(w, m->updates);
    sgd_ckw_i64(w, m->db_rows);
    sgd_ckw_i64(w, m->db_last_update);
    sgd_ckw_u64(w, (uint64_t)n); /* as sgd_ckw_bytes writes it */
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* fsync of the directory holding path, so that the rename itself survives a crash. */
static int sync_dir(const char *path)
{
    char *copy = sgd_xstrdup(path);
    int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(copy);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

int sgd_ckpt_write(const char *path, const sgd_ckpt_meta_t *m, const void *payload, size_t n,
                   sgd_err_t *err)
{
    sgd_ckw_t w;
    encode_head(&w, m, n);
    uint8_t d[DIGEST_BYTES]; /* without a length: the digest closes the file */
    digest_of2(w.buf, w.len, payload, n, d);
    sgd_outfile_t o;
    int rc = sgd_outfile_open(&o, path, err);
    if (rc == 0 && (write_all(o.fd, w.buf, w.len) || write_all(o.fd, payload, n) ||
                    write_all(o.fd, d, sizeof d) || fsync(o.fd))) {
        sgd_errf(err, "%s: cannot write: %s", path, strerror(errno));
        sgd_outfile_abort(&o, false);
        rc = -1;
    } else if (rc == 0) {
        rc = sgd_outfile_commit(&o, false, err);
    }
    sgd_ckw_free(&w);
    if (rc == 0 && sync_dir(path))
        return sgd_errf(err, "%s: cannot sync its directory: %s", path, strerror(errno));
    return rc;
}

static void read_header(sgd_ckr_t *r, sgd_ckpt_meta_t *m)
{
    sgd_ckr_str(r, m->sgdsim_version, sizeof m->sgdsim_version, "sgdsim version");
    sgd_ckr_str(r, m->git_rev, sizeof m->git_rev, "git revision");
    sgd_ckr_str(r, m->blas_core, sizeof m->blas_core, "BLAS kernel");
    sgd_ckr_str(r, m->algorithm, sizeof m->algorithm, "algorithm");
    sgd_ckr_str(r, m->run_key, sizeof m->run_key, "run key");
    sgd_ckr_str(r, m->scenario_hash, sizeof m->scenario_hash, "scenario hash");
    sgd_ckr_str(r, m->run_started, sizeof m->run_started, "run start");
    m->run_id = sgd_ckr_i64(r);
    m->updates = sgd_ckr_i64(r);
    m->db_rows = sgd_ckr_i64(r);
    m->db_last_update = sgd_ckr_i64(r);
}

/* The magic and format at the start of r's bytes; 0, or -1 with the reason. */
static int read_preamble(const void *bytes, size_t len, sgd_ckr_t *r, sgd_err_t *err)
{
    if (len < 8 || memcmp(bytes, SGD_CKPT_MAGIC, 8) != 0)
        return sgd_errf(err, "not an sgdsim checkpoint (no magic number)");
    sgd_ckr_init(r, (const uint8_t *)bytes + 8, len - 8);
    uint64_t format = sgd_ckr_u64(r);
    if (!r->failed && format != SGD_CKPT_FORMAT)
        return sgd_errf(err, "checkpoint format %llu, this sgdsim reads format %d (the file was "
                             "written by another version of sgdsim: resume it with that one)",
                        (unsigned long long)format, SGD_CKPT_FORMAT);
    return 0;
}

/* The header at the start of bytes[0..len): magic, format, fields and the payload's length
 * *n; *head receives the number of bytes before the payload.  0, or -1 with the reason. */
static int parse_head(const void *bytes, size_t len, sgd_ckpt_meta_t *m, size_t *head,
                      uint64_t *n, sgd_err_t *err)
{
    memset(m, 0, sizeof *m);
    sgd_ckr_t r;
    if (read_preamble(bytes, len, &r, err)) return -1;
    read_header(&r, m);
    *n = sgd_ckr_u64(&r);
    if (r.failed) return sgd_errf(err, "truncated (the file ends within its header)");
    *head = 8 + r.pos;
    return 0;
}

/* Whether a file of len bytes holds exactly its header (head bytes), the payload of n bytes
 * the header announces and the digest: checked before anything the size of the payload is
 * allocated or read.  0, or -1 with the reason. */
static int check_layout(size_t len, size_t head, uint64_t n, sgd_err_t *err)
{
    size_t rest = len - head;
    if (n > rest || rest - n < DIGEST_BYTES)
        return sgd_errf(err, "truncated (the file ends before its content does)");
    if (rest - n != DIGEST_BYTES)
        return sgd_errf(err, "%zu unexpected bytes after the end of the checkpoint",
                        rest - (size_t)n - DIGEST_BYTES);
    return 0;
}

int sgd_ckpt_parse(const void *bytes, size_t len, sgd_ckpt_meta_t *m, const uint8_t **payload,
                   size_t *n, sgd_err_t *err)
{
    size_t head;
    uint64_t size;
    if (parse_head(bytes, len, m, &head, &size, err) || check_layout(len, head, size, err))
        return -1;
    *n = (size_t)size;
    *payload = (const uint8_t *)bytes + head;
    uint8_t d[DIGEST_BYTES];
    digest_of(bytes, len - DIGEST_BYTES, d);
    if (memcmp(d, (const uint8_t *)bytes + len - DIGEST_BYTES, DIGEST_BYTES) != 0)
        return sgd_errf(err, "corrupted (its SHA-256 does not match its content)");
    return 0;
}

/* Opens path for reading when it is a regular file (a FIFO or a directory is refused, never
 * waited on): *fd and the file's *size.  0, or -1 with "PATH: why". */
static int open_regular(const char *path, int *fd, size_t *size, sgd_err_t *err)
{
    *fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (*fd < 0) return sgd_errf(err, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(*fd);
        return sgd_errf(err, "%s: not a regular file", path);
    }
    *size = (size_t)st.st_size;
    return 0;
}

/* Up to n bytes of fd from offset `at`; returns how many were read. */
static size_t read_at(int fd, uint8_t *buf, size_t n, size_t at)
{
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread(fd, buf + got, n - got, (off_t)(at + got));
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
    }
    return got;
}

/* Room for the longest header the fields allow (sgd_ckpt_meta_t), and more. */
#define HEAD_MAX 4096

/* The header of the open file fd, from its first HEAD_MAX bytes at most, whatever the file's
 * size.  0, or -1 with the reason (no path). */
static int read_head(int fd, sgd_ckpt_meta_t *m, size_t *head, uint64_t *n, sgd_err_t *err)
{
    uint8_t buf[HEAD_MAX];
    return parse_head(buf, read_at(fd, buf, sizeof buf, 0), m, head, n, err);
}

int sgd_ckpt_read(const char *path, sgd_ckpt_meta_t *m, uint8_t **file,
                  const uint8_t **payload, size_t *n, sgd_err_t *err)
{
    *file = NULL;
    int fd;
    size_t size, head;
    uint64_t claimed;
    if (open_regular(path, &fd, &size, err)) return -1;
    /* The magic and the header first: a foreign file, or one whose size is not the one its
     * header announces, is refused before anything the size of the file is allocated. */
    int rc = read_head(fd, m, &head, &claimed, err) || check_layout(size, head, claimed, err)
                 ? -1
                 : 0;
    if (rc == 0 && !(*file = malloc(size ? size : 1)))
        rc = sgd_errf(err, "%zu bytes do not fit in memory", size);
    else if (rc == 0 && read_at(fd, *file, size, 0) != size)
        rc = sgd_errf(err, "truncated (the file ends before its content does)");
    else if (rc == 0)
        rc = sgd_ckpt_parse(*file, size, m, payload, n, err);
    close(fd);
    if (rc == 0) return 0;
    free(*file);
    *file = NULL;
    return sgd_err_prefix(err, path);
}

int sgd_ckpt_read_header(const char *path, sgd_ckpt_meta_t *m, sgd_err_t *err)
{
    int fd;
    size_t size, head;
    uint64_t n;
    memset(m, 0, sizeof *m);
    if (open_regular(path, &fd, &size, err)) return -1;
    int rc = read_head(fd, m, &head, &n, err);
    close(fd);
    return rc ? sgd_err_prefix(err, path) : 0;
}

int sgd_ckpt_meta_diff(const sgd_ckpt_meta_t *saved, const sgd_ckpt_meta_t *now, char *buf,
                       size_t size)
{
    const struct {
        const char *what, *a, *b;
    } f[] = {{"sgdsim version", saved->sgdsim_version, now->sgdsim_version},
             {"git revision", saved->git_rev, now->git_rev},
             {"BLAS kernel", saved->blas_core, now->blas_core},
             {"algorithm", saved->algorithm, now->algorithm},
             {"run key", saved->run_key, now->run_key},
             {"scenario hash", saved->scenario_hash, now->scenario_hash}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (strcmp(f[i].a, f[i].b) != 0) {
            snprintf(buf, size, "%s: the checkpoint's \"%s\", this run's \"%s\"", f[i].what,
                     f[i].a, f[i].b);
            return -1;
        }
    return 0;
}
