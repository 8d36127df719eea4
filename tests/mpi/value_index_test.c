/* MPI-4.1 MPI_Type_get_value_index: the predefined value-index type of each pair the standard
 * names, MPI_DATATYPE_NULL for a combination without one, and a MAXLOC over the type it gives. */
#include "check.h"

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  static const struct {
    MPI_Datatype value, index, pair;
    const char* what;
  } expect[] = {
      {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT, "float, int"},
      {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT, "double, int"},
      {MPI_LONG, MPI_INT, MPI_LONG_INT, "long, int"},
      {MPI_INT, MPI_INT, MPI_2INT, "int, int"},
      {MPI_SHORT, MPI_INT, MPI_SHORT_INT, "short, int"},
      {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT, "long double, int"},
      {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER, "INTEGER, INTEGER"},
      {MPI_DOUBLE, MPI_LONG, MPI_DATATYPE_NULL, "double, long"},
      {MPI_CHAR, MPI_INT, MPI_DATATYPE_NULL, "char, int"},
  };
  for (size_t i = 0; i < sizeof expect / sizeof expect[0]; ++i) {
    MPI_Datatype got = MPI_BYTE;
    CHECK_MPI(MPI_Type_get_value_index(expect[i].value, expect[i].index, &got));
    CHECK(got == expect[i].pair, "(%s) gave another type", expect[i].what);
  }
  MPI_Datatype pair;
  CHECK_MPI(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &pair));
  struct {
    double value;
    int index;
  } mine = {(double)((rank * 5) % size), rank}, best;
  CHECK_MPI(MPI_Allreduce(&mine, &best, 1, pair, MPI_MAXLOC, MPI_COMM_WORLD));
  int want = -1, at = -1;
  for (int r = 0; r < size; ++r) {
    if ((r * 5) % size > want) {
      want = (r * 5) % size;
      at = r;
    }
  }
  CHECK(best.value == want && best.index == at, "maxloc (%g, %d), not (%d, %d)", best.value,
        best.index, want, at);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int cls = MPI_SUCCESS;
  MPI_Error_class(MPI_Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT, &pair), &cls);
  CHECK(cls == MPI_ERR_TYPE, "MPI_DATATYPE_NULL gave class %d", cls);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
