/* `sgdsim run`'s checkpoint options, declared in cmd_run_ckpt.h. */
#include "cli/cmd_run_ckpt.h"

#include <math.h>

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/groups.h"
#include "cli/cli.h"
#include "common/number.h"
#include "common/outpath.h"
#include "common/sha256.h"
#include "common/strbuf.h"
#include "results/rdb_meta.h"
#include "results/rdb_resume.h"
#include "results/rdb_rows.h"

bool run_ckpt_parse_duration(void *target, const char *opt, const char *v, char *msg,
                             size_t size)
{
    run_ckpt_t *c = target;
    static const struct {
        char unit;
        double seconds;
    } units[] = {{'s', 1}, {'m', 60}, {'h', 3600}};
    size_t n = strlen(v);
    double scale = 1, value = 0;
    char num[64];
    if (n > 0 && n < sizeof num) {
        memcpy(num, v, n + 1);
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
            if (num[n - 1] == units[i].unit) num[n - 1] = '\0', scale = units[i].seconds;
    }
    if (n == 0 || n >= sizeof num || !sgd_parse_decimal(num, &value) || !(value > 0) ||
        !isfinite(value * scale) || value * scale > 1e9) {
        snprintf(msg, size, "%s %s: expected a wall-clock duration > 0 such as 90s, 10m or 2h",
                 opt, v);
        return false;
    }
    c->every_s = value * scale;
    return true;
}

bool run_ckpt_wanted(const run_ckpt_t *c) { return c->path || c->resume; }

int run_ckpt_check_args(run_ckpt_t *c)
{
    if (!c->path && c->resume) c->path = c->resume; /* go on writing where it came from */
    if (!c->path && (c->every_s > 0 || c->every_updates || c->exit_at))
        return cli_bad_input("run: --checkpoint-every, --checkpoint-every-updates and "
                             "--checkpoint-exit-at need --checkpoint FILE (or --resume FILE)");
    return 0;
}

int run_ckpt_check_target(const run_ckpt_t *c)
{
    if (!c->path) return 0;
    const char *opt = c->path == c->resume ? "--resume" : "--checkpoint";
    struct stat st;
    if (stat(c->path, &st) == 0) {
        /* A device is written in place (common/outpath.h: /dev/full fails the write, as a
         * full disk would); a FIFO or a socket would hold the writer until a reader came. */
        const bool file = S_ISREG(st.st_mode) || S_ISCHR(st.st_mode);
        const char *why = S_ISDIR(st.st_mode) ? "is a directory"
                          : !file             ? "is neither a regular file nor a device"
                          /* no write bit at all: read-only even for root, who may write it */
                          : !(st.st_mode & 0222) || access(c->path, W_OK) != 0
                              ? "is read-only"
                              : NULL;
        if (why)
            return cli_bad_input("run: %s %s: %s; checkpoints are written to a new file "
                                 "renamed over it (give --checkpoint another FILE)", opt,
                                 c->path, why);
    }
    /* The writer creates a temporary file beside the target: try one now. */
    sgd_outfile_t o;
    sgd_err_t err = {{0}};
    if (sgd_outfile_open(&o, c->path, &err))
        return cli_bad_input("run: %s %s", opt, err.msg);
    sgd_outfile_abort(&o, false);
    return 0;
}

/* SHA-256 of the resolved configuration less numerics.threads: the results are the same
 * bits for any thread count, so a run may be resumed on another. */
static void scenario_hash(const scn_t *s, char hex[SGD_SHA256_HEX_LEN + 1])
{
    cJSON *root = cJSON_Parse(s->resolved_json);
    SGD_ASSERT(root);
    cJSON_DeleteItemFromObjectCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(root, "numerics"), "threads");
    char *text = cJSON_PrintUnformatted(root);
    SGD_ASSERT(text);
    sgd_sha256_hex(text, strlen(text), hex);
    cJSON_free(text);
    cJSON_Delete(root);
}

/* This run's header fields (run id and start come at begin). */
static void fill_meta(const scn_t *s, sgd_ckpt_meta_t *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->sgdsim_version, sizeof m->sgdsim_version, "%s", cli_version());
    snprintf(m->git_rev, sizeof m->git_rev, "%s", cli_git_rev());
    snprintf(m->blas_core, sizeof m->blas_core, "%s", s->numerics.blas_core);
    snprintf(m->algorithm, sizeof m->algorithm, "%s", s->algorithm);
    snprintf(m->run_key, sizeof m->run_key, "%s", s->config_hash);
    scenario_hash(s, m->scenario_hash);
}

/* The compact JSON of key's value in c ("\"csgd\"", 0.05), or NULL when c lacks the key. */
static const char *json_of(const ana_config_t *c, const char *key)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->kv[i].key, key) == 0) return c->kv[i].json;
    return NULL;
}

/* One line per configuration key (analysis/groups.h's dotted paths, as `sgdsim diff` names
 * them) whose value differs between then_json and now_json, or that one of them lacks, into
 * out: "  KEY: the checkpoint's A, this run's B", values as JSON so that "4" and 4 differ.
 * Keys that change no result (numerics.threads) are not listed: a run may be resumed on
 * another thread count.  Returns the number of lines. */
static int config_diff_lines(const char *then_json, const char *now_json, sgd_strbuf_t *out)
{
    ana_config_t then, now;
    ana_config_flatten(then_json, &then);
    ana_config_flatten(now_json, &now);
    int n = 0;
    for (int side = 0; side < 2; side++) { /* the checkpoint's keys, then this run's others */
        const ana_config_t *mine = side ? &now : &then, *theirs = side ? &then : &now;
        for (int i = 0; i < mine->n; i++) {
            const char *key = mine->kv[i].key, *other = json_of(theirs, key);
            if (!ana_key_changes_results(key) || (side && other) ||
                (other && strcmp(other, mine->kv[i].json) == 0))
                continue;
            const char *a = side ? other : mine->kv[i].json, *b = side ? mine->kv[i].json : other;
            sgd_strbuf_printf(out, "\n  %s: the checkpoint's %s, this run's %s", key,
                              a ? a : "(absent)", b ? b : "(absent)");
            n++;
        }
    }
    ana_config_free(&then);
    ana_config_free(&now);
    return n;
}

/* The refusal of a checkpoint whose header differs from this run's (field: the first field
 * that differs, as sgd_ckpt_meta_diff says it).  When the database holds the run the
 * checkpoint continues (its id and start), the configuration keys that differ are named,
 * with the header's field after them: a hash alone does not say what to change. */
static int refuse_other_run(const run_ckpt_t *c, const char *field)
{
    sgd_strbuf_t keys = {0};
    int n = 0;
    rdb_t *db = NULL;
    int64_t version;
    sgd_err_t err = {{0}};
    char started[64], *then_json = NULL;
    if (rdb_open_meta_reader(c->db_path, &version, &db, &err) == 0 &&
        rdb_run_started_at(db, c->saved.run_id, started, sizeof started, &err) == 0 &&
        strcmp(started, c->saved.run_started) == 0 &&
        rdb_run_config(db, c->saved.run_id, &then_json, &err) == 0 && then_json)
        n = config_diff_lines(then_json, c->now_json, &keys);
    free(then_json);
    if (db) rdb_close(db);
    int rc;
    if (n > 0)
        rc = cli_bad_input("run: --resume %s: written by another run, bits would not be kept: "
                           "this run's configuration differs from that of run %lld in %s, "
                           "which the checkpoint continues, in %d key%s:%s\n  (%s)",
                           c->resume, (long long)c->saved.run_id, c->db_path, n,
                           n == 1 ? "" : "s", keys.p, field);
    else
        rc = cli_bad_input("run: --resume %s: written by another run, bits would not be kept: "
                           "%s", c->resume, field);
    sgd_strbuf_free(&keys);
    return rc;
}

/* --resume, before its payload is read: the header against this run (another run's file is
 * refused without reading the rest), and the file's size against this machine's memory.  0,
 * or the exit code after the message. */
static int check_resume_header(run_ckpt_t *c)
{
    sgd_err_t err = {{0}};
    if (sgd_ckpt_read_header(c->resume, &c->saved, &err))
        return cli_bad_input("run: --resume %s", err.msg);
    char diff[512];
    if (sgd_ckpt_meta_diff(&c->saved, &c->meta, diff, sizeof diff))
        return refuse_other_run(c, diff);
    struct stat st;
    char what[600];
    snprintf(what, sizeof what, "--resume %s", c->resume);
    if (stat(c->resume, &st) == 0 && alg_check_memory(what, (double)st.st_size, &err))
        return cli_bad_input("run: %s", err.msg);
    return 0;
}

/* --resume: the file, its header against this run, and the state into the prepared run. */
static int resume_from(run_ckpt_t *c, alg_prepared_t *run)
{
    int rc = check_resume_header(c);
    if (rc) return rc;
    uint8_t *file;
    const uint8_t *payload;
    size_t n;
    sgd_err_t err = {{0}};
    char diff[512];
    if (sgd_ckpt_read(c->resume, &c->saved, &file, &payload, &n, &err))
        return cli_bad_input("run: --resume %s", err.msg);
    if (sgd_ckpt_meta_diff(&c->saved, &c->meta, diff, sizeof diff)) /* the file changed */
        rc = refuse_other_run(c, diff);
    else if (alg_restore(run, payload, n, &err))
        rc = cli_bad_input("run: --resume %s: %s", c->resume, err.msg);
    else if (alg_restored_updates(run) != c->saved.updates || c->saved.run_id < 1)
        /* the header says which rows the database keeps: it must be the state's update */
        rc = cli_bad_input("run: --resume %s: its header says run %lld after update %lld, its "
                           "state is after update %lld", c->resume, (long long)c->saved.run_id,
                           (long long)c->saved.updates, (long long)alg_restored_updates(run));
    free(file);
    return rc;
}

int run_ckpt_prepare(run_ckpt_t *c, const scn_t *s, alg_prepared_t *run, const char *db_path)
{
    if (!run_ckpt_wanted(c)) return 0;
    c->db_path = db_path;
    c->now_json = s->resolved_json;
    const char *why = alg_checkpoint_unsupported(run);
    if (why)
        return cli_bad_input("run: %s %s: %s", c->resume ? "--resume" : "--checkpoint",
                             c->resume ? c->resume : c->path, why);
    fill_meta(s, &c->meta);
    int rc = c->resume ? resume_from(c, run) : 0;
    /* A stop at an update the checkpoint has passed would be one after the next update. */
    if (rc == 0 && c->resume && c->exit_at && (int64_t)c->exit_at <= alg_restored_updates(run))
        rc = cli_bad_input("run: --checkpoint-exit-at %llu: the checkpoint is after update %lld "
                           "already (--resume %s); give a later update",
                           (unsigned long long)c->exit_at, (long long)alg_restored_updates(run),
                           c->resume);
    return rc;
}

void run_ckpt_note_trace(const run_ckpt_t *c, sim_trace_t *t)
{
    if (!c->resume || !t) return;
    char note[SGD_ERR_MAX];
    snprintf(note, sizeof note, "this trace covers run %lld (started %s) after update %lld, "
             "resumed from checkpoint %s; what came before is in the trace of the run that "
             "wrote the checkpoint", (long long)c->saved.run_id, c->saved.run_started,
             (long long)c->saved.updates, c->resume);
    sim_trace_resumed(t, note);
}

int run_ckpt_begin(run_ckpt_t *c, rdb_t *db, const rdb_run_info_t *info, int64_t *run_id,
                   sgd_err_t *err)
{
    c->db = db;
    c->rows = 0;
    c->last_row = -1;
    if (c->resume) {
        rdb_resume_t q = {.run_id = c->saved.run_id, .run_key = c->saved.run_key,
                          .started_at = c->saved.run_started, .after_update = c->saved.updates,
                          .expect_rows = c->saved.db_rows,
                          .expect_last_update = c->saved.db_last_update,
                          .tags = info->tags, .ntags = info->ntags};
        if (rdb_run_resume(db, &q, err)) {
            char what[SGD_ERR_MAX];
            snprintf(what, sizeof what, "--resume %s", c->resume);
            return sgd_err_prefix(err, what);
        }
        *run_id = c->saved.run_id;
        c->rows = c->saved.db_rows;
        c->last_row = c->saved.db_last_update;
    } else if (rdb_run_begin(db, info, run_id, err)) {
        return -1;
    }
    c->meta.run_id = *run_id;
    if (!run_ckpt_wanted(c)) return 0;
    return rdb_run_started_at(db, *run_id, c->meta.run_started, sizeof c->meta.run_started,
                              err);
}

/* The runner's writer: the database's rows up to this update are committed here, on the
 * run's thread, before the file's write starts in the background, so that a checkpoint
 * never runs ahead of the rows it continues.  The payload passes to the writer thread. */
static int write_checkpoint(void *ctx, void *payload, size_t n, int64_t updates,
                            sgd_err_t *err)
{
    run_ckpt_t *c = ctx;
    if (rdb_flush(c->db, err)) {
        free(payload);
        return -1;
    }
    c->meta.updates = updates;
    c->meta.db_rows = c->rows; /* committed just now */
    c->meta.db_last_update = c->last_row;
    if (!c->writer) c->writer = sgd_ckpt_writer_create();
    sgd_ckpt_writer_start(c->writer, c->path, &c->meta, payload, n);
    return 0;
}

/* The runner's wait (alg_checkpoint_opts_t.wait) on the background writer. */
static int wait_checkpoint(void *ctx, bool block, sgd_err_t *err)
{
    run_ckpt_t *c = ctx;
    if (!block && !sgd_ckpt_writer_ended(c->writer)) return 1;
    return sgd_ckpt_writer_wait(c->writer, err);
}

/* The runner's reclaim: the last written payload, to serialise the next checkpoint into. */
static void *reclaim_checkpoint(void *ctx, size_t *n)
{
    run_ckpt_t *c = ctx;
    *n = 0;
    return c->writer ? sgd_ckpt_writer_reclaim(c->writer, n) : NULL;
}

void run_ckpt_count_row(run_ckpt_t *c, int64_t update)
{
    c->rows++;
    if (update > c->last_row) c->last_row = update;
}

void run_ckpt_arm(run_ckpt_t *c, alg_prepared_t *run)
{
    if (!run_ckpt_wanted(c)) return;
    alg_checkpoint_opts_t o = {.every_updates = (int64_t)c->every_updates,
                               .every_wall_s = c->every_s,
                               .exit_at_update = (int64_t)c->exit_at,
                               .write = write_checkpoint,
                               .wait = wait_checkpoint,
                               .reclaim = reclaim_checkpoint,
                               .ctx = c};
    alg_set_checkpoints(run, &o);
}

void run_ckpt_close(run_ckpt_t *c)
{
    sgd_ckpt_writer_destroy(c->writer);
    c->writer = NULL;
}

void run_ckpt_detail(const run_ckpt_t *c, const alg_outcome_t *o, char *buf, size_t size)
{
    snprintf(buf, size, "stopped after update %lld with a checkpoint in %s; continue it with "
                        "sgdsim run SCENARIO --db DB --resume %s",
             (long long)o->updates, c->path, c->path);
}
