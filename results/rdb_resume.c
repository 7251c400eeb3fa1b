/* Resuming a run in its database, declared in rdb_resume.h. */
#include "results/rdb_resume.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/rdb_internal.h"
#include "results/rdb_lease.h"
#include "results/rdb_meta.h"

int rdb_run_started_at(rdb_t *db, int64_t run_id, char *buf, size_t size, sgd_err_t *err)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(db->db, "SELECT started_at FROM runs WHERE id = ?1", -1, &st,
                           NULL) != SQLITE_OK)
        return rdb_sqlerr(db, "cannot read the run's start", err);
    sqlite3_bind_int64(st, 1, run_id);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
        snprintf(buf, size, "%s", (const char *)sqlite3_column_text(st, 0));
        rc = 0;
    } else {
        sgd_errf(err, "%s: run %lld has no start time", db->path, (long long)run_id);
    }
    sqlite3_finalize(st);
    return rc;
}

/* Column text, "" for NULL. */
static const char *text_at(sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    return t ? (const char *)t : "";
}

/* Whether the run at st's row (key, started, status, owner columns) may be resumed by this
 * process; -1 with the reason otherwise. */
static int check_resumable(rdb_t *db, const rdb_resume_t *q, sqlite3_stmt *st, sgd_err_t *err)
{
    long long id = (long long)q->run_id;
    if (strcmp(text_at(st, 0), q->run_key) != 0 || strcmp(text_at(st, 1), q->started_at) != 0)
        return sgd_errf(err, "%s: run %lld is another run (run key %.12s..., started %s) than "
                             "the checkpoint's (run key %.12s..., started %s): the checkpoint "
                             "belongs to another database",
                        db->path, id, text_at(st, 0), text_at(st, 1), q->run_key,
                        q->started_at);
    const char *status = text_at(st, 2);
    if (strcmp(status, "complete") == 0 || strcmp(status, "diverged") == 0)
        return sgd_errf(err, "%s: run %lld already ended %s: there is nothing to resume",
                        db->path, id, status);
    if (strcmp(status, "running") != 0 || sqlite3_column_type(st, 3) == SQLITE_NULL) return 0;
    rdb_owner_t owner, self;
    snprintf(owner.host, sizeof owner.host, "%s", text_at(st, 3));
    snprintf(owner.boot_id, sizeof owner.boot_id, "%s", text_at(st, 4));
    owner.pid = sqlite3_column_int64(st, 5);
    owner.start_ticks = sqlite3_column_int64(st, 6);
    rdb_owner_self(&self);
    if (rdb_owner_alive(&owner, sqlite3_column_int64(st, 7), &self, rdb_wall_ms()))
        return sgd_errf(err, "%s: run %lld is still being written by process %lld on %s",
                        db->path, id, (long long)owner.pid, owner.host);
    return 0;
}

/* The run's metric rows up to the checkpoint's update against what the checkpoint was
 * written after (rdb_resume.h). */
static int check_rows(rdb_t *db, const rdb_resume_t *q, sgd_err_t *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db->db, "SELECT count(*), coalesce(max(update_idx), -1) FROM metrics"
                           " WHERE run_id = ?1 AND update_idx <= ?2", -1, &st, NULL) != SQLITE_OK)
        return rdb_sqlerr(db, "cannot read the run's rows", err);
    sqlite3_bind_int64(st, 1, q->run_id);
    sqlite3_bind_int64(st, 2, q->after_update);
    int step = sqlite3_step(st);
    int64_t rows = sqlite3_column_int64(st, 0), last = sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
    if (step != SQLITE_ROW) return rdb_sqlerr(db, "cannot read the run's rows", err);
    if (rows == q->expect_rows && last == q->expect_last_update) return 0;
    bool older = rows < q->expect_rows || last < q->expect_last_update;
    return sgd_errf(err, "%s: holds %lld metric rows of run %lld up to update %lld (the last "
                         "at update %lld), the checkpoint was written after %lld (the last at "
                         "update %lld): %s", db->path, (long long)rows, (long long)q->run_id,
                    (long long)q->after_update, (long long)last, (long long)q->expect_rows,
                    (long long)q->expect_last_update,
                    older ? "the database is older than the checkpoint and lacks rows it "
                            "expects (commits lost to a crash, or a copy restored); resume "
                            "from a checkpoint this database holds the rows of, or run it again"
                          : "the database holds rows the checkpoint does not know of");
}

/* The tags asked for against the run's: those it lacks go in (tags_new), a key it has with
 * another value refuses the resume. */
static int check_tags(rdb_t *db, const rdb_resume_t *q, rdb_tag_t *tags_new, size_t *nnew,
                      sgd_err_t *err)
{
    *nnew = 0;
    if (q->ntags == 0) return 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db->db, "SELECT value FROM tags WHERE run_id = ?1 AND key = ?2", -1,
                           &st, NULL) != SQLITE_OK)
        return rdb_sqlerr(db, "cannot read the run's tags", err);
    int rc = 0;
    for (size_t i = 0; i < q->ntags && rc == 0; i++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, q->run_id);
        sqlite3_bind_text(st, 2, q->tags[i].key, -1, SQLITE_STATIC);
        int step = sqlite3_step(st);
        const char *had = step == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
        if (step == SQLITE_DONE) tags_new[(*nnew)++] = q->tags[i];
        else if (step != SQLITE_ROW) rc = rdb_sqlerr(db, "cannot read the run's tags", err);
        else if (!had || strcmp(had, q->tags[i].value) != 0)
            rc = sgd_errf(err, "%s: run %lld is tagged %s=%s; --tag %s=%s would change it (a "
                               "resume adds tags, it does not replace them)",
                          db->path, (long long)q->run_id, q->tags[i].key, had ? had : "",
                          q->tags[i].key, q->tags[i].value);
    }
    sqlite3_finalize(st);
    return rc;
}

/* Statements of the resume, each bound to ?1 = run id (and ?2 = the update). */
static const char *const resume_sql[] = {
    "DELETE FROM metrics WHERE run_id = ?1 AND update_idx > ?2",
    "DELETE FROM traffic WHERE run_id = ?1",
    "DELETE FROM staleness WHERE run_id = ?1",
    "DELETE FROM version_age WHERE run_id = ?1",
    "DELETE FROM client_labels WHERE run_id = ?1",
    "DELETE FROM run_owner WHERE run_id = ?1",
    ("UPDATE runs SET status = 'running', status_detail = NULL, finished_at = NULL,"
     " digest = NULL, resumes = resumes + 1 WHERE id = ?1"),
};

static int apply_resume(rdb_t *db, const rdb_resume_t *q, sgd_err_t *err)
{
    for (size_t i = 0; i < sizeof resume_sql / sizeof resume_sql[0]; i++) {
        sqlite3_stmt *st = NULL;
        int rc = sqlite3_prepare_v2(db->db, resume_sql[i], -1, &st, NULL);
        if (rc == SQLITE_OK) {
            sqlite3_bind_int64(st, 1, q->run_id);
            if (sqlite3_bind_parameter_count(st) > 1) sqlite3_bind_int64(st, 2, q->after_update);
            rc = sqlite3_step(st);
        }
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE) return rdb_sqlerr(db, "cannot resume the run", err);
    }
    return 0;
}

int rdb_run_resume(rdb_t *db, const rdb_resume_t *q, sgd_err_t *err)
{
    if (db->readonly) return sgd_errf(err, "%s: opened read-only, cannot resume a run", db->path);
    sqlite3_stmt *st = NULL;
    char token[RDB_TOKEN_LEN + 1];
    if (rdb_exec(db, "BEGIN IMMEDIATE", "cannot resume the run", err)) return -1;
    int rc = sqlite3_prepare_v2(db->db, "SELECT r.run_key, r.started_at, r.status, o.host,"
                                " o.boot_id, o.pid, o.start_ticks, o.heartbeat_ms FROM runs r"
                                " LEFT JOIN run_owner o ON o.run_id = r.id WHERE r.id = ?1",
                                -1, &st, NULL) == SQLITE_OK ? 0 : -1;
    if (rc) rdb_sqlerr(db, "cannot resume the run", err);
    if (rc == 0) {
        sqlite3_bind_int64(st, 1, q->run_id);
        int step = sqlite3_step(st);
        if (step == SQLITE_ROW) rc = check_resumable(db, q, st, err);
        else if (step == SQLITE_DONE)
            rc = sgd_errf(err, "%s: has no run %lld: the checkpoint belongs to another "
                               "database", db->path, (long long)q->run_id);
        else rc = rdb_sqlerr(db, "cannot resume the run", err);
    }
    sqlite3_finalize(st);
    rdb_tag_t *tags_new = sgd_xcalloc(q->ntags + 1, sizeof *tags_new);
    size_t nnew = 0;
    if (rc == 0) rc = check_rows(db, q, err);
    if (rc == 0) rc = check_tags(db, q, tags_new, &nnew, err);
    if (rc == 0) rc = apply_resume(db, q, err);
    if (rc == 0) rc = rdb_meta_insert_tags(db, q->run_id, tags_new, nnew, err);
    free(tags_new);
    if (rc == 0) rc = rdb_lease_take(db, q->run_id, token, err);
    if (rc == 0) rc = rdb_exec(db, "COMMIT", "cannot resume the run", err);
    if (rc) {
        rdb_rollback(db);
        return -1;
    }
    db->last_write_ms = db->clock_ms();
    rdb_activate(db, q->run_id, token);
    return 0;
}
