/* Whether a sweep point is already finished in a results database (rdb.h): one read of the
 * runs table by run key, for `sgdsim sweep --list` on a read-only handle. */
#include <stdbool.h>

#include <sqlite3.h>

#include "common/error.h"
#include "results/rdb.h"

int rdb_run_key_finished(rdb_t *db, const char *run_key, bool *finished, sgd_err_t *err)
{
    sqlite3 *h = rdb_handle(db);
    sqlite3_stmt *st = NULL;
    *finished = false;
    if (sqlite3_prepare_v2(h, "SELECT EXISTS (SELECT 1 FROM runs WHERE run_key = ?1 AND status"
                              " IN ('complete', 'diverged'))", -1, &st, NULL) != SQLITE_OK)
        return sgd_errf(err, "%s: cannot read runs: %s", rdb_path(db), sqlite3_errmsg(h));
    sqlite3_bind_text(st, 1, run_key, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *finished = sqlite3_column_int(st, 0) != 0;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW)
        return sgd_errf(err, "%s: cannot read runs: %s", rdb_path(db), sqlite3_errmsg(h));
    return 0;
}
