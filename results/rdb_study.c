/* A whole study read in bulk (rdb_study.h): one statement per part, stepped into a row whose
 * fields each part's header documents. */
#include "results/rdb_study.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "results/rdb_internal.h"

struct rdb_study_it {
    rdb_t *db;
    rdb_study_part_t part;
    sqlite3_stmt *st; /* NULL: the schema has no such table, no rows */
};

/* Each part's SELECT, and the oldest schema that has its table and columns (older ones use
 * the fallback, or have no rows when it is NULL). */
typedef struct part_sql {
    const char *sql;
    int64_t since;
    const char *older;
} part_sql_t;

static const part_sql_t parts[] = {
    [RDB_STUDY_METRICS] = {"SELECT run_id, name, update_idx, vtime_ns, value, nonfinite"
                           " FROM metrics ORDER BY run_id, name, update_idx", 0, NULL},
    [RDB_STUDY_STALENESS] = {"SELECT run_id, tau, count FROM staleness ORDER BY run_id, tau",
                             0, NULL},
    [RDB_STUDY_VERSION_AGE] = {"SELECT run_id, age, count FROM version_age"
                               " ORDER BY run_id, age", 3, NULL},
    [RDB_STUDY_TRAFFIC] = {"SELECT run_id, kind, sent_msgs, sent_bytes, skipped_msgs,"
                           " skipped_bytes FROM traffic ORDER BY run_id, kind", 0, NULL},
    [RDB_STUDY_TAGS] = {"SELECT run_id, key, value FROM tags ORDER BY run_id, key", 3, NULL},
    [RDB_STUDY_RUN_TEXT] = {"SELECT id, command_line, status_detail, started_at, git_rev, host,"
                            " digest FROM runs ORDER BY id", 3,
                            "SELECT id, NULL, status_detail, started_at, git_rev, host, digest"
                            " FROM runs ORDER BY id"},
};

int rdb_study_open(rdb_t *db, rdb_study_part_t part, rdb_study_it_t **out, sgd_err_t *err)
{
    rdb_study_it_t *it = sgd_xcalloc(1, sizeof *it);
    it->db = db;
    it->part = part;
    const part_sql_t *p = &parts[part];
    const char *sql = db->version >= p->since ? p->sql : p->older;
    if (sql && sqlite3_prepare_v2(db->db, sql, -1, &it->st, NULL) != SQLITE_OK) {
        rdb_study_close(it);
        return rdb_sqlerr(db, "cannot read", err);
    }
    *out = it;
    return 0;
}

static const char *text_col(sqlite3_stmt *st, int c)
{
    return (const char *)sqlite3_column_text(st, c);
}

/* The current row of it->st into *row, by the part's layout. */
static void fill_row(const rdb_study_it_t *it, rdb_study_row_t *row)
{
    sqlite3_stmt *st = it->st;
    memset(row, 0, sizeof *row);
    row->run_id = sqlite3_column_int64(st, 0);
    row->value = NAN;
    switch (it->part) {
    case RDB_STUDY_METRICS:
        row->text[0] = text_col(st, 1);
        row->i[0] = sqlite3_column_int64(st, 2);
        row->i[1] = sqlite3_column_int64(st, 3);
        row->text[1] = text_col(st, 5);
        break;
    case RDB_STUDY_STALENESS:
    case RDB_STUDY_VERSION_AGE:
        row->i[0] = sqlite3_column_int64(st, 1);
        row->i[1] = sqlite3_column_int64(st, 2);
        break;
    case RDB_STUDY_TRAFFIC:
        row->text[0] = text_col(st, 1);
        for (int k = 0; k < 4; k++) row->i[k] = sqlite3_column_int64(st, 2 + k);
        break;
    case RDB_STUDY_TAGS:
        row->text[0] = text_col(st, 1);
        row->text[1] = text_col(st, 2);
        break;
    case RDB_STUDY_RUN_TEXT:
        for (int k = 0; k < RDB_STUDY_NTEXT; k++) row->text[k] = text_col(st, 1 + k);
        break;
    }
}

/* A metric row's value (rdb_metric_cell): false for one that is not a number, left out. */
static bool metric_value(const rdb_study_it_t *it, rdb_study_row_t *row)
{
    static const char *const kinds[] = {"nan", "inf", "-inf"};
    char kind;
    if (!rdb_metric_cell(it->db, it->st, 4, 5, row->run_id, row->text[0], row->i[0],
                         &row->value, &kind))
        return false;
    if (kind) row->text[1] = kinds[kind == 'n' ? 0 : kind == 'i' ? 1 : 2];
    return true;
}

int rdb_study_next(rdb_study_it_t *it, rdb_study_row_t *row, sgd_err_t *err)
{
    if (!it->st) return 0;
    int rc;
    while ((rc = sqlite3_step(it->st)) == SQLITE_ROW) {
        fill_row(it, row);
        if (it->part != RDB_STUDY_METRICS || metric_value(it, row)) return 1;
    }
    return rc == SQLITE_DONE ? 0 : rdb_sqlerr(it->db, "cannot read", err);
}

void rdb_study_close(rdb_study_it_t *it)
{
    if (!it) return;
    sqlite3_finalize(it->st);
    free(it);
}
