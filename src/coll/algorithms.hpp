// Every collective algorithm of rmpl, each a coroutine (see task.hpp) over the point-to-point
// kernel. Buffers are byte spans; reductions carry their operator and element size. The choice
// between algorithms is made in select.cpp; start.cpp checks arguments and starts one.
//
// Rank arithmetic follows MPICH's well-tried formulations: "rel" is a rank relative to the root;
// for recursive doubling and halving on a size that is not a power of two, the first 2*rem ranks
// pair up (the even one hands its data to the odd one, which stands for both), leaving a power of
// two of "new ranks".
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "coll/task.hpp"
#include "rmpl/operators.hpp"

namespace rmpl::coll {

using bytes = std::span<std::byte>;
using const_bytes = std::span<const std::byte>;
using reduction = detail::reduction;

/// Counts and displacements (bytes) of the blocks of a v-collective, one per rank.
struct layout {
  std::vector<std::size_t> counts;
  std::vector<std::size_t> displs;
  std::size_t count(int r) const { return counts[static_cast<std::size_t>(r)]; }
  std::size_t displ(int r) const { return displs[static_cast<std::size_t>(r)]; }
  /// n equal blocks of `block` bytes, packed.
  static layout uniform(int n, std::size_t block);
};

/// `parts` nearly equal blocks of `count` elements (the first count % parts one element longer), in
/// bytes: how halving, ring and scatter-allgather algorithms cut a vector.
class even_blocks {
 public:
  even_blocks(std::size_t count, std::size_t element, int parts);
  /// Where block i starts.
  std::size_t at(int i) const { return bounds_[static_cast<std::size_t>(i)]; }
  /// Bytes of blocks [first, last).
  std::size_t sum(int first, int last) const { return at(last) - at(first); }
  /// Blocks [first, last) of `data`.
  template <class Span>
  Span range(Span data, int first, int last) const {
    return data.subspan(at(first), sum(first, last));
  }

 private:
  std::vector<std::size_t> bounds_;  // parts + 1 offsets
};

// barrier.cpp
task barrier_dissemination(exchange x);

// ---- a new communicator's context pair and area slot (claim.cpp)
struct context_claim;
task claim_context(exchange x, std::shared_ptr<context_claim> out);
task claim_context_between(exchange local, exchange across, std::uint64_t extra, bool with_area,
                           std::shared_ptr<context_claim> out);

// shared.cpp: through the communicator's shared areas (only on one that holds a slot)
task barrier_shared(exchange x);
task broadcast_shared(exchange x, bytes data, int root);
/// root < 0: every rank receives the result (allreduce).
task reduce_shared(exchange x, const_bytes in, bytes out, reduction op, int root);
task allreduce_shared(exchange x, const_bytes in, bytes out, reduction op);
// shared_exchange.cpp: the same for allgather and alltoall (`in` may lie in `out`)
task allgather_shared(exchange x, const_bytes in, bytes out);
task alltoall_shared(exchange x, const_bytes in, bytes out);

// hierarchical.cpp: on a communicator that spans hosts (core::hierarchy), blocking calls only.
/// The tags of a call on the node communicator and on the leaders' (taken at the call, in program
/// order, as every member takes them).
struct level_tags {
  int node = 0;
  int leaders = 0;
};
task barrier_hierarchical(exchange x, level_tags tags);
task broadcast_hierarchical(exchange x, bytes data, int root, level_tags tags);
/// Commutative operators only.
task reduce_hierarchical(exchange x, const_bytes in, bytes out, reduction op, int root,
                         level_tags tags);
task allreduce_hierarchical(exchange x, const_bytes in, bytes out, reduction op, level_tags tags);

// broadcast.cpp
task broadcast_binomial(exchange x, bytes data, int root);
task broadcast_scatter_allgather(exchange x, bytes data, int root);

// reduce.cpp (`in` may be the same memory as `out`; `out` is only used on root)
task reduce_binomial(exchange x, const_bytes in, bytes out, reduction op, int root);
task reduce_rabenseifner(exchange x, const_bytes in, bytes out, reduction op, int root);

// allreduce.cpp
task allreduce_recursive_doubling(exchange x, const_bytes in, bytes out, reduction op);
task allreduce_rabenseifner(exchange x, const_bytes in, bytes out, reduction op);
task allreduce_ring(exchange x, const_bytes in, bytes out, reduction op);
task allreduce_reduce_broadcast(exchange x, const_bytes in, bytes out, reduction op);

// scan.cpp
task scan_recursive_doubling(exchange x, const_bytes in, bytes out, reduction op, bool exclusive);
task scan_linear(exchange x, const_bytes in, bytes out, reduction op, bool exclusive);

// gather.cpp
task gather_binomial(exchange x, const_bytes in, bytes out, int root);
task gatherv_linear(exchange x, const_bytes in, bytes out, layout blocks, int root);

// scatter.cpp
task scatter_binomial(exchange x, const_bytes in, bytes out, int root);
task scatterv_linear(exchange x, const_bytes in, layout blocks, bytes out, int root);

// allgather.cpp
task allgather_ring(exchange x, const_bytes in, bytes out, layout blocks);
task allgather_recursive_doubling(exchange x, const_bytes in, bytes out);  // power of two only
task allgather_bruck(exchange x, const_bytes in, bytes out);

// alltoall.cpp
task alltoall_linear(exchange x, const_bytes in, layout send, bytes out, layout recv);
task alltoall_pairwise(exchange x, const_bytes in, layout send, bytes out, layout recv);
task alltoall_bruck(exchange x, const_bytes in, bytes out);

// neighbor.cpp
/// One side of a neighbourhood exchange: entry i is the block (bytes) of `blocks` that goes to or
/// comes from rank `peers[i]`, in the order the messages are posted; a negative peer (proc_null)
/// is no neighbour and its block is left alone.
struct neighbors {
  std::vector<int> peers;
  layout blocks;
};
task neighbor_exchange(exchange x, const_bytes in, neighbors to, bytes out, neighbors from);

// reduce_scatter.cpp (`recv` gives each rank's share of the reduced vector, in bytes)
task reduce_scatter_recursive_halving(exchange x, const_bytes in, bytes out, layout recv,
                                      reduction op);
task reduce_scatter_pairwise(exchange x, const_bytes in, bytes out, layout recv, reduction op);
task reduce_scatter_reduce_scatterv(exchange x, const_bytes in, bytes out, layout recv,
                                    reduction op);

// ---- helpers shared by the algorithms ----

/// The largest power of two not above n.
inline int floor_pow2(int n) noexcept {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}
/// The rank's "new rank" when the first 2*rem ranks pair up (-1: an even rank that sat out).
inline int paired_rank(int rank, int rem) noexcept {
  if (rank < 2 * rem) return rank % 2 == 0 ? -1 : rank / 2;
  return rank - rem;
}
/// The size of relative rank `rel`'s subtree in a binomial tree of n ranks rooted at 0: ranks
/// [rel, rel + span), span the lowest set bit of rel (n for the root), cut at n.
inline int subtree_span(int rel, int n) noexcept {
  int span = 1;
  while (span < n && (rel & span) == 0) span *= 2;
  return span < n - rel ? span : n - rel;
}
/// The real rank behind a new rank.
inline int unpaired_rank(int newrank, int rem) noexcept {
  return newrank < rem ? newrank * 2 + 1 : newrank + rem;
}
/// Before a power-of-two exchange on n = 2^k + rem ranks, the first 2*rem ranks pair up: the even
/// rank sends its operand `acc` to the odd one, which folds it in (acc = even's op odd's, rank
/// order kept) and stands for both; `incoming` is the odd rank's receive buffer.
task pair_up(exchange x, int rem, bytes acc, bytes incoming, reduction op);
/// After the exchange the odd rank of each pair hands the result back to the even one.
task hand_back(exchange x, int rem, bytes result);
/// inout = in op inout over whole elements of the reduction.
void reduce_into(const reduction& op, const_bytes in, bytes inout);
/// inout = inout op in (the local operand first): needed by non-commutative operators.
/// `scratch` (same size) is clobbered.
void reduce_after(const reduction& op, bytes inout, const_bytes in, bytes scratch);
/// memcpy that tolerates identical (in-place) buffers.
void copy_bytes(bytes to, const_bytes from) noexcept;

}  // namespace rmpl::coll
