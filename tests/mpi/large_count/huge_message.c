/* A message of more than INT_MAX elements through the large-count bindings, between 2 ranks:
 * rank 0 sends 2^31 + 8 bytes with MPI_Send_c, rank 1 receives them with MPI_Recv_c; the status
 * counts them with MPI_Get_count_c (MPI_Get_count: MPI_UNDEFINED), and bytes on both sides of the
 * 2 GiB boundary arrive. Then MPI_Bcast_c sends them back from rank 1. About 2 GiB a rank: the
 * untouched parts of the buffers stay unmapped pages. */
#include <limits.h>
#include <stdlib.h>

#include "../check.h"

static const MPI_Count big = (MPI_Count)INT_MAX + 9; /* 2^31 + 8 */

/* Marks (or checks) the bytes at a few places, the 2 GiB boundary among them. */
static int marks(unsigned char* buf, int salt, int write) {
  const MPI_Count at[] = {0, 1, INT_MAX - 1, INT_MAX, (MPI_Count)INT_MAX + 1, big - 1};
  for (size_t i = 0; i < sizeof at / sizeof at[0]; ++i) {
    const unsigned char want = (unsigned char)(salt + 17 * (int)i + 1);
    if (write) {
      buf[at[i]] = want;
    } else if (buf[at[i]] != want) {
      fprintf(stderr, "byte %lld is %d, want %d\n", (long long)at[i], buf[at[i]], want);
      return 0;
    }
  }
  return 1;
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = 0, size = 0;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size == 2, "this test runs at 2 ranks, not %d", size);
  unsigned char* buf = malloc((size_t)big);
  CHECK(buf != NULL, "no memory for %lld bytes", (long long)big);
  MPI_Status s;
  if (rank == 0) {
    marks(buf, 1, 1);
    CHECK_MPI(MPI_Send_c(buf, big, MPI_BYTE, 1, 7, MPI_COMM_WORLD));
  } else {
    CHECK_MPI(MPI_Recv_c(buf, big, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &s));
    CHECK(marks(buf, 1, 0), "MPI_Recv_c of %lld bytes: wrong data", (long long)big);
    MPI_Count got = 0;
    CHECK_MPI(MPI_Get_count_c(&s, MPI_BYTE, &got));
    CHECK(got == big, "MPI_Get_count_c: %lld, want %lld", (long long)got, (long long)big);
    int small = 0;
    CHECK_MPI(MPI_Get_count(&s, MPI_BYTE, &small));
    CHECK(small == MPI_UNDEFINED, "MPI_Get_count of %lld bytes: %d, want MPI_UNDEFINED",
          (long long)big, small);
    marks(buf, 2, 1);
  }
  CHECK_MPI(MPI_Bcast_c(buf, big, MPI_BYTE, 1, MPI_COMM_WORLD));
  CHECK(marks(buf, 2, 0), "MPI_Bcast_c of %lld bytes from rank 1: wrong data", (long long)big);
  free(buf);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
