/* `sgdsim run`'s checkpoints: --checkpoint FILE, --checkpoint-every DURATION,
 * --checkpoint-every-updates N, --checkpoint-exit-at N and --resume FILE (README, "run";
 * docs/results.md, "Checkpoint files").  Everything `run` does with a checkpoint file is
 * here; cmd_run.c calls these at its stages: parse, prepare (before the database is opened:
 * a refused checkpoint leaves it untouched), begin (the run's row: new, or resumed in its
 * database) and arm (the runner writes from then on). */
#ifndef SGDSIM_CLI_CMD_RUN_CKPT_H
#define SGDSIM_CLI_CMD_RUN_CKPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "algorithms/alg.h"
#include "common/ckpt_file.h"
#include "common/ckpt_writer.h"
#include "results/rdb.h"
#include "sim/trace.h"

/* Exit code of a run that stopped after writing a checkpoint on request (SIGTERM, SIGUSR1,
 * --checkpoint-exit-at): EX_TEMPFAIL of sysexits.h, "try again later". */
#define RUN_EXIT_CHECKPOINTED 75

typedef struct run_ckpt {
    /* options */
    const char *path;          /* --checkpoint FILE */
    const char *resume;        /* --resume FILE */
    double every_s;            /* --checkpoint-every, seconds of wall time; 0 = none */
    uint64_t every_updates;    /* --checkpoint-every-updates; 0 = none */
    uint64_t exit_at;          /* --checkpoint-exit-at; 0 = none */
    /* state */
    const char *db_path;       /* --db, and this run's resolved configuration (both */
    const char *now_json;      /* borrowed): what a refused --resume is compared with */
    sgd_ckpt_meta_t meta;      /* this run's header (run id and start set at begin) */
    sgd_ckpt_meta_t saved;     /* the header of the checkpoint resumed from */
    rdb_t *db;
    sgd_ckpt_writer_t *writer; /* writes the files in the background (common/ckpt_writer.h) */
    int64_t rows, last_row;    /* the run's metric rows written so far and the largest
                                  update index among them (-1: none), for the header */
} run_ckpt_t;

/* --checkpoint-every DURATION: "90", "90s", "10m", "2h" (a plain decimal and a unit). */
bool run_ckpt_parse_duration(void *target, const char *opt, const char *v, char *msg,
                             size_t size);

/* Whether any checkpoint option was given. */
bool run_ckpt_wanted(const run_ckpt_t *c);

/* After parsing: the options' combinations.  0, or the exit code after the message. */
int run_ckpt_check_args(run_ckpt_t *c);

/* Before the run is built: the file checkpoints go to can be written -- its directory
 * exists and takes a new file (one is tried), and the file, if there, is a regular file or
 * a device (written in place), not read-only -- so that a run does not learn it only at its
 * first checkpoint, with its work done.  0, or exit 2 after the message. */
int run_ckpt_check_target(const run_ckpt_t *c);

/* After the run was prepared, before the database is opened: refuses an algorithm or
 * backend without checkpoints, and with --resume reads, checks and restores the checkpoint
 * (exit 2 naming the file and what differs: for another configuration, each key that
 * differs from the configuration of the checkpoint's run in db_path, which is only read).
 * 0, or the exit code after the message. */
int run_ckpt_prepare(run_ckpt_t *c, const scn_t *s, alg_prepared_t *run, const char *db_path);

/* With --resume, marks the run's trace (if any) as covering the resumed part only, saying
 * from which checkpoint (sim_trace_resumed). */
void run_ckpt_note_trace(const run_ckpt_t *c, sim_trace_t *t);

/* The sink's begin: a new runs row, or (--resume) the checkpoint's run resumed in db. */
int run_ckpt_begin(run_ckpt_t *c, rdb_t *db, const rdb_run_info_t *info, int64_t *run_id,
                   sgd_err_t *err);

/* One metric row of the run, of `update`, was written (the sink's): counted for the next
 * checkpoint's header, which says what the database must hold (ckpt_file.h). */
void run_ckpt_count_row(run_ckpt_t *c, int64_t update);

/* Makes the prepared run write checkpoints as the options say, once it has begun. */
void run_ckpt_arm(run_ckpt_t *c, alg_prepared_t *run);

/* Waits for a checkpoint write still in flight (only on paths where the runner did not:
 * it waits for the last one before the run ends) and frees the writer. */
void run_ckpt_close(run_ckpt_t *c);

/* Status detail of a run that stopped with a checkpoint (buf). */
void run_ckpt_detail(const run_ckpt_t *c, const alg_outcome_t *o, char *buf, size_t size);

#endif
