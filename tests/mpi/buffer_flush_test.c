/* MPI-4.1 MPI_Buffer_flush and MPI_Buffer_iflush: with buffered sends outstanding to a rank that
 * receives them only later, the flush returns (the nonblocking one completes) once every one has
 * been delivered, and the buffer stays attached for more buffered sends. */
#include <stdlib.h>

#include "check.h"

#define N 8
#define ELEMS 512

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  const int room = 2 * N * (ELEMS * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
  void* buffer = malloc((size_t)room);
  CHECK(buffer != NULL, "out of memory");
  CHECK_MPI(MPI_Buffer_attach(buffer, room));
  static int out[N][ELEMS], in[N][ELEMS];
  for (int round = 0; round < 2; ++round) {
    for (int m = 0; m < N; ++m) {
      for (int i = 0; i < ELEMS; ++i) out[m][i] = rank * 100000 + round * 1000 + m * 10 + i;
      CHECK_MPI(MPI_Bsend(out[m], ELEMS, MPI_INT, right, m, MPI_COMM_WORLD));
    }
    /* Our sends are buffered: the data may change now. */
    for (int m = 0; m < N; ++m) out[m][0] = -1;
    /* Receive ours in reverse order while the flush (blocking in round 0, nonblocking in round 1)
     * waits for the right neighbour to take the ones we sent. */
    MPI_Request flush = MPI_REQUEST_NULL;
    if (round == 1) CHECK_MPI(MPI_Buffer_iflush(&flush));
    for (int m = N - 1; m >= 0; --m) {
      CHECK_MPI(MPI_Recv(in[m], ELEMS, MPI_INT, left, m, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    if (round == 0) {
      CHECK_MPI(MPI_Buffer_flush());
    } else {
      CHECK_MPI(MPI_Wait(&flush, MPI_STATUS_IGNORE));
      CHECK(flush == MPI_REQUEST_NULL, "the flush request was not freed");
    }
    for (int m = 0; m < N; ++m)
      for (int i = 0; i < ELEMS; ++i)
        CHECK(in[m][i] == left * 100000 + round * 1000 + m * 10 + i, "round %d message %d [%d]",
              round, m, i);
  }
  void* back = NULL;
  int back_size = 0;
  CHECK_MPI(MPI_Buffer_detach(&back, &back_size));
  CHECK(back == buffer && back_size == room, "detach gave %p, %d", back, back_size);
  free(buffer);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
