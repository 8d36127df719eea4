// A communicator as the kernel sees it: a pair of contexts (one for point-to-point traffic, the
// next for collectives, so a user's wildcard receive can never take a collective's message), the
// members' job ranks, and the number of collectives started on it. Every member starts the same
// collectives in the same order, so that number, used as the tag on the collective context, tells
// the messages of two collectives in flight at once apart.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/area_ring.hpp"
#include "rmpl/types.hpp"

namespace rmpl::core {

struct communicator;

/// A communicator whose members span hosts, with several of them on some host, seen at two levels
/// by coll's hierarchical algorithms: its members on this process's host (`node`, which holds one
/// of the node's collective areas), and the lowest-ranked member of each host (`leaders`, on those
/// members only). Made with the communicator, by the same members (api/communicators.cpp).
struct hierarchy {
  communicator* node = nullptr;
  communicator* leaders = nullptr;    ///< null on a member that leads no host
  std::vector<int> host;              ///< rank -> the rank of its host's leader among the leaders
  std::vector<int> node_rank;         ///< rank -> its rank among its host's members
  std::shared_ptr<const void> owner;  ///< keeps `node` and `leaders` alive
};

struct communicator {
  std::uint32_t context = 0;  ///< point-to-point traffic; context + 1 carries collectives
  int rank = 0;               ///< this process's rank here
  int size = 1;
  std::vector<int> world;  ///< rank here -> job rank; empty when they are equal (the world)
  /// job rank -> rank here, or undefined; null when equal. Shared with the receive requests
  /// started here, which translate their status's source when they complete.
  std::shared_ptr<const std::vector<int>> local;
  std::uint32_t collectives_started = 0;
  /// This communicator's collective area slot on every member (core/area_pool.hpp), or -1.
  int area = -1;
  area_ring area_rounds;  ///< where the shared-area rounds started here lie (coll/shared_area.hpp)
  std::uint64_t short_calls = 0;  ///< short-protocol calls made here (coll/shared_short.hpp)
  std::uint64_t short_seen = 0;   ///< the least short_done of the members, as last read
  /// Of short_calls, the entries of calls that ran another algorithm (coll/shared_short.hpp,
  /// "straddles"): tests tell by it which calls took the protocol.
  std::uint64_t short_entries = 0;
  /// Set when the members span hosts with several on one (see hierarchy); null otherwise, and on
  /// a duplicate until it makes its own.
  std::shared_ptr<const hierarchy> hosts;

  std::uint32_t collective_context() const noexcept { return context + 1; }
  int to_world(int r) const noexcept {
    return world.empty() ? r : world[static_cast<std::size_t>(r)];
  }
  int from_world(int w) const noexcept { return local ? (*local)[static_cast<std::size_t>(w)] : w; }
  /// The tag of the next collective on this communicator.
  int next_collective_tag() noexcept {
    return static_cast<int>(collectives_started++ & static_cast<std::uint32_t>(tag_ub));
  }

  /// The communicator of these job ranks (in rank order) on `context`, seen from job rank `me`.
  static communicator of(std::uint32_t context, std::vector<int> members, int me, int job_size) {
    communicator c;
    c.context = context;
    c.size = static_cast<int>(members.size());
    auto local = std::make_shared<std::vector<int>>(static_cast<std::size_t>(job_size), undefined);
    c.rank = undefined;
    for (int r = 0; r < c.size; ++r) {
      (*local)[static_cast<std::size_t>(members[static_cast<std::size_t>(r)])] = r;
      if (members[static_cast<std::size_t>(r)] == me) c.rank = r;
    }
    c.world = std::move(members);
    c.local = std::move(local);
    return c;
  }
};

}  // namespace rmpl::core
