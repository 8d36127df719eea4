/* Reductions: every predefined operator on the types MPI defines it for (the C integer types but
 * char, the fixed-width ones, MPI_AINT, MPI_OFFSET and MPI_COUNT, floating point, C_BOOL, BYTE, the
 * three complex types, and the MINLOC/MAXLOC pair types), user operators
 * (a non-commutative 2x2 matrix product that proves rank order, on a contiguous and on a holed
 * datatype, and a commutative one), Reduce (every root), Allreduce, Reduce_local, Scan, Exscan,
 * Reduce_scatter(_block), MPI_IN_PLACE forms, derived types with predefined operators, and the
 * errors of operators that do not apply. Results are compared with serial references. */
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "predefined_ops.h"

static int rank, size;

#define ARITH 0x0f   /* max min sum prod */
#define LOGICAL 0x70 /* land lor lxor */
#define BITWISE 0x380

static void* alloc(size_t bytes) {
  void* p = malloc(bytes ? bytes : 1);
  CHECK(p != NULL, "out of memory");
  return p;
}

/* ---- predefined operators, one function per C type ----
 * input(r, i, k): rank r's element i for operator k; small values, so sums and products are exact
 * in every type; zeros among them for the logical operators. */
static long input(int r, int i, int k, int is_signed) {
  /* 8-bit signed types: sums of eight ranks stay within -128..127. */
  if (is_signed == 2 && k != 3 && !(k >= 4 && k <= 6)) return (r * 37 + i * 11) % 15 - 7;
  if (k == 3) return 1 + ((r * 7 + i) % 3 == 0) + (is_signed && (r + i) % 5 == 0 ? -2 : 0);
  if (k >= 4 && k <= 6) return (r + i) % 3 == 0 ? 0 : (r * 3 + i) % 9;
  return (r * 37 + i * 11) % 101 - (is_signed ? 50 : 0);
}

#define TYPE_TEST(fname, T, mpitype, ops, is_signed)                                              \
  static T fname##_apply(int k, T a, T b) {                                                       \
    switch (k) {                                                                                  \
      case 0:                                                                                     \
        return a > b ? a : b;                                                                     \
      case 1:                                                                                     \
        return a < b ? a : b;                                                                     \
      case 2:                                                                                     \
        return (T)(a + b);                                                                        \
      case 3:                                                                                     \
        return fname##_mul(a, b);                                                                 \
      case 4:                                                                                     \
        return (T)((a != 0) && (b != 0));                                                         \
      case 5:                                                                                     \
        return (T)((a != 0) || (b != 0));                                                         \
      case 6:                                                                                     \
        return (T)((a != 0) != (b != 0));                                                         \
    }                                                                                             \
    return fname##_bits(k, a, b);                                                                 \
  }                                                                                               \
  static void fname(void) {                                                                       \
    static const int counts[] = {0, 1, 17, 1000};                                                 \
    for (int k = 0; k < N_OPS; ++k) {                                                             \
      if (!((ops) & (1 << k))) continue;                                                          \
      for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {                             \
        const int n = counts[c];                                                                  \
        T* in = alloc(sizeof(T) * (size_t)n);                                                     \
        T* out = alloc(sizeof(T) * (size_t)n);                                                    \
        T* ref = alloc(sizeof(T) * (size_t)n);                                                    \
        for (int i = 0; i < n; ++i) {                                                             \
          in[i] = (T)input(rank, i, k, is_signed);                                                \
          ref[i] = (T)input(0, i, k, is_signed);                                                  \
          for (int r = 1; r < size; ++r)                                                          \
            ref[i] = fname##_apply(k, ref[i], (T)input(r, i, k, is_signed));                      \
        }                                                                                         \
        /* allreduce, then in place */                                                            \
        for (int place = 0; place < 2; ++place) {                                                 \
          memset(out, 0x5a, sizeof(T) * (size_t)n);                                               \
          if (place) memcpy(out, in, sizeof(T) * (size_t)n);                                      \
          CHECK_MPI(MPI_Allreduce(place ? MPI_IN_PLACE : in, out, n, mpitype, op_at(k),           \
                                  MPI_COMM_WORLD));                                               \
          for (int i = 0; i < n; ++i)                                                             \
            CHECK(out[i] == ref[i],                                                               \
                  "%s allreduce MPI_%s%s count %d: element %d is %Lg, expected %Lg", #mpitype,    \
                  op_names[k], place ? " in place" : "", n, i, (long double)out[i],               \
                  (long double)ref[i]);                                                           \
        }                                                                                         \
        /* reduce to a root (every root for the short counts) */                                  \
        for (int root = 0; root < size; ++root) {                                                 \
          if (n > 17 && root != size - 1) continue;                                               \
          const int place = root % 2 == 1;                                                        \
          memset(out, 0x5a, sizeof(T) * (size_t)n);                                               \
          if (place && rank == root) memcpy(out, in, sizeof(T) * (size_t)n);                      \
          CHECK_MPI(MPI_Reduce(place&& rank == root ? MPI_IN_PLACE : in, out, n, mpitype,         \
                               op_at(k), root, MPI_COMM_WORLD));                                  \
          if (rank == root)                                                                       \
            for (int i = 0; i < n; ++i)                                                           \
              CHECK(out[i] == ref[i],                                                             \
                    "%s reduce MPI_%s root %d count %d: element %d is %Lg, expected %Lg",         \
                    #mpitype, op_names[k], root, n, i, (long double)out[i], (long double)ref[i]); \
        }                                                                                         \
        free(in);                                                                                 \
        free(out);                                                                                \
        free(ref);                                                                                \
      }                                                                                           \
    }                                                                                             \
  }

#define MUL(fname, T)              \
  static T fname##_mul(T a, T b) { \
    return (T)(a * b);             \
  }
#define BITS(fname, T)                                             \
  MUL(fname, T)                                                    \
  static T fname##_bits(int k, T a, T b) {                         \
    return k == 7 ? (T)(a & b) : k == 8 ? (T)(a | b) : (T)(a ^ b); \
  }
#define NO_BITS(fname, T)                  \
  MUL(fname, T)                            \
  static T fname##_bits(int k, T a, T b) { \
    (void)k;                               \
    (void)b;                               \
    return a;                              \
  }

BITS(test_int, int)
TYPE_TEST(test_int, int, MPI_INT, ARITH | LOGICAL | BITWISE, 1)
BITS(test_unsigned, unsigned)
TYPE_TEST(test_unsigned, unsigned, MPI_UNSIGNED, ARITH | LOGICAL | BITWISE, 0)
BITS(test_short, short)
TYPE_TEST(test_short, short, MPI_SHORT, ARITH | LOGICAL | BITWISE, 1)
BITS(test_long, long)
TYPE_TEST(test_long, long, MPI_LONG, ARITH | LOGICAL | BITWISE, 1)
BITS(test_uchar, unsigned char)
TYPE_TEST(test_uchar, unsigned char, MPI_UNSIGNED_CHAR, ARITH | LOGICAL | BITWISE, 0)
BITS(test_int64, int64_t)
TYPE_TEST(test_int64, int64_t, MPI_INT64_T, ARITH | LOGICAL | BITWISE, 1)
BITS(test_uint16, uint16_t)
TYPE_TEST(test_uint16, uint16_t, MPI_UINT16_T, ARITH | LOGICAL | BITWISE, 0)
BITS(test_aint, MPI_Aint)
TYPE_TEST(test_aint, MPI_Aint, MPI_AINT, ARITH | LOGICAL | BITWISE, 1)
/* The rest of C's integer types and MPI's fixed-width and address-sized ones, MPI_OFFSET and
 * MPI_COUNT included, with the logical and bitwise operators too (MPI-3.1 5.9.2 lists them as C
 * integers, and MPICH and Open MPI accept every predefined operator on them). */
BITS(test_ushort, unsigned short)
TYPE_TEST(test_ushort, unsigned short, MPI_UNSIGNED_SHORT, ARITH | LOGICAL | BITWISE, 0)
BITS(test_ulong, unsigned long)
TYPE_TEST(test_ulong, unsigned long, MPI_UNSIGNED_LONG, ARITH | LOGICAL | BITWISE, 0)
BITS(test_llong, long long)
TYPE_TEST(test_llong, long long, MPI_LONG_LONG, ARITH | LOGICAL | BITWISE, 1)
BITS(test_ullong, unsigned long long)
TYPE_TEST(test_ullong, unsigned long long, MPI_UNSIGNED_LONG_LONG, ARITH | LOGICAL | BITWISE, 0)
BITS(test_schar, signed char)
TYPE_TEST(test_schar, signed char, MPI_SIGNED_CHAR, ARITH | LOGICAL | BITWISE, 2)
BITS(test_int8, int8_t)
TYPE_TEST(test_int8, int8_t, MPI_INT8_T, ARITH | LOGICAL | BITWISE, 2)
BITS(test_int16, int16_t)
TYPE_TEST(test_int16, int16_t, MPI_INT16_T, ARITH | LOGICAL | BITWISE, 1)
BITS(test_int32, int32_t)
TYPE_TEST(test_int32, int32_t, MPI_INT32_T, ARITH | LOGICAL | BITWISE, 1)
BITS(test_uint8, uint8_t)
TYPE_TEST(test_uint8, uint8_t, MPI_UINT8_T, ARITH | LOGICAL | BITWISE, 0)
BITS(test_uint32, uint32_t)
TYPE_TEST(test_uint32, uint32_t, MPI_UINT32_T, ARITH | LOGICAL | BITWISE, 0)
BITS(test_uint64, uint64_t)
TYPE_TEST(test_uint64, uint64_t, MPI_UINT64_T, ARITH | LOGICAL | BITWISE, 0)
BITS(test_offset, MPI_Offset)
TYPE_TEST(test_offset, MPI_Offset, MPI_OFFSET, ARITH | LOGICAL | BITWISE, 1)
BITS(test_count, MPI_Count)
TYPE_TEST(test_count, MPI_Count, MPI_COUNT, ARITH | LOGICAL | BITWISE, 1)
BITS(test_byte, unsigned char)
TYPE_TEST(test_byte, unsigned char, MPI_BYTE, BITWISE, 0)
static bool test_bool_mul(bool a, bool b) {
  return a && b;
} /* never used: MPI has no PROD on bool */
static bool test_bool_bits(int k, bool a, bool b) {
  return k == 7 ? a & b : k == 8 ? a | b : a ^ b;
}
TYPE_TEST(test_bool, bool, MPI_C_BOOL, LOGICAL, 0)
NO_BITS(test_float, float)
TYPE_TEST(test_float, float, MPI_FLOAT, ARITH, 1)
NO_BITS(test_double, double)
TYPE_TEST(test_double, double, MPI_DOUBLE, ARITH, 1)
NO_BITS(test_long_double, long double)
TYPE_TEST(test_long_double, long double, MPI_LONG_DOUBLE, ARITH, 1)

/* ---- complex ---- */

static void complex_ops(void) {
  const int n = 9;
  double _Complex in[9], out[9], sum[9], prod[9];
  float _Complex fin[9], fout[9];
  for (int i = 0; i < n; ++i) {
    in[i] = (double)(rank + i) + (double)((rank * i) % 3) * I;
    fin[i] = (float)(rank + 1) - (float)(i % 2) * I;
    sum[i] = 0;
    prod[i] = 1;
    for (int r = 0; r < size; ++r) sum[i] += (double)(r + i) + (double)((r * i) % 3) * I;
  }
  /* Products of 1 + i and 1 - i stay exact. */
  for (int i = 0; i < n; ++i) {
    in[i] = (rank + i) % 2 ? 1 + 1 * I : 1 - 1 * I;
    for (int r = 0; r < size; ++r) prod[i] *= (r + i) % 2 ? 1 + 1 * I : 1 - 1 * I;
  }
  CHECK_MPI(MPI_Allreduce(in, out, n, MPI_C_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD));
  for (int i = 0; i < n; ++i)
    CHECK(out[i] == prod[i], "complex product %d: (%g, %g), expected (%g, %g)", i, creal(out[i]),
          cimag(out[i]), creal(prod[i]), cimag(prod[i]));
  for (int i = 0; i < n; ++i) in[i] = (double)(rank + i) + (double)((rank * i) % 3) * I;
  CHECK_MPI(MPI_Allreduce(in, out, n, MPI_C_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
  for (int i = 0; i < n; ++i)
    CHECK(out[i] == sum[i], "complex sum %d: (%g, %g), expected (%g, %g)", i, creal(out[i]),
          cimag(out[i]), creal(sum[i]), cimag(sum[i]));
  CHECK_MPI(MPI_Allreduce(fin, fout, n, MPI_C_FLOAT_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
  for (int i = 0; i < n; ++i) {
    const float re = (float)(size * (size + 1) / 2), im = -(float)(size * (i % 2));
    CHECK(crealf(fout[i]) == re && cimagf(fout[i]) == im, "float complex sum %d: (%g, %g)", i,
          crealf(fout[i]), cimagf(fout[i]));
  }
  /* The float and long double forms of the product (1 + i and 1 - i again: exact), and the long
   * double sum. */
  long double _Complex lin[9], lout[9];
  for (int i = 0; i < n; ++i) {
    fin[i] = (rank + i) % 2 ? 1 + 1 * I : 1 - 1 * I;
    lin[i] = fin[i];
  }
  CHECK_MPI(MPI_Allreduce(fin, fout, n, MPI_C_FLOAT_COMPLEX, MPI_PROD, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Allreduce(lin, lout, n, MPI_C_LONG_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD));
  for (int i = 0; i < n; ++i) {
    CHECK(crealf(fout[i]) == creal(prod[i]) && cimagf(fout[i]) == cimag(prod[i]),
          "float complex product %d: (%g, %g), expected (%g, %g)", i, crealf(fout[i]),
          cimagf(fout[i]), creal(prod[i]), cimag(prod[i]));
    CHECK(creall(lout[i]) == creal(prod[i]) && cimagl(lout[i]) == cimag(prod[i]),
          "long double complex product %d: (%Lg, %Lg), expected (%g, %g)", i, creall(lout[i]),
          cimagl(lout[i]), creal(prod[i]), cimag(prod[i]));
  }
  for (int i = 0; i < n; ++i) lin[i] = (long double)(rank + i) + (long double)((rank * i) % 3) * I;
  CHECK_MPI(MPI_Allreduce(lin, lout, n, MPI_C_LONG_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
  for (int i = 0; i < n; ++i)
    CHECK(creall(lout[i]) == creal(sum[i]) && cimagl(lout[i]) == cimag(sum[i]),
          "long double complex sum %d: (%Lg, %Lg), expected (%g, %g)", i, creall(lout[i]),
          cimagl(lout[i]), creal(sum[i]), cimag(sum[i]));
}

/* ---- MINLOC / MAXLOC ---- */

#define LOC_TEST(fname, V, mpitype)                                                                \
  static void fname(void) {                                                                        \
    typedef struct {                                                                               \
      V value;                                                                                     \
      int index;                                                                                   \
    } pair;                                                                                        \
    enum { n = 11 };                                                                               \
    pair in[n], out[n], lo[n], hi[n];                                                              \
    for (int i = 0; i < n; ++i) {                                                                  \
      for (int r = 0; r < size; ++r) {                                                             \
        /* Ties on purpose: the smallest index must win. */                                        \
        pair p = {(V)((r * 7 + i * 3) % 4) - (V)1, (size - r) * 10 + i};                           \
        if (r == rank) in[i] = p;                                                                  \
        if (r == 0 || p.value < lo[i].value || (p.value == lo[i].value && p.index < lo[i].index))  \
          lo[i] = p;                                                                               \
        if (r == 0 || p.value > hi[i].value || (p.value == hi[i].value && p.index < hi[i].index))  \
          hi[i] = p;                                                                               \
      }                                                                                            \
    }                                                                                              \
    for (int which = 0; which < 2; ++which) {                                                      \
      const pair* ref = which ? hi : lo;                                                           \
      CHECK_MPI(                                                                                   \
          MPI_Allreduce(in, out, n, mpitype, which ? MPI_MAXLOC : MPI_MINLOC, MPI_COMM_WORLD));    \
      for (int i = 0; i < n; ++i)                                                                  \
        CHECK(out[i].value == ref[i].value && out[i].index == ref[i].index,                        \
              "%s %s %d: (%Lg, %d), expected (%Lg, %d)", #mpitype, which ? "MAXLOC" : "MINLOC", i, \
              (long double)out[i].value, out[i].index, (long double)ref[i].value, ref[i].index);   \
      const int root = size / 2;                                                                   \
      memset(out, 0, sizeof out);                                                                  \
      CHECK_MPI(                                                                                   \
          MPI_Reduce(in, out, n, mpitype, which ? MPI_MAXLOC : MPI_MINLOC, root, MPI_COMM_WORLD)); \
      if (rank == root)                                                                            \
        for (int i = 0; i < n; ++i)                                                                \
          CHECK(out[i].value == ref[i].value && out[i].index == ref[i].index,                      \
                "%s reduce %d: (%Lg, %d)", #mpitype, i, (long double)out[i].value, out[i].index);  \
    }                                                                                              \
    /* Reduce_local: inout = in op inout. */                                                       \
    pair a = {(V)3, 7}, b = {(V)3, 2};                                                             \
    CHECK_MPI(MPI_Reduce_local(&a, &b, 1, mpitype, MPI_MINLOC));                                   \
    CHECK(b.value == (V)3 && b.index == 2, "%s reduce_local minloc: %d", #mpitype, b.index);       \
  }

LOC_TEST(loc_double_int, double, MPI_DOUBLE_INT)
LOC_TEST(loc_2int, int, MPI_2INT)
LOC_TEST(loc_float_int, float, MPI_FLOAT_INT)
LOC_TEST(loc_long_int, long, MPI_LONG_INT)
LOC_TEST(loc_short_int, short, MPI_SHORT_INT)
LOC_TEST(loc_long_double_int, long double, MPI_LONG_DOUBLE_INT)

/* ---- user operators ---- */

typedef struct {
  int a, b, c, d;
} mat;
enum { MOD = 1009 };
static MPI_Datatype mat_type, holed_mat_type; /* 4 ints; 4 ints in 5 (a hole after each) */
static int user_calls;

static mat mul(mat x, mat y) {
  mat r = {(x.a * y.a + x.b * y.c) % MOD, (x.a * y.b + x.b * y.d) % MOD,
           (x.c * y.a + x.d * y.c) % MOD, (x.c * y.b + x.d * y.d) % MOD};
  return r;
}
static mat mat_of(int r, int i) {
  mat m = {1 + (r + i) % 3, (r * 5 + i) % 7, (r + 2 * i) % 4, 1 + r % 2};
  return m;
}
static int same(mat x, mat y) {
  return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d;
}

/* inout = in * inout: `in` holds the lower ranks' product, so the result is x0 x1 ... xn-1. */
static void matmul(void* in, void* inout, int* len, MPI_Datatype* type) {
  CHECK(*type == mat_type, "the user function got datatype %p, not the one passed (%p)",
        (void*)*type, (void*)mat_type);
  mat* x = in;
  mat* y = inout;
  for (int i = 0; i < *len; ++i) y[i] = mul(x[i], y[i]);
  ++user_calls;
}
/* The same over the holed type: elements 5 ints apart. */
static void matmul_holed(void* in, void* inout, int* len, MPI_Datatype* type) {
  CHECK(*type == holed_mat_type, "the user function got the wrong datatype");
  int* x = in;
  int* y = inout;
  for (int i = 0; i < *len; ++i) {
    mat a, b;
    memcpy(&a, x + 5 * i, sizeof a);
    memcpy(&b, y + 5 * i, sizeof b);
    b = mul(a, b);
    memcpy(y + 5 * i, &b, sizeof b);
  }
}
/* Commutative: sum modulo 1000. */
static void sum_mod(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  int* x = in;
  int* y = inout;
  for (int i = 0; i < *len; ++i) y[i] = (x[i] + y[i]) % 1000;
}

/* The product of ranks [first, last) for element i. */
static mat product(int first, int last, int i) {
  mat p = {1, 0, 0, 1};
  for (int r = first; r < last; ++r) p = mul(p, mat_of(r, i));
  return p;
}

static void user_ops(void) {
  MPI_Op matop, holed_op, summod;
  CHECK_MPI(MPI_Op_create(matmul, 0, &matop));
  CHECK_MPI(MPI_Op_create(matmul_holed, 0, &holed_op));
  CHECK_MPI(MPI_Op_create(sum_mod, 1, &summod));
  int commute = -1;
  CHECK_MPI(MPI_Op_commutative(matop, &commute));
  CHECK(commute == 0, "matop commutative = %d", commute);
  CHECK_MPI(MPI_Op_commutative(summod, &commute));
  CHECK(commute == 1, "summod commutative = %d", commute);
  CHECK_MPI(MPI_Op_commutative(MPI_SUM, &commute));
  CHECK(commute == 1, "MPI_SUM commutative = %d", commute);

  static const int counts[] = {0, 1, 5, 20000};
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
    const int n = counts[c];
    mat* in = alloc(sizeof(mat) * (size_t)n);
    mat* out = alloc(sizeof(mat) * (size_t)n);
    for (int i = 0; i < n; ++i) in[i] = mat_of(rank, i);
    /* allreduce (plain and in place) */
    for (int place = 0; place < 2; ++place) {
      if (place) memcpy(out, in, sizeof(mat) * (size_t)n);
      user_calls = 0;
      CHECK_MPI(MPI_Allreduce(place ? MPI_IN_PLACE : in, out, n, mat_type, matop, MPI_COMM_WORLD));
      for (int i = 0; i < n; ++i)
        CHECK(same(out[i], product(0, size, i)), "matrix allreduce count %d element %d", n, i);
    }
    /* reduce, every root for the short counts */
    for (int root = 0; root < size; ++root) {
      if (n > 5 && root != 1 % size) continue;
      memset(out, 0, sizeof(mat) * (size_t)n);
      CHECK_MPI(MPI_Reduce(in, out, n, mat_type, matop, root, MPI_COMM_WORLD));
      if (rank == root)
        for (int i = 0; i < n; ++i)
          CHECK(same(out[i], product(0, size, i)), "matrix reduce root %d count %d element %d",
                root, n, i);
    }
    /* scan and exscan (rank 0's exscan buffer stays as it was) */
    CHECK_MPI(MPI_Scan(in, out, n, mat_type, matop, MPI_COMM_WORLD));
    for (int i = 0; i < n; ++i)
      CHECK(same(out[i], product(0, rank + 1, i)), "matrix scan count %d element %d", n, i);
    for (int i = 0; i < n; ++i) out[i] = (mat){-1, -1, -1, -1};
    CHECK_MPI(MPI_Exscan(in, out, n, mat_type, matop, MPI_COMM_WORLD));
    for (int i = 0; i < n; ++i) {
      if (rank == 0)
        CHECK(out[i].a == -1 && out[i].d == -1, "exscan wrote rank 0's buffer (element %d)", i);
      else
        CHECK(same(out[i], product(0, rank, i)), "matrix exscan count %d element %d", n, i);
    }
    /* the holed type: same products, holes untouched */
    int* hin = alloc(sizeof(int) * 5 * (size_t)n);
    int* hout = alloc(sizeof(int) * 5 * (size_t)n);
    for (int i = 0; i < n; ++i) {
      memcpy(hin + 5 * i, &in[i], sizeof(mat));
      hin[5 * i + 4] = -9;
      hout[5 * i + 4] = -8;
    }
    CHECK_MPI(MPI_Allreduce(hin, hout, n, holed_mat_type, holed_op, MPI_COMM_WORLD));
    for (int i = 0; i < n; ++i) {
      mat m;
      memcpy(&m, hout + 5 * i, sizeof m);
      CHECK(same(m, product(0, size, i)) && hout[5 * i + 4] == -8,
            "holed matrix allreduce count %d element %d", n, i);
    }
    CHECK_MPI(MPI_Scan(hin, hout, n, holed_mat_type, holed_op, MPI_COMM_WORLD));
    for (int i = 0; i < n; ++i) {
      mat m;
      memcpy(&m, hout + 5 * i, sizeof m);
      CHECK(same(m, product(0, rank + 1, i)), "holed matrix scan count %d element %d", n, i);
    }
    free(hin);
    free(hout);
    free(in);
    free(out);
  }

  /* reduce_scatter_block and reduce_scatter with the matrix product */
  for (int block = 0; block < 4; ++block) {
    const int n = block * size;
    mat* in = alloc(sizeof(mat) * (size_t)n);
    mat* out = alloc(sizeof(mat) * (size_t)n);
    for (int i = 0; i < n; ++i) in[i] = mat_of(rank, i);
    for (int place = 0; place < 2; ++place) {
      if (place) memcpy(out, in, sizeof(mat) * (size_t)n);
      CHECK_MPI(MPI_Reduce_scatter_block(place ? MPI_IN_PLACE : in, out, block, mat_type, matop,
                                         MPI_COMM_WORLD));
      for (int i = 0; i < block; ++i)
        CHECK(same(out[i], product(0, size, rank * block + i)),
              "matrix reduce_scatter_block block %d element %d%s", block, i,
              place ? " in place" : "");
    }
    free(in);
    free(out);
  }
  {
    int* counts = alloc(sizeof(int) * (size_t)size);
    int total = 0, before = 0;
    for (int r = 0; r < size; ++r) {
      counts[r] = (r * 2 + 1) % 4; /* 1, 3, 1, 3, ... with a zero when it wraps */
      if (r == size / 2) counts[r] = 0;
      if (r < rank) before += counts[r];
      total += counts[r];
    }
    mat* in = alloc(sizeof(mat) * (size_t)total);
    mat* out = alloc(sizeof(mat) * (size_t)total);
    for (int i = 0; i < total; ++i) in[i] = mat_of(rank, i);
    for (int place = 0; place < 2; ++place) {
      if (place) memcpy(out, in, sizeof(mat) * (size_t)total);
      CHECK_MPI(MPI_Reduce_scatter(place ? MPI_IN_PLACE : in, out, counts, mat_type, matop,
                                   MPI_COMM_WORLD));
      for (int i = 0; i < counts[rank]; ++i)
        CHECK(same(out[i], product(0, size, before + i)), "matrix reduce_scatter element %d%s", i,
              place ? " in place" : "");
    }
    free(in);
    free(out);
    free(counts);
  }

  /* the commutative operator on a long vector (the kernel may reorder operands) */
  {
    const int n = 300000;
    int* in = alloc(sizeof(int) * (size_t)n);
    int* out = alloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; ++i) in[i] = (rank * 131 + i) % 1000;
    CHECK_MPI(MPI_Allreduce(in, out, n, MPI_INT, summod, MPI_COMM_WORLD));
    for (int i = 0; i < n; ++i) {
      int want = 0;
      for (int r = 0; r < size; ++r) want = (want + (r * 131 + i) % 1000) % 1000;
      CHECK(out[i] == want, "sum_mod element %d: %d, expected %d", i, out[i], want);
    }
    const int block = n / size / 2;
    CHECK_MPI(MPI_Reduce_scatter_block(in, out, block, MPI_INT, summod, MPI_COMM_WORLD));
    for (int i = 0; i < block; ++i) {
      int want = 0;
      for (int r = 0; r < size; ++r) want = (want + (r * 131 + rank * block + i) % 1000) % 1000;
      CHECK(out[i] == want, "sum_mod reduce_scatter_block element %d: %d, expected %d", i, out[i],
            want);
    }
    free(in);
    free(out);
  }

  /* Reduce_local: inout = in op inout */
  {
    mat x = mat_of(1, 0), y = mat_of(2, 0);
    CHECK_MPI(MPI_Reduce_local(&x, &y, 1, mat_type, matop));
    CHECK(same(y, mul(mat_of(1, 0), mat_of(2, 0))), "reduce_local with the matrix product");
    int a[3] = {1, 2, 3}, b[3] = {10, 20, 30};
    CHECK_MPI(MPI_Reduce_local(a, b, 3, MPI_INT, MPI_SUM));
    CHECK(b[0] == 11 && b[1] == 22 && b[2] == 33, "reduce_local sum %d %d %d", b[0], b[1], b[2]);
    CHECK_MPI(MPI_Reduce_local(a, b, 0, MPI_INT, MPI_SUM));
  }

  CHECK_MPI(MPI_Op_free(&matop));
  CHECK(matop == MPI_OP_NULL, "MPI_Op_free did not reset the handle");
  CHECK_MPI(MPI_Op_free(&holed_op));
  CHECK_MPI(MPI_Op_free(&summod));
}

/* ---- scans, reduce-scatter and derived types with predefined operators ---- */

static void scans(void) {
  static const int counts[] = {0, 1, 9};
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
    const int n = counts[c];
    int in[9], out[9];
    for (int i = 0; i < n; ++i) in[i] = rank * 10 + i;
    for (int place = 0; place < 2; ++place) {
      if (place) memcpy(out, in, sizeof in);
      CHECK_MPI(MPI_Scan(place ? MPI_IN_PLACE : in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
      for (int i = 0; i < n; ++i) {
        const int want = 10 * rank * (rank + 1) / 2 + i * (rank + 1);
        CHECK(out[i] == want, "scan%s %d: %d, expected %d", place ? " in place" : "", i, out[i],
              want);
      }
      for (int i = 0; i < n; ++i) out[i] = place ? in[i] : -5;
      CHECK_MPI(MPI_Exscan(place ? MPI_IN_PLACE : in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
      for (int i = 0; i < n; ++i) {
        const int want = rank == 0 ? (place ? in[i] : -5) : 10 * rank * (rank - 1) / 2 + i * rank;
        CHECK(out[i] == want, "exscan%s %d: %d, expected %d", place ? " in place" : "", i, out[i],
              want);
      }
    }
  }
  /* Nonblocking forms, with rank 0's exscan receive buffer null (it is not used). */
  int in = rank + 1, inclusive = 0, exclusive = 0;
  MPI_Request reqs[2];
  CHECK_MPI(MPI_Iscan(&in, &inclusive, 1, MPI_INT, MPI_PROD, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Iexscan(&in, rank == 0 ? NULL : &exclusive, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD,
                        &reqs[1]));
  CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
  int fact = 1;
  for (int r = 1; r <= rank + 1; ++r) fact *= r;
  CHECK(inclusive == fact, "iscan prod %d, expected %d", inclusive, fact);
  CHECK(rank == 0 || exclusive == rank, "iexscan max %d, expected %d", exclusive, rank);
}

static void reduce_scatters(void) {
  for (int block = 0; block < 4; ++block) {
    const int n = block * size;
    long* in = alloc(sizeof(long) * (size_t)n);
    long* out = alloc(sizeof(long) * (size_t)n);
    for (int i = 0; i < n; ++i) in[i] = rank * 1000 + i;
    for (int place = 0; place < 2; ++place) {
      if (place) memcpy(out, in, sizeof(long) * (size_t)n);
      CHECK_MPI(MPI_Reduce_scatter_block(place ? MPI_IN_PLACE : in, out, block, MPI_LONG, MPI_SUM,
                                         MPI_COMM_WORLD));
      for (int i = 0; i < block; ++i) {
        const long want = 1000L * size * (size - 1) / 2 + (long)size * (rank * block + i);
        CHECK(out[i] == want, "reduce_scatter_block %d: %ld, expected %ld", i, out[i], want);
      }
    }
    free(in);
    free(out);
  }
  int* counts = alloc(sizeof(int) * (size_t)size);
  int total = 0, before = 0;
  for (int r = 0; r < size; ++r) {
    counts[r] = r % 3;
    if (r < rank) before += counts[r];
    total += counts[r];
  }
  double* in = alloc(sizeof(double) * (size_t)total);
  double* out = alloc(sizeof(double) * (size_t)total);
  for (int i = 0; i < total; ++i) in[i] = rank + i;
  for (int place = 0; place < 2; ++place) {
    if (place) memcpy(out, in, sizeof(double) * (size_t)total);
    CHECK_MPI(MPI_Reduce_scatter(place ? MPI_IN_PLACE : in, out, counts, MPI_DOUBLE, MPI_MAX,
                                 MPI_COMM_WORLD));
    for (int i = 0; i < counts[rank]; ++i)
      CHECK(out[i] == size - 1 + before + i, "reduce_scatter max %d: %g", i, out[i]);
  }
  free(in);
  free(out);
  free(counts);
}

static void derived(void) {
  /* contiguous(3, MPI_DOUBLE) with MPI_SUM: element-wise over the 3 doubles */
  MPI_Datatype triple, strided_double;
  CHECK_MPI(MPI_Type_contiguous(3, MPI_DOUBLE, &triple));
  CHECK_MPI(MPI_Type_commit(&triple));
  double in[3 * 5], out[3 * 5];
  for (int i = 0; i < 15; ++i) in[i] = rank * 100 + i;
  CHECK_MPI(MPI_Allreduce(in, out, 5, triple, MPI_SUM, MPI_COMM_WORLD));
  for (int i = 0; i < 15; ++i) {
    const double want = 100.0 * size * (size - 1) / 2 + (double)size * i;
    CHECK(out[i] == want, "contiguous(3, MPI_DOUBLE) sum %d: %g, expected %g", i, out[i], want);
  }
  CHECK_MPI(MPI_Reduce(in, out, 5, triple, MPI_MAX, size - 1, MPI_COMM_WORLD));
  if (rank == size - 1)
    for (int i = 0; i < 15; ++i)
      CHECK(out[i] == 100.0 * (size - 1) + i, "contiguous(3, MPI_DOUBLE) max %d: %g", i, out[i]);
  /* every other double, with MPI_MIN: the holes stay untouched */
  CHECK_MPI(MPI_Type_create_resized(MPI_DOUBLE, 0, 2 * sizeof(double), &strided_double));
  CHECK_MPI(MPI_Type_commit(&strided_double));
  double sin[14], sout[14];
  for (int i = 0; i < 14; ++i) {
    sin[i] = i % 2 ? -1.0 : 50.0 - rank - i;
    sout[i] = -2.0;
  }
  CHECK_MPI(MPI_Allreduce(sin, sout, 7, strided_double, MPI_MIN, MPI_COMM_WORLD));
  for (int i = 0; i < 14; ++i) {
    const double want = i % 2 ? -2.0 : 50.0 - (size - 1) - i;
    CHECK(sout[i] == want, "strided min %d: %g, expected %g", i, sout[i], want);
  }
  /* in place on the strided type */
  memcpy(sout, sin, sizeof sin);
  CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, sout, 7, strided_double, MPI_MAX, MPI_COMM_WORLD));
  for (int i = 0; i < 14; ++i) {
    const double want = i % 2 ? -1.0 : 50.0 - i;
    CHECK(sout[i] == want, "strided max in place %d: %g, expected %g", i, sout[i], want);
  }
  CHECK_MPI(MPI_Type_free(&triple));
  CHECK_MPI(MPI_Type_free(&strided_double));
}

static void large_allreduce(void) {
  const int n = 1 << 19; /* 4 MiB of doubles */
  double* in = alloc(sizeof(double) * (size_t)n);
  double* out = alloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < n; ++i) in[i] = (double)((rank * 7 + i) % 1024);
  CHECK_MPI(MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  for (int i = 0; i < n; ++i) {
    double want = 0;
    for (int r = 0; r < size; ++r) want += (double)((r * 7 + i) % 1024);
    CHECK(out[i] == want, "large allreduce %d: %g, expected %g", i, out[i], want);
  }
  /* in place: allreduce, and reduce at the last rank */
  memcpy(out, in, sizeof(double) * (size_t)n);
  CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, out, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  for (int i = 0; i < n; ++i) {
    double want = 0;
    for (int r = 0; r < size; ++r) {
      const double v = (double)((r * 7 + i) % 1024);
      if (v > want) want = v;
    }
    CHECK(out[i] == want, "large allreduce max in place %d: %g, expected %g", i, out[i], want);
  }
  memcpy(out, in, sizeof(double) * (size_t)n);
  const int root = size - 1;
  CHECK_MPI(MPI_Reduce(rank == root ? MPI_IN_PLACE : in, rank == root ? out : NULL, n, MPI_DOUBLE,
                       MPI_SUM, root, MPI_COMM_WORLD));
  if (rank == root) {
    for (int i = 0; i < n; ++i) {
      double want = 0;
      for (int r = 0; r < size; ++r) want += (double)((r * 7 + i) % 1024);
      CHECK(out[i] == want, "large reduce in place %d: %g, expected %g", i, out[i], want);
    }
  }
  free(in);
  free(out);
}

/* ---- errors: operators that do not apply, and bad handles ---- */

static void dummy(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)in, (void)inout, (void)len, (void)type;
}

static void errors(void) {
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  double d[2] = {1, 2}, e[2];
  int x[2] = {1, 2}, y[2];
  int code = MPI_Allreduce(d, e, 2, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD);
  CHECK_ERR(code, MPI_ERR_OP);
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  CHECK_MPI(MPI_Error_string(code, text, &len));
  CHECK(strstr(text, "MPI_BAND") && strstr(text, "MPI_DOUBLE"),
        "the error text does not name the operator and the type: %s", text);
  CHECK_ERR(MPI_Allreduce(d, e, 2, MPI_FLOAT, MPI_LAND, MPI_COMM_WORLD), MPI_ERR_OP);
  CHECK_ERR(MPI_Allreduce(x, y, 2, MPI_INT, MPI_MINLOC, MPI_COMM_WORLD), MPI_ERR_OP);
  CHECK_ERR(MPI_Allreduce(x, y, 1, MPI_DOUBLE_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
  /* MPI_CHAR is reduced as an integer (char_reduction_test.c); MPI_WCHAR is not. */
  CHECK_ERR(MPI_Allreduce(x, y, 2, MPI_WCHAR, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
  CHECK_ERR(MPI_Allreduce(x, y, 2, MPI_BYTE, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
  CHECK_ERR(MPI_Allreduce(d, e, 1, MPI_C_DOUBLE_COMPLEX, MPI_MAX, MPI_COMM_WORLD), MPI_ERR_OP);
  CHECK_ERR(MPI_Allreduce(x, y, 2, MPI_C_BOOL, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
  CHECK_ERR(MPI_Reduce(x, y, 2, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD), MPI_ERR_OP);
  CHECK_ERR(MPI_Allreduce(x, y, 2, MPI_INT, MPI_REPLACE, MPI_COMM_WORLD), MPI_ERR_OP);
  CHECK_ERR(MPI_Scan(x, y, 2, MPI_INT, MPI_NO_OP, MPI_COMM_WORLD), MPI_ERR_OP);
  CHECK_ERR(MPI_Reduce_local(x, y, 2, MPI_DOUBLE, MPI_BXOR), MPI_ERR_OP);
  CHECK_ERR(MPI_Reduce(x, y, 2, MPI_INT, MPI_SUM, size, MPI_COMM_WORLD), MPI_ERR_ROOT);
  CHECK_ERR(MPI_Allreduce(x, y, -2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_ERR(MPI_Allreduce(NULL, y, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  CHECK_ERR(MPI_Allreduce(x, MPI_IN_PLACE, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  CHECK_ERR(MPI_Iallreduce(x, y, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, NULL), MPI_ERR_REQUEST);
  /* a struct of an int and a double is not one predefined type */
  MPI_Datatype mixed;
  int lengths[2] = {1, 1};
  MPI_Aint displs[2] = {0, 8};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
  CHECK_MPI(MPI_Type_create_struct(2, lengths, displs, types, &mixed));
  CHECK_MPI(MPI_Type_commit(&mixed));
  CHECK_ERR(MPI_Allreduce(d, e, 1, mixed, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
  CHECK_MPI(MPI_Type_free(&mixed));
  /* operator handles */
  MPI_Op sum = MPI_SUM, user;
  CHECK_ERR(MPI_Op_free(&sum), MPI_ERR_OP);
  CHECK_ERR(MPI_Op_create(NULL, 1, &user), MPI_ERR_ARG);
  CHECK_MPI(MPI_Op_create(dummy, 1, &user));
  MPI_Op stale = user;
  CHECK_MPI(MPI_Op_free(&user));
  CHECK_ERR(MPI_Allreduce(x, y, 2, MPI_INT, stale, MPI_COMM_WORLD), MPI_ERR_OP);
  CHECK_ERR(MPI_Op_free(&user), MPI_ERR_OP);
  int commute;
  CHECK_ERR(MPI_Op_commutative(MPI_OP_NULL, &commute), MPI_ERR_OP);
  /* nothing above started a collective */
  x[0] = rank;
  CHECK_MPI(MPI_Allreduce(x, y, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  CHECK(y[0] == size - 1, "allreduce after the errors gave %d", y[0]);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &mat_type));
  CHECK_MPI(MPI_Type_commit(&mat_type));
  MPI_Datatype four;
  CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &four));
  CHECK_MPI(MPI_Type_create_resized(four, 0, 5 * sizeof(int), &holed_mat_type));
  CHECK_MPI(MPI_Type_commit(&holed_mat_type));
  CHECK_MPI(MPI_Type_free(&four));

  test_int();
  test_unsigned();
  test_short();
  test_long();
  test_uchar();
  test_int64();
  test_uint16();
  test_aint();
  test_ushort();
  test_ulong();
  test_llong();
  test_ullong();
  test_schar();
  test_int8();
  test_int16();
  test_int32();
  test_uint8();
  test_uint32();
  test_uint64();
  test_offset();
  test_count();
  test_byte();
  test_bool();
  test_float();
  test_double();
  test_long_double();
  complex_ops();
  loc_double_int();
  loc_2int();
  loc_float_int();
  loc_long_int();
  loc_short_int();
  loc_long_double_int();
  user_ops();
  scans();
  reduce_scatters();
  derived();
  large_allreduce();
  errors();

  CHECK_MPI(MPI_Type_free(&mat_type));
  CHECK_MPI(MPI_Type_free(&holed_mat_type));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
