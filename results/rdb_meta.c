/* Run metadata (rdb_meta.h): writing tags and artifacts, and every read of `sgdsim show` and
 * `sgdsim diff`.  All SQL of those commands is here; values from the command line reach
 * SQLite as bound parameters only. */
#include "results/rdb_meta.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/json.h"
#include "common/sha256.h"
#include "results/rdb_internal.h"
#include "results/rdb_reader.h"

/* ---- writing ------------------------------------------------------------------------ */

int rdb_meta_insert_tags(rdb_t *db, int64_t run_id, const rdb_tag_t *tags, size_t ntags,
                         sgd_err_t *err)
{
    if (ntags == 0) return 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db->db, "INSERT INTO tags(run_id, key, value) VALUES (?1, ?2, ?3)",
                           -1, &st, NULL) != SQLITE_OK)
        return rdb_sqlerr(db, "cannot write the run's tags", err);
    int rc = 0;
    for (size_t i = 0; i < ntags && rc == 0; i++) {
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_text(st, 2, tags[i].key, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, tags[i].value, -1, SQLITE_STATIC);
        if (sqlite3_step(st) != SQLITE_DONE)
            rc = rdb_sqlerr(db, "cannot write the run's tags", err);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

/* Inserts (or replaces) one artifacts row per run of runs[0..n) for the file at abs. */
static int insert_artifact_rows(rdb_t *db, const int64_t *runs, size_t n, const char *kind,
                                const char *abs, const char *hex, uint64_t bytes, sgd_err_t *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db->db,
            "INSERT OR REPLACE INTO artifacts(run_id, kind, path, sha256, bytes)"
            " VALUES (?1, ?2, ?3, ?4, ?5)", -1, &st, NULL) != SQLITE_OK)
        return rdb_sqlerr(db, "cannot record an artifact", err);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        sqlite3_bind_int64(st, 1, runs[i]);
        sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, abs, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, hex, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, (int64_t)bytes);
        if (sqlite3_step(st) != SQLITE_DONE) rc = rdb_sqlerr(db, "cannot record an artifact", err);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc;
}

int rdb_artifact_file_runs(rdb_t *db, const int64_t *runs, size_t n, const char *kind,
                           const char *path, sgd_err_t *err)
{
    if (db->readonly)
        return sgd_errf(err, "%s: opened read-only, cannot record %s", db->path, path);
    struct stat sb;
    if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) return 0; /* a pipe, /dev/null: no file */
    char hex[SGD_SHA256_HEX_LEN + 1];
    uint64_t bytes = 0;
    char *abs = realpath(path, NULL);
    if (!abs) return sgd_errf(err, "%s: cannot find the written file: %s", path, strerror(errno));
    int rc = sgd_sha256_file(abs, hex, &bytes, err);
    if (rc == 0 && bytes > (uint64_t)INT64_MAX) rc = sgd_errf(err, "%s: too large", path);
    if (rc == 0 && rdb_exec(db, "BEGIN IMMEDIATE", "cannot record an artifact", err)) rc = -1;
    else if (rc == 0) {
        rc = insert_artifact_rows(db, runs, n, kind, abs, hex, bytes, err);
        if (rc == 0) rc = rdb_exec(db, "COMMIT", "cannot record an artifact", err);
        if (rc) rdb_rollback(db);
    }
    free(abs);
    return rc;
}

int rdb_artifact_file(rdb_t *db, int64_t run_id, const char *kind, const char *path,
                      sgd_err_t *err)
{
    return rdb_artifact_file_runs(db, &run_id, 1, kind, path, err);
}

/* ---- opening and finding a run ------------------------------------------------------ */

int rdb_open_meta_reader(const char *path, int64_t *version, rdb_t **out, sgd_err_t *err)
{
    return rdb_open_older(path, version, out, err);
}

/* A statement of this module, prepared on the handle; -1 naming the database. */
static int meta_prepare(rdb_t *db, const char *sql, sqlite3_stmt **st, sgd_err_t *err)
{
    if (sqlite3_prepare_v2(db->db, sql, -1, st, NULL) == SQLITE_OK) return 0;
    *st = NULL;
    return rdb_sqlerr(db, "cannot read the database", err);
}

/* Whether the database has table `name` (schemas before 3 have no tags or artifacts). */
static int meta_has_table(rdb_t *db, const char *name, bool *has, sgd_err_t *err)
{
    sqlite3_stmt *st;
    if (meta_prepare(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", &st,
                     err))
        return -1;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) return rdb_sqlerr(db, "cannot read the schema", err);
    *has = rc == SQLITE_ROW;
    return 0;
}

/* A run id given in decimal. */
static int find_by_id(rdb_t *db, const char *which, int64_t *run_id, sgd_err_t *err)
{
    errno = 0;
    char *end;
    long long id = strtoll(which, &end, 10);
    if (errno || *end) return sgd_errf(err, "%s: no run %s", db->path, which);
    sqlite3_stmt *st;
    if (meta_prepare(db, "SELECT id FROM runs WHERE id = ?1", &st, err)) return -1;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE) return sgd_errf(err, "%s: no run %s", db->path, which);
    if (rc != SQLITE_ROW) return rdb_sqlerr(db, "cannot read runs", err);
    *run_id = id;
    return 0;
}

/* A run-key prefix: the latest run of the one configuration whose key starts with it. */
static int find_by_key(rdb_t *db, const char *which, int64_t *run_id, int64_t *repeats,
                       sgd_err_t *err)
{
    size_t n = strlen(which);
    char prefix[SGD_SHA256_HEX_LEN + 1];
    bool hex = n >= 4 && n <= SGD_SHA256_HEX_LEN;
    for (size_t i = 0; hex && i < n; i++) {
        hex = isxdigit((unsigned char)which[i]) != 0;
        prefix[i] = (char)tolower((unsigned char)which[i]);
    }
    if (!hex)
        return sgd_errf(err, "%s: run '%s': expected a run id (decimal) or a run-key prefix "
                        "(4 to 64 hex digits)", db->path, which);
    prefix[n] = '\0';
    sqlite3_stmt *st;
    if (meta_prepare(db, "SELECT count(DISTINCT run_key), count(*), max(id) FROM runs"
                         " WHERE substr(run_key, 1, ?2) = ?1", &st, err))
        return -1;
    sqlite3_bind_text(st, 1, prefix, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, (int64_t)n);
    int rc = sqlite3_step(st);
    int64_t keys = sqlite3_column_int64(st, 0), runs = sqlite3_column_int64(st, 1),
            id = sqlite3_column_int64(st, 2);
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW) return rdb_sqlerr(db, "cannot read runs", err);
    if (keys == 0) return sgd_errf(err, "%s: no run whose run key starts with %s", db->path, which);
    if (keys > 1)
        return sgd_errf(err, "%s: run key prefix %s is ambiguous: %lld configurations' keys "
                        "start with it; give more digits", db->path, which, (long long)keys);
    *run_id = id;
    *repeats = runs;
    return 0;
}

int rdb_meta_find_run(rdb_t *db, const char *which, int64_t *run_id, int64_t *repeats,
                      sgd_err_t *err)
{
    *repeats = 1;
    if (!*which)
        return sgd_errf(err, "%s: run '': expected a run id or a run-key prefix", db->path);
    if (strspn(which, "0123456789") == strlen(which)) return find_by_id(db, which, run_id, err);
    return find_by_key(db, which, run_id, repeats, err);
}

/* ---- sections of one run ------------------------------------------------------------ */

/* A configuration leaf of json_tree row J as text: numbers exact, strings as they are. */
#define META_LEAF_TEXT(J)                                                                   \
    "CASE " J ".type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' WHEN 'null' THEN"  \
    " 'null' WHEN 'real' THEN sgdsim_number(" J ".atom) ELSE CAST(" J ".atom AS TEXT) END"

/* config_json of a run as json_tree's argument; a text that is not JSON reads as {}. */
#define META_CONFIG_OF(RUN)                                                                 \
    "(SELECT CASE WHEN json_valid(config_json) THEN config_json ELSE '{}' END FROM runs"   \
    " WHERE id = " RUN ")"

/* The run's columns, command_line last: the recipe to run it again.  Files before schema 3
 * have no such column, so theirs is read as NULL (META_RUN_V2_SQL). */
#define META_RUN_SQL(COMMAND_LINE)                                                          \
    "SELECT id, run_key, scenario, scenario_path, algorithm, workers, seed, backend,"      \
    " status, status_detail, started_at, finished_at, wall_s, vtime_ns, updates, events,"  \
    " events_per_s, digest, blas_core, host, sgdsim_version, git_rev, build_options, "     \
    COMMAND_LINE " AS command_line FROM runs WHERE id = ?1"

static const char META_RUN_V2_SQL[] = META_RUN_SQL("NULL");

static const char *const meta_section_sql[] = {
    [RDB_META_RUN] = META_RUN_SQL("command_line"),
    [RDB_META_CONFIG] =
        ("SELECT " RDB_META_KEY("j") " AS key, " META_LEAF_TEXT("j") " AS value"
        " FROM json_tree(" META_CONFIG_OF("?1") ") j"
        " WHERE j.type NOT IN ('object', 'array') ORDER BY j.id"),
    [RDB_META_FINAL] =
        ("SELECT m.name AS metric, m.update_idx AS \"update\","
        " coalesce(sgdsim_number(m.value), m.nonfinite) AS value FROM metrics m"
        " WHERE m.run_id = ?1 AND m.update_idx = (SELECT max(x.update_idx) FROM metrics x"
        "   WHERE x.run_id = ?1 AND x.name = m.name) ORDER BY m.name"),
    [RDB_META_STALENESS] =
        ("SELECT sum(count) AS gradients,"
        " sgdsim_number(CAST(sum(tau * count) AS REAL) / nullif(sum(count), 0)) AS mean_tau,"
        " max(CASE WHEN count > 0 THEN tau END) AS max_tau, count(*) AS bins"
        " FROM staleness WHERE run_id = ?1 HAVING count(*) > 0"),
    [RDB_META_TRAFFIC] =
        ("SELECT kind, sent_msgs, sent_bytes, skipped_msgs, skipped_bytes FROM traffic"
        " WHERE run_id = ?1 ORDER BY kind"),
    [RDB_META_TAGS] = "SELECT key, value FROM tags WHERE run_id = ?1 ORDER BY key",
    [RDB_META_ARTIFACTS] =
        "SELECT kind, path, bytes, sha256 FROM artifacts WHERE run_id = ?1 ORDER BY kind, path",
};

int rdb_meta_section(rdb_t *db, rdb_meta_section_t section, int64_t run_id, sqlite3_stmt **st,
                     sgd_err_t *err)
{
    *st = NULL;
    const char *table = section == RDB_META_TAGS        ? "tags"
                        : section == RDB_META_ARTIFACTS ? "artifacts"
                                                        : NULL;
    bool has = true;
    if (table && meta_has_table(db, table, &has, err)) return -1;
    if (!has) return 0;
    const char *sql = section == RDB_META_RUN && db->version < 3 ? META_RUN_V2_SQL
                                                                 : meta_section_sql[section];
    if (meta_prepare(db, sql, st, err)) return -1;
    sqlite3_bind_int64(*st, 1, run_id);
    return 0;
}

int rdb_meta_diff(rdb_t *db, int64_t a, int64_t b, sqlite3_stmt **st, sgd_err_t *err)
{
    /* Leaves of each configuration by key; a key either lacks is NULL on that side.  Types
     * are compared too, so 1 and true, or "4" and 4, differ. */
    static const char sql[] =
        "WITH a AS (SELECT " RDB_META_KEY("j") " AS k, type AS t, atom AS v, " META_LEAF_TEXT("j")
        "   AS s FROM json_tree(" META_CONFIG_OF("?1") ") j"
        "   WHERE type NOT IN ('object', 'array')),"
        " b AS (SELECT " RDB_META_KEY("j") " AS k, type AS t, atom AS v, " META_LEAF_TEXT("j")
        "   AS s FROM json_tree(" META_CONFIG_OF("?2") ") j"
        "   WHERE type NOT IN ('object', 'array')),"
        " keys AS (SELECT k FROM a UNION SELECT k FROM b)"
        " SELECT keys.k AS key, a.t AS a_type, a.s AS a, b.t AS b_type, b.s AS b"
        " FROM keys LEFT JOIN a ON a.k = keys.k LEFT JOIN b ON b.k = keys.k"
        " WHERE a.t IS NOT b.t OR a.v IS NOT b.v ORDER BY keys.k";
    if (meta_prepare(db, sql, st, err)) return -1;
    sqlite3_bind_int64(*st, 1, a);
    sqlite3_bind_int64(*st, 2, b);
    return 0;
}

/* ---- SQL functions ------------------------------------------------------------------ */

static void meta_number_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    (void)argc;
    if (sqlite3_value_type(argv[0]) != SQLITE_FLOAT) {
        sqlite3_result_value(ctx, argv[0]);
        return;
    }
    char buf[SGD_JSON_NUMBER_MAX];
    sqlite3_result_text(ctx, sgd_json_format_number(sqlite3_value_double(argv[0]), buf), -1,
                        SQLITE_TRANSIENT);
}

int rdb_meta_register_functions(sqlite3 *db)
{
    return sqlite3_create_function_v2(db, "sgdsim_number", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                      NULL, meta_number_fn, NULL, NULL, NULL);
}
