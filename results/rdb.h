/* Results database writer: the SQLite file every sgdsim run is recorded in.
 *
 * One database holds many runs (runs, metrics, traffic, staleness, version_age, tags,
 * artifacts, plus the run_summary, finished_runs, params and final_metrics views); its schema is a public contract documented in docs/results.md and versioned with
 * PRAGMA user_version (RDB_SCHEMA_VERSION) and PRAGMA application_id (RDB_APPLICATION_ID).
 * Several processes may write to one database at once (a sweep with -jN): the file is kept
 * in WAL mode with a busy timeout and every write transaction is BEGIN IMMEDIATE.  Each
 * running run holds a lease (rdb_lease.h) that its writer renews, and checks, with every
 * commit: a writer whose run was deleted or taken over stops (rdb_run_gone), and run ids are
 * never reused.
 *
 * Life of a run on one handle:
 *     rdb_run_begin   inserts the runs row with status 'running' and its lease and commits
 *                     at once, so a crashed run is visible as 'running' forever after;
 *     rdb_metric / rdb_traffic / rdb_staleness / rdb_version_age / rdb_client_labels
 *                     append to an in-memory buffer; every RDB_BATCH_ROWS buffered rows, and
 *                     the rows buffered when RDB_COMMIT_EVERY_MS of wall time have passed
 *                     since the last write, are written in one transaction (a killed process
 *                     leaves whole batches only; readers see a long run's rows as it goes);
 *     rdb_run_end     writes the rest of the buffer and the final status in ONE transaction,
 *                     so a run reads 'complete' only together with all of its rows.
 *
 * If writing a batch fails (disk full, I/O error, busy for longer than the timeout) the
 * batch's rows are discarded and every run that had rows in it is marked as having lost
 * rows: further rows for it are refused and it can no longer end 'complete', only 'failed'
 * or 'diverged'.  That keeps 'complete' meaning "every row is there".
 *
 * Ownership: rdb_open/rdb_open_readonly allocate the handle, rdb_close frees it.  All
 * strings passed in are copied or written before the call returns; the caller keeps them.
 * A handle must be used by one thread at a time and must not cross fork() (open a new one
 * in the child).  Every function that can fail returns 0 or -1 with a message in err that
 * starts with the database path. */
#ifndef SGDSIM_RESULTS_RDB_H
#define SGDSIM_RESULTS_RDB_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"

#define RDB_SCHEMA_VERSION 6          /* PRAGMA user_version written by this build */
#define RDB_READ_MIN_VERSION 2        /* oldest schema rdb_open_readonly reads as it is */
#define RDB_MERGE_MIN_VERSION 1       /* oldest schema rdb_merge takes as an input */
#define RDB_APPLICATION_ID 0x53474453 /* PRAGMA application_id, "SGDS" in ASCII */
#define RDB_BATCH_ROWS 4096           /* buffered rows written per transaction */
#define RDB_COMMIT_EVERY_MS 2000      /* a row buffered this long after the last write: write */

typedef struct rdb rdb_t;

/* Opens (creating if needed) a results database for writing.  A new or empty file gets the
 * current schema; an older sgdsim schema is migrated in one transaction.  Refused, with a
 * message naming the path: a file that is not SQLite, an SQLite database that already holds
 * tables but is not an sgdsim results database, a database written by a newer sgdsim, a
 * path whose directory is missing, not a directory or not writable, and a file that cannot
 * be opened for writing.  A refused file is not changed (its identity is read before the
 * switch to WAL mode).  ":memory:" opens a private in-memory database (tests).
 * On success *out is a new handle owned by the caller (rdb_close). */
int rdb_open(const char *path, rdb_t **out, sgd_err_t *err);

/* Opens an existing results database for reading only (SQLITE_OPEN_READONLY); a missing
 * file, a schema older than RDB_READ_MIN_VERSION (open it once with rdb_open to migrate) or
 * a newer one is an error.  A schema between the two is read as it is (results/rdb_read.h
 * knows what it lacks).
 * The write functions below fail on such a handle.  Works on read-only media and leaves no
 * PATH-wal/-shm that were not there (results/rdb_reader.h: where the directory or the file
 * is not writable and no log exists, the file is opened as immutable, which is said once
 * on stderr).  The file's bytes never change. */
int rdb_open_readonly(const char *path, rdb_t **out, sgd_err_t *err);

/* Closes and frees the handle (NULL is allowed).  Flushes nothing: buffered rows of runs
 * that were not ended are discarded by design and those runs stay 'running', exactly as
 * if the process had been killed. */
void rdb_close(rdb_t *db);

/* The underlying SQLite connection, still owned by the handle, for `sgdsim query` and tests
 * (which include <sqlite3.h> themselves; nothing else outside results/ touches SQLite). */
struct sqlite3;
struct sqlite3 *rdb_handle(rdb_t *db);

/* The path the handle was opened with (owned by the handle). */
const char *rdb_path(const rdb_t *db);

/* A tag of a run (`run --tag key=value`): a non-empty key, distinct within the run. */
typedef struct rdb_tag {
    const char *key, *value;
} rdb_tag_t;

/* Provenance of one run.  Any string may be NULL (stored as SQL NULL). */
typedef struct rdb_run_info {
    const char *run_key;        /* deterministic key: the configuration hash */
    const char *scenario_name;  /* scenario's "name" */
    const char *scenario_path;  /* file the scenario was loaded from, as given */
    const char *algorithm;      /* csgd, lsgd, sasgd, fasgd, bfasgd, ... */
    int64_t workers;            /* workers (synchronous) or clients lambda (asynchronous) */
    uint64_t seed;              /* master seed; stored as the signed 64-bit reinterpretation */
    const char *backend;        /* numerics backend, e.g. "cpu", "cuda", "cost-only" */
    const char *config_json;    /* resolved configuration, JSON with exact numbers */
    const char *config_hash;    /* SHA-256 hex of config_json's canonical form
                                   (sgd_config_hash_text) */
    const char *sgdsim_version; /* SGD_VERSION */
    const char *git_rev;        /* SGD_GIT_REV (git describe --dirty) */
    const char *build_options;  /* build type, sanitizers, CUDA ... */
    const char *blas_core;      /* openblas_get_corename(): digests compare only within one */
    const char *host;           /* host name */
    const rdb_tag_t *tags;      /* ntags tags, written with the runs row (results/rdb_meta.h) */
    size_t ntags;
    const char *sweep_axes;     /* JSON array of the key paths a sweep varied, e.g.
                                   ["cluster.workers"]; NULL for a plain run */
    const char *command_line;   /* the run's command line, words shell-quoted */
} rdb_run_info_t;

/* Inserts a runs row with status 'running' and started_at = now (UTC, ISO-8601), and its
 * tags, and commits them immediately; *run_id receives its id.  The run is then active on this handle until
 * rdb_run_end. */
int rdb_run_begin(rdb_t *db, const rdb_run_info_t *info, int64_t *run_id, sgd_err_t *err);

/* Buffers one metric row (run, update, virtual time in ns, name, value) of an active run.
 * A non-finite value is stored as value NULL with nonfinite 'nan', 'inf' or '-inf'.
 * Writing the same (run, name, update) twice keeps the later row.  May write a batch. */
int rdb_metric(rdb_t *db, int64_t run_id, int64_t update, int64_t vtime_ns, const char *name,
               double value, sgd_err_t *err);

/* Buffers traffic counters of one kind (free text: "push", "fetch", "reduce", "allreduce",
 * "broadcast", ...).  Counters are added to what (run, kind) already holds, so callers may
 * report totals once or increments many times.  Each counter must be <= INT64_MAX. */
int rdb_traffic(rdb_t *db, int64_t run_id, const char *kind, uint64_t sent_msgs,
                uint64_t sent_bytes, uint64_t skipped_msgs, uint64_t skipped_bytes,
                sgd_err_t *err);

/* Buffers one staleness histogram bin: count gradients applied with staleness tau >= 0.
 * Counts are added to what (run, tau) already holds. */
int rdb_staleness(rdb_t *db, int64_t run_id, int64_t tau, int64_t count, sgd_err_t *err);

/* Buffers one parameter-age histogram bin (schema 3): count gradients applied on parameters
 * `age` >= 0 versions old.  Counts are added to what (run, age) already holds. */
int rdb_version_age(rdb_t *db, int64_t run_id, int64_t age, int64_t count, sgd_err_t *err);

/* Buffers one entry of the run's data partition (schema 6): client >= 0 holds count >= 1
 * training samples of label >= 0.  A second entry of the same (client, label) replaces the
 * first. */
int rdb_client_labels(rdb_t *db, int64_t run_id, int64_t client, int64_t label, int64_t count,
                      sgd_err_t *err);

/* Writes every buffered row now, in one transaction (no-op when nothing is buffered). */
int rdb_flush(rdb_t *db, sgd_err_t *err);

/* Whether run_id, active on this handle, was found deleted or taken over by another process
 * at a commit (its lease, docs/results.md "What sgdsim guarantees about concurrent
 * writers"): every later write of it fails, and nothing more of it is recorded. */
bool rdb_run_gone(rdb_t *db, int64_t run_id);

/* Final state of a run. */
typedef struct rdb_run_end {
    const char *status;        /* "complete" | "failed" | "diverged" */
    const char *status_detail; /* NULL or a message, e.g. "loss became NaN at update 123" */
    int64_t vtime_ns;          /* final virtual time, ns */
    int64_t updates;           /* parameter updates applied */
    int64_t events;            /* simulator events processed */
    double wall_s;             /* wall-clock seconds of the run (non-finite -> NULL) */
    double events_per_s;       /* events / wall_s (non-finite -> NULL) */
    const char *digest;        /* run digest (SHA-256 hex); may be NULL, e.g. when failed */
} rdb_run_end_t;

/* Writes all buffered rows and the run's final status, finished_at and counters in ONE
 * transaction, then ends the run on this handle.  The run must be active on this handle
 * and still 'running' in the database.  A run that lost rows (see above) can only end
 * 'failed' or 'diverged'; if status_detail is NULL the loss is recorded there. */
int rdb_run_end(rdb_t *db, int64_t run_id, const rdb_run_end_t *end, sgd_err_t *err);

#endif
