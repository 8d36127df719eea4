/* MPI-4.1 MPI_Request_get_status_all / _any / _some: they report completion and statuses without
 * freeing or deactivating the requests (a later MPI_Waitall still takes them); null and inactive
 * persistent requests count as described for MPI_Testall / Testany / Testsome. */
#include "check.h"

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int in[2] = {-1, -1}, out[2] = {rank, rank + 100};
  MPI_Request rs[3];
  MPI_Status st[3];
  int flag = -1, index = -2, outcount = -2, indices[3];

  /* Two receives from the left that cannot complete before the left sends (after a barrier). */
  CHECK_MPI(MPI_Irecv(&in[0], 1, MPI_INT, left, 1, MPI_COMM_WORLD, &rs[0]));
  CHECK_MPI(MPI_Irecv(&in[1], 1, MPI_INT, left, 2, MPI_COMM_WORLD, &rs[1]));
  rs[2] = MPI_REQUEST_NULL;
  CHECK_MPI(MPI_Request_get_status_all(3, rs, &flag, st));
  CHECK(!flag, "all: complete before any send");
  CHECK_MPI(MPI_Request_get_status_some(3, rs, &outcount, indices, st));
  CHECK(outcount == 0, "some: %d complete before any send", outcount);
  CHECK_MPI(MPI_Request_get_status_any(3, rs, &index, &flag, &st[0]));
  CHECK(!flag && index == MPI_UNDEFINED, "any: flag %d index %d before any send", flag, index);
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));

  /* The first message only: any and some find request 0. */
  CHECK_MPI(MPI_Send(&out[0], 1, MPI_INT, right, 1, MPI_COMM_WORLD));
  do {
    CHECK_MPI(MPI_Request_get_status_any(3, rs, &index, &flag, &st[0]));
  } while (!flag);
  CHECK(index == 0 && st[0].MPI_SOURCE == left && st[0].MPI_TAG == 1, "any: index %d source %d",
        index, st[0].MPI_SOURCE);
  CHECK(rs[0] != MPI_REQUEST_NULL, "any freed the request");
  CHECK_MPI(MPI_Request_get_status_some(3, rs, &outcount, indices, st));
  CHECK(outcount == 1 && indices[0] == 0, "some: %d complete, first %d", outcount, indices[0]);
  CHECK_MPI(MPI_Request_get_status_all(3, rs, &flag, st));
  CHECK(!flag, "all: complete with one receive outstanding");

  /* The second, once every rank has looked: all complete, with both statuses; the requests are
   * still there to wait for. */
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Send(&out[1], 1, MPI_INT, right, 2, MPI_COMM_WORLD));
  do {
    CHECK_MPI(MPI_Request_get_status_all(3, rs, &flag, st));
  } while (!flag);
  CHECK(st[0].MPI_TAG == 1 && st[1].MPI_TAG == 2 && st[1].MPI_SOURCE == left,
        "all: tags %d %d source %d", st[0].MPI_TAG, st[1].MPI_TAG, st[1].MPI_SOURCE);
  CHECK(st[2].MPI_SOURCE == MPI_ANY_SOURCE && st[2].MPI_TAG == MPI_ANY_TAG,
        "all: the null request's status: source %d tag %d", st[2].MPI_SOURCE, st[2].MPI_TAG);
  CHECK(rs[0] != MPI_REQUEST_NULL && rs[1] != MPI_REQUEST_NULL, "all freed the requests");
  CHECK_MPI(MPI_Request_get_status_some(2, rs, &outcount, indices, MPI_STATUSES_IGNORE));
  CHECK(outcount == 2, "some: %d complete of 2", outcount);
  CHECK_MPI(MPI_Waitall(2, rs, MPI_STATUSES_IGNORE));
  CHECK(in[0] == left && in[1] == left + 100, "received %d %d", in[0], in[1]);

  /* Only null and inactive requests: any says so with MPI_UNDEFINED, some with MPI_UNDEFINED. */
  CHECK_MPI(MPI_Recv_init(&in[0], 1, MPI_INT, left, 3, MPI_COMM_WORLD, &rs[0]));
  rs[1] = MPI_REQUEST_NULL;
  CHECK_MPI(MPI_Request_get_status_any(2, rs, &index, &flag, &st[0]));
  CHECK(flag && index == MPI_UNDEFINED, "any, no active: flag %d index %d", flag, index);
  CHECK_MPI(MPI_Request_get_status_some(2, rs, &outcount, indices, st));
  CHECK(outcount == MPI_UNDEFINED, "some, no active: outcount %d", outcount);
  CHECK_MPI(MPI_Request_get_status_all(2, rs, &flag, st));
  CHECK(flag, "all, no active: flag %d", flag);
  CHECK_MPI(MPI_Request_free(&rs[0]));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
