/* Vectors of very many blocks (MPI-3.1 4.1.2): MPI_Type_vector with 135 million blocks is created
 * and committed without memory in proportion to its blocks, and vectors large enough to be kept as
 * a repeated pattern rather than a list of runs move their data exactly: sent and received to the
 * next rank (to itself on one rank) at eager and rendezvous sizes, broadcast, packed and unpacked,
 * nested in another type, with positive and negative strides. */
#include <string.h>

#include "check.h"

static int rank, size;

/* Fills every int with its own index (and `seed`), so a misplaced one shows. */
static void fill(int* b, long n, int seed) {
  for (long i = 0; i < n; ++i) b[i] = (int)(i * 7 + seed);
}

/* `blocks` blocks of `len` ints, `stride` ints apart, from index `first`: what must be at `b`
 * (data from `seed`, everything else -1). */
static void expect(const int* b, long n, long first, int blocks, int len, int stride, int seed,
                   const char* what) {
  char* is_data = calloc((size_t)n, 1);
  for (long k = 0; k < blocks; ++k) {
    for (long j = 0; j < len; ++j) is_data[first + k * stride + j] = 1;
  }
  for (long i = 0; i < n; ++i) {
    const int want = is_data[i] ? (int)(i * 7 + seed) : -1;
    CHECK(b[i] == want, "%s (%d ranks): int %ld is %d, expected %d", what, size, i, b[i], want);
  }
  free(is_data);
}

static void clear(int* b, long n) {
  for (long i = 0; i < n; ++i) b[i] = -1;
}

/* vector(blocks, len, stride, MPI_INT) at its first block's index `first` moved every way. */
static void moves(int blocks, int len, int stride) {
  const long first = stride < 0 ? (long)(blocks - 1) * -stride : 0;
  const long n = first + (stride < 0 ? len : (long)(blocks - 1) * stride + len);
  int* s = malloc(sizeof(int) * (size_t)n);
  int* d = malloc(sizeof(int) * (size_t)n);
  MPI_Datatype v;
  CHECK_MPI(MPI_Type_vector(blocks, len, stride, MPI_INT, &v));
  CHECK_MPI(MPI_Type_commit(&v));
  int bytes = 0;
  CHECK_MPI(MPI_Type_size(v, &bytes));
  CHECK(bytes == blocks * len * 4, "vector(%d, %d, %d) has size %d", blocks, len, stride, bytes);

  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  fill(s, n, rank);
  clear(d, n);
  MPI_Request r;
  CHECK_MPI(MPI_Irecv(d + first, 1, v, prev, 1, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Send(s + first, 1, v, next, 1, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
  expect(d, n, first, blocks, len, stride, prev, "send and receive of a vector");

  clear(d, n);
  if (rank == 0) fill(d, n, 99);
  CHECK_MPI(MPI_Bcast(d + first, 1, v, 0, MPI_COMM_WORLD));
  if (rank != 0) expect(d, n, first, blocks, len, stride, 99, "broadcast of a vector");

  /* Packed: the data in order, block by block. */
  char* packed = malloc((size_t)bytes);
  int position = 0;
  CHECK_MPI(MPI_Pack(s + first, 1, v, packed, bytes, &position, MPI_COMM_WORLD));
  CHECK(position == bytes, "MPI_Pack wrote %d bytes, expected %d", position, bytes);
  for (long k = 0; k < blocks; ++k) {
    for (long j = 0; j < len; ++j) {
      int got;
      memcpy(&got, packed + (k * len + j) * 4, 4);
      const long i = first + k * stride + j;
      CHECK(got == (int)(i * 7 + rank), "packed int %ld is %d, expected %d", k * len + j, got,
            (int)(i * 7 + rank));
    }
  }
  clear(d, n);
  position = 0;
  CHECK_MPI(MPI_Unpack(packed, bytes, &position, d + first, 1, v, MPI_COMM_WORLD));
  expect(d, n, first, blocks, len, stride, rank, "MPI_Unpack of a vector");
  free(packed);

  /* Nested: two of the vector, one after the other (contiguous(2, v) with v resized to its
   * span), sent to the next rank. */
  MPI_Datatype spaced, two;
  CHECK_MPI(MPI_Type_create_resized(v, 0, (MPI_Aint)n * 4, &spaced));
  CHECK_MPI(MPI_Type_contiguous(2, spaced, &two));
  CHECK_MPI(MPI_Type_commit(&two));
  if (stride > 0) {
    int* s2 = malloc(sizeof(int) * (size_t)n * 2);
    int* d2 = malloc(sizeof(int) * (size_t)n * 2);
    fill(s2, 2 * n, rank);
    clear(d2, 2 * n);
    CHECK_MPI(MPI_Irecv(d2, 1, two, prev, 2, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Send(s2, 1, two, next, 2, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (long i = 0; i < 2 * n; ++i) {
      const long in = i % n;
      const int data = (in - first) % stride < len;
      const int want = data ? (int)(i * 7 + prev) : -1;
      CHECK(d2[i] == want, "two vectors: int %ld is %d, expected %d", i, d2[i], want);
    }
    free(s2);
    free(d2);
  }
  CHECK_MPI(MPI_Type_free(&two));
  CHECK_MPI(MPI_Type_free(&spaced));
  CHECK_MPI(MPI_Type_free(&v));
  free(s);
  free(d);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* 135 million blocks: made, committed, measured and freed (no data moved: a gigabyte). */
  MPI_Datatype huge;
  CHECK_MPI(MPI_Type_vector(135000000, 1, 2, MPI_INT, &huge));
  CHECK_MPI(MPI_Type_commit(&huge));
  MPI_Count bytes = 0;
  MPI_Aint lb = -1, extent = 0;
  CHECK_MPI(MPI_Type_size_x(huge, &bytes));
  CHECK_MPI(MPI_Type_get_extent(huge, &lb, &extent));
  CHECK(bytes == 135000000LL * 4, "the huge vector's size is %lld", (long long)bytes);
  CHECK(lb == 0 && extent == (135000000LL * 2 - 1) * 4, "the huge vector's extent is %ld",
        (long)extent);
  int packed = 0;
  CHECK_MPI(MPI_Pack_size(1, huge, MPI_COMM_WORLD, &packed));
  CHECK(packed == 135000000 * 4, "MPI_Pack_size gives %d", packed);
  MPI_Datatype hv;
  CHECK_MPI(MPI_Type_create_hvector(135000000, 3, -16, MPI_CHAR, &hv));
  CHECK_MPI(MPI_Type_commit(&hv));
  CHECK_MPI(MPI_Type_free(&hv));
  CHECK_MPI(MPI_Type_free(&huge));

  /* Vectors of many blocks: eager (a few KiB) and rendezvous sizes, blocks of one and of three
   * ints, forwards and backwards. */
  moves(3000, 1, 2);
  moves(5000, 3, 5);
  moves(200000, 1, 3);
  moves(70000, 2, -3);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
