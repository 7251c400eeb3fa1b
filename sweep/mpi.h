/* The MPI driver of `sgdsim sweep` (mpi.c, built only when CMake finds MPI): spreads
 * a planned sweep's points over the ranks of an mpirun, each rank running its share with the
 * executor of sweep/exec.h. */
#ifndef SGDSIM_SWEEP_MPI_H
#define SGDSIM_SWEEP_MPI_H

#include "sweep/exec.h"

/* Every rank plans the same sweep, rank 0 finds the unfinished points in x->db and deals
 * them out round-robin, each rank runs its share into its own file (rank 0 into x->db, rank r
 * into DB.mpi-rank<r>.db on the same, shared, filesystem), and rank 0 merges the rank files
 * into x->db at the end.
 * Returns the exit code, equal on every rank. */
int sweep_mpi(const sweep_exec_t *x, const sweep_plan_t *plan, const int *idx,
              int n);

#endif
