/* Under the default error handler (MPI_ERRORS_ARE_FATAL) a send to a rank that does not exist ends
 * the job with a message naming the call, the rank and the communicator's size. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, v = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) MPI_Send(&v, 1, MPI_INT, size + 4, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
