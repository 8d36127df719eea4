/* MPI_Type_create_darray: for block, cyclic and undistributed dimensions, default and explicit
 * distribution arguments, C and Fortran order, every rank's type (built on every rank) packs the
 * global array into exactly the local array a reference computed here expects (owner and local
 * index of each global element from HPF's formulas), the ranks' parts cover the array once, size
 * and extent are right; rank 0 scatters the array with the types and gathers it back; the
 * envelope and contents; the error classes of bad arguments. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define MAXDIMS 3

static int rank, size;

struct config {
  const char* name;
  int ndims;
  int gsizes[MAXDIMS];
  int distribs[MAXDIMS];
  int dargs[MAXDIMS]; /* 0: a block size chosen below from the grid */
};

/* Owner coordinate and local index of global index i along one dimension, and the local size. */
static int block_of(int distrib, int darg, int gsize, int p) {
  if (distrib == MPI_DISTRIBUTE_BLOCK)
    return darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + p - 1) / p : darg;
  if (distrib == MPI_DISTRIBUTE_CYCLIC) return darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
  return gsize;
}
static int owner(int distrib, int b, int p, int i) {
  if (distrib == MPI_DISTRIBUTE_NONE) return 0;
  if (distrib == MPI_DISTRIBUTE_BLOCK) return i / b;
  return (i / b) % p;
}
static int local_index(int distrib, int b, int p, int i) {
  if (distrib == MPI_DISTRIBUTE_NONE) return i;
  if (distrib == MPI_DISTRIBUTE_BLOCK) return i % b;
  return (i / (b * p)) * b + i % b;
}

/* Linear position of multi-index `at` in an array of `n` in `order`. */
static int linear(int ndims, const int* at, const int* n, int order) {
  int pos = 0;
  if (order == MPI_ORDER_C) {
    for (int d = 0; d < ndims; ++d) pos = pos * n[d] + at[d];
  } else {
    for (int d = ndims - 1; d >= 0; --d) pos = pos * n[d] + at[d];
  }
  return pos;
}

/* The reference: the local array of process `r` (global array values = their memory position),
 * its length in *count. */
static int* expected_local(const struct config* c, const int* psizes, const int* dargs, int order,
                           int r, int* count) {
  int coords[MAXDIMS], rest = r, lsizes[MAXDIMS], b[MAXDIMS], total = 1, global = 1;
  for (int d = c->ndims - 1; d >= 0; --d) {
    coords[d] = rest % psizes[d];
    rest /= psizes[d];
  }
  for (int d = 0; d < c->ndims; ++d) {
    b[d] = block_of(c->distribs[d], dargs[d], c->gsizes[d], psizes[d]);
    lsizes[d] = 0;
    for (int i = 0; i < c->gsizes[d]; ++i) {
      lsizes[d] += owner(c->distribs[d], b[d], psizes[d], i) == coords[d];
    }
    total *= lsizes[d];
    global *= c->gsizes[d];
  }
  int* local = malloc(sizeof(int) * (size_t)(total > 0 ? total : 1));
  for (int pos = 0; pos < global; ++pos) {
    int at[MAXDIMS], rem = pos, mine = 1, lat[MAXDIMS];
    /* the multi-index of memory position pos */
    if (order == MPI_ORDER_C) {
      for (int d = c->ndims - 1; d >= 0; --d) {
        at[d] = rem % c->gsizes[d];
        rem /= c->gsizes[d];
      }
    } else {
      for (int d = 0; d < c->ndims; ++d) {
        at[d] = rem % c->gsizes[d];
        rem /= c->gsizes[d];
      }
    }
    for (int d = 0; d < c->ndims; ++d) {
      mine &= owner(c->distribs[d], b[d], psizes[d], at[d]) == coords[d];
      lat[d] = local_index(c->distribs[d], b[d], psizes[d], at[d]);
    }
    if (mine) local[linear(c->ndims, lat, lsizes, order)] = pos;
  }
  *count = total;
  return local;
}

static void run(const struct config* c, int order) {
  /* The process grid: MPI_Dims_create over the distributed dimensions, 1 for the others. */
  int psizes[MAXDIMS], dargs[MAXDIMS], distributed = 0, dims[MAXDIMS] = {0, 0, 0}, global = 1;
  for (int d = 0; d < c->ndims; ++d) distributed += c->distribs[d] != MPI_DISTRIBUTE_NONE;
  CHECK_MPI(MPI_Dims_create(size, distributed, dims));
  for (int d = 0, k = 0; d < c->ndims; ++d) {
    psizes[d] = c->distribs[d] == MPI_DISTRIBUTE_NONE ? 1 : dims[k++];
    /* darg 0 in the table: an explicit block one larger than needed (the last process may get
     * nothing), or cyclic blocks of 2. */
    dargs[d] = c->dargs[d];
    if (dargs[d] == 0) {
      dargs[d] = c->distribs[d] == MPI_DISTRIBUTE_BLOCK
                     ? (c->gsizes[d] + psizes[d] - 1) / psizes[d] + 1
                     : 2;
    }
    global *= c->gsizes[d];
  }
  int* array = malloc(sizeof(int) * (size_t)global);
  int* owners = calloc((size_t)global, sizeof(int));
  int* packed = malloc(sizeof(int) * (size_t)global);
  for (int i = 0; i < global; ++i) array[i] = i;

  MPI_Datatype mine = MPI_DATATYPE_NULL;
  MPI_Request* sends = malloc(sizeof(MPI_Request) * (size_t)size);
  MPI_Datatype* types = malloc(sizeof(MPI_Datatype) * (size_t)size);
  for (int r = 0; r < size; ++r) {
    MPI_Datatype t;
    CHECK_MPI(MPI_Type_create_darray(size, r, c->ndims, c->gsizes, c->distribs, dargs, psizes,
                                     order, MPI_INT, &t));
    CHECK_MPI(MPI_Type_commit(&t));
    int count = 0, bytes = -1;
    int* expect = expected_local(c, psizes, dargs, order, r, &count);
    MPI_Aint lb = -1, extent = -1;
    CHECK_MPI(MPI_Type_size(t, &bytes));
    CHECK_MPI(MPI_Type_get_extent(t, &lb, &extent));
    CHECK(bytes == count * (int)sizeof(int), "%s order %d rank %d: size %d, expected %d ints",
          c->name, order, r, bytes, count);
    CHECK(lb == 0 && extent == (MPI_Aint)(global * sizeof(int)),
          "%s order %d rank %d: lb %ld extent %ld, expected 0 and %d ints", c->name, order, r,
          (long)lb, (long)extent, global);
    int position = 0;
    CHECK_MPI(MPI_Pack(array, 1, t, packed, (int)(sizeof(int) * (size_t)global), &position,
                       MPI_COMM_WORLD));
    CHECK(position == bytes, "%s: packed %d bytes of %d", c->name, position, bytes);
    for (int i = 0; i < count; ++i) {
      CHECK(packed[i] == expect[i],
            "%s order %s rank %d of grid %dx%dx%d: local element %d is global %d, expected %d",
            c->name, order == MPI_ORDER_C ? "C" : "Fortran", r, psizes[0],
            c->ndims > 1 ? psizes[1] : 1, c->ndims > 2 ? psizes[2] : 1, i, packed[i], expect[i]);
      ++owners[packed[i]];
    }
    free(expect);
    types[r] = t;
  }
  mine = types[rank];
  for (int i = 0; i < global; ++i) {
    CHECK(owners[i] == 1, "%s: global element %d is held by %d ranks", c->name, i, owners[i]);
  }

  /* Scatter from rank 0 with the types, every rank receiving its local array as plain ints. */
  int count = 0;
  int* expect = expected_local(c, psizes, dargs, order, rank, &count);
  int* local = malloc(sizeof(int) * (size_t)(count + 1));
  MPI_Request recv;
  CHECK_MPI(MPI_Irecv(local, count, MPI_INT, 0, 1, MPI_COMM_WORLD, &recv));
  if (rank == 0) {
    for (int r = 0; r < size; ++r) {
      CHECK_MPI(MPI_Isend(array, 1, types[r], r, 1, MPI_COMM_WORLD, &sends[r]));
    }
    CHECK_MPI(MPI_Waitall(size, sends, MPI_STATUSES_IGNORE));
  }
  CHECK_MPI(MPI_Wait(&recv, MPI_STATUS_IGNORE));
  for (int i = 0; i < count; ++i) {
    CHECK(local[i] == expect[i], "%s: scattered element %d is %d, expected %d", c->name, i,
          local[i], expect[i]);
    local[i] = -local[i] - 1; /* what goes back */
  }
  /* And gathered back into a fresh array on rank 0. */
  if (rank == 0) {
    for (int i = 0; i < global; ++i) packed[i] = 12345;
    for (int r = 0; r < size; ++r) {
      CHECK_MPI(MPI_Irecv(packed, 1, types[r], r, 2, MPI_COMM_WORLD, &sends[r]));
    }
  }
  CHECK_MPI(MPI_Send(local, count, MPI_INT, 0, 2, MPI_COMM_WORLD));
  if (rank == 0) {
    CHECK_MPI(MPI_Waitall(size, sends, MPI_STATUSES_IGNORE));
    for (int i = 0; i < global; ++i) {
      CHECK(packed[i] == -i - 1, "%s: gathered element %d is %d", c->name, i, packed[i]);
    }
  }

  /* The envelope and contents of this rank's type. */
  int ni = -1, na = -1, nd = -1, combiner = -1;
  CHECK_MPI(MPI_Type_get_envelope(mine, &ni, &na, &nd, &combiner));
  CHECK(combiner == MPI_COMBINER_DARRAY && ni == 4 * c->ndims + 4 && na == 0 && nd == 1,
        "envelope: combiner %d, %d ints, %d addresses, %d types", combiner, ni, na, nd);
  int ints[4 * MAXDIMS + 4];
  MPI_Datatype old;
  CHECK_MPI(MPI_Type_get_contents(mine, ni, 0, 1, ints, NULL, &old));
  CHECK(ints[0] == size && ints[1] == rank && ints[2] == c->ndims &&
            ints[3 + 3 * c->ndims] == psizes[0] && ints[ni - 1] == order && old == MPI_INT,
        "contents: size %d rank %d ndims %d psizes[0] %d order %d", ints[0], ints[1], ints[2],
        ints[3 + 3 * c->ndims], ints[ni - 1]);

  for (int r = 0; r < size; ++r) CHECK_MPI(MPI_Type_free(&types[r]));
  free(expect);
  free(local);
  free(types);
  free(sends);
  free(array);
  free(owners);
  free(packed);
}

static void errors(void) {
  const int g[2] = {10, 10}, block[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK},
            dflt[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
  int p[2] = {size, 1};
  MPI_Datatype t = MPI_DATATYPE_NULL;
  const int wrong_grid[2] = {size + 1, 1};
  CHECK_ERR(
      MPI_Type_create_darray(size, 0, 2, g, block, dflt, wrong_grid, MPI_ORDER_C, MPI_INT, &t),
      MPI_ERR_ARG);
  CHECK_ERR(MPI_Type_create_darray(size, size, 2, g, block, dflt, p, MPI_ORDER_C, MPI_INT, &t),
            MPI_ERR_RANK);
  CHECK_ERR(MPI_Type_create_darray(size, 0, 2, g, block, dflt, p, 99, MPI_INT, &t), MPI_ERR_ARG);
  CHECK_ERR(MPI_Type_create_darray(size, 0, 0, g, block, dflt, p, MPI_ORDER_C, MPI_INT, &t),
            MPI_ERR_ARG);
  const int none[2] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK};
  const int two_by_half[2] = {2, size / 2};
  if (size % 2 == 0) {
    CHECK_ERR(
        MPI_Type_create_darray(size, 0, 2, g, none, dflt, two_by_half, MPI_ORDER_C, MPI_INT, &t),
        MPI_ERR_ARG);
  }
  if (size > 1) {
    const int small[2] = {(g[0] + size - 1) / size - 1, MPI_DISTRIBUTE_DFLT_DARG};
    if (small[0] > 0) {
      CHECK_ERR(MPI_Type_create_darray(size, 0, 2, g, block, small, p, MPI_ORDER_C, MPI_INT, &t),
                MPI_ERR_ARG);
    }
  }
  const int zero_darg[2] = {0, MPI_DISTRIBUTE_DFLT_DARG};
  CHECK_ERR(MPI_Type_create_darray(size, 0, 2, g, block, zero_darg, p, MPI_ORDER_C, MPI_INT, &t),
            MPI_ERR_ARG);
  const int bad_distrib[2] = {7, MPI_DISTRIBUTE_BLOCK};
  CHECK_ERR(MPI_Type_create_darray(size, 0, 2, g, bad_distrib, dflt, p, MPI_ORDER_C, MPI_INT, &t),
            MPI_ERR_ARG);
  CHECK_ERR(
      MPI_Type_create_darray(size, 0, 2, g, block, dflt, p, MPI_ORDER_C, MPI_DATATYPE_NULL, &t),
      MPI_ERR_TYPE);
  CHECK(t == MPI_DATATYPE_NULL, "a failed constructor returned a type");
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  const int B = MPI_DISTRIBUTE_BLOCK, C = MPI_DISTRIBUTE_CYCLIC, N = MPI_DISTRIBUTE_NONE,
            D = MPI_DISTRIBUTE_DFLT_DARG;
  const struct config configs[] = {
      {"1d block", 1, {13}, {B}, {D}},
      {"1d cyclic", 1, {13}, {C}, {D}},
      {"2d block x cyclic", 2, {7, 10}, {B, C}, {D, D}},
      {"2d cyclic(2) x explicit block", 2, {9, 5}, {C, B}, {0, 0}},
      {"3d block x none x cyclic(3)", 3, {4, 6, 5}, {B, N, C}, {D, D, 3}},
      {"3d cyclic x cyclic(2) x none", 3, {5, 7, 3}, {C, C, N}, {D, 0, D}},
  };
  for (size_t i = 0; i < sizeof configs / sizeof configs[0]; ++i) {
    run(&configs[i], MPI_ORDER_C);
    run(&configs[i], MPI_ORDER_FORTRAN);
  }
  errors();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
