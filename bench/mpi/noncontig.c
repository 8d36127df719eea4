/* Ping-pong of a non-contiguous datatype between ranks 0 and 1: an MPI_Type_vector of blocks of
 * 1 KiB (128 doubles; argument 3: another size in bytes) with a stride of two blocks, 1 MiB and 16
 * MiB of data per message (2 and 32 MiB spans). Each size runs `reps` repetitions of `iters` round
 * trips (after one warm-up round trip); rank 0 prints the one-way time per message of each
 * repetition's round trips as min / median / max, and the bandwidth of the median, as CSV:
 *   noncontig,<block_bytes>,<bytes>,<min_us>,<median_us>,<max_us>,<median_MBps>
 * Plain MPI: builds with rmpl's mpicc and the peers' (mpicc.openmpi, mpicc.mpich) alike.
 *   mpicc -O2 bench/mpi/noncontig.c -o noncontig && mpirun -n 2 ./noncontig [reps] [iters]
 * [block_bytes] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int reps = argc > 1 ? atoi(argv[1]) : 9;
  const int iters = argc > 2 ? atoi(argv[2]) : 10;
  if (size < 2 || reps < 1 || iters < 1) {
    if (rank == 0) fprintf(stderr, "noncontig: needs 2 ranks, reps >= 1, iters >= 1\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int block = argc > 3 ? atoi(argv[3]) / (int)sizeof(double) : 128; /* doubles */
  const int stride = 2 * block;
  if (block < 1 || (1 << 20) % (block * (int)sizeof(double)) != 0) {
    if (rank == 0) fprintf(stderr, "noncontig: the block must divide 1 MiB\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const size_t megabytes[] = {1, 16};
  double* times = malloc(sizeof(double) * (size_t)reps);
  for (int s = 0; s < 2; ++s) {
    const size_t bytes = megabytes[s] << 20;
    const int blocks = (int)(bytes / (block * sizeof(double)));
    MPI_Datatype type;
    MPI_Type_vector(blocks, block, stride, MPI_DOUBLE, &type);
    MPI_Type_commit(&type);
    const size_t span = (size_t)blocks * stride * sizeof(double);
    double* a = malloc(span);
    double* b = malloc(span);
    memset(a, 1, span);
    memset(b, 2, span);
    const int peer = 1 - rank;
    for (int r = -1; r < reps; ++r) {
      const int n = r < 0 ? 1 : iters; /* r == -1: warm-up (page faults, first-touch) */
      if (rank > 1) break;
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      for (int i = 0; i < n; ++i) {
        if (rank == 0) {
          MPI_Send(a, 1, type, peer, 1, MPI_COMM_WORLD);
          MPI_Recv(b, 1, type, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
          MPI_Recv(b, 1, type, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(a, 1, type, peer, 2, MPI_COMM_WORLD);
        }
      }
      if (r >= 0) times[r] = (MPI_Wtime() - t0) / (2.0 * n);
    }
    if (rank > 1)
      for (int r = -1; r < reps; ++r) MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      qsort(times, (size_t)reps, sizeof(double), compare);
      const double median = times[reps / 2];
      printf("noncontig,%d,%zu,%.1f,%.1f,%.1f,%.0f\n", block * (int)sizeof(double), bytes,
             times[0] * 1e6, median * 1e6, times[reps - 1] * 1e6, (double)bytes / median / 1e6);
      fflush(stdout);
    }
    free(a);
    free(b);
    MPI_Type_free(&type);
  }
  free(times);
  MPI_Finalize();
  return 0;
}
