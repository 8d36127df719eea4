/* A slow member is no disagreement: correct collectives in which one rank arrives 250 ms late
 * (longer than the 100 ms after which a waiting collective publishes its stall note and reads its
 * peers', coll/stall.hpp), so that the others stall before it comes, some of them already in the
 * next call or in a collective of another communicator. Every call must succeed with the right
 * data: the notes may only fail ranks whose peers really disagree. Each collective runs at a short
 * count and at one that takes another algorithm (messages or the shared rounds), with each rank in
 * turn the late one. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../check.h"

static int rank, size;

static void late(int who) {
  if (rank != who) return;
  struct timespec t = {0, 250 * 1000 * 1000};
  nanosleep(&t, NULL);
}

/* IBCAST_BARRIER: a broadcast still in flight while the ranks pass a barrier of the same
 * communicator (the barrier's stall must not say this rank is past the broadcast); IREDUCE_TWO:
 * two reduces in flight at once, waited for together (the older one publishes, coll/task.cpp). */
enum coll {
  BARRIER,
  BCAST,
  REDUCE,
  ALLREDUCE,
  GATHER,
  SCATTER,
  ALLTOALL,
  IBCAST,
  IBCAST_BARRIER,
  IREDUCE_TWO,
  COLLS
};
static const char* const names[COLLS] = {"barrier",        "bcast",      "reduce",   "allreduce",
                                         "gather",         "scatter",    "alltoall", "ibcast",
                                         "ibcast_barrier", "ireduce_two"};

/* Runs collective c of n ints per block on comm and checks what this rank got. */
static void run(enum coll c, int n, MPI_Comm comm) {
  int me, p;
  CHECK_MPI(MPI_Comm_rank(comm, &me));
  CHECK_MPI(MPI_Comm_size(comm, &p));
  const size_t room = (size_t)n * (size_t)p;
  int* in = malloc(room * sizeof(int));
  int* out = malloc(room * sizeof(int));
  CHECK(in != NULL && out != NULL, "out of memory");
  for (size_t i = 0; i < room; ++i) in[i] = me * 7 + (int)i;
  memset(out, 0, room * sizeof(int));
  MPI_Request r;
  switch (c) {
    case BARRIER:
      CHECK_MPI(MPI_Barrier(comm));
      break;
    case BCAST:
    case IBCAST:
    case IBCAST_BARRIER:
      if (me != 0)
        for (int i = 0; i < n; ++i) in[i] = -1;
      if (c == BCAST) {
        CHECK_MPI(MPI_Bcast(in, n, MPI_INT, 0, comm));
      } else {
        CHECK_MPI(MPI_Ibcast(in, n, MPI_INT, 0, comm, &r));
        if (c == IBCAST_BARRIER) CHECK_MPI(MPI_Barrier(comm));
        CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
      }
      for (int i = 0; i < n; ++i)
        CHECK(in[i] == i, "%s of %d: element %d is %d", names[c], n, i, in[i]);
      break;
    case REDUCE:
    case ALLREDUCE:
    case IREDUCE_TWO:
      if (c == REDUCE) {
        CHECK_MPI(MPI_Reduce(in, out, n, MPI_INT, MPI_SUM, 0, comm));
      } else if (c == IREDUCE_TWO) {
        /* The same sum twice, to rank 0 and to the last rank. */
        int* again = malloc((size_t)n * sizeof(int));
        CHECK(again != NULL, "out of memory");
        MPI_Request two[2];
        CHECK_MPI(MPI_Ireduce(in, out, n, MPI_INT, MPI_SUM, 0, comm, &two[0]));
        CHECK_MPI(MPI_Ireduce(in, again, n, MPI_INT, MPI_SUM, p - 1, comm, &two[1]));
        CHECK_MPI(MPI_Waitall(2, two, MPI_STATUSES_IGNORE));
        if (me == p - 1 && me != 0) memcpy(out, again, (size_t)n * sizeof(int));
        free(again);
      } else {
        CHECK_MPI(MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, comm));
      }
      if (c == ALLREDUCE || me == 0 || (c == IREDUCE_TWO && me == p - 1)) {
        for (int i = 0; i < n; ++i) {
          const int want = 7 * p * (p - 1) / 2 + p * i;
          CHECK(out[i] == want, "%s of %d: element %d is %d, not %d", names[c], n, i, out[i], want);
        }
      }
      break;
    case GATHER:
      CHECK_MPI(MPI_Gather(in, n, MPI_INT, out, n, MPI_INT, 0, comm));
      if (me == 0) {
        for (int q = 0; q < p; ++q)
          for (int i = 0; i < n; ++i)
            CHECK(out[q * n + i] == q * 7 + i, "gather of %d: block %d element %d", n, q, i);
      }
      break;
    case SCATTER:
      CHECK_MPI(MPI_Scatter(in, n, MPI_INT, out, n, MPI_INT, 0, comm));
      for (int i = 0; i < n; ++i)
        CHECK(out[i] == me * n + i, "scatter of %d: element %d is %d", n, i, out[i]);
      break;
    case ALLTOALL:
      CHECK_MPI(MPI_Alltoall(in, n, MPI_INT, out, n, MPI_INT, comm));
      for (int q = 0; q < p; ++q)
        for (int i = 0; i < n; ++i)
          CHECK(out[q * n + i] == q * 7 + me * n + i, "alltoall of %d: block %d element %d", n, q,
                i);
      break;
    default:
      break;
  }
  free(in);
  free(out);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  /* Half the ranks (by parity) in a communicator of their own, used between the world's calls. */
  MPI_Comm half;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
  static const int counts[] = {2, 5000};
  int turn = 0;
  for (int c = 0; c < COLLS; ++c) {
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; ++k) {
      const int who = turn++ % size;
      /* The late rank arrives after the others have stalled; those that finish first go on to the
       * next call at once (a collective of their half, then the next case's). */
      late(who);
      run((enum coll)c, counts[k], MPI_COMM_WORLD);
      run(ALLREDUCE, 3, half);
    }
  }
  CHECK_MPI(MPI_Comm_free(&half));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
