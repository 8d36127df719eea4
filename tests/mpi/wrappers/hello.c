/* An MPI program as users write them, built by wrappers_test.sh with rmpl's mpicc: every rank says
 * hello once its ring neighbour and a sum over all ranks check out. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank = -1, size = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* Each rank sends its rank to the next one round the ring. */
  int from_left = -1;
  MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 7, &from_left, 1, MPI_INT,
               (rank + size - 1) % size, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  int mine = rank + 1, sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (from_left != (rank + size - 1) % size || sum != size * (size + 1) / 2) {
    fprintf(stderr, "rank %d of %d: got %d from the left (expected %d), sum %d (expected %d)\n",
            rank, size, from_left, (rank + size - 1) % size, sum, size * (size + 1) / 2);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  printf("hello from rank %d of %d, sum %d\n", rank, size, sum);
  MPI_Finalize();
  return 0;
}
