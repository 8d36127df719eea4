/* Neighbourhood collectives (MPI-3.1 7.6), blocking and nonblocking, on Cartesian grids (1-D and
 * 2-D, periodic or not: MPI_PROC_NULL neighbours whose blocks must stay untouched; extents of 1
 * and 2, where a rank is its own or both-ways neighbour), graphs (ring, star, complete, repeated
 * edges with self-loops, isolated nodes) and distributed graphs. Every rank learns every rank's
 * neighbour lists (queried, then allgathered), so it can compute what each block must hold: the
 * j-th destination block of rank s carries s * 10000 + j * 100 + element. Neighbour traffic must
 * not match a wildcard receive posted on the same communicator. Non-topology communicators fail
 * with MPI_ERR_TOPOLOGY. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define MAXN 64 /* neighbours of one rank at most (complete graph of 8: 7; grids: 4) */
#define SENTINEL -7

static int size, me;

/* Every rank's neighbour lists on the communicator under test. */
static int is_cart;
static int indeg[8], outdeg[8];
static int srcs[8][MAXN], dsts[8][MAXN];

static void local_lists(MPI_Comm c, int* in, int* src, int* out, int* dst) {
  int kind = -1;
  CHECK_MPI(MPI_Topo_test(c, &kind));
  is_cart = kind == MPI_CART;
  if (kind == MPI_CART) {
    int nd = 0;
    CHECK_MPI(MPI_Cartdim_get(c, &nd));
    for (int d = 0; d < nd; ++d) {
      int down, up;
      CHECK_MPI(MPI_Cart_shift(c, d, 1, &down, &up));
      src[2 * d] = dst[2 * d] = down;
      src[2 * d + 1] = dst[2 * d + 1] = up;
    }
    *in = *out = 2 * nd;
  } else if (kind == MPI_GRAPH) {
    int r, n;
    MPI_Comm_rank(c, &r);
    CHECK_MPI(MPI_Graph_neighbors_count(c, r, &n));
    CHECK(n <= MAXN, "%d neighbours", n);
    CHECK_MPI(MPI_Graph_neighbors(c, r, MAXN, src));
    memcpy(dst, src, sizeof(int) * (size_t)n);
    *in = *out = n;
  } else {
    CHECK(kind == MPI_DIST_GRAPH, "Topo_test gave %d", kind);
    int w;
    CHECK_MPI(MPI_Dist_graph_neighbors_count(c, in, out, &w));
    CHECK(*in <= MAXN && *out <= MAXN, "degrees %d %d", *in, *out);
    CHECK_MPI(MPI_Dist_graph_neighbors(c, MAXN, src, MPI_UNWEIGHTED, MAXN, dst, MPI_UNWEIGHTED));
  }
}

static void learn(MPI_Comm c) {
  int n;
  MPI_Comm_size(c, &n);
  int mine[2 + 2 * MAXN];
  local_lists(c, &mine[0], mine + 2, &mine[1], mine + 2 + MAXN);
  int* all = malloc(sizeof mine * (size_t)n);
  CHECK_MPI(MPI_Allgather(mine, 2 + 2 * MAXN, MPI_INT, all, 2 + 2 * MAXN, MPI_INT, c));
  for (int r = 0; r < n; ++r) {
    const int* p = all + r * (2 + 2 * MAXN);
    indeg[r] = p[0];
    outdeg[r] = p[1];
    memcpy(srcs[r], p + 2, sizeof(int) * MAXN);
    memcpy(dsts[r], p + 2 + MAXN, sizeof(int) * MAXN);
  }
  free(all);
}

/* The destination slot of rank s whose block lands in receive slot i of rank r. */
static int pair(int r, int i) {
  const int s = srcs[r][i];
  if (is_cart) return i ^ 1; /* sent up arrives as from below, and the reverse */
  int k = 0;                 /* the k-th time s appears among r's sources ... */
  for (int l = 0; l < i; ++l) k += srcs[r][l] == s;
  for (int j = 0; j < outdeg[s]; ++j) { /* ... pairs with the k-th time r appears in s's */
    if (dsts[s][j] == r && k-- == 0) return j;
  }
  CHECK(0, "rank %d does not list rank %d as a destination often enough", s, r);
  return -1;
}

static int value(int s, int j, int e) {
  return s * 10000 + j * 100 + e;
}
static int vcount(int j) {
  return j % 3 + 1;
}

enum { ALLGATHER, ALLGATHERV, ALLTOALL, ALLTOALLV, ALLTOALLW, KINDS };
static const char* names[KINDS] = {"allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"};

/* One neighbourhood collective of `kind`, blocking or not, checked. Receive blocks are spaced
 * with gaps (and, for allgather and alltoallw, received through a strided type) that must keep
 * the sentinel, as must the blocks of MPI_PROC_NULL sources. */
static void run(MPI_Comm c, int kind, int nonblocking) {
  int r;
  MPI_Comm_rank(c, &r);
  const int in = indeg[r], out = outdeg[r];
  enum { STRIDE = 8 }; /* ints per receive block in the receive buffer */
  int sendbuf[MAXN * 4], recvbuf[MAXN * STRIDE + 1];
  int scounts[MAXN], sdispls[MAXN], rcounts[MAXN], rdispls[MAXN];
  MPI_Aint sbytes[MAXN], rbytes[MAXN];
  MPI_Datatype stypes[MAXN], rtypes[MAXN];
  MPI_Datatype strided; /* 3 ints, every other one */
  CHECK_MPI(MPI_Type_vector(3, 1, 2, MPI_INT, &strided));
  CHECK_MPI(MPI_Type_commit(&strided));
  for (int i = 0; i < MAXN * STRIDE + 1; ++i) recvbuf[i] = SENTINEL;
  for (int j = 0; j < out; ++j) {
    for (int e = 0; e < 4; ++e) sendbuf[j * 4 + e] = value(r, j, e);
    scounts[j] = kind == ALLTOALL ? 3 : vcount(j);
    sdispls[j] = j * 4;
    sbytes[j] = (MPI_Aint)sizeof(int) * j * 4;
    stypes[j] = MPI_INT;
  }
  for (int i = 0; i < in; ++i) {
    const int s = srcs[r][i];
    rcounts[i] = s == MPI_PROC_NULL                       ? 2
                 : kind == ALLGATHERV || kind == ALLTOALL ? 3
                                                          : vcount(pair(r, i));
    rdispls[i] = i * STRIDE;
    rbytes[i] = (MPI_Aint)sizeof(int) * i * STRIDE;
    rtypes[i] = MPI_INT;
  }
  /* alltoallw: a strided receive type for each block of exactly three elements. */
  int wcount[MAXN];
  for (int i = 0; i < in; ++i) {
    wcount[i] = rcounts[i];
    if (kind == ALLTOALLW && rcounts[i] == 3) {
      rtypes[i] = strided;
      wcount[i] = 1;
    }
  }
  /* allgather: every destination gets block 0 (3 ints); received strided (extent 5 ints). */
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Request* rq = nonblocking ? &req : NULL;
#define GO(name, ...) \
  (nonblocking ? MPI_Ineighbor_##name(__VA_ARGS__, rq) : MPI_Neighbor_##name(__VA_ARGS__))
  switch (kind) {
    case ALLGATHER:
      CHECK_MPI(GO(allgather, sendbuf, 3, MPI_INT, recvbuf, 1, strided, c));
      break;
    case ALLGATHERV:
      CHECK_MPI(GO(allgatherv, sendbuf, 3, MPI_INT, recvbuf, rcounts, rdispls, MPI_INT, c));
      break;
    case ALLTOALL: {
      /* Blocks of 3, packed: a copy of the send buffer laid out that way. */
      int packed[MAXN * 3];
      for (int j = 0; j < out; ++j) memcpy(packed + j * 3, sendbuf + j * 4, 3 * sizeof(int));
      CHECK_MPI(GO(alltoall, packed, 3, MPI_INT, recvbuf, 3, MPI_INT, c));
      if (nonblocking) CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
      nonblocking = 0; /* packed goes out of scope */
      break;
    }
    case ALLTOALLV:
      CHECK_MPI(
          GO(alltoallv, sendbuf, scounts, sdispls, MPI_INT, recvbuf, rcounts, rdispls, MPI_INT, c));
      break;
    case ALLTOALLW:
      CHECK_MPI(
          GO(alltoallw, sendbuf, scounts, sbytes, stypes, recvbuf, wcount, rbytes, rtypes, c));
      break;
  }
#undef GO
  if (nonblocking) {
    /* Test until done, as a program overlapping work would. */
    int done = 0;
    while (!done) CHECK_MPI(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
    CHECK(req == MPI_REQUEST_NULL, "the completed request was not freed");
  }
  /* Expected contents, block by block; everything else keeps the sentinel. */
  int expect[MAXN * STRIDE + 1];
  for (int i = 0; i < MAXN * STRIDE + 1; ++i) expect[i] = SENTINEL;
  for (int i = 0; i < in; ++i) {
    const int s = srcs[r][i];
    if (s == MPI_PROC_NULL) continue;
    const int j = pair(r, i);
    if (kind == ALLGATHER) {
      /* The strided type has an extent of 5 ints: block i starts at 5 i. */
      for (int e = 0; e < 3; ++e) expect[i * 5 + 2 * e] = value(s, 0, e);
    } else if (kind == ALLGATHERV) {
      for (int e = 0; e < 3; ++e) expect[i * STRIDE + e] = value(s, 0, e);
    } else if (kind == ALLTOALL) {
      for (int e = 0; e < 3; ++e) expect[i * 3 + e] = value(s, j, e); /* packed blocks */
    } else if (kind == ALLTOALLW && rcounts[i] == 3) {
      for (int e = 0; e < 3; ++e) expect[i * STRIDE + 2 * e] = value(s, j, e);
    } else {
      for (int e = 0; e < rcounts[i]; ++e) expect[i * STRIDE + e] = value(s, j, e);
    }
  }
  for (int i = 0; i < MAXN * STRIDE + 1; ++i) {
    CHECK(recvbuf[i] == expect[i],
          "%s (%s) on a %s communicator: int %d of the receive buffer (block %d, from %d) is %d, "
          "expected %d",
          names[kind], rq ? "nonblocking" : "blocking", is_cart ? "Cartesian" : "graph", i,
          i / STRIDE, i / STRIDE < in ? srcs[r][i / STRIDE] : -1, recvbuf[i], expect[i]);
  }
  CHECK_MPI(MPI_Type_free(&strided));
}

/* Every collective, both ways, on `c` (MPI_COMM_NULL on ranks outside it: they skip), with a
 * wildcard receive posted across them that must take only the point-to-point message after. */
static void run_all(MPI_Comm c, const char* what) {
  if (c == MPI_COMM_NULL) return;
  int r, n;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &n);
  learn(c);
  int got = -1, sent = 4242 + r;
  MPI_Request wild;
  CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c, &wild));
  for (int kind = 0; kind < KINDS; ++kind) {
    run(c, kind, 0);
    run(c, kind, 1);
  }
  /* Several in flight at once, completed in reverse order. */
  {
    int a[MAXN], b[MAXN];
    MPI_Request two[2];
    CHECK_MPI(MPI_Ineighbor_allgather(&r, 1, MPI_INT, a, 1, MPI_INT, c, &two[0]));
    const int twice = 2 * r;
    CHECK_MPI(MPI_Ineighbor_allgather(&twice, 1, MPI_INT, b, 1, MPI_INT, c, &two[1]));
    CHECK_MPI(MPI_Wait(&two[1], MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Wait(&two[0], MPI_STATUS_IGNORE));
    for (int i = 0; i < indeg[r]; ++i) {
      if (srcs[r][i] == MPI_PROC_NULL) continue;
      CHECK(a[i] == srcs[r][i] && b[i] == 2 * srcs[r][i],
            "%s: overlapped allgathers gave %d, %d from %d", what, a[i], b[i], srcs[r][i]);
    }
  }
  /* Neighbour traffic taken by the wildcard receive would show as another value or tag (and
   * leave a collective short of a message). */
  CHECK_MPI(MPI_Send(&sent, 1, MPI_INT, (r + 1) % n, 3, c));
  MPI_Status st;
  CHECK_MPI(MPI_Wait(&wild, &st));
  CHECK(got == 4242 + (r - 1 + n) % n && st.MPI_TAG == 3, "%s: the wildcard receive got %d tag %d",
        what, got, st.MPI_TAG);
}

static void carts(void) {
  MPI_Comm c;
  int dims[2], periods[2];
  /* 1-D: periodic (size 1 and 2: self and both-ways neighbours) and not. */
  for (int p = 0; p < 2; ++p) {
    dims[0] = size;
    periods[0] = p;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c));
    run_all(c, p ? "1-D periodic grid" : "1-D grid");
    CHECK_MPI(MPI_Comm_free(&c));
  }
  /* 2-D: periodic in the first dimension only, then in both. */
  for (int p = 0; p < 2; ++p) {
    dims[0] = dims[1] = 0;
    CHECK_MPI(MPI_Dims_create(size, 2, dims));
    periods[0] = 1;
    periods[1] = p;
    CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c));
    run_all(c, "2-D grid");
    CHECK_MPI(MPI_Comm_free(&c));
  }
}

/* A graph from per-node neighbour lists (lists[i] ends with -1). */
static void graph(int nnodes, int lists[][MAXN], const char* what) {
  int index[8], edges[8 * MAXN], e = 0;
  for (int i = 0; i < nnodes; ++i) {
    for (int k = 0; lists[i][k] >= 0; ++k) edges[e++] = lists[i][k];
    index[i] = e;
  }
  MPI_Comm c;
  CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, nnodes, index, edges, 1, &c));
  CHECK((c == MPI_COMM_NULL) == (me >= nnodes), "%s: rank %d got %s", what, me,
        c == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");
  run_all(c, what);
  if (c != MPI_COMM_NULL) CHECK_MPI(MPI_Comm_free(&c));
}

static void graphs(void) {
  int lists[8][MAXN];
  /* Ring (with 1 or 2 ranks: a self-loop twice, or the same neighbour twice). */
  for (int i = 0; i < size; ++i) {
    lists[i][0] = (i - 1 + size) % size;
    lists[i][1] = (i + 1) % size;
    lists[i][2] = -1;
  }
  graph(size, lists, "ring");
  /* Star around node 0 over all but the last node; the last node is isolated. */
  const int star = size > 1 ? size - 1 : 1;
  for (int i = 0; i < size; ++i) lists[i][0] = -1;
  for (int i = 1; i < star; ++i) {
    lists[0][i - 1] = i;
    lists[0][i] = -1;
    lists[i][0] = 0;
    lists[i][1] = -1;
  }
  graph(size, lists, "star with an isolated node");
  /* Complete over the first size - 1 nodes (the rest get MPI_COMM_NULL). */
  const int k = size > 1 ? size - 1 : 1;
  for (int i = 0; i < k; ++i) {
    int n = 0;
    for (int j = 0; j < k; ++j) {
      if (j != i) lists[i][n++] = j;
    }
    lists[i][n] = -1;
  }
  graph(k, lists, "complete graph");
  /* Self-loops, and a double edge between 2i and 2i + 1 listed in different places. */
  for (int i = 0; i < size; ++i) {
    int n = 0;
    const int partner = i ^ 1;
    if (partner < size) lists[i][n++] = partner;
    lists[i][n++] = i;
    if (partner < size) lists[i][n++] = partner;
    lists[i][n] = -1;
  }
  graph(size, lists, "repeated edges and self-loops");
  /* No edges at all. */
  for (int i = 0; i < size; ++i) lists[i][0] = -1;
  graph(size, lists, "graph without edges");
}

static void dist_graphs(void) {
  MPI_Comm c;
  /* Adjacent: each rank sends to every higher rank and to itself, receives from every lower one
   * and itself; weighted. */
  int src[8], dst[8], sw[8], dw[8], ni = 0, no = 0;
  for (int j = 0; j <= me; ++j) {
    sw[ni] = j;
    src[ni++] = j;
  }
  for (int j = me; j < size; ++j) {
    dw[no] = j;
    dst[no++] = j;
  }
  CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, ni, src, sw, no, dst, dw, MPI_INFO_NULL,
                                           0, &c));
  run_all(c, "adjacent distributed graph");
  CHECK_MPI(MPI_Comm_free(&c));
  /* General: rank r names the edges of rank r + 1: to r + 2 and, twice, to r. */
  const int from = (me + 1) % size;
  const int degree = 3, to[3] = {(me + 2) % size, me, me}, w[3] = {1, 2, 3};
  CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &from, &degree, to, w, MPI_INFO_NULL, 1, &c));
  run_all(c, "distributed graph");
  CHECK_MPI(MPI_Comm_free(&c));
}

static void errors(void) {
  int x[4] = {0}, y[4] = {0};
  CHECK_ERR(MPI_Neighbor_allgather(x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TOPOLOGY);
  CHECK_ERR(MPI_Neighbor_alltoall(x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_SELF), MPI_ERR_TOPOLOGY);
  MPI_Request req = MPI_REQUEST_NULL;
  CHECK_ERR(MPI_Ineighbor_alltoallv(x, x, x, MPI_INT, y, y, y, MPI_INT, MPI_COMM_WORLD, &req),
            MPI_ERR_TOPOLOGY);
  CHECK(req == MPI_REQUEST_NULL, "a failed Ineighbor_alltoallv made a request");
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_ERR(MPI_Neighbor_allgatherv(x, 1, MPI_INT, y, x, x, MPI_INT, dup), MPI_ERR_TOPOLOGY);
  CHECK_MPI(MPI_Comm_free(&dup));
  /* On a ring: a negative count, MPI_IN_PLACE. */
  int dims[1] = {size}, periods[1] = {1};
  MPI_Comm ring;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
  MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
  CHECK_ERR(MPI_Neighbor_allgather(x, -1, MPI_INT, y, 1, MPI_INT, ring), MPI_ERR_COUNT);
  CHECK_ERR(MPI_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, y, 1, MPI_INT, ring), MPI_ERR_BUFFER);
  const int neg[2] = {1, -1}, zero[2] = {0, 0};
  int code = MPI_Neighbor_alltoallv(x, neg, zero, MPI_INT, y, zero, zero, MPI_INT, ring);
  CHECK_ERR(code, MPI_ERR_COUNT);
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  CHECK(strstr(text, "send count -1 (for neighbour 1)") != NULL,
        "the error names the neighbour's block: %s", text);
  CHECK_MPI(MPI_Comm_free(&ring));
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  CHECK(size <= 8, "this test is written for up to 8 ranks, not %d", size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  carts();
  graphs();
  dist_graphs();
  errors();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
