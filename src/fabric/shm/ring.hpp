// The two ends of a directed pair ring (fabric/shm/layout.hpp: its cells and its ring_control).
// The sender claims the cell at its tail, fills it and publishes it by storing the cell's seq last,
// with release; the receiver takes the cell at its head once its seq reads (head + 1) for this lap,
// and publishes how far it has read. Flow control: the sender runs at most the ring's size ahead of
// the head it last read; one that finds no room asks for a wake-up (sender_waiting), which the
// receiver gives at the next quarter-ring boundary it crosses. Header-only: every call is on the
// message path, and the engine's fast paths count their instructions.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "fabric/shm/layout.hpp"

namespace rmpl::fabric::shm {

/// Where a continuation cell's data lies: everything after its seq word (continuation_bytes).
inline unsigned char* continuation_data(cell& c) noexcept {
  return reinterpret_cast<unsigned char*>(&c) + sizeof(std::uint32_t);
}
inline const unsigned char* continuation_data(const cell& c) noexcept {
  return reinterpret_cast<const unsigned char*>(&c) + sizeof(std::uint32_t);
}

/// The sending end: this rank's ring into one receiver.
class ring_writer {
 public:
  ring_writer() = default;
  ring_writer(cell* cells, ring_control* control, std::uint32_t size) noexcept
      : cells_(cells), control_(control), mask_(size - 1), limit_(size) {}

  /// Cells published so far.
  std::uint64_t tail() const noexcept { return tail_; }
  /// The shared words of the pair (its assisted transfers use them too).
  ring_control& control() const noexcept { return *control_; }

  /// The free cell at the tail, or nullptr if claiming it would leave fewer than `reserve` cells
  /// free. A sender that finds no room is marked waiting: the receiver wakes it once it frees
  /// cells.
  cell* claim(std::uint64_t reserve) noexcept {
    if (tail_ + reserve >= limit_ && !make_room(reserve)) [[unlikely]] {
      return nullptr;
    }
    return &cells_[tail_ & mask_];
  }

  /// As claim() for a message of `cells` cells, without asking for a wake-up: a message that
  /// finds no room for its long form takes another.
  bool room_for(std::uint64_t cells, std::uint64_t reserve) noexcept {
    const std::uint64_t end = tail_ + cells - 1 + reserve;
    if (end < limit_) return true;
    refresh();
    return end < limit_;
  }

  /// Publishes header cell `c` (the tail's) of a message taking `cells` cells, the rest written
  /// already. The receiver's bell is the caller's to ring.
  void publish(cell* c, std::uint64_t cells = 1) noexcept {
    // The header's seq last, with release: the receiver reads every cell of the message after it.
    c->seq.store(static_cast<std::uint32_t>(tail_ + 1), std::memory_order_release);
    tail_ += cells;
  }

  /// Writes bytes [from, bytes) of a long inline message into the cells after the tail's.
  void write_continuation(const unsigned char* data, std::size_t from, std::size_t bytes) noexcept {
    constexpr std::size_t piece = continuation_bytes;
    std::uint64_t pos = tail_ + 1;
    for (; from < bytes; from += piece, ++pos) {
      cell& k = cells_[pos & mask_];
      // Whole pieces with a constant size: a few vector moves, where a call to memcpy per piece
      // cost more than the data.
      if (bytes - from >= piece) {
        std::memcpy(continuation_data(k), data + from, piece);
      } else {
        std::memcpy(continuation_data(k), data + from, bytes - from);
      }
      // A seq of its own, so that no later lap takes the data left here for a header.
      k.seq.store(static_cast<std::uint32_t>(pos + 1), std::memory_order_relaxed);
    }
  }

 private:
  /// claim()'s slow half, out of line so that claim() inlines into the send paths: re-reads the
  /// receiver's head, and if the ring is still full asks for a wake-up when it frees cells, then
  /// looks once more (the receiver may have consumed between the two reads and missed the flag).
  [[gnu::noinline]] bool make_room(std::uint64_t reserve) noexcept {
    refresh();
    if (tail_ + reserve < limit_) return true;
    control_->sender_waiting.store(1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
    refresh();
    return tail_ + reserve < limit_;
  }
  /// Re-reads how far the receiver has consumed. One claiming more cells consumed than were
  /// published would only have this rank overwrite cells it has not read, so its head is never
  /// taken beyond the tail.
  void refresh() noexcept {
    limit_ = std::min(control_->head.load(std::memory_order_acquire), tail_) + mask_ + 1;
  }

  cell* cells_ = nullptr;
  ring_control* control_ = nullptr;
  std::uint64_t mask_ = 0;
  std::uint64_t tail_ = 0;
  std::uint64_t limit_ = 0;  ///< the tail may grow up to this (head last seen + ring size)
};

/// The receiving end: one sender's ring into this rank.
class ring_reader {
 public:
  ring_reader() = default;
  ring_reader(cell* cells, ring_control* control, std::uint32_t size) noexcept
      : cells_(cells),
        control_(control),
        mask_(size - 1),
        quarter_shift_(static_cast<unsigned>(std::countr_zero(std::max(size / 4, 1u)))) {}

  /// Cells consumed so far.
  std::uint64_t head() const noexcept { return head_; }
  ring_control& control() const noexcept { return *control_; }
  /// The cell at the head, published or not (a receiver may spin on it).
  cell& head_cell() const noexcept { return cells_[head_ & mask_]; }
  /// Whether `c`, the head cell, has been published for this lap.
  bool published(const cell& c) const noexcept {
    return c.seq.load(std::memory_order_acquire) == static_cast<std::uint32_t>(head_ + 1);
  }
  /// The head cell if its sender has published it, or nullptr.
  cell* next() const noexcept {
    cell& c = head_cell();
    return published(c) ? &c : nullptr;
  }
  /// The cell at position `pos` (at or after the head) if published, or nullptr.
  cell* published_at(std::uint64_t pos) const noexcept {
    cell& c = cells_[pos & mask_];
    return c.seq.load(std::memory_order_acquire) == static_cast<std::uint32_t>(pos + 1) ? &c
                                                                                        : nullptr;
  }
  /// Cells in the ring (how far ahead of the head a sender can have published).
  std::uint64_t size() const noexcept { return mask_ + 1; }

  /// Copies the first n bytes of the long inline message at the head into `to`; its header cell
  /// holds the first `header_bytes` of them.
  void read_long_inline(std::size_t header_bytes, unsigned char* to, std::size_t n) const noexcept {
    constexpr std::size_t piece = continuation_bytes;
    const std::size_t head = std::min(n, header_bytes);
    std::memcpy(to, head_cell().body, head);
    std::uint64_t pos = head_ + 1;
    std::size_t at = head;
    for (; n - at >= piece; at += piece, ++pos) {
      std::memcpy(to + at, continuation_data(cells_[pos & mask_]), piece);
    }
    if (at < n) std::memcpy(to + at, continuation_data(cells_[pos & mask_]), n - at);
  }

  /// Moves the head past `cells` cells (not yet told to the sender: consumed()).
  void advance(std::uint64_t cells) noexcept { head_ += cells; }

  /// Tells the sender how far this rank has read, after the last `taken` cells. Returns whether
  /// the sender waits for room and must be woken.
  bool consumed(std::uint64_t taken) noexcept {
    control_->head.store(head_, std::memory_order_release);
    // A sender waits only on a full ring, and draining a full ring crosses a quarter-ring boundary
    // within a quarter ring, so checking for a waiting sender there (with the fence that pairs with
    // ring_writer::claim's) wakes it in time while keeping the fence off the latency path.
    // Shifts, not divisions: a ring's size is a power of two, and two 64-bit divisions here cost
    // every received message a few nanoseconds on the way back to its caller.
    if ((head_ - taken) >> quarter_shift_ == head_ >> quarter_shift_) return false;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (control_->sender_waiting.load(std::memory_order_relaxed) == 0) return false;
    control_->sender_waiting.store(0, std::memory_order_relaxed);
    return true;
  }

 private:
  cell* cells_ = nullptr;
  ring_control* control_ = nullptr;
  std::uint64_t mask_ = 0;
  unsigned quarter_shift_ = 0;  ///< log2 of a quarter of the ring (at least 1 cell)
  std::uint64_t head_ = 0;
};

}  // namespace rmpl::fabric::shm
