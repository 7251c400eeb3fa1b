/* The results database handle's insides, shared by rdb.c (opening, closing), rdb_schema.c
 * (the schema), rdb_write.c (runs and their buffered rows) and the readers.  Private to
 * results/. */
#ifndef SGDSIM_RESULTS_RDB_INTERNAL_H
#define SGDSIM_RESULTS_RDB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "common/error.h"
#include "results/rdb.h"
#include "results/rdb_lease.h"
#include "results/rdb_reader.h"

/* SQLite's own clock, so started_at and finished_at have one format (millisecond UTC). */
#define RDB_NOW_SQL "strftime('%Y-%m-%dT%H:%M:%fZ','now')"

typedef enum {
    ROW_METRIC,
    ROW_TRAFFIC,
    ROW_STALENESS,
    ROW_VERSION_AGE,
    ROW_CLIENT_LABEL
} rdb_row_kind_t;

/* One buffered row.  Rows are written in the order they were buffered, so the database
 * content (and any upsert arithmetic) is a function of the caller's call sequence only. */
typedef struct rdb_row {
    rdb_row_kind_t kind;
    int64_t run_id;
    int64_t v[4];  /* metric: update, vtime_ns; traffic: 4 counters; staleness: tau, count;
                      version_age: age, count; client label: client, label, count */
    double value;  /* metric value */
    size_t text;   /* offset in the text arena: metric name or traffic kind */
} rdb_row_t;

/* A run begun on this handle and not yet ended. */
typedef struct rdb_active {
    int64_t run_id;
    int lost; /* a batch holding rows of this run failed to commit */
    bool gone; /* its lease was found deleted or taken (rdb_lease_renew): it writes nothing */
    char token[RDB_TOKEN_LEN + 1]; /* the lease token only this handle knows */
} rdb_active_t;

struct rdb {
    sqlite3 *db;
    char *path;
    int readonly;
    rdb_tidy_t tidy; /* a reader's side files: rdb_reader_tidy at close */
    bool ready;      /* opened and its schema accepted (a refused file is left alone) */
    sqlite3_stmt *ins_metric, *ins_traffic, *ins_staleness, *ins_version_age;
    sqlite3_stmt *ins_client_label;
    rdb_row_t *rows; /* pending rows */
    size_t nrows, caprows;
    char *text; /* NUL-separated names of pending rows */
    size_t ntext, captext;
    rdb_active_t *active;
    size_t nactive, capactive;
    char lost_msg[SGD_ERR_MAX]; /* first failed batch's error, for the runs it cost rows */
    bool allow_older; /* a read-only source of rdb_merge: an older schema is accepted */
    /* When buffered rows were last written (or the handle opened), on clock_ms: a batch is
     * also written once RDB_COMMIT_EVERY_MS have passed, so readers see a long run's rows
     * while it goes.  The clock decides only when rows are written, never what. */
    int64_t (*clock_ms)(void);
    int64_t last_write_ms;
    int64_t version;  /* the file's schema version (a reader's may be older than this build's) */
    int busy_ms;      /* how long to wait for another connection's transaction */
    int64_t not_numbers; /* metric rows a reader left out: their value is not a number */
    char not_number_first[160]; /* the first of them, for the warning at close */
};

/* Milliseconds of CLOCK_MONOTONIC, every handle's clock_ms unless a test replaces it. */
int64_t rdb_monotonic_ms(void);

/* Replaces the handle's clock (tests: a clock they advance themselves) and restarts the
 * interval from its present reading. */
void rdb_set_clock(rdb_t *db, int64_t (*clock_ms)(void));

/* -1 with "PATH: what: SQLite's message" in err. */
int rdb_sqlerr(const rdb_t *db, const char *what, sgd_err_t *err);
/* Runs sql (no rows); -1 with rdb_sqlerr's message. */
int rdb_exec(rdb_t *db, const char *sql, const char *what, sgd_err_t *err);
/* Rolls back the open transaction, if any. */
void rdb_rollback(rdb_t *db);
/* Runs a statement returning one integer (a PRAGMA or a count) into *out. */
int rdb_query_int(rdb_t *db, const char *sql, int64_t *out, sgd_err_t *err);

/* rdb_schema.c: refuses a file that is not an sgdsim results database this build can open
 * (its identity, version and planted objects), before the connection is set up ... */
int rdb_schema_refuse_foreign(rdb_t *db, sgd_err_t *err);
/* ... and under the write lock checks it again and migrates it to RDB_SCHEMA_VERSION (a
 * writer) or takes it as it is (a reader). */
int rdb_schema_prepare(rdb_t *db, sgd_err_t *err);
/* For a reader that reads every view whole (export): refuses, naming them, the views
 * sgdsim's migrations to the file's version would not have made -- another name, or
 * sgdsim's name with SQL that is not the one sgdsim wrote -- since a view may compute
 * without end.  Compared with a database those migrations build in memory. */
int rdb_schema_refuse_unknown(rdb_t *db, sgd_err_t *err);

/* Makes run_id, whose lease with `token` the caller has just committed, active on this
 * handle (rdb_run_begin, rdb_run_resume): its rows may be written from now on. */
void rdb_activate(rdb_t *db, int64_t run_id, const char *token);

/* How the metric value at columns (vc: value, nc: nonfinite) of st's current row reads: 1
 * with a finite number in *v (*kind 0), or a non-finite one (*v NaN, *kind 'n', 'i' or '-':
 * from the nonfinite column, or from a REAL infinity another program stored in value); 0
 * when it is not a number at all (TEXT or a BLOB in value, or NULL in both columns), which
 * the reader leaves out: it is counted on db, and rdb_close warns about it once. */
int rdb_metric_cell(rdb_t *db, sqlite3_stmt *st, int vc, int nc, int64_t run, const char *name,
                    int64_t update, double *v, char *kind);

/* name as an SQL identifier: in double quotes, each double quote inside doubled, of any
 * length (a new string the caller frees).  Every identifier that reaches SQL text from a
 * database (a column of a file being merged) or a caller goes through it, never "%s". */
char *rdb_quote_ident(const char *name);

#endif
