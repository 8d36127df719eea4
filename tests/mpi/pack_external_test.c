/* MPI_Pack_external, MPI_Unpack_external and MPI_Pack_external_size in "external32": the exact
 * big-endian bytes of values of each kind of predefined type (MPI_LONG in 4 bytes, MPI_WCHAR in 2,
 * MPI_LONG_DOUBLE as an IEEE quad, pairs and complex numbers as their parts), the sizes, round
 * trips of derived types with gaps, several packs into one buffer, a buffer packed on rank 0 and
 * unpacked on every other rank, and the errors: another datarep, too small a buffer, a value that
 * external32 cannot hold. */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <wchar.h>

#include "check.h"

static int rank, size;

/* Packs `count` of `t` at `in` and compares the bytes with the `n` bytes of `expected` (and the
 * size MPI_Pack_external_size gives with n); nothing past them may be written. */
static void image(int line, const void* in, int count, MPI_Datatype t,
                  const unsigned char* expected, int n) {
  MPI_Aint size_needed = -1, position = 0;
  CHECK_MPI(MPI_Pack_external_size("external32", count, t, &size_needed));
  CHECK(size_needed == n, "line %d: MPI_Pack_external_size %ld, expected %d", line,
        (long)size_needed, n);
  unsigned char packed[128];
  memset(packed, 0xa5, sizeof packed);
  CHECK_MPI(MPI_Pack_external("external32", in, count, t, packed, sizeof packed, &position));
  CHECK(position == n, "line %d: position %ld after packing, expected %d", line, (long)position, n);
  for (int i = 0; i < n; ++i) {
    CHECK(packed[i] == expected[i], "line %d: byte %d is 0x%02x, expected 0x%02x", line, i,
          packed[i], expected[i]);
  }
  CHECK(packed[n] == 0xa5, "line %d: byte %d past the data was written", line, n);
}

static void images(void) {
  const int i = 0x01020304;
  image(__LINE__, &i, 1, MPI_INT, (const unsigned char[]){1, 2, 3, 4}, 4);
  const short s = -2;
  image(__LINE__, &s, 1, MPI_SHORT, (const unsigned char[]){0xff, 0xfe}, 2);
  const long l[2] = {-5, 0x7fffffff};
  image(__LINE__, l, 2, MPI_LONG,
        (const unsigned char[]){0xff, 0xff, 0xff, 0xfb, 0x7f, 0xff, 0xff, 0xff}, 8);
  const unsigned long ul = 0xdeadbeefUL;
  image(__LINE__, &ul, 1, MPI_UNSIGNED_LONG, (const unsigned char[]){0xde, 0xad, 0xbe, 0xef}, 4);
  const long long ll = 0x0102030405060708LL;
  image(__LINE__, &ll, 1, MPI_LONG_LONG, (const unsigned char[]){1, 2, 3, 4, 5, 6, 7, 8}, 8);
  const float f = -2.5f;
  image(__LINE__, &f, 1, MPI_FLOAT, (const unsigned char[]){0xc0, 0x20, 0, 0}, 4);
  const double d = 1.0;
  image(__LINE__, &d, 1, MPI_DOUBLE, (const unsigned char[]){0x3f, 0xf0, 0, 0, 0, 0, 0, 0}, 8);
  /* IEEE quad: 1 is 0x3fff then zeros; -2 is 0xc000 then zeros; 1.5 has the top fraction bit. */
  const long double ld[3] = {1.0L, -2.0L, 1.5L};
  unsigned char quads[48] = {0x3f, 0xff};
  quads[16] = 0xc0;
  quads[32] = 0x3f;
  quads[33] = 0xff;
  quads[34] = 0x80;
  image(__LINE__, ld, 3, MPI_LONG_DOUBLE, quads, 48);
  const wchar_t w[2] = {L'A', 0x20ac};
  image(__LINE__, w, 2, MPI_WCHAR, (const unsigned char[]){0, 0x41, 0x20, 0xac}, 4);
  const bool b[2] = {true, false};
  image(__LINE__, b, 2, MPI_C_BOOL, (const unsigned char[]){1, 0}, 2);
  const int pair[2] = {1, -1};
  image(__LINE__, pair, 1, MPI_2INT, (const unsigned char[]){0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff},
        8);
  const struct {
    double v;
    int i;
  } di = {-1.0, 3};
  image(__LINE__, &di, 1, MPI_DOUBLE_INT,
        (const unsigned char[]){0xbf, 0xf0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3}, 12);
  const struct {
    long v;
    int i;
  } li = {258, 2};
  image(__LINE__, &li, 1, MPI_LONG_INT, (const unsigned char[]){0, 0, 1, 2, 0, 0, 0, 2}, 8);
  const float cf[2] = {1.0f, -1.0f}; /* a float complex: real, imaginary */
  image(__LINE__, cf, 1, MPI_C_FLOAT_COMPLEX,
        (const unsigned char[]){0x3f, 0x80, 0, 0, 0xbf, 0x80, 0, 0}, 8);
  const unsigned long long u64 = 0xfedcba9876543210ULL;
  image(__LINE__, &u64, 1, MPI_UINT64_T,
        (const unsigned char[]){0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10}, 8);
}

struct record {
  char c;
  double d;
  long l;
  short s[3];
};

static MPI_Datatype record_type(void) {
  const int lengths[4] = {1, 1, 1, 3};
  const MPI_Aint displs[4] = {offsetof(struct record, c), offsetof(struct record, d),
                              offsetof(struct record, l), offsetof(struct record, s)};
  const MPI_Datatype types[4] = {MPI_CHAR, MPI_DOUBLE, MPI_LONG, MPI_SHORT};
  MPI_Datatype t, resized;
  CHECK_MPI(MPI_Type_create_struct(4, lengths, displs, types, &t));
  CHECK_MPI(MPI_Type_create_resized(t, 0, sizeof(struct record), &resized));
  CHECK_MPI(MPI_Type_free(&t));
  CHECK_MPI(MPI_Type_commit(&resized));
  return resized;
}

static void fill_records(struct record* r, int n, int salt) {
  memset(r, 0, sizeof *r * (size_t)n);
  for (int i = 0; i < n; ++i) {
    r[i].c = (char)('a' + (i + salt) % 26);
    r[i].d = (i + salt) / 3.0;
    r[i].l = -1000L * (i + salt) - 7;
    for (int k = 0; k < 3; ++k) r[i].s[k] = (short)(i * 100 + k - salt);
  }
}

static void same_records(int line, const struct record* a, const struct record* b, int n) {
  for (int i = 0; i < n; ++i) {
    CHECK(a[i].c == b[i].c && a[i].d == b[i].d && a[i].l == b[i].l && a[i].s[0] == b[i].s[0] &&
              a[i].s[1] == b[i].s[1] && a[i].s[2] == b[i].s[2],
          "line %d: record %d differs: %c %g %ld %d vs %c %g %ld %d", line, i, a[i].c, a[i].d,
          a[i].l, a[i].s[2], b[i].c, b[i].d, b[i].l, b[i].s[2]);
  }
}

static void round_trips(void) {
  /* A struct with padding: 1 + 8 + 4 + 3 * 2 = 19 external bytes a record. */
  MPI_Datatype rec = record_type();
  MPI_Aint n = -1;
  CHECK_MPI(MPI_Pack_external_size("external32", 5, rec, &n));
  CHECK(n == 5 * 19, "5 records take %ld external32 bytes, expected %d", (long)n, 5 * 19);
  struct record in[5], out[5];
  fill_records(in, 5, rank);
  unsigned char buffer[512];
  MPI_Aint position = 0;
  /* Two packs into one buffer, then a vector of every other int after them. */
  CHECK_MPI(MPI_Pack_external("external32", in, 2, rec, buffer, sizeof buffer, &position));
  CHECK_MPI(MPI_Pack_external("external32", in + 2, 3, rec, buffer, sizeof buffer, &position));
  CHECK(position == 5 * 19, "position %ld after two packs", (long)position);
  /* The long of record 0 sits after its char and double: 4 bytes, big-endian. */
  const long l0 = in[0].l;
  CHECK(buffer[9] == (unsigned char)((unsigned long)l0 >> 24) &&
            buffer[12] == (unsigned char)(l0 & 0xff),
        "record 0's long %ld is not at bytes 9-12", l0);
  MPI_Datatype every_other;
  CHECK_MPI(MPI_Type_vector(4, 1, 2, MPI_INT, &every_other));
  CHECK_MPI(MPI_Type_commit(&every_other));
  int ints[8] = {10, -1, 20, -1, -30, -1, 40, -1}, ints_out[8] = {0, 7, 0, 7, 0, 7, 0, 7};
  CHECK_MPI(
      MPI_Pack_external("external32", ints, 1, every_other, buffer, sizeof buffer, &position));
  CHECK(position == 5 * 19 + 16, "position %ld after the vector", (long)position);
  const MPI_Aint packed = position;

  /* Rank 0's bytes go to every rank, which unpacks them and compares with rank 0's data. */
  CHECK_MPI(MPI_Bcast(buffer, (int)packed, MPI_BYTE, 0, MPI_COMM_WORLD));
  fill_records(in, 5, 0);
  memset(out, 0, sizeof out);
  position = 0;
  CHECK_MPI(MPI_Unpack_external("external32", buffer, packed, &position, out, 5, rec));
  same_records(__LINE__, in, out, 5);
  CHECK_MPI(MPI_Unpack_external("external32", buffer, packed, &position, ints_out, 1, every_other));
  CHECK(position == packed, "unpacked %ld bytes of %ld", (long)position, (long)packed);
  for (int i = 0; i < 8; ++i) {
    const int expect = i % 2 ? 7 : ints[i];
    CHECK(ints_out[i] == expect, "int %d is %d after unpacking, expected %d", i, ints_out[i],
          expect);
  }

  /* Long doubles and wide characters come back as they were. */
  long double lds[4] = {1.0L / 3, -1e300L * 1e100L, 0.0L, 6.25e-4000L}, lds_out[4];
  wchar_t ws[3] = {L'z', 0xffff, 0}, ws_out[3];
  position = 0;
  CHECK_MPI(
      MPI_Pack_external("external32", lds, 4, MPI_LONG_DOUBLE, buffer, sizeof buffer, &position));
  CHECK_MPI(MPI_Pack_external("external32", ws, 3, MPI_WCHAR, buffer, sizeof buffer, &position));
  CHECK(position == 4 * 16 + 3 * 2, "position %ld", (long)position);
  const MPI_Aint end = position;
  position = 0;
  CHECK_MPI(MPI_Unpack_external("external32", buffer, end, &position, lds_out, 4, MPI_LONG_DOUBLE));
  CHECK_MPI(MPI_Unpack_external("external32", buffer, end, &position, ws_out, 3, MPI_WCHAR));
  for (int i = 0; i < 4; ++i) {
    CHECK(lds_out[i] == lds[i], "long double %d: %Lg came back as %Lg", i, lds[i], lds_out[i]);
  }
  for (int i = 0; i < 3; ++i) {
    CHECK(ws_out[i] == ws[i], "wchar %d: %d came back as %d", i, (int)ws[i], (int)ws_out[i]);
  }
  CHECK_MPI(MPI_Type_free(&rec));
  CHECK_MPI(MPI_Type_free(&every_other));
}

static void errors(void) {
  int i = 1;
  unsigned char buffer[16];
  MPI_Aint position = 0, n = 0;
  CHECK_ERR(MPI_Pack_external("native", &i, 1, MPI_INT, buffer, sizeof buffer, &position),
            MPI_ERR_ARG);
  CHECK_ERR(MPI_Unpack_external("internal", buffer, sizeof buffer, &position, &i, 1, MPI_INT),
            MPI_ERR_ARG);
  CHECK_ERR(MPI_Pack_external_size("External32", 1, MPI_INT, &n), MPI_ERR_ARG);
  CHECK_ERR(MPI_Pack_external_size(NULL, 1, MPI_INT, &n), MPI_ERR_ARG);
  CHECK(position == 0, "a failed call moved position to %ld", (long)position);
  const double d[3] = {1, 2, 3};
  CHECK_ERR(MPI_Pack_external("external32", d, 3, MPI_DOUBLE, buffer, sizeof buffer, &position),
            MPI_ERR_TRUNCATE);
  position = 12;
  CHECK_ERR(MPI_Pack_external("external32", d, 1, MPI_DOUBLE, buffer, sizeof buffer, &position),
            MPI_ERR_TRUNCATE);
  position = 0;
  CHECK_ERR(MPI_Unpack_external("external32", buffer, 7, &position, (double[1]){0}, 1, MPI_DOUBLE),
            MPI_ERR_TRUNCATE);
  position = -1;
  CHECK_ERR(MPI_Pack_external("external32", &i, 1, MPI_INT, buffer, sizeof buffer, &position),
            MPI_ERR_ARG);
  position = 0;
  CHECK_ERR(MPI_Pack_external("external32", &i, -1, MPI_INT, buffer, sizeof buffer, &position),
            MPI_ERR_COUNT);
  /* Values external32's sizes cannot hold. */
  if (sizeof(long) > 4) {
    const long big = (long)1 << 40;
    CHECK_ERR(MPI_Pack_external("external32", &big, 1, MPI_LONG, buffer, sizeof buffer, &position),
              MPI_ERR_CONVERSION);
    const long low = -((long)1 << 31) - 1;
    CHECK_ERR(MPI_Pack_external("external32", &low, 1, MPI_LONG, buffer, sizeof buffer, &position),
              MPI_ERR_CONVERSION);
    const unsigned long ubig = 1UL << 33;
    CHECK_ERR(MPI_Pack_external("external32", &ubig, 1, MPI_UNSIGNED_LONG, buffer, sizeof buffer,
                                &position),
              MPI_ERR_CONVERSION);
    const long edge = -((long)1 << 31);
    CHECK_MPI(
        MPI_Pack_external("external32", &edge, 1, MPI_LONG, buffer, sizeof buffer, &position));
    CHECK(position == 4 && buffer[0] == 0x80 && buffer[3] == 0, "INT32_MIN as a long: %02x..%02x",
          buffer[0], buffer[3]);
  }
  if (sizeof(wchar_t) > 2) {
    const wchar_t emoji = (wchar_t)0x1f600;
    position = 0;
    CHECK_ERR(
        MPI_Pack_external("external32", &emoji, 1, MPI_WCHAR, buffer, sizeof buffer, &position),
        MPI_ERR_CONVERSION);
  }
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  images();
  round_trips();
  errors();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
