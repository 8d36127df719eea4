// A receiver's eager pool (fabric/shm/layout.hpp: its map of claimed slots, the slots' states and
// their data), seen by a sender, which claims a slot and copies its message in, or by the pool's
// owner, which checks that the slot a cell names was claimed by that cell's sender, copies the
// message out and frees the slot. A view of pointers, made where it is used: every call is on the
// message path.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "fabric/shm/layout.hpp"

namespace rmpl::fabric::shm {

class eager_pool {
 public:
  eager_pool(pool_word* map, chunk_state* states, std::byte* slots, std::uint32_t count,
             std::uint32_t slot_bytes) noexcept
      : map_(map), states_(states), slots_(slots), count_(count), slot_bytes_(slot_bytes) {}

  /// A slot's state word while `sender` holds it (0: free).
  static std::uint32_t claim_word(int sender) noexcept {
    return static_cast<std::uint32_t>(sender) + 1;
  }

  /// Claims the lowest free slot for `sender`, or returns -1 when the pool is full (the caller
  /// then goes by rendezvous rather than wait). One fetch_or on the map (an atomic allocation on
  /// the receiver's memory, as ACLMPL's fetch-and-add, but one that hands out the slot freed last,
  /// still in cache, where a counter would cycle through the whole pool): the slots in use stay as
  /// few as the traffic needs. Sender s starts at word s % words, so with a deep pool senders do
  /// not contend with each other.
  int claim(int sender) noexcept {
    const std::uint32_t words = pool_words(count_);
    // One division per claim, none per word visited: the wrap is a compare (a 32-bit division
    // costs tens of cycles on the message path).
    std::uint32_t w = words == 1 ? 0 : static_cast<std::uint32_t>(sender) % words;
    for (std::uint32_t k = 0; k < words; ++k, w = w + 1 == words ? 0 : w + 1) {
      const std::uint32_t in_word = std::min<std::uint32_t>(64, count_ - 64 * w);
      const std::uint64_t valid =
          in_word == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << in_word) - 1;
      std::uint64_t used = map_[w].used.load(std::memory_order_relaxed);
      while ((~used & valid) != 0) {
        const std::uint64_t bit = std::uint64_t{1} << std::countr_zero(~used & valid);
        used = map_[w].used.fetch_or(bit, std::memory_order_acquire);
        if ((used & bit) == 0) {
          const std::uint32_t s = 64 * w + static_cast<std::uint32_t>(std::countr_zero(bit));
          // The claim names the sender, so that the receiver accepts the slot only in a cell
          // from it.
          states_[s].filled.store(claim_word(sender), std::memory_order_relaxed);
          return static_cast<int>(s);
        }
        used |= bit;  // another sender took it first: the next clear bit
      }
    }
    return -1;
  }

  /// Slot `slot`'s data (slot_bytes of them).
  std::byte* data(std::uint32_t slot) const noexcept {
    return slots_ + std::size_t(slot) * slot_bytes_;
  }

  /// Whether `slot` (a valid index) is held by `sender`: what a cell naming it must be from.
  bool claimed_by(std::uint32_t slot, int sender) const noexcept {
    return states_[slot].filled.load(std::memory_order_acquire) == claim_word(sender);
  }

  /// The owner's: frees `slot` once its message is copied out (its bit cleared with release,
  /// after the copy), so that senders may claim it again.
  void release(std::uint32_t slot) noexcept {
    states_[slot].filled.store(0, std::memory_order_relaxed);
    map_[slot / 64].used.fetch_and(~(std::uint64_t{1} << (slot % 64)), std::memory_order_release);
  }

 private:
  pool_word* map_;
  chunk_state* states_;
  std::byte* slots_;
  std::uint32_t count_;
  std::uint32_t slot_bytes_;
};

}  // namespace rmpl::fabric::shm
