/* What the MPI benchmark programs (collectives.c, seeds.c) share: agreeing on the slowest rank's
 * figure outside the timed part. Header-only (static), so each program still builds from its one
 * source file with any mpicc. */
#ifndef RMPL_BENCH_MPI_RANKS_H
#define RMPL_BENCH_MPI_RANKS_H

#include <mpi.h>

/* The largest of every rank's `v`, on every rank of MPI_COMM_WORLD (linear through rank 0, point
 * to point on `tag`). */
static double max_over_ranks(double v, int tag) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    for (int r = 1; r < size; ++r) {
      double x = 0;
      MPI_Recv(&x, 1, MPI_DOUBLE, r, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (x > v) v = x;
    }
    for (int r = 1; r < size; ++r) MPI_Send(&v, 1, MPI_DOUBLE, r, tag, MPI_COMM_WORLD);
  } else {
    MPI_Send(&v, 1, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD);
    MPI_Recv(&v, 1, MPI_DOUBLE, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  return v;
}

#endif
