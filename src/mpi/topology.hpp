// What the neighbourhood collectives (collectives.cpp) need of a communicator's topology
// (topology.cpp: Cartesian; graph.cpp: graphs and distributed graphs): its neighbours as lists.
#pragma once

#include <vector>

#include "mpi/objects.hpp"

namespace rmpl::mpi {

/// The neighbours of this process, as MPI-3.1 7.6 orders them. Receive block i comes from
/// sources[i]; the sends are posted in the order of `destinations`, entry i carrying send block
/// send_blocks[i]. MPI_PROC_NULL stands for a missing neighbour (a non-periodic edge of a grid).
struct neighborhood {
  std::vector<int> sources;
  std::vector<int> destinations;
  std::vector<int> send_blocks;
};

/// The neighbourhood of `c`; MPI_ERR_TOPOLOGY when it has no topology.
neighborhood neighborhood_of(const rmpl_mpi_comm& c);

}  // namespace rmpl::mpi
