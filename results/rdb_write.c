/* The results database writer's runs and rows (rdb.h, "Life of a run"): beginning a run,
 * buffering its metric, traffic and staleness rows, writing them in batches, and ending it
 * in one transaction with the rest of its rows. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "results/rdb_internal.h"
#include "results/rdb_meta.h"

int64_t rdb_monotonic_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

void rdb_set_clock(rdb_t *db, int64_t (*clock_ms)(void))
{
    db->clock_ms = clock_ms;
    db->last_write_ms = clock_ms();
}

static rdb_active_t *rdb_find_active(rdb_t *db, int64_t run_id)
{
    for (size_t i = 0; i < db->nactive; i++)
        if (db->active[i].run_id == run_id) return &db->active[i];
    return NULL;
}

/* Checks that rows may be added to run_id on this handle. */
static rdb_active_t *rdb_writable_run(rdb_t *db, int64_t run_id, sgd_err_t *err)
{
    if (db->readonly) {
        sgd_errf(err, "%s: opened read-only, cannot write run %lld", db->path,
                 (long long)run_id);
        return NULL;
    }
    rdb_active_t *a = rdb_find_active(db, run_id);
    if (!a) {
        sgd_errf(err, "%s: run %lld is not active on this handle (not begun here, or "
                 "already ended)", db->path, (long long)run_id);
        return NULL;
    }
    if (a->gone) {
        sgd_errf(err, "%s: run %lld was deleted or taken over by another process; nothing "
                 "more of it is written", db->path, (long long)run_id);
        return NULL;
    }
    return a;
}

bool rdb_run_gone(rdb_t *db, int64_t run_id)
{
    rdb_active_t *a = rdb_find_active(db, run_id);
    return a && a->gone;
}

static int rdb_bind_text(sqlite3_stmt *st, int i, const char *s)
{
    return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC) : sqlite3_bind_null(st, i);
}

/* Binds a double, storing NULL for NaN/Inf (SQLite would store NaN as NULL anyway and Inf
 * as a REAL that most client libraries cannot read back). */
static int rdb_bind_finite(sqlite3_stmt *st, int i, double x)
{
    return isfinite(x) ? sqlite3_bind_double(st, i, x) : sqlite3_bind_null(st, i);
}

void rdb_activate(rdb_t *db, int64_t run_id, const char *token)
{
    if (db->nactive == db->capactive) {
        db->capactive = db->capactive ? 2 * db->capactive : 4;
        db->active = sgd_xrealloc(db->active, db->capactive * sizeof *db->active);
    }
    rdb_active_t *a = &db->active[db->nactive++];
    *a = (rdb_active_t){.run_id = run_id, .lost = 0};
    memcpy(a->token, token, sizeof a->token);
}

int rdb_run_begin(rdb_t *db, const rdb_run_info_t *info, int64_t *run_id, sgd_err_t *err)
{
    if (db->readonly) return sgd_errf(err, "%s: opened read-only, cannot begin a run", db->path);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db->db,
            "INSERT INTO runs(run_key, scenario, scenario_path, algorithm, workers, seed,"
            " backend, config_json, config_hash, sgdsim_version, git_rev, build_options,"
            " blas_core, host, sweep_axes, command_line, status, started_at) VALUES (?1, ?2,"
            " ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, 'running', "
            RDB_NOW_SQL ")",
            -1, &st, NULL) != SQLITE_OK)
        return rdb_sqlerr(db, "cannot begin a run", err);
    /* The seed is a full 64-bit value; SQLite integers are signed, so it is stored as the
     * same 64 bits read as int64 (memcpy: the conversion is then defined, not wrapped). */
    int64_t seed;
    memcpy(&seed, &info->seed, sizeof seed);
    rdb_bind_text(st, 1, info->run_key);
    rdb_bind_text(st, 2, info->scenario_name);
    rdb_bind_text(st, 3, info->scenario_path);
    rdb_bind_text(st, 4, info->algorithm);
    sqlite3_bind_int64(st, 5, info->workers);
    sqlite3_bind_int64(st, 6, seed);
    rdb_bind_text(st, 7, info->backend);
    rdb_bind_text(st, 8, info->config_json);
    rdb_bind_text(st, 9, info->config_hash);
    rdb_bind_text(st, 10, info->sgdsim_version);
    rdb_bind_text(st, 11, info->git_rev);
    rdb_bind_text(st, 12, info->build_options);
    rdb_bind_text(st, 13, info->blas_core);
    rdb_bind_text(st, 14, info->host);
    rdb_bind_text(st, 15, info->sweep_axes);
    rdb_bind_text(st, 16, info->command_line);

    if (rdb_exec(db, "BEGIN IMMEDIATE", "cannot begin a run", err)) goto fail;
    if (sqlite3_step(st) != SQLITE_DONE) {
        rdb_sqlerr(db, "cannot begin a run", err);
        goto fail;
    }
    int64_t id = sqlite3_last_insert_rowid(db->db);
    char token[RDB_TOKEN_LEN + 1];
    if (rdb_lease_take(db, id, token, err) ||
        rdb_meta_insert_tags(db, id, info->tags, info->ntags, err) ||
        rdb_exec(db, "COMMIT", "cannot begin a run", err))
        goto fail;
    db->last_write_ms = db->clock_ms(); /* a write: the run's rows wait from here */
    sqlite3_finalize(st);
    rdb_activate(db, id, token);
    *run_id = id;
    return 0;
fail:
    sqlite3_finalize(st);
    rdb_rollback(db);
    return -1;
}

/* Binds and executes one buffered row inside the open transaction. */
static int rdb_write_row(rdb_t *db, const rdb_row_t *r)
{
    const char *text = db->text + r->text;
    sqlite3_stmt *st = NULL;
    switch (r->kind) {
    case ROW_METRIC:
        st = db->ins_metric;
        sqlite3_bind_int64(st, 1, r->run_id);
        sqlite3_bind_int64(st, 2, r->v[0]);
        sqlite3_bind_int64(st, 3, r->v[1]);
        sqlite3_bind_text(st, 4, text, -1, SQLITE_STATIC);
        rdb_bind_finite(st, 5, r->value);
        if (isnan(r->value))
            sqlite3_bind_text(st, 6, "nan", -1, SQLITE_STATIC);
        else if (isinf(r->value))
            sqlite3_bind_text(st, 6, r->value > 0 ? "inf" : "-inf", -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 6);
        break;
    case ROW_TRAFFIC:
        st = db->ins_traffic;
        sqlite3_bind_int64(st, 1, r->run_id);
        sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
        for (int i = 0; i < 4; i++) sqlite3_bind_int64(st, 3 + i, r->v[i]);
        break;
    case ROW_STALENESS:
    case ROW_VERSION_AGE:
        st = r->kind == ROW_STALENESS ? db->ins_staleness : db->ins_version_age;
        sqlite3_bind_int64(st, 1, r->run_id);
        sqlite3_bind_int64(st, 2, r->v[0]);
        sqlite3_bind_int64(st, 3, r->v[1]);
        break;
    case ROW_CLIENT_LABEL:
        st = db->ins_client_label;
        sqlite3_bind_int64(st, 1, r->run_id);
        for (int i = 0; i < 3; i++) sqlite3_bind_int64(st, 2 + i, r->v[i]);
        break;
    }
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Inside the open write transaction: renews the lease of every run active on this handle,
 * which is also the check that each is still ours (rdb_lease.h).  A run found deleted or
 * taken over is marked gone, and the transaction must not commit: its rows would land in
 * someone else's run or nowhere. */
static int rdb_renew_leases(rdb_t *db, sgd_err_t *err)
{
    for (size_t i = 0; i < db->nactive; i++) {
        rdb_active_t *a = &db->active[i];
        if (a->gone) continue;
        if (rdb_lease_renew(db, a->run_id, a->token, &a->gone, err)) return -1;
    }
    return 0;
}

static void rdb_clear_pending(rdb_t *db)
{
    db->nrows = 0;
    db->ntext = 0;
}

/* Writes every pending row and, when end is not NULL, the final state of run end_id, in
 * one transaction.  On failure the pending rows are discarded and the runs they belonged
 * to are marked lost (see rdb.h): keeping them for a retry would let the buffer grow
 * without bound while the disk stays full. */
static int rdb_write_pending(rdb_t *db, int64_t end_id, const rdb_run_end_t *end,
                             const char *detail, sgd_err_t *err)
{
    if (db->nrows == 0 && !end) return 0;
    db->last_write_ms = db->clock_ms();
    sqlite3_stmt *upd = NULL;
    if (rdb_exec(db, "BEGIN IMMEDIATE", "cannot write results", err) ||
        rdb_renew_leases(db, err))
        goto fail;
    for (size_t i = 0; i < db->nrows; i++) {
        if (rdb_write_row(db, &db->rows[i])) {
            rdb_sqlerr(db, "cannot write results", err);
            goto fail;
        }
    }
    if (end) {
        if (sqlite3_prepare_v2(db->db,
                "UPDATE runs SET status = ?1, status_detail = ?2, finished_at = " RDB_NOW_SQL
                ", wall_s = ?3, vtime_ns = ?4, updates = ?5, events = ?6, events_per_s = ?7,"
                " digest = ?8 WHERE id = ?9 AND status = 'running'",
                -1, &upd, NULL) != SQLITE_OK) {
            rdb_sqlerr(db, "cannot end the run", err);
            goto fail;
        }
        rdb_bind_text(upd, 1, end->status);
        rdb_bind_text(upd, 2, detail);
        rdb_bind_finite(upd, 3, end->wall_s);
        sqlite3_bind_int64(upd, 4, end->vtime_ns);
        sqlite3_bind_int64(upd, 5, end->updates);
        sqlite3_bind_int64(upd, 6, end->events);
        rdb_bind_finite(upd, 7, end->events_per_s);
        rdb_bind_text(upd, 8, end->digest);
        sqlite3_bind_int64(upd, 9, end_id);
        if (sqlite3_step(upd) != SQLITE_DONE) {
            rdb_sqlerr(db, "cannot end the run", err);
            goto fail;
        }
        if (sqlite3_changes(db->db) != 1) {
            sgd_errf(err, "%s: cannot end run %lld: it is no longer 'running' in the "
                     "database (changed by another process?)", db->path, (long long)end_id);
            goto fail;
        }
        sqlite3_finalize(upd);
        upd = NULL;
        if (rdb_lease_drop(db, end_id, err)) goto fail;
    }
    if (rdb_exec(db, "COMMIT", "cannot commit results", err)) goto fail;
    rdb_clear_pending(db);
    return 0;
fail:
    sqlite3_finalize(upd);
    rdb_rollback(db);
    if (db->nrows > 0) {
        if (!db->lost_msg[0] && err) snprintf(db->lost_msg, sizeof db->lost_msg, "%s", err->msg);
        if (!db->lost_msg[0]) snprintf(db->lost_msg, sizeof db->lost_msg, "write failed");
        for (size_t i = 0; i < db->nrows; i++) {
            rdb_active_t *a = rdb_find_active(db, db->rows[i].run_id);
            if (a) a->lost = 1;
        }
        rdb_clear_pending(db);
    }
    return -1;
}

/* Appends a row (and its text, if any) to the buffer, writing a batch when it is full. */
static int rdb_push_row(rdb_t *db, const rdb_row_t *row, const char *text, sgd_err_t *err)
{
    if (db->nrows == db->caprows) {
        db->caprows = db->caprows ? 2 * db->caprows : RDB_BATCH_ROWS;
        db->rows = sgd_xrealloc(db->rows, db->caprows * sizeof *db->rows);
    }
    rdb_row_t *r = &db->rows[db->nrows++];
    *r = *row;
    if (text) {
        size_t n = strlen(text) + 1;
        if (db->ntext + n > db->captext) {
            while (db->ntext + n > db->captext)
                db->captext = db->captext ? 2 * db->captext : 64 * 1024;
            db->text = sgd_xrealloc(db->text, db->captext);
        }
        memcpy(db->text + db->ntext, text, n);
        r->text = db->ntext;
        db->ntext += n;
    }
    if (db->nrows >= RDB_BATCH_ROWS || db->clock_ms() - db->last_write_ms >= RDB_COMMIT_EVERY_MS)
        return rdb_write_pending(db, 0, NULL, NULL, err);
    return 0;
}

static int rdb_lost_err(const rdb_t *db, int64_t run_id, sgd_err_t *err)
{
    return sgd_errf(err, "%s: run %lld lost rows in an earlier failed write (%s); it can "
                    "only end as 'failed'", db->path, (long long)run_id, db->lost_msg);
}

int rdb_metric(rdb_t *db, int64_t run_id, int64_t update, int64_t vtime_ns, const char *name,
               double value, sgd_err_t *err)
{
    rdb_active_t *a = rdb_writable_run(db, run_id, err);
    if (!a) return -1;
    if (a->lost) return rdb_lost_err(db, run_id, err);
    if (!name || !*name)
        return sgd_errf(err, "%s: run %lld: metric name is empty", db->path, (long long)run_id);
    rdb_row_t r = {.kind = ROW_METRIC, .run_id = run_id, .v = {update, vtime_ns},
                   .value = value};
    return rdb_push_row(db, &r, name, err);
}

int rdb_traffic(rdb_t *db, int64_t run_id, const char *kind, uint64_t sent_msgs,
                uint64_t sent_bytes, uint64_t skipped_msgs, uint64_t skipped_bytes,
                sgd_err_t *err)
{
    rdb_active_t *a = rdb_writable_run(db, run_id, err);
    if (!a) return -1;
    if (a->lost) return rdb_lost_err(db, run_id, err);
    if (!kind || !*kind)
        return sgd_errf(err, "%s: run %lld: traffic kind is empty", db->path, (long long)run_id);
    const uint64_t c[4] = {sent_msgs, sent_bytes, skipped_msgs, skipped_bytes};
    rdb_row_t r = {.kind = ROW_TRAFFIC, .run_id = run_id};
    for (int i = 0; i < 4; i++) {
        if (c[i] > (uint64_t)INT64_MAX)
            return sgd_errf(err, "%s: run %lld: traffic '%s': counter %llu exceeds the "
                            "database's 64-bit signed integers", db->path, (long long)run_id,
                            kind, (unsigned long long)c[i]);
        r.v[i] = (int64_t)c[i];
    }
    return rdb_push_row(db, &r, kind, err);
}

/* One bin of a histogram table (staleness: tau; version_age: age). */
static int rdb_histogram_bin(rdb_t *db, rdb_row_kind_t kind, int64_t run_id, int64_t x,
                             int64_t count, sgd_err_t *err)
{
    rdb_active_t *a = rdb_writable_run(db, run_id, err);
    if (!a) return -1;
    if (a->lost) return rdb_lost_err(db, run_id, err);
    const bool stale = kind == ROW_STALENESS;
    if (x < 0 || count < 0)
        return sgd_errf(err, "%s: run %lld: %s bin %s %lld, count %lld: both must be >= 0",
                        db->path, (long long)run_id, stale ? "staleness" : "version_age",
                        stale ? "tau" : "age", (long long)x, (long long)count);
    rdb_row_t r = {.kind = kind, .run_id = run_id, .v = {x, count}};
    return rdb_push_row(db, &r, NULL, err);
}

int rdb_staleness(rdb_t *db, int64_t run_id, int64_t tau, int64_t count, sgd_err_t *err)
{
    return rdb_histogram_bin(db, ROW_STALENESS, run_id, tau, count, err);
}

int rdb_version_age(rdb_t *db, int64_t run_id, int64_t age, int64_t count, sgd_err_t *err)
{
    return rdb_histogram_bin(db, ROW_VERSION_AGE, run_id, age, count, err);
}

int rdb_client_labels(rdb_t *db, int64_t run_id, int64_t client, int64_t label, int64_t count,
                      sgd_err_t *err)
{
    rdb_active_t *a = rdb_writable_run(db, run_id, err);
    if (!a) return -1;
    if (a->lost) return rdb_lost_err(db, run_id, err);
    if (client < 0 || label < 0 || count < 1)
        return sgd_errf(err, "%s: run %lld: client_labels client %lld, label %lld, count %lld: "
                        "client and label must be >= 0 and count >= 1", db->path,
                        (long long)run_id, (long long)client, (long long)label,
                        (long long)count);
    rdb_row_t r = {.kind = ROW_CLIENT_LABEL, .run_id = run_id, .v = {client, label, count}};
    return rdb_push_row(db, &r, NULL, err);
}

int rdb_flush(rdb_t *db, sgd_err_t *err)
{
    if (db->readonly) return sgd_errf(err, "%s: opened read-only, nothing to flush", db->path);
    return rdb_write_pending(db, 0, NULL, NULL, err);
}

int rdb_run_end(rdb_t *db, int64_t run_id, const rdb_run_end_t *end, sgd_err_t *err)
{
    rdb_active_t *a = rdb_writable_run(db, run_id, err);
    if (!a) return -1;
    const char *s = end->status;
    if (!s || (strcmp(s, "complete") != 0 && strcmp(s, "failed") != 0 &&
               strcmp(s, "diverged") != 0))
        return sgd_errf(err, "%s: run %lld: end status '%s' must be complete, failed or "
                        "diverged", db->path, (long long)run_id, s ? s : "(null)");
    if (a->lost && strcmp(s, "complete") == 0) return rdb_lost_err(db, run_id, err);

    const char *detail = end->status_detail;
    char lost_detail[SGD_ERR_MAX + 32];
    if (a->lost && !detail) {
        snprintf(lost_detail, sizeof lost_detail, "results rows lost: %s", db->lost_msg);
        detail = lost_detail;
    }
    if (rdb_write_pending(db, run_id, end, detail, err)) return -1;

    /* Ended: drop it from the active list (order of the list does not matter). */
    *a = db->active[--db->nactive];
    return 0;
}
