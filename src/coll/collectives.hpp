// The collectives' entry points: each checks its arguments, picks an algorithm (select.hpp) and
// starts it as an activity of the engine; the returned request completes when this rank's part
// is done. A blocking call (target::to_end) runs the same algorithm to its end before returning,
// and gets null. Sizes are in bytes; a reduction's `in` and `out` may be the same memory (in
// place).
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "core/communicator.hpp"
#include "core/engine.hpp"
#include "rmpl/operators.hpp"

namespace rmpl::coll {

/// Where a collective runs: the engine, the communicator (whose collective count advances), and
/// what keeps the communicator alive until the collective ends (a nonblocking one may outlive the
/// caller's handle).
struct entry_watch;

struct target {
  core::engine& engine;
  core::communicator& comm;
  std::shared_ptr<const void> keep;
  /// Blocking: run the collective to its end on the caller's stack, with no request, and return
  /// null (errors are thrown, as a wait would throw them). The caller keeps the communicator
  /// alive, so `keep` may be empty.
  bool to_end = false;
  /// Set by the start of a blocking call beyond the short protocol that watches its members
  /// (shared_short.hpp, "straddles"); null otherwise.
  const entry_watch* watch = nullptr;
};

using bytes = std::span<std::byte>;
using const_bytes = std::span<const std::byte>;
using sizes = std::span<const std::size_t>;
using reduction = detail::reduction;

core::request* start_barrier(const target& t);
core::request* start_broadcast(const target& t, bytes data, int root);
core::request* start_reduce(const target& t, const_bytes in, bytes out, const reduction& op,
                            int root);
core::request* start_allreduce(const target& t, const_bytes in, bytes out, const reduction& op);
core::request* start_scan(const target& t, const_bytes in, bytes out, const reduction& op,
                          bool exclusive);
core::request* start_reduce_scatter_block(const target& t, const_bytes in, bytes out,
                                          const reduction& op);
core::request* start_reduce_scatter(const target& t, const_bytes in, bytes out, sizes counts,
                                    const reduction& op);
core::request* start_gather(const target& t, const_bytes in, bytes out, int root);
core::request* start_gatherv(const target& t, const_bytes in, bytes out, sizes counts, sizes displs,
                             int root);
core::request* start_scatter(const target& t, const_bytes in, bytes out, int root);
core::request* start_scatterv(const target& t, const_bytes in, sizes counts, sizes displs,
                              bytes out, int root);
core::request* start_allgather(const target& t, const_bytes in, bytes out);
core::request* start_allgatherv(const target& t, const_bytes in, bytes out, sizes counts,
                                sizes displs);
core::request* start_alltoall(const target& t, const_bytes in, bytes out);
core::request* start_alltoallv(const target& t, const_bytes in, sizes send_counts,
                               sizes send_displs, bytes out, sizes recv_counts, sizes recv_displs);
/// The neighbourhood exchange: block i of `in` (send_counts[i] bytes at send_displs[i]) goes to
/// rank destinations[i], block i of `out` comes from rank sources[i]; proc_null entries are
/// skipped. Every member of the communicator calls it (it is numbered as any collective), each
/// with its own lists.
core::request* start_neighbor_exchange(const target& t, const_bytes in,
                                       std::span<const int> destinations, sizes send_counts,
                                       sizes send_displs, bytes out, std::span<const int> sources,
                                       sizes recv_counts, sizes recv_displs);

/// What the members of a communicator agree on for a new one made from it (dup, split, create):
/// a context pair free on all of them and, if one is, a collective area slot (-1: none). Written
/// when the agreement ends.
struct context_claim {
  std::uint32_t context = 0;
  int area = -1;
  /// Between the groups of an intercommunicator: the word the remote group's leader passed.
  std::uint64_t remote_extra = 0;
};
/// Starts the agreement (coll/claim.cpp) on the target's communicator; `out` is filled when it
/// ends. Blocking (t.to_end): runs it to its end and returns null.
core::request* start_context_claim(const target& t, std::shared_ptr<context_claim> out);
/// The same agreement over both groups of the intercommunicator `inter`, started on `local` (the
/// local group's communicator, which t.keep must keep alive together with `inter`): every member of
/// both groups claims the same context pair and, with `with_area` (a merge), the same area slot;
/// the leaders also swap `extra` (out->remote_extra). With `local_group_out`, the local group's
/// members first agree among themselves (as start_context_claim) on a communicator for the new
/// intercommunicator's local group: a nonblocking dup of an intercommunicator in one request.
core::request* start_context_claim_between(const target& local, core::communicator& inter,
                                           std::uint64_t extra, bool with_area,
                                           std::shared_ptr<context_claim> out,
                                           std::shared_ptr<context_claim> local_group_out);

enum class collective : unsigned char;
/// Whether the checked mode (RMPL_CHECK_COLLECTIVES=1) is on.
bool checking_collectives() noexcept;
/// How many collectives this rank has started in the checked mode: a layer above that sees it
/// unchanged after a failed call knows its own checks failed before the collective was entered.
std::uint64_t checked_starts() noexcept;
/// In the checked mode, for a rank whose arguments a layer above rejected before it started
/// collective `c` (the MPI layer's checks of types and counts): takes part in the collective's
/// agreement, flagged with `code`, so that the other ranks fail with it instead of being checked
/// against this rank's next collective; returns once the agreement ended, whatever its outcome.
/// Does nothing outside the checked mode.
void join_rejected(const target& t, collective c, errc code);

}  // namespace rmpl::coll
