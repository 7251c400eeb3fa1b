/* Files a command writes: the input guard and safe creation of outputs (see outpath.h). */
#include "common/outpath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The files SQLite keeps beside a database, which belong to it as much as the file. */
static const char *const companions[] = {"", "-wal", "-shm", "-journal"};
#define NCOMPANIONS 4

/* Symbolic links followed at most, like the kernel's limit. */
#define MAX_LINKS 40

/* What a name refers to: the file when it exists, and always the directory it is (or
 * would be) in with its base name, so that a file not yet created is known too. */
typedef struct ident {
    bool exists, dir_ok;
    dev_t dev, ddev;
    ino_t ino, dino;
    char base[NAME_MAX + 16];
} ident_t;

/* path with every symbolic link of its last component followed (the name that opening it
 * would create or reach), malloc'ed.  A loop or a dangling link stops at the last name. */
static char *resolve_links(const char *path)
{
    char *p = sgd_xstrdup(path);
    for (int i = 0; i < MAX_LINKS; i++) {
        struct stat st;
        char link[PATH_MAX];
        if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode)) break;
        ssize_t n = readlink(p, link, sizeof link - 1);
        if (n < 0) break;
        link[n] = '\0';
        const char *slash = strrchr(p, '/');
        size_t dlen = link[0] == '/' || !slash ? 0 : (size_t)(slash - p) + 1;
        char *next = sgd_xmalloc(dlen + (size_t)n + 1);
        memcpy(next, p, dlen);
        memcpy(next + dlen, link, (size_t)n + 1);
        free(p);
        p = next;
    }
    return p;
}

/* The identity of path + suffix (suffix: "" or a companion's). */
static void ident_of(const char *path, const char *suffix, ident_t *id)
{
    memset(id, 0, sizeof *id);
    char *r = resolve_links(path);
    size_t len = strlen(r);
    while (len > 1 && r[len - 1] == '/') r[--len] = '\0';
    char *slash = strrchr(r, '/');
    const char *base = slash ? slash + 1 : r;
    snprintf(id->base, sizeof id->base, "%s%s", base, suffix);
    size_t fn = len + strlen(suffix) + 1;
    char *full = sgd_xmalloc(fn);
    snprintf(full, fn, "%s%s", r, suffix);
    struct stat st;
    if (stat(full, &st) == 0) id->exists = true, id->dev = st.st_dev, id->ino = st.st_ino;
    free(full);
    if (slash == r) slash[1] = '\0'; /* "/x": the root */
    else if (slash) *slash = '\0';
    if (stat(slash ? r : ".", &st) == 0)
        id->dir_ok = true, id->ddev = st.st_dev, id->dino = st.st_ino;
    free(r);
}

/* Same file, or the same name in the same directory (a file that does not exist yet). */
static bool same(const ident_t *a, const ident_t *b)
{
    if (a->exists && b->exists && a->dev == b->dev && a->ino == b->ino) return true;
    return a->dir_ok && b->dir_ok && a->ddev == b->ddev && a->dino == b->dino && a->base[0] &&
           strcmp(a->base, b->base) == 0;
}

/* The refusal for target variant k (0: the target, else its companion) against input
 * variant j of in. */
static int refuse(const char *label, int k, int j, const sgd_outpath_input_t *in,
                  sgd_err_t *err)
{
    char of[64] = "";
    if (j) snprintf(of, sizeof of, "the %s file of ", companions[j]);
    if (k)
        return sgd_errf(err, "%s: its %s file would be %s%s (%s); refusing to overwrite it",
                        label, companions[k], of, in->what, in->path);
    return sgd_errf(err, "%s: is %s%s (%s); refusing to overwrite it", label, of, in->what,
                    in->path);
}

int sgd_outpath_check(const char *label, const char *target, bool target_db,
                      const sgd_outpath_input_t *in, size_t n, sgd_err_t *err)
{
    ident_t t[NCOMPANIONS], x;
    int nt = target_db ? NCOMPANIONS : 1;
    for (int k = 0; k < nt; k++) ident_of(target, companions[k], &t[k]);
    for (size_t i = 0; i < n; i++) {
        if (!in[i].path) continue;
        for (int j = 0; j < (in[i].db ? NCOMPANIONS : 1); j++) {
            ident_of(in[i].path, companions[j], &x);
            for (int k = 0; k < nt; k++)
                if (same(&t[k], &x)) return refuse(label, k, j, &in[i], err);
        }
    }
    return 0;
}

int sgd_outpath_check_fd(const char *label, int fd, const sgd_outpath_input_t *in, size_t n,
                         sgd_err_t *err)
{
    struct stat st;
    if (fstat(fd, &st) != 0) return 0; /* not open: the caller says so itself */
    ident_t t = {.exists = true, .dev = st.st_dev, .ino = st.st_ino}, x;
    for (size_t i = 0; i < n; i++) {
        if (!in[i].path) continue;
        for (int j = 0; j < (in[i].db ? NCOMPANIONS : 1); j++) {
            ident_of(in[i].path, companions[j], &x);
            if (same(&t, &x)) return refuse(label, 0, j, &in[i], err);
        }
    }
    return 0;
}

/* A new file beside path, created without following or reusing anything already there. */
static int create_temp(const char *path, char **tmp)
{
    size_t n = strlen(path) + 48;
    for (int k = 0; k < 100; k++) {
        *tmp = sgd_xmalloc(n);
        snprintf(*tmp, n, "%s.tmp.%ld.%d", path, (long)getpid(), k);
        int fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
        free(*tmp);
    }
    *tmp = NULL;
    errno = EEXIST;
    return -1;
}

int sgd_outfile_open(sgd_outfile_t *o, const char *path, sgd_err_t *err)
{
    memset(o, 0, sizeof *o);
    struct stat st;
    /* A device or a FIFO is written in place: it cannot be renamed over, and it is where
     * the user wants the bytes to go. */
    bool exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode))
        o->fd = -1, errno = EISDIR; /* refused now, not when the rename fails at the end */
    else if (exists && !S_ISREG(st.st_mode))
        o->fd = open(path, O_WRONLY | O_CLOEXEC);
    else
        o->fd = create_temp(path, &o->tmp);
    if (o->fd < 0) {
        int e = errno;
        free(o->tmp);
        o->tmp = NULL;
        sgd_errf(err, "%s: cannot write: %s", path, strerror(e));
        errno = e; /* for callers that word the message themselves */
        return -1;
    }
    o->path = sgd_xstrdup(path);
    return 0;
}

static void outfile_free(sgd_outfile_t *o)
{
    free(o->path);
    free(o->tmp);
    o->path = o->tmp = NULL;
    o->fd = -1;
}

int sgd_outfile_commit(sgd_outfile_t *o, bool closed, sgd_err_t *err)
{
    int rc = 0;
    if (!closed && close(o->fd) != 0) rc = sgd_errf(err, "%s: cannot write: %s", o->path,
                                                     strerror(errno));
    if (rc == 0 && o->tmp && rename(o->tmp, o->path) != 0)
        rc = sgd_errf(err, "%s: cannot write: %s", o->path, strerror(errno));
    if (rc && o->tmp) unlink(o->tmp);
    outfile_free(o);
    return rc;
}

void sgd_outfile_abort(sgd_outfile_t *o, bool closed)
{
    if (!closed) close(o->fd);
    if (o->tmp) unlink(o->tmp);
    outfile_free(o);
}
