/* Whole tables of a results database, for `sgdsim export`: the names of its tables and views,
 * and every row of one of them as typed cells, one row at a time, so that memory stays the
 * same whatever the number of rows.
 *
 * Ownership: an iterator is allocated by rdb_dump_open and freed by rdb_dump_close; the cells
 * and names it hands out belong to it and stay valid until the next call on it.
 * Errors: -1 with a message in err that starts with the database path. */
#ifndef SGDSIM_RESULTS_RDB_DUMP_H
#define SGDSIM_RESULTS_RDB_DUMP_H

#include "common/error.h"
#include "results/rdb.h"
#include "results/rdb_rows.h"

/* Refuses (-1, naming them) a database holding views sgdsim did not create, or a view of
 * sgdsim's name that is not the one sgdsim wrote: export reads every table and view whole,
 * and a planted view may compute without end (a WITH RECURSIVE without a limit).  A table
 * ends; a planted one is exported like the others. */
int rdb_dump_check_schema(rdb_t *db, sgd_err_t *err);

/* Every table and view of the database but SQLite's own, by name, into *names (*n of them;
 * the caller frees them with rdb_names_free). */
int rdb_table_names(rdb_t *db, char ***names, int *n, sgd_err_t *err);

typedef struct rdb_dump rdb_dump_t;

/* Every row of table or view `name` (one of rdb_table_names'), all its columns. */
int rdb_dump_open(rdb_t *db, const char *name, rdb_dump_t **d, sgd_err_t *err);

/* The column names: *ncols of them. */
const char *const *rdb_dump_head(const rdb_dump_t *d, int *ncols);

/* The next row as ncols cells, each with the type SQLite gave it (a blob reads as the text
 * "<blob, N bytes>"): 1, 0 after the last, -1 on error. */
int rdb_dump_next(rdb_dump_t *d, const rdb_cell_t **row, sgd_err_t *err);

void rdb_dump_close(rdb_dump_t *d); /* NULL is allowed */

#endif
