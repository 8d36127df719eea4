/* MPI_Get_elements / MPI_Get_elements_x count the basic elements (ints, doubles...) a receive got,
 * also when it ends inside an element of a derived type (MPI-3.1 3.2.5, 4.1.11): a value-index
 * pair holds two (its value and its int), a struct of mixed members one per member, and only a
 * message that ends inside a basic element gives MPI_UNDEFINED. Each rank sends to the next one
 * (to itself on one rank). */
#include <stddef.h>
#include <string.h>

#include "check.h"

static int rank, size;

/* Sends `scount` of `stype` from `sbuf` to the next rank, receives into `rcount` of `rtype` from
 * the previous one, and checks MPI_Get_elements, MPI_Get_elements_x and MPI_Get_count. */
static void expect_elements(const char* label, const void* sbuf, int scount, MPI_Datatype stype,
                            int rcount, MPI_Datatype rtype, int elements, int count) {
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  static char rbuf[4096];
  MPI_Request r;
  MPI_Status st;
  CHECK_MPI(MPI_Irecv(rbuf, rcount, rtype, prev, 3, MPI_COMM_WORLD, &r));
  CHECK_MPI(MPI_Send(sbuf, scount, stype, next, 3, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Wait(&r, &st));
  int n = -2;
  MPI_Count nx = -2;
  CHECK_MPI(MPI_Get_elements(&st, rtype, &n));
  CHECK(n == elements, "%s: MPI_Get_elements gives %d, expected %d", label, n, elements);
  CHECK_MPI(MPI_Get_elements_x(&st, rtype, &nx));
  CHECK(nx == elements, "%s: MPI_Get_elements_x gives %lld, expected %d", label, (long long)nx,
        elements);
  CHECK_MPI(MPI_Get_count(&st, rtype, &n));
  CHECK(n == count, "%s: MPI_Get_count gives %d, expected %d", label, n, count);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* struct {double, int, double, int} received as 2 x MPI_DOUBLE_INT: four basic elements; its
   * first three ({double, int, double}) received the same way: three, one pair and a part. */
  struct di {
    double d;
    int i;
  } pairs[2] = {{1.5, 1}, {2.5, 2}};
  int lengths[4] = {1, 1, 1, 1};
  MPI_Aint displs[4] = {offsetof(struct di, d), offsetof(struct di, i),
                        sizeof(struct di) + offsetof(struct di, d),
                        sizeof(struct di) + offsetof(struct di, i)};
  MPI_Datatype members[4] = {MPI_DOUBLE, MPI_INT, MPI_DOUBLE, MPI_INT};
  MPI_Datatype four, three;
  CHECK_MPI(MPI_Type_create_struct(4, lengths, displs, members, &four));
  CHECK_MPI(MPI_Type_create_struct(3, lengths, displs, members, &three));
  CHECK_MPI(MPI_Type_commit(&four));
  CHECK_MPI(MPI_Type_commit(&three));
  expect_elements("{double, int, double, int} as 2 x MPI_DOUBLE_INT", pairs, 1, four, 2,
                  MPI_DOUBLE_INT, 4, 2);
  expect_elements("{double, int, double} as 2 x MPI_DOUBLE_INT", pairs, 1, three, 2, MPI_DOUBLE_INT,
                  3, MPI_UNDEFINED);
  expect_elements("2 x MPI_DOUBLE_INT as 2 x MPI_DOUBLE_INT", pairs, 2, MPI_DOUBLE_INT, 2,
                  MPI_DOUBLE_INT, 4, 2);
  int ints[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  expect_elements("3 x MPI_INT as 2 x MPI_2INT", ints, 3, MPI_INT, 2, MPI_2INT, 3, MPI_UNDEFINED);

  /* A derived type of mixed members received in part: {int, double, short} x 2 (6 basic
   * elements, 14 bytes each), of which 1 whole element and {int, double} arrive. */
  struct mixed {
    int i;
    double d;
    short s;
  } m[2] = {{1, 2.0, 3}, {4, 5.0, 6}};
  int ml[3] = {1, 1, 1};
  MPI_Aint md[3] = {offsetof(struct mixed, i), offsetof(struct mixed, d),
                    offsetof(struct mixed, s)};
  MPI_Datatype mt[3] = {MPI_INT, MPI_DOUBLE, MPI_SHORT};
  MPI_Datatype mixed_type, mixed_pair;
  CHECK_MPI(MPI_Type_create_struct(3, ml, md, mt, &mixed_type));
  CHECK_MPI(MPI_Type_contiguous(2, mixed_type, &mixed_pair));
  CHECK_MPI(MPI_Type_commit(&mixed_type));
  CHECK_MPI(MPI_Type_commit(&mixed_pair));
  /* 26 bytes: {int, double, short} then {int, double}, sent as bytes. */
  char packed[64];
  int position = 0;
  CHECK_MPI(MPI_Pack(m, 2, mixed_type, packed, sizeof packed, &position, MPI_COMM_WORLD));
  CHECK(position == 28, "test bug: {int, double, short} packs to %d bytes, not 14 each", position);
  expect_elements("26 bytes as 2 x {int, double, short}", packed, 26, MPI_BYTE, 2, mixed_type, 5,
                  MPI_UNDEFINED);
  expect_elements("26 bytes as contiguous(2, {int, double, short})", packed, 26, MPI_BYTE, 1,
                  mixed_pair, 5, MPI_UNDEFINED);
  expect_elements("28 bytes as 2 x {int, double, short}", packed, 28, MPI_BYTE, 2, mixed_type, 6,
                  2);
  /* Ending inside a basic element (the double) is undefined. */
  expect_elements("20 bytes as 2 x {int, double, short}", packed, 20, MPI_BYTE, 2, mixed_type,
                  MPI_UNDEFINED, MPI_UNDEFINED);
  /* A vector of ints received in part: 5 of its 6 ints. */
  MPI_Datatype vector;
  CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_INT, &vector));
  CHECK_MPI(MPI_Type_commit(&vector));
  expect_elements("5 ints as 1 x vector(3, 2, 4, int)", ints, 5, MPI_INT, 1, vector, 5,
                  MPI_UNDEFINED);
  /* Pairs inside a derived type: contiguous(2, MPI_SHORT_INT) receiving 3 shorts' and ints'
   * worth: {short, int, short} = 3 elements. */
  struct si {
    short s;
    int i;
  } sp[2] = {{1, 2}, {3, 4}};
  MPI_Datatype two_si, si3;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_SHORT_INT, &two_si));
  CHECK_MPI(MPI_Type_commit(&two_si));
  int sl[3] = {1, 1, 1};
  MPI_Aint sd[3] = {offsetof(struct si, s), offsetof(struct si, i),
                    sizeof(struct si) + offsetof(struct si, s)};
  MPI_Datatype st3[3] = {MPI_SHORT, MPI_INT, MPI_SHORT};
  CHECK_MPI(MPI_Type_create_struct(3, sl, sd, st3, &si3));
  CHECK_MPI(MPI_Type_commit(&si3));
  expect_elements("{short, int, short} as contiguous(2, MPI_SHORT_INT)", sp, 1, si3, 1, two_si, 3,
                  MPI_UNDEFINED);
  expect_elements("2 x MPI_SHORT_INT as contiguous(2, MPI_SHORT_INT)", sp, 2, MPI_SHORT_INT, 1,
                  two_si, 4, 1);

  /* MPI_Status_set_elements counts basic elements too: 3 of MPI_DOUBLE_INT are a pair and a
   * value. */
  MPI_Status set;
  int got = -1;
  CHECK_MPI(MPI_Status_set_elements(&set, MPI_DOUBLE_INT, 3));
  CHECK_MPI(MPI_Get_elements(&set, MPI_DOUBLE_INT, &got));
  CHECK(got == 3, "MPI_Status_set_elements(3, MPI_DOUBLE_INT): MPI_Get_elements gives %d", got);
  CHECK_MPI(MPI_Get_count(&set, MPI_DOUBLE_INT, &got));
  CHECK(got == MPI_UNDEFINED, "MPI_Status_set_elements(3, MPI_DOUBLE_INT): MPI_Get_count gives %d",
        got);
  CHECK_MPI(MPI_Status_set_elements(&set, two_si, 4));
  CHECK_MPI(MPI_Get_count(&set, two_si, &got));
  CHECK(got == 1, "MPI_Status_set_elements(4, 2 x MPI_SHORT_INT): MPI_Get_count gives %d", got);

  MPI_Type_free(&four);
  MPI_Type_free(&three);
  MPI_Type_free(&mixed_type);
  MPI_Type_free(&mixed_pair);
  MPI_Type_free(&vector);
  MPI_Type_free(&two_si);
  MPI_Type_free(&si3);
  CHECK_MPI(MPI_Finalize());
  return 0;
}
