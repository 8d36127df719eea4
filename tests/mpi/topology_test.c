/* Cartesian topologies: MPI_Dims_create against a table of cases; 2-D grids (periodic in one or
 * both dimensions) with coordinates, ranks and shifts checked against a row-major reference and
 * exercised with MPI_Sendrecv; Cart_sub rows and columns checked with an Allreduce; a grid smaller
 * than the job; bad arguments. */
#include <string.h>

#include "check.h"

static int size, me;

struct dims_case {
  int nnodes, ndims;
  int in[4];
  int out[4]; /* expected result, or error class in out[0] when failing */
  int fails;
};

static void check_dims_create(void) {
  static const struct dims_case cases[] = {
      {6, 2, {0, 0}, {3, 2}, 0},
      {7, 2, {0, 0}, {7, 1}, 0},
      {6, 3, {0, 3, 0}, {2, 3, 1}, 0},
      {7, 3, {0, 3, 0}, {MPI_ERR_DIMS}, 1},
      {12, 3, {0, 0, 0}, {3, 2, 2}, 0},
      {16, 4, {0, 0, 0, 0}, {2, 2, 2, 2}, 0},
      {72, 2, {0, 0}, {9, 8}, 0}, /* a greedy split of the prime factors gives 12 x 6 */
      {1, 3, {0, 0, 0}, {1, 1, 1}, 0},
      {24, 2, {0, 4}, {6, 4}, 0},
      {8, 2, {2, 4}, {2, 4}, 0},
      {8, 2, {2, 3}, {MPI_ERR_DIMS}, 1},
      {8, 2, {2, 2}, {MPI_ERR_DIMS}, 1},
      {30, 3, {0, 0, 0}, {5, 3, 2}, 0},
      {100, 3, {0, 0, 0}, {5, 5, 4}, 0},
      {1024, 3, {0, 0, 0}, {16, 8, 8}, 0},
      {720, 4, {0, 0, 0, 0}, {6, 6, 5, 4}, 0},
      {2147483647, 2, {0, 0}, {2147483647, 1}, 0},
      {5, 1, {0}, {5}, 0},
      {5, 2, {-1, 0}, {MPI_ERR_DIMS}, 1},
      {0, 2, {0, 0}, {MPI_ERR_ARG}, 1},
      {4, -1, {0}, {MPI_ERR_DIMS}, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    const struct dims_case* c = &cases[i];
    int dims[4];
    memcpy(dims, c->in, sizeof dims);
    int code = MPI_Dims_create(c->nnodes, c->ndims, dims);
    if (c->fails) {
      int cls = -1;
      MPI_Error_class(code, &cls);
      CHECK(cls == c->out[0], "Dims_create(%d, %d) case %zu: class %d, expected %d", c->nnodes,
            c->ndims, i, cls, c->out[0]);
      continue;
    }
    CHECK(code == MPI_SUCCESS, "Dims_create(%d, %d) case %zu failed with %d", c->nnodes, c->ndims,
          i, code);
    for (int d = 0; d < c->ndims; ++d) {
      CHECK(dims[d] == c->out[d], "Dims_create(%d, %d) case %zu: dims[%d] = %d, expected %d",
            c->nnodes, c->ndims, i, d, dims[d], c->out[d]);
    }
  }
  /* Every job size: a 2-D grid that holds it exactly, largest dimension first. */
  for (int n = 1; n <= 64; ++n) {
    int dims[2] = {0, 0};
    CHECK_MPI(MPI_Dims_create(n, 2, dims));
    CHECK(dims[0] * dims[1] == n && dims[0] >= dims[1], "Dims_create(%d, 2) = %d x %d", n, dims[0],
          dims[1]);
    for (int d = dims[1] + 1; d * d <= n; ++d)
      CHECK(n % d != 0, "Dims_create(%d, 2) = %d x %d: %d x %d is more balanced", n, dims[0],
            dims[1], n / d, d);
  }
}

/* The reference: row-major coordinates of rank r on dims. */
static void coords_of(const int dims[2], int r, int out[2]) {
  out[0] = r / dims[1];
  out[1] = r % dims[1];
}
/* The rank at (x, y), wrapped where periodic, or MPI_PROC_NULL off a non-periodic edge. */
static int rank_at(const int dims[2], const int periods[2], int x, int y) {
  int at[2] = {x, y};
  for (int d = 0; d < 2; ++d) {
    if (periods[d])
      at[d] = ((at[d] % dims[d]) + dims[d]) % dims[d];
    else if (at[d] < 0 || at[d] >= dims[d])
      return MPI_PROC_NULL;
  }
  return at[0] * dims[1] + at[1];
}

static void check_grid(const int periods[2]) {
  int dims[2] = {0, 0};
  CHECK_MPI(MPI_Dims_create(size, 2, dims));
  MPI_Comm cart;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart));
  CHECK(cart != MPI_COMM_NULL, "a rank of a full grid got MPI_COMM_NULL");
  int status = -1, ndims = -1, rank = -1;
  CHECK_MPI(MPI_Topo_test(cart, &status));
  CHECK(status == MPI_CART, "Topo_test %d", status);
  CHECK_MPI(MPI_Cartdim_get(cart, &ndims));
  CHECK(ndims == 2, "Cartdim_get %d", ndims);
  CHECK_MPI(MPI_Comm_rank(cart, &rank));
  CHECK(rank == me, "reorder is ignored: rank %d on the grid, %d in the world", rank, me);
  int got_dims[2], got_periods[2], got_coords[2], mine[2];
  CHECK_MPI(MPI_Cart_get(cart, 2, got_dims, got_periods, got_coords));
  coords_of(dims, me, mine);
  for (int d = 0; d < 2; ++d) {
    CHECK(got_dims[d] == dims[d] && got_periods[d] == periods[d] && got_coords[d] == mine[d],
          "Cart_get dimension %d: %d %d %d, expected %d %d %d", d, got_dims[d], got_periods[d],
          got_coords[d], dims[d], periods[d], mine[d]);
  }
  /* coordinates <-> ranks for every rank */
  for (int r = 0; r < size; ++r) {
    int coords[2], expected[2], back = -1;
    CHECK_MPI(MPI_Cart_coords(cart, r, 2, coords));
    coords_of(dims, r, expected);
    CHECK(coords[0] == expected[0] && coords[1] == expected[1], "coords of %d: (%d, %d)", r,
          coords[0], coords[1]);
    CHECK_MPI(MPI_Cart_rank(cart, coords, &back));
    CHECK(back == r, "rank of (%d, %d): %d, expected %d", coords[0], coords[1], back, r);
  }
  /* periodic coordinates wrap; others are errors */
  for (int d = 0; d < 2; ++d) {
    int coords[2] = {mine[0], mine[1]}, wrapped = -1;
    coords[d] = mine[d] - dims[d];
    int code = MPI_Cart_rank(cart, coords, &wrapped);
    if (periods[d]) {
      CHECK(code == MPI_SUCCESS && wrapped == me, "wrapped rank %d, expected %d", wrapped, me);
    } else {
      CHECK_ERR(code, MPI_ERR_ARG);
    }
  }
  /* shifts by 1, -1, 2, a whole turn plus one and 0 (a rank's own source and destination), with
   * an exchange along each */
  const int displacements[5] = {1, -1, 2, 0, 0};
  for (int d = 0; d < 2; ++d) {
    for (int i = 0; i < 5; ++i) {
      const int disp = i == 3 ? dims[d] + 1 : displacements[i];
      int source = -7, dest = -7;
      CHECK_MPI(MPI_Cart_shift(cart, d, disp, &source, &dest));
      const int step[2] = {d == 0 ? disp : 0, d == 1 ? disp : 0};
      const int want_dest = rank_at(dims, periods, mine[0] + step[0], mine[1] + step[1]);
      const int want_source = rank_at(dims, periods, mine[0] - step[0], mine[1] - step[1]);
      CHECK(source == want_source && dest == want_dest,
            "shift dim %d by %d: source %d dest %d, expected %d %d", d, disp, source, dest,
            want_source, want_dest);
      int sent = 100 * me + d, got = -1;
      MPI_Status st;
      CHECK_MPI(MPI_Sendrecv(&sent, 1, MPI_INT, dest, 3, &got, 1, MPI_INT, source, 3, cart, &st));
      if (source == MPI_PROC_NULL) {
        CHECK(got == -1 && st.MPI_SOURCE == MPI_PROC_NULL, "received %d from MPI_PROC_NULL", got);
      } else {
        CHECK(got == 100 * source + d, "shift dim %d by %d: got %d from %d", d, disp, got, source);
      }
    }
  }
  /* rows (keep dimension 1) and columns (keep dimension 0) */
  for (int keep = 0; keep < 2; ++keep) {
    int remain[2] = {keep == 0, keep == 1};
    MPI_Comm sub;
    CHECK_MPI(MPI_Cart_sub(cart, remain, &sub));
    int sub_size = -1, sub_rank = -1, sub_ndims = -1;
    CHECK_MPI(MPI_Comm_size(sub, &sub_size));
    CHECK_MPI(MPI_Comm_rank(sub, &sub_rank));
    CHECK_MPI(MPI_Cartdim_get(sub, &sub_ndims));
    CHECK(sub_size == dims[keep] && sub_rank == mine[keep] && sub_ndims == 1,
          "sub keeping %d: size %d rank %d ndims %d", keep, sub_size, sub_rank, sub_ndims);
    int sub_dims = -1, sub_period = -1, sub_coord = -1;
    CHECK_MPI(MPI_Cart_get(sub, 1, &sub_dims, &sub_period, &sub_coord));
    CHECK(sub_dims == dims[keep] && sub_period == periods[keep] && sub_coord == mine[keep],
          "sub Cart_get %d %d %d", sub_dims, sub_period, sub_coord);
    /* the world ranks of my row (or column), summed */
    int sum = -1, expected = 0;
    for (int r = 0; r < size; ++r) {
      int c[2];
      coords_of(dims, r, c);
      if (c[1 - keep] == mine[1 - keep]) expected += r;
    }
    CHECK_MPI(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, sub));
    CHECK(sum == expected, "sub keeping %d: sum %d, expected %d", keep, sum, expected);
    CHECK_MPI(MPI_Comm_free(&sub));
  }
  {
    int remain[2] = {0, 0};
    MPI_Comm alone;
    int n = -1, nd = -1;
    CHECK_MPI(MPI_Cart_sub(cart, remain, &alone));
    CHECK_MPI(MPI_Comm_size(alone, &n));
    CHECK_MPI(MPI_Cartdim_get(alone, &nd));
    CHECK(n == 1 && nd == 0, "sub keeping nothing: size %d ndims %d", n, nd);
    CHECK_MPI(MPI_Comm_free(&alone));
  }
  /* a duplicate keeps the topology */
  MPI_Comm copy;
  CHECK_MPI(MPI_Comm_dup(cart, &copy));
  CHECK_MPI(MPI_Topo_test(copy, &status));
  CHECK_MPI(MPI_Cart_get(copy, 2, got_dims, got_periods, got_coords));
  CHECK(status == MPI_CART && got_dims[0] == dims[0] && got_periods[1] == periods[1],
        "dup lost the topology");
  CHECK_MPI(MPI_Comm_free(&copy));
  /* bad arguments */
  int coords[2];
  CHECK_ERR(MPI_Cart_coords(cart, size, 2, coords), MPI_ERR_RANK);
  CHECK_ERR(MPI_Cart_coords(cart, -1, 2, coords), MPI_ERR_RANK);
  CHECK_ERR(MPI_Cart_coords(cart, 0, 1, coords), MPI_ERR_ARG);
  CHECK_ERR(MPI_Cart_get(cart, 1, got_dims, got_periods, got_coords), MPI_ERR_ARG);
  int s, t;
  CHECK_ERR(MPI_Cart_shift(cart, 2, 1, &s, &t), MPI_ERR_ARG);
  CHECK_ERR(MPI_Cart_shift(cart, -1, 1, &s, &t), MPI_ERR_ARG);
  CHECK_MPI(MPI_Comm_free(&cart));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &me));

  check_dims_create();
  const int both[2] = {1, 1}, first[2] = {1, 0}, neither[2] = {0, 0};
  check_grid(both);
  check_grid(first);
  check_grid(neither);

  /* a grid smaller than the job: the ranks beyond it get MPI_COMM_NULL */
  {
    int dims[1] = {size > 1 ? size - 1 : 1}, periods[1] = {0};
    MPI_Comm line;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &line));
    if (me < dims[0]) {
      int n = -1, src, dst;
      CHECK(line != MPI_COMM_NULL, "rank %d is on the grid", me);
      CHECK_MPI(MPI_Comm_size(line, &n));
      CHECK(n == dims[0], "line of %d", n);
      CHECK_MPI(MPI_Cart_shift(line, 0, 1, &src, &dst));
      CHECK(src == (me == 0 ? MPI_PROC_NULL : me - 1) &&
                dst == (me == dims[0] - 1 ? MPI_PROC_NULL : me + 1),
            "line shift %d %d", src, dst);
      CHECK_MPI(MPI_Comm_free(&line));
    } else {
      CHECK(line == MPI_COMM_NULL, "rank %d is beyond the grid", me);
    }
    int newrank = -5;
    CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &newrank));
    CHECK(newrank == (me < dims[0] ? me : MPI_UNDEFINED), "Cart_map gave %d", newrank);
  }
  /* zero dimensions: a grid of one point */
  {
    MPI_Comm point;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &point));
    if (me == 0) {
      int n = -1, nd = -1, r = -1;
      CHECK_MPI(MPI_Comm_size(point, &n));
      CHECK_MPI(MPI_Cartdim_get(point, &nd));
      CHECK_MPI(MPI_Cart_rank(point, NULL, &r));
      CHECK(n == 1 && nd == 0 && r == 0, "zero-dimensional grid: %d %d %d", n, nd, r);
      CHECK_MPI(MPI_Comm_free(&point));
    } else {
      CHECK(point == MPI_COMM_NULL, "rank %d is beyond a one-point grid", me);
    }
  }
  /* errors */
  {
    int status = -1, nd, too_big[2] = {size, 2}, zero[1] = {0}, periods[2] = {0, 0};
    MPI_Comm out;
    CHECK_MPI(MPI_Topo_test(MPI_COMM_WORLD, &status));
    CHECK(status == MPI_UNDEFINED, "world's topology %d", status);
    CHECK_ERR(MPI_Cartdim_get(MPI_COMM_WORLD, &nd), MPI_ERR_TOPOLOGY);
    CHECK_ERR(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &nd, &nd), MPI_ERR_TOPOLOGY);
    CHECK_ERR(MPI_Cart_create(MPI_COMM_WORLD, 2, too_big, periods, 0, &out), MPI_ERR_ARG);
    CHECK_ERR(MPI_Cart_create(MPI_COMM_WORLD, 1, zero, periods, 0, &out), MPI_ERR_DIMS);
    CHECK_ERR(MPI_Cart_create(MPI_COMM_WORLD, -1, zero, periods, 0, &out), MPI_ERR_DIMS);
    CHECK_ERR(MPI_Cart_create(MPI_COMM_NULL, 1, zero, periods, 0, &out), MPI_ERR_COMM);
    CHECK_ERR(MPI_Cart_map(MPI_COMM_WORLD, 2, too_big, periods, &nd), MPI_ERR_ARG);
    CHECK_ERR(MPI_Topo_test(MPI_COMM_NULL, &status), MPI_ERR_COMM);
  }
  CHECK_MPI(MPI_Finalize());
  return 0;
}
