/* MPI_CHAR in reductions: MPI-3.1 5.9.2 leaves it out of the integer types, but Open MPI and MPICH
 * reduce it as a C integer (the arithmetic, logical and bitwise operators), and benchmarks and
 * programs written against them do so. rmpl does the same: every predefined integer operator on
 * MPI_CHAR, through Reduce (every root), Allreduce, Reduce_local, Scan and a nonblocking form, at
 * counts that take the short and the long collective paths. Values stay small, so that the results
 * are the same whether char is signed or not. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "predefined_ops.h"

static int rank, size;

/* Rank r's element i for operator k: sums of up to 8 ranks stay below 100, products of the factors
 * 1 and 2 below 64 over the first 6 ranks (later ranks give 1), zeros among the logical inputs. */
static int input(int r, int i, int k) {
  if (k == 2) return (r + i) % 12;
  if (k == 3) return r < 6 && (r + i) % 3 == 0 ? 2 : 1;
  if (k >= 4 && k <= 6) return (r + i) % 3 == 0 ? 0 : 1 + (r + i) % 5;
  return (r * 5 + i * 3) % 97;
}

/* The reduction over ranks 0..last of element i. */
static int expected(int last, int i, int k) {
  int v = input(0, i, k);
  for (int r = 1; r <= last; ++r) v = (int)apply_op(k, v, input(r, i, k));
  return v;
}

static void fill(char* v, int n, int k) {
  for (int i = 0; i < n; ++i) v[i] = (char)input(rank, i, k);
}

static void expect(const char* v, int n, int last, int k, const char* what) {
  for (int i = 0; i < n; ++i) {
    CHECK(v[i] == (char)expected(last, i, k),
          "%s MPI_%s over MPI_CHAR, count %d: element %d is %d, "
          "expected %d",
          what, op_names[k], n, i, v[i], expected(last, i, k));
  }
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  static const int counts[] = {1, 7, 100, 5000};
  char* in = malloc(5000);
  char* out = malloc(5000);
  CHECK(in && out, "out of memory");
  for (int k = 0; k < N_OPS; ++k) {
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
      const int n = counts[c];
      fill(in, n, k);
      memset(out, 0x7f, (size_t)n);
      CHECK_MPI(MPI_Allreduce(in, out, n, MPI_CHAR, op_at(k), MPI_COMM_WORLD));
      expect(out, n, size - 1, k, "MPI_Allreduce");
      for (int root = 0; root < size; ++root) {
        memset(out, 0x7f, (size_t)n);
        CHECK_MPI(MPI_Reduce(in, out, n, MPI_CHAR, op_at(k), root, MPI_COMM_WORLD));
        if (rank == root) expect(out, n, size - 1, k, "MPI_Reduce");
      }
      memset(out, 0x7f, (size_t)n);
      CHECK_MPI(MPI_Scan(in, out, n, MPI_CHAR, op_at(k), MPI_COMM_WORLD));
      expect(out, n, rank, k, "MPI_Scan");
      MPI_Request req;
      memset(out, 0x7f, (size_t)n);
      CHECK_MPI(MPI_Iallreduce(in, out, n, MPI_CHAR, op_at(k), MPI_COMM_WORLD, &req));
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      expect(out, n, size - 1, k, "MPI_Iallreduce");
    }
    /* MPI_Reduce_local: this rank's input into a copy of rank 0's. */
    const int n = 100;
    char mine[100], acc[100];
    for (int i = 0; i < n; ++i) {
      mine[i] = (char)input(1, i, k);
      acc[i] = (char)input(0, i, k);
    }
    CHECK_MPI(MPI_Reduce_local(mine, acc, n, MPI_CHAR, op_at(k)));
    expect(acc, n, 1, k, "MPI_Reduce_local");
  }
  free(in);
  free(out);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
