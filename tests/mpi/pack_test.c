/* MPI_Pack, MPI_Unpack and MPI_Pack_size: the packed bytes of vector, indexed, struct, resized
 * and subarray data against a packing done by hand, unpacking back with the gaps of the buffer
 * untouched, a matrix transposed by a vector-of-columns type (packed, unpacked and sent), several
 * packs into one buffer, packed data sent as MPI_PACKED and received typed (and the other way
 * round), and the error classes of bad arguments. */
#include <stddef.h>
#include <string.h>

#include "check.h"

#define SENTINEL (-7777)

static int rank, size;

/* Packs `count` elements of `t` from `in` and compares with `expected` (`bytes` long); unpacks
 * them into `out` (filled with SENTINEL ints first) and checks that the ints at the positions
 * `is_data` names equal those of `in` and all the others are still SENTINEL. */
static void round_trip(int line, const int* in, int ints, int count, MPI_Datatype t,
                       const void* expected, int bytes, int (*is_data)(int)) {
  int pack_size = -1;
  CHECK_MPI(MPI_Pack_size(count, t, MPI_COMM_WORLD, &pack_size));
  CHECK(pack_size == bytes, "line %d: MPI_Pack_size %d, expected %d", line, pack_size, bytes);
  char packed[4096];
  int position = 0;
  CHECK_MPI(MPI_Pack(in, count, t, packed, sizeof packed, &position, MPI_COMM_WORLD));
  CHECK(position == bytes, "line %d: packed %d bytes, expected %d", line, position, bytes);
  for (int b = 0; b < bytes; ++b) {
    CHECK(packed[b] == ((const char*)expected)[b], "line %d: packed byte %d is 0x%x, expected 0x%x",
          line, b, (unsigned char)packed[b], (unsigned char)((const char*)expected)[b]);
  }
  int out[1024];
  for (int i = 0; i < ints; ++i) out[i] = SENTINEL;
  position = 0;
  CHECK_MPI(MPI_Unpack(packed, bytes, &position, out, count, t, MPI_COMM_WORLD));
  CHECK(position == bytes, "line %d: unpacked %d bytes, expected %d", line, position, bytes);
  for (int i = 0; i < ints; ++i) {
    int expect = is_data(i) ? in[i] : SENTINEL;
    CHECK(out[i] == expect, "line %d: int %d is %d after unpacking, expected %d", line, i, out[i],
          expect);
  }
}

static void fill(int* a, int n, int salt) {
  for (int i = 0; i < n; ++i) a[i] = salt * 1000 + i;
}

/* vector(5, 3, 7) of ints, 2 elements: extent 4 * 7 + 3 = 31 ints. */
static int vector_data(int i) {
  return i < 62 && (i % 31) % 7 < 3;
}

static void vector(void) {
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_vector(5, 3, 7, MPI_INT, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  int in[70], expected[30], n = 0;
  fill(in, 70, 1);
  for (int e = 0; e < 2; ++e) {
    for (int b = 0; b < 5; ++b) {
      for (int k = 0; k < 3; ++k) expected[n++] = in[e * 31 + b * 7 + k];
    }
  }
  round_trip(__LINE__, in, 70, 2, t, expected, n * 4, vector_data);
  CHECK_MPI(MPI_Type_free(&t));
}

/* vector(3, 1, -2) of ints at &in[8]: type-map order is ints 8, 6, 4. */
static int negative_data(int i) {
  return i == 4 || i == 6 || i == 8;
}

static void negative_stride(void) {
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_vector(3, 1, -2, MPI_INT, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  int in[12];
  fill(in, 12, 2);
  char packed[12];
  int position = 0;
  CHECK_MPI(MPI_Pack(&in[8], 1, t, packed, sizeof packed, &position, MPI_COMM_WORLD));
  int got[3];
  memcpy(got, packed, sizeof got);
  CHECK(got[0] == in[8] && got[1] == in[6] && got[2] == in[4], "negative stride packed %d %d %d",
        got[0], got[1], got[2]);
  int out[12];
  for (int i = 0; i < 12; ++i) out[i] = SENTINEL;
  position = 0;
  CHECK_MPI(MPI_Unpack(packed, sizeof packed, &position, &out[8], 1, t, MPI_COMM_WORLD));
  for (int i = 0; i < 12; ++i) {
    int expect = negative_data(i) ? in[i] : SENTINEL;
    CHECK(out[i] == expect, "negative stride: int %d is %d, expected %d", i, out[i], expect);
  }
  CHECK_MPI(MPI_Type_free(&t));
}

/* indexed {3 at 4, 1 at 0, 2 at 9} of ints, 3 elements: extent 11 ints. */
static const int indexed_lengths[] = {3, 1, 2}, indexed_displacements[] = {4, 0, 9};
static int indexed_data(int i) {
  if (i >= 33) return 0;
  int within = i % 11;
  return (within >= 4 && within < 7) || within == 0 || within == 9 || within == 10;
}

static void indexed(void) {
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_indexed(3, indexed_lengths, indexed_displacements, MPI_INT, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  int in[40], expected[18], n = 0;
  fill(in, 40, 3);
  for (int e = 0; e < 3; ++e) {
    for (int b = 0; b < 3; ++b) {
      for (int k = 0; k < indexed_lengths[b]; ++k) {
        expected[n++] = in[e * 11 + indexed_displacements[b] + k];
      }
    }
  }
  round_trip(__LINE__, in, 40, 3, t, expected, n * 4, indexed_data);
  CHECK_MPI(MPI_Type_free(&t));
}

/* resized(contiguous(2) of ints, 0, 12 bytes), 3 elements: ints 0, 1, 3, 4, 6, 7. */
static int resized_data(int i) {
  return i < 9 && i % 3 < 2;
}

static void resized(void) {
  MPI_Datatype pair, t;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
  CHECK_MPI(MPI_Type_create_resized(pair, 0, 12, &t));
  CHECK_MPI(MPI_Type_free(&pair));
  CHECK_MPI(MPI_Type_commit(&t));
  int in[10];
  fill(in, 10, 4);
  int expected[] = {in[0], in[1], in[3], in[4], in[6], in[7]};
  round_trip(__LINE__, in, 10, 3, t, expected, sizeof expected, resized_data);
  CHECK_MPI(MPI_Type_free(&t));
}

/* 3-D subarrays of ints, both orders, against index loops. */
enum { D0 = 4, D1 = 5, D2 = 6 };
static const int sub_sizes[] = {D0, D1, D2}, sub_subsizes[] = {2, 3, 4}, sub_starts[] = {1, 1, 2};
static int c_order_data(int i) {
  int a = i / (D1 * D2), b = i / D2 % D1, c = i % D2;
  return i < D0 * D1 * D2 && a >= 1 && a < 3 && b >= 1 && b < 4 && c >= 2 && c < 6;
}
/* Fortran order: dimension 0 varies fastest, element (a, b, c) at a + D0 * (b + D1 * c). */
static int fortran_order_data(int i) {
  int a = i % D0, b = i / D0 % D1, c = i / (D0 * D1);
  return i < D0 * D1 * D2 && a >= 1 && a < 3 && b >= 1 && b < 4 && c >= 2 && c < 6;
}

static void subarrays(void) {
  int in[D0 * D1 * D2 + 8], expected[24], n = 0;
  fill(in, D0 * D1 * D2 + 8, 5);
  MPI_Datatype t;
  CHECK_MPI(
      MPI_Type_create_subarray(3, sub_sizes, sub_subsizes, sub_starts, MPI_ORDER_C, MPI_INT, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  for (int a = 1; a < 3; ++a) {
    for (int b = 1; b < 4; ++b) {
      for (int c = 2; c < 6; ++c) expected[n++] = in[(a * D1 + b) * D2 + c];
    }
  }
  round_trip(__LINE__, in, D0 * D1 * D2 + 8, 1, t, expected, n * 4, c_order_data);
  CHECK_MPI(MPI_Type_free(&t));

  n = 0;
  CHECK_MPI(MPI_Type_create_subarray(3, sub_sizes, sub_subsizes, sub_starts, MPI_ORDER_FORTRAN,
                                     MPI_INT, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  for (int c = 2; c < 6; ++c) {
    for (int b = 1; b < 4; ++b) {
      for (int a = 1; a < 3; ++a) expected[n++] = in[a + D0 * (b + D1 * c)];
    }
  }
  round_trip(__LINE__, in, D0 * D1 * D2 + 8, 1, t, expected, n * 4, fortran_order_data);
  CHECK_MPI(MPI_Type_free(&t));
}

struct item {
  char name[3];
  int id;
  double values[2];
};

static MPI_Datatype item_type(void) {
  int bl[] = {3, 1, 2};
  MPI_Aint disp[] = {offsetof(struct item, name), offsetof(struct item, id),
                     offsetof(struct item, values)};
  MPI_Datatype types[] = {MPI_CHAR, MPI_INT, MPI_DOUBLE}, t;
  CHECK_MPI(MPI_Type_create_struct(3, bl, disp, types, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  return t;
}

static void structs(void) {
  enum { n = 4, data = 3 + 4 + 16 };
  MPI_Datatype t = item_type();
  struct item in[n], out[n];
  memset(in, 0x5A, sizeof in);
  char expected[n * data];
  for (int i = 0; i < n; ++i) {
    memcpy(in[i].name, "xyz", 3);
    in[i].name[0] = (char)('a' + i);
    in[i].id = 100 + i;
    in[i].values[0] = i * 1.5;
    in[i].values[1] = -i;
    memcpy(expected + i * data, in[i].name, 3);
    memcpy(expected + i * data + 3, &in[i].id, 4);
    memcpy(expected + i * data + 7, in[i].values, 16);
  }
  int pack_size = -1;
  CHECK_MPI(MPI_Pack_size(n, t, MPI_COMM_WORLD, &pack_size));
  CHECK(pack_size == n * data, "struct pack size %d", pack_size);
  char packed[n * data];
  int position = 0;
  CHECK_MPI(MPI_Pack(in, n, t, packed, sizeof packed, &position, MPI_COMM_WORLD));
  CHECK(position == n * data && memcmp(packed, expected, sizeof packed) == 0,
        "struct packed %d bytes, or not the expected ones", position);
  memset(out, 0xC3, sizeof out);
  position = 0;
  CHECK_MPI(MPI_Unpack(packed, sizeof packed, &position, out, n, t, MPI_COMM_WORLD));
  const unsigned char* bytes = (const unsigned char*)out;
  for (size_t b = 0; b < sizeof out; ++b) {
    size_t at = b % sizeof(struct item);
    int member = at < 3 ||
                 (at >= offsetof(struct item, id) && at < offsetof(struct item, id) + 4) ||
                 at >= offsetof(struct item, values);
    unsigned char expect = member ? ((const unsigned char*)in)[b] : 0xC3;
    CHECK(bytes[b] == expect, "struct unpacked byte %zu is 0x%x, expected 0x%x", b, bytes[b],
          expect);
  }
  CHECK_MPI(MPI_Type_free(&t));
}

/* Several packs into one buffer, unpacked in the same order. */
static void sequence(void) {
  MPI_Datatype v, s = item_type();
  CHECK_MPI(MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &v));
  CHECK_MPI(MPI_Type_commit(&v));
  double d[4] = {1.25, 2.5, 3.75, 5.0};
  struct item it;
  memset(&it, 0, sizeof it);
  memcpy(it.name, "abc", 3);
  it.id = 77;
  it.values[0] = 0.5;
  it.values[1] = 0.25;
  int ints[5] = {9, 8, 7, 6, 5};
  int total = 0, part;
  CHECK_MPI(MPI_Pack_size(1, v, MPI_COMM_WORLD, &part));
  total += part;
  CHECK_MPI(MPI_Pack_size(1, s, MPI_COMM_WORLD, &part));
  total += part;
  CHECK_MPI(MPI_Pack_size(5, MPI_INT, MPI_COMM_WORLD, &part));
  total += part;
  CHECK(total == 16 + 23 + 20, "packed sizes add up to %d", total);
  char buf[64];
  int position = 0;
  CHECK_MPI(MPI_Pack(d, 1, v, buf, sizeof buf, &position, MPI_COMM_WORLD));
  CHECK(position == 16, "position %d after the vector", position);
  CHECK_MPI(MPI_Pack(&it, 1, s, buf, sizeof buf, &position, MPI_COMM_WORLD));
  CHECK(position == 39, "position %d after the struct", position);
  CHECK_MPI(MPI_Pack(ints, 5, MPI_INT, buf, sizeof buf, &position, MPI_COMM_WORLD));
  CHECK(position == total, "position %d after the ints", position);
  /* No room left for one more int. */
  CHECK_ERR(MPI_Pack(ints, 2, MPI_INT, buf, total + 4, &position, MPI_COMM_WORLD),
            MPI_ERR_TRUNCATE);

  double d2[4] = {0, 0, 0, 0};
  struct item it2;
  memset(&it2, 0, sizeof it2);
  int ints2[5] = {0};
  position = 0;
  CHECK_MPI(MPI_Unpack(buf, total, &position, d2, 1, v, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Unpack(buf, total, &position, &it2, 1, s, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Unpack(buf, total, &position, ints2, 5, MPI_INT, MPI_COMM_WORLD));
  CHECK(position == total, "unpacked to position %d", position);
  CHECK(d2[0] == 1.25 && d2[1] == 0 && d2[2] == 0 && d2[3] == 5.0, "vector %g %g %g %g", d2[0],
        d2[1], d2[2], d2[3]);
  CHECK(memcmp(&it, &it2, sizeof it) == 0, "struct differs after the round trip");
  CHECK(memcmp(ints, ints2, sizeof ints) == 0, "ints differ after the round trip");
  /* Nothing left to unpack. */
  CHECK_ERR(MPI_Unpack(buf, total, &position, ints2, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
  CHECK_MPI(MPI_Type_free(&v));
  CHECK_MPI(MPI_Type_free(&s));
}

/* A matrix transposed by its datatype alone: a column (a vector of one int per row) repeated
 * across the columns, one int apart, describes the matrix column by column, so packing with it
 * and unpacking as plain ints writes the transpose, and so does unpacking plain ints into it. Two
 * ways to put the columns one int apart: an hvector of columns with a stride of sizeof(int), and a
 * column resized to an extent of one int, repeated contiguously. The matrix is not square, so rows
 * and columns mixed up show; the transpose also travels as a message received into the type. */
enum { T_ROWS = 37, T_COLS = 23 };
static int entry(int r, int c) {
  return r * 1000 + c;
}
static void expect_transposed(int line, const int* t, const char* how) {
  for (int c = 0; c < T_COLS; ++c)
    for (int r = 0; r < T_ROWS; ++r)
      CHECK(t[c * T_ROWS + r] == entry(r, c),
            "line %d, %s: transposed[%d][%d] is %d, expected %d (the matrix's [%d][%d])", line, how,
            c, r, t[c * T_ROWS + r], entry(r, c), r, c);
}
static void transpose(void) {
  MPI_Datatype column, resized_column, by_hvector, by_resize;
  CHECK_MPI(MPI_Type_vector(T_ROWS, 1, T_COLS, MPI_INT, &column));
  CHECK_MPI(MPI_Type_create_hvector(T_COLS, 1, (MPI_Aint)sizeof(int), column, &by_hvector));
  CHECK_MPI(MPI_Type_create_resized(column, 0, (MPI_Aint)sizeof(int), &resized_column));
  CHECK_MPI(MPI_Type_contiguous(T_COLS, resized_column, &by_resize));
  CHECK_MPI(MPI_Type_commit(&by_hvector));
  CHECK_MPI(MPI_Type_commit(&by_resize));
  static int matrix[T_ROWS * T_COLS], t[T_ROWS * T_COLS + 1];
  for (int r = 0; r < T_ROWS; ++r)
    for (int c = 0; c < T_COLS; ++c) matrix[r * T_COLS + c] = entry(r, c);
  const MPI_Datatype types[2] = {by_hvector, by_resize};
  const char* names[2] = {"hvector of columns", "resized column, contiguous"};
  const int bytes = (int)sizeof matrix;
  static char packed[sizeof matrix + 16];
  for (int k = 0; k < 2; ++k) {
    MPI_Count type_size = 0;
    CHECK_MPI(MPI_Type_size_x(types[k], &type_size));
    CHECK(type_size == bytes, "%s: size %lld, expected %d", names[k], (long long)type_size, bytes);
    int pack_size = -1, position = 0;
    CHECK_MPI(MPI_Pack_size(1, types[k], MPI_COMM_WORLD, &pack_size));
    CHECK(pack_size >= bytes, "%s: pack size %d below the %d bytes", names[k], pack_size, bytes);
    /* Pack through the type, unpack as ints: the transpose. */
    CHECK_MPI(MPI_Pack(matrix, 1, types[k], packed, (int)sizeof packed, &position, MPI_COMM_WORLD));
    CHECK(position == bytes, "%s: packed %d bytes, expected %d", names[k], position, bytes);
    for (int i = 0; i <= T_ROWS * T_COLS; ++i) t[i] = SENTINEL;
    const int used = position;
    position = 0;
    CHECK_MPI(MPI_Unpack(packed, used, &position, t, T_ROWS * T_COLS, MPI_INT, MPI_COMM_WORLD));
    expect_transposed(__LINE__, t, names[k]);
    CHECK(t[T_ROWS * T_COLS] == SENTINEL, "%s: unpacking wrote past the matrix", names[k]);
    /* Pack as ints, unpack through the type: the transpose again. */
    position = 0;
    CHECK_MPI(MPI_Pack(matrix, T_ROWS * T_COLS, MPI_INT, packed, (int)sizeof packed, &position,
                       MPI_COMM_WORLD));
    for (int i = 0; i <= T_ROWS * T_COLS; ++i) t[i] = SENTINEL;
    position = 0;
    CHECK_MPI(MPI_Unpack(packed, bytes, &position, t, 1, types[k], MPI_COMM_WORLD));
    /* t now holds, at row-major place (r, c) of a T_ROWS x T_COLS matrix, element c * T_ROWS + r
     * of the source: read it back as such. */
    for (int r = 0; r < T_ROWS; ++r)
      for (int c = 0; c < T_COLS; ++c) {
        const int src = c * T_ROWS + r;
        CHECK(t[r * T_COLS + c] == matrix[src],
              "%s: unpacking into the type put %d at [%d][%d], expected element %d (%d)", names[k],
              t[r * T_COLS + c], r, c, src, matrix[src]);
      }
    /* Sent through the type around the ring and received as ints: the transpose arrives. */
    const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int i = 0; i <= T_ROWS * T_COLS; ++i) t[i] = SENTINEL;
    CHECK_MPI(MPI_Sendrecv(matrix, 1, types[k], next, 20 + k, t, T_ROWS * T_COLS, MPI_INT, prev,
                           20 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    expect_transposed(__LINE__, t, names[k]);
  }
  CHECK_MPI(MPI_Type_free(&by_hvector));
  CHECK_MPI(MPI_Type_free(&by_resize));
  CHECK_MPI(MPI_Type_free(&resized_column));
  CHECK_MPI(MPI_Type_free(&column));
}

/* Packed data travels as MPI_PACKED and is received with the type itself, and the other way. */
static void packed_messages(void) {
  int next = (rank + 1) % size, previous = (rank + size - 1) % size;
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_vector(5, 3, 7, MPI_INT, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  int in[70], out[70];
  fill(in, 70, rank);
  char packed[120];
  int position = 0;
  CHECK_MPI(MPI_Pack(in, 2, t, packed, sizeof packed, &position, MPI_COMM_WORLD));
  CHECK(position == 120, "packed %d bytes", position);

  for (int i = 0; i < 70; ++i) out[i] = SENTINEL;
  CHECK_MPI(MPI_Sendrecv(packed, position, MPI_PACKED, next, 3, out, 2, t, previous, 3,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  for (int i = 0; i < 70; ++i) {
    int expect = vector_data(i) ? previous * 1000 + i : SENTINEL;
    CHECK(out[i] == expect, "typed receive of packed data: int %d is %d, expected %d", i, out[i],
          expect);
  }

  char received[120];
  MPI_Status status;
  CHECK_MPI(MPI_Sendrecv(in, 2, t, next, 4, received, sizeof received, MPI_PACKED, previous, 4,
                         MPI_COMM_WORLD, &status));
  int count = -1;
  CHECK_MPI(MPI_Get_count(&status, MPI_PACKED, &count));
  CHECK(count == 120, "received %d packed bytes", count);
  for (int i = 0; i < 70; ++i) out[i] = SENTINEL;
  position = 0;
  CHECK_MPI(MPI_Unpack(received, count, &position, out, 2, t, MPI_COMM_WORLD));
  for (int i = 0; i < 70; ++i) {
    int expect = vector_data(i) ? previous * 1000 + i : SENTINEL;
    CHECK(out[i] == expect, "unpacked message: int %d is %d, expected %d", i, out[i], expect);
  }
  CHECK_MPI(MPI_Type_free(&t));
}

static void bad_arguments(void) {
  int in[8] = {0}, position = 0, pack_size = 0;
  char out[64];
  MPI_Datatype uncommitted;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &uncommitted));
  CHECK_ERR(MPI_Pack(in, 1, uncommitted, out, sizeof out, &position, MPI_COMM_WORLD), MPI_ERR_TYPE);
  CHECK_ERR(MPI_Pack_size(1, uncommitted, MPI_COMM_WORLD, &pack_size), MPI_ERR_TYPE);
  CHECK_MPI(MPI_Type_free(&uncommitted));
  CHECK_ERR(MPI_Pack(in, -1, MPI_INT, out, sizeof out, &position, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_ERR(MPI_Pack(in, 1, MPI_DATATYPE_NULL, out, sizeof out, &position, MPI_COMM_WORLD),
            MPI_ERR_TYPE);
  CHECK_ERR(MPI_Pack(in, 8, MPI_INT, out, 31, &position, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
  CHECK(position == 0, "a failed MPI_Pack moved position to %d", position);
  position = 40;
  CHECK_ERR(MPI_Pack(in, 1, MPI_INT, out, 32, &position, MPI_COMM_WORLD), MPI_ERR_ARG);
  position = 0;
  CHECK_ERR(MPI_Pack(in, 1, MPI_INT, out, sizeof out, &position, MPI_COMM_NULL), MPI_ERR_COMM);
  CHECK_ERR(MPI_Unpack(out, 12, &position, in, 4, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
  CHECK_ERR(MPI_Unpack(out, 12, &position, in, -2, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_ERR(MPI_Pack_size(-1, MPI_INT, MPI_COMM_WORLD, &pack_size), MPI_ERR_COUNT);
  /* More than an int can count: 2^31 bytes. */
  MPI_Datatype big;
  CHECK_MPI(MPI_Type_contiguous(1 << 20, MPI_CHAR, &big));
  CHECK_MPI(MPI_Type_commit(&big));
  CHECK_ERR(MPI_Pack_size(1 << 11, big, MPI_COMM_WORLD, &pack_size), MPI_ERR_COUNT);
  CHECK_MPI(MPI_Type_free(&big));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  vector();
  negative_stride();
  indexed();
  resized();
  subarrays();
  structs();
  transpose();
  sequence();
  packed_messages();
  bad_arguments();
  MPI_Finalize();
  return 0;
}
