// The context ids of this process: which communicators' message spaces are in use here. A new
// communicator needs an id free on every member; the members agree on one without any central
// server by AND-ing their free masks (an allreduce over the parent communicator) and taking the
// lowest id free everywhere, as MPICH does. Freeing is local: an id still in use by some member
// stays out of every agreement that member joins.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace rmpl::core {

class context_pool {
 public:
  /// Each communicator takes a pair of contexts (point-to-point, collective); the cell header
  /// carries 16 bits of context.
  static constexpr std::uint32_t pairs = 2048;
  using mask = std::array<std::uint64_t, pairs / 64>;

  /// Pair 0 is the world's; pair 1 is every process's communicator of itself alone (MPI_COMM_SELF),
  /// which never carries a message between processes, so all may use the same pair.
  static constexpr std::uint32_t world_context = 0;
  static constexpr std::uint32_t self_context = 2;
  static constexpr std::uint32_t reserved_pairs = 2;

  context_pool() {
    free_.fill(~std::uint64_t{0});
    free_[0] &= ~std::uint64_t{(1u << reserved_pairs) - 1};
  }

  const mask& free_mask() const noexcept { return free_; }

  /// Claims the lowest pair free in `agreed` (every member's mask AND-ed); its first context, or
  /// nothing when no pair is free everywhere.
  std::optional<std::uint32_t> claim_lowest(const mask& agreed) noexcept {
    for (std::size_t w = 0; w < agreed.size(); ++w) {
      const std::uint64_t bits = agreed[w] & free_[w];
      if (bits == 0) continue;
      const auto bit = static_cast<std::uint32_t>(std::countr_zero(bits));
      free_[w] &= ~(std::uint64_t{1} << bit);
      return 2 * (static_cast<std::uint32_t>(w) * 64 + bit);
    }
    return std::nullopt;
  }
  void release(std::uint32_t context) noexcept {
    const std::uint32_t pair = context / 2;
    if (pair < reserved_pairs || pair >= pairs) return;
    free_[pair / 64] |= std::uint64_t{1} << (pair % 64);
  }
  std::size_t in_use() const noexcept {
    std::size_t free = 0;
    for (std::uint64_t w : free_) free += static_cast<std::size_t>(std::popcount(w));
    return pairs - free;
  }

 private:
  mask free_;
};

}  // namespace rmpl::core
