/* The profiling interface: this program's own MPI_Comm_size replaces the library's (a weak alias
 * of PMPI_Comm_size) and reaches the library through PMPI_Comm_size, as profiling tools do. */
#include <mpi.h>
#include <stdio.h>

static int intercepted = 0;

int MPI_Comm_size(MPI_Comm comm, int* size) {
  ++intercepted;
  return PMPI_Comm_size(comm, size);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = -1, size = 0, via_pmpi = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < 3; ++i) MPI_Comm_size(MPI_COMM_WORLD, &size);
  PMPI_Comm_size(MPI_COMM_WORLD, &via_pmpi); /* not intercepted */
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: size %d (PMPI %d), %d calls intercepted\n", rank, size, via_pmpi, intercepted);
  MPI_Finalize();
  return intercepted == 3 && size == via_pmpi && size > 0 ? 0 : 1;
}
