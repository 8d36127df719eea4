// What the kernel writes into a ring cell (fabric::shm::cell): the envelope {context, source (the
// ring it arrived on), tag, size} and a protocol-specific body. Every field is checked by the
// receiver before use (core/cell_check.hpp), since a cell is memory another process wrote.
#pragma once

#include <cstdint>
#include <cstring>

#include "fabric/shm/layout.hpp"

namespace rmpl::core {

using fabric::shm::cell;

enum class kind : std::uint8_t {
  none = 0,
  inline_data = 1,  ///< the payload is in the cell body (MPIN's control message area)
  eager = 2,     ///< the payload is in a slot of the receiver's eager pool (ACLMPL async protocol)
  rts = 3,       ///< request to send: the receiver pulls the payload once matched (rendezvous)
  ack = 4,       ///< a synchronous send's message has been matched
  fin = 5,       ///< the receiver has pulled a rendezvous payload: the sender may reuse its buffer
  cts = 6,       ///< clear to send through the pair's bounce buffers (the fallback copy path)
  consumed = 7,  ///< a control cell the receiver already handled out of order (flow control)
  assist = 8,    ///< the receiver asks the sender to copy chunks of a rendezvous too
  /// the receiver has posted the receive that the sender's next message on (context, tag) will
  /// match (a notice: a synchronous send may then complete at once, ACLMPL's receiver-initiated
  /// synchronous protocol; see engine.hpp, "notices")
  ready = 9,
  withdraw = 10,  ///< the receive a ready cell announced was cancelled: forget the notice
  /// never in a cell: a message that came through a message provider (core/envelope.hpp) whose
  /// payload waits at its sender, fetched once a receive matches it (incoming.address holds the
  /// provider's handle)
  fetch = 11,
};

enum flag : std::uint8_t {
  sync = 1,  ///< the sender waits for an ack once the message is matched
  /// a synchronous send that used the receiver's ready notice: already complete, no ack wanted
  /// (no cookie either). Never together with sync.
  ready = 2,
};

inline constexpr std::uint32_t inline_capacity = sizeof(cell::body);
inline constexpr std::uint32_t inline_sync_capacity = inline_capacity - 8;  // the cookie takes 8
inline constexpr std::size_t cookie_offset = inline_sync_capacity;

/// A long inline message (fabric/shm/layout.hpp, continuation_bytes) of `size` bytes: the bytes its
/// header cell's body holds (a sync cookie takes the body's last 8) and the cells it takes in all.
constexpr std::uint32_t header_capacity(bool sync) noexcept {
  return sync ? inline_sync_capacity : inline_capacity;
}
constexpr std::uint64_t inline_cells(std::uint64_t size, bool sync) noexcept {
  const std::uint64_t head = header_capacity(sync);
  using fabric::shm::continuation_bytes;
  return size <= head ? 1 : 1 + (size - head + continuation_bytes - 1) / continuation_bytes;
}

/// Whether an inline message of `size` bytes with `flags` takes more than its header cell.
constexpr bool is_long_inline(std::uint64_t size, std::uint8_t flags) noexcept {
  return size > header_capacity(flags == flag::sync);
}

/// Bodies (at offset 0 of cell::body).
struct eager_body {
  std::uint32_t slot;
  std::uint32_t reserved;
  std::uint64_t cookie;  // the sender's request, for sync
};
struct rts_body {
  std::uint64_t size;
  std::uint64_t cookie;   // the sender's request
  std::uint64_t address;  // the payload in the sender's memory, or its segment list (below)
  /// 0: the payload is `size` bytes at `address`. Otherwise it is scattered: `address` is an array
  /// of this many iovecs {base, length} in the sender's memory, whose lengths add up to `size`.
  std::uint64_t segments;
};
struct control_body {
  std::uint64_t cookie;       // the request the control cell is about (at its destination)
  std::uint64_t peer_cookie;  // cts: the receiver's request
};

/// ready and withdraw: the receive is for (context, tag) from the cell's destination, and was
/// posted when this rank had taken `position` messages from that rank.
struct ready_body {
  std::uint64_t position;
  std::uint32_t context;
  std::int32_t tag;
};

struct assist_body {
  std::uint64_t cookie;   // the sender's request
  std::uint64_t address;  // the receiver's buffer
  std::uint64_t bytes;    // bytes to move (the message, or less if the receive truncates it)
  std::uint32_t id;       // the transfer's id in the pair's assist_claim word
  std::uint32_t chunk;    // bytes per chunk
};

template <class T>
T read_body(const cell& c) noexcept {
  T t;
  std::memcpy(&t, c.body, sizeof(T));
  return t;
}
template <class T>
void write_body(cell& c, const T& t) noexcept {
  std::memcpy(c.body, &t, sizeof(T));
}

}  // namespace rmpl::core
