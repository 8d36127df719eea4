// The neighbourhood exchange (MPI's neighbour collectives, MPI-3.1 7.6): every rank receives one
// block from each of its sources and sends one block to each of its destinations, the lists being
// whatever the caller's topology says. One algorithm serves allgather, alltoall and their v and w
// forms: the caller maps those onto per-neighbour blocks.
//
// A peer may appear several times in a list (a graph with repeated edges, a periodic Cartesian
// dimension of extent 1 or 2). Messages between two ranks are matched in the order they were sent,
// and receives in the order they were posted, so the k-th block this rank sends to a peer lands in
// the k-th block that peer receives from this rank: the caller orders its lists so that pairing is
// the one its topology defines.
#include "coll/algorithms.hpp"

namespace rmpl::coll {

task neighbor_exchange(exchange x, const_bytes in, neighbors to, bytes out, neighbors from) {
  // Receives first, so a message from a fast neighbour finds its buffer posted.
  for (std::size_t i = 0; i < from.peers.size(); ++i) {
    if (from.peers[i] < 0) continue;  // no neighbour (MPI_PROC_NULL): its block stays untouched
    x.recv(out.subspan(from.blocks.displs[i], from.blocks.counts[i]), from.peers[i]);
  }
  for (std::size_t i = 0; i < to.peers.size(); ++i) {
    if (to.peers[i] < 0) continue;
    x.send(in.subspan(to.blocks.displs[i], to.blocks.counts[i]), to.peers[i]);
  }
  co_await x.all();
}

}  // namespace rmpl::coll
