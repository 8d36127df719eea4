/* One collective of the mismatch tests (straddles.c, stalls.c), run with this rank's own count:
 * `mine` ints (per block for the gathers, scatters and alltoall), on buffers sized for it, root 0;
 * returns the call's error code (the tests set MPI_ERRORS_RETURN). */
#ifndef RMPL_TESTS_MPI_MISMATCH_MISMATCHED_CALL_H
#define RMPL_TESTS_MPI_MISMATCH_MISMATCHED_CALL_H

#include <stdio.h>
#include <stdlib.h>

#include "../check.h"

enum coll { BCAST, REDUCE, ALLREDUCE, ALLGATHER, ALLTOALL, GATHER, SCATTER, COLLS };
static const char* const names[COLLS] = {"bcast",    "reduce", "allreduce", "allgather",
                                         "alltoall", "gather", "scatter"};

/* Runs collective c with `mine` ints, blocking, or (`nonblocking`) as its MPI_I* form then
 * MPI_Wait; returns the first error code (the start's, else the wait's). */
static int run_collective(enum coll c, int mine, MPI_Comm comm, int nonblocking) {
  int rank, size;
  CHECK_MPI(MPI_Comm_rank(comm, &rank));
  CHECK_MPI(MPI_Comm_size(comm, &size));
  const size_t room = (size_t)mine * (size_t)size;
  int* in = calloc(room, sizeof(int));
  int* out = calloc(room, sizeof(int));
  CHECK(in != NULL && out != NULL, "out of memory");
  for (size_t i = 0; i < room; ++i) in[i] = rank * 1000 + (int)i;
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Request* r = nonblocking ? &req : NULL;
  int err = MPI_SUCCESS;
  switch (c) {
    case BCAST:
      err = r ? MPI_Ibcast(in, mine, MPI_INT, 0, comm, r) : MPI_Bcast(in, mine, MPI_INT, 0, comm);
      break;
    case REDUCE:
      err = r ? MPI_Ireduce(in, out, mine, MPI_INT, MPI_SUM, 0, comm, r)
              : MPI_Reduce(in, out, mine, MPI_INT, MPI_SUM, 0, comm);
      break;
    case ALLREDUCE:
      err = r ? MPI_Iallreduce(in, out, mine, MPI_INT, MPI_SUM, comm, r)
              : MPI_Allreduce(in, out, mine, MPI_INT, MPI_SUM, comm);
      break;
    case ALLGATHER:
      err = r ? MPI_Iallgather(in, mine, MPI_INT, out, mine, MPI_INT, comm, r)
              : MPI_Allgather(in, mine, MPI_INT, out, mine, MPI_INT, comm);
      break;
    case ALLTOALL:
      err = r ? MPI_Ialltoall(in, mine, MPI_INT, out, mine, MPI_INT, comm, r)
              : MPI_Alltoall(in, mine, MPI_INT, out, mine, MPI_INT, comm);
      break;
    case GATHER:
      err = r ? MPI_Igather(in, mine, MPI_INT, out, mine, MPI_INT, 0, comm, r)
              : MPI_Gather(in, mine, MPI_INT, out, mine, MPI_INT, 0, comm);
      break;
    case SCATTER:
      err = r ? MPI_Iscatter(in, mine, MPI_INT, out, mine, MPI_INT, 0, comm, r)
              : MPI_Scatter(in, mine, MPI_INT, out, mine, MPI_INT, 0, comm);
      break;
    default:
      break;
  }
  if (r && err == MPI_SUCCESS) err = MPI_Wait(r, MPI_STATUS_IGNORE);
  free(in);
  free(out);
  return err;
}

static inline int mismatched_call(enum coll c, int mine, MPI_Comm comm) {
  return run_collective(c, mine, comm, 0);
}

/* The nonblocking form of mismatched_call(). */
static inline int mismatched_icall(enum coll c, int mine, MPI_Comm comm) {
  return run_collective(c, mine, comm, 1);
}

/* Whether this rank (`mine` ints) must fail collective c when the root passes `root_count`: a
 * broadcast's ranks whose count is not the root's, a reduce's and a gather's root, a scatter's
 * other ranks whose count is not the root's, everyone in the others. */
static int must_fail(enum coll c, int rank, int mine, int root_count) {
  switch (c) {
    case BCAST:
      return mine != root_count;
    case REDUCE:
    case GATHER:
      return rank == 0;
    case SCATTER:
      return rank != 0 && mine != root_count;
    default:
      return 1;
  }
}

/* Checks the outcome `err` of the call that `what` describes: an error class a disagreement may
 * have, and a failure where must_fail() says so. */
static void check_outcome(int err, int failure_due, const char* what) {
  int cls = -1;
  MPI_Error_class(err, &cls);
  char text[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  if (err != MPI_SUCCESS) MPI_Error_string(err, text, &len);
  CHECK(cls == MPI_SUCCESS || cls == MPI_ERR_TRUNCATE || cls == MPI_ERR_COUNT ||
            cls == MPI_ERR_ARG || cls == MPI_ERR_OTHER,
        "%s: error class %d (%s)", what, cls, text);
  CHECK(!failure_due || cls != MPI_SUCCESS, "%s: this rank returned MPI_SUCCESS", what);
}

#endif
