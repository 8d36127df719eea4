/* Sessions (MPI-4.0) without MPI_Init: a session starts MPI (MPI_Initialized stays false: that is
 * the world model's), names the process sets "mpi://WORLD" and "mpi://SELF", makes their groups;
 * communicators made from the groups work (an allreduce, an intercommunicator between the even
 * and the odd ranks); the session's functions report through its error handler (MPI_ERRORS_RETURN
 * and a program's handler); the last MPI_Session_finalize ends MPI in this process. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int handled = 0, handled_code = 0;
static void on_error(MPI_Session* session, int* code, ...) {
  (void)session;
  ++handled;
  handled_code = *code;
}

static int class_of(int code) {
  int c = -1;
  MPI_Error_class(code, &c);
  return c;
}

int main(void) {
  MPI_Session session = MPI_SESSION_NULL;
  MPI_Info info;
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, "thread_level", "MPI_THREAD_SINGLE"));
  CHECK_MPI(MPI_Session_init(info, MPI_ERRORS_RETURN, &session));
  CHECK_MPI(MPI_Info_free(&info));
  int flag = -1;
  CHECK_MPI(MPI_Initialized(&flag));
  CHECK(flag == 0, "MPI_Initialized says %d with only a session open", flag);

  /* Process sets. */
  int npsets = 0;
  CHECK_MPI(MPI_Session_get_num_psets(session, MPI_INFO_NULL, &npsets));
  CHECK(npsets == 2, "%d process sets", npsets);
  const char* want[] = {"mpi://WORLD", "mpi://SELF"};
  for (int i = 0; i < npsets; ++i) {
    int len = 0;
    CHECK_MPI(MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i, &len, NULL));
    CHECK(len == (int)strlen(want[i]) + 1, "pset %d: length %d", i, len);
    char name[MPI_MAX_PSET_NAME_LEN];
    len = sizeof name;
    CHECK_MPI(MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i, &len, name));
    CHECK(strcmp(name, want[i]) == 0, "pset %d is \"%s\", want \"%s\"", i, name, want[i]);
  }
  char cut[5];
  int cut_len = sizeof cut;
  CHECK_MPI(MPI_Session_get_nth_pset(session, MPI_INFO_NULL, 0, &cut_len, cut));
  CHECK(strcmp(cut, "mpi:") == 0, "a cut pset name is \"%s\"", cut);

  /* The world's group, and a communicator of it. */
  MPI_Group world_group, self_group;
  CHECK_MPI(MPI_Group_from_session_pset(session, "mpi://WORLD", &world_group));
  CHECK_MPI(MPI_Group_from_session_pset(session, "mpi://SELF", &self_group));
  int size = 0, rank = -1, self_size = 0;
  CHECK_MPI(MPI_Group_size(world_group, &size));
  CHECK_MPI(MPI_Group_rank(world_group, &rank));
  CHECK_MPI(MPI_Group_size(self_group, &self_size));
  CHECK(size >= 1 && rank >= 0 && rank < size && self_size == 1, "groups: size %d rank %d self %d",
        size, rank, self_size);
  MPI_Info pset_info;
  CHECK_MPI(MPI_Session_get_pset_info(session, "mpi://WORLD", &pset_info));
  char value[32];
  int vlen = sizeof value;
  CHECK_MPI(MPI_Info_get_string(pset_info, "mpi_size", &vlen, value, &flag));
  CHECK(flag && atoi(value) == size, "mpi://WORLD's mpi_size is \"%s\", want %d", value, size);
  CHECK_MPI(MPI_Info_free(&pset_info));

  MPI_Comm comm;
  CHECK_MPI(MPI_Comm_create_from_group(world_group, "org.rmpl.test.world", MPI_INFO_NULL,
                                       MPI_ERRORS_RETURN, &comm));
  int comm_size = 0, comm_rank = -1;
  CHECK_MPI(MPI_Comm_size(comm, &comm_size));
  CHECK_MPI(MPI_Comm_rank(comm, &comm_rank));
  CHECK(comm_size == size && comm_rank == rank, "the world's communicator: size %d rank %d",
        comm_size, comm_rank);
  int sum = 0;
  CHECK_MPI(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm));
  CHECK(sum == size * (size - 1) / 2, "allreduce over the session's communicator: %d", sum);
  MPI_Errhandler used;
  CHECK_MPI(MPI_Comm_get_errhandler(comm, &used));
  CHECK(used == MPI_ERRORS_RETURN, "the communicator's error handler is not the one given");

  /* Even and odd ranks, each a group, joined by an intercommunicator. */
  if (size >= 2) {
    int evens[8], odds[8], ne = 0, no = 0;
    CHECK(size <= 16, "at most 16 ranks (%d)", size);
    for (int r = 0; r < size; ++r) {
      if (r % 2 == 0)
        evens[ne++] = r;
      else
        odds[no++] = r;
    }
    MPI_Group even_group, odd_group;
    CHECK_MPI(MPI_Group_incl(world_group, ne, evens, &even_group));
    CHECK_MPI(MPI_Group_incl(world_group, no, odds, &odd_group));
    const int even = rank % 2 == 0;
    MPI_Comm inter;
    CHECK_MPI(MPI_Intercomm_create_from_groups(
        even ? even_group : odd_group, 0, even ? odd_group : even_group, 0, "org.rmpl.test.inter",
        MPI_INFO_NULL, MPI_ERRORS_RETURN, &inter));
    int test_inter = 0, remote = 0;
    CHECK_MPI(MPI_Comm_test_inter(inter, &test_inter));
    CHECK_MPI(MPI_Comm_remote_size(inter, &remote));
    CHECK(test_inter && remote == (even ? no : ne), "intercommunicator: inter %d remote size %d",
          test_inter, remote);
    /* Each leader sends its world rank to the other one. */
    int local_rank = -1;
    CHECK_MPI(MPI_Comm_rank(inter, &local_rank));
    if (local_rank == 0) {
      int other = -1;
      CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, 0, 3, &other, 1, MPI_INT, 0, 3, inter,
                             MPI_STATUS_IGNORE));
      CHECK(other == (even ? 1 : 0), "the remote leader is rank %d", other);
    }
    CHECK_MPI(MPI_Comm_free(&inter));
    CHECK_MPI(MPI_Group_free(&even_group));
    CHECK_MPI(MPI_Group_free(&odd_group));
  }

  /* The session's information and errors. */
  MPI_Info used_info;
  CHECK_MPI(MPI_Session_get_info(session, &used_info));
  vlen = sizeof value;
  CHECK_MPI(MPI_Info_get_string(used_info, "thread_level", &vlen, value, &flag));
  CHECK(flag && strcmp(value, "MPI_THREAD_SINGLE") == 0, "thread_level \"%s\"", value);
  CHECK_MPI(MPI_Info_free(&used_info));
  int len = 8;
  char name[8];
  CHECK(class_of(MPI_Session_get_nth_pset(session, MPI_INFO_NULL, 7, &len, name)) == MPI_ERR_ARG,
        "a process set index out of range is MPI_ERR_ARG");
  MPI_Group nothing;
  CHECK(class_of(MPI_Group_from_session_pset(session, "mpi://NOWHERE", &nothing)) == MPI_ERR_ARG,
        "an unknown process set is MPI_ERR_ARG");
  MPI_Errhandler mine;
  CHECK_MPI(MPI_Session_create_errhandler(on_error, &mine));
  CHECK_MPI(MPI_Session_set_errhandler(session, mine));
  MPI_Errhandler got;
  CHECK_MPI(MPI_Session_get_errhandler(session, &got));
  CHECK(got == mine, "MPI_Session_get_errhandler gives another handler");
  const int code = MPI_Group_from_session_pset(session, "mpi://NOWHERE", &nothing);
  CHECK(handled == 1 && handled_code == code && class_of(code) == MPI_ERR_ARG,
        "the program's session handler: called %d times with %d", handled, handled_code);
  CHECK_MPI(MPI_Session_call_errhandler(session, MPI_ERR_OTHER));
  CHECK(handled == 2 && handled_code == MPI_ERR_OTHER, "MPI_Session_call_errhandler: %d, %d",
        handled, handled_code);
  CHECK_MPI(MPI_Session_set_errhandler(session, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Errhandler_free(&mine));

  /* Fortran handles. */
  const MPI_Fint f = MPI_Session_c2f(session);
  CHECK(f != 0 && MPI_Session_f2c(f) == session, "MPI_Session_c2f / f2c");

  CHECK_MPI(MPI_Comm_free(&comm));
  CHECK_MPI(MPI_Group_free(&world_group));
  CHECK_MPI(MPI_Group_free(&self_group));
  CHECK_MPI(MPI_Session_finalize(&session));
  CHECK(session == MPI_SESSION_NULL, "MPI_Session_finalize leaves the session null");
  return 0;
}
