/* Persistent collectives (MPI-4.0, MPI_Bcast_init and the rest): each one initialized once,
 * started three times with new data in its buffers before each start, its results checked after
 * each wait; several started together with MPI_Startall and waited for with MPI_Waitall; a derived
 * datatype freed between the initialization and the starts; MPI_Request_free of an inactive one;
 * the neighbourhood forms on a periodic ring. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank, size;

/* Runs `request` (inactive, persistent) three times: fill(round) sets the inputs, check(round)
 * verifies the outputs after the wait. */
typedef void (*step_fn)(int round);
static void run_three(MPI_Request* request, step_fn fill, step_fn check, const char* what) {
  for (int round = 0; round < 3; ++round) {
    fill(round);
    CHECK_MPI(MPI_Start(request));
    MPI_Status st;
    CHECK_MPI(MPI_Wait(request, &st));
    CHECK(*request != MPI_REQUEST_NULL, "%s: the wait freed the persistent request", what);
    check(round);
  }
  CHECK_MPI(MPI_Request_free(request));
  CHECK(*request == MPI_REQUEST_NULL, "%s: MPI_Request_free left the handle", what);
}

#define N 5 /* ints per rank's block */
static int in[8 * N * 8], out[8 * N * 8], counts[8], displs[8];

static int value(int who, int round, int i) {
  return 1000 * who + 100 * round + i;
}

static void fill_own(int round) {
  for (int i = 0; i < N * size; ++i) in[i] = value(rank, round, i);
  memset(out, 0, sizeof out);
}
static void fill_root(int round) { /* the root's data everywhere it is read */
  for (int i = 0; i < N * size; ++i) in[i] = rank == 0 ? value(0, round, i) : -1;
  memset(out, 0, sizeof out);
}
static void nothing(int round) {
  (void)round;
}
static void check_bcast(int round) {
  for (int i = 0; i < N; ++i) CHECK(in[i] == value(0, round, i), "bcast round %d [%d]", round, i);
}
static int sum_over_ranks(int upto, int round, int i) {
  int s = 0;
  for (int r = 0; r < upto; ++r) s += value(r, round, i);
  return s;
}
static void check_reduce(int round) {
  if (rank != 0) return;
  for (int i = 0; i < N; ++i)
    CHECK(out[i] == sum_over_ranks(size, round, i), "reduce round %d [%d]", round, i);
}
static void check_allreduce(int round) {
  for (int i = 0; i < N; ++i)
    CHECK(out[i] == sum_over_ranks(size, round, i), "allreduce round %d [%d]", round, i);
}
static void check_scan(int round) {
  for (int i = 0; i < N; ++i)
    CHECK(out[i] == sum_over_ranks(rank + 1, round, i), "scan round %d [%d]", round, i);
}
static void check_exscan(int round) {
  if (rank == 0) return; /* undefined there */
  for (int i = 0; i < N; ++i)
    CHECK(out[i] == sum_over_ranks(rank, round, i), "exscan round %d [%d]", round, i);
}
static void check_reduce_scatter(int round) { /* block `rank` of the sum */
  for (int i = 0; i < N; ++i)
    CHECK(out[i] == sum_over_ranks(size, round, rank * N + i), "reduce_scatter round %d [%d]",
          round, i);
}
static void check_gather(int round) { /* the root holds every rank's first block */
  if (rank != 0) return;
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < N; ++i)
      CHECK(out[r * N + i] == value(r, round, i), "gather round %d from %d [%d]", round, r, i);
}
static void check_allgather(int round) {
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < N; ++i)
      CHECK(out[r * N + i] == value(r, round, i), "allgather round %d from %d [%d]", round, r, i);
}
static void check_scatter(int round) { /* block `rank` of the root's */
  for (int i = 0; i < N; ++i)
    CHECK(out[i] == value(0, round, rank * N + i), "scatter round %d [%d]", round, i);
}
static void check_alltoall(int round) { /* block `rank` of every rank's */
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < N; ++i)
      CHECK(out[r * N + i] == value(r, round, rank * N + i), "alltoall round %d from %d [%d]",
            round, r, i);
}
static void check_barrier(int round) {
  (void)round;
}

/* The ring's neighbours: left (rank - 1) first, then right. */
static void check_neighbor_allgather(int round) {
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  for (int i = 0; i < N; ++i) {
    CHECK(out[i] == value(left, round, i), "neighbor_allgather round %d left [%d]", round, i);
    CHECK(out[N + i] == value(right, round, i), "neighbor_allgather round %d right [%d]", round, i);
  }
}
static void check_neighbor_alltoall(int round) { /* left sent me its block 1, right its block 0 */
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  for (int i = 0; i < N; ++i) {
    CHECK(out[i] == value(left, round, N + i), "neighbor_alltoall round %d left [%d]", round, i);
    CHECK(out[N + i] == value(right, round, i), "neighbor_alltoall round %d right [%d]", round, i);
  }
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  const MPI_Comm w = MPI_COMM_WORLD;
  const MPI_Info none = MPI_INFO_NULL;
  MPI_Request r;
  for (int i = 0; i < size; ++i) {
    counts[i] = N;
    displs[i] = i * N;
  }
  int sendcounts[8], sdispls[8];
  MPI_Datatype types[8];
  for (int i = 0; i < size; ++i) {
    sendcounts[i] = N;
    sdispls[i] = i * N * (int)sizeof(int);
    types[i] = MPI_INT;
  }

  CHECK_MPI(MPI_Barrier_init(w, none, &r));
  run_three(&r, nothing, check_barrier, "barrier");

  /* A derived type (N contiguous ints) freed before the first start. */
  MPI_Datatype block;
  CHECK_MPI(MPI_Type_contiguous(N, MPI_INT, &block));
  CHECK_MPI(MPI_Type_commit(&block));
  CHECK_MPI(MPI_Bcast_init(in, 1, block, 0, w, none, &r));
  CHECK_MPI(MPI_Type_free(&block));
  run_three(&r, fill_root, check_bcast, "bcast");

  CHECK_MPI(MPI_Reduce_init(in, out, N, MPI_INT, MPI_SUM, 0, w, none, &r));
  run_three(&r, fill_own, check_reduce, "reduce");
  CHECK_MPI(MPI_Allreduce_init(in, out, N, MPI_INT, MPI_SUM, w, none, &r));
  run_three(&r, fill_own, check_allreduce, "allreduce");
  CHECK_MPI(MPI_Scan_init(in, out, N, MPI_INT, MPI_SUM, w, none, &r));
  run_three(&r, fill_own, check_scan, "scan");
  CHECK_MPI(MPI_Exscan_init(in, out, N, MPI_INT, MPI_SUM, w, none, &r));
  run_three(&r, fill_own, check_exscan, "exscan");
  CHECK_MPI(MPI_Reduce_scatter_init(in, out, counts, MPI_INT, MPI_SUM, w, none, &r));
  run_three(&r, fill_own, check_reduce_scatter, "reduce_scatter");
  CHECK_MPI(MPI_Reduce_scatter_block_init(in, out, N, MPI_INT, MPI_SUM, w, none, &r));
  run_three(&r, fill_own, check_reduce_scatter, "reduce_scatter_block");
  CHECK_MPI(MPI_Gather_init(in, N, MPI_INT, out, N, MPI_INT, 0, w, none, &r));
  run_three(&r, fill_own, check_gather, "gather");
  CHECK_MPI(MPI_Gatherv_init(in, N, MPI_INT, out, counts, displs, MPI_INT, 0, w, none, &r));
  run_three(&r, fill_own, check_gather, "gatherv");
  CHECK_MPI(MPI_Scatter_init(in, N, MPI_INT, out, N, MPI_INT, 0, w, none, &r));
  run_three(&r, fill_root, check_scatter, "scatter");
  CHECK_MPI(MPI_Scatterv_init(in, counts, displs, MPI_INT, out, N, MPI_INT, 0, w, none, &r));
  run_three(&r, fill_root, check_scatter, "scatterv");
  CHECK_MPI(MPI_Allgather_init(in, N, MPI_INT, out, N, MPI_INT, w, none, &r));
  run_three(&r, fill_own, check_allgather, "allgather");
  CHECK_MPI(MPI_Allgatherv_init(in, N, MPI_INT, out, counts, displs, MPI_INT, w, none, &r));
  run_three(&r, fill_own, check_allgather, "allgatherv");
  CHECK_MPI(MPI_Alltoall_init(in, N, MPI_INT, out, N, MPI_INT, w, none, &r));
  run_three(&r, fill_own, check_alltoall, "alltoall");
  CHECK_MPI(
      MPI_Alltoallv_init(in, counts, displs, MPI_INT, out, counts, displs, MPI_INT, w, none, &r));
  run_three(&r, fill_own, check_alltoall, "alltoallv");
  CHECK_MPI(MPI_Alltoallw_init(in, sendcounts, sdispls, types, out, sendcounts, sdispls, types, w,
                               none, &r));
  run_three(&r, fill_own, check_alltoall, "alltoallw");

  /* Three at once: started together, waited for together (each on its own buffers). */
  {
    int a[N], b[N], c[N], sum[N], all[8 * N], got[N];
    MPI_Request three[3];
    CHECK_MPI(MPI_Allreduce_init(a, sum, N, MPI_INT, MPI_SUM, w, none, &three[0]));
    CHECK_MPI(MPI_Allgather_init(b, N, MPI_INT, all, N, MPI_INT, w, none, &three[1]));
    CHECK_MPI(MPI_Bcast_init(got, N, MPI_INT, size - 1, w, none, &three[2]));
    for (int round = 0; round < 3; ++round) {
      for (int i = 0; i < N; ++i) {
        a[i] = value(rank, round, i);
        b[i] = value(rank, round, N + i);
        c[i] = value(size - 1, round, 2 * N + i);
        got[i] = rank == size - 1 ? c[i] : -1;
      }
      CHECK_MPI(MPI_Startall(3, three));
      CHECK_MPI(MPI_Waitall(3, three, MPI_STATUSES_IGNORE));
      for (int i = 0; i < N; ++i) {
        CHECK(sum[i] == sum_over_ranks(size, round, i), "startall allreduce [%d]", i);
        CHECK(got[i] == value(size - 1, round, 2 * N + i), "startall bcast [%d]", i);
        for (int q = 0; q < size; ++q)
          CHECK(all[q * N + i] == value(q, round, N + i), "startall allgather %d [%d]", q, i);
      }
    }
    for (int k = 0; k < 3; ++k) CHECK_MPI(MPI_Request_free(&three[k]));
  }

  /* The neighbourhood forms on a periodic ring (at 1 and 2 ranks left and right coincide). */
  if (size >= 3) {
    MPI_Comm ring;
    const int dims[1] = {size}, periods[1] = {1};
    CHECK_MPI(MPI_Cart_create(w, 1, dims, periods, 0, &ring));
    int two[2] = {N, N}, at[2] = {0, N};
    MPI_Aint waddr[2] = {0, N * (MPI_Aint)sizeof(int)};
    MPI_Datatype ints[2] = {MPI_INT, MPI_INT};
    CHECK_MPI(MPI_Neighbor_allgather_init(in, N, MPI_INT, out, N, MPI_INT, ring, none, &r));
    run_three(&r, fill_own, check_neighbor_allgather, "neighbor_allgather");
    CHECK_MPI(MPI_Neighbor_allgatherv_init(in, N, MPI_INT, out, two, at, MPI_INT, ring, none, &r));
    run_three(&r, fill_own, check_neighbor_allgather, "neighbor_allgatherv");
    CHECK_MPI(MPI_Neighbor_alltoall_init(in, N, MPI_INT, out, N, MPI_INT, ring, none, &r));
    run_three(&r, fill_own, check_neighbor_alltoall, "neighbor_alltoall");
    CHECK_MPI(
        MPI_Neighbor_alltoallv_init(in, two, at, MPI_INT, out, two, at, MPI_INT, ring, none, &r));
    run_three(&r, fill_own, check_neighbor_alltoall, "neighbor_alltoallv");
    CHECK_MPI(
        MPI_Neighbor_alltoallw_init(in, two, waddr, ints, out, two, waddr, ints, ring, none, &r));
    run_three(&r, fill_own, check_neighbor_alltoall, "neighbor_alltoallw");
    CHECK_MPI(MPI_Comm_free(&ring));
  }

  /* Errors: a null request pointer, and starting an active request. */
  CHECK_MPI(MPI_Comm_set_errhandler(w, MPI_ERRORS_RETURN));
  int cls = MPI_SUCCESS;
  MPI_Error_class(MPI_Barrier_init(w, none, NULL), &cls);
  CHECK(cls == MPI_ERR_ARG || cls == MPI_ERR_REQUEST, "a null request pointer gave class %d", cls);
  CHECK_MPI(MPI_Barrier_init(w, none, &r));
  CHECK_MPI(MPI_Start(&r));
  MPI_Error_class(MPI_Start(&r), &cls);
  CHECK(cls == MPI_ERR_REQUEST, "starting an active persistent barrier gave class %d", cls);
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Request_free(&r));

  CHECK_MPI(MPI_Finalize());
  return 0;
}
