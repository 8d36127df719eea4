/* The ten predefined operators that apply to C integers, in one order shared by the reduction
 * tests (index k: MAX, MIN, SUM, PROD, LAND, LOR, LXOR, BAND, BOR, BXOR), their names for messages,
 * and each one applied to two values as the tests' reference. */
#pragma once

#include <mpi.h>

enum { N_OPS = 10 };
static const char* const op_names[N_OPS] = {"MAX", "MIN",  "SUM",  "PROD", "LAND",
                                            "LOR", "LXOR", "BAND", "BOR",  "BXOR"};

static inline MPI_Op op_at(int k) {
  const MPI_Op ops[N_OPS] = {MPI_MAX, MPI_MIN,  MPI_SUM,  MPI_PROD, MPI_LAND,
                             MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR,  MPI_BXOR};
  return ops[k];
}

/* Operator k on a and b, as a reduction must combine them. */
static inline long apply_op(int k, long a, long b) {
  switch (k) {
    case 0:
      return a > b ? a : b;
    case 1:
      return a < b ? a : b;
    case 2:
      return a + b;
    case 3:
      return a * b;
    case 4:
      return (a != 0) && (b != 0);
    case 5:
      return (a != 0) || (b != 0);
    case 6:
      return (a != 0) != (b != 0);
    case 7:
      return a & b;
    case 8:
      return a | b;
    default:
      return a ^ b;
  }
}
