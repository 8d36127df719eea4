/* An error reported while MPI is not running (in MPI_Init, or after MPI_Finalize) names the rank
 * that reports it, as errors do while MPI runs; it used to say "rank 0" on every rank. Each rank
 * calls MPI_Init again after MPI_Finalize (an error: MPI cannot be initialized twice), with
 * MPI_ERRORS_RETURN left on MPI_COMM_WORLD, and reads the error's text. tests/mpi/CMakeLists.txt
 * checks the same of an error inside MPI_Init (a bad RMPL_* variable). */
#include <stdio.h>
#include <string.h>

#include "check.h"

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = -1;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  /* The same text while running, for reference. */
  char text[MPI_MAX_ERROR_STRING], expected[64];
  int len = 0;
  const int running = MPI_Init(&argc, &argv);
  CHECK(running != MPI_SUCCESS, "MPI_Init succeeded while MPI is initialized");
  CHECK_MPI(MPI_Error_string(running, text, &len));
  snprintf(expected, sizeof expected, "MPI_Init on rank %d:", rank);
  CHECK(strstr(text, expected) != NULL,
        "the error of MPI_Init while running says \"%s\", not \"%s\"", text, expected);
  CHECK_MPI(MPI_Finalize());

  const int after = MPI_Init(&argc, &argv);
  if (after == MPI_SUCCESS) {
    fprintf(stderr, "rank %d: MPI_Init succeeded after MPI_Finalize\n", rank);
    return 1;
  }
  MPI_Error_string(after, text, &len);
  if (strstr(text, expected) == NULL) {
    fprintf(stderr, "rank %d: the error of MPI_Init after MPI_Finalize says \"%s\", not \"%s\"\n",
            rank, text, expected);
    return 1;
  }
  return 0;
}
