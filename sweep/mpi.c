/* The MPI driver of `sgdsim sweep` (built when CMake finds MPI): `mpirun -n K sgdsim sweep
 * ...` spreads a sweep's points over K ranks on one or many nodes.
 *
 *   1. Rank 0 merges any rank files a killed earlier attempt left behind (DB.mpi-rank*.db)
 *      into DB, so their finished points count as done, then lists the unfinished points of
 *      this sweep (or shard) in DB and broadcasts the list.
 *   2. Point i of the list goes to rank i mod K.  Each rank runs its points with the same
 *      process pool as a local sweep (-j N per rank): rank 0 into DB, rank r > 0 into
 *      DB.mpi-rank<r>.db, because SQLite must not be shared between nodes over a network
 *      filesystem (its locking is not reliable there) — the files only need a filesystem
 *      all ranks see, as Slurm clusters have.
 *   3. When every rank is done, rank 0 merges the rank files into DB (idempotent,
 *      results/rdb_merge.h) and deletes them.
 *
 * Which rank runs a point never changes what the point computes, so the merged database
 * equals a -j1 sweep's (tested with 2 ranks on localhost).  Waiting ranks sleep instead of
 * spinning in MPI_Barrier: they share cores with the ranks still working. */
#include <glob.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sweep/exec.h"
#include "sweep/mpi.h"
#include "common/error.h"
#include "results/rdb_merge.h"

static void rank_db_path(char *buf, size_t size, const char *db, int rank)
{
    snprintf(buf, size, "%s.mpi-rank%d.db", db, rank);
}

static void remove_db_files(const char *path)
{
    static const char *const suffix[] = {"", "-wal", "-shm", "-journal"};
    char p[4200];
    for (size_t i = 0; i < sizeof suffix / sizeof *suffix; i++) {
        snprintf(p, sizeof p, "%s%s", path, suffix[i]);
        unlink(p);
    }
}

/* Merges each of paths into db and deletes it once merged; returns an exit code. */
static int merge_rank_files(const char *db, char **paths, size_t n, bool quiet)
{
    sgd_err_t err = {{0}};
    rdb_t *out;
    if (rdb_open(db, &out, &err)) return sgd_bad_input("sweep: %s", err.msg);
    int rc = SGD_EXIT_OK;
    for (size_t i = 0; i < n; i++) {
        if (access(paths[i], F_OK) != 0) continue;
        rdb_merge_stats_t st;
        if (rdb_merge(out, paths[i], &st, &err)) {
            rc = sgd_bad_input("sweep: merging %s: %s (the file is kept)", paths[i], err.msg);
            continue;
        }
        if (!quiet)
            fprintf(stderr, "sweep: merged %s: %lld run%s copied, %lld already there, %lld "
                    "unfinished left out\n", paths[i], (long long)st.copied,
                    st.copied == 1 ? "" : "s",
                    (long long)st.present, (long long)st.unfinished);
        remove_db_files(paths[i]);
    }
    rdb_close(out);
    return rc;
}

/* MPI_Barrier busy-polls in Open MPI; a rank that finished early would take a core from
 * one still computing.  Sleep between tests instead. */
static void sleepy_barrier(void)
{
    MPI_Request req;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    int done = 0;
    while (!done) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (!done) nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    }
}

int sweep_mpi(const sweep_exec_t *x, const sweep_plan_t *plan, const int *idx,
              int n)
{
    int rank = 0, size = 1;
    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int *todo = sgd_xcalloc((size_t)n + 1, sizeof *todo);
    int ntodo = 0;
    if (rank == 0) {
        char pattern[4200];
        snprintf(pattern, sizeof pattern, "%s.mpi-rank*.db", x->db);
        glob_t g;
        int rc = SGD_EXIT_OK;
        if (glob(pattern, 0, NULL, &g) == 0) {
            rc = merge_rank_files(x->db, g.gl_pathv, g.gl_pathc, x->quiet);
            globfree(&g);
        }
        sgd_err_t err = {{0}};
        if (rc != SGD_EXIT_OK) {
            ntodo = -rc;
        } else if (sweep_pending(x->db, plan, idx, n, todo, &ntodo, &err)) {
            sgd_bad_input("%s", err.msg);
            ntodo = -SGD_EXIT_BAD_INPUT;
        } else if (!x->quiet) {
            fprintf(stderr, "sweep: %d already done in %s, %d to run on %d rank%s with -j %d "
                    "each\n", n - ntodo, x->db, ntodo, size, size == 1 ? "" : "s", x->jobs);
        }
    }
    MPI_Bcast(&ntodo, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (ntodo < 0) {
        free(todo);
        MPI_Finalize();
        return -ntodo;
    }
    MPI_Bcast(todo, ntodo, MPI_INT, 0, MPI_COMM_WORLD);

    int *mine = sgd_xcalloc((size_t)ntodo + 1, sizeof *mine), nmine = 0;
    for (int i = 0; i < ntodo; i++)
        if (i % size == rank) mine[nmine++] = todo[i];
    char path[4200], who[32];
    rank_db_path(path, sizeof path, x->db, rank);
    snprintf(who, sizeof who, "rank %d: ", rank);
    sweep_exec_t xr = *x;
    xr.db = rank == 0 ? x->db : path;
    xr.who = who;
    xr.ninvalid = rank == 0 ? x->ninvalid : 0; /* the plan's invalid points, counted once */
    int rc = sweep_execute(&xr, plan, mine, nmine, nmine, 0);

    sleepy_barrier();
    int worst = rc;
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && size > 1) {
        char **paths = sgd_xcalloc((size_t)size, sizeof *paths);
        for (int r = 1; r < size; r++) {
            paths[r - 1] = sgd_xmalloc(4200);
            rank_db_path(paths[r - 1], 4200, x->db, r);
        }
        int mrc = merge_rank_files(x->db, paths, (size_t)size - 1, x->quiet);
        if (mrc > worst) worst = mrc;
        for (int r = 1; r < size; r++) free(paths[r - 1]);
        free(paths);
    }
    MPI_Bcast(&worst, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(mine);
    free(todo);
    MPI_Finalize();
    return worst;
}
