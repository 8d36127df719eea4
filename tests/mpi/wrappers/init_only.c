/* The smallest MPI program, as configure scripts write it to probe for MPI: MPI_Init and
 * MPI_Finalize, nothing else. It uses none of mpi.h's predefined handles (MPI_COMM_WORLD is the
 * address of an object only rmpl's libmpi has), so only the reference every translation unit that
 * includes rmpl's mpi.h makes can stop it from linking with another MPI's library. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Finalize();
  return 0;
}
