// Cartesian topologies (MPI-3.1 7.5): a communicator whose ranks are laid out row-major on a grid,
// with or without wrap-around in each dimension. Every rank shares one host, so no placement is
// better than another: reorder is ignored and rank r of the old communicator keeps rank r on the
// grid (ranks beyond the grid get MPI_COMM_NULL). The grid itself is rmpl_mpi_comm::topology.
#include <cstdint>
#include <numeric>
#include <vector>

#include "mpi/call.hpp"
#include "mpi/communicators.hpp"
#include "mpi/topology.hpp"

namespace rmpl::mpi {
namespace {

/// The grid of a communicator that has one.
const cartesian& grid_of(const rmpl_mpi_comm& c) {
  if (!c.topology) fail(MPI_ERR_TOPOLOGY, "the communicator has no Cartesian topology");
  return *c.topology;
}

int ndims_of(const cartesian& g) noexcept {
  return static_cast<int>(g.dims.size());
}

/// Checks ndims and dims (each positive) of a grid to be laid over a communicator of `size`; the
/// number of ranks the grid holds.
int grid_size(int ndims, const int dims[], int size) {
  if (ndims < 0) fail(MPI_ERR_DIMS, "ndims {} is negative", ndims);
  if (ndims > 0 && dims == nullptr) fail(MPI_ERR_ARG, "dims is null with ndims = {}", ndims);
  std::int64_t product = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0) fail(MPI_ERR_DIMS, "dims[{}] = {} is not positive", i, dims[i]);
    product *= dims[i];
    if (product > size) {
      fail(MPI_ERR_ARG,
           "the grid of the first {} dimensions holds {} ranks, more than the "
           "communicator's {}",
           i + 1, product, size);
    }
  }
  return static_cast<int>(product);
}

/// The coordinates of `rank` on the grid (row-major: the last dimension varies fastest).
std::vector<int> coords_of(const cartesian& g, int rank) {
  std::vector<int> coords(g.dims.size());
  for (std::size_t i = g.dims.size(); i-- > 0;) {
    coords[i] = rank % g.dims[i];
    rank /= g.dims[i];
  }
  return coords;
}

/// The rank at `coords`, wrapped in periodic dimensions.
int rank_at(const cartesian& g, const int coords[]) {
  std::int64_t rank = 0;
  for (std::size_t i = 0; i < g.dims.size(); ++i) {
    int c = coords[i];
    const int d = g.dims[i];
    if (g.periods[i]) {
      c = ((c % d) + d) % d;
    } else if (c < 0 || c >= d) {
      fail(MPI_ERR_ARG, "coords[{}] = {} lies outside the non-periodic dimension {} of extent {}",
           i, c, i, d);
    }
    rank = rank * d + c;
  }
  return static_cast<int>(rank);
}

/// The most balanced way of writing m as `parts` factors, each at most `cap`, largest first,
/// appended to `out`: the smallest largest factor, then the smallest next one, and so on (what
/// MPI_Dims_create asks for). `divisors` holds every divisor of the original number, ascending.
bool balanced(std::int64_t m, int parts, std::int64_t cap,
              const std::vector<std::int64_t>& divisors, std::vector<int>& out) {
  if (parts == 0) return m == 1;
  for (const std::int64_t d : divisors) {
    if (d > cap || d > m) break;
    if (m % d != 0) continue;
    // The largest of `parts` factors is at least the parts-th root of m.
    std::int64_t power = 1;
    for (int i = 0; i < parts && power < m; ++i) power *= d;
    if (power < m) continue;
    out.push_back(static_cast<int>(d));
    if (balanced(m / d, parts - 1, d, divisors, out)) return true;
    out.pop_back();
  }
  return false;
}

std::vector<std::int64_t> divisors_of(std::int64_t n) {
  std::vector<std::int64_t> low, high;
  for (std::int64_t d = 1; d * d <= n; ++d) {
    if (n % d != 0) continue;
    low.push_back(d);
    if (d != n / d) high.push_back(n / d);
  }
  low.insert(low.end(), high.rbegin(), high.rend());
  return low;
}

}  // namespace

neighborhood neighborhood_of(const rmpl_mpi_comm& c) {
  neighborhood n;
  if (c.graph_topology) {
    // A graph's neighbours are both its sources and its destinations, in the order given.
    const graph& g = *c.graph_topology;
    const auto node = static_cast<std::size_t>(c.rank());
    const int first = node == 0 ? 0 : g.index[node - 1];
    n.sources.assign(g.edges.begin() + first, g.edges.begin() + g.index[node]);
    n.destinations = n.sources;
  } else if (c.dist_graph_topology) {
    n.sources = c.dist_graph_topology->sources;
    n.destinations = c.dist_graph_topology->destinations;
  } else if (c.topology) {
    // Per dimension, the neighbour below (block 2d) and above (block 2d + 1). The block sent up is
    // the one the neighbour above receives as from below, so with an extent of 1 or 2 (the same
    // rank both ways, or this rank itself) the sends go up first, then down: receives are posted
    // down first, and messages between two ranks match in the order they were sent.
    const cartesian& g = *c.topology;
    const std::vector<int> mine = coords_of(g, c.rank());
    for (std::size_t d = 0; d < g.dims.size(); ++d) {
      auto at = [&](int by) {
        std::vector<int> there = mine;
        there[d] += by;
        if (!g.periods[d] && (there[d] < 0 || there[d] >= g.dims[d])) return MPI_PROC_NULL;
        return rank_at(g, there.data());
      };
      const int down = at(-1), up = at(1), block = 2 * static_cast<int>(d);
      n.sources.insert(n.sources.end(), {down, up});
      n.destinations.insert(n.destinations.end(), {up, down});
      n.send_blocks.insert(n.send_blocks.end(), {block + 1, block});
    }
    return n;
  } else {
    fail(MPI_ERR_TOPOLOGY,
         "the communicator has no topology (neighbourhood collectives need a Cartesian, graph or "
         "distributed graph communicator)");
  }
  n.send_blocks.resize(n.destinations.size());
  std::iota(n.send_blocks.begin(), n.send_blocks.end(), 0);
  return n;
}

}  // namespace rmpl::mpi

using namespace rmpl::mpi;

namespace rmpl::mpi::impl {
namespace {

int Dims_create(int nnodes, int ndims, int dims[]) {
  if (nnodes <= 0) fail(MPI_ERR_ARG, "nnodes {} is not positive", nnodes);
  if (ndims < 0) fail(MPI_ERR_DIMS, "ndims {} is negative", ndims);
  if (ndims > 0 && dims == nullptr) fail(MPI_ERR_ARG, "dims is null with ndims = {}", ndims);
  std::int64_t fixed = 1;
  int free_dims = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0) fail(MPI_ERR_DIMS, "dims[{}] = {} is negative", i, dims[i]);
    if (dims[i] == 0) {
      ++free_dims;
    } else if ((fixed *= dims[i]) > nnodes || nnodes % fixed != 0) {
      fail(MPI_ERR_DIMS,
           "the dimensions given (up to dims[{}] = {}) span {} nodes, which "
           "does not divide nnodes = {}",
           i, dims[i], fixed, nnodes);
    }
  }
  const std::int64_t rest = nnodes / fixed;
  if (free_dims == 0 && rest != 1) {
    fail(MPI_ERR_DIMS, "every dimension is given and they span {} nodes, not nnodes = {}", fixed,
         nnodes);
  }
  std::vector<int> factors;
  if (free_dims > 0 && !balanced(rest, free_dims, rest, divisors_of(rest), factors)) {
    fail(MPI_ERR_INTERN, "no factorisation of {} into {} dimensions", rest, free_dims);
  }
  for (int i = 0, next = 0; i < ndims; ++i) {
    if (dims[i] == 0) dims[i] = factors[static_cast<std::size_t>(next++)];
  }
  return MPI_SUCCESS;
}

int Cart_create(MPI_Comm c, int ndims, const int dims[], const int periods[], int,
                MPI_Comm* comm_cart) {
  rmpl_mpi_comm& old = intracomm(c,
                                 "MPI_Cart_create on an intercommunicator is erroneous "
                                 "(topologies are defined on intracommunicators only)");
  const int ranks = grid_size(ndims, dims, old.size());
  if (ndims > 0 && periods == nullptr) fail(MPI_ERR_ARG, "periods is null with ndims = {}", ndims);
  if (comm_cart == nullptr) fail(MPI_ERR_ARG, "the new communicator's handle pointer is null");
  std::vector<int> first(static_cast<std::size_t>(ranks));
  std::iota(first.begin(), first.end(), 0);
  const rmpl::group on_grid = rmpl::detail::members(*old.impl).include(first);
  MPI_Comm cart = make_comm(rmpl::detail::create(*old.impl, on_grid), old);
  if (cart != MPI_COMM_NULL) {
    auto grid = std::make_unique<cartesian>();
    grid->dims.assign(dims, dims + ndims);
    for (int i = 0; i < ndims; ++i) grid->periods.push_back(periods[i] != 0);
    cart->topology = std::move(grid);
  }
  *comm_cart = cart;
  return MPI_SUCCESS;
}

int Cartdim_get(MPI_Comm c, int* ndims) {
  *ndims = ndims_of(grid_of(comm(c)));
  return MPI_SUCCESS;
}

int Cart_get(MPI_Comm c, int maxdims, int dims[], int periods[], int coords[]) {
  const rmpl_mpi_comm& cart = comm(c);
  const cartesian& g = grid_of(cart);
  const int n = ndims_of(g);
  if (maxdims < n) {
    fail(MPI_ERR_ARG, "maxdims {} is less than the topology's {} dimensions", maxdims, n);
  }
  if (n > 0 && (dims == nullptr || periods == nullptr || coords == nullptr)) {
    fail(MPI_ERR_ARG, "dims, periods or coords is null for {} dimensions", n);
  }
  const std::vector<int> mine = coords_of(g, cart.rank());
  for (int i = 0; i < n; ++i) {
    dims[i] = g.dims[static_cast<std::size_t>(i)];
    periods[i] = g.periods[static_cast<std::size_t>(i)];
    coords[i] = mine[static_cast<std::size_t>(i)];
  }
  return MPI_SUCCESS;
}

int Cart_rank(MPI_Comm c, const int coords[], int* rank) {
  const cartesian& g = grid_of(comm(c));
  if (ndims_of(g) > 0 && coords == nullptr) fail(MPI_ERR_ARG, "coords is null");
  *rank = rank_at(g, coords);
  return MPI_SUCCESS;
}

int Cart_coords(MPI_Comm c, int rank, int maxdims, int coords[]) {
  const rmpl_mpi_comm& cart = comm(c);
  const cartesian& g = grid_of(cart);
  const int n = ndims_of(g);
  if (rank < 0 || rank >= cart.size()) {
    fail(MPI_ERR_RANK, "rank {} is not a rank of the communicator (size {})", rank, cart.size());
  }
  if (maxdims < n) {
    fail(MPI_ERR_ARG, "maxdims {} is less than the topology's {} dimensions", maxdims, n);
  }
  if (n > 0 && coords == nullptr) fail(MPI_ERR_ARG, "coords is null");
  const std::vector<int> found = coords_of(g, rank);
  std::copy(found.begin(), found.end(), coords);
  return MPI_SUCCESS;
}

int Cart_shift(MPI_Comm c, int direction, int disp, int* rank_source, int* rank_dest) {
  const rmpl_mpi_comm& cart = comm(c);
  const cartesian& g = grid_of(cart);
  if (direction < 0 || direction >= ndims_of(g)) {
    fail(MPI_ERR_ARG, "direction {} is not a dimension of the {}-dimensional topology", direction,
         ndims_of(g));
  }
  const auto axis = static_cast<std::size_t>(direction);
  std::vector<int> coords = coords_of(g, cart.rank());
  const int extent = g.dims[axis];
  // The neighbour `by` steps along the axis: wrapped when periodic, MPI_PROC_NULL past an edge.
  auto neighbour = [&](std::int64_t by) {
    std::int64_t at = coords[axis] + by;
    if (g.periods[axis]) {
      at = ((at % extent) + extent) % extent;
    } else if (at < 0 || at >= extent) {
      return MPI_PROC_NULL;
    }
    std::vector<int> there = coords;
    there[axis] = static_cast<int>(at);
    return rank_at(g, there.data());
  };
  *rank_dest = neighbour(disp);
  *rank_source = neighbour(-static_cast<std::int64_t>(disp));
  return MPI_SUCCESS;
}

int Cart_sub(MPI_Comm c, const int remain_dims[], MPI_Comm* newcomm) {
  rmpl_mpi_comm& cart = comm(c);
  const cartesian& g = grid_of(cart);
  if (ndims_of(g) > 0 && remain_dims == nullptr) fail(MPI_ERR_ARG, "remain_dims is null");
  if (newcomm == nullptr) fail(MPI_ERR_ARG, "the new communicator's handle pointer is null");
  // Ranks that agree on the dropped coordinates share a subgrid (the color), ordered row-major
  // by the coordinates kept (the key).
  const std::vector<int> coords = coords_of(g, cart.rank());
  auto sub = std::make_unique<cartesian>();
  int color = 0, key = 0;
  for (std::size_t i = 0; i < g.dims.size(); ++i) {
    if (remain_dims[i]) {
      key = key * g.dims[i] + coords[i];
      sub->dims.push_back(g.dims[i]);
      sub->periods.push_back(g.periods[i]);
    } else {
      color = color * g.dims[i] + coords[i];
    }
  }
  MPI_Comm made = make_comm(rmpl::detail::split(*cart.impl, color, key), cart);
  made->topology = std::move(sub);
  *newcomm = made;
  return MPI_SUCCESS;
}

int Cart_map(MPI_Comm c, int ndims, const int dims[], const int periods[], int* newrank) {
  const rmpl_mpi_comm& old = intracomm(c,
                                       "MPI_Cart_map on an intercommunicator is erroneous "
                                       "(topologies are defined on intracommunicators only)");
  const int ranks = grid_size(ndims, dims, old.size());
  if (ndims > 0 && periods == nullptr) fail(MPI_ERR_ARG, "periods is null with ndims = {}", ndims);
  *newrank = old.rank() < ranks ? old.rank() : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

int Topo_test(MPI_Comm c, int* status) {
  if (status == nullptr) fail(MPI_ERR_ARG, "status is null");
  const rmpl_mpi_comm& co = comm(c);
  *status = co.topology              ? MPI_CART
            : co.graph_topology      ? MPI_GRAPH
            : co.dist_graph_topology ? MPI_DIST_GRAPH
                                     : MPI_UNDEFINED;
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace rmpl::mpi::impl

#include "mpi/bindings/topology.inc"  // the MPI_ and PMPI_ functions (generated)
