/* The fixed cost of a short blocking collective through the MPI layer, for instruction counts: the
 * MPI side of bench/coll_calls.cpp (same calls, same data: one double, MPI_SUM, root 0). N calls
 * back to back under callgrind at two N, totals differenced to cancel start-up and finalize:
 *   valgrind --tool=callgrind --callgrind-out-file=/dev/null ./coll_calls reduce 10000  (and 20000)
 *   per call = (I(20000) - I(10000)) / 10000
 * against `rmpl-bench-coll-calls reduce 10000` (and 20000) for native rmpl. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double in[8], out[8];

static void barrier(void) {
  MPI_Barrier(MPI_COMM_WORLD);
}
static void broadcast(void) {
  MPI_Bcast(out, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}
static void reduce(void) {
  MPI_Reduce(in, out, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
}
static void allreduce(void) {
  MPI_Allreduce(in, out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}
/* One double per rank (the buffers hold 8: up to 8 ranks). */
static void allgather(void) {
  MPI_Allgather(in, 1, MPI_DOUBLE, out, 1, MPI_DOUBLE, MPI_COMM_WORLD);
}
static void alltoall(void) {
  MPI_Alltoall(in, 1, MPI_DOUBLE, out, 1, MPI_DOUBLE, MPI_COMM_WORLD);
}
/* The nonblocking forms, each waited for at once: what an activity of the engine costs. */
static void iallreduce(void) {
  MPI_Request r;
  MPI_Iallreduce(in, out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
}
static void ibroadcast(void) {
  MPI_Request r;
  MPI_Ibcast(out, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
}

int main(int argc, char** argv) {
  static const struct {
    const char* name;
    void (*call)(void);
  } calls[] = {{"barrier", barrier},       {"broadcast", broadcast},  {"reduce", reduce},
               {"allreduce", allreduce},   {"allgather", allgather},  {"alltoall", alltoall},
               {"iallreduce", iallreduce}, {"ibroadcast", ibroadcast}};
  void (*call)(void) = NULL;
  for (size_t i = 0; argc == 3 && i < sizeof calls / sizeof calls[0]; ++i) {
    if (strcmp(argv[1], calls[i].name) == 0) call = calls[i].call;
  }
  const long n = argc == 3 ? atol(argv[2]) : 0;
  if (call == NULL || n <= 0) {
    fprintf(stderr,
            "usage: coll_calls barrier|broadcast|reduce|allreduce|allgather|alltoall|"
            "iallreduce|ibroadcast N\n");
    return 2;
  }
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 8) {
    if (rank == 0) fprintf(stderr, "coll_calls: at most 8 ranks\n");
    MPI_Finalize();
    return 2;
  }
  for (int i = 0; i < 8; ++i) in[i] = 1.0 + rank;
  MPI_Barrier(MPI_COMM_WORLD);
  for (long i = 0; i < n; ++i) call();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("%s: %ld calls, last result %g\n", argv[1], n, out[0]);
  MPI_Finalize();
  return 0;
}
