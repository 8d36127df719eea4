// A message's data as a list of (address, length) segments instead of one buffer: how the MPI
// layer hands the kernel a non-contiguous datatype without packing it. Inline and eager messages
// gather the segments into the cell or slot and scatter them out of it; a rendezvous moves them
// with one process_vm_readv per batch of at most IOV_MAX entries on either side (engine.cpp).
#pragma once

#include <sys/uio.h>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstring>
#include <memory>

namespace rmpl::core {

/// The segments of one send or receive, owned by its request: a rendezvous sender's list is read
/// by the receiver (process_vm_readv) until it sends FIN, so it must outlive the caller's call.
struct segment_list {
  std::unique_ptr<iovec[]> entries;
  std::size_t count = 0;
};

/// Entries per process_vm_readv call on either side (the kernel refuses more than IOV_MAX).
#ifdef IOV_MAX
inline constexpr std::size_t segment_batch = IOV_MAX;
#else
inline constexpr std::size_t segment_batch = 1024;
#endif

/// A position in a list of segments that is consumed front to back.
struct segment_cursor {
  const iovec* entry = nullptr;
  std::size_t left = 0;    ///< entries from `entry` on
  std::size_t offset = 0;  ///< bytes of *entry already consumed

  bool at_end() const noexcept { return left == 0; }
  /// Writes to `out` at most `max_entries` entries covering at most `max_bytes` bytes from here
  /// (the cursor does not move); returns the bytes they cover, their number in `entries`.
  std::size_t peek(iovec* out, std::size_t max_entries, std::size_t max_bytes,
                   std::size_t& entries) const noexcept {
    std::size_t bytes = 0, i = 0;
    std::size_t skip = offset;
    for (const iovec* e = entry; i < left && i < max_entries && bytes < max_bytes; ++e) {
      const std::size_t len = std::min(e->iov_len - skip, max_bytes - bytes);
      out[i++] = iovec{static_cast<char*>(e->iov_base) + skip, len};
      bytes += len;
      skip = 0;
    }
    entries = i;
    return bytes;
  }
  /// Moves `bytes` on (no further than the end).
  void advance(std::size_t bytes) noexcept {
    while (left > 0 && bytes >= entry->iov_len - offset) {
      bytes -= entry->iov_len - offset;
      offset = 0;
      ++entry;
      --left;
    }
    if (left > 0) offset += bytes;
  }
};

/// Copies the first `bytes` bytes of the segments into `out` (the segments hold at least that).
inline void gather(const iovec* segments, void* out, std::size_t bytes) noexcept {
  auto* to = static_cast<std::byte*>(out);
  for (const iovec* e = segments; bytes > 0; ++e) {
    const std::size_t n = std::min(bytes, e->iov_len);
    std::memcpy(to, e->iov_base, n);
    to += n;
    bytes -= n;
  }
}

/// Copies `bytes` bytes from `in` into the segments, front to back (they hold at least that).
inline void scatter(const void* in, const iovec* segments, std::size_t bytes) noexcept {
  const auto* from = static_cast<const std::byte*>(in);
  for (const iovec* e = segments; bytes > 0; ++e) {
    const std::size_t n = std::min(bytes, e->iov_len);
    std::memcpy(e->iov_base, from, n);
    from += n;
    bytes -= n;
  }
}

}  // namespace rmpl::core
