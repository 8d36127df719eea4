/* Run with RMPL_CHECK_COLLECTIVES=1 (tests/mpi/CMakeLists.txt): a rank whose own arguments the MPI
 * layer rejects (a gather root whose receive count is too small, a null datatype, a negative
 * count) must still join the collective's agreement, so that every other rank fails the same
 * collective with an error too, instead of being checked against the rejecting rank's next
 * collective and hanging. The communicator stays usable: the next collectives on it succeed. */
#include <stdlib.h>
#include <string.h>

#include "../check.h"

static int rank, size;

static void expect_failed(int err, int rejecting, const char* what) {
  int cls = -1;
  MPI_Error_class(err, &cls);
  CHECK(cls != MPI_SUCCESS,
        "%s: rank %d rejected its arguments, but this rank returned MPI_SUCCESS", what, rejecting);
}

/* After a failed collective the communicator must still work: a barrier and a correct gather. */
static void still_usable(MPI_Comm comm, const char* after) {
  int err = MPI_Barrier(comm);
  CHECK(err == MPI_SUCCESS, "barrier after %s returned %d", after, err);
  int mine = rank * 3 + 1;
  int* all = malloc(sizeof(int) * (size_t)size);
  CHECK(all != NULL, "out of memory");
  err = MPI_Gather(&mine, 1, MPI_INT, all, 1, MPI_INT, 0, comm);
  CHECK(err == MPI_SUCCESS, "gather after %s returned %d", after, err);
  if (rank == 0) {
    for (int r = 0; r < size; ++r)
      CHECK(all[r] == r * 3 + 1, "gather after %s: block %d is %d", after, r, all[r]);
  }
  free(all);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  const char* on = getenv("RMPL_CHECK_COLLECTIVES");
  CHECK(on != NULL && strcmp(on, "1") == 0, "run with RMPL_CHECK_COLLECTIVES=1");
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  int in[8] = {0}, out[8 * 8] = {0};

  /* The root's receive count is smaller than its send count (MPI_ERR_TRUNCATE there). */
  for (int nb = 0; nb < 2; ++nb) {
    const int rcount = rank == 0 ? 2 : 4;
    MPI_Request req;
    int err = nb ? MPI_Igather(in, 4, MPI_INT, out, rcount, MPI_INT, 0, comm, &req)
                 : MPI_Gather(in, 4, MPI_INT, out, rcount, MPI_INT, 0, comm);
    if (nb && err == MPI_SUCCESS) err = MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rank == 0) {
      CHECK_ERR(err, MPI_ERR_TRUNCATE);
    } else {
      expect_failed(err, 0, nb ? "MPI_Igather" : "MPI_Gather");
    }
    still_usable(comm, "the gather");
  }

  /* The last rank passes a null datatype to a broadcast. */
  {
    const int bad = size - 1;
    int err = MPI_Bcast(in, 4, rank == bad ? MPI_DATATYPE_NULL : MPI_INT, 0, comm);
    if (rank == bad) {
      CHECK_ERR(err, MPI_ERR_TYPE);
    } else {
      expect_failed(err, bad, "MPI_Bcast");
    }
    still_usable(comm, "the broadcast");
  }

  /* Rank 1 (or 0 alone) passes a negative count to an allreduce, then to an alltoall. */
  {
    const int bad = size > 1 ? 1 : 0;
    int err = MPI_Allreduce(in, out, rank == bad ? -1 : 4, MPI_INT, MPI_SUM, comm);
    if (rank == bad) {
      CHECK_ERR(err, MPI_ERR_COUNT);
    } else {
      expect_failed(err, bad, "MPI_Allreduce");
    }
    still_usable(comm, "the allreduce");
    err = MPI_Alltoall(in, rank == bad ? -1 : 1, MPI_INT, out, 1, MPI_INT, comm);
    if (rank == bad) {
      CHECK_ERR(err, MPI_ERR_COUNT);
    } else {
      expect_failed(err, bad, "MPI_Alltoall");
    }
    still_usable(comm, "the alltoall");
  }

  CHECK_MPI(MPI_Comm_free(&comm));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
