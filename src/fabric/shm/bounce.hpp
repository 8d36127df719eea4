// A pair's bounce chunks (fabric/shm/layout.hpp): the pipelined copy of a rendezvous when single
// copy is off. The sender fills free chunks in order and marks each with its length; the receiver
// empties them in the same order and frees each. A chunk's state word is 0 while free, otherwise
// 1 + the bytes in it (checked by the receiver before use: the sender is another process).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "fabric/shm/layout.hpp"

namespace rmpl::fabric::shm {

class bounce_chunks {
 public:
  bounce_chunks(chunk_state* states, std::byte* data, std::uint32_t count,
                std::uint32_t chunk_bytes) noexcept
      : states_(states), data_(data), count_(count), chunk_bytes_(chunk_bytes) {}

  std::uint32_t count() const noexcept { return count_; }
  std::size_t chunk_bytes() const noexcept { return chunk_bytes_; }
  /// The chunk that the n-th chunk of a transfer uses.
  std::uint32_t index(std::uint64_t n) const noexcept {
    return static_cast<std::uint32_t>(n % count_);
  }
  std::byte* data(std::uint32_t k) const noexcept { return data_ + std::size_t(k) * chunk_bytes_; }

  /// The sender's: whether chunk k is free to fill.
  bool free(std::uint32_t k) const noexcept {
    return states_[k].filled.load(std::memory_order_acquire) == 0;
  }
  /// The sender's: chunk k now holds `len` bytes (written before, published here).
  void fill(std::uint32_t k, std::size_t len) noexcept {
    states_[k].filled.store(static_cast<std::uint32_t>(len + 1), std::memory_order_release);
  }
  /// The receiver's: chunk k's state word (0: not filled yet; otherwise 1 + its length, unchecked).
  std::uint32_t filled(std::uint32_t k) const noexcept {
    return states_[k].filled.load(std::memory_order_acquire);
  }
  /// The receiver's: chunk k is emptied, the sender may fill it again.
  void release(std::uint32_t k) noexcept { states_[k].filled.store(0, std::memory_order_release); }

 private:
  chunk_state* states_;
  std::byte* data_;
  std::uint32_t count_;
  std::uint32_t chunk_bytes_;
};

}  // namespace rmpl::fabric::shm
