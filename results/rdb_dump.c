/* Whole tables of a results database (rdb_dump.h): their names, and their rows as typed
 * cells, one row at a time. */
#include "results/rdb_dump.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/rdb_internal.h"
#include "results/rdb_reader.h"

struct rdb_dump {
    rdb_t *db;
    sqlite3_stmt *st;
    char *name; /* the table's, for messages */
    int ncols;
    const char **head; /* ncols, SQLite's (valid while st is) */
    rdb_cell_t *row;   /* ncols, the current row (texts owned) */
};

int rdb_dump_check_schema(rdb_t *db, sgd_err_t *err)
{
    return rdb_schema_refuse_unknown(db, err);
}

int rdb_table_names(rdb_t *db, char ***names, int *n, sgd_err_t *err)
{
    *names = NULL;
    *n = 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db->db, "SELECT name FROM sqlite_schema WHERE type IN"
                           " ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name",
                           -1, &st, NULL) != SQLITE_OK)
        return rdb_sqlerr(db, "cannot list the tables", err);
    return rdb_read_names(db, st, "cannot list the tables", names, n, err);
}

int rdb_dump_open(rdb_t *db, const char *name, rdb_dump_t **d, sgd_err_t *err)
{
    /* The name reaches the SQL text only as a quoted identifier. */
    char *ident = rdb_quote_ident(name);
    size_t size = strlen(ident) + 16;
    char *sql = sgd_xmalloc(size);
    snprintf(sql, size, "SELECT * FROM %s", ident);
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db->db, sql, -1, &st, NULL);
    free(sql);
    free(ident);
    *d = NULL;
    if (rc != SQLITE_OK) return rdb_sqlerr(db, name, err);
    int ncols = sqlite3_column_count(st);
    *d = sgd_xcalloc(1, sizeof **d);
    **d = (rdb_dump_t){.db = db, .st = st, .name = sgd_xstrdup(name), .ncols = ncols,
                       .head = sgd_xcalloc((size_t)ncols + 1, sizeof *(*d)->head),
                       .row = sgd_xcalloc((size_t)ncols + 1, sizeof *(*d)->row)};
    for (int c = 0; c < ncols; c++) (*d)->head[c] = sqlite3_column_name(st, c);
    return 0;
}

const char *const *rdb_dump_head(const rdb_dump_t *d, int *ncols)
{
    *ncols = d->ncols;
    return d->head;
}

static void free_row(rdb_dump_t *d)
{
    for (int c = 0; c < d->ncols; c++) {
        free(d->row[c].text);
        d->row[c] = (rdb_cell_t){.kind = RDB_CELL_NULL};
    }
}

int rdb_dump_next(rdb_dump_t *d, const rdb_cell_t **row, sgd_err_t *err)
{
    free_row(d);
    int rc = sqlite3_step(d->st);
    if (rc == SQLITE_DONE) return 0;
    if (rc != SQLITE_ROW) return rdb_sqlerr(d->db, d->name, err);
    for (int c = 0; c < d->ncols; c++) d->row[c] = rdb_cell_of(d->st, c);
    *row = d->row;
    return 1;
}

void rdb_dump_close(rdb_dump_t *d)
{
    if (!d) return;
    free_row(d);
    sqlite3_finalize(d->st);
    free(d->name);
    free(d->head);
    free(d->row);
    free(d);
}
