/* The MPI-4 large-count collectives (MPI_X_c: MPI_Count counts, MPI_Aint displacements), each in
 * its three forms (MPI_X_c, MPI_IX_c, MPI_X_init_c started twice with new data), with exact results
 * checked over the whole receive buffer (gaps and blocks not written must keep the sentinel -1):
 * the rooted ones at every root, uneven counts and displacements with gaps for the v and w forms, a
 * strided derived type (Bcast_c, Allgather_c), MPI_IN_PLACE (Allreduce_c, Allgather_c), the
 * neighbourhood ones on a periodic ring, MPI_Reduce_local_c; a count of -1 failing with
 * MPI_ERR_COUNT and a message naming the function; a count above INT_MAX (of a zero-size type)
 * passed through untruncated. */
#include <stdio.h>
#include <string.h>

#include "check.h"

enum mode { BLOCKING, NONBLOCKING, PERSISTENT };
static const char* mode_names[] = {"blocking", "nonblocking", "persistent"};

enum { N = 4, BUF = 64, ANY = -1000000 }; /* ints per block; ints per buffer; "not checked" */
static int rank, size, root, left, right;
static MPI_Comm ring; /* periodic 1-D Cartesian: sources and destinations {left, right} */
static MPI_Datatype vec, pair, zero; /* 3 ints every other one (extent 5); 2 ints; no data */
static int sbuf[BUF], rbuf[BUF];
static char what[200]; /* the call under check, for the messages */

static int v(int who, int round, int i) {
  return 10000 * round + 100 * who + i;
}
static int sum(int from, int to, int round, int i) { /* v over the ranks from..to-1 */
  int s = 0;
  for (int r = from; r < to; ++r) s += v(r, round, i);
  return s;
}

/* Uneven counts (1, 2, 3, 1, ...), their offsets packed, and displacements with gaps. */
static int cnt(int r) {
  return r % 3 + 1;
}
static int off(int r) {
  int o = 0;
  for (int q = 0; q < r; ++q) o += cnt(q);
  return o;
}
static int gap(int r) {
  return off(r) + 2 * r + 1;
}
static MPI_Count counts[8];
static MPI_Aint displs[8];
/* Alltoallv/w: rank s sends c(s, d) ints to d from int 4 d, d receives them at int 5 s + 1. */
static int c(int s, int d) {
  return (s + d) % 3 + 1;
}
static MPI_Count scounts[8], rcounts[8];
static MPI_Aint sdispls[8], rdispls[8], sbytes[8], rbytes[8];
static MPI_Datatype types[8];
/* Neighbourhood v and w forms: 2 ints to the left (from int 0), 3 to the right (from int 4);
 * received 3 from the left at int 1, 2 from the right at int 6 (the right one as one `pair`). */
static MPI_Count ncounts[2], nscounts[2] = {2, 3}, nrcounts[2] = {3, 2}, nwcounts[2] = {3, 1};
static MPI_Aint ndispls[2], nsdispls[2] = {0, 4}, nrdispls[2] = {1, 6};
static MPI_Aint nsbytes[2] = {0, 4 * sizeof(int)}, nrbytes[2] = {sizeof(int), 6 * sizeof(int)};
static MPI_Datatype nstypes[2], nrtypes[2];

/* The three forms of MPI_X_c: X is the name after MPI_, x the same after MPI_I. */
#define FORMS(m, r, X, x, ...)                                    \
  CHECK_MPI((m) == BLOCKING      ? MPI_##X##_c(__VA_ARGS__)       \
            : (m) == NONBLOCKING ? MPI_I##x##_c(__VA_ARGS__, (r)) \
                                 : MPI_##X##_init_c(__VA_ARGS__, MPI_INFO_NULL, (r)))

/* Inputs: every rank's own values, the receive buffer all sentinel. */
static void fill_own(int round) {
  for (int i = 0; i < BUF; ++i) sbuf[i] = v(rank, round, i), rbuf[i] = -1;
}
static void fill_bcast(int round) {
  for (int i = 0; i < BUF; ++i) rbuf[i] = rank == root ? v(root, round, i) : -1;
}
static void fill_allreduce_in_place(int round) {
  for (int i = 0; i < BUF; ++i) rbuf[i] = i < N ? v(rank, round, i) : -1;
}
static void fill_allgather_in_place(int round) { /* my block where a `vec` puts it */
  for (int i = 0; i < BUF; ++i)
    rbuf[i] = i / 5 == rank && i % 5 % 2 == 0 ? v(rank, round, i % 5 / 2) : -1;
}

/* The calls. */
static void bcast(enum mode m, MPI_Request* r) { /* 2 strided elements: ints 0 2 4 5 7 9 */
  FORMS(m, r, Bcast, bcast, rbuf, 2, vec, root, MPI_COMM_WORLD);
}
static void reduce(enum mode m, MPI_Request* r) {
  FORMS(m, r, Reduce, reduce, sbuf, rbuf, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
}
static void allreduce(enum mode m, MPI_Request* r) {
  FORMS(m, r, Allreduce, allreduce, sbuf, rbuf, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}
static void allreduce_in_place(enum mode m, MPI_Request* r) {
  FORMS(m, r, Allreduce, allreduce, MPI_IN_PLACE, rbuf, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}
static void scan(enum mode m, MPI_Request* r) {
  FORMS(m, r, Scan, scan, sbuf, rbuf, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}
static void exscan(enum mode m, MPI_Request* r) {
  FORMS(m, r, Exscan, exscan, sbuf, rbuf, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}
static void reduce_scatter_block(enum mode m, MPI_Request* r) {
  FORMS(m, r, Reduce_scatter_block, reduce_scatter_block, sbuf, rbuf, N, MPI_INT, MPI_SUM,
        MPI_COMM_WORLD);
}
static void reduce_scatter(enum mode m, MPI_Request* r) {
  FORMS(m, r, Reduce_scatter, reduce_scatter, sbuf, rbuf, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}
static void gather(enum mode m, MPI_Request* r) {
  FORMS(m, r, Gather, gather, sbuf, N, MPI_INT, rbuf, N, MPI_INT, root, MPI_COMM_WORLD);
}
static void gatherv(enum mode m, MPI_Request* r) {
  FORMS(m, r, Gatherv, gatherv, sbuf, cnt(rank), MPI_INT, rbuf, counts, displs, MPI_INT, root,
        MPI_COMM_WORLD);
}
static void scatter(enum mode m, MPI_Request* r) {
  FORMS(m, r, Scatter, scatter, sbuf, N, MPI_INT, rbuf, N, MPI_INT, root, MPI_COMM_WORLD);
}
static void scatterv(enum mode m, MPI_Request* r) {
  FORMS(m, r, Scatterv, scatterv, sbuf, counts, displs, MPI_INT, rbuf, cnt(rank), MPI_INT, root,
        MPI_COMM_WORLD);
}
static void allgather(enum mode m, MPI_Request* r) { /* ints 0 2 4 of each, packed */
  FORMS(m, r, Allgather, allgather, sbuf, 1, vec, rbuf, 3, MPI_INT, MPI_COMM_WORLD);
}
static void allgather_in_place(enum mode m, MPI_Request* r) {
  FORMS(m, r, Allgather, allgather, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rbuf, 1, vec,
        MPI_COMM_WORLD);
}
static void allgatherv(enum mode m, MPI_Request* r) {
  FORMS(m, r, Allgatherv, allgatherv, sbuf, cnt(rank), MPI_INT, rbuf, counts, displs, MPI_INT,
        MPI_COMM_WORLD);
}
static void alltoall(enum mode m, MPI_Request* r) {
  FORMS(m, r, Alltoall, alltoall, sbuf, N, MPI_INT, rbuf, N, MPI_INT, MPI_COMM_WORLD);
}
static void alltoallv(enum mode m, MPI_Request* r) {
  FORMS(m, r, Alltoallv, alltoallv, sbuf, scounts, sdispls, MPI_INT, rbuf, rcounts, rdispls,
        MPI_INT, MPI_COMM_WORLD);
}
static void alltoallw(enum mode m, MPI_Request* r) {
  FORMS(m, r, Alltoallw, alltoallw, sbuf, scounts, sbytes, types, rbuf, rcounts, rbytes, types,
        MPI_COMM_WORLD);
}
static void neighbor_allgather(enum mode m, MPI_Request* r) {
  FORMS(m, r, Neighbor_allgather, neighbor_allgather, sbuf, N, MPI_INT, rbuf, N, MPI_INT, ring);
}
static void neighbor_allgatherv(enum mode m, MPI_Request* r) {
  FORMS(m, r, Neighbor_allgatherv, neighbor_allgatherv, sbuf, cnt(rank), MPI_INT, rbuf, ncounts,
        ndispls, MPI_INT, ring);
}
static void neighbor_alltoall(enum mode m, MPI_Request* r) {
  FORMS(m, r, Neighbor_alltoall, neighbor_alltoall, sbuf, N, MPI_INT, rbuf, N, MPI_INT, ring);
}
static void neighbor_alltoallv(enum mode m, MPI_Request* r) {
  FORMS(m, r, Neighbor_alltoallv, neighbor_alltoallv, sbuf, nscounts, nsdispls, MPI_INT, rbuf,
        nrcounts, nrdispls, MPI_INT, ring);
}
static void neighbor_alltoallw(enum mode m, MPI_Request* r) {
  FORMS(m, r, Neighbor_alltoallw, neighbor_alltoallw, sbuf, nscounts, nsbytes, nstypes, rbuf,
        nwcounts, nrbytes, nrtypes, ring);
}
/* Counts above INT_MAX of a type without data: nothing moves, nothing fails. */
static void huge_bcast(enum mode m, MPI_Request* r) {
  FORMS(m, r, Bcast, bcast, rbuf, 3000000000, zero, root, MPI_COMM_WORLD);
}
static void huge_allreduce(enum mode m, MPI_Request* r) {
  FORMS(m, r, Allreduce, allreduce, sbuf, rbuf, 3000000000, zero, MPI_SUM, MPI_COMM_WORLD);
}
static void huge_allgather(enum mode m, MPI_Request* r) {
  FORMS(m, r, Allgather, allgather, sbuf, 3000000000, zero, rbuf, 3000000000, zero, MPI_COMM_WORLD);
}

/* What int i of the receive buffer must hold after the call (ANY: not checked). */
static int want_bcast(int round, int i) {
  return rank == root || (i < 10 && i % 5 % 2 == 0) ? v(root, round, i) : -1;
}
static int want_reduce(int round, int i) {
  return rank != root ? ANY : i < N ? sum(0, size, round, i) : -1;
}
static int want_allreduce(int round, int i) {
  return i < N ? sum(0, size, round, i) : -1;
}
static int want_scan(int round, int i) {
  return i < N ? sum(0, rank + 1, round, i) : -1;
}
static int want_exscan(int round, int i) { /* undefined at rank 0 */
  return i >= N ? -1 : rank == 0 ? ANY : sum(0, rank, round, i);
}
static int want_reduce_scatter_block(int round, int i) {
  return i < N ? sum(0, size, round, rank * N + i) : -1;
}
static int want_reduce_scatter(int round, int i) {
  return i < cnt(rank) ? sum(0, size, round, off(rank) + i) : -1;
}
static int want_gather(int round, int i) {
  return rank != root ? ANY : i < size * N ? v(i / N, round, i % N) : -1;
}
static int want_allgatherv(int round, int i) { /* rank r's cnt(r) ints at gap(r) */
  for (int r = 0; r < size; ++r)
    if (i >= gap(r) && i < gap(r) + cnt(r)) return v(r, round, i - gap(r));
  return -1;
}
static int want_gatherv(int round, int i) {
  return rank != root ? ANY : want_allgatherv(round, i);
}
static int want_scatter(int round, int i) {
  return i < N ? v(root, round, rank * N + i) : -1;
}
static int want_scatterv(int round, int i) {
  return i < cnt(rank) ? v(root, round, gap(rank) + i) : -1;
}
static int want_allgather(int round, int i) {
  return i < 3 * size ? v(i / 3, round, 2 * (i % 3)) : -1;
}
static int want_allgather_in_place(int round, int i) {
  return i < 5 * size && i % 5 % 2 == 0 ? v(i / 5, round, i % 5 / 2) : -1;
}
static int want_alltoall(int round, int i) {
  return i < size * N ? v(i / N, round, rank * N + i % N) : -1;
}
static int want_alltoallv(int round, int i) {
  const int s = i / 5, k = i % 5 - 1;
  return s < size && k >= 0 && k < c(s, rank) ? v(s, round, 4 * rank + k) : -1;
}
static int want_neighbor_allgather(int round, int i) {
  return i < N ? v(left, round, i) : i < 2 * N ? v(right, round, i - N) : -1;
}
static int want_neighbor_allgatherv(int round, int i) {
  return i >= 1 && i < 1 + cnt(left)    ? v(left, round, i - 1)
         : i >= 5 && i < 5 + cnt(right) ? v(right, round, i - 5)
                                        : -1;
}
/* From the left: its block to its right (1); from the right: its block to its left (0). */
static int want_neighbor_alltoall(int round, int i) {
  return i < N ? v(left, round, N + i) : i < 2 * N ? v(right, round, i - N) : -1;
}
static int want_neighbor_alltoallv(int round, int i) {
  return i >= 1 && i < 4   ? v(left, round, 4 + i - 1)
         : i >= 6 && i < 8 ? v(right, round, i - 6)
                           : -1;
}
static int want_untouched(int round, int i) {
  (void)round, (void)i;
  return -1;
}

static const struct coll {
  const char* name;
  int rooted; /* run at every root */
  void (*fill)(int round);
  void (*call)(enum mode m, MPI_Request* r);
  int (*want)(int round, int i);
} colls[] = {
    {"Bcast_c", 1, fill_bcast, bcast, want_bcast},
    {"Reduce_c", 1, fill_own, reduce, want_reduce},
    {"Allreduce_c", 0, fill_own, allreduce, want_allreduce},
    {"Allreduce_c in place", 0, fill_allreduce_in_place, allreduce_in_place, want_allreduce},
    {"Scan_c", 0, fill_own, scan, want_scan},
    {"Exscan_c", 0, fill_own, exscan, want_exscan},
    {"Reduce_scatter_block_c", 0, fill_own, reduce_scatter_block, want_reduce_scatter_block},
    {"Reduce_scatter_c", 0, fill_own, reduce_scatter, want_reduce_scatter},
    {"Gather_c", 1, fill_own, gather, want_gather},
    {"Gatherv_c", 1, fill_own, gatherv, want_gatherv},
    {"Scatter_c", 1, fill_own, scatter, want_scatter},
    {"Scatterv_c", 1, fill_own, scatterv, want_scatterv},
    {"Allgather_c", 0, fill_own, allgather, want_allgather},
    {"Allgather_c in place", 0, fill_allgather_in_place, allgather_in_place,
     want_allgather_in_place},
    {"Allgatherv_c", 0, fill_own, allgatherv, want_allgatherv},
    {"Alltoall_c", 0, fill_own, alltoall, want_alltoall},
    {"Alltoallv_c", 0, fill_own, alltoallv, want_alltoallv},
    {"Alltoallw_c", 0, fill_own, alltoallw, want_alltoallv},
    {"Neighbor_allgather_c", 0, fill_own, neighbor_allgather, want_neighbor_allgather},
    {"Neighbor_allgatherv_c", 0, fill_own, neighbor_allgatherv, want_neighbor_allgatherv},
    {"Neighbor_alltoall_c", 0, fill_own, neighbor_alltoall, want_neighbor_alltoall},
    {"Neighbor_alltoallv_c", 0, fill_own, neighbor_alltoallv, want_neighbor_alltoallv},
    {"Neighbor_alltoallw_c", 0, fill_own, neighbor_alltoallw, want_neighbor_alltoallv},
    {"Bcast_c count 3e9", 1, fill_own, huge_bcast, want_untouched},
    {"Allreduce_c count 3e9", 0, fill_own, huge_allreduce, want_untouched},
    {"Allgather_c count 3e9", 0, fill_own, huge_allgather, want_untouched},
};

static void check(const struct coll* k, enum mode m, int round) {
  snprintf(what, sizeof what, "%s (%s, root %d, round %d)", k->name, mode_names[m], root, round);
  for (int i = 0; i < BUF; ++i) {
    const int want = k->want(round, i);
    CHECK(want == ANY || rbuf[i] == want, "%s: int %d of the receive buffer is %d, expected %d",
          what, i, rbuf[i], want);
  }
}

/* One collective in one form: blocking once (round 0), nonblocking once (round 1), persistent
 * started twice with new inputs (rounds 2 and 3), then freed. */
static void run(const struct coll* k, enum mode m) {
  MPI_Request r = MPI_REQUEST_NULL;
  k->fill(m); /* round 0, 1 or 2 */
  k->call(m, &r);
  if (m == BLOCKING) {
    check(k, m, 0);
  } else if (m == NONBLOCKING) {
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(r == MPI_REQUEST_NULL, "%s nonblocking: the wait left the request", k->name);
    check(k, m, 1);
  } else {
    for (int round = 2; round < 4; ++round) {
      k->fill(round);
      CHECK_MPI(MPI_Start(&r));
      CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
      CHECK(r != MPI_REQUEST_NULL, "%s persistent: the wait freed the request", k->name);
      check(k, m, round);
    }
    CHECK_MPI(MPI_Request_free(&r));
  }
}

/* A count of -1 on MPI_COMM_SELF: MPI_ERR_COUNT, in a message naming the function. */
static void expect_count_error(int code, const char* function) {
  int cls = MPI_SUCCESS, len = 0;
  char text[MPI_MAX_ERROR_STRING];
  MPI_Error_class(code, &cls);
  MPI_Error_string(code, text, &len);
  CHECK(cls == MPI_ERR_COUNT, "%s with count -1 gave class %d (%s)", function, cls, text);
  CHECK(strstr(text, function) != NULL, "%s's error message does not name it: %s", function, text);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  CHECK_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size <= 8, "at most 8 ranks (%d)", size);
  const int dims[1] = {size}, periods[1] = {1};
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
  CHECK_MPI(MPI_Cart_shift(ring, 0, 1, &left, &right));
  CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
  CHECK_MPI(MPI_Type_contiguous(2, MPI_INT, &pair));
  CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &zero));
  CHECK_MPI(MPI_Type_commit(&vec));
  CHECK_MPI(MPI_Type_commit(&pair));
  CHECK_MPI(MPI_Type_commit(&zero));
  for (int r = 0; r < size; ++r) {
    counts[r] = cnt(r);
    displs[r] = gap(r);
    scounts[r] = c(rank, r);
    sdispls[r] = 4 * r;
    sbytes[r] = sdispls[r] * (MPI_Aint)sizeof(int);
    rcounts[r] = c(r, rank);
    rdispls[r] = 5 * r + 1;
    rbytes[r] = rdispls[r] * (MPI_Aint)sizeof(int);
    types[r] = MPI_INT;
  }
  ncounts[0] = cnt(left), ncounts[1] = cnt(right);
  ndispls[0] = 1, ndispls[1] = 5;
  nstypes[0] = nstypes[1] = nrtypes[0] = MPI_INT;
  nrtypes[1] = pair;

  for (size_t k = 0; k < sizeof colls / sizeof colls[0]; ++k)
    for (root = 0; root < (colls[k].rooted ? size : 1); ++root)
      for (enum mode m = BLOCKING; m <= PERSISTENT; ++m) run(&colls[k], m);

  /* MPI_Reduce_local_c (blocking only). */
  int in[N], inout[N];
  for (int i = 0; i < N; ++i) in[i] = i + 1, inout[i] = 10 * i;
  CHECK_MPI(MPI_Reduce_local_c(in, inout, N, MPI_INT, MPI_SUM));
  for (int i = 0; i < N; ++i) CHECK(inout[i] == 11 * i + 1, "Reduce_local_c [%d]: %d", i, inout[i]);

  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  expect_count_error(MPI_Bcast_c(rbuf, -1, MPI_INT, 0, MPI_COMM_SELF), "MPI_Bcast_c");
  expect_count_error(MPI_Allreduce_c(sbuf, rbuf, -1, MPI_INT, MPI_SUM, MPI_COMM_SELF),
                     "MPI_Allreduce_c");

  CHECK_MPI(MPI_Type_free(&vec));
  CHECK_MPI(MPI_Type_free(&pair));
  CHECK_MPI(MPI_Type_free(&zero));
  CHECK_MPI(MPI_Comm_free(&ring));
  CHECK_MPI(MPI_Finalize());
  return 0;
}
