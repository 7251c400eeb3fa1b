/* How readers reach a results database file (rdb_reader.h): what is beside the file, the
 * open mode that follows, the URI a path reaches SQLite as, and the clean-up of side files a
 * reader created. */
#include "results/rdb_reader.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "common/error.h"

/* The directory holding path: "." for a bare name, "/" for a file in the root.  The caller
 * frees it. */
char *rdb_dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash == NULL   ? sgd_xstrdup(".")
                : slash == path ? sgd_xstrdup("/")
                                : strndup(path, (size_t)(slash - path));
    if (!dir) sgd_die(__FILE__, __LINE__, "out of memory");
    return dir;
}

rdb_read_mode_t rdb_read_mode(const rdb_reader_facts_t *f)
{
    if (f->wal_exists) {
        /* A log may hold committed transactions that only a normal open sees; SQLite reads
         * it read-only when PATH-shm exists or can be created. */
        if (f->shm_exists || f->dir_writable) return RDB_READ_NORMAL;
        return f->wal_empty ? RDB_READ_IMMUTABLE : RDB_READ_REFUSE;
    }
    /* No log: the file holds everything.  A normal open would create PATH-wal and PATH-shm,
     * which needs the directory, and removing them afterwards needs the file writable. */
    return f->dir_writable && f->file_writable ? RDB_READ_NORMAL : RDB_READ_IMMUTABLE;
}

/* PATH + suffix in a new string. */
static char *rdb_side_path(const char *path, const char *suffix)
{
    size_t n = strlen(path) + strlen(suffix) + 1;
    char *p = sgd_xmalloc(n);
    snprintf(p, n, "%s%s", path, suffix);
    return p;
}

void rdb_reader_facts(const char *path, rdb_reader_facts_t *f)
{
    memset(f, 0, sizeof *f);
    char *dir = rdb_dir_of(path), *wal = rdb_side_path(path, "-wal"),
         *shm = rdb_side_path(path, "-shm");
    struct stat st;
    f->dir_writable = access(dir, W_OK | X_OK) == 0;
    f->file_writable = access(path, W_OK) == 0;
    f->wal_exists = stat(wal, &st) == 0;
    f->wal_empty = f->wal_exists && st.st_size == 0;
    f->shm_exists = stat(shm, &st) == 0;
    free(dir);
    free(wal);
    free(shm);
}

char *rdb_uri(const char *path, const char *query)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = strlen(path), q = query ? strlen(query) + 1 : 0;
    char *uri = sgd_xmalloc(7 + 3 * n + q + 1), *o = uri;
    /* "file://" + an absolute path keeps an empty authority even for "//x"; a relative
     * path follows "file:" directly. */
    const char *scheme = path[0] == '/' ? "file://" : "file:";
    memcpy(o, scheme, strlen(scheme));
    o += strlen(scheme);
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
            *p == '-' || *p == '.' || *p == '_' || *p == '~' || *p == '/') {
            *o++ = (char)*p;
        } else {
            *o++ = '%';
            *o++ = hex[*p >> 4];
            *o++ = hex[*p & 15];
        }
    }
    if (query) {
        *o++ = '?';
        memcpy(o, query, q - 1);
        o += q - 1;
    }
    *o = '\0';
    return uri;
}

/* Says once per path and process that a database is read in immutable mode (the readers
 * are single-threaded; a process opening more than RDB_NOTED_MAX such paths says it again). */
#define RDB_NOTED_MAX 64

static void rdb_note_immutable(const char *path, const rdb_reader_facts_t *f)
{
    static char *noted[RDB_NOTED_MAX];
    static int nnoted;
    for (int i = 0; i < nnoted; i++)
        if (strcmp(noted[i], path) == 0) return;
    if (nnoted < RDB_NOTED_MAX) noted[nnoted++] = sgd_xstrdup(path);
    fprintf(stderr, "sgdsim: note: %s: %s, so it is read as an unchangeable file (read-only "
            "access; SQLite's immutable mode)\n", path,
            f->dir_writable ? "the file is not writable" : "its directory is not writable");
}

int rdb_reader_plan(const char *path, char **uri, rdb_tidy_t *tidy, sgd_err_t *err)
{
    rdb_reader_facts_t f;
    rdb_reader_facts(path, &f);
    *uri = NULL;
    *tidy = RDB_TIDY_NONE;
    switch (rdb_read_mode(&f)) {
    case RDB_READ_REFUSE:
        return sgd_errf(err, "%s: cannot be read here: its log %s-wal holds transactions not "
                        "yet in the database, and %s-shm, which reading it needs, is missing "
                        "and cannot be created (directory not writable); copy the database "
                        "with its -wal file to writable storage", path, path, path);
    case RDB_READ_IMMUTABLE:
        rdb_note_immutable(path, &f);
        *uri = rdb_uri(path, "immutable=1");
        return 0;
    case RDB_READ_NORMAL:
        break;
    }
    /* Removing the side files needs the directory; folding the log in needs the file. */
    if (f.dir_writable && f.file_writable)
        *tidy = !f.wal_exists && !f.shm_exists ? RDB_TIDY_CREATED : RDB_TIDY_FOUND;
    *uri = rdb_uri(path, "mode=ro");
    return 0;
}

/* Whether tidying may open `path` for writing: some side file to remove, and no rollback
 * journal, which a read-write connection would play back. */
static bool rdb_tidy_wanted(const char *path)
{
    char *wal = rdb_side_path(path, "-wal"), *shm = rdb_side_path(path, "-shm"),
         *journal = rdb_side_path(path, "-journal");
    bool left = access(wal, F_OK) == 0 || access(shm, F_OK) == 0;
    bool hot = access(journal, F_OK) == 0;
    free(wal);
    free(shm);
    free(journal);
    return left && !hot;
}

/* How long the tidying connection waits for a writer's checkpoint or recovery. */
#define RDB_TIDY_BUSY_MS 5000

void rdb_reader_tidy(const char *path, rdb_tidy_t tidy, bool accepted)
{
    if (tidy == RDB_TIDY_NONE || (tidy == RDB_TIDY_FOUND && !accepted)) return;
    if (!rdb_tidy_wanted(path)) return;
    /* Reading once makes the connection open the log; closing the last connection that
     * may write checkpoints the log (committed transactions a killed writer left there
     * reach the file) and deletes both files. */
    char *uri = rdb_uri(path, NULL);
    sqlite3 *h = NULL;
    if (sqlite3_open_v2(uri, &h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI, NULL) == SQLITE_OK) {
        sqlite3_db_config(h, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
        sqlite3_busy_timeout(h, RDB_TIDY_BUSY_MS);
        sqlite3_exec(h, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
    }
    sqlite3_close(h);
    free(uri);
}
