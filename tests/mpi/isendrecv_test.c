/* MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4.0): a ring exchange, started before and waited
 * for after other traffic; a derived (strided) type on both sides; MPI_PROC_NULL as destination,
 * source, or both; the status is the receive's; MPI_Test until done; the replace form exchanging
 * in place. */
#include <string.h>

#include "check.h"

#define N 64

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int out[N], in[N];
  MPI_Status st;
  MPI_Request r;

  /* A ring: each rank sends to the right, receives from the left. */
  for (int i = 0; i < N; ++i) out[i] = rank * 1000 + i;
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_Isendrecv(out, N, MPI_INT, right, 7, in, N, MPI_INT, left, 7, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD)); /* other traffic while it is in flight */
  CHECK_MPI(MPI_Wait(&r, &st));
  CHECK(r == MPI_REQUEST_NULL, "the wait left the request");
  for (int i = 0; i < N; ++i) CHECK(in[i] == left * 1000 + i, "ring [%d] is %d", i, in[i]);
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 7, "status source %d tag %d", st.MPI_SOURCE,
        st.MPI_TAG);
  int got = -1;
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &got));
  CHECK(got == N, "count %d", got);

  /* A strided type (every second int) on both sides, any source, completed by MPI_Test. */
  MPI_Datatype every_other;
  CHECK_MPI(MPI_Type_vector(N / 2, 1, 2, MPI_INT, &every_other));
  CHECK_MPI(MPI_Type_commit(&every_other));
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_Isendrecv(out, 1, every_other, right, 8, in, 1, every_other, MPI_ANY_SOURCE,
                          MPI_ANY_TAG, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Type_free(&every_other)); /* the request keeps what it needs */
  for (int done = 0; !done;) CHECK_MPI(MPI_Test(&r, &done, &st));
  for (int i = 0; i < N; ++i) {
    const int want = i % 2 == 0 ? left * 1000 + i : 0;
    CHECK(in[i] == want, "strided [%d] is %d, not %d", i, in[i], want);
  }
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 8, "strided status source %d tag %d", st.MPI_SOURCE,
        st.MPI_TAG);

  /* MPI_PROC_NULL: as destination (only a receive: from the right, which sends nowhere but to us
   * in this step: everyone sends left to the left neighbour except rank 0), as source, both. */
  CHECK_MPI(MPI_Isendrecv(out, N, MPI_INT, MPI_PROC_NULL, 9, in, N, MPI_INT, MPI_PROC_NULL, 9,
                          MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG,
        "both MPI_PROC_NULL: source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &got));
  CHECK(got == 0, "both MPI_PROC_NULL: count %d", got);
  /* A line 0 -> 1 -> ... -> size-1: the first receives from nobody, the last sends to nobody. */
  const int next = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
  const int prev = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  memset(in, 0, sizeof in);
  CHECK_MPI(MPI_Isendrecv(out, N, MPI_INT, next, 10, in, N, MPI_INT, prev, 10, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, &st));
  if (prev == MPI_PROC_NULL) {
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "line start: source %d", st.MPI_SOURCE);
  } else {
    CHECK(st.MPI_SOURCE == prev, "line: source %d", st.MPI_SOURCE);
    for (int i = 0; i < N; ++i) CHECK(in[i] == prev * 1000 + i, "line [%d] is %d", i, in[i]);
  }

  /* MPI_Request_get_status reads the receive's status before the wait takes it. */
  CHECK_MPI(
      MPI_Isendrecv(out, N, MPI_INT, right, 15, in, N, MPI_INT, left, 15, MPI_COMM_WORLD, &r));
  for (int done = 0; !done;) CHECK_MPI(MPI_Request_get_status(r, &done, &st));
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 15, "get_status: source %d tag %d", st.MPI_SOURCE,
        st.MPI_TAG);
  CHECK(r != MPI_REQUEST_NULL, "MPI_Request_get_status freed the request");
  CHECK_MPI(MPI_Wait(&r, &st));
  CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 15, "wait after get_status: source %d tag %d",
        st.MPI_SOURCE, st.MPI_TAG);

  /* The replace form: the buffer goes right and comes back filled from the left. */
  int buf[N];
  for (int i = 0; i < N; ++i) buf[i] = rank * 1000 + i;
  CHECK_MPI(MPI_Isendrecv_replace(buf, N, MPI_INT, right, 11, left, 11, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Wait(&r, &st));
  for (int i = 0; i < N; ++i) CHECK(buf[i] == left * 1000 + i, "replace [%d] is %d", i, buf[i]);
  CHECK(st.MPI_SOURCE == left, "replace: source %d", st.MPI_SOURCE);

  /* Several at once, in both directions, waited together. */
  int a[N], b[N];
  MPI_Request two[2];
  for (int i = 0; i < N; ++i) a[i] = b[i] = rank;
  CHECK_MPI(MPI_Isendrecv_replace(a, N, MPI_INT, right, 12, left, 12, MPI_COMM_WORLD, &two[0]));
  CHECK_MPI(MPI_Isendrecv_replace(b, N, MPI_INT, left, 13, right, 13, MPI_COMM_WORLD, &two[1]));
  CHECK_MPI(MPI_Waitall(2, two, MPI_STATUSES_IGNORE));
  for (int i = 0; i < N; ++i) {
    CHECK(a[i] == left, "both ways: from the left [%d] is %d", i, a[i]);
    CHECK(b[i] == right, "both ways: from the right [%d] is %d", i, b[i]);
  }

  /* Errors: a bad destination fails the call and leaves no receive behind. */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int cls = MPI_SUCCESS;
  MPI_Error_class(
      MPI_Isendrecv(out, N, MPI_INT, size, 14, in, N, MPI_INT, left, 14, MPI_COMM_WORLD, &r), &cls);
  CHECK(cls == MPI_ERR_RANK, "destination %d gave class %d", size, cls);
  MPI_Error_class(
      MPI_Isendrecv(out, N, MPI_INT, right, 14, in, N, MPI_INT, left, 14, MPI_COMM_WORLD, NULL),
      &cls);
  CHECK(cls == MPI_ERR_ARG, "a null request pointer gave class %d", cls);
  /* The withdrawn receive must not take this message. */
  for (int i = 0; i < N; ++i) out[i] = -rank;
  CHECK_MPI(
      MPI_Sendrecv(out, N, MPI_INT, right, 14, in, N, MPI_INT, left, 14, MPI_COMM_WORLD, &st));
  CHECK(in[0] == -left, "after the failed call: %d", in[0]);

  CHECK_MPI(MPI_Finalize());
  return 0;
}
