// The shared-memory path of the collectives: every member of a communicator owns an area in the job
// segment, at the same slot on all of them (core/area_pool.hpp), and a collective moves through it
// in rounds instead of messages. In round s a rank copies its operand (or the part of it the others
// need) into its area and posts s; the others read it there, in place, without a message or a copy
// of their own; who reduces posts `reduced`; whoever has read everything it needed for round s
// releases s. A round's buffers lie where core/area_ring.hpp places them: the next free span of the
// area's ring, as large as the round uses (a round of a long collective takes a quarter of the
// area for its operand, and as much again for a result), so small rounds leave room for many in
// flight. A rank writes round s once every member has released the last round before s that used
// the same bytes.
//
// Round numbers come from the communicator (every member starts the same collectives in the same
// order, so they agree), and a rank runs its rounds in order even with several collectives in
// flight: a round waits until this rank has finished the one before, which keeps every word
// increasing. Waiting is the engine's: spin, yield when oversubscribed, sleep on the doorbell;
// every word written is followed by a wake-up of the members that sleep. Everything here is
// inline: these few loads and stores are most of a short collective's work.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "coll/task.hpp"
#include "fabric/node_segment.hpp"

namespace rmpl::coll {

class shared_area {
 public:
  /// The area of x's communicator (x.comm().area must be a slot).
  explicit shared_area(exchange x) noexcept
      : engine_(&x.engine()),
        op_(&x.op()),
        comm_(&x.comm()),
        slot_(x.comm().area),
        ring_(ring_for(x.engine().node().area_bytes())) {}

  /// The bytes of an area of `area_bytes` its rounds use: the largest power of two that fits.
  static std::size_t ring_for(std::size_t area_bytes) noexcept {
    return std::bit_floor(area_bytes);
  }
  /// The most bytes a round buffer (an operand, or a result) may hold: a quarter of the ring, so
  /// that two rounds of operand and result buffers fit.
  static std::size_t chunk_for(std::size_t area_bytes) noexcept { return ring_for(area_bytes) / 4; }

  std::size_t chunk() const noexcept { return ring_ / 4; }
  /// Elements of `element` bytes a round buffer can carry.
  std::size_t chunk_elements(std::size_t element) const noexcept { return chunk() / element; }

  /// How far a collective's rounds may run ahead of the slowest member (core/area_ring.hpp).
  enum class pace {
    lockstep,  ///< every round waits for every member: two buffers, kept in the caches
    ahead,     ///< a root may fill many rounds before the others read them
  };

  /// Claims `rounds` consecutive rounds for this collective, each with `buffers` (0, 1: an
  /// operand, 2: an operand and a result) of `bytes` (at most chunk()); call before the first
  /// co_await, so that collectives claim rounds in the order they start. Returns the first.
  std::uint64_t claim(std::uint64_t rounds, std::size_t bytes, int buffers, pace p) noexcept {
    buffer_ = std::bit_ceil(std::max<std::size_t>(bytes, fabric::cache_line));
    const std::size_t used =
        bytes == 0 || buffers == 0 ? 0 : buffer_ * static_cast<std::size_t>(buffers);
    rounds_ = comm_->area_rounds.claim(rounds, used, p == pace::ahead ? ring_ : 0, ring_);
    op_->rounds_from(rounds_.first());
    return rounds_.first();
  }

  /// Member r's operand and result buffers of round s (one of the claimed ones).
  std::byte* operand(int r, std::uint64_t s) const noexcept {
    return engine_->node().area_data(comm_->to_world(r), slot_) +
           rounds_.offset(s - rounds_.first());
  }
  std::byte* result(int r, std::uint64_t s) const noexcept { return operand(r, s) + buffer_; }

  /// This rank may fill its buffers of round s: its round s - 1 is over and every member has
  /// released the last round that used the same bytes.
  bool writable(std::uint64_t s) const noexcept {
    if (comm_->area_rounds.done + 1 < s) return false;
    const std::uint64_t need = rounds_.must_release(s - rounds_.first());
    if (need == 0) return true;
    for (int r = 0; r < comm_->size; ++r) {
      if (flags(r).released.load(std::memory_order_acquire) < need) return false;
    }
    return true;
  }
  bool posted(int r, std::uint64_t s) const noexcept {
    return flags(r).posted.load(std::memory_order_acquire) >= s;
  }
  bool all_posted(std::uint64_t s) const noexcept {
    for (int r = 0; r < comm_->size; ++r) {
      if (!posted(r, s)) return false;
    }
    return true;
  }
  bool all_reduced(std::uint64_t s) const noexcept {
    for (int r = 0; r < comm_->size; ++r) {
      if (flags(r).reduced.load(std::memory_order_acquire) < s) return false;
    }
    return true;
  }

  /// Publishes the bytes this rank's collective whose first round is `s` carries (before round s
  /// is posted; the post's release carries it).
  void announce(std::uint64_t s, std::size_t bytes) noexcept {
    fabric::area_flags& mine = flags(comm_->rank);
    const std::uint32_t e = s % fabric::area_flags::size_entries;
    mine.round_size[e].store(bytes, std::memory_order_relaxed);
    mine.round_bytes[e].store(size_word(s, bytes), std::memory_order_relaxed);
  }
  /// Whether member r (which posted round s) announced `bytes` for its collective whose first
  /// round is s; true when its entry was already reused (it ran that far ahead): not known.
  bool agrees(int r, std::uint64_t s, std::size_t bytes) const noexcept {
    const std::uint64_t w =
        flags(r).round_bytes[s % fabric::area_flags::size_entries].load(std::memory_order_relaxed);
    return w == size_word(s, bytes) || (w >> 32) != (s & 0xffffffff);
  }
  /// What member r announced for its collective whose first round is s (after agrees() said no).
  std::size_t announced(int r, std::uint64_t s) const noexcept {
    return static_cast<std::size_t>(
        flags(r).round_size[s % fabric::area_flags::size_entries].load(std::memory_order_relaxed));
  }
  /// The first member other than this rank (of those `readable`) that did not announce `bytes`
  /// for the collective whose first round is s, or -1.
  template <class Readable>
  int disagreeing(std::uint64_t s, std::size_t bytes, Readable&& readable) const noexcept {
    for (int r = 0; r < comm_->size; ++r) {
      if (r != comm_->rank && readable(r) && !agrees(r, s, bytes)) [[unlikely]]
        return r;
    }
    return -1;
  }
  /// A rank that saw the counts disagree leaves the collective at once, marking every round up to
  /// `last` posted, reduced and released, so that no member waits for it (the communicator's
  /// rounds no longer line up: it must not be used again).
  void abandon(std::uint64_t last) noexcept {
    auto& f = flags(comm_->rank);
    f.posted.store(std::max(last, f.posted.load(std::memory_order_relaxed)),
                   std::memory_order_release);
    f.reduced.store(std::max(last, f.reduced.load(std::memory_order_relaxed)),
                    std::memory_order_release);
    release(std::max(last, f.released.load(std::memory_order_relaxed)));
  }

  /// "My operand of round s is in place", "my part of the result of round s is in place", "I have
  /// read all I need of round s" (this rank's round s is then over).
  void post(std::uint64_t s) noexcept {
    flags(comm_->rank).posted.store(s, std::memory_order_release);
    wake_members();
  }
  void reduced(std::uint64_t s) noexcept {
    flags(comm_->rank).reduced.store(s, std::memory_order_release);
    wake_members();
  }
  void release(std::uint64_t s) noexcept {
    flags(comm_->rank).released.store(s, std::memory_order_release);
    comm_->area_rounds.done = s;
    wake_members();
  }

 private:
  /// The entry of the collective whose first round is s: its round's low 32 bits (a stale entry
  /// is told from a current one) and a digest of its bytes, their low 32 bits xor their high ones
  /// times an odd constant: the bytes themselves below 4 GiB, and two sizes equal modulo 4 GiB
  /// always differ in it (an odd multiplier is invertible modulo 2^32).
  static std::uint64_t size_word(std::uint64_t s, std::size_t bytes) noexcept {
    const auto b = static_cast<std::uint64_t>(bytes);
    const auto digest = static_cast<std::uint32_t>(b) ^
                        static_cast<std::uint32_t>(b >> 32) * std::uint32_t{0x9e3779b1};
    return (s & 0xffffffff) << 32 | digest;
  }
  fabric::area_flags& flags(int r) const noexcept {
    return engine_->node().area(comm_->to_world(r), slot_);
  }
  void wake_members() const noexcept {
    for (int r = 0; r < comm_->size; ++r) {
      if (r != comm_->rank) engine_->node().notify(comm_->to_world(r));
    }
  }

  core::engine* engine_;
  operation* op_;  ///< told where its rounds start (a stalled call compares members with it)
  core::communicator* comm_;
  int slot_;
  std::size_t ring_;
  std::size_t buffer_ = 0;
  core::area_ring::rounds rounds_;
};

}  // namespace rmpl::coll
