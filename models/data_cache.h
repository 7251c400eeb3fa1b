/* The decoded-dataset cache: an IDX file (plain or .gz) is decoded once -- inflated and
 * converted to the floats or integers a dataset holds -- and the result is written to a cache
 * file, which later loads read into private memory instead of decompressing again.  Inflating
 * Fashion-MNIST was 28% of the quickstart run, on every run and every sweep point
 * (docs/performance.md has the figures with and without the cache).
 *
 * Key: the source file's content.  Every load hashes the source's bytes (XXH64, xxh64.h:
 * about 5 ms for Fashion-MNIST's 26 MB of training images, which take some 300 ms to inflate)
 * and looks for "idx-<hash>-<size>.<type>.v<version>" in the cache directory: a copy of the
 * same file elsewhere finds the same entry; a changed file, another one.  The hash covers the
 * bytes as stored (compressed or not), so nothing about paths, times or inodes is trusted.
 * The source is hashed and decoded through one open descriptor (the same file even if the
 * path is replaced meanwhile), and an entry is stored only if the file's size, mtime and
 * ctime did not change during the load.
 *
 * File format (version DCACHE_VERSION), in the byte order of the machine that wrote it:
 *
 *   offset  bytes  field
 *        0      8  magic "SGDDCACH"
 *        8      4  format version (uint32)
 *       12      4  header size = offset of the payload (uint32, DCACHE_HEADER_BYTES)
 *       16      4  byte-order mark 0x01020304 (uint32)
 *       20      4  element type (dcache_type_t)
 *       24      4  ndims (uint32, 1..IDX_MAX_DIMS)
 *       28      4  zero
 *       32     32  dims[IDX_MAX_DIMS] (int64; unused ones 0)
 *       64      8  source size in bytes (uint64)
 *       72      8  XXH64 of the source's bytes
 *       80      8  payload size in bytes = product(dims) x 4 (uint64)
 *       88      8  XXH64 of the payload
 *       96      8  XXH64 of bytes 0..95 (the header so far)
 *      104     24  zero
 *      128      -  payload: product(dims) floats or int32s, row-major
 *
 * The first 20 bytes keep their meaning in every version, so a file of another version or
 * machine is named as such.  Floats rather than the IDX bytes are stored so that a load is
 * one read: converting 47 M pixels cost about half as much again as the inflating.  The
 * price is 4 bytes per pixel on disk (210 MB for Fashion-MNIST).
 *
 * Guarantees (docs/scenario.md and the README point here):
 *   - A run never depends on a cache file after its load.  An entry is read (pread, never
 *     mapped) into the process's own memory and every check is made on that copy, so an
 *     entry rewritten, cut short or deleted while a run uses the data changes nothing for it
 *     -- no SIGBUS, no other bytes.  (Entries used to be mapped: a file cut short killed the
 *     run with SIGBUS, one rewritten in place changed its data.)  The cost: the
 *     copy, and no sharing of the pages between processes (docs/performance.md).
 *   - Nothing in a cache file is trusted: a load checks the magic, the version, the byte
 *     order, the header's hash, that the entry was made from this source's bytes for this
 *     type, the dimensions, the file's size, and the payload's hash (about 40 ms for the
 *     188 MB of training floats) before using a single value.  A file that fails any check
 *     is reported on the warning stream and rebuilt.
 *   - Only regular files are entries.  The entry is opened with O_NONBLOCK | O_NOFOLLOW: a
 *     FIFO, socket or device there is not waited on, a symbolic link is not followed, a
 *     directory is not read; each is reported and replaced by the rebuilt entry (a directory
 *     cannot be replaced: the load goes on without storing, with a warning).
 *   - Writes are atomic: a temporary file in the same directory (O_CREAT | O_EXCL |
 *     O_NOFOLLOW, named after the process) is written, fsync'ed and renamed over the entry,
 *     then the directory is fsync'ed; a reader sees a whole entry or none, and processes
 *     building the same entry at once (sweep points) each rename an identical file -- the
 *     last one wins.  Entries are never changed in place.
 *   - The directory holds at most a bound of bytes of entries (DCACHE_DEFAULT_MAX_BYTES, or
 *     $SGDSIM_CACHE_MAX_SIZE): after a store, least recently used entries (by mtime, which
 *     a hit sets) are deleted until the rest fit, and an entry larger than the bound is not
 *     stored.  Deleting an entry, or the whole directory, at any time is safe, since no
 *     process reads an entry after its load.
 *   - A cache problem is never an error: the worst case is a decode as if there were no
 *     cache, and the values are the same bits either way.
 *
 * A directory that cannot be created or written is not an error: the load goes on without
 * storing, says so once per dcache_t on the warning stream, and later loads through the same
 * handle stop trying to store (they still use entries that can be read).
 *
 * Knows nothing about virtual time (models/, docs/design.md). */
#ifndef SGDSIM_MODELS_DATA_CACHE_H
#define SGDSIM_MODELS_DATA_CACHE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "common/error.h"
#include "models/idx.h"

#define DCACHE_VERSION 1
#define DCACHE_HEADER_BYTES 128
#define DCACHE_MAGIC "SGDDCACH"
#define DCACHE_BYTE_ORDER UINT32_C(0x01020304)
/* The environment variable that names the cache directory when the scenario does not;
 * the value "off" disables the cache. */
#define DCACHE_ENV_DIR "SGDSIM_CACHE_DIR"
/* The bound on the bytes of entries a cache directory holds, unless $SGDSIM_CACHE_MAX_SIZE
 * says otherwise (bytes, or a number with K, M, G or T, powers of 1024; 0 stores nothing):
 * 4 GiB, some twenty data sets the size of Fashion-MNIST (210 MB of entries). */
#define DCACHE_DEFAULT_MAX_BYTES (UINT64_C(4) << 30)
#define DCACHE_ENV_MAX "SGDSIM_CACHE_MAX_SIZE"

/* How an IDX file's unsigned bytes are decoded; both are 4 bytes per element. */
typedef enum {
    DCACHE_F32 = 1, /* float: byte / 255.0f (images, scaled to [0, 1]) */
    DCACHE_I32 = 2, /* int32_t: the byte's value (labels) */
} dcache_type_t;

/* An IDX file decoded to `type`. */
typedef struct dcache_array {
    dcache_type_t type;
    int ndims;                  /* 1..IDX_MAX_DIMS */
    int64_t dims[IDX_MAX_DIMS]; /* as in the IDX header; unused entries 0 */
    void *data; /* product(dims) elements of type, row-major; heap memory, owned */
} dcache_array_t;

/* One cache handle, caller-allocated (dcache_init / dcache_free); a run uses one for all its
 * files, so its warning is printed once per run. */
typedef struct dcache {
    char *dir;        /* cache directory (owned), NULL: caching off */
    uint64_t max_bytes; /* the directory's bound (dcache_bound) */
    FILE *warn;       /* where warnings go (stderr in a run), NULL: nowhere */
    bool no_store;    /* storing failed once: later misses are not stored, nor warned about */
    int64_t hits;     /* loads served from a cache file */
    int64_t stores;   /* cache files written */
    int64_t rejected; /* cache files that failed a check (and were rebuilt, if possible) */
    char why[256];    /* the reason of the latest rejection or failed store, "" if none */
} dcache_t;

/* Sets up *c.  Which directory, first match wins:
 *   enabled false                      -> off (dir NULL)
 *   dir non-NULL and non-empty         -> dir (the scenario's data.cache_dir, resolved)
 *   $SGDSIM_CACHE_DIR, non-empty       -> it, or off if it is "off"
 *   $XDG_CACHE_HOME, an absolute path  -> $XDG_CACHE_HOME/sgdsim
 *   $HOME, non-empty                   -> $HOME/.cache/sgdsim
 *   otherwise                          -> off, with a warning on `warn`
 * Nothing is created yet: the directory (and its parents) are made at the first store. */
void dcache_init(dcache_t *c, bool enabled, const char *dir, FILE *warn);

/* The bound on a cache directory's entries: $SGDSIM_CACHE_MAX_SIZE, or
 * DCACHE_DEFAULT_MAX_BYTES when it is unset, empty or not a size (then with a warning on
 * `warn`, if not NULL). */
uint64_t dcache_bound(FILE *warn);

/* Parses a size: decimal bytes, or a number followed by K, M, G or T (powers of 1024, any
 * case, optionally followed by "B" or "iB": "500M", "4GiB").  Returns 0, or -1 if s is not
 * one (or overflows 64 bits). */
int dcache_parse_size(const char *s, uint64_t *bytes);

/* One entry of a cache directory. */
typedef struct dcache_entry {
    char name[128];       /* file name in the directory */
    uint64_t bytes;       /* its size */
    struct timespec used; /* its last use: the mtime, which a store or a hit sets */
} dcache_entry_t;

/* The entries of dir, least recently used first, into *out (malloc'ed, the caller frees;
 * NULL when none) and *n: regular files named idx-*, not temporary files, that start with
 * sgdsim's own header (the magic and a byte-order mark, of any version or byte order).  A
 * file named like an entry or a temporary file without that header is another program's:
 * it is never listed, pruned or deleted, only counted in *nforeign (when not NULL).  Temporary
 * files ("<entry>.tmp.<pid>.<k>") with the header and older than an hour, left by a process
 * that died while writing, are deleted on the way (one that died before writing its header,
 * an empty file, is left alone: nothing says whose it is).  A missing directory has none.
 * Returns 0, or -1 with err when dir cannot be read. */
int dcache_list(const char *dir, dcache_entry_t **out, size_t *n, size_t *nforeign,
                sgd_err_t *err);

/* What dcache_prune did. */
typedef struct dcache_pruned {
    uint64_t removed, removed_bytes; /* entries deleted and their bytes */
    uint64_t kept, kept_bytes;       /* entries left and their bytes */
    uint64_t foreign;                /* files named like entries, not sgdsim's: left alone */
} dcache_pruned_t;

/* Deletes dir's least recently used entries (dcache_list's: never another program's file)
 * until the rest total at most max_bytes, never the one named keep (a file name in dir, or
 * NULL).  Safe while runs use the cache.  Returns 0, or -1 with err when dir cannot be
 * read. */
int dcache_prune(const char *dir, uint64_t max_bytes, const char *keep, dcache_pruned_t *res,
                 sgd_err_t *err);

/* Releases c->dir and zeroes *c.  Arrays loaded through c stay valid. */
void dcache_free(dcache_t *c);

/* Loads the IDX file `path` decoded as `type` into *out: from its cache entry when a valid one
 * exists, otherwise by reading the file (idx.h; same messages) and storing the entry.  c may
 * be NULL (no cache); a source that is not a regular file is read without the cache.  The
 * values are the same bits either way.  Returns 0, or -1 with err naming path (only for a bad
 * or unreadable source file -- never for a cache problem); on failure *out is empty.  The
 * caller owns *out: dcache_array_free. */
int dcache_load_idx(dcache_t *c, const char *path, dcache_type_t type, dcache_array_t *out,
                    sgd_err_t *err);

/* The path of the cache entry `path` decoded as `type` would use in c's directory, malloc'ed
 * (the caller frees), or NULL when c is off or path cannot be read (tests, diagnostics). */
char *dcache_entry_path(const dcache_t *c, const char *path, dcache_type_t type);

/* Frees a's data and zeroes *a.  Safe on a zeroed array. */
void dcache_array_free(dcache_array_t *a);

#endif
