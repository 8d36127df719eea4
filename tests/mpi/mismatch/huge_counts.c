/* Counts whose byte sizes are equal modulo 4 GiB, in the default mode, through the shared-area
 * broadcast (RMPL_COLL_BROADCAST=shared): the root broadcasts 4 GiB + 64 KiB, every other rank
 * expects 64 KiB. A size compared on its low 32 bits alone would see them agree: the others would
 * take the first 64 KiB and return MPI_SUCCESS, and the root would wait for them to release rounds
 * they never read. Each non-root must get MPI_ERR_TRUNCATE naming both sizes, the root must
 * return, and nothing may hang (the harness's timeout). With MPI_ERRORS_RETURN. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {  // a disagreement needs two ranks
    CHECK_MPI(MPI_Finalize());
    return 0;
  }
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  /* A 64 KiB block: 65537 of them are 4 GiB + 64 KiB, 65536 x 65536 bytes being 4 GiB. */
  const int block = 65536;
  MPI_Datatype chunk;
  CHECK_MPI(MPI_Type_contiguous(block, MPI_BYTE, &chunk));
  CHECK_MPI(MPI_Type_commit(&chunk));
  const int count = rank == 0 ? 65537 : 1;
  const size_t bytes = (size_t)count * (size_t)block;
  /* The root's pages are only read (never written): untouched, they cost no memory. */
  unsigned char* data = rank == 0 ? malloc(bytes) : calloc(bytes, 1);
  CHECK(data != NULL, "no memory for %zu bytes", bytes);
  const int rc = MPI_Bcast(data, count, chunk, 0, comm);
  if (rank == 0) {
    CHECK(rc == MPI_SUCCESS || rc == MPI_ERR_OTHER, "the root's broadcast returned %d", rc);
  } else {
    int cls = 0;
    MPI_Error_class(rc, &cls);
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    text[0] = '\0';
    if (rc != MPI_SUCCESS) MPI_Error_string(rc, text, &len);
    CHECK(cls == MPI_ERR_TRUNCATE,
          "rank %d expected 65536 bytes and the root broadcast 4295032832: error class %d, not "
          "MPI_ERR_TRUNCATE (%d): %s",
          rank, cls, MPI_ERR_TRUNCATE, text);
    CHECK(strstr(text, "65536") != NULL && strstr(text, "4295032832") != NULL,
          "the error does not name both sizes (65536 and 4295032832): %s", text);
  }
  free(data);
  CHECK_MPI(MPI_Type_free(&chunk));
  /* After a disagreement the communicator is not used again, only freed. */
  CHECK_MPI(MPI_Comm_free(&comm));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
