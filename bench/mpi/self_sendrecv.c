/* The MPI layer's contiguous fast path, for instruction counts: N times MPI_Send then MPI_Recv of
 * one double to and from this rank itself. Run under callgrind with two N and difference the
 * totals, which cancels start-up and finalize:
 *   valgrind --tool=callgrind --callgrind-out-file=/dev/null ./self_sendrecv 10000   (and 20000)
 *   per iteration = (I(20000) - I(10000)) / 10000 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const long n = argc > 1 ? atol(argv[1]) : 10000;
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double out = 1.0, in = 0.0;
  for (long i = 0; i < n; ++i) {
    MPI_Send(&out, 1, MPI_DOUBLE, rank, 0, MPI_COMM_WORLD);
    MPI_Recv(&in, 1, MPI_DOUBLE, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return in == 1.0 ? 0 : 1;
}
