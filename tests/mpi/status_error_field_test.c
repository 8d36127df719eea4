/* The MPI_ERROR field of a status (MPI-3.1 3.2.5): a call that completes one operation and returns
 * one status (MPI_Recv, MPI_Wait, MPI_Test, MPI_Probe, MPI_Mprobe, MPI_Mrecv, MPI_Sendrecv,
 * MPI_Request_get_status, MPI_Waitany, MPI_Testany...) leaves it as the program left it: its error
 * is the call's return value. Only the calls that return several statuses (Waitall, Testall,
 * Waitsome, Testsome) write it, so that each status can carry its own request's error. */
#include <string.h>

#include "check.h"

enum { sentinel = 0x5e17 };

static int rank, size;

/* A status whose MPI_ERROR holds the sentinel, as a program that checks the field would leave it.
 */
static MPI_Status marked(void) {
  MPI_Status s;
  memset(&s, 0, sizeof s);
  s.MPI_ERROR = sentinel;
  return s;
}

#define EXPECT_KEPT(st, call)                                         \
  CHECK((st).MPI_ERROR == sentinel,                                   \
        "%s overwrote status.MPI_ERROR with %d (a single-completion " \
        "call must leave it; it was %d)",                             \
        call, (st).MPI_ERROR, sentinel)

static int query_ok(void* extra, MPI_Status* s) {
  (void)extra;
  MPI_Status_set_elements(s, MPI_BYTE, 0);
  MPI_Status_set_cancelled(s, 0);
  s->MPI_SOURCE = MPI_UNDEFINED;
  s->MPI_TAG = MPI_UNDEFINED;
  s->MPI_ERROR = MPI_SUCCESS;
  return MPI_SUCCESS;
}
static int free_ok(void* extra) {
  (void)extra;
  return MPI_SUCCESS;
}
static int cancel_ok(void* extra, int complete) {
  (void)extra;
  (void)complete;
  return MPI_SUCCESS;
}

/* Messages to self: every receive form, every probe form, every single-completion call. */
static void self_messages(void) {
  int out[64], in[64];
  for (int i = 0; i < 64; ++i) out[i] = rank * 100 + i;
  MPI_Request sreq, rreq;
  MPI_Status st;

  /* MPI_Recv: the fast path (contiguous, a rank) and the full one (any source, a derived type). */
  CHECK_MPI(MPI_Isend(out, 4, MPI_INT, rank, 1, MPI_COMM_WORLD, &sreq));
  st = marked();
  CHECK_MPI(MPI_Recv(in, 4, MPI_INT, rank, 1, MPI_COMM_WORLD, &st));
  EXPECT_KEPT(st, "MPI_Recv (contiguous, from a rank)");
  CHECK(st.MPI_SOURCE == rank && st.MPI_TAG == 1, "MPI_Recv status: source %d tag %d",
        st.MPI_SOURCE, st.MPI_TAG);
  st = marked();
  CHECK_MPI(MPI_Wait(&sreq, &st));
  EXPECT_KEPT(st, "MPI_Wait (send)");

  MPI_Datatype pair;
  CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &pair));
  CHECK_MPI(MPI_Type_commit(&pair));
  CHECK_MPI(MPI_Isend(out, 4, MPI_INT, rank, 2, MPI_COMM_WORLD, &sreq));
  st = marked();
  CHECK_MPI(MPI_Recv(in, 2, pair, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st));
  EXPECT_KEPT(st, "MPI_Recv (derived type, any source)");
  CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));

  /* MPI_Wait and MPI_Test on a receive, on MPI_REQUEST_NULL. */
  CHECK_MPI(MPI_Irecv(in, 4, MPI_INT, rank, 3, MPI_COMM_WORLD, &rreq));
  int flag = 1;
  st = marked();
  CHECK_MPI(MPI_Test(&rreq, &flag, &st));
  CHECK(!flag, "MPI_Test completed a receive nothing was sent to");
  EXPECT_KEPT(st, "MPI_Test (not complete)");
  st = marked();
  CHECK_MPI(MPI_Request_get_status(rreq, &flag, &st));
  EXPECT_KEPT(st, "MPI_Request_get_status (not complete)");
  CHECK_MPI(MPI_Send(out, 4, MPI_INT, rank, 3, MPI_COMM_WORLD));
  st = marked();
  do {
    CHECK_MPI(MPI_Request_get_status(rreq, &flag, &st));
  } while (!flag);
  EXPECT_KEPT(st, "MPI_Request_get_status (complete)");
  st = marked();
  CHECK_MPI(MPI_Wait(&rreq, &st));
  EXPECT_KEPT(st, "MPI_Wait (receive)");
  CHECK(st.MPI_TAG == 3, "MPI_Wait status tag %d, expected 3", st.MPI_TAG);

  CHECK_MPI(MPI_Irecv(in, 4, MPI_INT, rank, 4, MPI_COMM_WORLD, &rreq));
  CHECK_MPI(MPI_Send(out, 4, MPI_INT, rank, 4, MPI_COMM_WORLD));
  flag = 0;
  while (!flag) {
    st = marked();
    CHECK_MPI(MPI_Test(&rreq, &flag, &st));
    EXPECT_KEPT(st, "MPI_Test (receive)");
  }
  st = marked();
  CHECK_MPI(MPI_Wait(&rreq, &st));
  EXPECT_KEPT(st, "MPI_Wait (MPI_REQUEST_NULL)");
  st = marked();
  CHECK_MPI(MPI_Test(&rreq, &flag, &st));
  EXPECT_KEPT(st, "MPI_Test (MPI_REQUEST_NULL)");
  st = marked();
  CHECK_MPI(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st));
  EXPECT_KEPT(st, "MPI_Request_get_status (MPI_REQUEST_NULL)");

  /* MPI_Waitany and MPI_Testany return one status too. */
  MPI_Request two[2];
  CHECK_MPI(MPI_Irecv(in, 4, MPI_INT, rank, 5, MPI_COMM_WORLD, &two[0]));
  CHECK_MPI(MPI_Irecv(in + 4, 4, MPI_INT, rank, 6, MPI_COMM_WORLD, &two[1]));
  CHECK_MPI(MPI_Send(out, 4, MPI_INT, rank, 6, MPI_COMM_WORLD));
  int index = -1;
  st = marked();
  CHECK_MPI(MPI_Waitany(2, two, &index, &st));
  EXPECT_KEPT(st, "MPI_Waitany");
  CHECK(index == 1, "MPI_Waitany index %d, expected 1", index);
  CHECK_MPI(MPI_Send(out, 4, MPI_INT, rank, 5, MPI_COMM_WORLD));
  flag = 0;
  while (!flag) {
    st = marked();
    CHECK_MPI(MPI_Testany(2, two, &index, &flag, &st));
    EXPECT_KEPT(st, "MPI_Testany");
  }
  st = marked();
  CHECK_MPI(MPI_Waitany(2, two, &index, &st));
  EXPECT_KEPT(st, "MPI_Waitany (no active request)");

  /* Probes and matched probes. */
  CHECK_MPI(MPI_Send(out, 4, MPI_INT, rank, 7, MPI_COMM_WORLD));
  st = marked();
  CHECK_MPI(MPI_Probe(rank, 7, MPI_COMM_WORLD, &st));
  EXPECT_KEPT(st, "MPI_Probe");
  st = marked();
  CHECK_MPI(MPI_Iprobe(rank, 7, MPI_COMM_WORLD, &flag, &st));
  CHECK(flag, "MPI_Iprobe did not find the message MPI_Probe found");
  EXPECT_KEPT(st, "MPI_Iprobe");
  MPI_Message msg;
  st = marked();
  CHECK_MPI(MPI_Mprobe(rank, 7, MPI_COMM_WORLD, &msg, &st));
  EXPECT_KEPT(st, "MPI_Mprobe");
  st = marked();
  CHECK_MPI(MPI_Mrecv(in, 4, MPI_INT, &msg, &st));
  EXPECT_KEPT(st, "MPI_Mrecv");
  CHECK_MPI(MPI_Send(out, 4, MPI_INT, rank, 8, MPI_COMM_WORLD));
  flag = 0;
  while (!flag) {
    st = marked();
    CHECK_MPI(MPI_Improbe(rank, 8, MPI_COMM_WORLD, &flag, &msg, &st));
  }
  EXPECT_KEPT(st, "MPI_Improbe");
  CHECK_MPI(MPI_Imrecv(in, 4, MPI_INT, &msg, &rreq));
  st = marked();
  CHECK_MPI(MPI_Wait(&rreq, &st));
  EXPECT_KEPT(st, "MPI_Wait (MPI_Imrecv)");

  /* MPI_PROC_NULL: the empty status still leaves the field. */
  st = marked();
  CHECK_MPI(MPI_Recv(in, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
  EXPECT_KEPT(st, "MPI_Recv (MPI_PROC_NULL)");
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "MPI_Recv from MPI_PROC_NULL: source %d", st.MPI_SOURCE);
  st = marked();
  CHECK_MPI(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st));
  EXPECT_KEPT(st, "MPI_Mprobe (MPI_PROC_NULL)");
  st = marked();
  CHECK_MPI(MPI_Mrecv(in, 4, MPI_INT, &msg, &st));
  EXPECT_KEPT(st, "MPI_Mrecv (MPI_PROC_NULL)");
  st = marked();
  CHECK_MPI(MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
  EXPECT_KEPT(st, "MPI_Probe (MPI_PROC_NULL)");

  /* A persistent request, started and inactive. */
  CHECK_MPI(MPI_Recv_init(in, 4, MPI_INT, rank, 9, MPI_COMM_WORLD, &rreq));
  st = marked();
  CHECK_MPI(MPI_Wait(&rreq, &st));
  EXPECT_KEPT(st, "MPI_Wait (inactive persistent request)");
  CHECK_MPI(MPI_Start(&rreq));
  CHECK_MPI(MPI_Send(out, 4, MPI_INT, rank, 9, MPI_COMM_WORLD));
  st = marked();
  CHECK_MPI(MPI_Wait(&rreq, &st));
  EXPECT_KEPT(st, "MPI_Wait (persistent receive)");
  CHECK_MPI(MPI_Request_free(&rreq));

  /* A generalized request. */
  CHECK_MPI(MPI_Grequest_start(query_ok, free_ok, cancel_ok, NULL, &rreq));
  CHECK_MPI(MPI_Grequest_complete(rreq));
  st = marked();
  CHECK_MPI(MPI_Request_get_status(rreq, &flag, &st));
  EXPECT_KEPT(st, "MPI_Request_get_status (generalized request)");
  st = marked();
  CHECK_MPI(MPI_Wait(&rreq, &st));
  EXPECT_KEPT(st, "MPI_Wait (generalized request)");

  /* A nonblocking collective. */
  CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &rreq));
  st = marked();
  CHECK_MPI(MPI_Wait(&rreq, &st));
  EXPECT_KEPT(st, "MPI_Wait (MPI_Ibarrier)");

  CHECK_MPI(MPI_Type_free(&pair));
}

/* With the neighbours of a ring: MPI_Sendrecv (fast and full paths) and MPI_Sendrecv_replace. */
static void ring(void) {
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int out[8], in[8];
  for (int i = 0; i < 8; ++i) out[i] = rank * 10 + i;
  MPI_Status st = marked();
  CHECK_MPI(MPI_Sendrecv(out, 8, MPI_INT, next, 20, in, 8, MPI_INT, prev, 20, MPI_COMM_WORLD, &st));
  EXPECT_KEPT(st, "MPI_Sendrecv");
  CHECK(in[0] == prev * 10, "MPI_Sendrecv from rank %d: %d, expected %d", prev, in[0], prev * 10);
  MPI_Datatype pair;
  CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &pair));
  CHECK_MPI(MPI_Type_commit(&pair));
  st = marked();
  CHECK_MPI(MPI_Sendrecv(out, 4, MPI_INT, next, 21, in, 2, pair, MPI_ANY_SOURCE, 21, MPI_COMM_WORLD,
                         &st));
  EXPECT_KEPT(st, "MPI_Sendrecv (derived type, any source)");
  st = marked();
  CHECK_MPI(MPI_Sendrecv_replace(out, 8, MPI_INT, next, 22, prev, 22, MPI_COMM_WORLD, &st));
  EXPECT_KEPT(st, "MPI_Sendrecv_replace");
  CHECK_MPI(MPI_Type_free(&pair));
}

/* The multiple-completion calls that fail say which request failed through MPI_ERROR: a receive
 * truncated among good ones gives MPI_ERR_IN_STATUS, MPI_ERR_TRUNCATE in its own status and
 * MPI_SUCCESS in the others'. */
static void multiple_completion(void) {
  int out[8] = {0}, in[3][8];
  MPI_Request rs[3];
  MPI_Status sts[3];
  CHECK_MPI(MPI_Irecv(in[0], 8, MPI_INT, rank, 30, MPI_COMM_WORLD, &rs[0]));
  CHECK_MPI(MPI_Irecv(in[1], 2, MPI_INT, rank, 31, MPI_COMM_WORLD, &rs[1]));
  CHECK_MPI(MPI_Irecv(in[2], 8, MPI_INT, rank, 32, MPI_COMM_WORLD, &rs[2]));
  for (int t = 30; t < 33; ++t) CHECK_MPI(MPI_Send(out, 8, MPI_INT, rank, t, MPI_COMM_WORLD));
  for (int i = 0; i < 3; ++i) sts[i] = marked();
  CHECK_ERR(MPI_Waitall(3, rs, sts), MPI_ERR_IN_STATUS);
  int cls = -1;
  MPI_Error_class(sts[1].MPI_ERROR, &cls);
  CHECK(cls == MPI_ERR_TRUNCATE, "MPI_Waitall: the truncated receive's MPI_ERROR is %d (class %d)",
        sts[1].MPI_ERROR, cls);
  CHECK(sts[0].MPI_ERROR == MPI_SUCCESS && sts[2].MPI_ERROR == MPI_SUCCESS,
        "MPI_Waitall: the good receives' MPI_ERROR are %d and %d, expected MPI_SUCCESS",
        sts[0].MPI_ERROR, sts[2].MPI_ERROR);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  self_messages();
  ring();
  multiple_completion();
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
