/* The large-count datatype bindings (MPI-4.0): every MPI_Type_*_c constructor lays out what its
 * int twin lays out (size, extents, packed bytes, and the data a ring of ranks moves with it);
 * their types describe themselves through MPI_Type_get_envelope_c / MPI_Type_get_contents_c
 * (counts as large counts) and are refused by the int MPI_Type_get_envelope; sizes an int cannot
 * hold come back from MPI_Type_size_c; MPI_Pack_c, MPI_Unpack_c, MPI_Pack_size_c and the
 * external32 ones agree with their twins; a user operator of MPI_Op_create_c reduces. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { n_ints = 64 };

static int rank, size;

/* Two types describe the same layout: same size, extents, packed bytes of `buffer`, and the
 * same data around the ring. */
static void same_layout(MPI_Datatype plain, MPI_Datatype large, const char* what) {
  MPI_Count size_a = -1, size_b = -2, lb_a = -1, lb_b = -2, ext_a = -1, ext_b = -2;
  CHECK_MPI(MPI_Type_size_c(plain, &size_a));
  CHECK_MPI(MPI_Type_size_c(large, &size_b));
  CHECK(size_a == size_b, "%s: size %lld, its int twin's %lld", what, (long long)size_b,
        (long long)size_a);
  CHECK_MPI(MPI_Type_get_extent_c(plain, &lb_a, &ext_a));
  CHECK_MPI(MPI_Type_get_extent_c(large, &lb_b, &ext_b));
  CHECK(lb_a == lb_b && ext_a == ext_b, "%s: lb %lld extent %lld, its twin's %lld %lld", what,
        (long long)lb_b, (long long)ext_b, (long long)lb_a, (long long)ext_a);
  CHECK_MPI(MPI_Type_get_true_extent_c(plain, &lb_a, &ext_a));
  CHECK_MPI(MPI_Type_get_true_extent_c(large, &lb_b, &ext_b));
  CHECK(lb_a == lb_b && ext_a == ext_b, "%s: true lb %lld extent %lld, its twin's %lld %lld", what,
        (long long)lb_b, (long long)ext_b, (long long)lb_a, (long long)ext_a);

  int buffer[4 * n_ints];
  for (int i = 0; i < 4 * n_ints; ++i) buffer[i] = rank * 10000 + i;
  char packed_a[4 * n_ints * sizeof(int)], packed_b[sizeof packed_a];
  int position = 0;
  CHECK_MPI(MPI_Pack(buffer, 1, plain, packed_a, (int)sizeof packed_a, &position, MPI_COMM_SELF));
  MPI_Count position_c = 0;
  CHECK_MPI(MPI_Pack_c(buffer, 1, large, packed_b, (MPI_Count)sizeof packed_b, &position_c,
                       MPI_COMM_SELF));
  CHECK(position == position_c && memcmp(packed_a, packed_b, (size_t)position) == 0,
        "%s: MPI_Pack_c packs %lld bytes, not what MPI_Pack packs (%d)", what,
        (long long)position_c, position);

  /* Around the ring: sent with the large type, received with the plain one. */
  int got[4 * n_ints];
  memset(got, 0, sizeof got);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  CHECK_MPI(MPI_Sendrecv_c(buffer, 1, large, next, 3, got, 1, plain, prev, 3, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
  char packed_got[sizeof packed_a];
  position = 0;
  CHECK_MPI(MPI_Pack(got, 1, plain, packed_got, (int)sizeof packed_got, &position, MPI_COMM_SELF));
  for (int i = 0; i < 4 * n_ints; ++i) buffer[i] = prev * 10000 + i;
  position = 0;
  CHECK_MPI(MPI_Pack(buffer, 1, plain, packed_a, (int)sizeof packed_a, &position, MPI_COMM_SELF));
  CHECK(memcmp(packed_a, packed_got, (size_t)position) == 0,
        "%s: the data of rank %d sent with the large type differs", what, prev);
}

/* The envelope of a large-count constructor's type: the int form refuses it, the _c form gives
 * `larges` large counts and `integers` integers; its contents give back `want`. */
static void envelope(MPI_Datatype t, int combiner, MPI_Count integers, MPI_Count larges,
                     const MPI_Count* want, const char* what) {
  int ni = 0, na = 0, nd = 0, c = 0;
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  const int code = MPI_Type_get_envelope(t, &ni, &na, &nd, &c);
  int error_class = MPI_SUCCESS;
  MPI_Error_class(code, &error_class);
  CHECK(error_class == MPI_ERR_TYPE, "%s: MPI_Type_get_envelope gives class %d, not MPI_ERR_TYPE",
        what, error_class);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  MPI_Count i = -1, a = -1, l = -1, d = -1;
  CHECK_MPI(MPI_Type_get_envelope_c(t, &i, &a, &l, &d, &c));
  CHECK(c == combiner && i == integers && a == 0 && l == larges,
        "%s: envelope combiner %d integers %lld addresses %lld large counts %lld", what, c,
        (long long)i, (long long)a, (long long)l);
  int ints[16];
  MPI_Aint addresses[1];
  MPI_Count counts[32];
  MPI_Datatype types[4];
  CHECK(l <= 32 && i <= 16 && d <= 4, "%s: contents too large for the test", what);
  CHECK_MPI(MPI_Type_get_contents_c(t, i, a, l, d, ints, addresses, counts, types));
  for (MPI_Count k = 0; k < l; ++k) {
    CHECK(counts[k] == want[k], "%s: large count %lld is %lld, want %lld", what, (long long)k,
          (long long)counts[k], (long long)want[k]);
  }
  for (MPI_Count k = 0; k < d; ++k) {
    MPI_Count ki = 0, ka = 0, kl = 0, kd = 0;
    int named = 0;
    CHECK_MPI(MPI_Type_get_envelope_c(types[k], &ki, &ka, &kl, &kd, &named));
    if (named != MPI_COMBINER_NAMED) CHECK_MPI(MPI_Type_free(&types[k]));
  }
}

static void constructors(void) {
  MPI_Datatype a, b;
  /* contiguous */
  CHECK_MPI(MPI_Type_contiguous(5, MPI_INT, &a));
  CHECK_MPI(MPI_Type_contiguous_c(5, MPI_INT, &b));
  CHECK_MPI(MPI_Type_commit(&a));
  CHECK_MPI(MPI_Type_commit(&b));
  same_layout(a, b, "MPI_Type_contiguous_c");
  envelope(b, MPI_COMBINER_CONTIGUOUS, 0, 1, (MPI_Count[]){5}, "MPI_Type_contiguous_c");
  CHECK_MPI(MPI_Type_free(&a));
  CHECK_MPI(MPI_Type_free(&b));

  /* vector and hvector */
  CHECK_MPI(MPI_Type_vector(6, 2, 5, MPI_INT, &a));
  CHECK_MPI(MPI_Type_vector_c(6, 2, 5, MPI_INT, &b));
  CHECK_MPI(MPI_Type_commit(&a));
  CHECK_MPI(MPI_Type_commit(&b));
  same_layout(a, b, "MPI_Type_vector_c");
  envelope(b, MPI_COMBINER_VECTOR, 0, 3, (MPI_Count[]){6, 2, 5}, "MPI_Type_vector_c");
  CHECK_MPI(MPI_Type_free(&a));
  CHECK_MPI(MPI_Type_free(&b));
  CHECK_MPI(MPI_Type_create_hvector(4, 3, 28, MPI_INT, &a));
  CHECK_MPI(MPI_Type_create_hvector_c(4, 3, 28, MPI_INT, &b));
  CHECK_MPI(MPI_Type_commit(&a));
  CHECK_MPI(MPI_Type_commit(&b));
  same_layout(a, b, "MPI_Type_create_hvector_c");
  envelope(b, MPI_COMBINER_HVECTOR, 0, 3, (MPI_Count[]){4, 3, 28}, "MPI_Type_create_hvector_c");
  CHECK_MPI(MPI_Type_free(&a));
  CHECK_MPI(MPI_Type_free(&b));

  /* indexed, hindexed, indexed_block, hindexed_block */
  const int lengths[] = {3, 1, 4};
  const int displs[] = {0, 7, 20};
  const MPI_Count lengths_c[] = {3, 1, 4}, displs_c[] = {0, 7, 20};
  const MPI_Aint bytes[] = {0, 28, 80};
  const MPI_Count bytes_c[] = {0, 28, 80};
  CHECK_MPI(MPI_Type_indexed(3, lengths, displs, MPI_INT, &a));
  CHECK_MPI(MPI_Type_indexed_c(3, lengths_c, displs_c, MPI_INT, &b));
  CHECK_MPI(MPI_Type_commit(&a));
  CHECK_MPI(MPI_Type_commit(&b));
  same_layout(a, b, "MPI_Type_indexed_c");
  envelope(b, MPI_COMBINER_INDEXED, 0, 7, (MPI_Count[]){3, 3, 1, 4, 0, 7, 20},
           "MPI_Type_indexed_c");
  CHECK_MPI(MPI_Type_free(&a));
  CHECK_MPI(MPI_Type_free(&b));
  CHECK_MPI(MPI_Type_create_hindexed(3, lengths, bytes, MPI_INT, &a));
  CHECK_MPI(MPI_Type_create_hindexed_c(3, lengths_c, bytes_c, MPI_INT, &b));
  CHECK_MPI(MPI_Type_commit(&a));
  CHECK_MPI(MPI_Type_commit(&b));
  same_layout(a, b, "MPI_Type_create_hindexed_c");
  envelope(b, MPI_COMBINER_HINDEXED, 0, 7, (MPI_Count[]){3, 3, 1, 4, 0, 28, 80},
           "MPI_Type_create_hindexed_c");
  CHECK_MPI(MPI_Type_free(&a));
  CHECK_MPI(MPI_Type_free(&b));
  CHECK_MPI(MPI_Type_create_indexed_block(3, 2, displs, MPI_INT, &a));
  CHECK_MPI(MPI_Type_create_indexed_block_c(3, 2, displs_c, MPI_INT, &b));
  CHECK_MPI(MPI_Type_commit(&a));
  CHECK_MPI(MPI_Type_commit(&b));
  same_layout(a, b, "MPI_Type_create_indexed_block_c");
  envelope(b, MPI_COMBINER_INDEXED_BLOCK, 0, 5, (MPI_Count[]){3, 2, 0, 7, 20},
           "MPI_Type_create_indexed_block_c");
  CHECK_MPI(MPI_Type_free(&a));
  CHECK_MPI(MPI_Type_free(&b));
  CHECK_MPI(MPI_Type_create_hindexed_block(3, 2, bytes, MPI_INT, &a));
  CHECK_MPI(MPI_Type_create_hindexed_block_c(3, 2, bytes_c, MPI_INT, &b));
  CHECK_MPI(MPI_Type_commit(&a));
  CHECK_MPI(MPI_Type_commit(&b));
  same_layout(a, b, "MPI_Type_create_hindexed_block_c");
  envelope(b, MPI_COMBINER_HINDEXED_BLOCK, 0, 5, (MPI_Count[]){3, 2, 0, 28, 80},
           "MPI_Type_create_hindexed_block_c");
  CHECK_MPI(MPI_Type_free(&a));
  CHECK_MPI(MPI_Type_free(&b));

  /* struct */
  const MPI_Datatype types[] = {MPI_INT, MPI_SHORT, MPI_INT};
  const MPI_Aint struct_bytes[] = {0, 16, 40};
  const MPI_Count struct_bytes_c[] = {0, 16, 40};
  CHECK_MPI(MPI_Type_create_struct(3, lengths, struct_bytes, types, &a));
  CHECK_MPI(MPI_Type_create_struct_c(3, lengths_c, struct_bytes_c, types, &b));
  CHECK_MPI(MPI_Type_commit(&a));
  CHECK_MPI(MPI_Type_commit(&b));
  same_layout(a, b, "MPI_Type_create_struct_c");
  envelope(b, MPI_COMBINER_STRUCT, 0, 7, (MPI_Count[]){3, 3, 1, 4, 0, 16, 40},
           "MPI_Type_create_struct_c");
  CHECK_MPI(MPI_Type_free(&a));
  CHECK_MPI(MPI_Type_free(&b));

  /* subarray: a 4 x 8 block of a 8 x 16 array... of ints, within the test's buffer (256 ints) */
  const int sizes[] = {8, 16}, subsizes[] = {4, 8}, starts[] = {2, 5};
  const MPI_Count sizes_c[] = {8, 16}, subsizes_c[] = {4, 8}, starts_c[] = {2, 5};
  CHECK_MPI(MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &a));
  CHECK_MPI(MPI_Type_create_subarray_c(2, sizes_c, subsizes_c, starts_c, MPI_ORDER_C, MPI_INT, &b));
  CHECK_MPI(MPI_Type_commit(&a));
  CHECK_MPI(MPI_Type_commit(&b));
  same_layout(a, b, "MPI_Type_create_subarray_c");
  envelope(b, MPI_COMBINER_SUBARRAY, 2, 6, (MPI_Count[]){8, 16, 4, 8, 2, 5},
           "MPI_Type_create_subarray_c");
  CHECK_MPI(MPI_Type_free(&a));
  CHECK_MPI(MPI_Type_free(&b));

  /* darray: 16 x 16 ints block-distributed over a 2 x 2 grid, this rank's part (rank % 4) */
  const int gsizes[] = {16, 16}, distribs[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
  const int dargs[] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, psizes[] = {2, 2};
  const MPI_Count gsizes_c[] = {16, 16};
  CHECK_MPI(MPI_Type_create_darray(4, rank % 4, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C,
                                   MPI_INT, &a));
  CHECK_MPI(MPI_Type_create_darray_c(4, rank % 4, 2, gsizes_c, distribs, dargs, psizes, MPI_ORDER_C,
                                     MPI_INT, &b));
  CHECK_MPI(MPI_Type_commit(&a));
  CHECK_MPI(MPI_Type_commit(&b));
  /* (Each rank's part differs: compared locally, not around the ring.) */
  MPI_Count s_a = 0, s_b = 0;
  CHECK_MPI(MPI_Type_size_c(a, &s_a));
  CHECK_MPI(MPI_Type_size_c(b, &s_b));
  CHECK(s_a == s_b && s_a == 64 * (MPI_Count)sizeof(int), "MPI_Type_create_darray_c: size %lld",
        (long long)s_b);
  envelope(b, MPI_COMBINER_DARRAY, 10, 2, (MPI_Count[]){16, 16}, "MPI_Type_create_darray_c");
  CHECK_MPI(MPI_Type_free(&a));
  CHECK_MPI(MPI_Type_free(&b));

  /* resized */
  CHECK_MPI(MPI_Type_create_resized(MPI_INT, -4, 12, &a));
  CHECK_MPI(MPI_Type_create_resized_c(MPI_INT, -4, 12, &b));
  CHECK_MPI(MPI_Type_commit(&a));
  CHECK_MPI(MPI_Type_commit(&b));
  same_layout(a, b, "MPI_Type_create_resized_c");
  envelope(b, MPI_COMBINER_RESIZED, 0, 2, (MPI_Count[]){-4, 12}, "MPI_Type_create_resized_c");
  CHECK_MPI(MPI_Type_free(&a));
  CHECK_MPI(MPI_Type_free(&b));
}

/* An int constructor's type through the _c envelope: no large counts, its integers as they are. */
static void int_type_envelope(void) {
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &t));
  MPI_Count i = -1, a = -1, l = -1, d = -1;
  int combiner = 0;
  CHECK_MPI(MPI_Type_get_envelope_c(t, &i, &a, &l, &d, &combiner));
  CHECK(combiner == MPI_COMBINER_VECTOR && i == 3 && a == 0 && l == 0 && d == 1,
        "MPI_Type_get_envelope_c of MPI_Type_vector's type: %d %lld %lld %lld %lld", combiner,
        (long long)i, (long long)a, (long long)l, (long long)d);
  int ints[3];
  MPI_Datatype old;
  CHECK_MPI(MPI_Type_get_contents_c(t, 3, 0, 0, 1, ints, NULL, NULL, &old));
  CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 4 && old == MPI_DOUBLE,
        "MPI_Type_get_contents_c of MPI_Type_vector's type: %d %d %d", ints[0], ints[1], ints[2]);
  CHECK_MPI(MPI_Type_free(&t));
}

/* Sizes beyond an int: a contiguous type of 3e9 ints (no memory: never used for data). */
static void beyond_int(void) {
  const MPI_Count big = 3000000000LL;
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_contiguous_c(big, MPI_INT, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  MPI_Count bytes = 0;
  CHECK_MPI(MPI_Type_size_c(t, &bytes));
  CHECK(bytes == big * 4, "MPI_Type_size_c of 3e9 ints: %lld", (long long)bytes);
  int small = 0;
  CHECK_MPI(MPI_Type_size(t, &small));
  CHECK(small == MPI_UNDEFINED, "MPI_Type_size of 12e9 bytes: %d, want MPI_UNDEFINED", small);
  MPI_Count lb = -1, extent = -1;
  CHECK_MPI(MPI_Type_get_extent_c(t, &lb, &extent));
  CHECK(lb == 0 && extent == big * 4, "MPI_Type_get_extent_c: %lld %lld", (long long)lb,
        (long long)extent);
  MPI_Count packed = 0;
  CHECK_MPI(MPI_Pack_size_c(1, t, MPI_COMM_WORLD, &packed));
  CHECK(packed == big * 4, "MPI_Pack_size_c: %lld", (long long)packed);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int error_class = MPI_SUCCESS;
  MPI_Error_class(MPI_Pack_size(1, t, MPI_COMM_WORLD, &small), &error_class);
  CHECK(error_class == MPI_ERR_COUNT, "MPI_Pack_size of 12e9 bytes: class %d, not MPI_ERR_COUNT",
        error_class);
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  CHECK_MPI(MPI_Type_free(&t));
}

/* MPI_Pack_c / MPI_Unpack_c and the external32 ones, round trips. */
static void packing(void) {
  double values[n_ints], back[n_ints];
  for (int i = 0; i < n_ints; ++i) values[i] = rank + i * 0.5;
  char packed[n_ints * sizeof(double) + 64];
  MPI_Count room = 0;
  CHECK_MPI(MPI_Pack_size_c(n_ints, MPI_DOUBLE, MPI_COMM_WORLD, &room));
  CHECK(room >= n_ints * (MPI_Count)sizeof(double), "MPI_Pack_size_c: %lld", (long long)room);
  MPI_Count position = 0;
  CHECK_MPI(MPI_Pack_c(values, n_ints, MPI_DOUBLE, packed, (MPI_Count)sizeof packed, &position,
                       MPI_COMM_WORLD));
  MPI_Count read = 0;
  memset(back, 0, sizeof back);
  CHECK_MPI(MPI_Unpack_c(packed, position, &read, back, n_ints, MPI_DOUBLE, MPI_COMM_WORLD));
  CHECK(read == position && memcmp(back, values, sizeof values) == 0,
        "MPI_Unpack_c gives back other values (read %lld of %lld)", (long long)read,
        (long long)position);

  MPI_Count external = 0;
  CHECK_MPI(MPI_Pack_external_size_c("external32", n_ints, MPI_DOUBLE, &external));
  CHECK(external == n_ints * 8, "MPI_Pack_external_size_c: %lld", (long long)external);
  position = 0;
  CHECK_MPI(MPI_Pack_external_c("external32", values, n_ints, MPI_DOUBLE, packed,
                                (MPI_Count)sizeof packed, &position));
  CHECK(position == external, "MPI_Pack_external_c wrote %lld bytes", (long long)position);
  MPI_Aint plain_position = 0;
  char plain_packed[sizeof packed];
  CHECK_MPI(MPI_Pack_external("external32", values, n_ints, MPI_DOUBLE, plain_packed,
                              (MPI_Aint)sizeof plain_packed, &plain_position));
  CHECK(memcmp(packed, plain_packed, (size_t)position) == 0,
        "MPI_Pack_external_c and MPI_Pack_external differ");
  read = 0;
  memset(back, 0, sizeof back);
  CHECK_MPI(MPI_Unpack_external_c("external32", packed, position, &read, back, n_ints, MPI_DOUBLE));
  CHECK(read == position && memcmp(back, values, sizeof values) == 0,
        "MPI_Unpack_external_c gives back other values");
}

/* A user operator of MPI_Op_create_c: elementwise max of |x|, its count an MPI_Count. */
static MPI_Count calls_with = -1;
static void max_magnitude(void* in, void* inout, MPI_Count* len, MPI_Datatype* type) {
  (void)type;
  const int* a = in;
  int* b = inout;
  calls_with = *len;
  for (MPI_Count i = 0; i < *len; ++i) {
    const int x = abs(a[i]), y = abs(b[i]);
    b[i] = x > y ? x : y;
  }
}

static void user_operator(void) {
  MPI_Op op;
  CHECK_MPI(MPI_Op_create_c(max_magnitude, 1, &op));
  int mine[n_ints], all[n_ints];
  for (int i = 0; i < n_ints; ++i) mine[i] = (rank % 2 ? -1 : 1) * (rank + i);
  CHECK_MPI(MPI_Allreduce_c(mine, all, n_ints, MPI_INT, op, MPI_COMM_WORLD));
  for (int i = 0; i < n_ints; ++i) {
    CHECK(all[i] == size - 1 + i, "MPI_Op_create_c's operator: element %d is %d, want %d", i,
          all[i], size - 1 + i);
  }
  int local[n_ints];
  for (int i = 0; i < n_ints; ++i) local[i] = -2 * i;
  memcpy(all, mine, sizeof mine);
  CHECK_MPI(MPI_Reduce_local_c(local, all, n_ints, MPI_INT, op));
  for (int i = 0; i < n_ints; ++i) {
    const int want = abs(mine[i]) > 2 * i ? abs(mine[i]) : 2 * i;
    CHECK(all[i] == want, "MPI_Reduce_local_c with the operator: element %d is %d, want %d", i,
          all[i], want);
  }
  CHECK(calls_with == n_ints, "MPI_Reduce_local_c called the operator with %lld elements",
        (long long)calls_with);
  CHECK_MPI(MPI_Op_free(&op));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  constructors();
  int_type_envelope();
  beyond_int();
  packing();
  user_operator();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
