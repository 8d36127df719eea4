/* The MPI layer's completion calls with a status, for instruction counts: N times one 8 B message
 * to this rank itself, received by
 *   mode 0: MPI_Send then MPI_Recv with a status,
 *   mode 1: MPI_Irecv, MPI_Send, MPI_Wait with a status,
 *   mode 2: MPI_Irecv, MPI_Send, MPI_Waitsome with a status.
 * Build with mpicc (or cc -Iinclude ... -lmpi), run under callgrind with two N and difference the
 * totals, which cancels start-up and finalize:
 *   valgrind --tool=callgrind --callgrind-out-file=/dev/null ./completion_calls 10000 MODE
 *   (and 20000): per iteration = (I(20000) - I(10000)) / 10000 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const long n = argc > 1 ? atol(argv[1]) : 10000;
  const int mode = argc > 2 ? atoi(argv[2]) : 0;
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double out = 1.0, in = 0.0;
  MPI_Status st;
  MPI_Request r;
  int outcount, index;
  for (long i = 0; i < n; ++i) {
    if (mode == 0) {
      MPI_Send(&out, 1, MPI_DOUBLE, rank, 0, MPI_COMM_WORLD);
      MPI_Recv(&in, 1, MPI_DOUBLE, rank, 0, MPI_COMM_WORLD, &st);
      continue;
    }
    MPI_Irecv(&in, 1, MPI_DOUBLE, rank, 0, MPI_COMM_WORLD, &r);
    MPI_Send(&out, 1, MPI_DOUBLE, rank, 0, MPI_COMM_WORLD);
    if (mode == 1) {
      MPI_Wait(&r, &st);
    } else {
      MPI_Waitsome(1, &r, &outcount, &index, &st);
    }
  }
  MPI_Finalize();
  return in == 1.0 ? 0 : 1;
}
