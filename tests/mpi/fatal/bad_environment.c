/* Run with one RMPL_* variable set to a bad value: MPI_Init must fail (under MPI_ERRORS_ARE_FATAL,
 * ending the job) with a message naming the rank, the variable, its value and what it accepts. The
 * program runs no collective, so nothing later could catch the mistake. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, v = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  printf("rank %d: MPI_Init accepted a bad variable\n", rank);
  MPI_Sendrecv_replace(&v, 1, MPI_INT, (rank + 1) % size, 0, (rank + size - 1) % size, 0,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return 0;
}
