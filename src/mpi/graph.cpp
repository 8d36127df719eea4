// Graph and distributed graph topologies (MPI-3.1 7.5.3, 7.5.4). As for Cartesian grids
// (topology.cpp), every rank shares one host and no placement beats another: reorder is accepted
// and ignored, and rank r of the old communicator keeps rank r (ranks beyond a graph's nodes get
// MPI_COMM_NULL). A graph is stored whole on every member (MPI_Graph_get returns it all); a
// distributed graph keeps each process's own edges, as the standard intends.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <span>
#include <vector>

#include "api/runtime.hpp"
#include "mpi/call.hpp"
#include "mpi/communicators.hpp"
#include "mpi/info.hpp"

// MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY: addresses, never read or written.
extern "C" {
int rmpl_mpi_unweighted[1];
int rmpl_mpi_weights_empty[1];
}

namespace rmpl::mpi {
namespace {

const graph& graph_of(const rmpl_mpi_comm& c) {
  if (!c.graph_topology) fail(MPI_ERR_TOPOLOGY, "the communicator has no graph topology");
  return *c.graph_topology;
}

const dist_graph& dist_graph_of(const rmpl_mpi_comm& c) {
  if (!c.dist_graph_topology) {
    fail(MPI_ERR_TOPOLOGY, "the communicator has no distributed graph topology");
  }
  return *c.dist_graph_topology;
}

/// Checks a graph of `nnodes` nodes (index: cumulative degrees; edges: neighbours) to be laid
/// over a communicator of `size`.
void check_graph(int nnodes, const int index[], const int edges[], int size) {
  if (nnodes < 0) fail(MPI_ERR_ARG, "nnodes {} is negative", nnodes);
  if (nnodes > size) {
    fail(MPI_ERR_ARG, "nnodes {} is more than the communicator's {} ranks", nnodes, size);
  }
  if (nnodes > 0 && index == nullptr) fail(MPI_ERR_ARG, "index is null with nnodes = {}", nnodes);
  int previous = 0;
  for (int i = 0; i < nnodes; ++i) {
    if (index[i] < previous) {
      fail(MPI_ERR_ARG, "node {} has a negative degree: index[{}] = {} is less than {}", i, i,
           index[i], previous);
    }
    previous = index[i];
  }
  if (previous > 0 && edges == nullptr) fail(MPI_ERR_ARG, "edges is null with {} edges", previous);
  for (int e = 0; e < previous; ++e) {
    if (edges[e] < 0 || edges[e] >= nnodes) {
      fail(MPI_ERR_ARG, "edges[{}] = {} is not a node of the graph of {} nodes", e, edges[e],
           nnodes);
    }
  }
}

/// A node of a graph (MPI_Graph_neighbors*): its neighbours are edges[first, last).
std::pair<int, int> node_edges(const graph& g, int rank) {
  const int nnodes = static_cast<int>(g.index.size());
  if (rank < 0 || rank >= nnodes) {
    fail(MPI_ERR_RANK, "rank {} is not a node of the graph of {} nodes", rank, nnodes);
  }
  const auto i = static_cast<std::size_t>(rank);
  return {i == 0 ? 0 : g.index[i - 1], g.index[i]};
}

/// Checks a list of `degree` neighbours (ranks of a communicator of `size`) and their weights.
void check_neighbours(int degree, const int ranks[], const int weights[], int size,
                      const char* what, const char* weights_name) {
  if (degree < 0) fail(MPI_ERR_ARG, "the {} degree {} is negative", what, degree);
  if (degree > 0 && ranks == nullptr) {
    fail(MPI_ERR_ARG, "the {} array is null with a degree of {}", what, degree);
  }
  for (int i = 0; i < degree; ++i) {
    if (ranks[i] < 0 || ranks[i] >= size) {
      fail(MPI_ERR_ARG, "{}[{}] = {} is not a rank of the communicator (size {})", what, i,
           ranks[i], size);
    }
  }
  if (degree > 0 && weights == nullptr) {
    fail(MPI_ERR_ARG, "{} is null (MPI_UNWEIGHTED says there are none)", weights_name);
  }
  if (degree > 0 && weights == MPI_WEIGHTS_EMPTY) {
    fail(MPI_ERR_ARG, "{} is MPI_WEIGHTS_EMPTY with a degree of {}", weights_name, degree);
  }
  if (weights != MPI_UNWEIGHTED && weights != MPI_WEIGHTS_EMPTY) {
    for (int i = 0; i < degree; ++i) {
      if (weights[i] < 0) fail(MPI_ERR_ARG, "{}[{}] = {} is negative", weights_name, i, weights[i]);
    }
  }
}

/// The weights of a list of `degree` neighbours as stored (none when unweighted).
std::vector<int> weights_of(const int weights[], int degree) {
  if (weights == MPI_UNWEIGHTED || weights == MPI_WEIGHTS_EMPTY) return {};
  return {weights, weights + degree};
}

/// A duplicate of `old` carrying `topology` (every rank of `old` is a node of a distributed graph).
MPI_Comm with_dist_graph(rmpl_mpi_comm& old, std::unique_ptr<dist_graph> topology) {
  MPI_Comm made = make_comm(detail::dup(*old.impl), old);
  made->dist_graph_topology = std::move(topology);
  return made;
}

/// Copies up to `max` values of `from` into `to` (a caller's array of that room).
void copy_out(const std::vector<int>& from, int max, int to[], const char* what) {
  const auto n = std::min(from.size(), static_cast<std::size_t>(std::max(max, 0)));
  if (n > 0 && to == nullptr) fail(MPI_ERR_ARG, "{} is null with room for {}", what, max);
  std::copy_n(from.begin(), n, to);
}

/// One edge of MPI_Dist_graph_create as sent to one of its ends.
struct edge_record {
  int outgoing;  ///< 1: the receiver is the source and `peer` the destination; 0: the reverse
  int peer;
  int weight;
};

}  // namespace
}  // namespace rmpl::mpi

using namespace rmpl::mpi;

namespace rmpl::mpi::impl {
namespace {

int Graph_create(MPI_Comm c, int nnodes, const int index[], const int edges[], int,
                 MPI_Comm* comm_graph) {
  rmpl_mpi_comm& old = intracomm(c,
                                 "MPI_Graph_create on an intercommunicator is erroneous "
                                 "(topologies are defined on intracommunicators only)");
  check_graph(nnodes, index, edges, old.size());
  if (comm_graph == nullptr) fail(MPI_ERR_ARG, "the new communicator's handle pointer is null");
  std::vector<int> nodes(static_cast<std::size_t>(nnodes));
  std::iota(nodes.begin(), nodes.end(), 0);
  const rmpl::group in_graph = rmpl::detail::members(*old.impl).include(nodes);
  MPI_Comm made = make_comm(rmpl::detail::create(*old.impl, in_graph), old);
  if (made != MPI_COMM_NULL) {
    auto g = std::make_unique<graph>();
    g->index.assign(index, index + nnodes);
    g->edges.assign(edges, edges + (nnodes > 0 ? index[nnodes - 1] : 0));
    made->graph_topology = std::move(g);
  }
  *comm_graph = made;
  return MPI_SUCCESS;
}

int Graphdims_get(MPI_Comm c, int* nnodes, int* nedges) {
  const graph& g = graph_of(comm(c));
  if (nnodes == nullptr || nedges == nullptr) fail(MPI_ERR_ARG, "nnodes or nedges is null");
  *nnodes = static_cast<int>(g.index.size());
  *nedges = static_cast<int>(g.edges.size());
  return MPI_SUCCESS;
}

int Graph_get(MPI_Comm c, int maxindex, int maxedges, int index[], int edges[]) {
  const graph& g = graph_of(comm(c));
  if (maxindex < 0 || maxedges < 0) {
    fail(MPI_ERR_ARG, "maxindex {} or maxedges {} is negative", maxindex, maxedges);
  }
  copy_out(g.index, maxindex, index, "index");
  copy_out(g.edges, maxedges, edges, "edges");
  return MPI_SUCCESS;
}

int Graph_neighbors_count(MPI_Comm c, int rank, int* nneighbors) {
  const auto [first, last] = node_edges(graph_of(comm(c)), rank);
  if (nneighbors == nullptr) fail(MPI_ERR_ARG, "nneighbors is null");
  *nneighbors = last - first;
  return MPI_SUCCESS;
}

int Graph_neighbors(MPI_Comm c, int rank, int maxneighbors, int neighbors[]) {
  const graph& g = graph_of(comm(c));
  const auto [first, last] = node_edges(g, rank);
  if (maxneighbors < 0) fail(MPI_ERR_ARG, "maxneighbors {} is negative", maxneighbors);
  copy_out({g.edges.begin() + first, g.edges.begin() + last}, maxneighbors, neighbors, "neighbors");
  return MPI_SUCCESS;
}

int Graph_map(MPI_Comm c, int nnodes, const int index[], const int edges[], int* newrank) {
  const rmpl_mpi_comm& old = intracomm(c,
                                       "MPI_Graph_map on an intercommunicator is erroneous "
                                       "(topologies are defined on intracommunicators only)");
  check_graph(nnodes, index, edges, old.size());
  if (newrank == nullptr) fail(MPI_ERR_ARG, "newrank is null");
  *newrank = old.rank() < nnodes ? old.rank() : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int Dist_graph_create_adjacent(MPI_Comm c, int indegree, const int sources[],
                               const int sourceweights[], int outdegree, const int destinations[],
                               const int destweights[], MPI_Info info, int,
                               MPI_Comm* comm_dist_graph) {
  rmpl_mpi_comm& old = intracomm(c,
                                 "MPI_Dist_graph_create_adjacent on an intercommunicator is "
                                 "erroneous (topologies are defined on intracommunicators only)");
  optional_info(info);
  check_neighbours(indegree, sources, sourceweights, old.size(), "sources", "sourceweights");
  check_neighbours(outdegree, destinations, destweights, old.size(), "destinations", "destweights");
  if ((sourceweights == MPI_UNWEIGHTED) != (destweights == MPI_UNWEIGHTED)) {
    fail(MPI_ERR_ARG, "sourceweights and destweights must both be MPI_UNWEIGHTED or both weights");
  }
  if (comm_dist_graph == nullptr) {
    fail(MPI_ERR_ARG, "the new communicator's handle pointer is null");
  }
  auto g = std::make_unique<dist_graph>();
  g->sources.assign(sources, sources + indegree);
  g->destinations.assign(destinations, destinations + outdegree);
  g->weighted = sourceweights != MPI_UNWEIGHTED;
  g->source_weights = weights_of(sourceweights, indegree);
  g->destination_weights = weights_of(destweights, outdegree);
  *comm_dist_graph = with_dist_graph(old, std::move(g));
  return MPI_SUCCESS;
}

int Dist_graph_create(MPI_Comm c, int n, const int sources[], const int degrees[],
                      const int destinations[], const int weights[], MPI_Info info, int,
                      MPI_Comm* comm_dist_graph) {
  rmpl_mpi_comm& old = intracomm(c,
                                 "MPI_Dist_graph_create on an intercommunicator is erroneous "
                                 "(topologies are defined on intracommunicators only)");
  optional_info(info);
  const int size = old.size();
  if (n < 0) fail(MPI_ERR_ARG, "n {} is negative", n);
  if (n > 0 && (sources == nullptr || degrees == nullptr)) {
    fail(MPI_ERR_ARG, "sources or degrees is null with n = {}", n);
  }
  std::int64_t edges = 0;
  for (int i = 0; i < n; ++i) {
    if (sources[i] < 0 || sources[i] >= size) {
      fail(MPI_ERR_ARG, "sources[{}] = {} is not a rank of the communicator (size {})", i,
           sources[i], size);
    }
    if (degrees[i] < 0) fail(MPI_ERR_ARG, "degrees[{}] = {} is negative", i, degrees[i]);
    edges += degrees[i];
  }
  if (edges > INT32_MAX) fail(MPI_ERR_ARG, "{} edges are more than an int counts", edges);
  const int m = static_cast<int>(edges);
  check_neighbours(m, destinations, weights, size, "destinations", "weights");
  if (comm_dist_graph == nullptr) {
    fail(MPI_ERR_ARG, "the new communicator's handle pointer is null");
  }
  // Each edge goes to both of its ends: to its source as an outgoing edge, to its destination
  // as an incoming one. Records are grouped by the rank they go to, in the order given, and
  // arrive grouped by the rank that gave them, in rank order: every process lists its
  // neighbours in the same, deterministic order.
  const auto ranks = static_cast<std::size_t>(size);
  const bool weighted = weights != MPI_UNWEIGHTED;
  std::vector<std::vector<edge_record>> to(ranks);
  for (int i = 0, e = 0; i < n; ++i) {
    for (int k = 0; k < degrees[i]; ++k, ++e) {
      const int w = weighted && weights != MPI_WEIGHTS_EMPTY ? weights[e] : 1;
      to[static_cast<std::size_t>(sources[i])].push_back({1, destinations[e], w});
      to[static_cast<std::size_t>(destinations[e])].push_back({0, sources[i], w});
    }
  }
  constexpr std::size_t record = sizeof(edge_record);
  std::vector<std::size_t> send_counts(ranks), send_displs(ranks);
  std::vector<edge_record> outgoing;
  for (std::size_t r = 0; r < ranks; ++r) {
    send_displs[r] = outgoing.size() * record;
    send_counts[r] = to[r].size() * record;
    outgoing.insert(outgoing.end(), to[r].begin(), to[r].end());
  }
  std::vector<std::size_t> recv_counts(ranks), recv_displs(ranks);
  rmpl::detail::request_id counts_exchanged =
      rmpl::detail::ialltoall(*old.impl, std::as_bytes(std::span(send_counts)),
                              std::as_writable_bytes(std::span(recv_counts)));
  rmpl::detail::wait(counts_exchanged);
  std::size_t total = 0;
  for (std::size_t r = 0; r < ranks; ++r) {
    recv_displs[r] = total;
    total += recv_counts[r];
  }
  std::vector<edge_record> incoming(total / record);
  rmpl::detail::request_id edges_exchanged = rmpl::detail::ialltoallv(
      *old.impl, std::as_bytes(std::span(outgoing)), send_counts, send_displs,
      std::as_writable_bytes(std::span(incoming)), recv_counts, recv_displs);
  rmpl::detail::wait(edges_exchanged);
  // Whether the graph is weighted is the same on every rank (MPI requires MPI_UNWEIGHTED on all
  // or none); this rank's own choice says it.
  auto g = std::make_unique<dist_graph>();
  g->weighted = weighted;
  for (const edge_record& e : incoming) {
    auto& peers = e.outgoing ? g->destinations : g->sources;
    auto& peer_weights = e.outgoing ? g->destination_weights : g->source_weights;
    peers.push_back(e.peer);
    if (weighted) peer_weights.push_back(e.weight);
  }
  *comm_dist_graph = with_dist_graph(old, std::move(g));
  return MPI_SUCCESS;
}

int Dist_graph_neighbors_count(MPI_Comm c, int* indegree, int* outdegree, int* weighted) {
  const dist_graph& g = dist_graph_of(comm(c));
  if (indegree == nullptr || outdegree == nullptr || weighted == nullptr) {
    fail(MPI_ERR_ARG, "indegree, outdegree or weighted is null");
  }
  *indegree = static_cast<int>(g.sources.size());
  *outdegree = static_cast<int>(g.destinations.size());
  *weighted = g.weighted ? 1 : 0;
  return MPI_SUCCESS;
}

int Dist_graph_neighbors(MPI_Comm c, int maxindegree, int sources[], int sourceweights[],
                         int maxoutdegree, int destinations[], int destweights[]) {
  const dist_graph& g = dist_graph_of(comm(c));
  if (maxindegree < 0 || maxoutdegree < 0) {
    fail(MPI_ERR_ARG, "maxindegree {} or maxoutdegree {} is negative", maxindegree, maxoutdegree);
  }
  copy_out(g.sources, maxindegree, sources, "sources");
  copy_out(g.destinations, maxoutdegree, destinations, "destinations");
  // The weights are written only for a weighted graph, and only where the caller gave room.
  if (g.weighted) {
    if (sourceweights != MPI_UNWEIGHTED && sourceweights != MPI_WEIGHTS_EMPTY) {
      copy_out(g.source_weights, maxindegree, sourceweights, "sourceweights");
    }
    if (destweights != MPI_UNWEIGHTED && destweights != MPI_WEIGHTS_EMPTY) {
      copy_out(g.destination_weights, maxoutdegree, destweights, "destweights");
    }
  }
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace rmpl::mpi::impl

#include "mpi/bindings/graph.inc"  // the MPI_ and PMPI_ functions (generated)
