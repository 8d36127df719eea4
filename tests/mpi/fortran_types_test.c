/* The Fortran datatypes from C: sizes, names, reductions (sum of INTEGER, REAL, DOUBLE PRECISION,
 * COMPLEX; logical and of LOGICAL; MAXLOC of 2INTEGER), CHARACTER text between ranks, handle
 * conversion, and the optional kinds this platform lacks (MPI_DATATYPE_NULL). Then the selected
 * kinds of MPI_Type_create_f90_integer / _real / _complex: sizes, envelopes, the same handle for
 * the same selection, communication and a reduction with them, and the errors. */
#include <complex.h>
#include <string.h>

#include "check.h"

static int rank, size;

static void sizes(void) {
  static const struct {
    MPI_Datatype t;
    int bytes;
    const char* name;
  } expect[] = {
      {MPI_INTEGER, 4, "MPI_INTEGER"},
      {MPI_REAL, 4, "MPI_REAL"},
      {MPI_DOUBLE_PRECISION, 8, "MPI_DOUBLE_PRECISION"},
      {MPI_COMPLEX, 8, "MPI_COMPLEX"},
      {MPI_DOUBLE_COMPLEX, 16, "MPI_DOUBLE_COMPLEX"},
      {MPI_LOGICAL, 4, "MPI_LOGICAL"},
      {MPI_CHARACTER, 1, "MPI_CHARACTER"},
      {MPI_INTEGER1, 1, "MPI_INTEGER1"},
      {MPI_INTEGER2, 2, "MPI_INTEGER2"},
      {MPI_INTEGER4, 4, "MPI_INTEGER4"},
      {MPI_INTEGER8, 8, "MPI_INTEGER8"},
      {MPI_REAL4, 4, "MPI_REAL4"},
      {MPI_REAL8, 8, "MPI_REAL8"},
      {MPI_COMPLEX8, 8, "MPI_COMPLEX8"},
      {MPI_COMPLEX16, 16, "MPI_COMPLEX16"},
      {MPI_CXX_FLOAT_COMPLEX, 8, "MPI_CXX_FLOAT_COMPLEX"},
      {MPI_CXX_DOUBLE_COMPLEX, 16, "MPI_CXX_DOUBLE_COMPLEX"},
      {MPI_CXX_LONG_DOUBLE_COMPLEX, (int)sizeof(long double _Complex),
       "MPI_CXX_LONG_DOUBLE_COMPLEX"},
      {MPI_2INTEGER, 8, "MPI_2INTEGER"},
  };
  for (size_t i = 0; i < sizeof expect / sizeof expect[0]; ++i) {
    int bytes = -1, len = 0;
    char name[MPI_MAX_OBJECT_NAME];
    CHECK_MPI(MPI_Type_size(expect[i].t, &bytes));
    CHECK(bytes == expect[i].bytes, "%s: %d bytes, not %d", expect[i].name, bytes, expect[i].bytes);
    CHECK_MPI(MPI_Type_get_name(expect[i].t, name, &len));
    CHECK(strcmp(name, expect[i].name) == 0, "%s is named \"%s\"", expect[i].name, name);
    const MPI_Fint f = MPI_Type_c2f(expect[i].t);
    CHECK(MPI_Type_f2c(f) == expect[i].t, "%s: c2f/f2c does not come back", expect[i].name);
    for (size_t j = 0; j < i; ++j)
      CHECK(expect[j].t != expect[i].t, "%s and %s are one handle", expect[j].name, expect[i].name);
  }
  CHECK(MPI_REAL16 == MPI_DATATYPE_NULL && MPI_COMPLEX32 == MPI_DATATYPE_NULL &&
            MPI_INTEGER16 == MPI_DATATYPE_NULL && MPI_REAL2 == MPI_DATATYPE_NULL &&
            MPI_COMPLEX4 == MPI_DATATYPE_NULL,
        "an optional kind without a C counterpart is not MPI_DATATYPE_NULL");
}

static void reductions(void) {
  int isum = 0;
  const int ione = rank + 1;
  CHECK_MPI(MPI_Allreduce(&ione, &isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD));
  CHECK(isum == size * (size + 1) / 2, "INTEGER sum %d", isum);
  float rsum = 0;
  const float rone = 0.5f * (float)(rank + 1);
  CHECK_MPI(MPI_Allreduce(&rone, &rsum, 1, MPI_REAL, MPI_SUM, MPI_COMM_WORLD));
  CHECK(rsum == 0.25f * (float)(size * (size + 1)), "REAL sum %g", (double)rsum);
  double dsum = 0;
  const double done = 0.25 * (rank + 1);
  CHECK_MPI(MPI_Allreduce(&done, &dsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD));
  CHECK(dsum == 0.125 * size * (size + 1), "DOUBLE PRECISION sum %g", dsum);
  float _Complex csum = 0, cone = (float)rank + 2.0f * I;
  CHECK_MPI(MPI_Allreduce(&cone, &csum, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
  CHECK(crealf(csum) == (float)(size * (size - 1) / 2) && cimagf(csum) == 2.0f * (float)size,
        "COMPLEX sum %g%+gi", (double)crealf(csum), (double)cimagf(csum));
  int all_true = -1, mine = rank != size - 1 || size == 1; /* false on the last rank */
  CHECK_MPI(MPI_Allreduce(&mine, &all_true, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD));
  CHECK((all_true != 0) == (size == 1), "LOGICAL and: %d", all_true);
  int pair[2] = {(rank * 7) % size, rank}, best[2];
  CHECK_MPI(MPI_Allreduce(pair, best, 1, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD));
  int want = -1, at = -1;
  for (int r = 0; r < size; ++r) {
    if ((r * 7) % size > want) {
      want = (r * 7) % size;
      at = r;
    }
  }
  CHECK(best[0] == want && best[1] == at, "2INTEGER maxloc (%d, %d), not (%d, %d)", best[0],
        best[1], want, at);
}

static void characters(void) {
  char text[32] = "", mine[32];
  snprintf(mine, sizeof mine, "rank %d", rank);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  CHECK_MPI(MPI_Sendrecv(mine, 32, MPI_CHARACTER, right, 0, text, 32, MPI_CHARACTER, left, 0,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  char want[32];
  snprintf(want, sizeof want, "rank %d", left);
  CHECK(strcmp(text, want) == 0, "CHARACTER: \"%s\"", text);
}

static void selected_kinds(void) {
  MPI_Datatype i9, i9_again, i3, r15, c6;
  CHECK_MPI(MPI_Type_create_f90_integer(9, &i9));
  CHECK_MPI(MPI_Type_create_f90_integer(9, &i9_again));
  CHECK_MPI(MPI_Type_create_f90_integer(3, &i3));
  CHECK_MPI(MPI_Type_create_f90_real(15, MPI_UNDEFINED, &r15));
  CHECK_MPI(MPI_Type_create_f90_complex(6, 37, &c6));
  CHECK(i9 == i9_again, "two selections of range 9 gave two handles");
  int bytes;
  CHECK_MPI(MPI_Type_size(i9, &bytes));
  CHECK(bytes == 4, "integer range 9: %d bytes", bytes);
  CHECK_MPI(MPI_Type_size(i3, &bytes));
  CHECK(bytes == 2, "integer range 3: %d bytes", bytes);
  CHECK_MPI(MPI_Type_size(r15, &bytes));
  CHECK(bytes == 8, "real precision 15: %d bytes", bytes);
  CHECK_MPI(MPI_Type_size(c6, &bytes));
  CHECK(bytes == 8, "complex precision 6: %d bytes", bytes);
  int ni, na, nd, combiner, ints[2];
  CHECK_MPI(MPI_Type_get_envelope(i9, &ni, &na, &nd, &combiner));
  CHECK(combiner == MPI_COMBINER_F90_INTEGER && ni == 1 && na == 0 && nd == 0,
        "integer envelope: combiner %d, %d %d %d", combiner, ni, na, nd);
  CHECK_MPI(MPI_Type_get_contents(i9, 1, 0, 0, ints, NULL, NULL));
  CHECK(ints[0] == 9, "integer contents: r %d", ints[0]);
  CHECK_MPI(MPI_Type_get_envelope(r15, &ni, &na, &nd, &combiner));
  CHECK(combiner == MPI_COMBINER_F90_REAL && ni == 2, "real envelope: combiner %d ni %d", combiner,
        ni);
  CHECK_MPI(MPI_Type_get_contents(r15, 2, 0, 0, ints, NULL, NULL));
  CHECK(ints[0] == 15 && ints[1] == MPI_UNDEFINED, "real contents: p %d r %d", ints[0], ints[1]);
  CHECK_MPI(MPI_Type_get_envelope(c6, &ni, &na, &nd, &combiner));
  CHECK(combiner == MPI_COMBINER_F90_COMPLEX && ni == 2, "complex envelope: combiner %d", combiner);

  /* Communication and a reduction with a selected kind. */
  double value = rank + 0.5, sum = 0;
  CHECK_MPI(MPI_Allreduce(&value, &sum, 1, r15, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == size * size / 2.0, "sum over a selected real kind: %g", sum);
  int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1, out = rank;
  CHECK_MPI(
      MPI_Sendrecv(&out, 1, i9, right, 1, &got, 1, i9, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(got == left, "selected integer kind between ranks: %d", got);

  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Datatype none;
  int cls = MPI_SUCCESS;
  MPI_Error_class(MPI_Type_create_f90_integer(40, &none), &cls);
  CHECK(cls == MPI_ERR_ARG, "an integer range of 40 gave class %d", cls);
  MPI_Error_class(MPI_Type_create_f90_real(40, MPI_UNDEFINED, &none), &cls);
  CHECK(cls == MPI_ERR_ARG, "a real precision of 40 gave class %d", cls);
  MPI_Error_class(MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &none), &cls);
  CHECK(cls == MPI_ERR_ARG, "p and r both undefined gave class %d", cls);
  MPI_Datatype freed = i9;
  MPI_Error_class(MPI_Type_free(&freed), &cls);
  CHECK(cls == MPI_ERR_TYPE, "freeing a selected kind gave class %d", cls);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  sizes();
  reductions();
  characters();
  selected_kinds();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
