/* IDX reader (see idx.h): header parsing and validation, then one bulk read of the data. */
#include "models/idx.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#define IDX_TYPE_U8 0x08

int64_t idx_array_size(const idx_array_t *a)
{
    int64_t n = 1;
    for (int i = 0; i < a->ndims; i++) n *= a->dims[i];
    return a->ndims > 0 ? n : 0;
}

void idx_array_free(idx_array_t *a)
{
    free(a->data);
    memset(a, 0, sizeof *a);
}

/* Reads up to len bytes, looping because gzread takes an unsigned int length.  Returns the
 * number of bytes read, or -1 on a zlib error (message left in the gzFile). */
static int64_t read_all(gzFile f, uint8_t *buf, int64_t len)
{
    int64_t got = 0;
    while (got < len) {
        int64_t want = len - got;
        if (want > (INT64_C(1) << 30)) want = INT64_C(1) << 30;
        int r = gzread(f, buf + got, (unsigned)want);
        if (r < 0) return -1;
        if (r == 0) break;
        got += r;
    }
    return got;
}

/* After a failed or short read, distinguishes damaged compressed data from a file that simply
 * ends early.  zlib reports a gzip stream cut short as Z_BUF_ERROR, which is truncation too. */
static int gz_failure(gzFile f, const char *path, sgd_err_t *err)
{
    int code = Z_OK;
    const char *msg = gzerror(f, &code);
    if (code == Z_ERRNO) return sgd_errf(err, "%s: read error: %s", path, strerror(errno));
    if (code != Z_OK && code != Z_BUF_ERROR)
        return sgd_errf(err, "%s: corrupt gzip data: %s", path, msg ? msg : "unknown zlib error");
    return 0;
}

/* After a read that returned `got` bytes (< 0: an error) fewer than asked: true when the
 * failure is zlib's (its message is in err), false when the file simply ended early (the
 * caller then says what was missing). */
static bool zlib_failed(gzFile f, const char *path, int64_t got, sgd_err_t *err)
{
    if (got < 0) {
        gz_failure(f, path, err);
        return true;
    }
    return gz_failure(f, path, err) != 0;
}

/* The magic (unsigned bytes, 1..IDX_MAX_DIMS dimensions) and the dimensions into out.
 * Returns the number of elements the header claims, or -1. */
static int64_t read_header(gzFile f, const char *path, idx_array_t *out, sgd_err_t *err)
{
    uint8_t magic[4];
    int64_t got = read_all(f, magic, 4);
    if (got < 4) {
        if (!zlib_failed(f, path, got, err))
            sgd_errf(err, "%s: truncated: expected a 4-byte IDX header, got %lld bytes", path,
                     (long long)got);
        return -1;
    }
    if (magic[0] != 0 || magic[1] != 0 || magic[2] != IDX_TYPE_U8 || magic[3] < 1 ||
        magic[3] > IDX_MAX_DIMS)
        return sgd_errf(err,
                        "%s: bad IDX magic 0x%02x%02x%02x%02x: expected 0x000008NN (unsigned "
                        "bytes, NN = 01..%02d dimensions)",
                        path, magic[0], magic[1], magic[2], magic[3], IDX_MAX_DIMS);
    const int ndims = magic[3];
    uint8_t dimbuf[4 * IDX_MAX_DIMS];
    got = read_all(f, dimbuf, 4 * ndims);
    if (got != 4 * ndims) {
        if (!zlib_failed(f, path, got, err))
            sgd_errf(err, "%s: truncated: expected %d header bytes for %d dimensions, got %lld",
                     path, 4 * ndims, ndims, (long long)got);
        return -1;
    }
    int64_t total = 1;
    for (int i = 0; i < ndims; i++) {
        const uint8_t *b = dimbuf + 4 * i;
        int64_t d = ((int64_t)b[0] << 24) | ((int64_t)b[1] << 16) | ((int64_t)b[2] << 8) | b[3];
        if (d <= 0)
            return sgd_errf(err, "%s: dimension %d is %lld: every dimension must be > 0", path,
                            i, (long long)d);
        out->dims[i] = d;
        /* Each d < 2^32 and total <= 2^31 before the multiply, so this cannot overflow. */
        total *= d;
        if (total > IDX_MAX_ELEMENTS)
            return sgd_errf(err, "%s: header claims more than %lld elements: refusing to "
                                 "allocate", path, (long long)IDX_MAX_ELEMENTS);
    }
    out->ndims = ndims;
    return total;
}

/* The `total` data bytes into *data (owned by the caller, also on error).  The buffer grows
 * as data actually arrives (doubling from 1 MiB) instead of trusting the header: a 20-byte
 * file claiming 2^31 elements must not cost a 2 GiB allocation. */
static int read_payload(gzFile f, const char *path, int64_t total, uint8_t **data,
                        sgd_err_t *err)
{
    int64_t cap = total < (INT64_C(1) << 20) ? total : (INT64_C(1) << 20), got = 0;
    *data = malloc((size_t)cap);
    for (;;) {
        /* Refused, not aborted: a memory limit (ulimit -v) is the caller's to report. */
        if (!*data)
            return sgd_errf(err, "%s: cannot allocate %lld bytes for the data the header "
                                 "describes (%lld bytes)", path, (long long)cap,
                            (long long)total);
        int64_t n = read_all(f, *data + got, cap - got);
        if (n < 0) return gz_failure(f, path, err), -1;
        got += n;
        if (got < cap || cap == total) break;
        cap = cap * 2 < total ? cap * 2 : total;
        uint8_t *more = realloc(*data, (size_t)cap);
        if (!more) free(*data);
        *data = more;
    }
    if (got < total) {
        if (gz_failure(f, path, err) == 0)
            sgd_errf(err, "%s: truncated: expected %lld data bytes, got %lld", path,
                     (long long)total, (long long)got);
        return -1;
    }
    return 0;
}

/* One more read must hit end of file: trailing bytes mean the header does not describe the
 * file, for instance images and labels concatenated or a wrong dimension. */
static int check_end(gzFile f, const char *path, int64_t total, sgd_err_t *err)
{
    uint8_t extra[256];
    int64_t more = read_all(f, extra, sizeof extra);
    if (more < 0) return gz_failure(f, path, err), -1;
    if (more > 0)
        return sgd_errf(err, "%s: %s%lld trailing bytes after the %lld data bytes the header "
                             "describes", path, more == (int64_t)sizeof extra ? "at least " : "",
                        (long long)more, (long long)total);
    return gz_failure(f, path, err) != 0 ? -1 : 0;
}

/* Reads the IDX stream f (closed here, success or not); path only names it in messages. */
static int read_gz(gzFile f, const char *path, idx_array_t *out, sgd_err_t *err)
{
    uint8_t *data = NULL;
    int64_t total = read_header(f, path, out, err);
    int rc = total < 0 || read_payload(f, path, total, &data, err) ||
                     check_end(f, path, total, err)
                 ? -1
                 : 0;
    if (rc == 0) {
        out->data = data;
        data = NULL;
    }
    free(data);
    gzclose(f);
    if (rc != 0) memset(out, 0, sizeof *out);
    return rc;
}

/* Whether a path has a "." or ".." component. */
static bool dot_component(const char *p)
{
    for (const char *seg = p; seg;) {
        size_t len = strcspn(seg, "/");
        if ((len == 1 && seg[0] == '.') || (len == 2 && seg[0] == '.' && seg[1] == '.'))
            return true;
        seg = seg[len] ? seg + len + 1 : NULL;
    }
    return false;
}

/* The absolute path without "." or ".." components that a path names: its longest leading
 * part that exists, resolved by the system (links and all; the working directory when no
 * part does), then the rest, which must hold no "." or ".." of its own; NULL where that
 * cannot be told. */
static char *plain_path(const char *path)
{
    char *copy = sgd_xstrdup(path), *found = NULL;
    for (size_t end = strlen(copy);; end--) {
        while (end > 0 && copy[end - 1] != '/') end--;
        const char *rest = path + end;
        char *real;
        if (end == 0) {
            real = path[0] == '/' ? NULL : realpath(".", NULL);
        } else {
            copy[end - 1] = '\0';
            real = realpath(copy[0] ? copy : "/", NULL);
        }
        if (real && *rest && !dot_component(rest)) {
            size_t n = strlen(real) + strlen(rest) + 2;
            found = sgd_xmalloc(n);
            snprintf(found, n, "%s%s%s", real, strcmp(real, "/") ? "/" : "", rest);
        }
        bool resolved = real != NULL;
        free(real);
        if (resolved || end == 0) break;
    }
    free(copy);
    return found;
}

/* "PATH: cannot open: WHY", with the plain path it names where PATH is relative or goes
 * through "." or "..", so the message shows both the path as the scenario gives it (after
 * its folder, config/scenario_sections.c) and where that was looked for. */
static int open_failed(const char *path, sgd_err_t *err)
{
    int e = errno ? errno : ENOENT;
    char *plain = path[0] != '/' || dot_component(path) ? plain_path(path) : NULL;
    int rc = plain ? sgd_errf(err, "%s: cannot open: %s (that is %s)", path, strerror(e), plain)
                   : sgd_errf(err, "%s: cannot open: %s", path, strerror(e));
    free(plain);
    return rc;
}

int idx_read_shape(const char *path, idx_array_t *out, sgd_err_t *err)
{
    memset(out, 0, sizeof *out);
    gzFile f = gzopen(path, "rb");
    if (!f) return open_failed(path, err);
    int rc = read_header(f, path, out, err) < 0 ? -1 : 0;
    gzclose(f);
    if (rc != 0) memset(out, 0, sizeof *out);
    return rc;
}

int idx_read_u8(const char *path, idx_array_t *out, sgd_err_t *err)
{
    memset(out, 0, sizeof *out);
    gzFile f = gzopen(path, "rb");
    if (!f) return open_failed(path, err);
    return read_gz(f, path, out, err);
}

int idx_read_u8_fd(int fd, const char *path, idx_array_t *out, sgd_err_t *err)
{
    memset(out, 0, sizeof *out);
    int own = lseek(fd, 0, SEEK_SET) == 0 ? dup(fd) : -1;
    gzFile f = own >= 0 ? gzdopen(own, "rb") : NULL;
    if (!f) {
        int e = errno ? errno : EBADF;
        if (own >= 0) close(own);
        return sgd_errf(err, "%s: cannot read: %s", path, strerror(e));
    }
    return read_gz(f, path, out, err);
}
