/* The status's fields through calls (MPI-4.1 MPI_Status_get/set_source, _tag, _error) and
 * MPI_Status_set_elements_x against MPI_Get_elements_x / MPI_Get_count, on a status a receive
 * filled and on one the program made; errors for null pointers and negative counts. */
#include "check.h"

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  /* A receive's status read through the calls. */
  double out[3] = {1, 2, 3}, in[3];
  MPI_Status st;
  CHECK_MPI(MPI_Sendrecv(out, 3, MPI_DOUBLE, right, 40 + rank, in, 3, MPI_DOUBLE, left, MPI_ANY_TAG,
                         MPI_COMM_WORLD, &st));
  int source = -2, tag = -2, error = -2;
  CHECK_MPI(MPI_Status_get_source(&st, &source));
  CHECK_MPI(MPI_Status_get_tag(&st, &tag));
  CHECK_MPI(MPI_Status_get_error(&st, &error));
  CHECK(source == left && tag == 40 + left, "source %d tag %d", source, tag);
  CHECK(error == st.MPI_ERROR, "error %d, field %d", error, st.MPI_ERROR);

  /* A status the program makes (a generalized request's query function would). */
  MPI_Status made;
  CHECK_MPI(MPI_Status_set_source(&made, 3));
  CHECK_MPI(MPI_Status_set_tag(&made, 77));
  CHECK_MPI(MPI_Status_set_error(&made, MPI_ERR_TRUNCATE));
  CHECK_MPI(MPI_Status_set_cancelled(&made, 0));
  CHECK(made.MPI_SOURCE == 3 && made.MPI_TAG == 77 && made.MPI_ERROR == MPI_ERR_TRUNCATE,
        "set: source %d tag %d error %d", made.MPI_SOURCE, made.MPI_TAG, made.MPI_ERROR);
  const MPI_Count big = (MPI_Count)3 << 31; /* beyond an int */
  CHECK_MPI(MPI_Status_set_elements_x(&made, MPI_DOUBLE, big));
  MPI_Count elements = 0;
  CHECK_MPI(MPI_Get_elements_x(&made, MPI_DOUBLE, &elements));
  CHECK(elements == big, "elements_x %lld, set %lld", (long long)elements, (long long)big);
  int small = 0;
  CHECK_MPI(MPI_Get_count(&made, MPI_DOUBLE, &small));
  CHECK(small == MPI_UNDEFINED, "MPI_Get_count of %lld doubles gave %d", (long long)big, small);
  CHECK_MPI(MPI_Status_set_elements_x(&made, MPI_DOUBLE_INT, 5)); /* 2 pairs and a value */
  CHECK_MPI(MPI_Get_elements_x(&made, MPI_DOUBLE_INT, &elements));
  CHECK(elements == 5, "pair elements %lld", (long long)elements);
  CHECK_MPI(MPI_Status_set_elements(&made, MPI_INT, 9));
  CHECK_MPI(MPI_Get_count(&made, MPI_INT, &small));
  CHECK(small == 9, "MPI_Status_set_elements then MPI_Get_count: %d", small);

  /* Errors. */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  int cls = MPI_SUCCESS;
  MPI_Error_class(MPI_Status_set_elements_x(&made, MPI_INT, -1), &cls);
  CHECK(cls == MPI_ERR_COUNT, "a negative count gave class %d", cls);
  MPI_Error_class(MPI_Status_get_tag(NULL, &tag), &cls);
  CHECK(cls == MPI_ERR_ARG, "a null status gave class %d", cls);
  MPI_Error_class(MPI_Status_set_source(NULL, 1), &cls);
  CHECK(cls == MPI_ERR_ARG, "a null status (set) gave class %d", cls);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
