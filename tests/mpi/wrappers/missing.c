/* Calls a function of MPI that rmpl's MPI layer does not have (one-sided communication): the
 * program compiles, and fails to link with an error naming the function. mpi.h does not declare
 * it, so the program does (as a program written for another MPI would have it declared). */
#include <mpi.h>

int MPI_Win_create();

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = MPI_Win_create();
  MPI_Finalize();
  return rc;
}
