// The runtime's part of a one-host job's segment (the memfd rmplrun creates, or a rank alone
// creates for itself): a header with the job-wide words and one record per rank, at offsets
// computed from the rank count alone; the transport's part (fabric/shm/layout.hpp) follows at
// transport_offset. Every rank maps the whole segment; the launcher maps only this part.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "runtime/doorbell.hpp"

namespace rmpl::runtime::local {

inline constexpr std::uint64_t job_magic = 0x726d706c2d6a6f62ull;  // "rmpl-job"
inline constexpr std::uint32_t job_version = 2;
inline constexpr std::uint64_t page_bytes = 4096;

constexpr std::uint64_t round_up(std::uint64_t n, std::uint64_t to) noexcept {
  return (n + to - 1) / to * to;
}

enum class rank_state : std::uint32_t { absent = 0, alive = 1, finalized = 2, dead = 3 };

/// Job-wide words. Written by the creator once, then as noted.
struct alignas(cache_line) job_header {
  std::uint64_t magic;
  std::uint32_t version;
  std::uint32_t nranks;
  std::uint64_t total_bytes;       ///< the whole segment
  std::uint64_t transport_offset;  ///< where the transport's part begins (page-aligned)
  alignas(cache_line) std::atomic<std::uint32_t> barrier_arrived{0};  // every rank fetch_adds
  std::atomic<std::uint32_t> barrier_generation{0};                   // the last to arrive bumps it
  alignas(cache_line) std::atomic<std::int32_t> failed_rank{-1};      // first dead rank, or nranks
};

/// One per rank. Written by its owner at start-up (and `state` by the launcher, or a peer's
/// watcher, when the rank dies).
struct alignas(cache_line) rank_record {
  std::atomic<std::int32_t> pid{0};
  std::atomic<rank_state> state{rank_state::absent};
  std::atomic<std::int32_t> exit_status{0};  // with state = dead: its wait status
  /// The launcher's, right after the fork: the peers watch a rank that has not joined yet by it
  /// (the same process once it execs), so that one that dies before joining is found even while
  /// the launcher cannot say so (stopped). 0 under a launcher that does not write it.
  std::atomic<std::int32_t> launched_pid{0};
  /// What every wait of the rank sleeps on (runtime/doorbell.hpp).
  doorbell bell;
};

/// One per rank: what it publishes for its peers to connect to it (a network provider's address,
/// when the job spans hosts). Written by its owner before a barrier, read by peers after it. Pages
/// materialise only when touched: a job that publishes nothing pays no memory for them.
struct card {
  static constexpr std::size_t bytes = 4096;
  std::uint32_t length;  ///< bytes of `data` in use
  std::uint32_t reserved;
  std::byte data[bytes - 8];
};

/// Where the parts of a job of `nranks` lie.
struct job_layout {
  explicit constexpr job_layout(std::uint32_t nranks) noexcept
      : records_offset(round_up(sizeof(job_header), page_bytes)),
        cards_offset(round_up(records_offset + nranks * sizeof(rank_record), page_bytes)),
        transport_offset(round_up(cards_offset + nranks * sizeof(card), page_bytes)) {}
  std::uint64_t records_offset;
  std::uint64_t cards_offset;
  std::uint64_t transport_offset;
};

}  // namespace rmpl::runtime::local
