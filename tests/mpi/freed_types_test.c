/* A datatype may be freed while operations that use it are pending or persistent (MPI-3.1 4.1.9):
 * persistent sends and receives started again and again after MPI_Type_free, nonblocking
 * point-to-point and collectives in flight when it is freed, and types built from a freed type.
 * Each rank sends to the next one (to itself on one rank); the data is checked element by element
 * with the holes between elements untouched. */
#include <string.h>

#include "check.h"

static int rank, size;

enum { N = 3000 }; /* ints every other slot: 24 KiB of buffer, past the eager limit */

/* An int every 8 bytes (vector of N ints, stride 2). */
static MPI_Datatype strided(void) {
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_vector(N, 1, 2, MPI_INT, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  return t;
}

static void fill(int* b, int seed) {
  for (int i = 0; i < 2 * N; ++i) b[i] = i % 2 ? -1 : seed * 100000 + i;
}

static void expect(const int* b, int seed, const char* what) {
  for (int i = 0; i < 2 * N; ++i) {
    const int want = i % 2 ? -7 : seed * 100000 + i;
    CHECK(b[i] == want, "%s: int %d is %d, expected %d", what, i, b[i], want);
  }
}

static void clear(int* b) {
  for (int i = 0; i < 2 * N; ++i) b[i] = -7;
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  static int s[2 * N], d[2 * N];

  /* Persistent requests whose type is freed at once, started five times. */
  MPI_Datatype t = strided();
  MPI_Request req[2];
  CHECK_MPI(MPI_Recv_init(d, 1, t, prev, 1, MPI_COMM_WORLD, &req[0]));
  CHECK_MPI(MPI_Send_init(s, 1, t, next, 1, MPI_COMM_WORLD, &req[1]));
  CHECK_MPI(MPI_Type_free(&t));
  CHECK(t == MPI_DATATYPE_NULL, "MPI_Type_free left the handle set");
  for (int round = 0; round < 5; ++round) {
    fill(s, rank + round);
    clear(d);
    CHECK_MPI(MPI_Startall(2, req));
    CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    expect(d, prev + round, "persistent receive after MPI_Type_free");
  }
  CHECK_MPI(MPI_Request_free(&req[0]));
  CHECK_MPI(MPI_Request_free(&req[1]));

  /* The same with the persistent requests made, started once, and the type freed in between. */
  t = strided();
  CHECK_MPI(MPI_Recv_init(d, 1, t, prev, 2, MPI_COMM_WORLD, &req[0]));
  CHECK_MPI(MPI_Send_init(s, 1, t, next, 2, MPI_COMM_WORLD, &req[1]));
  for (int round = 0; round < 3; ++round) {
    fill(s, rank + 10 * round);
    clear(d);
    CHECK_MPI(MPI_Startall(2, req));
    if (round == 0) CHECK_MPI(MPI_Type_free(&t)); /* while both are active */
    CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    expect(d, prev + 10 * round, "persistent receive, type freed while active");
  }
  CHECK_MPI(MPI_Request_free(&req[0]));
  CHECK_MPI(MPI_Request_free(&req[1]));

  /* Nonblocking point-to-point in flight when the type is freed. */
  t = strided();
  fill(s, rank + 50);
  clear(d);
  CHECK_MPI(MPI_Irecv(d, 1, t, prev, 3, MPI_COMM_WORLD, &req[0]));
  CHECK_MPI(MPI_Isend(s, 1, t, next, 3, MPI_COMM_WORLD, &req[1]));
  CHECK_MPI(MPI_Type_free(&t));
  CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
  expect(d, prev + 50, "nonblocking receive, type freed in flight");

  /* A nonblocking broadcast in flight when the type is freed. */
  t = strided();
  if (rank == 0)
    fill(d, 77);
  else
    clear(d);
  CHECK_MPI(MPI_Ibcast(d, 1, t, 0, MPI_COMM_WORLD, &req[0]));
  CHECK_MPI(MPI_Type_free(&t));
  CHECK_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
  if (rank != 0) {
    expect(d, 77, "MPI_Ibcast, type freed in flight");
  } else {
    for (int i = 0; i < 2 * N; ++i) {
      CHECK(d[i] == (i % 2 ? -1 : 77 * 100000 + i), "MPI_Ibcast root buffer changed at %d", i);
    }
  }

  /* A committed type built from a type already freed. */
  MPI_Datatype pair, pairs;
  CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &pair));
  CHECK_MPI(MPI_Type_create_resized(pair, 0, 4 * (MPI_Aint)sizeof(int), &pairs));
  CHECK_MPI(MPI_Type_free(&pair));
  CHECK_MPI(MPI_Type_commit(&pairs));
  fill(s, rank + 90);
  clear(d);
  CHECK_MPI(MPI_Irecv(d, N / 2, pairs, prev, 4, MPI_COMM_WORLD, &req[0]));
  CHECK_MPI(MPI_Send(s, N / 2, pairs, next, 4, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
  expect(d, prev + 90, "a type built from a freed type");
  CHECK_MPI(MPI_Type_free(&pairs));

  CHECK_MPI(MPI_Finalize());
  return 0;
}
