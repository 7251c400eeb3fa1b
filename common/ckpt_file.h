/* The checkpoint file: a contract between the run that wrote it and the run that resumes
 * from it (docs/results.md, "Checkpoint files").
 *
 *     magic          8 bytes "SGDCKPT\n"
 *     format         u64, SGD_CKPT_FORMAT
 *     header         strings (u64 length + bytes): sgdsim version, git revision, BLAS
 *                    kernel, algorithm, run key, scenario hash, the run's started_at in its
 *                    database; then i64 run id, i64 updates applied, and what the database
 *                    must hold for the run to go on: i64 metric rows of the run and i64 the
 *                    largest update index among them (-1: none)
 *     payload        u64 length + bytes: the run's state (common/ckbuf.h sections)
 *     sha256         32 bytes: SHA-256 of every byte before it
 *
 * Integers are little-endian.  The file is written to a temporary file beside its target,
 * fsync'ed, renamed over the target and the directory fsync'ed, so a crash at any moment
 * leaves the old checkpoint or the new one, never a mix.  The reader refuses, naming the
 * file, anything that is not exactly such a file: another magic (a foreign file), another
 * format, a file cut short or with bytes after its end, a digest that does not match.
 * Whether the header matches the run being resumed is the caller's check
 * (sgd_ckpt_meta_diff). */
#ifndef SGDSIM_COMMON_CKPT_FILE_H
#define SGDSIM_COMMON_CKPT_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/sha256.h"

#define SGD_CKPT_MAGIC "SGDCKPT\n"
/* 2: the database's rows in the header (db_rows, db_last_update).  A file of another
 * format is refused, naming both. */
#define SGD_CKPT_FORMAT 2

typedef struct sgd_ckpt_meta {
    char sgdsim_version[64];
    char git_rev[128];
    char blas_core[64];
    char algorithm[64];
    char run_key[SGD_SHA256_HEX_LEN + 1];       /* the configuration hash */
    char scenario_hash[SGD_SHA256_HEX_LEN + 1]; /* SHA-256 of the resolved configuration */
    char run_started[64]; /* runs.started_at of the run: with run_id, the database's run */
    int64_t run_id;
    int64_t updates;
    /* What the database held when the checkpoint was written (its rows are committed
     * first): the run's metric rows and the largest update index among them (-1: none).
     * A database that holds fewer is older than the checkpoint. */
    int64_t db_rows;
    int64_t db_last_update;
} sgd_ckpt_meta_t;

/* Writes a checkpoint atomically (above).  0, or -1 with "PATH: cannot write: why"; the
 * previous file at path is then untouched. */
int sgd_ckpt_write(const char *path, const sgd_ckpt_meta_t *m, const void *payload, size_t n,
                   sgd_err_t *err);

/* Checks the bytes of a whole checkpoint file and points *payload into them.  0, or -1 with
 * the reason (no file name) in err. */
int sgd_ckpt_parse(const void *bytes, size_t len, sgd_ckpt_meta_t *m, const uint8_t **payload,
                   size_t *n, sgd_err_t *err);

/* Reads and checks the checkpoint at path; *file receives its bytes (free()), *payload
 * points into them.  The magic and the header are read first, from the file's first bytes,
 * and the file's size must be exactly what its header announces: a foreign or inconsistent
 * file is refused before anything its size would cost is allocated.  0, or -1 with
 * "PATH: why" in err. */
int sgd_ckpt_read(const char *path, sgd_ckpt_meta_t *m, uint8_t **file,
                  const uint8_t **payload, size_t *n, sgd_err_t *err);

/* Reads only the magic, format and header of the checkpoint at path (a few hundred bytes,
 * whatever the file's size), e.g. to learn which run it continues before a process is
 * started to resume it; the content and its digest are not checked (sgd_ckpt_read does
 * that).  0, or -1 with "PATH: why" in err. */
int sgd_ckpt_read_header(const char *path, sgd_ckpt_meta_t *m, sgd_err_t *err);

/* The first field in which a checkpoint's header (saved) differs from the run that would
 * resume it (now), as "FIELD: the checkpoint's A, this run's B" in buf; run id, started_at,
 * updates and the database's rows are not compared.  Returns 0 when they agree, -1 otherwise. */
int sgd_ckpt_meta_diff(const sgd_ckpt_meta_t *saved, const sgd_ckpt_meta_t *now, char *buf,
                       size_t size);

#endif
