/* The decoded-dataset cache's directory as a whole (data_cache.h, "Guarantees"): its size
 * bound, listing its entries and deleting the least recently used ones.  Safe at any time,
 * from any process: no process reads an entry after its load (data_cache.c), so deleting one
 * never disturbs a run, and an entry being written is a temporary file, never listed.  Only
 * files that carry sgdsim's header are touched: the directory may hold others' files. */
#include "models/data_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A temporary file this old was left by a process that died while writing it. */
#define DCACHE_STALE_TEMP_S 3600

int dcache_parse_size(const char *s, uint64_t *bytes)
{
    static const char units[] = "KMGT";
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-' || *s == '+') return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s) return -1;
    int shift = 0;
    if (*end) {
        const char *u = strchr(units, end[0] & ~0x20);
        if (!u || !end[0]) return -1;
        shift = 10 * (int)(u - units + 1);
        end++;
        if (strcasecmp(end, "") != 0 && strcasecmp(end, "B") != 0 && strcasecmp(end, "iB") != 0)
            return -1;
    }
    if (shift && v > (UINT64_MAX >> shift)) return -1;
    *bytes = (uint64_t)v << shift;
    return 0;
}

uint64_t dcache_bound(FILE *warn)
{
    const char *env = getenv(DCACHE_ENV_MAX);
    uint64_t bytes;
    if (!env || !env[0]) return DCACHE_DEFAULT_MAX_BYTES;
    if (dcache_parse_size(env, &bytes) == 0) return bytes;
    if (warn)
        fprintf(warn, "sgdsim: warning: data cache: %s=\"%s\" is not a size (bytes, or a "
                      "number with K, M, G or T); the bound is %llu GiB\n",
                DCACHE_ENV_MAX, env, (unsigned long long)(DCACHE_DEFAULT_MAX_BYTES >> 30));
    return DCACHE_DEFAULT_MAX_BYTES;
}

/* A name an entry or a temporary file has: "idx-..." (which another program may use too). */
static bool named_like_ours(const char *name)
{
    return strncmp(name, "idx-", 4) == 0;
}

static bool is_temp(const char *name)
{
    return strstr(name, ".tmp.") != NULL;
}

/* Whether the regular file `name` in dfd starts with sgdsim's header: the magic and the
 * byte-order mark, whose offsets every version keeps (data_cache.h), in either byte order
 * (a cache written on another machine is still sgdsim's).  O_NONBLOCK | O_NOFOLLOW, as for
 * a load: a FIFO is not waited on, a link not followed.  A file that cannot be read is not
 * known to be ours. */
static bool has_own_header(int dfd, const char *name)
{
    int fd = openat(dfd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return false;
    unsigned char head[20];
    struct stat st;
    bool ours = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
                pread(fd, head, sizeof head, 0) == (ssize_t)sizeof head &&
                memcmp(head, DCACHE_MAGIC, 8) == 0;
    close(fd);
    if (!ours) return false;
    uint32_t mark;
    memcpy(&mark, head + 16, sizeof mark);
    return mark == DCACHE_BYTE_ORDER || mark == __builtin_bswap32(DCACHE_BYTE_ORDER);
}

static int older_first(const void *a, const void *b)
{
    const dcache_entry_t *x = a, *y = b;
    if (x->used.tv_sec != y->used.tv_sec) return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
    if (x->used.tv_nsec != y->used.tv_nsec) return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Deletes a temporary file of sgdsim's older than DCACHE_STALE_TEMP_S. */
static void remove_stale_temp(int dfd, const char *name, const struct stat *st)
{
    if (time(NULL) - st->st_mtim.tv_sec > DCACHE_STALE_TEMP_S) (void)unlinkat(dfd, name, 0);
}

int dcache_list(const char *dir, dcache_entry_t **out, size_t *n, size_t *nforeign,
                sgd_err_t *err)
{
    *out = NULL;
    *n = 0;
    if (nforeign) *nforeign = 0;
    DIR *d = opendir(dir);
    if (!d) return errno == ENOENT ? 0 : sgd_errf(err, "%s: cannot read: %s", dir, strerror(errno));
    size_t cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        struct stat st;
        if (!named_like_ours(e->d_name) ||
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        /* Only regular files with sgdsim's header are ours: anything else named like an
         * entry is another program's, and is left alone. */
        if (!S_ISREG(st.st_mode) || !has_own_header(dirfd(d), e->d_name)) {
            if (nforeign) ++*nforeign;
            continue;
        }
        if (is_temp(e->d_name)) {
            remove_stale_temp(dirfd(d), e->d_name, &st);
            continue;
        }
        size_t len = strlen(e->d_name);
        if (len >= sizeof(*out)->name) continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            *out = sgd_xrealloc(*out, cap * sizeof **out);
        }
        dcache_entry_t *x = &(*out)[(*n)++];
        memcpy(x->name, e->d_name, len + 1);
        x->bytes = (uint64_t)st.st_size;
        x->used = st.st_mtim;
    }
    closedir(d);
    if (*n) qsort(*out, *n, sizeof **out, older_first);
    return 0;
}

int dcache_prune(const char *dir, uint64_t max_bytes, const char *keep, dcache_pruned_t *res,
                 sgd_err_t *err)
{
    dcache_entry_t *e;
    size_t n;
    memset(res, 0, sizeof *res);
    size_t foreign;
    if (dcache_list(dir, &e, &n, &foreign, err) != 0) return -1;
    res->foreign = foreign;
    for (size_t i = 0; i < n; i++) res->kept_bytes += e[i].bytes;
    res->kept = n;
    /* Least recently used first; the entry just stored (keep) stays whatever its size. */
    for (size_t i = 0; i < n && res->kept_bytes > max_bytes; i++) {
        if (keep && strcmp(e[i].name, keep) == 0) continue;
        char *path = sgd_xmalloc(strlen(dir) + strlen(e[i].name) + 2);
        sprintf(path, "%s/%s", dir, e[i].name);
        if (unlink(path) == 0 || errno == ENOENT) { /* ENOENT: another process pruned it */
            res->removed++;
            res->removed_bytes += e[i].bytes;
            res->kept--;
            res->kept_bytes -= e[i].bytes;
        }
        free(path);
    }
    free(e);
    return 0;
}
