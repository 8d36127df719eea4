/* Graph and distributed graph topologies: MPI_Graph_create with its queries (Graphdims_get,
 * Graph_get, Graph_neighbors_count, Graph_neighbors) against the graph given, Graph_map and
 * Cart_map, graphs smaller than the job, Dist_graph_create_adjacent and Dist_graph_create (edges
 * named by ranks other than their ends) with their weights, MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY,
 * Topo_test on every kind, topology kept by Comm_dup, and the error classes of bad input. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int size, me;

static void graphs(void) {
  /* Node i (of nnodes = size - 1, or 1) has neighbours i + 1 and i + 2 (mod nnodes) and, for
   * even i, itself. */
  const int nnodes = size > 1 ? size - 1 : 1;
  int index[8], edges[24], e = 0;
  for (int i = 0; i < nnodes; ++i) {
    edges[e++] = (i + 1) % nnodes;
    edges[e++] = (i + 2) % nnodes;
    if (i % 2 == 0) edges[e++] = i;
    index[i] = e;
  }
  int mapped = -1;
  CHECK_MPI(MPI_Graph_map(MPI_COMM_WORLD, nnodes, index, edges, &mapped));
  CHECK(mapped == (me < nnodes ? me : MPI_UNDEFINED), "Graph_map gave %d", mapped);
  MPI_Comm g;
  CHECK_MPI(MPI_Graph_create(MPI_COMM_WORLD, nnodes, index, edges, 0, &g));
  if (me >= nnodes) {
    CHECK(g == MPI_COMM_NULL, "rank %d is beyond the %d nodes but got a communicator", me, nnodes);
    return;
  }
  CHECK(g != MPI_COMM_NULL, "node %d got MPI_COMM_NULL", me);
  MPI_Comm copy;
  CHECK_MPI(MPI_Comm_dup(g, &copy));
  MPI_Comm both[2] = {g, copy};
  for (int k = 0; k < 2; ++k) {
    MPI_Comm c = both[k];
    int kind = -1, n = -1, m = -1;
    CHECK_MPI(MPI_Topo_test(c, &kind));
    CHECK(kind == MPI_GRAPH, "Topo_test gave %d, not MPI_GRAPH", kind);
    CHECK_MPI(MPI_Graphdims_get(c, &n, &m));
    CHECK(n == nnodes && m == e, "Graphdims_get gave %d nodes, %d edges; expected %d, %d", n, m,
          nnodes, e);
    int gi[8], ge[24];
    CHECK_MPI(MPI_Graph_get(c, 8, 24, gi, ge));
    CHECK(memcmp(gi, index, sizeof(int) * (size_t)nnodes) == 0, "Graph_get's index differs");
    CHECK(memcmp(ge, edges, sizeof(int) * (size_t)e) == 0, "Graph_get's edges differ");
    for (int node = 0; node < nnodes; ++node) {
      int count = -1, nb[4] = {-1, -1, -1, -1};
      const int first = node == 0 ? 0 : index[node - 1];
      CHECK_MPI(MPI_Graph_neighbors_count(c, node, &count));
      CHECK(count == index[node] - first, "node %d: %d neighbours, expected %d", node, count,
            index[node] - first);
      CHECK_MPI(MPI_Graph_neighbors(c, node, 4, nb));
      for (int j = 0; j < count; ++j) {
        CHECK(nb[j] == edges[first + j], "node %d: neighbour %d is %d, expected %d", node, j, nb[j],
              edges[first + j]);
      }
    }
    /* Queries of other kinds of topology, and a node that is not there. */
    int ndims;
    CHECK_ERR(MPI_Cartdim_get(c, &ndims), MPI_ERR_TOPOLOGY);
    int in, out, w;
    CHECK_ERR(MPI_Dist_graph_neighbors_count(c, &in, &out, &w), MPI_ERR_TOPOLOGY);
    CHECK_ERR(MPI_Graph_neighbors_count(c, nnodes, &n), MPI_ERR_RANK);
    CHECK_ERR(MPI_Graph_neighbors(c, -1, 4, gi), MPI_ERR_RANK);
  }
  CHECK_MPI(MPI_Comm_free(&copy));
  CHECK_MPI(MPI_Comm_free(&g));
}

/* Sorts (peer, weight) pairs so that lists whose order is unspecified compare. */
static int by_pair(const void* a, const void* b) {
  const int* x = a;
  const int* y = b;
  return x[0] != y[0] ? x[0] - y[0] : x[1] - y[1];
}

static void check_lists(const char* what, int n, const int* peers, const int* weights, int en,
                        int (*expected)[2]) {
  int got[32][2];
  CHECK(n == en, "%s: %d neighbours, expected %d", what, n, en);
  for (int i = 0; i < n; ++i) {
    got[i][0] = peers[i];
    got[i][1] = weights ? weights[i] : 0;
  }
  qsort(got, (size_t)n, sizeof got[0], by_pair);
  qsort(expected, (size_t)n, sizeof got[0], by_pair);
  for (int i = 0; i < n; ++i) {
    CHECK(got[i][0] == expected[i][0] && got[i][1] == expected[i][1],
          "%s: neighbour %d is %d (weight %d), expected %d (weight %d)", what, i, got[i][0],
          got[i][1], expected[i][0], expected[i][1]);
  }
}

static void dist_graphs(void) {
  /* Adjacent, weighted: a directed ring, edge i -> i + 1 of weight 10 i. */
  const int prev = (me - 1 + size) % size, next = (me + 1) % size;
  const int sw = 10 * prev, dw = 10 * me;
  MPI_Comm c;
  CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &prev, &sw, 1, &next, &dw,
                                           MPI_INFO_NULL, 1, &c));
  int kind = -1, in = -1, out = -1, weighted = -1, s = -1, d = -1, ws = -1, wd = -1;
  CHECK_MPI(MPI_Topo_test(c, &kind));
  CHECK(kind == MPI_DIST_GRAPH, "Topo_test gave %d, not MPI_DIST_GRAPH", kind);
  CHECK_MPI(MPI_Dist_graph_neighbors_count(c, &in, &out, &weighted));
  CHECK(in == 1 && out == 1 && weighted, "degrees %d, %d, weighted %d", in, out, weighted);
  CHECK_MPI(MPI_Dist_graph_neighbors(c, 1, &s, &ws, 1, &d, &wd));
  CHECK(s == prev && d == next && ws == sw && wd == dw, "neighbours %d (%d) -> %d (%d)", s, ws, d,
        wd);
  int gi[1];
  CHECK_ERR(MPI_Graph_neighbors(c, 0, 1, gi), MPI_ERR_TOPOLOGY);
  CHECK_MPI(MPI_Comm_free(&c));

  /* Adjacent, unweighted, rank 0 without neighbours; and weighted with MPI_WEIGHTS_EMPTY. */
  for (int w = 0; w < 2; ++w) {
    const int n = me == 0 ? 0 : 1, zero = 0;
    const int* weights = w ? (n ? &zero : MPI_WEIGHTS_EMPTY) : MPI_UNWEIGHTED;
    CHECK_MPI(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, n, &zero, weights, n, &zero, weights,
                                             MPI_INFO_NULL, 0, &c));
    CHECK_MPI(MPI_Dist_graph_neighbors_count(c, &in, &out, &weighted));
    CHECK(in == n && out == n && weighted == w, "degrees %d, %d, weighted %d (expected %d, %d)", in,
          out, weighted, n, w);
    CHECK_MPI(MPI_Comm_free(&c));
  }

  /* General: rank r names, for source r + 1, edges to r - 1 (weight r) and r + 2 (weight 100),
   * and nothing else. Expected lists from the whole graph. */
  const int from = (me + 1) % size;
  const int to[2] = {(me - 1 + size) % size, (me + 2) % size};
  const int weights[2] = {me, 100};
  const int degree = 2;
  CHECK_MPI(
      MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &from, &degree, to, weights, MPI_INFO_NULL, 1, &c));
  int exp_in[32][2], exp_out[32][2], ni = 0, no = 0;
  for (int r = 0; r < size; ++r) {
    const int src = (r + 1) % size;
    const int dst[2] = {(r - 1 + size) % size, (r + 2) % size}, wt[2] = {r, 100};
    for (int k = 0; k < 2; ++k) {
      if (src == me) {
        exp_out[no][0] = dst[k];
        exp_out[no++][1] = wt[k];
      }
      if (dst[k] == me) {
        exp_in[ni][0] = src;
        exp_in[ni++][1] = wt[k];
      }
    }
  }
  CHECK_MPI(MPI_Dist_graph_neighbors_count(c, &in, &out, &weighted));
  CHECK(weighted == 1, "the general graph is not weighted");
  int srcs[32], sws[32], dsts[32], dws[32];
  CHECK_MPI(MPI_Dist_graph_neighbors(c, 32, srcs, sws, 32, dsts, dws));
  check_lists("sources", in, srcs, sws, ni, exp_in);
  check_lists("destinations", out, dsts, dws, no, exp_out);
  MPI_Comm copy;
  CHECK_MPI(MPI_Comm_dup(c, &copy));
  CHECK_MPI(MPI_Topo_test(copy, &kind));
  CHECK(kind == MPI_DIST_GRAPH, "the duplicate's Topo_test gave %d", kind);
  CHECK_MPI(MPI_Comm_free(&copy));
  CHECK_MPI(MPI_Comm_free(&c));

  /* General, unweighted, every edge named by rank 0: the complete graph with self-loops. */
  int all[64];
  for (int r = 0; r < size; ++r) all[r] = r;
  int srcs_given[8], degrees[8], targets[64], nt = 0;
  for (int r = 0; r < size; ++r) {
    srcs_given[r] = r;
    degrees[r] = me == 0 ? size : 0;
    for (int t = 0; me == 0 && t < size; ++t) targets[nt++] = t;
  }
  CHECK_MPI(MPI_Dist_graph_create(MPI_COMM_WORLD, me == 0 ? size : 0, srcs_given, degrees, targets,
                                  MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
  CHECK_MPI(MPI_Dist_graph_neighbors_count(c, &in, &out, &weighted));
  CHECK(in == size && out == size && !weighted, "complete graph: degrees %d, %d, weighted %d", in,
        out, weighted);
  CHECK_MPI(MPI_Dist_graph_neighbors(c, 32, srcs, MPI_UNWEIGHTED, 32, dsts, MPI_UNWEIGHTED));
  int exp[32][2];
  for (int r = 0; r < size; ++r) exp[r][0] = all[r], exp[r][1] = 0;
  check_lists("complete sources", in, srcs, NULL, size, exp);
  for (int r = 0; r < size; ++r) exp[r][0] = all[r], exp[r][1] = 0;
  check_lists("complete destinations", out, dsts, NULL, size, exp);
  CHECK_MPI(MPI_Comm_free(&c));
}

static void topo_kinds(void) {
  int kind = 0;
  CHECK_MPI(MPI_Topo_test(MPI_COMM_WORLD, &kind));
  CHECK(kind == MPI_UNDEFINED, "MPI_COMM_WORLD's Topo_test gave %d", kind);
  int dims[1] = {size}, periods[1] = {0}, rank = -2;
  MPI_Comm c;
  CHECK_MPI(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c));
  CHECK_MPI(MPI_Topo_test(c, &kind));
  CHECK(kind == MPI_CART, "a grid's Topo_test gave %d", kind);
  int n;
  CHECK_ERR(MPI_Graphdims_get(c, &n, &n), MPI_ERR_TOPOLOGY);
  CHECK_MPI(MPI_Comm_free(&c));
  dims[0] = size > 1 ? size - 1 : 1;
  CHECK_MPI(MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &rank));
  CHECK(rank == (me < dims[0] ? me : MPI_UNDEFINED), "Cart_map gave %d", rank);
}

static void errors(void) {
  MPI_Comm c = MPI_COMM_NULL;
  const int index_neg[2] = {2, 1}, edges[2] = {0, 0}, index_ok[1] = {1}, far[1] = {size};
  /* A negative degree (index decreasing), a neighbour out of range, too many nodes. */
  CHECK_ERR(MPI_Graph_create(MPI_COMM_WORLD, size >= 2 ? 2 : 1, index_neg, edges, 0, &c),
            size >= 2 ? MPI_ERR_ARG : MPI_SUCCESS);
  if (size < 2) CHECK_MPI(MPI_Comm_free(&c));
  CHECK_ERR(MPI_Graph_create(MPI_COMM_WORLD, 1, index_ok, far, 0, &c), MPI_ERR_ARG);
  const int minus[1] = {-1};
  CHECK_ERR(MPI_Graph_create(MPI_COMM_WORLD, 1, minus, edges, 0, &c), MPI_ERR_ARG);
  CHECK_ERR(MPI_Graph_create(MPI_COMM_WORLD, size + 1, index_ok, edges, 0, &c), MPI_ERR_ARG);
  CHECK_ERR(MPI_Graph_create(MPI_COMM_WORLD, -1, index_ok, edges, 0, &c), MPI_ERR_ARG);
  int r;
  CHECK_ERR(MPI_Graph_map(MPI_COMM_WORLD, 1, index_ok, far, &r), MPI_ERR_ARG);
  /* Distributed graphs: negative degrees, neighbours out of range, mixed weights. */
  const int zero = 0, neg = -1;
  CHECK_ERR(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, &zero, MPI_UNWEIGHTED, 0, &zero,
                                           MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
            MPI_ERR_ARG);
  CHECK_ERR(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, far, MPI_UNWEIGHTED, 0, &zero,
                                           MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
            MPI_ERR_ARG);
  CHECK_ERR(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, &zero, MPI_UNWEIGHTED, 1, &neg,
                                           MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
            MPI_ERR_ARG);
  CHECK_ERR(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &zero, &zero, 1, &zero,
                                           MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c),
            MPI_ERR_ARG);
  CHECK_ERR(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &zero, &neg, &zero, MPI_UNWEIGHTED,
                                  MPI_INFO_NULL, 0, &c),
            MPI_ERR_ARG);
  const int one = 1;
  CHECK_ERR(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &zero, &one, far, MPI_UNWEIGHTED,
                                  MPI_INFO_NULL, 0, &c),
            MPI_ERR_ARG);
  CHECK_ERR(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, far, &one, &zero, MPI_UNWEIGHTED,
                                  MPI_INFO_NULL, 0, &c),
            MPI_ERR_ARG);
  CHECK_ERR(MPI_Dist_graph_create(MPI_COMM_WORLD, -1, &zero, &one, &zero, MPI_UNWEIGHTED,
                                  MPI_INFO_NULL, 0, &c),
            MPI_ERR_ARG);
  CHECK(c == MPI_COMM_NULL, "a failed creation set the handle");
  int in, out, w;
  CHECK_ERR(MPI_Dist_graph_neighbors_count(MPI_COMM_WORLD, &in, &out, &w), MPI_ERR_TOPOLOGY);
  CHECK_ERR(MPI_Graph_neighbors_count(MPI_COMM_WORLD, 0, &in), MPI_ERR_TOPOLOGY);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  CHECK(size <= 8, "this test is written for up to 8 ranks, not %d", size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  graphs();
  dist_graphs();
  topo_kinds();
  errors();
  CHECK_MPI(MPI_Finalize());
  return 0;
}
