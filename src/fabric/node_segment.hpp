// What a provider whose ranks share memory offers the collectives besides messages: every rank's
// collective areas (a few per rank, each held by one communicator at a time; coll/shared_area.hpp),
// every rank's stall note (coll/stall.hpp) and doorbell, all mapped in every rank of the node.
// Only shared-memory providers have one (fabric/shm builds it over the job segment); coll uses it
// on node-local communicators and leaves the rest to point-to-point. Everything here is inline
// pointer arithmetic: the short collectives' paths are counted in instructions.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "runtime/doorbell.hpp"

namespace rmpl::fabric {

using runtime::cache_line;
using runtime::doorbell;

/// Where a rank waits when it has made no progress for a while (coll/stall.hpp): written by its
/// owner only then (a seqlock: `version` odd while the words change), read by the members of the
/// communicator it waits on, who tell from it a disagreement (an erroneous program) from a slow
/// peer. Nothing writes it while calls make progress.
struct alignas(cache_line) stall_note {
  enum : std::uint64_t { none = 0, collective = 1, finalizing = 2 };
  struct record {
    std::atomic<std::uint64_t> where{none};
    std::atomic<std::uint64_t> context{0};  ///< the communicator's collective context
    std::atomic<std::uint64_t> tags{0};    ///< its collectives started (tags taken), this one's too
    std::atomic<std::uint64_t> shorts{0};  ///< its short-protocol call numbers taken, likewise
    std::atomic<std::uint64_t> signature[5]{};  ///< what the call passes (coll/agreement.hpp)
  };
  /// The owner's position on a communicator that a stalled member waits on (the owner answers
  /// while it waits itself, whatever for), or on one it has freed (`left` 1: it has finished
  /// every call there): context 0 is no answer.
  struct answer {
    std::atomic<std::uint64_t> context{0}, tags{0}, shorts{0}, left{0};
  };
  static constexpr std::size_t answers = 8;
  std::atomic<std::uint64_t> version{0};
  /// The owner's: runs `change` (which stores into the records) as one seqlock write.
  template <class Change>
  void change(Change&& change) noexcept {
    const std::uint64_t v = version.load(std::memory_order_relaxed);
    version.store(v + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    change();
    version.store(v + 2, std::memory_order_release);
  }
  record current;  ///< where the owner waits now
  record failed;   ///< the last call the owner failed for what it read in a note
  answer answered[answers];
};

/// The words of one collective area (rank r's area for one communicator; see coll/shared_area.hpp).
/// Each is a round number, written by the area's owner with release and only ever increased while
/// a communicator holds the area: "my operand of round s is in my area", "my slice of round s is
/// reduced", "I have finished reading every area for round s". Peers only read them.
struct alignas(cache_line) area_flags {
  std::atomic<std::uint64_t> posted{0};
  std::atomic<std::uint64_t> reduced{0};
  std::atomic<std::uint64_t> released{0};
  /// The short-message protocol's words (coll/shared_short.hpp), beside the rounds': the number
  /// of short calls this member has finished, and its ring of line-sized slots.
  alignas(cache_line) std::atomic<std::uint64_t> short_done{0};
  struct alignas(cache_line) short_slot {
    std::atomic<std::uint64_t> call{0};  ///< the short call whose payload this is (written last)
    unsigned char payload[cache_line - sizeof(std::uint64_t)];
  };
  /// Slots per member: how many short calls a writer may run ahead of the slowest reader. Deep,
  /// because with ranks outnumbering cores a reader only runs when it gets a core, and then reads
  /// every call published meanwhile at no cost but a line each: 8 B broadcasts back to back took
  /// 0.50-0.66 µs at depth 16, 0.24 at 64, 0.13 at 256 (4 ranks on 2 cores; 8 ranks 1.0-1.2,
  /// 0.43, 0.28; reduce alike; interleaved runs of rmpl-bench-collectives --quick, 2026-11-23).
  /// 16 KiB per member and area.
  static constexpr std::uint32_t short_depth = 256;
  short_slot short_slots[short_depth];
  /// The bytes each shared-area collective of this member carries, at its first round s % entries:
  /// (s mod 2^32) << 32 | a 32-bit digest of the bytes (the bytes themselves below 4 GiB; see
  /// coll/shared_area.hpp), written before round s is posted. Readers compare it with their own,
  /// so ranks whose counts disagree fail instead of reading the wrong bytes; the whole size is in
  /// round_size, for the error and for the rounds a disagreeing member would have taken. Deeper
  /// than the rounds a root may run ahead (area_ring::max_ahead).
  static constexpr std::uint32_t size_entries = 512;
  std::atomic<std::uint64_t> round_bytes[size_entries];
  std::atomic<std::uint64_t> round_size[size_entries];
  /// 1 once this member has freed the communicator that holds the slot (it reads the others' words
  /// no more), 0 again when it claims the slot for another (core/area_pool.hpp).
  alignas(cache_line) std::atomic<std::uint32_t> freed{0};
};
static_assert(sizeof(area_flags::short_slot) == cache_line);

/// The node's shared areas, seen from one rank. Ranks are job ranks of the node.
class node_segment {
 public:
  /// Where the areas lie: rank r's area `slot` at areas + (r * slots + slot) * area_stride (its
  /// flags, then area_bytes data bytes, 64-byte aligned); rank r's stall note at
  /// ranks + r * rank_stride + stall_at, its doorbell at bells + r * bell_stride.
  struct placement {
    std::byte* areas = nullptr;
    std::size_t area_stride = 0;
    std::uint32_t slots = 0;
    std::uint32_t area_bytes = 0;
    std::byte* ranks = nullptr;
    std::size_t rank_stride = 0;
    std::size_t stall_at = 0;
    std::byte* bells = nullptr;
    std::size_t bell_stride = 0;
  };
  node_segment() = default;
  explicit node_segment(const placement& p) noexcept : p_(p) {}

  /// Collective areas per rank.
  std::uint32_t slots() const noexcept { return p_.slots; }
  /// Data bytes of each area.
  std::size_t area_bytes() const noexcept { return p_.area_bytes; }
  area_flags& area(int r, int slot) const noexcept {
    return *reinterpret_cast<area_flags*>(
        p_.areas +
        (static_cast<std::size_t>(r) * p_.slots + static_cast<std::size_t>(slot)) * p_.area_stride);
  }
  /// The area's area_bytes() data bytes (64-byte aligned).
  std::byte* area_data(int r, int slot) const noexcept {
    return reinterpret_cast<std::byte*>(&area(r, slot)) + sizeof(area_flags);
  }
  stall_note& stall(int r) const noexcept {
    return *reinterpret_cast<stall_note*>(rank_at(r) + p_.stall_at);
  }
  doorbell& bell(int r) const noexcept {
    return *reinterpret_cast<doorbell*>(p_.bells + static_cast<std::size_t>(r) * p_.bell_stride);
  }
  /// Wakes `r` if it sleeps. Call after publishing anything `r` may wait for.
  void notify(int r) const noexcept {
    std::atomic_thread_fence(std::memory_order_seq_cst);  // publish before reading `sleeping`
    runtime::wake_if_sleeping(bell(r));
  }
  /// notify() without its fence, for waking several ranks after one fence (doorbell.hpp).
  void wake_if_sleeping(int r) const noexcept { runtime::wake_if_sleeping(bell(r)); }

 private:
  std::byte* rank_at(int r) const noexcept {
    return p_.ranks + static_cast<std::size_t>(r) * p_.rank_stride;
  }
  placement p_;
};

}  // namespace rmpl::fabric
