/* Collective operations against the MPI C API: the same logic as bench/collectives.cpp (rmpl's
 * native version), step for step, so the peers (Open MPI, MPICH) are measured the same way.
 *
 * Built by bench/run-collectives with each peer's compiler wrapper (mpicc.openmpi / mpicc.mpich
 * -O3); CMake never builds it, so rmpl's build does not depend on MPI.
 *
 * Operations: barrier, broadcast (root 0), reduce (root 0), allreduce, allgather, alltoall, at 8 B,
 * 1 KiB, 64 KiB and 1 MiB per rank (for allgather and alltoall the block each rank contributes per
 * peer); reduce and allreduce sum doubles. With 2 ranks also allreduce at 16 MiB.
 * Per point:
 *   - calibration (also the warm-up): every rank runs batches of 1, 2, 4, ... operations
 *     back to back, with no barrier between them; after each batch the ranks agree (through rank 0,
 *     point to point, untimed) on the slowest rank's elapsed time, until a batch takes a tenth of
 *     the target time (0.2 s; 0.05 s with --quick); the measured batch is then sized to take the
 *     target time (at least 2 operations), and sized again (up to 3 times) while it took less than
 *     half the target, which a slow calibration batch causes;
 *   - the measured batch: each rank's mean time per operation = its elapsed / operations; the
 *     figure is the maximum over the ranks (so a slow rank counts);
 *   - untimed, a check of the first and last element of every result block.
 * Rank 0 prints one CSV line per point:
 *   collective,<operation>,<ranks>,<bytes>,<operations timed>,time_us,<value>
 * or, when the check failed on some rank:  check_failed,<operation>,<ranks>,<bytes>
 * The barrier's <bytes> is 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ranks.h"

enum { TAG_CTRL = 1 };
enum op { OP_BARRIER, OP_BROADCAST, OP_REDUCE, OP_ALLREDUCE, OP_ALLGATHER, OP_ALLTOALL, OP_COUNT };

static const char* const op_names[OP_COUNT] = {"barrier",   "broadcast", "reduce",
                                               "allreduce", "allgather", "alltoall"};
static const size_t sizes[] = {8, 1024, 64 * 1024, 1024 * 1024};
#define BIG_ALLREDUCE ((size_t)16 * 1024 * 1024)
#define MAX_BLOCK ((size_t)1024 * 1024)
#define MIN_ITERS 2L
#define MAX_RESIZES 3

static int rank_, size_;
static double* sbuf; /* input: element i of rank r is r + 1 + i % 7 (never written) */
static double* rbuf; /* output (and broadcast's buffer) */

static void run_once(enum op o, size_t bytes) {
  const int n = (int)bytes;
  switch (o) {
    case OP_BARRIER:
      MPI_Barrier(MPI_COMM_WORLD);
      break;
    case OP_BROADCAST:
      MPI_Bcast(rbuf, n, MPI_BYTE, 0, MPI_COMM_WORLD);
      break;
    case OP_REDUCE:
      MPI_Reduce(sbuf, rbuf, n / 8, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
      break;
    case OP_ALLREDUCE:
      MPI_Allreduce(sbuf, rbuf, n / 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      break;
    case OP_ALLGATHER:
      MPI_Allgather(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, MPI_COMM_WORLD);
      break;
    case OP_ALLTOALL:
      MPI_Alltoall(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, MPI_COMM_WORLD);
      break;
    default:
      break;
  }
}

/* `iters` operations back to back; returns the slowest rank's elapsed seconds (on every rank). */
static double batch(enum op o, size_t bytes, long iters) {
  const double t0 = MPI_Wtime();
  for (long i = 0; i < iters; ++i) run_once(o, bytes);
  return max_over_ranks(MPI_Wtime() - t0, TAG_CTRL);
}

/* Element i of rank r's input. */
static double input(int r, size_t i) {
  return (double)(r + 1) + (double)(i % 7);
}

static int expect(const double* block, size_t elems, size_t first_index, int from_rank,
                  int summed) {
  const size_t idx[2] = {0, elems - 1};
  for (int k = 0; k < 2; ++k) {
    const size_t i = first_index + idx[k];
    const double want = summed ? (double)size_ * (size_ + 1) / 2 + (double)size_ * (double)(i % 7)
                               : input(from_rank, i);
    if (block[idx[k]] != want) return 0;
  }
  return 1;
}

/* Checks this rank's result of the last operation; 1 if right. */
static int check(enum op o, size_t bytes) {
  const size_t e = bytes / 8; /* elements per block */
  int ok = 1;
  switch (o) {
    case OP_BROADCAST:
      ok = expect(rbuf, e, 0, 0, 0);
      break;
    case OP_REDUCE:
      ok = rank_ != 0 || expect(rbuf, e, 0, 0, 1);
      break;
    case OP_ALLREDUCE:
      ok = expect(rbuf, e, 0, 0, 1);
      break;
    case OP_ALLGATHER:
      for (int j = 0; j < size_; ++j) ok = ok && expect(rbuf + (size_t)j * e, e, 0, j, 0);
      break;
    case OP_ALLTOALL:
      for (int j = 0; j < size_; ++j)
        ok = ok && expect(rbuf + (size_t)j * e, e, (size_t)rank_ * e, j, 0);
      break;
    default:
      break;
  }
  return ok;
}

static int run_point(enum op o, size_t bytes, double target) {
  /* A clean output buffer, so a stale result cannot pass the check; the root's broadcast data. */
  const size_t out_bytes = (o == OP_ALLGATHER || o == OP_ALLTOALL) ? bytes * (size_t)size_ : bytes;
  memset(rbuf, 0, out_bytes);
  if (o == OP_BROADCAST && rank_ == 0) memcpy(rbuf, sbuf, bytes);

  /* Calibration and warm-up (the same loop as rmpl_bench::calibrated in bench/timing.hpp). */
  long n = 1;
  double t = batch(o, bytes, n);
  while (t < target / 10) {
    n *= 2;
    t = batch(o, bytes, n);
  }
  long iters = (long)((double)n * target / t);
  if (iters < MIN_ITERS) iters = MIN_ITERS;
  t = batch(o, bytes, iters);
  /* A slow batch during calibration (a first-touch, a descheduled rank) makes the measured one
   * short: size it again from what it took, a few times at most. */
  for (int again = 0; again < MAX_RESIZES && t < target / 2; ++again) {
    iters = (long)((double)iters * target / t);
    t = batch(o, bytes, iters);
  }

  const int bad = max_over_ranks(check(o, bytes) ? 0.0 : 1.0, TAG_CTRL) != 0.0;
  if (rank_ == 0) {
    const size_t shown = o == OP_BARRIER ? 0 : bytes;
    if (bad)
      printf("check_failed,%s,%d,%zu\n", op_names[o], size_, shown);
    else
      printf("collective,%s,%d,%zu,%ld,time_us,%.4f\n", op_names[o], size_, shown, iters,
             t / (double)iters * 1e6);
    fflush(stdout);
  }
  return !bad;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  double target = 0.2;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--quick") == 0)
      target = 0.05;
    else if (strcmp(argv[i], "--time") == 0 && i + 1 < argc)
      target = atof(argv[++i]);
    else {
      if (rank_ == 0) fprintf(stderr, "usage: %s [--quick] [--time seconds-per-point]\n", argv[0]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }

  size_t cap = MAX_BLOCK * (size_t)size_;
  if (cap < BIG_ALLREDUCE) cap = BIG_ALLREDUCE;
  if (posix_memalign((void**)&sbuf, 4096, cap) != 0 ||
      posix_memalign((void**)&rbuf, 4096, cap) != 0) {
    fprintf(stderr, "out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (size_t i = 0; i < cap / 8; ++i) sbuf[i] = input(rank_, i);
  memset(rbuf, 0, cap);

  if (rank_ == 0) {
    printf("# collectives (MPI C API), %d ranks, %.3f s per point\n", size_, target);
    printf(
        "# time_us = max over ranks of each rank's mean time per operation (back to back, no "
        "barrier)\n");
    fflush(stdout);
  }
  int ok = run_point(OP_BARRIER, 8, target);
  for (int o = OP_BROADCAST; o < OP_COUNT; ++o)
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; ++i)
      ok &= run_point((enum op)o, sizes[i], target);
  if (size_ == 2) ok &= run_point(OP_ALLREDUCE, BIG_ALLREDUCE, target);

  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return ok ? 0 : 1;
}
