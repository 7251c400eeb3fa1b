/* `sgdsim sweep SCENARIO [--set key=v1,v2,...]... [-j N] [--db PATH] [--shard I/N]`: runs the
 * cartesian product of the scenario's "sweep" block and the command line's lists (zip groups
 * advancing together), one run per point, in a pool of N processes writing into one
 * database; resumable (finished points are skipped, unfinished ones redone, or continued
 * from their checkpoints with --checkpoint-dir); --shard splits a sweep over independent
 * jobs (Slurm arrays, GNU parallel), mpirun over MPI ranks.
 * Planning is in sweep/plan.c (zip groups in sweep/zip.c), running the points in
 * sweep/exec.c, their checkpoints in sweep/ckpt.c, spreading them over MPI ranks in
 * sweep/mpi.c; this file reads as parse -> plan -> list or execute -> summarise. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algorithms/alg.h"
#include "cli/cli.h"
#include "cli/machine.h"
#include "cli/outpath.h"
#include "sweep/exec.h"
#include "sweep/mpi.h"
#include "results/rdb.h"
#include "results/rdb_read.h"

/* Most point processes -j may run at once. */
#define SWEEP_MAX_JOBS 4096

static void usage(FILE *f)
{
    fprintf(f,
        "usage: sgdsim sweep SCENARIO [--set key.path=v1,v2,...]... [-j N] [--db PATH]\n"
        "                    [--shard I/N] [--seed N] [--blas-core NAME] [--threads N]\n"
        "                    [--zip KEY1,KEY2,...]... [--skip-invalid] [--tag KEY=VALUE ...]\n"
        "                    [--quiet] [--list]\n"
        "                    [--checkpoint-dir DIR [--checkpoint-every DURATION]\n"
        "                     [--checkpoint-every-updates N]]\n\n"
        "Runs every point of the cartesian product of SCENARIO's \"sweep\" block and the\n"
        "--set lists, one run per point, into one results database.  Points that already\n"
        "have a complete (or diverged) run in the database are skipped; unfinished ones are\n"
        "redone, so running the same command again resumes a killed sweep.\n"
        "  --set key=v1,v2,...  an axis (values split at commas outside JSON brackets and\n"
        "                       strings: model.hidden=[16,8],[32] has two values); replaces\n"
        "                       the sweep block's axis of the same key\n"
        "  --zip KEY1,KEY2,...  these axes advance together (the i-th point of the group\n"
        "                       takes the i-th value of each; they need as many values\n"
        "                       each) and the group is crossed with the other axes, like\n"
        "                       the sweep block's \"zip\" list; repeatable\n"
        "  --skip-invalid       run the valid points and list the invalid ones (those run\n"
        "                       would refuse, checked as validate does) with their errors\n"
        "                       on stderr, instead of stopping at the first one\n"
        "  -j, --jobs N         run N points at once (one process and BLAS thread each)\n"
        "  --db PATH            results database (default ./" CLI_DEFAULT_DB ")\n"
        "  --shard I/N          run only points I, I+N, I+2N, ... (0 <= I < N), for Slurm\n"
        "                       arrays and GNU parallel; give each shard its own --db and\n"
        "                       combine them with sgdsim merge\n"
        "  --seed N             master seed for every point (or sweep it: --set seed=1,2,3)\n"
        "  --blas-core NAME     OpenBLAS kernel of every point (numerics.blas_core; or sweep\n"
        "                       it: --set numerics.blas_core=Haswell,SkylakeX)\n"
        "  -t, --threads N      threads of every point (numerics.threads); by default each\n"
        "                       point gets the CPUs this process may use divided by -j\n"
        "  --tag KEY=VALUE      label every point's run (repeatable; as run --tag)\n"
        "  --quiet              no progress lines (a sweep that fails still says why: the\n"
        "                       points that did not end well, and its totals)\n"
        "  --list               print the points (index, run key, overrides) of this shard\n"
        "                       and exit without running anything; with --db of an\n"
        "                       existing database, a fourth column says done or pending\n"
        "  --checkpoint-dir DIR each point writes its whole state, as sgdsim run does, to\n"
        "                       DIR/RUN_KEY.ckpt (DIR is created if missing), on SIGTERM\n"
        "                       or SIGUSR1 and as often as asked below; a point with a\n"
        "                       checkpoint there is resumed from it (the same bits as a\n"
        "                       point never interrupted), a finished point deletes its\n"
        "                       file.  One DIR per database; not under mpirun\n"
        "  --checkpoint-every DURATION  ... every DURATION of wall time (90s, 10m, 2h)\n"
        "  --checkpoint-every-updates N  ... after every N-th update of a point\n"
        "Under mpirun (built with MPI) the points are dealt out over the ranks and rank 0\n"
        "merges the ranks' files into --db.\n\n"
        "SIGINT, SIGTERM and SIGUSR1 stop the sweep: running points end after their\n"
        "current update (with --checkpoint-dir they write their checkpoints first).\n\n"
        "exit codes: 0 every point complete or diverged (with --skip-invalid: every valid\n"
        "point), 1 a point failed or the sweep was interrupted (SIGINT; SIGTERM/SIGUSR1\n"
        "without --checkpoint-dir), 2 bad input (scenario, a point, --set or --zip list,\n"
        "--shard, database, --checkpoint-dir or a checkpoint in it; with --skip-invalid: no\n"
        "valid point), 75 stopped with checkpoints (SIGTERM/SIGUSR1 with --checkpoint-dir):\n"
        "run the same command again to go on\n");
}

/* sweep's own options; the shared ones are cli_opts_t's. */
typedef struct sweep_args {
    uint64_t jobs;        /* -j N */
    int shard_i, shard_n; /* --shard I/N */
    bool list;            /* --list */
    bool skip_invalid;    /* --skip-invalid */
    cli_list_t zips;      /* --zip KEY1,KEY2,... (owned; cli_list_free) */
    sweep_ckpt_t ckpt; /* --checkpoint-dir, and the intervals of cli_opts_t */
} sweep_args_t;

#define SWEEP_STR_(x) #x
#define SWEEP_STR(x) SWEEP_STR_(x)

/* The checkpoint options' combinations: the intervals need a directory, which MPI does
 * not take.  0, or the exit code after the message. */
static int check_ckpt_args(const sweep_ckpt_t *c, bool under_mpi)
{
    if (!c->dir && (c->every || c->every_updates))
        return cli_bad_input("sweep: --checkpoint-every and --checkpoint-every-updates need "
                             "--checkpoint-dir DIR");
    if (c->dir && !c->dir[0]) return cli_bad_input("sweep: --checkpoint-dir: empty path");
    if (c->dir && under_mpi)
        return cli_bad_input("sweep: --checkpoint-dir %s: not under mpirun (a checkpoint "
                             "names its run in one rank's database, which the next attempt "
                             "merges away); use --shard I/N with one --db per shard instead",
                             c->dir);
    return 0;
}

/* --shard I/N */
static bool opt_shard(void *target, const char *opt, const char *v, char *msg, size_t size)
{
    sweep_args_t *a = target;
    sgd_err_t err = {{0}};
    (void)opt; /* sweep_parse_shard's message names --shard itself */
    if (sweep_parse_shard(v, &a->shard_i, &a->shard_n, &err) == 0) return true;
    snprintf(msg, size, "%s", err.msg);
    return false;
}

static const cli_opt_t sweep_opts[] = {
    {.name = "--jobs", .alias = "-j", .kind = CLI_ARG_U64, .off = offsetof(sweep_args_t, jobs),
     .lo = 1, .hi = SWEEP_MAX_JOBS, .flags = CLI_ARG_ATTACHED,
     .expect = "expected a number of processes in 1.." SWEEP_STR(SWEEP_MAX_JOBS)},
    {.name = "--shard", .kind = CLI_ARG_CUSTOM, .parse = opt_shard},
    {.name = "--list", .kind = CLI_ARG_FLAG, .off = offsetof(sweep_args_t, list)},
    {.name = "--zip", .kind = CLI_ARG_LIST, .off = offsetof(sweep_args_t, zips)},
    {.name = "--skip-invalid", .kind = CLI_ARG_FLAG, .off = offsetof(sweep_args_t, skip_invalid)},
    {.name = "--checkpoint-dir", .kind = CLI_ARG_STRING, .off = offsetof(sweep_args_t, ckpt.dir),
     .metavar = "DIR"},
    {.name = NULL},
};

/* The shared scenario options and sweep's own; 0, or the exit code after the message (with
 * --help: 0 and o->help, after the usage text). */
static int parse_sweep_args(int argc, char **argv, cli_opts_t *o, sweep_args_t *a)
{
    *a = (sweep_args_t){.jobs = 1, .shard_i = 0, .shard_n = 1};
    cli_opt_set_t extra = {sweep_opts, a, 0};
    int rc = cli_parse_opts("sweep", argc, argv,
                            CLI_OPT_DB | CLI_OPT_SEED | CLI_OPT_QUIET | CLI_OPT_NUMERICS |
                                CLI_OPT_TAG | CLI_OPT_CKPT_EVERY, &extra, o);
    if (rc == 0 && o->help) usage(stdout);
    a->ckpt.every = o->ckpt_every;
    a->ckpt.every_updates = o->ckpt_every_updates;
    if (rc == 0 && !o->help) rc = check_ckpt_args(&a->ckpt, sweep_under_mpi());
    return rc;
}

/* Plans every point (sweep/plan.h); 0 or the exit code after the message. */
static int plan_sweep(const cli_opts_t *o, const sweep_args_t *a, sweep_plan_t *plan)
{
    sgd_err_t err = {{0}};
    const char **sets = sgd_xcalloc((size_t)o->nsets + 1, sizeof *sets);
    for (int i = 0; i < o->nsets; i++) sets[i] = o->sets[i].assignment;
    scn_machine_t machine;
    cli_machine_get((int)a->jobs, &machine);
    sweep_plan_opts_t po = {.lists = sets, .nlists = o->nsets, .flags = &o->numerics,
                            .seed = o->have_seed ? &o->seed : NULL, .machine = &machine,
                            .zips = a->zips.v, .nzips = a->zips.n,
                            .skip_invalid = a->skip_invalid};
    int rc = sweep_plan(o->scenario, &po, plan, &err);
    free(sets);
    if (rc) return cli_bad_input("%s", err.msg);
    if (plan->npoints == 0) {
        for (int i = 0; i < plan->ninvalid; i++)
            fprintf(stderr, "sgdsim: %s\n", plan->invalid[i].error);
        sweep_plan_free(plan);
        return cli_bad_input("sweep: %s: no valid point to run (--skip-invalid)", o->scenario);
    }
    return 0;
}

/* --db must be neither the scenario nor a data file it names (common/outpath.h), checked
 * before the database is opened; each point's run checks its own data files again, since
 * a --set may name others. */
static int check_db(const cli_opts_t *o)
{
    sgd_err_t err = {{0}};
    scn_t base;
    bool loaded = scn_load(o->scenario, NULL, 0, NULL, alg_scenario_table, &base, &err) == 0;
    sgd_outpath_input_t in[CLI_OUTPATH_SCENARIO_MAX];
    size_t n = cli_outpath_scenario_inputs(o->scenario, loaded ? &base : NULL, in);
    int rc = cli_outpath_refuse("sweep", o->db ? "--db" : "the default --db",
                                o->db ? o->db : CLI_DEFAULT_DB, true, in, n);
    if (loaded) scn_free(&base);
    return rc;
}

/* Under mpirun every rank plans; only rank 0 tells. */
static bool this_process_tells(void)
{
    const char *mpi_rank = getenv("OMPI_COMM_WORLD_RANK");
    return !(sweep_under_mpi() && mpi_rank && strcmp(mpi_rank, "0") != 0);
}

/* Each point --skip-invalid left out, with its error (even with --quiet: it is a warning),
 * and the plan's size on stderr. */
static void announce_plan(const cli_opts_t *o, const sweep_args_t *a,
                          const sweep_plan_t *plan, int nmine)
{
    const sweep_plan_t *p = plan;
    if (!this_process_tells()) return;
    for (int i = 0; i < p->ninvalid; i++)
        fprintf(stderr, "sweep: invalid, skipped: %s\n", p->invalid[i].error);
    if (o->quiet) return;
    fprintf(stderr, "sweep: %s: %d point%s", o->scenario, p->npoints, p->npoints == 1 ? "" : "s");
    int64_t repeats = p->nproduct - p->ninvalid - p->npoints;
    if (repeats > 0 || p->ninvalid > 0)
        fprintf(stderr, " (%lld combination%s, %lld repeat%s a configuration",
                (long long)p->nproduct, p->nproduct == 1 ? "" : "s", (long long)repeats,
                repeats == 1 ? "s" : "");
    if (p->ninvalid > 0) fprintf(stderr, ", %d invalid", p->ninvalid);
    if (repeats > 0 || p->ninvalid > 0) fputc(')', stderr);
    if (a->shard_n > 1) fprintf(stderr, "; shard %d/%d has %d", a->shard_i, a->shard_n, nmine);
    fputc('\n', stderr);
}

/* The plan only: how many points there are and what each one sets, e.g. to size a Slurm
 * array; with --db of an existing database (opened read-only) whether each is done. */
static int list_points(const cli_opts_t *o, const sweep_plan_t *plan, const int *mine,
                       int nmine)
{
    sgd_err_t err = {{0}};
    rdb_t *db = NULL;
    if (o->db && access(o->db, F_OK) == 0 && rdb_open_readonly(o->db, &db, &err))
        return cli_bad_input("%s", err.msg);
    int rc = SGD_EXIT_OK;
    for (int i = 0; i < nmine && rc == SGD_EXIT_OK; i++) {
        const sweep_point_t *pt = &plan->points[mine[i]];
        bool done = false;
        if (db && rdb_key_finished(db, pt->run_key, &done, &err)) {
            rc = cli_bad_input("%s", err.msg);
            break;
        }
        printf("%d\t%.12s\t%s%s\n", mine[i], pt->run_key, pt->label,
               !db ? "" : done ? "\tdone" : "\tpending");
    }
    rdb_close(db);
    return rc;
}

/* Points finished in the database (mine[] less todo[], both in plan order) keep no
 * checkpoint: one is left when a sweep was killed after its point ended. */
static void remove_done_checkpoints(const sweep_exec_t *x, const sweep_plan_t *plan,
                                    const int *mine, int nmine, const int *todo, int ntodo)
{
    for (int i = 0, t = 0; i < nmine && sweep_ckpt_on(x->ckpt); i++) {
        if (t < ntodo && todo[t] == mine[i]) t++;
        else sweep_ckpt_remove(x->ckpt, plan->points[mine[i]].run_key);
    }
}

/* Runs this process's points: under mpirun over the ranks, else in the local pool. */
static int execute_points(const sweep_exec_t *x, const sweep_plan_t *plan,
                          const int *mine, int nmine)
{
    if (sweep_under_mpi()) {
#ifdef SGDSIM_HAVE_MPI
        return sweep_mpi(x, plan, mine, nmine);
#else
        (void)x, (void)plan, (void)mine, (void)nmine;
        return cli_bad_input("sweep: started by mpirun with several ranks, but this sgdsim was "
                             "built without MPI (install libopenmpi-dev and rebuild), so every "
                             "rank would run the whole sweep; use --shard I/N instead");
#endif
    }
    sgd_err_t err = {{0}};
    int *todo = sgd_xcalloc((size_t)nmine + 1, sizeof *todo);
    int ntodo, rc;
    if (sweep_pending(x->db, plan, mine, nmine, todo, &ntodo, &err)) {
        rc = cli_bad_input("%s", err.msg);
    } else {
        remove_done_checkpoints(x, plan, mine, nmine, todo, ntodo);
        if (!x->quiet)
            fprintf(stderr, "sweep: %d already done in %s, %d to run with -j %d\n",
                    nmine - ntodo, x->db, ntodo, x->jobs);
        rc = sweep_execute(x, plan, todo, ntodo, nmine, nmine - ntodo);
    }
    free(todo);
    return rc;
}

int cli_sweep_main(int argc, char **argv)
{
    sweep_args_t sa;
    cli_opts_t opts;
    sweep_plan_t plan;
    int rc = parse_sweep_args(argc, argv, &opts, &sa);
    if (rc != 0 || opts.help || (rc = check_db(&opts)) != 0 ||
        (rc = plan_sweep(&opts, &sa, &plan)) != 0)
        goto out;
    /* The checkpoint directory after the plan, so that a bad scenario creates nothing. */
    if (!sa.list && (rc = sweep_ckpt_ready(&sa.ckpt)) != 0) {
        sweep_plan_free(&plan);
        goto out;
    }
    int *mine = sgd_xcalloc((size_t)plan.npoints + 1, sizeof *mine), nmine = 0;
    for (int p = 0; p < plan.npoints; p++)
        if (p % sa.shard_n == sa.shard_i) mine[nmine++] = p;
    announce_plan(&opts, &sa, &plan, nmine);
    sweep_exec_t x = {.scenario = opts.scenario,
                      .db = opts.db ? opts.db : CLI_DEFAULT_DB,
                      .seed = opts.have_seed ? &opts.seed : NULL,
                      .jobs = (int)sa.jobs,
                      .quiet = opts.quiet,
                      .who = "",
                      .blas_core = opts.blas_core,
                      .threads = opts.threads,
                      .tags = opts.tags.v,
                      .ntags = opts.tags.n,
                      .skip_invalid = sa.skip_invalid,
                      .ninvalid = plan.ninvalid,
                      .ckpt = &sa.ckpt,
                      .child_env = cli_machine_child_env,
                      .child_env_free = cli_machine_env_free};
    rc = sa.list ? list_points(&opts, &plan, mine, nmine) : execute_points(&x, &plan, mine, nmine);
    free(mine);
    sweep_plan_free(&plan);
out:
    cli_list_free(&sa.zips);
    cli_opts_free(&opts);
    return rc;
}
