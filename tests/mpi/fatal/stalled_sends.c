/* An alltoall whose counts disagree on both sides of the change from the shared rounds to the
 * linear exchange (rank 0 passes 4000 ints per block, the others 10000), in the default mode with
 * MPI_ERRORS_RETURN. The linear ranks' rendezvous sends to rank 0 can never complete (rank 0 runs
 * the rounds and receives none of them), so a rank that finds the disagreement in rank 0's stall
 * note (coll/stall.hpp) cannot return, its send buffers being the caller's: it must end the job
 * with a message naming the disagreement, rather than wait until rmplrun's --timeout. */
#include <stdlib.h>

#include "../check.h"

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  const int block = rank == 0 ? 4000 : 10000;
  int* in = calloc((size_t)block * (size_t)size, sizeof(int));
  int* out = calloc((size_t)block * (size_t)size, sizeof(int));
  CHECK(in != NULL && out != NULL, "out of memory");
  (void)MPI_Alltoall(in, block, MPI_INT, out, block, MPI_INT, comm);
  free(in);
  free(out);
  MPI_Comm_free(&comm);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
