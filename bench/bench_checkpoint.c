/* bench_checkpoint: what one checkpoint costs a run, as ratios to the run's own update time
 * (bench/checkpoint_cost.sh runs it on FASGD with lambda = 10,000 and mu = 128).
 *
 * Usage: bench_checkpoint sync|bg|bg-again SCENARIO UPDATES FILE [--set key.path=value]...
 * Loads SCENARIO with the overrides (its data files relative to it, as `sgdsim run` reads
 * them), runs it on one thread and writes one checkpoint after update UPDATES to FILE:
 *   sync  as `run --checkpoint` did before background writes: the runner's write callback
 *         calls sgd_ckpt_write (a temporary file, SHA-256, fsync, rename, the directory
 *         fsync'ed) and returns when the file is in place; the run stops there
 *         (--checkpoint-exit-at);
 *   bg    as `run --checkpoint` does now: the callback hands the payload to the background
 *         writer (common/ckpt_writer.h) and the run goes on; once the write has ended and the
 *         run has made as many updates again, it is interrupted (stop.updates must leave room
 *         for them);
 *   bg-again  as bg, but the measured checkpoint is the run's second: a first one is written
 *         after UPDATES / 2 updates (UPDATES even), and the second serialises into its
 *         buffer, as every checkpoint after a run's first does (common/ckpt_writer.h,
 *         "Reuse"); the run is interrupted before a third would be due.
 * Then it prepares the same run afresh, reads the file and restores it.  Measured in this
 * process, with CLOCK_MONOTONIC:
 *   update_s   wall seconds per update from the start of the run to update UPDATES
 *              (evaluation included: the run's own pace);
 *   base_s     the same over the last min(300, UPDATES - 1) updates before UPDATES: the pace
 *              just before the checkpoint, against which during_s is compared;
 *   stall_s    the time the run stands still: from the end of update UPDATES until the run
 *              goes on -- settling the deferred updates (the parameter-server family applies
 *              the few its schedule ran ahead), serialising, committing nothing (there is no
 *              database here), and in sync mode the whole file write;
 *   file_s     sgd_ckpt_write's own time: in sync mode inside stall_s, in bg mode on the
 *              writer's thread while the run goes on;
 *   during_n, during_s  (bg) updates the run made while the file was written, and its wall
 *              seconds per update meanwhile (the cores shared with the writer);
 *   after_s    (bg) wall seconds per update over as many updates again once the write had
 *              ended; the run is interrupted there;
 *   read_s     sgd_ckpt_read (whole file, SHA-256 checked) and alg_restore into the freshly
 *              prepared run; prepare_s is preparing that run, which every run does anyway;
 *   live_bytes the run's live state as the kernel counts it: resident memory (VmRSS) at
 *              update UPDATES less resident memory once the run was prepared -- the
 *              parameter snapshots, the ledger, the clients' state, everything the run grew
 *              (recycled snapshot buffers included, so an upper bound);
 *   ckpt_bytes the file's size; params_bytes one parameter vector.
 * Prints one line of KEY=VALUE pairs.  Asserts nothing about time; exits 1 if the run or the
 * restore fails, 2 on bad arguments.  The OpenBLAS kernel is OPENBLAS_CORETYPE's (the script
 * exports the one `sgdsim --version` reports). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "algorithms/alg.h"
#include "common/ckpt_file.h"
#include "common/ckpt_writer.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Resident memory of this process in bytes (VmRSS), or -1. */
static long long rss_bytes(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %lld kB", &kb) == 1) break;
    if (f) fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}

#define BASE_UPDATES 300

typedef struct probe {
    bool bg;               /* the mode: bg or bg-again */
    bool again;            /* bg-again */
    const char *path;      /* the checkpoint file */
    int64_t at;            /* UPDATES */
    double t_start, t_at;  /* the run's start, update UPDATES */
    double t_base;         /* update UPDATES - base_n */
    int64_t base_n;
    long long rss_at;      /* VmRSS at update UPDATES */
    double file_s, t_handed; /* time in sgd_ckpt_write; when the run went on */
    sgd_ckpt_writer_t *writer;
    int64_t handed_update, ended_update; /* (bg) the updates at hand-over and write's end */
    double t_ended, t_after; /* (bg) the write seen ended; as many updates later */
    size_t payload;
    size_t nparams;
} probe_t;

static int on_begin(void *ctx, size_t nparams, sgd_err_t *err)
{
    (void)err;
    ((probe_t *)ctx)->nparams = nparams;
    return 0;
}

/* Timestamps of the updates around the checkpoint; in bg mode, the first update after which
 * the write was seen ended, and the run is interrupted there. */
static void on_update(void *ctx, int64_t update, int64_t vtime_ns, double train_loss,
                      uint64_t events)
{
    (void)vtime_ns, (void)train_loss, (void)events;
    probe_t *p = ctx;
    if (update == p->at - p->base_n) p->t_base = now();
    if (update == p->at) p->t_at = now(), p->rss_at = rss_bytes();
    if (p->bg && p->t_handed > 0 && !p->ended_update && sgd_ckpt_writer_ended(p->writer)) {
        p->t_ended = now();
        p->ended_update = update;
    }
    /* As many updates again after the write, for the pace without it (after_s). */
    if (p->ended_update && p->t_after == 0 &&
        (update >= 2 * p->ended_update - p->handed_update ||
         (p->again && update == p->at + p->at / 2 - 1))) {
        p->t_after = now();
        alg_request_interrupt();
    }
}

/* sync: sgd_ckpt_write, as the CLI's before background writes (less its database flush). */
static int write_sync(void *ctx, void *payload, size_t n, int64_t updates, sgd_err_t *err)
{
    probe_t *p = ctx;
    sgd_ckpt_meta_t m = {.run_id = 1, .updates = updates};
    snprintf(m.algorithm, sizeof m.algorithm, "bench");
    double t0 = now();
    int rc = sgd_ckpt_write(p->path, &m, payload, n, err);
    free(payload);
    p->t_handed = now();
    p->file_s = p->t_handed - t0;
    p->payload = n;
    return rc;
}

/* bg: the hand-over to the background writer, as the CLI's (less its database flush). */
static int write_bg(void *ctx, void *payload, size_t n, int64_t updates, sgd_err_t *err)
{
    (void)err;
    probe_t *p = ctx;
    sgd_ckpt_meta_t m = {.run_id = 1, .updates = updates};
    snprintf(m.algorithm, sizeof m.algorithm, "bench");
    sgd_ckpt_writer_start(p->writer, p->path, &m, payload, n);
    if (updates < p->at) return 0; /* bg-again's first checkpoint: not the one measured */
    p->t_handed = now();
    p->handed_update = updates;
    p->payload = n;
    return 0;
}

static void *reclaim_bg(void *ctx, size_t *n)
{
    return sgd_ckpt_writer_reclaim(((probe_t *)ctx)->writer, n);
}

static int wait_bg(void *ctx, bool block, sgd_err_t *err)
{
    probe_t *p = ctx;
    if (!block && !sgd_ckpt_writer_ended(p->writer)) return 1;
    int rc = sgd_ckpt_writer_wait(p->writer, err);
    p->file_s = sgd_ckpt_writer_last_seconds(p->writer);
    return rc;
}

/* A prepared run of s on one thread; NULL after a message. */
static alg_prepared_t *prepare(scn_t *s)
{
    sgd_err_t err = {{0}};
    alg_prepare_opts_t po = {.backend = ALG_BACKEND_NEEDED};
    alg_prepared_t *run;
    s->numerics.threads_resolved = 1;
    if (alg_prepare(s, &po, &run, &err) == 0) return run;
    fprintf(stderr, "bench_checkpoint: %s: %s\n", s->path, err.msg);
    return NULL;
}

/* Runs to update p->at and writes the checkpoint there; 0 or 1 after a message. */
static int run_and_write(scn_t *s, probe_t *p, long long *rss_prepared)
{
    alg_prepared_t *run = prepare(s);
    if (!run) return 1;
    *rss_prepared = rss_bytes();
    alg_checkpoint_opts_t sync = {.exit_at_update = p->at, .write = write_sync, .ctx = p};
    alg_checkpoint_opts_t bg = {.once_at_update = p->again ? 0 : p->at,
                                .every_updates = p->again ? p->at / 2 : 0,
                                .write = write_bg, .wait = wait_bg, .reclaim = reclaim_bg,
                                .ctx = p};
    alg_set_checkpoints(run, p->bg ? &bg : &sync);
    alg_sink_t sink = {.ctx = p, .begin = on_begin, .progress = on_update};
    alg_outcome_t o;
    sgd_err_t err = {{0}};
    p->t_start = now();
    int rc = alg_execute(run, &sink, &o, &err);
    free(o.final_params);
    alg_prepared_free(run);
    bool wrote = p->bg ? p->file_s > 0 && !strstr(o.detail, "checkpoint after")
                       : o.status == ALG_CHECKPOINTED;
    if (rc == 0 && wrote && p->t_at > 0) return 0;
    fprintf(stderr, "bench_checkpoint: the run did not stop with a checkpoint at update %lld: "
                    "%s%s\n", (long long)p->at, err.msg, o.detail);
    return 1;
}

/* Prepares the run afresh and restores the checkpoint; 0 or 1 after a message. */
static int read_back(scn_t *s, const char *path, double *prepare_s, double *read_s)
{
    double t0 = now();
    alg_prepared_t *run = prepare(s);
    if (!run) return 1;
    double t1 = now();
    sgd_ckpt_meta_t m;
    uint8_t *file;
    const uint8_t *payload;
    size_t n;
    sgd_err_t err = {{0}};
    int rc = sgd_ckpt_read(path, &m, &file, &payload, &n, &err);
    if (rc == 0) {
        rc = alg_restore(run, payload, n, &err);
        free(file);
    }
    *read_s = now() - t1;
    *prepare_s = t1 - t0;
    alg_prepared_free(run);
    if (rc) fprintf(stderr, "bench_checkpoint: restore: %s\n", err.msg);
    return rc ? 1 : 0;
}

/* The KEY=VALUE line of one measurement (the header comment says what each is). */
static void print_line(const probe_t *p, double prepare_s, double read_s, long long bytes,
                       long long rss0)
{
    int64_t during_n = p->ended_update ? p->ended_update - p->handed_update : 0;
    double during_s = during_n > 0 ? (p->t_ended - p->t_handed) / (double)during_n : 0;
    double after_s = during_n > 0 && p->t_after > 0 ? (p->t_after - p->t_ended) / (double)during_n : 0;
    printf("mode=%s updates=%lld update_s=%.6g base_s=%.6g stall_s=%.6g file_s=%.6g "
           "during_n=%lld during_s=%.6g after_s=%.6g read_s=%.6g prepare_s=%.6g ckpt_bytes=%lld "
           "payload_bytes=%zu params_bytes=%zu live_bytes=%lld\n",
           p->again ? "bg-again" : p->bg ? "bg" : "sync", (long long)p->at,
           (p->t_at - p->t_start) / (double)p->at,
           (p->t_at - p->t_base) / (double)p->base_n, p->t_handed - p->t_at, p->file_s,
           (long long)during_n, during_s, after_s, read_s, prepare_s, bytes, p->payload,
           p->nparams * sizeof(float), p->rss_at - rss0);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    bool again = strcmp(mode, "bg-again") == 0, bg = again || strcmp(mode, "bg") == 0;
    if (argc < 5 || (argc - 5) % 2 != 0 || (!bg && strcmp(mode, "sync") != 0)) {
        fprintf(stderr, "usage: bench_checkpoint sync|bg|bg-again SCENARIO UPDATES FILE "
                        "[--set key=value]...\n");
        return 2;
    }
    char *end;
    long long at = strtoll(argv[3], &end, 10);
    int nsets = (argc - 5) / 2;
    scn_override_t *sets = calloc((size_t)nsets + 1, sizeof *sets);
    if (!sets) return 1;
    for (int i = 0; i < nsets; i++) {
        if (strcmp(argv[5 + 2 * i], "--set") != 0) at = 0; /* refused below */
        sets[i].assignment = argv[6 + 2 * i];
    }
    if (*end || at < 2 || (again && at % 2)) {
        fprintf(stderr, "bench_checkpoint: UPDATES %s: expected a number >= 2 (even for "
                        "bg-again), then --set pairs\n", argv[3]);
        free(sets);
        return 2;
    }
    scn_t s;
    sgd_err_t err = {{0}};
    if (scn_load(argv[2], sets, nsets, NULL, alg_scenario_table, &s, &err)) {
        fprintf(stderr, "bench_checkpoint: %s\n", err.msg);
        free(sets);
        return 2;
    }
    probe_t p = {.bg = bg, .again = again, .path = argv[4], .at = at,
                 .base_n = at - 1 < BASE_UPDATES ? at - 1 : BASE_UPDATES,
                 .writer = sgd_ckpt_writer_create()};
    long long rss0 = 0;
    double prepare_s = 0, read_s = 0;
    int rc = at < s.stop_updates ? run_and_write(&s, &p, &rss0)
                                 : (fprintf(stderr, "bench_checkpoint: UPDATES must be below "
                                                    "stop.updates (%lld)\n",
                                            (long long)s.stop_updates), 2);
    sgd_ckpt_writer_destroy(p.writer);
    if (rc == 0) rc = read_back(&s, argv[4], &prepare_s, &read_s);
    struct stat st;
    if (rc == 0 && stat(argv[4], &st) != 0) rc = 1;
    if (rc == 0) print_line(&p, prepare_s, read_s, (long long)st.st_size, rss0);
    scn_free(&s);
    free(sets);
    return rc;
}
