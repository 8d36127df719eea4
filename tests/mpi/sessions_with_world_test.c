/* Sessions and the world model in one process: a session started first sets the thread level
 * MPI_Init_thread then provides; MPI_Finalize ends the world model only (the session's
 * communicator still works); the last MPI_Session_finalize ends MPI. A second session while the
 * first is open works too. */
#include <string.h>

#include "check.h"

int main(int argc, char** argv) {
  MPI_Session first, second;
  CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &first));
  int provided = -1;
  CHECK_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK(provided == MPI_THREAD_SINGLE, "MPI_Init_thread after a session provides %d", provided);
  int flag = 0, rank = -1, size = 0;
  CHECK_MPI(MPI_Initialized(&flag));
  CHECK(flag == 1, "MPI_Initialized after MPI_Init: %d", flag);
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));

  CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &second));
  MPI_Group group;
  CHECK_MPI(MPI_Group_from_session_pset(second, "mpi://WORLD", &group));
  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_create_from_group(group, "org.rmpl.test.mixed", MPI_INFO_NULL, NULL, &comm));
  CHECK_MPI(MPI_Group_free(&group));
  CHECK_MPI(MPI_Session_finalize(&second));

  int sum = 0;
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == size * (size - 1) / 2, "allreduce over MPI_COMM_WORLD: %d", sum);
  CHECK_MPI(MPI_Finalize());
  CHECK_MPI(MPI_Finalized(&flag));
  CHECK(flag == 1, "MPI_Finalized after MPI_Finalize: %d", flag);

  /* The world model has ended; the first session keeps MPI running. */
  sum = 0;
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm));
  CHECK(sum == size * (size - 1) / 2, "allreduce after MPI_Finalize, on the session's: %d", sum);
  CHECK_MPI(MPI_Comm_free(&comm));
  CHECK_MPI(MPI_Session_finalize(&first));
  /* MPI has ended in this process: it does not start again. */
  MPI_Session again;
  int cls = -1;
  MPI_Error_class(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &again), &cls);
  CHECK(cls == MPI_ERR_SESSION, "a session after MPI ended: class %d, want MPI_ERR_SESSION", cls);
  return 0;
}
