// The shared-memory path of the collectives: every member of a communicator owns an area in the job
// segment, at the same slot on all of them (core/area_pool.hpp), and a collective moves through it
// in rounds instead of messages. In round s a rank copies its operand (or the part of it the others
// need) into its area and posts s; the others read it there, in place, without a message or a copy
// of their own; who reduces posts `reduced`; whoever has read everything it needed for round s
// releases s. Each area holds two round buffers (s even, s odd), so round s + 1 fills one while
// slower ranks still read round s from the other, and an area is only written for round s once
// every member has released s - 2.
// (Eight buffers of 64 KiB instead of two of 256 KiB were tried, 2026-11-22: no gain measurable
// for short back-to-back broadcasts and reductions at 2 ranks, about 10% slower from 64 KiB to
// 16 MiB.)
//
// Round numbers come from the communicator (every member starts the same collectives in the same
// order, so they agree), and a rank runs its rounds in order even with several collectives in
// flight: a round waits until this rank has finished the one before, which keeps every word
// increasing. Waiting is the engine's: spin, yield when oversubscribed, sleep on the doorbell;
// every word written is followed by a wake-up of the members that sleep. Everything here is
// inline: these few loads and stores are most of a short collective's work.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "coll/task.hpp"
#include "fabric/shm/layout.hpp"

namespace rmpl::coll {

class shared_area {
 public:
  /// The area of x's communicator (x.comm().area must be a slot).
  explicit shared_area(exchange x) noexcept
      : engine_(&x.engine()),
        comm_(&x.comm()),
        slot_(x.comm().area),
        chunk_(chunk_for(x.engine().fabric().p().coll_area_bytes)) {}

  /// The bytes of each operand (and result) buffer of an area of `area_bytes`.
  static std::size_t chunk_for(std::size_t area_bytes) noexcept {
    return area_bytes / 4 / fabric::shm::cache_line * fabric::shm::cache_line;
  }

  /// Bytes each round buffer holds of an operand (and again of a result): a quarter of the area.
  std::size_t chunk() const noexcept { return chunk_; }
  /// Elements of `element` bytes a round can carry.
  std::size_t chunk_elements(std::size_t element) const noexcept { return chunk_ / element; }

  /// Claims `rounds` consecutive rounds for this collective (call before its first co_await, so
  /// that collectives claim rounds in the order they start); returns the first.
  std::uint64_t claim(std::uint64_t rounds) noexcept {
    const std::uint64_t first = comm_->area_rounds + 1;
    comm_->area_rounds += rounds;
    return first;
  }

  /// Member r's operand and result buffers of round s.
  std::byte* operand(int r, std::uint64_t s) const noexcept {
    return engine_->fabric().area_data(comm_->to_world(r), slot_) + (s % 2) * 2 * chunk_;
  }
  std::byte* result(int r, std::uint64_t s) const noexcept { return operand(r, s) + chunk_; }

  /// This rank may fill its buffers of round s: its round s - 1 is over and every member has
  /// released round s - 2 (the last to use the same buffer).
  bool writable(std::uint64_t s) const noexcept {
    if (comm_->area_done + 1 < s) return false;
    if (s <= 2) return true;
    for (int r = 0; r < comm_->size; ++r) {
      if (flags(r).released.load(std::memory_order_acquire) < s - 2) return false;
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
    comm_->area_done = s;
    wake_members();
  }

 private:
  fabric::shm::area_flags& flags(int r) const noexcept {
    return engine_->fabric().area(comm_->to_world(r), slot_);
  }
  void wake_members() const noexcept {
    for (int r = 0; r < comm_->size; ++r) {
      if (r != comm_->rank) engine_->fabric().notify(comm_->to_world(r));
    }
  }

  core::engine* engine_;
  core::communicator* comm_;
  int slot_;
  std::size_t chunk_;
};

}  // namespace rmpl::coll
