/* Run metadata in the results database: tags and artifacts that a run records, the params and
 * final-metrics views that join runs like an experiment tracker's tables, and the reads
 * behind `sgdsim show` and `sgdsim diff` (docs/results.md, "Tags, artifacts, params").
 *
 * Writing: tags go in with the runs row, in rdb_run_begin's transaction (rdb_run_info_t's
 * tags), so a run never exists without them; an artifact is recorded by rdb_artifact_file
 * once its file is complete.
 *
 * Reading: every function works on a handle of rdb_open_meta_reader, which also accepts the
 * older schemas 1 and 2 (read-only, never migrated).  They read the base tables only, never
 * the views, and a table an older schema lacks (tags, artifacts) reads as empty.  Their
 * statements (results/rdb_reader.h: rdb_meta_section, rdb_meta_diff) are read into typed
 * tables by rdb_rows.h (rdb_meta_table, rdb_config_diff); their SQL stays in rdb_meta.c. */
#ifndef SGDSIM_RESULTS_RDB_META_H
#define SGDSIM_RESULTS_RDB_META_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "results/rdb.h"

/* ---- schema 3: tags, artifacts and the join views ----------------------------------- */

/* The tables and views of this module, created by the migration to schema 3
 * (rdb_schema.c) on new and older writable databases.  The params view's key is the JSON path of a leaf of
 * config_json without its leading "$." and without the quotes SQLite's json_tree puts
 * around names that hold more than letters and digits: "cluster.workers",
 * "data.n_train", "model.hidden[0]", "model.layers[1].kernel" (RDB_META_KEY); objects and
 * arrays themselves are not rows.
 * final_metrics_long has every metric's row of the largest update_idx per run;
 * final_metrics is one row per run with a column for each metric sgdsim wrote at schema 3
 * (RDB_META_FINAL_VIEWS_SQL below), NULL where the run has none or its last value was not
 * finite, and from schema 7 on final_json: every metric's last value, whatever its name, as
 * one JSON object -- so a new metric (one line of common/metric.c) needs no migration. */
#define RDB_META_KEY(J) "replace(substr(" J ".fullkey, 3), '\"', '')"

#define RDB_META_FINAL_COL(NAME)                                                           \
    "(SELECT m.value FROM metrics m WHERE m.run_id = r.id AND m.name = '" NAME "'"         \
    " ORDER BY m.update_idx DESC LIMIT 1) AS " NAME

#define RDB_META_V3_SQL                                                                    \
    "CREATE TABLE tags ("                                                                  \
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"                     \
    "  key    TEXT NOT NULL CHECK (key <> ''),"                                            \
    "  value  TEXT NOT NULL,"                                                              \
    "  PRIMARY KEY (run_id, key)"                                                          \
    ") WITHOUT ROWID;"                                                                     \
    "CREATE TABLE artifacts ("                                                             \
    "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"                     \
    "  kind   TEXT NOT NULL,"                                                              \
    "  path   TEXT NOT NULL,"                                                              \
    "  sha256 TEXT NOT NULL,"                                                              \
    "  bytes  INTEGER NOT NULL CHECK (bytes >= 0),"                                        \
    "  PRIMARY KEY (run_id, kind, path)"                                                   \
    ") WITHOUT ROWID;"                                                                     \
    "CREATE VIEW params AS"                                                                \
    "  SELECT r.id AS run_id, " RDB_META_KEY("j") " AS key, j.value AS value,"              \
    "         j.type AS type"                                                              \
    "  FROM runs r, json_tree(CASE WHEN json_valid(r.config_json) THEN r.config_json"      \
    "                         ELSE '{}' END) j"                                            \
    "  WHERE j.type NOT IN ('object', 'array');"                                           \
    RDB_META_FINAL_VIEWS_SQL("", "")

/* The two final-metrics views; ORDER_LONG and ORDER are their rows' order (schema 3: none,
 * which SQLite happened to give by run; schema 5 makes it part of the contract). */
#define RDB_META_FINAL_VIEWS_SQL(ORDER_LONG, ORDER)                                        \
    "CREATE VIEW final_metrics_long AS"                                                    \
    "  SELECT run_id, name, max(update_idx) AS update_idx, vtime_ns, value, nonfinite"     \
    "  FROM metrics GROUP BY run_id, name" ORDER_LONG ";"                                 \
    "CREATE VIEW final_metrics AS"                                                         \
    "  SELECT r.id AS run_id, " RDB_META_FINAL_COLUMNS                                     \
    "  FROM runs r" ORDER ";"

/* final_metrics' named columns: the metrics sgdsim wrote when schema 3 made the view (the
 * text of schemas 3 to 6, which databases in users' hands hold: never changed). */
#define RDB_META_FINAL_COLUMNS                                                             \
    RDB_META_FINAL_COL("train_loss") ", " RDB_META_FINAL_COL("lr") ", "                    \
    RDB_META_FINAL_COL("val_loss") ", " RDB_META_FINAL_COL("val_error") ", "               \
    RDB_META_FINAL_COL("images_per_s") ", " RDB_META_FINAL_COL("norm_mean") ", "           \
    RDB_META_FINAL_COL("staleness_mean") ", " RDB_META_FINAL_COL("staleness_p50") ", "     \
    RDB_META_FINAL_COL("staleness_p99") ", " RDB_META_FINAL_COL("staleness_max") ", "      \
    RDB_META_FINAL_COL("snapshots_peak") ", " RDB_META_FINAL_COL("fetch_sent") ", "        \
    RDB_META_FINAL_COL("fetch_skipped") ", " RDB_META_FINAL_COL("push_sent") ", "          \
    RDB_META_FINAL_COL("push_skipped") ", " RDB_META_FINAL_COL("version_age_mean") ", "    \
    RDB_META_FINAL_COL("version_age_max")

/* Schema 5: the final-metrics views ordered by run (and metric name), whatever plan SQLite
 * picks. */
#define RDB_META_V5_SQL                                                                    \
    "DROP VIEW final_metrics_long; DROP VIEW final_metrics;"                               \
    RDB_META_FINAL_VIEWS_SQL(" ORDER BY run_id, name", " ORDER BY r.id")

/* A REAL as a JSON number that reads back as the same double: the shortest of 15, 16 and 17
 * significant digits that does ('!': SQLite's printf with every digit asked for), "null"
 * for NULL (a value that was not finite).  json_group_object would keep only 15. */
#define RDB_META_JSON_NUMBER(V)                                                            \
    "CASE WHEN " V " IS NULL THEN 'null'"                                                  \
    " WHEN CAST(printf('%!.15g', " V ") AS REAL) = " V " THEN printf('%!.15g', " V ")"     \
    " WHEN CAST(printf('%!.16g', " V ") AS REAL) = " V " THEN printf('%!.16g', " V ")"     \
    " ELSE printf('%!.17g', " V ") END"

/* Every metric's last value of run r, as one JSON object by name, its keys in name order:
 * the run's rows in the primary key's order, the bare value column taken from each name's
 * row of the largest update_idx.  Like the params view it calls JSON functions, which
 * SQLite before 3.45 does not mark innocuous: readers (whose schema is trusted, rdb.c) read
 * it, a writer's connection never does. */
#define RDB_META_FINAL_JSON                                                                \
    "(SELECT '{' || group_concat(json_quote(f.name) || ':' || "                            \
    RDB_META_JSON_NUMBER("f.value") ", ',') || '}' FROM (SELECT m.name AS name,"           \
    " m.value AS value, max(m.update_idx) FROM metrics m WHERE m.run_id = r.id"            \
    " GROUP BY m.name ORDER BY m.name) f) AS final_json"

/* Schema 7: final_metrics gains final_json, every metric whatever its name; its named
 * columns stay those of schema 3, so scripts that read them read them as before. */
#define RDB_META_V7_SQL                                                                    \
    "DROP VIEW final_metrics;"                                                             \
    "CREATE VIEW final_metrics AS"                                                         \
    "  SELECT r.id AS run_id, " RDB_META_FINAL_COLUMNS ", " RDB_META_FINAL_JSON             \
    "  FROM runs r ORDER BY r.id;"

/* ---- writing ------------------------------------------------------------------------ */

/* Inserts the run's tags inside the transaction the caller (rdb_run_begin) has open.
 * Keys must be distinct and non-empty (checked again by the table). */
int rdb_meta_insert_tags(rdb_t *db, int64_t run_id, const rdb_tag_t *tags, size_t ntags,
                         sgd_err_t *err);

/* Records the file at `path` (a finished file of run run_id: "trace" for run --trace) as an
 * artifact: its absolute path, size and SHA-256, in one transaction of its own.  The same
 * (run, kind, path) again replaces the row.  Something that is not a regular file (a pipe,
 * /dev/stdout, /dev/null) holds nothing to find again and is not recorded (0). */
int rdb_artifact_file(rdb_t *db, int64_t run_id, const char *kind, const char *path,
                      sgd_err_t *err);
/* rdb_artifact_file for a file made from several runs (a figure of `plot --record`): one row
 * for each of runs[0..n), all in one transaction. */
int rdb_artifact_file_runs(rdb_t *db, const int64_t *runs, size_t n, const char *kind,
                           const char *path, sgd_err_t *err);

/* ---- reading (show, diff) ----------------------------------------------------------- */

/* rdb_open_readonly accepting every sgdsim schema up to this build's (an older one is read
 * as it is); *version receives the file's schema version. */
int rdb_open_meta_reader(const char *path, int64_t *version, rdb_t **out, sgd_err_t *err);

/* Finds the run `which` names: all decimal digits is a run id; anything else a prefix of a
 * run_key (hex, at least 4 characters), which must belong to one configuration (repeats
 * of it: the latest run, and *repeats says how many share the key; 1 otherwise).  An unknown
 * run or an ambiguous prefix is an error naming `which`. */
int rdb_meta_find_run(rdb_t *db, const char *which, int64_t *run_id, int64_t *repeats,
                      sgd_err_t *err);

/* What rdb_meta_table (rdb_rows.h) reads about one run. */
typedef enum rdb_meta_section {
    RDB_META_RUN,       /* one row: the run's columns (id, run_key, scenario, status, ...) */
    RDB_META_CONFIG,    /* (key, value): every leaf of config_json, numbers exact, in order */
    RDB_META_FINAL,     /* (metric, update, value): each metric's last row, by name */
    RDB_META_STALENESS, /* (gradients, mean_tau, max_tau, bins); no row without a histogram */
    RDB_META_TRAFFIC,   /* (kind, sent_msgs, sent_bytes, skipped_msgs, skipped_bytes) */
    RDB_META_TAGS,      /* (key, value) by key; none in a schema without tags */
    RDB_META_ARTIFACTS, /* (kind, path, bytes, sha256); none in a schema without artifacts */
} rdb_meta_section_t;

#endif
