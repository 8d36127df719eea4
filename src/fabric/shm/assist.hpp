// An assisted rendezvous on a pair (fabric/shm/layout.hpp, ring_control's assist words): a large
// single-copy transfer split into chunks that the receiver (reading from the sender) and the
// sender (writing into the receiver) claim from the pair's shared counter and copy at the same
// time, so two cores move the data. The receiver opens transfer `id`, tells the sender (a control
// message), copies what it claims, then waits only for chunks the sender has claimed already.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "fabric/shm/layout.hpp"

namespace rmpl::fabric::shm {

class assisted_transfer {
 public:
  assisted_transfer(ring_control& pair, std::uint32_t id, std::uint64_t bytes,
                    std::uint64_t chunk) noexcept
      : pair_(pair), id_(id), bytes_(bytes), chunk_(chunk) {}

  /// The receiver's, before it tells the sender: chunk 0 of transfer `id` is next, nothing done.
  void open() noexcept {
    pair_.assist_done.store(0, std::memory_order_relaxed);
    pair_.assist_error.store(0, std::memory_order_relaxed);
    pair_.assist_claim.store(std::uint64_t{id_} << 32, std::memory_order_release);
  }

  /// Claims and copies chunks until none is left (or another transfer holds the pair);
  /// `copy(offset, len)` returns 0 or an errno. Returns the first errno met. Either side.
  template <class Copy>
  int copy_claimed_chunks(Copy&& copy) noexcept {
    const std::uint64_t chunks = (bytes_ + chunk_ - 1) / chunk_;
    int err = 0;
    for (;;) {
      std::uint64_t word = pair_.assist_claim.load(std::memory_order_relaxed);
      const std::uint64_t k = word & 0xffffffffu;
      if ((word >> 32) != id_ || k >= chunks) break;  // another transfer, or nothing left
      if (!pair_.assist_claim.compare_exchange_weak(word, word + 1, std::memory_order_acq_rel))
        continue;
      const std::uint64_t offset = k * chunk_;
      const auto len = static_cast<std::size_t>(std::min<std::uint64_t>(chunk_, bytes_ - offset));
      const int e = copy(offset, len);
      if (e != 0 && err == 0) err = e;
      pair_.assist_done.fetch_add(len, std::memory_order_acq_rel);
    }
    return err;
  }

  /// The sender's, when a chunk it copies fails: stored before the chunk counts as done, so the
  /// receiver sees it once everything is done.
  void note_error(int err) noexcept { pair_.assist_error.store(err, std::memory_order_relaxed); }

  /// Whether every chunk has been copied (the receiver waits for the sender's last ones).
  bool done() const noexcept { return pair_.assist_done.load(std::memory_order_acquire) >= bytes_; }
  /// The sender's error, once done().
  int sender_error() const noexcept { return pair_.assist_error.load(std::memory_order_acquire); }

 private:
  ring_control& pair_;
  std::uint32_t id_;
  std::uint64_t bytes_;
  std::uint64_t chunk_;
};

}  // namespace rmpl::fabric::shm
