/* MPI_Alloc_mem and MPI_Free_mem: allocations of several sizes (0 included) that hold what is
 * written, serve as send and receive buffers between ranks (large enough to take the single-copy
 * path), many at once, freed in another order; errors for a negative size, a freed info object,
 * and freeing what MPI_Alloc_mem did not return (twice included). */
#include <stdint.h>
#include <string.h>

#include "check.h"

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  static const MPI_Aint sizes[] = {0, 1, 8, 4095, 4096, 65536, 1 << 20};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
    const MPI_Aint n = sizes[k];
    unsigned char *out = NULL, *in = NULL;
    CHECK_MPI(MPI_Alloc_mem(n, MPI_INFO_NULL, &out));
    CHECK_MPI(MPI_Alloc_mem(n, MPI_INFO_NULL, &in));
    CHECK(n == 0 || (out != NULL && in != NULL), "%ld bytes: null pointer", (long)n);
    for (MPI_Aint i = 0; i < n; ++i) out[i] = (unsigned char)(rank * 31 + i);
    if (n > 0) memset(in, 0, (size_t)n);
    CHECK_MPI(MPI_Sendrecv(out, (int)n, MPI_BYTE, right, 1, in, (int)n, MPI_BYTE, left, 1,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (MPI_Aint i = 0; i < n; ++i)
      CHECK(in[i] == (unsigned char)(left * 31 + i), "%ld bytes: [%ld] is %d", (long)n, (long)i,
            in[i]);
    CHECK_MPI(MPI_Free_mem(in));
    CHECK_MPI(MPI_Free_mem(out));
  }

  /* Many at once, with hints, freed from the middle out. */
  MPI_Info hints;
  CHECK_MPI(MPI_Info_create(&hints));
  CHECK_MPI(MPI_Info_set(hints, "alloc_shared_noncontig", "true"));
  enum { MANY = 200 };
  double* blocks[MANY];
  for (int b = 0; b < MANY; ++b) {
    CHECK_MPI(MPI_Alloc_mem(100 * sizeof(double), hints, &blocks[b]));
    for (int i = 0; i < 100; ++i) blocks[b][i] = b * 1000.0 + i;
  }
  for (int b = 0; b < MANY; ++b) {
    for (int i = 0; i < 100; ++i) CHECK(blocks[b][i] == b * 1000.0 + i, "block %d [%d]", b, i);
    for (int c = 0; c < b; ++c) CHECK(blocks[c] != blocks[b], "blocks %d and %d alias", c, b);
  }
  for (int b = MANY / 2, step = 0; step < MANY; ++step) {
    const int which = (b + (step % 2 ? step / 2 + 1 : -(step / 2)) + MANY) % MANY;
    CHECK_MPI(MPI_Free_mem(blocks[which]));
  }
  const MPI_Info stale = hints;
  CHECK_MPI(MPI_Info_free(&hints));

  /* Errors (the calls have no communicator: MPI_COMM_SELF's handler reports them). */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int cls = MPI_SUCCESS;
  void* p = NULL;
  MPI_Error_class(MPI_Alloc_mem(-1, MPI_INFO_NULL, &p), &cls);
  CHECK(cls == MPI_ERR_SIZE, "a negative size gave class %d", cls);
  MPI_Error_class(MPI_Alloc_mem(8, stale, &p), &cls);
  CHECK(cls == MPI_ERR_INFO || cls == MPI_ERR_ARG, "a freed info object gave class %d", cls);
  int local = 0;
  MPI_Error_class(MPI_Free_mem(&local), &cls);
  CHECK(cls == MPI_ERR_ARG, "freeing a stack address gave class %d", cls);
  CHECK_MPI(MPI_Alloc_mem(16, MPI_INFO_NULL, &p));
  CHECK_MPI(MPI_Free_mem(p));
  MPI_Error_class(MPI_Free_mem(p), &cls);
  CHECK(cls == MPI_ERR_ARG, "freeing twice gave class %d", cls);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
