/* The Fortran MINLOC / MAXLOC pairs whose index is a real: MPI_2REAL (REAL value, REAL index) and
 * MPI_2DOUBLE_PRECISION, through MPI_Allreduce, MPI_Reduce and MPI_Reduce_local: the extreme
 * value and the smallest index that holds it, the index given back as a real; a non-integral
 * index is refused with MPI_ERR_ARG; MPI_Type_get_value_index names both types. */
#include "check.h"

enum { n = 5 };

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank = 0, size = 0;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));

  /* Element i: rank r holds value (r + i) % size, so the minimum 0 is held by rank (size - i) %
   * size alone, and the maximum size - 1 by rank (2 * size - 1 - i) % size. */
  float mine[n][2], low[n][2];
  double mine_d[n][2], high_d[n][2];
  for (int i = 0; i < n; ++i) {
    mine[i][0] = (float)((rank + i) % size);
    mine[i][1] = (float)rank;
    mine_d[i][0] = (double)((rank + i) % size);
    mine_d[i][1] = (double)rank;
  }
  CHECK_MPI(MPI_Allreduce(mine, low, n, MPI_2REAL, MPI_MINLOC, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Allreduce(mine_d, high_d, n, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD));
  for (int i = 0; i < n; ++i) {
    CHECK(low[i][0] == 0.0f && low[i][1] == (float)((size - i % size) % size),
          "MPI_2REAL MINLOC element %d: (%g, %g)", i, low[i][0], low[i][1]);
    CHECK(high_d[i][0] == size - 1 && high_d[i][1] == (double)((2 * size - 1 - i % size) % size),
          "MPI_2DOUBLE_PRECISION MAXLOC element %d: (%g, %g)", i, high_d[i][0], high_d[i][1]);
  }

  /* Ties: every rank holds the same value; the smallest index wins. */
  float tie[2] = {3.5f, (float)(size - rank)}, won[2] = {0, 0};
  CHECK_MPI(MPI_Reduce(tie, won, 1, MPI_2REAL, MPI_MINLOC, 0, MPI_COMM_WORLD));
  if (rank == 0) {
    CHECK(won[0] == 3.5f && won[1] == 1.0f, "a tie's MINLOC: (%g, %g), want (3.5, 1)", won[0],
          won[1]);
  }

  /* Locally, and a non-integral index. */
  double a[2] = {2.0, 7.0}, b[2] = {2.0, 4.0};
  CHECK_MPI(MPI_Reduce_local(a, b, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC));
  CHECK(b[0] == 2.0 && b[1] == 4.0, "MPI_Reduce_local MAXLOC tie: (%g, %g)", b[0], b[1]);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  double bad[2] = {1.0, 0.5}, into[2] = {1.0, 2.0};
  int cls = -1;
  MPI_Error_class(MPI_Reduce_local(bad, into, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC), &cls);
  CHECK(cls == MPI_ERR_ARG, "a non-integral index: class %d, want MPI_ERR_ARG", cls);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

  MPI_Datatype pair;
  CHECK_MPI(MPI_Type_get_value_index(MPI_REAL, MPI_REAL, &pair));
  CHECK(pair == MPI_2REAL, "MPI_Type_get_value_index(MPI_REAL, MPI_REAL)");
  CHECK_MPI(MPI_Type_get_value_index(MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, &pair));
  CHECK(pair == MPI_2DOUBLE_PRECISION, "MPI_Type_get_value_index(DOUBLE PRECISION x2)");
  int elements = 0;
  MPI_Status s;
  CHECK_MPI(
      MPI_Sendrecv(mine, 2, MPI_2REAL, rank, 1, low, 2, MPI_2REAL, rank, 1, MPI_COMM_WORLD, &s));
  CHECK_MPI(MPI_Get_elements(&s, MPI_2REAL, &elements));
  CHECK(elements == 4, "MPI_Get_elements of 2 MPI_2REAL: %d", elements);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
