/* `sgdsim sweep SCENARIO [--set key=v1,v2,...]... [-j N] [--db PATH] [--shard I/N]`: runs the
 * cartesian product of the scenario's "sweep" block and the command line's lists, one run per
 * point, in a pool of N processes writing into one database; resumable (finished points are
 * skipped, unfinished ones redone); --shard splits a sweep over independent jobs (Slurm
 * arrays, GNU parallel), mpirun over MPI ranks.  Planning is in sweep_plan.c, running the
 * points in sweep_exec.c, spreading them over MPI ranks in sweep_mpi.c. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/machine.h"
#include "cli/sweep_exec.h"
#include "cli/sweep_mpi.h"

/* Most point processes -j may run at once. */
#define SWEEP_MAX_JOBS 4096

static void usage(FILE *f)
{
    fprintf(f,
        "usage: sgdsim sweep SCENARIO [--set key.path=v1,v2,...]... [-j N] [--db PATH]\n"
        "                    [--shard I/N] [--seed N] [--blas-core NAME] [--threads N]\n"
        "                    [--tag KEY=VALUE ...] [--quiet] [--list]\n\n"
        "Runs every point of the cartesian product of SCENARIO's \"sweep\" block and the\n"
        "--set lists, one run per point, into one results database.  Points that already\n"
        "have a complete (or diverged) run in the database are skipped; unfinished ones are\n"
        "redone, so running the same command again resumes a killed sweep.\n"
        "  --set key=v1,v2,...  an axis (values split at commas outside JSON brackets and\n"
        "                       strings: model.hidden=[16,8],[32] has two values); replaces\n"
        "                       the sweep block's axis of the same key\n"
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
        "  --quiet              no progress lines\n"
        "  --list               print the points (index, run key, overrides) of this shard\n"
        "                       and exit without running anything\n"
        "Under mpirun (built with MPI) the points are dealt out over the ranks and rank 0\n"
        "merges the ranks' files into --db.\n\n"
        "exit codes: 0 every point complete or diverged, 1 a point failed or the sweep was\n"
        "interrupted, 2 bad input (scenario, a point, --set list, --shard, database)\n");
}

/* sweep's own options; the shared ones are cli_opts_t's. */
typedef struct sweep_args {
    uint64_t jobs;        /* -j N */
    int shard_i, shard_n; /* --shard I/N */
    bool list;            /* --list */
} sweep_args_t;

#define SWEEP_STR_(x) #x
#define SWEEP_STR(x) SWEEP_STR_(x)

/* --shard I/N */
static bool opt_shard(void *target, const char *opt, const char *v, char *msg, size_t size)
{
    sweep_args_t *a = target;
    sgd_err_t err = {{0}};
    (void)opt; /* cli_sweep_parse_shard's message names --shard itself */
    if (cli_sweep_parse_shard(v, &a->shard_i, &a->shard_n, &err) == 0) return true;
    snprintf(msg, size, "%s", err.msg);
    return false;
}

static const cli_opt_t sweep_opts[] = {
    {.name = "--jobs", .alias = "-j", .kind = CLI_ARG_U64, .off = offsetof(sweep_args_t, jobs),
     .lo = 1, .hi = SWEEP_MAX_JOBS, .flags = CLI_ARG_ATTACHED,
     .expect = "expected a number of processes in 1.." SWEEP_STR(SWEEP_MAX_JOBS)},
    {.name = "--shard", .kind = CLI_ARG_CUSTOM, .parse = opt_shard},
    {.name = "--list", .kind = CLI_ARG_FLAG, .off = offsetof(sweep_args_t, list)},
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
                                CLI_OPT_TAG, &extra, o);
    if (rc == 0 && o->help) usage(stdout);
    return rc;
}

int cli_sweep_main(int argc, char **argv)
{
    sweep_args_t sa;
    cli_opts_t opts;
    sgd_err_t err = {{0}};
    int rc = parse_sweep_args(argc, argv, &opts, &sa);
    if (rc != 0 || opts.help) goto out;
    int jobs = (int)sa.jobs, shard_i = sa.shard_i, shard_n = sa.shard_n;
    bool list = sa.list;

    const char **sets = sgd_xcalloc((size_t)opts.nsets + 1, sizeof *sets);
    for (int i = 0; i < opts.nsets; i++) sets[i] = opts.sets[i].assignment;
    scn_machine_t machine;
    cli_machine_get(jobs, &machine);
    cli_sweep_plan_opts_t po = {.lists = sets, .nlists = opts.nsets,
                                .flags = &opts.numerics,
                                .seed = opts.have_seed ? &opts.seed : NULL,
                                .machine = &machine};
    cli_sweep_plan_t plan;
    int plan_rc = cli_sweep_plan(opts.scenario, &po, &plan, &err);
    free(sets);
    if (plan_rc) {
        rc = cli_bad_input("%s", err.msg);
        goto out;
    }
    cli_sweep_exec_t x = {.scenario = opts.scenario,
                          .db = opts.db ? opts.db : CLI_DEFAULT_DB,
                          .seed = opts.have_seed ? &opts.seed : NULL,
                          .jobs = jobs,
                          .quiet = opts.quiet,
                          .who = "",
                          .blas_core = opts.blas_core,
                          .threads = opts.threads,
                          .tags = opts.tags.v,
                          .ntags = opts.tags.n};
    int *mine = sgd_xcalloc((size_t)plan.npoints + 1, sizeof *mine);
    int nmine = 0;
    for (int p = 0; p < plan.npoints; p++)
        if (p % shard_n == shard_i) mine[nmine++] = p;
    /* Under mpirun every rank plans; only rank 0 tells. */
    const char *mpi_rank = getenv("OMPI_COMM_WORLD_RANK");
    if (!opts.quiet && !(cli_sweep_under_mpi() && mpi_rank && strcmp(mpi_rank, "0") != 0)) {
        fprintf(stderr, "sweep: %s: %d point%s", opts.scenario, plan.npoints,
                plan.npoints == 1 ? "" : "s");
        if (plan.nproduct != plan.npoints)
            fprintf(stderr, " (%lld combinations, %lld repeat a configuration)",
                    (long long)plan.nproduct, (long long)(plan.nproduct - plan.npoints));
        if (shard_n > 1) fprintf(stderr, "; shard %d/%d has %d", shard_i, shard_n, nmine);
        fprintf(stderr, "\n");
    }
    if (list) {
        /* The plan only: how many points there are and what each one sets, e.g. to size a
         * Slurm array.  Nothing is opened or run. */
        for (int i = 0; i < nmine; i++)
            printf("%d\t%.12s\t%s\n", mine[i], plan.points[mine[i]].run_key,
                   plan.points[mine[i]].label);
        rc = SGD_EXIT_OK;
    } else if (cli_sweep_under_mpi()) {
#ifdef SGDSIM_HAVE_MPI
        rc = cli_sweep_mpi(&x, &plan, mine, nmine);
#else
        rc = cli_bad_input("sweep: started by mpirun with several ranks, but this sgdsim was "
                           "built without MPI (install libopenmpi-dev and rebuild), so every "
                           "rank would run the whole sweep; use --shard I/N instead");
#endif
    } else {
        int *todo = sgd_xcalloc((size_t)nmine + 1, sizeof *todo);
        int ntodo;
        if (cli_sweep_pending(x.db, &plan, mine, nmine, todo, &ntodo, &err)) {
            rc = cli_bad_input("%s", err.msg);
        } else {
            if (!opts.quiet)
                fprintf(stderr, "sweep: %d already done in %s, %d to run with -j %d\n",
                        nmine - ntodo, x.db, ntodo, jobs);
            rc = cli_sweep_execute(&x, &plan, todo, ntodo, nmine, nmine - ntodo);
        }
        free(todo);
    }
    free(mine);
    cli_sweep_plan_free(&plan);
out:
    cli_opts_free(&opts);
    return rc;
}
