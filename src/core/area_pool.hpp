// The collective areas of this process (fabric/node_segment.hpp): each rank has a few in the
// node segment, and a communicator holds the same slot on every member, so that its shared-memory
// collectives find every member's area from the slot alone. Members agree on a slot the way they
// agree on a context (context_pool.hpp): AND their free masks, take the lowest bit. The world holds
// slot 0. A communicator without a slot (all were taken) runs its collectives over point-to-point.
//
// Freeing is local and lazy: a freed communicator's last round may still be read by slower members,
// so the slot is only offered again once every member has released that round. Its words are then
// reset to zero, before this rank takes part in any agreement that could hand the slot to a new
// communicator (whose rounds count from 1 again).
#pragma once

#include <bit>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "fabric/node_segment.hpp"

namespace rmpl::core {

class area_pool {
 public:
  using mask = std::uint64_t;

  /// `rank`: this process's job rank; `dead(r)`: whether rank r died (its areas drain no more).
  area_pool(const fabric::node_segment& node, int rank, std::function<bool(int)> dead)
      : node_(node), rank_(rank), dead_(std::move(dead)) {
    const std::uint32_t slots = node.slots();
    free_ = (slots >= 64 ? ~mask{0} : (mask{1} << slots) - 1) & ~mask{1};  // slot 0: the world
  }

  /// The slots free here now (freed slots whose last round every member has released included).
  mask free_mask() {
    std::erase_if(draining_, [this](const draining& d) {
      if (!drained(d)) return false;
      zero(d.slot);
      free_ |= mask{1} << d.slot;
      return true;
    });
    return free_;
  }

  /// Zeroes every word of this rank's areas. Only when no rank reads them any more: after the
  /// job-wide barrier of finalize, so that a later session's rounds, counted from 1, start clean.
  void reset_mine() noexcept {
    for (std::uint32_t slot = 0; slot < node_.slots(); ++slot) {
      zero(static_cast<int>(slot));
      node_.area(rank_, static_cast<int>(slot)).freed.store(0, std::memory_order_relaxed);
    }
  }

  /// Claims the lowest slot free in `agreed` (every member's free_mask() AND-ed), or nothing.
  std::optional<int> claim_lowest(mask agreed) noexcept {
    const mask bits = agreed & free_;
    if (bits == 0) return std::nullopt;
    const int slot = std::countr_zero(bits);
    free_ &= ~(mask{1} << slot);
    node_.area(rank_, slot).freed.store(0, std::memory_order_relaxed);
    return slot;
  }

  /// Gives `slot` back once every one of `members` (job ranks) has released round `last` and
  /// finished short call `short_last` (coll/shared_short.hpp), or freed the communicator too.
  /// The counts alone are not enough: after the ranks' counts disagreed in a collective, members
  /// claim different numbers of rounds and short calls, and the slot would never drain (8 slots:
  /// then every new communicator goes without an area).
  void release(int slot, std::vector<int> members, std::uint64_t last,
               std::uint64_t short_last = 0) {
    if (slot <= 0) return;
    node_.area(rank_, slot).freed.store(1, std::memory_order_release);
    draining_.push_back({slot, std::move(members), last, short_last});
  }

 private:
  struct draining {
    int slot;
    std::vector<int> members;
    std::uint64_t last;
    std::uint64_t short_last;
  };
  /// Zeroes this rank's words of `slot` (relaxed: published by the messages that follow).
  void zero(int slot) const noexcept {
    fabric::area_flags& mine = node_.area(rank_, slot);
    mine.posted.store(0, std::memory_order_relaxed);
    mine.reduced.store(0, std::memory_order_relaxed);
    mine.released.store(0, std::memory_order_relaxed);
    mine.short_done.store(0, std::memory_order_relaxed);
    for (auto& s : mine.short_slots) s.call.store(0, std::memory_order_relaxed);
    // round_size is not zeroed: it is read only after the entry of round_bytes beside it matched.
    for (auto& w : mine.round_bytes) w.store(0, std::memory_order_relaxed);
  }
  bool drained(const draining& d) const noexcept {
    for (int r : d.members) {
      const fabric::area_flags& a = node_.area(r, d.slot);
      if ((a.released.load(std::memory_order_acquire) < d.last ||
           a.short_done.load(std::memory_order_acquire) < d.short_last) &&
          a.freed.load(std::memory_order_acquire) == 0 && !dead_(r)) {
        return false;
      }
    }
    return true;
  }

  const fabric::node_segment& node_;
  int rank_;
  std::function<bool(int)> dead_;
  mask free_;
  std::vector<draining> draining_;
};

}  // namespace rmpl::core
