/* The C API's global operations (rmpl.h), in plain C11, under rmplrun with any number of ranks:
 * each compared with the value computed here from every rank's known input. Prints a TAP line per
 * check (tap.h) and exits non-zero if any check failed. */
#include <rmpl.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

/* A non-commutative user operator: 2x2 integer matrices multiplied mod 1000003. A result equal to
 * M_0 * M_1 * ... * M_{n-1} proves the operands were combined in rank order. */
typedef struct matrix {
  int64_t a, b, c, d;
} matrix;
enum { modulus = 1000003 };

static matrix multiply(matrix x, matrix y) {
  matrix r = {(x.a * y.a + x.b * y.c) % modulus, (x.a * y.b + x.b * y.d) % modulus,
              (x.c * y.a + x.d * y.c) % modulus, (x.c * y.b + x.d * y.d) % modulus};
  return r;
}
static matrix matrix_of(int r) {
  matrix m = {r + 1, 2 * r + 3, r % 3, 1};
  return m;
}
static int user_calls = 0;
static void matrix_product(const void* in, void* inout, size_t count, void* context) {
  const matrix* x = in;
  matrix* y = inout;
  for (size_t i = 0; i < count; ++i) y[i] = multiply(x[i], y[i]);
  ++*(int*)context;
}

static void test_barrier_and_broadcast(void) {
  check_code(rmpl_barrier(), RMPL_SUCCESS, "rmpl_barrier");
  for (int root = 0; root < size; ++root) {
    double values[5] = {0};
    if (rank == root) {
      for (int i = 0; i < 5; ++i) values[i] = root * 10.0 + i;
    }
    int rc = rmpl_broadcast(values, sizeof values, root);
    int right = rc == RMPL_SUCCESS;
    for (int i = 0; i < 5; ++i) right = right && values[i] == root * 10.0 + i;
    check(right, "rmpl_broadcast from every root");
  }
}

static void test_reductions(void) {
  int64_t mine[3] = {rank + 1, -rank, 7 * rank}, sum[3] = {0}, max[3] = {0};
  int64_t want_sum[3] = {0}, want_max[3] = {1, 0, 0};
  for (int r = 0; r < size; ++r) {
    want_sum[0] += r + 1;
    want_sum[1] += -r;
    want_sum[2] += 7 * r;
  }
  want_max[0] = size;
  want_max[2] = 7 * (size - 1);
  check_code(rmpl_allreduce(mine, sum, 3, RMPL_INT64, RMPL_SUM), RMPL_SUCCESS, "rmpl_allreduce");
  check(memcmp(sum, want_sum, sizeof sum) == 0, "rmpl_allreduce RMPL_SUM on RMPL_INT64");
  const int root = size - 1;
  check_code(rmpl_reduce(mine, max, 3, RMPL_INT64, RMPL_MAX, root), RMPL_SUCCESS, "rmpl_reduce");
  if (rank == root) check(memcmp(max, want_max, sizeof max) == 0, "rmpl_reduce RMPL_MAX at root");

  /* The user operator, non-commutative: reduce to every root, allreduce and scan. */
  rmpl_op product;
  check_code(rmpl_op_create(matrix_product, sizeof(matrix), 0, &user_calls, &product), RMPL_SUCCESS,
             "rmpl_op_create");
  matrix want = matrix_of(0);
  for (int r = 1; r < size; ++r) want = multiply(want, matrix_of(r));
  const matrix m = matrix_of(rank);
  for (int r = 0; r < size; ++r) {
    matrix got = {0, 0, 0, 0};
    int rc = rmpl_reduce(&m, &got, 1, RMPL_TYPE_NONE, product, r);
    if (rank == r) {
      check(rc == RMPL_SUCCESS && memcmp(&got, &want, sizeof got) == 0,
            "rmpl_reduce with a non-commutative user operator keeps rank order");
    }
  }
  matrix all = {0, 0, 0, 0};
  check_code(rmpl_allreduce(&m, &all, 1, RMPL_TYPE_NONE, product), RMPL_SUCCESS,
             "rmpl_allreduce with a user operator");
  check(memcmp(&all, &want, sizeof all) == 0, "... gives M_0 * M_1 * ... on every rank");
  matrix prefix = {0, 0, 0, 0}, want_prefix = matrix_of(0);
  for (int r = 1; r <= rank; ++r) want_prefix = multiply(want_prefix, matrix_of(r));
  check_code(rmpl_scan(&m, &prefix, 1, RMPL_TYPE_NONE, product), RMPL_SUCCESS, "rmpl_scan");
  check(memcmp(&prefix, &want_prefix, sizeof prefix) == 0, "rmpl_scan keeps rank order");
  check(size == 1 || user_calls > 0, "the user function was called");
  check_code(rmpl_op_free(&product), RMPL_SUCCESS, "rmpl_op_free");
  check_code(rmpl_allreduce(&m, &all, 1, RMPL_TYPE_NONE, product), RMPL_ERR_ARGUMENT,
             "a freed operator is rejected");

  /* minloc on {double, int} pairs. */
  struct {
    double value;
    int index;
  } in = {(double)((rank * 7) % 5), rank}, out = {0, 0};
  check_code(rmpl_allreduce(&in, &out, 1, RMPL_DOUBLE_INT, RMPL_MINLOC), RMPL_SUCCESS,
             "rmpl_allreduce RMPL_MINLOC");
  check(out.value == 0.0 && out.index == 0, "... finds the smallest value and its rank");
  check_code(rmpl_allreduce(mine, sum, 3, RMPL_DOUBLE, RMPL_BXOR), RMPL_ERR_ARGUMENT,
             "bitwise xor on doubles is rejected");
}

static void test_data_movement(void) {
  const size_t n = (size_t)size;
  int* all = calloc(n * 2, sizeof(int));
  int* blocks = calloc(n * 2, sizeof(int));
  int mine[2] = {rank * 100, rank * 100 + 1};
  int right;

  check_code(rmpl_allgather(mine, sizeof mine, all), RMPL_SUCCESS, "rmpl_allgather");
  right = 1;
  for (size_t r = 0; r < n; ++r)
    right = right && all[2 * r] == (int)r * 100 && all[2 * r + 1] == (int)r * 100 + 1;
  check(right, "rmpl_allgather puts every rank's block in rank order");

  memset(all, 0, n * 2 * sizeof(int));
  check_code(rmpl_gather(mine, sizeof mine, all, 0), RMPL_SUCCESS, "rmpl_gather");
  if (rank == 0) {
    right = 1;
    for (size_t r = 0; r < n; ++r) right = right && all[2 * r] == (int)r * 100;
    check(right, "rmpl_gather at the root");
  }

  for (size_t r = 0; r < 2 * n; ++r) blocks[r] = (int)(1000 * rank + r);
  int piece[2] = {-1, -1};
  check_code(rmpl_scatter(blocks, piece, sizeof piece, 0), RMPL_SUCCESS, "rmpl_scatter");
  check(piece[0] == 2 * rank && piece[1] == 2 * rank + 1, "rmpl_scatter gives each rank its block");

  /* alltoall: block j of rank i holds i * 1000 + j. */
  int* in = calloc(n, sizeof(int));
  int* out = calloc(n, sizeof(int));
  for (size_t j = 0; j < n; ++j) in[j] = rank * 1000 + (int)j;
  rmpl_handle h = 0;
  check_code(rmpl_ialltoall(in, out, sizeof(int), &h), RMPL_SUCCESS, "rmpl_ialltoall");
  check_code(rmpl_wait(&h, NULL), RMPL_SUCCESS, "rmpl_wait on a collective");
  right = 1;
  for (size_t i = 0; i < n; ++i) right = right && out[i] == (int)i * 1000 + rank;
  check(right, "rmpl_ialltoall transposes the blocks");

  /* allgatherv: rank r contributes r + 1 ints. */
  size_t* counts = calloc(n, sizeof(size_t));
  size_t total = 0;
  for (size_t r = 0; r < n; ++r) {
    counts[r] = (r + 1) * sizeof(int);
    total += r + 1;
  }
  int* contribution = calloc((size_t)rank + 1, sizeof(int));
  for (int i = 0; i <= rank; ++i) contribution[i] = rank;
  int* gathered = calloc(total, sizeof(int));
  check_code(
      rmpl_allgatherv(contribution, ((size_t)rank + 1) * sizeof(int), gathered, counts, NULL),
      RMPL_SUCCESS, "rmpl_allgatherv");
  right = 1;
  size_t at = 0;
  for (size_t r = 0; r < n; ++r) {
    for (size_t i = 0; i <= r; ++i) right = right && gathered[at++] == (int)r;
  }
  check(right, "rmpl_allgatherv packs uneven blocks in rank order");

  check_code(rmpl_broadcast(mine, sizeof mine, size), RMPL_ERR_RANK,
             "a root out of range is rejected");
  check(strstr(rmpl_last_error(), "root") != NULL, "... and the message names the root");

  free(all);
  free(blocks);
  free(in);
  free(out);
  free(counts);
  free(contribution);
  free(gathered);
}

int main(int argc, char** argv) {
  tap_init(&argc, &argv);
  test_barrier_and_broadcast();
  test_reductions();
  test_data_movement();
  return tap_finish();
}
