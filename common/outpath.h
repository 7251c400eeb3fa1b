/* Files a command writes: the guard that keeps an output from replacing one of the
 * command's inputs, and the safe way to create the output (docs/results.md, "Files sgdsim
 * writes").
 *
 * The guard compares files, not names: a target is refused when it is (by device and
 * inode, so symlinks, "./" and hard links do not fool it) an input, or when its resolved
 * directory and base name are those of an input or of one of a database input's companions
 * (-wal, -shm, -journal) whether that companion exists yet or not.  A target that is itself
 * a SQLite database (--db, merge's OUT) is also refused when one of its own companions
 * would be an input.
 *
 * An output file is written as a temporary file beside its target, created with
 * O_CREAT | O_EXCL | O_NOFOLLOW (never through a planted file or symlink), and renamed over
 * the target only once complete; a target that exists and is no regular file (/dev/full, a
 * FIFO) is written directly, since it cannot be replaced. */
#ifndef SGD_COMMON_OUTPATH_H
#define SGD_COMMON_OUTPATH_H

#include <stdbool.h>
#include <stddef.h>

#include "common/error.h"

/* One file a command reads (or updates) that none of its outputs may replace. */
typedef struct sgd_outpath_input {
    const char *path;
    const char *what; /* for the message, e.g. "the results database given with --db" */
    bool db;          /* a SQLite database: its -wal, -shm and -journal are protected too */
} sgd_outpath_input_t;

/* 0 when target may be written; -1 with "LABEL: is WHAT (PATH); refusing to overwrite it"
 * in err when it is one of in[0..n) or their companions.  label names the option and the
 * target as the user gave them ("--trace a.db"); target_db: target is a SQLite database. */
int sgd_outpath_check(const char *label, const char *target, bool target_db,
                      const sgd_outpath_input_t *in, size_t n, sgd_err_t *err);

/* The same for an open file descriptor the command will write to (--progress-fd): -1 when
 * it is open on one of the inputs or their existing companions. */
int sgd_outpath_check_fd(const char *label, int fd, const sgd_outpath_input_t *in, size_t n,
                         sgd_err_t *err);

/* An output file being written: fd is open for writing; tmp is NULL when the target is
 * written directly (no regular file). */
typedef struct sgd_outfile {
    int fd;
    char *path; /* the target (owned) */
    char *tmp;  /* the temporary file beside it, or NULL (owned) */
} sgd_outfile_t;

/* Creates the temporary file for path (or opens a non-regular path directly); 0, or -1
 * with "PATH: cannot write: why" in err and errno set. */
int sgd_outfile_open(sgd_outfile_t *o, const char *path, sgd_err_t *err);

/* Closes fd (unless it was already closed: pass closed = true, e.g. after fclose of an
 * fdopen'ed stream) and renames the temporary file over the target; 0, or -1 with the
 * reason in err after removing the temporary file.  Frees what o holds either way. */
int sgd_outfile_commit(sgd_outfile_t *o, bool closed, sgd_err_t *err);

/* Closes fd (unless closed) and removes the temporary file; the target is untouched. */
void sgd_outfile_abort(sgd_outfile_t *o, bool closed);

#endif
