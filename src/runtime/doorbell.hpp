// The word every wait of the library sleeps on, one per rank, in memory its peers share: a futex
// and the flag that tells producers whether its owner sleeps. Whoever publishes something a rank
// may wait for rings that rank's bell (a provider, after publishing; the runtime, when a rank
// dies).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace rmpl::runtime {

/// The unit of false sharing every shared structure is aligned to.
inline constexpr std::size_t cache_line = 64;

/// A futex word a rank sleeps on, and the flag that tells producers to wake it.
struct alignas(cache_line) doorbell {
  std::atomic<std::uint32_t> sleeping{0};  // owner writes; producers read
  std::atomic<std::uint32_t> ring{0};      // producers increment and wake; owner waits on it
};

/// Rings `b` and wakes one thread asleep on it.
void ring_one(doorbell& b) noexcept;
/// Rings `b` and wakes every thread asleep on it.
void ring_all(doorbell& b) noexcept;
/// Sleeps on `b` while its ring still reads `value`, at most `timeout_ms`. Leaves the sleeping
/// flag as it is.
void sleep_on(doorbell& b, std::uint32_t value, int timeout_ms) noexcept;

/// Wakes the owner of `b` if it sleeps. The caller must have issued
/// std::atomic_thread_fence(std::memory_order_seq_cst) after publishing what the owner waits for.
/// (Without a fence the store may still sit in this core's store buffer while `sleeping` is read
/// as 0 and the owner, between its own fence and futex wait, reads the old word: a lost wake-up.)
inline void wake_if_sleeping(doorbell& b) noexcept {
  if (b.sleeping.load(std::memory_order_relaxed) != 0) ring_one(b);
}

}  // namespace rmpl::runtime
