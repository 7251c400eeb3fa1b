/* Reading a results database (rdb_read.h): the questions with one answer, the abandoned runs
 * a resumed sweep deletes, and one run's series.  The finished-run rule is
 * RDB_FINISHED_RULE (rdb_reader.h), the text the finished_runs view is made of, spelled
 * into each query rather than read through the view, because a reader of a schema 2 file
 * has no view to read. */
#include "results/rdb_read.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/rdb_internal.h"
#include "results/rdb_reader.h"

static int prepare_sql(rdb_t *db, const char *sql, sqlite3_stmt **st, sgd_err_t *err)
{
    *st = NULL;
    if (sqlite3_prepare_v2(db->db, sql, -1, st, NULL) != SQLITE_OK)
        return rdb_sqlerr(db, "cannot read", err);
    return 0;
}

/* Steps a statement that answers with one row or none: 1 row, 0 none, -1 error. */
static int step_once(rdb_t *db, sqlite3_stmt *st, const char *what, sgd_err_t *err)
{
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) return 1;
    if (rc == SQLITE_DONE) return 0;
    return rdb_sqlerr(db, what, err);
}

bool rdb_has_metric(rdb_t *db, const char *name)
{
    sqlite3_stmt *st = NULL;
    bool found = false;
    if (sqlite3_prepare_v2(db->db, "SELECT 1 FROM metrics WHERE name = ?1 LIMIT 1", -1, &st,
                           NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
        found = sqlite3_step(st) == SQLITE_ROW;
    }
    sqlite3_finalize(st);
    return found;
}

int rdb_key_finished(rdb_t *db, const char *run_key, bool *done, sgd_err_t *err)
{
    sqlite3_stmt *st = NULL;
    *done = false;
    if (sqlite3_prepare_v2(db->db, "SELECT 1 FROM runs WHERE run_key = ?1 AND "
                           RDB_FINISHED_RULE " LIMIT 1", -1, &st, NULL) != SQLITE_OK)
        return rdb_sqlerr(db, "cannot read runs", err);
    sqlite3_bind_text(st, 1, run_key, -1, SQLITE_STATIC);
    int rc = step_once(db, st, "cannot read runs", err);
    sqlite3_finalize(st);
    *done = rc == 1;
    return rc < 0 ? -1 : 0;
}

/* The owner of the unfinished run at st's current row (columns 2..7: host, boot_id, pid,
 * start_ticks, heartbeat_ms), or false when it has none (a run of an older schema). */
static bool row_owner(sqlite3_stmt *st, rdb_owner_t *o, int64_t *heartbeat_ms)
{
    if (sqlite3_column_type(st, 2) == SQLITE_NULL) return false;
    const char *host = (const char *)sqlite3_column_text(st, 2);
    const char *boot = (const char *)sqlite3_column_text(st, 3);
    snprintf(o->host, sizeof o->host, "%s", host ? host : "");
    snprintf(o->boot_id, sizeof o->boot_id, "%s", boot ? boot : "");
    o->pid = sqlite3_column_int64(st, 4);
    o->start_ticks = sqlite3_column_int64(st, 5);
    *heartbeat_ms = sqlite3_column_int64(st, 6);
    return true;
}

/* Whether the unfinished run at st's current row (id, status, owner columns) may still be
 * written by a live process; fills *live for the first such run. */
static bool row_is_live(sqlite3_stmt *st, const rdb_owner_t *self, int64_t now_ms, int nlive,
                        rdb_live_run_t *live)
{
    const char *status = (const char *)sqlite3_column_text(st, 1);
    rdb_owner_t o;
    int64_t beat = 0;
    if (!status || strcmp(status, "running") != 0 || !row_owner(st, &o, &beat)) return false;
    if (!rdb_owner_alive(&o, beat, self, now_ms)) return false;
    if (nlive == 0) {
        *live = (rdb_live_run_t){.id = sqlite3_column_int64(st, 0), .pid = o.pid,
                                 .this_host = strcmp(o.host, self->host) == 0,
                                 .heartbeat_age_s = rdb_lease_age_ms(now_ms, beat) / 1000};
        snprintf(live->host, sizeof live->host, "%s", o.host);
    }
    return true;
}

/* Whether the run at st's current row (id, ..., started_at in column 7) is keep's. */
static bool row_is_kept(sqlite3_stmt *st, const rdb_keep_run_t *keep)
{
    const char *started = (const char *)sqlite3_column_text(st, 7);
    return keep && sqlite3_column_int64(st, 0) == keep->id && started &&
           strcmp(started, keep->started_at) == 0;
}

int rdb_delete_unfinished(rdb_t *db, const char *run_key, rdb_keep_run_t *keep, int *ndeleted,
                          int *nlive, rdb_live_run_t *live, sgd_err_t *err)
{
    static const char what[] = "cannot remove an unfinished earlier run of a point";
    sqlite3_stmt *st = NULL, *del = NULL;
    *ndeleted = *nlive = 0;
    *live = (rdb_live_run_t){0};
    if (keep) keep->found = false;
    rdb_owner_t self;
    rdb_owner_self(&self);
    /* Decided and deleted in one write transaction: no run of the key can begin or end
     * between the look at its owner and the delete. */
    if (rdb_exec(db, "BEGIN IMMEDIATE", what, err)) return -1;
    if (sqlite3_prepare_v2(db->db, "SELECT r.id, r.status, o.host, o.boot_id, o.pid,"
                           " o.start_ticks, o.heartbeat_ms, r.started_at FROM runs r"
                           " LEFT JOIN run_owner o ON o.run_id = r.id WHERE r.run_key = ?1"
                           " AND r.status IN ('running', 'failed') ORDER BY r.id", -1, &st,
                           NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db->db, "DELETE FROM runs WHERE id = ?1", -1, &del, NULL) != SQLITE_OK)
        goto fail;
    sqlite3_bind_text(st, 1, run_key, -1, SQLITE_STATIC);
    int64_t now_ms = rdb_wall_ms();
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        bool kept = row_is_kept(st, keep);
        if (kept) keep->found = true;
        if (row_is_live(st, &self, now_ms, *nlive, live)) {
            (*nlive)++;
            continue;
        }
        if (kept) continue;
        sqlite3_bind_int64(del, 1, sqlite3_column_int64(st, 0));
        if (sqlite3_step(del) != SQLITE_DONE) goto fail;
        sqlite3_reset(del);
        (*ndeleted)++;
    }
    if (rc != SQLITE_DONE) goto fail;
    sqlite3_finalize(st);
    sqlite3_finalize(del);
    st = del = NULL;
    if (keep && !keep->found) { /* the checkpoint is not of this database: change nothing */
        rdb_rollback(db);
        *ndeleted = *nlive = 0;
        *live = (rdb_live_run_t){0};
        return 0;
    }
    if (sqlite3_exec(db->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) goto fail;
    return 0;
fail:
    rdb_sqlerr(db, what, err);
    sqlite3_finalize(st);
    sqlite3_finalize(del);
    rdb_rollback(db);
    *ndeleted = *nlive = 0;
    return -1;
}

int rdb_finished_keys_not_in(rdb_t *db, rdb_t *other, int *count, sgd_err_t *err)
{
    sqlite3_stmt *keys = NULL, *in_other = NULL;
    *count = 0;
    int rc = prepare_sql(db, "SELECT run_key FROM runs WHERE " RDB_FINISHED_RULE
                             " GROUP BY run_key", &keys, err);
    if (rc == 0)
        rc = prepare_sql(other, "SELECT 1 FROM runs WHERE run_key = ?1 AND "
                                RDB_FINISHED_RULE " LIMIT 1", &in_other, err);
    while (rc == 0 && sqlite3_step(keys) == SQLITE_ROW) {
        sqlite3_bind_value(in_other, 1, sqlite3_column_value(keys, 0));
        int found = step_once(other, in_other, "cannot read runs", err);
        if (found < 0) rc = -1;
        if (found == 0) (*count)++;
        sqlite3_reset(in_other);
    }
    sqlite3_finalize(in_other);
    sqlite3_finalize(keys);
    return rc;
}

int rdb_metric_cell(rdb_t *db, sqlite3_stmt *st, int vc, int nc, int64_t run, const char *name,
                    int64_t update, double *v, char *kind)
{
    int type = sqlite3_column_type(st, vc);
    const char *nf = (const char *)sqlite3_column_text(st, nc);
    *v = NAN;
    *kind = 0;
    if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) {
        double x = sqlite3_column_double(st, vc);
        if (isfinite(x)) *v = x;
        else *kind = isnan(x) ? 'n' : x > 0 ? 'i' : '-';
        return 1;
    }
    if (type == SQLITE_NULL && nf) {
        *kind = strcmp(nf, "nan") == 0 ? 'n' : strcmp(nf, "-inf") == 0 ? '-' : 'i';
        return 1;
    }
    if (db->not_numbers++ == 0)
        snprintf(db->not_number_first, sizeof db->not_number_first,
                 "run %lld, %.60s at update %lld: %s", (long long)run, name ? name : "",
                 (long long)update, type == SQLITE_TEXT ? "text" : type == SQLITE_BLOB
                                                                    ? "a blob"
                                                                    : "NULL");
    return 0;
}

/* Appends the statement's current row (update_idx, vtime_ns, value, nonfinite) to s,
 * unless its value is not a number (rdb_metric_cell). */
static void series_append(rdb_t *db, int64_t run, const char *name, rdb_series_t *s, int *cap,
                          sqlite3_stmt *st)
{
    double v;
    char kind;
    if (!rdb_metric_cell(db, st, 2, 3, run, name, sqlite3_column_int64(st, 0), &v, &kind))
        return;
    if (s->n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        s->update = sgd_xrealloc(s->update, (size_t)*cap * sizeof *s->update);
        s->vtime = sgd_xrealloc(s->vtime, (size_t)*cap * sizeof *s->vtime);
        s->value = sgd_xrealloc(s->value, (size_t)*cap * sizeof *s->value);
        s->kind = sgd_xrealloc(s->kind, (size_t)*cap);
    }
    s->update[s->n] = sqlite3_column_int64(st, 0);
    s->vtime[s->n] = sqlite3_column_int64(st, 1);
    s->kind[s->n] = kind;
    s->value[s->n] = v;
    s->n++;
}

int rdb_read_series(rdb_t *db, int64_t run, const char *name, rdb_series_t *s, sgd_err_t *err)
{
    memset(s, 0, sizeof *s);
    sqlite3_stmt *st = NULL;
    if (prepare_sql(db, "SELECT update_idx, vtime_ns, value, nonfinite FROM metrics"
                        " WHERE run_id = ?1 AND name = ?2 ORDER BY update_idx", &st, err))
        return -1;
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    int cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) series_append(db, run, name, s, &cap, st);
    if (rc != SQLITE_DONE) rdb_sqlerr(db, "cannot read a series", err);
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE) return 0;
    rdb_series_free(s); /* a failed read leaves nothing to free */
    return -1;
}

void rdb_series_free(rdb_series_t *s)
{
    free(s->update);
    free(s->vtime);
    free(s->value);
    free(s->kind);
    memset(s, 0, sizeof *s);
}
