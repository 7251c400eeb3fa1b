/* The decoded-dataset cache (see data_cache.h for the key, the file format and the safety
 * rules): where the directory is, decoding an IDX file, hashing its source, checking and
 * mapping an entry, and writing one atomically. */
#include "models/data_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "models/xxh64.h"

#define DCACHE_ELEM_BYTES 4

/* The file header (the table in data_cache.h); no implicit padding, so its bytes are exactly
 * the fields written in order. */
typedef struct dcache_header {
    char magic[8];
    uint32_t version;
    uint32_t header_bytes;
    uint32_t byte_order;
    uint32_t type;
    uint32_t ndims;
    uint32_t zero;
    int64_t dims[IDX_MAX_DIMS];
    uint64_t source_bytes;
    uint64_t source_hash;
    uint64_t payload_bytes;
    uint64_t payload_hash;
    uint64_t header_hash; /* XXH64 of every byte before this field */
    uint8_t pad[24];
} dcache_header_t;

_Static_assert(sizeof(dcache_header_t) == DCACHE_HEADER_BYTES, "header is 128 bytes");
_Static_assert(offsetof(dcache_header_t, header_hash) == 96, "header hash at offset 96");

/* The source file of one load: opened once, hashed, and (on a miss) decoded from the same
 * descriptor. */
typedef struct source {
    int fd;
    struct stat st; /* at open */
    uint64_t hash;  /* XXH64 of its bytes */
} source_t;

/* ---- messages -------------------------------------------------------------------------- */

static void warnf(const dcache_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void warnf(const dcache_t *c, const char *fmt, ...)
{
    if (!c->warn) return;
    va_list ap;
    va_start(ap, fmt);
    fputs("sgdsim: warning: data cache: ", c->warn);
    vfprintf(c->warn, fmt, ap);
    fputc('\n', c->warn);
    va_end(ap);
    fflush(c->warn);
}

/* Writes a reason into why[0..n) and returns -1. */
static int reason(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int reason(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return -1;
}

static char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *xprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    SGD_ASSERT(n >= 0);
    char *s = sgd_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* ---- the directory --------------------------------------------------------------------- */

void dcache_init(dcache_t *c, bool enabled, const char *dir, FILE *warn)
{
    memset(c, 0, sizeof *c);
    c->warn = warn;
    if (!enabled) return;
    c->max_bytes = dcache_bound(warn);
    if (dir && dir[0]) {
        c->dir = sgd_xstrdup(dir);
        return;
    }
    const char *env = getenv(DCACHE_ENV_DIR);
    if (env && env[0]) {
        if (strcmp(env, "off") != 0) c->dir = sgd_xstrdup(env);
        return;
    }
    /* The XDG base directory specification ignores relative values. */
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    if (xdg && xdg[0] == '/')
        c->dir = xprintf("%s/sgdsim", xdg);
    else if (home && home[0])
        c->dir = xprintf("%s/.cache/sgdsim", home);
    else
        warnf(c, "no directory (HOME is not set; set %s or data.cache_dir); data is loaded "
                 "without the cache", DCACHE_ENV_DIR);
}

void dcache_free(dcache_t *c)
{
    free(c->dir);
    memset(c, 0, sizeof *c);
}

/* mkdir -p: creates dir and its missing parents (mode 0777 less the umask). */
static int make_dirs(const char *dir, char *why, size_t n)
{
    char *p = sgd_xstrdup(dir);
    int rc = 0;
    for (char *s = p + 1; rc == 0; s++) {
        if (*s != '/' && *s != '\0') continue;
        char keep = *s;
        *s = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST)
            rc = reason(why, n, "cannot create %s: %s", p, strerror(errno));
        *s = keep;
        if (keep == '\0') break;
    }
    struct stat st;
    if (rc == 0 && (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)))
        rc = reason(why, n, "%s is not a directory", dir);
    free(p);
    return rc;
}

/* ---- decoding -------------------------------------------------------------------------- */

/* Converts the IDX bytes to `type`.  The /255 is the one every load has always made, so a
 * cached load and a decoded one give the same bits.  An allocation that fails is an error
 * naming path (a memory limit), not an abort. */
static int convert(const idx_array_t *raw, const char *path, dcache_type_t type,
                   dcache_array_t *out, sgd_err_t *err)
{
    int64_t n = idx_array_size(raw);
    out->data = malloc((size_t)n * DCACHE_ELEM_BYTES);
    if (!out->data)
        return sgd_errf(err, "%s: cannot allocate %.3g GiB for its %lld values", path,
                        (double)n * DCACHE_ELEM_BYTES / 1073741824.0, (long long)n);
    out->type = type;
    out->ndims = raw->ndims;
    memcpy(out->dims, raw->dims, sizeof out->dims);
    if (type == DCACHE_F32) {
        float *x = out->data;
        for (int64_t i = 0; i < n; i++) x[i] = (float)raw->data[i] / 255.0f;
    } else {
        int32_t *y = out->data;
        for (int64_t i = 0; i < n; i++) y[i] = raw->data[i];
    }
    return 0;
}

/* Reads and converts the IDX file: from fd if fd >= 0, else from path. */
static int decode(int fd, const char *path, dcache_type_t type, dcache_array_t *out,
                  sgd_err_t *err)
{
    SGD_ASSERT(type == DCACHE_F32 || type == DCACHE_I32);
    idx_array_t raw;
    if ((fd >= 0 ? idx_read_u8_fd(fd, path, &raw, err) : idx_read_u8(path, &raw, err)) != 0)
        return -1;
    int rc = convert(&raw, path, type, out, err);
    idx_array_free(&raw);
    return rc;
}

/* ---- the source file ------------------------------------------------------------------- */

/* Reads up to len bytes at offset off of fd into buf; returns the number read (short only
 * at end of file), or -1 with errno.  Reading, not mapping: a file cut short meanwhile gives a
 * short read here, where a mapping would raise SIGBUS at the first page past the new end. */
static int64_t read_at(int fd, void *buf, size_t len, off_t off)
{
    size_t got = 0;
    while (got < len) {
        ssize_t r = pread(fd, (uint8_t *)buf + got, len - got, off + (off_t)got);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) break;
        got += (size_t)r;
    }
    return (int64_t)got;
}

/* XXH64 of the file's len bytes, read into private memory (the compressed source: 30 MB for
 * Fashion-MNIST), so that a source truncated during the load cannot fault this process. */
static int hash_fd(int fd, size_t len, uint64_t *hash)
{
    void *buf = malloc(len);
    if (!buf) return -1;
    int rc = read_at(fd, buf, len, 0) == (int64_t)len ? 0 : -1;
    if (rc == 0) *hash = sgd_xxh64(buf, len, 0);
    free(buf);
    return rc;
}

/* Opens and hashes a regular, non-empty file.  -1 for anything else (missing, unreadable, a
 * pipe): the caller then reads the path without the cache, and the IDX reader reports what
 * is wrong.  O_NONBLOCK so that opening a FIFO does not wait for a writer here. */
static int source_open(const char *path, source_t *src)
{
    src->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (src->fd < 0) return -1;
    if (fstat(src->fd, &src->st) == 0 && S_ISREG(src->st.st_mode) && src->st.st_size > 0 &&
        (uint64_t)src->st.st_size <= SIZE_MAX &&
        hash_fd(src->fd, (size_t)src->st.st_size, &src->hash) == 0)
        return 0;
    close(src->fd);
    return -1;
}

/* Whether the file looks untouched since source_open: a write in place during the load
 * would change its mtime and ctime, and then the decoded values might not be the hashed
 * bytes' -- such a load is not stored. */
static bool source_unchanged(const source_t *src)
{
    struct stat now;
    const struct stat *then = &src->st;
    return fstat(src->fd, &now) == 0 && now.st_size == then->st_size &&
           now.st_mtim.tv_sec == then->st_mtim.tv_sec &&
           now.st_mtim.tv_nsec == then->st_mtim.tv_nsec &&
           now.st_ctim.tv_sec == then->st_ctim.tv_sec &&
           now.st_ctim.tv_nsec == then->st_ctim.tv_nsec;
}

static const char *type_name(dcache_type_t type) { return type == DCACHE_F32 ? "f32" : "i32"; }

static char *entry_name(const char *dir, const source_t *src, dcache_type_t type)
{
    return xprintf("%s/idx-%016" PRIx64 "-%lld.%s.v%d", dir, src->hash,
                   (long long)src->st.st_size, type_name(type), DCACHE_VERSION);
}

char *dcache_entry_path(const dcache_t *c, const char *path, dcache_type_t type)
{
    source_t src;
    if (!c || !c->dir || source_open(path, &src) != 0) return NULL;
    close(src.fd);
    return entry_name(c->dir, &src, type);
}

/* ---- reading an entry ------------------------------------------------------------------ */

/* The dimensions are sane and give *bytes of payload. */
static int check_dims(const dcache_header_t *h, uint64_t *bytes, char *why, size_t n)
{
    if (h->ndims < 1 || h->ndims > IDX_MAX_DIMS)
        return reason(why, n, "%" PRIu32 " dimensions", h->ndims);
    int64_t total = 1;
    for (uint32_t i = 0; i < IDX_MAX_DIMS; i++) {
        int64_t d = h->dims[i];
        if (i >= h->ndims ? (d != 0) : (d <= 0 || d > IDX_MAX_ELEMENTS))
            return reason(why, n, "dimension %" PRIu32 " is %lld", i, (long long)d);
        if (i < h->ndims) total *= d; /* each factor <= 2^31 and total <= 2^31: no overflow */
        if (total > IDX_MAX_ELEMENTS) return reason(why, n, "more than 2^31 elements");
    }
    *bytes = (uint64_t)total * DCACHE_ELEM_BYTES;
    return 0;
}

/* Everything the header says, against this file's length and this source and type.  The
 * magic, the byte-order mark and the version come first: they keep their offsets in every
 * version, so a file of another version or machine is named as such. */
static int check_header(const dcache_header_t *h, size_t len, const source_t *src,
                        dcache_type_t type, char *why, size_t n)
{
    uint64_t bytes = 0;
    if (memcmp(h->magic, DCACHE_MAGIC, sizeof h->magic) != 0)
        return reason(why, n, "not a cache file (bad magic)");
    if (h->byte_order != DCACHE_BYTE_ORDER)
        return reason(why, n, "written on a machine of another byte order");
    if (h->version != DCACHE_VERSION)
        return reason(why, n, "format version %" PRIu32 ", this sgdsim reads %d", h->version,
                      DCACHE_VERSION);
    if (h->header_bytes != DCACHE_HEADER_BYTES)
        return reason(why, n, "header size %" PRIu32 ", expected %d", h->header_bytes,
                      DCACHE_HEADER_BYTES);
    if (sgd_xxh64(h, offsetof(dcache_header_t, header_hash), 0) != h->header_hash)
        return reason(why, n, "header checksum mismatch");
    if (h->source_bytes != (uint64_t)src->st.st_size || h->source_hash != src->hash)
        return reason(why, n, "made from another source file");
    if (h->type != (uint32_t)type)
        return reason(why, n, "holds element type %" PRIu32 ", not %d", h->type, (int)type);
    if (check_dims(h, &bytes, why, n) != 0) return -1;
    if (h->payload_bytes != bytes)
        return reason(why, n, "payload size %" PRIu64 " does not match the dimensions",
                      h->payload_bytes);
    if ((uint64_t)len != DCACHE_HEADER_BYTES + bytes)
        return reason(why, n, "%zu bytes, the header describes %" PRIu64 " (truncated?)", len,
                      DCACHE_HEADER_BYTES + bytes);
    return 0;
}

/* Reads the entry open on fd (len bytes) into private memory and checks it there; on
 * success *out owns the copy.  The payload's checksum is computed on the copy, so what was
 * checked is what the run uses: the file may be rewritten, cut short or deleted afterwards
 * without any effect on this process (data_cache.h, "Guarantees"). */
static int read_entry(int fd, size_t len, const source_t *src, dcache_type_t type,
                      dcache_array_t *out, char *why, size_t n)
{
    dcache_header_t h;
    int64_t got = read_at(fd, &h, sizeof h, 0);
    if (got != (int64_t)sizeof h)
        return reason(why, n, "cannot read the header: %s",
                      got < 0 ? strerror(errno) : "the file was cut short meanwhile");
    if (check_header(&h, len, src, type, why, n) != 0) return -1;
    void *data = malloc((size_t)h.payload_bytes);
    if (!data) return reason(why, n, "cannot allocate %" PRIu64 " bytes", h.payload_bytes);
    got = read_at(fd, data, (size_t)h.payload_bytes, DCACHE_HEADER_BYTES);
    int rc = 0;
    if (got < 0)
        rc = reason(why, n, "cannot read: %s", strerror(errno));
    else if ((uint64_t)got != h.payload_bytes)
        rc = reason(why, n, "%lld of %" PRIu64 " payload bytes (truncated while read?)",
                    (long long)got, h.payload_bytes);
    else if (sgd_xxh64(data, (size_t)h.payload_bytes, 0) != h.payload_hash)
        rc = reason(why, n, "payload checksum mismatch");
    if (rc != 0) {
        free(data);
        return -1;
    }
    out->type = type;
    out->ndims = (int)h.ndims;
    memcpy(out->dims, h.dims, sizeof out->dims);
    out->data = data;
    return 0;
}

/* What kind of file st is, for a message. */
static const char *file_kind(const struct stat *st)
{
    if (S_ISDIR(st->st_mode)) return "a directory";
    if (S_ISFIFO(st->st_mode)) return "a FIFO";
    if (S_ISSOCK(st->st_mode)) return "a socket";
    if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode)) return "a device";
    return "not a regular file";
}

/* Marks the entry used now (its mtime), which is what least-recently-used eviction goes by;
 * best effort: a cache shared read-only still serves hits.  The time is read here, to the
 * nanosecond, rather than left to the kernel (UTIME_NOW or a write): the kernel stamps files
 * from a clock that advances once per timer tick, so two entries used milliseconds apart (a
 * data set's images, then its labels) could get the same time and be ordered by name. */
static void touch(int fd)
{
    struct timespec t[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_nsec = UTIME_NOW}};
    struct timespec now;
    if (clock_gettime(CLOCK_REALTIME, &now) == 0) {
        t[1] = now;
        if (futimens(fd, t) == 0) return;
        /* A given time needs the entry's owner; "now" needs only write permission, as in a
         * cache directory a group shares. */
        t[1] = (struct timespec){.tv_nsec = UTIME_NOW};
    }
    (void)futimens(fd, t);
}

/* 0: *out holds a valid entry's values.  -1: none; why is "" when there is no entry that can
 * be opened (missing, or the directory is not one: the store that follows reports what it
 * finds), else it says what was wrong with the one there.  O_NONBLOCK: a FIFO at the entry's
 * path must not wait for a writer; O_NOFOLLOW: a symbolic link is not an entry (it could
 * point anywhere, a FIFO or a device included).  Anything but a regular file is rejected
 * before a byte is read, and the store that follows renames a new entry over it. */
static int lookup(const char *entry, const source_t *src, dcache_type_t type,
                  dcache_array_t *out, char *why, size_t n)
{
    why[0] = '\0';
    int fd = open(entry, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
    if (fd < 0)
        return errno == ELOOP ? reason(why, n, "a symbolic link, not followed") : -1;
    struct stat st;
    int rc;
    if (fstat(fd, &st) != 0)
        rc = reason(why, n, "cannot stat: %s", strerror(errno));
    else if (!S_ISREG(st.st_mode))
        rc = reason(why, n, "%s, not a regular file", file_kind(&st));
    else if (st.st_size < DCACHE_HEADER_BYTES)
        rc = reason(why, n, "%lld bytes, shorter than the header (truncated?)",
                    (long long)st.st_size);
    else if ((uint64_t)st.st_size > SIZE_MAX)
        rc = reason(why, n, "too large to read");
    else
        rc = read_entry(fd, (size_t)st.st_size, src, type, out, why, n);
    if (rc == 0) touch(fd);
    close(fd);
    return rc;
}

static int try_entry(dcache_t *c, const char *entry, const source_t *src, dcache_type_t type,
                     dcache_array_t *out)
{
    char why[sizeof c->why];
    if (lookup(entry, src, type, out, why, sizeof why) == 0) {
        c->hits++;
        return 0;
    }
    if (why[0]) {
        c->rejected++;
        snprintf(c->why, sizeof c->why, "%s", why);
        warnf(c, "%s: %s; rebuilding it", entry, why);
    }
    return -1;
}

/* ---- writing an entry ------------------------------------------------------------------ */

static uint64_t payload_bytes(const dcache_array_t *a)
{
    int64_t elems = 1;
    for (int i = 0; i < a->ndims; i++) elems *= a->dims[i];
    return (uint64_t)elems * DCACHE_ELEM_BYTES;
}

static void make_header(const source_t *src, const dcache_array_t *a, dcache_header_t *h)
{
    memset(h, 0, sizeof *h);
    memcpy(h->magic, DCACHE_MAGIC, sizeof h->magic);
    h->version = DCACHE_VERSION;
    h->header_bytes = DCACHE_HEADER_BYTES;
    h->byte_order = DCACHE_BYTE_ORDER;
    h->type = (uint32_t)a->type;
    h->ndims = (uint32_t)a->ndims;
    memcpy(h->dims, a->dims, sizeof h->dims);
    h->source_bytes = (uint64_t)src->st.st_size;
    h->source_hash = src->hash;
    h->payload_bytes = payload_bytes(a);
    h->payload_hash = sgd_xxh64(a->data, (size_t)h->payload_bytes, 0);
    h->header_hash = sgd_xxh64(h, offsetof(dcache_header_t, header_hash), 0);
}

static int write_all(int fd, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            if (w == 0) errno = EIO;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* A new temporary file next to entry, named after this process; *tmp gets its name. */
static int create_temp(const char *entry, char **tmp)
{
    for (int k = 0; k < 100; k++) {
        *tmp = xprintf("%s.tmp.%ld.%d", entry, (long)getpid(), k);
        int fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
        free(*tmp);
    }
    *tmp = NULL;
    errno = EEXIST;
    return -1;
}

/* After the rename, the directory's own entry is made durable too (best effort: some
 * filesystems refuse to fsync a directory, and the entry is valid either way). */
static void sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    (void)fsync(fd);
    close(fd);
}

static int write_entry(const char *dir, const char *entry, const source_t *src,
                       const dcache_array_t *a, char *why, size_t n)
{
    dcache_header_t h;
    make_header(src, a, &h);
    char *tmp = NULL;
    int fd = create_temp(entry, &tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return reason(why, n, "cannot create a file in %s: %s", dir, strerror(e));
    }
    bool ok = write_all(fd, &h, sizeof h) == 0 &&
              write_all(fd, a->data, (size_t)h.payload_bytes) == 0;
    if (ok) touch(fd); /* stored counts as used, on the same clock as a hit */
    ok = ok && fsync(fd) == 0;
    int e = errno;
    if (close(fd) != 0 && ok) ok = false, e = errno;
    /* The one step that makes the entry visible, whole. */
    if (ok && rename(tmp, entry) != 0) ok = false, e = errno;
    if (!ok) {
        unlink(tmp);
        reason(why, n, "cannot write %s: %s", entry, strerror(e));
    }
    free(tmp);
    if (ok) sync_dir(dir);
    return ok ? 0 : -1;
}

/* After a store: least recently used entries go until the directory fits its bound (best
 * effort: a directory that cannot be listed only means no eviction this time). */
static void evict(const dcache_t *c, const char *entry)
{
    const char *name = strrchr(entry, '/');
    dcache_pruned_t res;
    sgd_err_t ignored = {{0}};
    (void)dcache_prune(c->dir, c->max_bytes, name ? name + 1 : entry, &res, &ignored);
}

static void store(dcache_t *c, const char *entry, const source_t *src, const dcache_array_t *a)
{
    if (c->no_store) return;
    char why[sizeof c->why];
    uint64_t bytes = DCACHE_HEADER_BYTES + payload_bytes(a);
    if (bytes > c->max_bytes) {
        /* Only this entry is not stored: smaller ones may still be. */
        snprintf(c->why, sizeof c->why, "%llu bytes, more than the cache's bound of %llu (%s)",
                 (unsigned long long)bytes, (unsigned long long)c->max_bytes, DCACHE_ENV_MAX);
        warnf(c, "%s: %s; not stored", entry, c->why);
        return;
    }
    if (make_dirs(c->dir, why, sizeof why) == 0 &&
        write_entry(c->dir, entry, src, a, why, sizeof why) == 0) {
        c->stores++;
        evict(c, entry);
        return;
    }
    c->no_store = true;
    snprintf(c->why, sizeof c->why, "%s", why);
    warnf(c, "%s; data is loaded without the cache", why);
}

/* ---- the load -------------------------------------------------------------------------- */

int dcache_load_idx(dcache_t *c, const char *path, dcache_type_t type, dcache_array_t *out,
                    sgd_err_t *err)
{
    memset(out, 0, sizeof *out);
    source_t src;
    if (!c || !c->dir || source_open(path, &src) != 0) return decode(-1, path, type, out, err);
    char *entry = entry_name(c->dir, &src, type);
    int rc = 0;
    if (try_entry(c, entry, &src, type, out) != 0) {
        rc = decode(src.fd, path, type, out, err);
        if (rc == 0 && source_unchanged(&src)) store(c, entry, &src, out);
    }
    free(entry);
    close(src.fd);
    return rc;
}

void dcache_array_free(dcache_array_t *a)
{
    free(a->data);
    memset(a, 0, sizeof *a);
}
