// What a peer wrote into shared memory, decoded and checked before this rank acts on it. A cell,
// a slot's state word, a bounce chunk's length and the request id a control cell names are all
// memory another process writes, maybe at the very moment this rank reads it: every field is copied
// out once (a field checked, then read again, could have changed in between) and checked against
// this rank's limits before it sizes a copy, indexes an area or names a request. A value that fails
// is a `fault`, which the engine reports as errc::internal naming the peer and the field.
//
// Kept free of the engine (no segment, no job) so that tests/fuzz/cell_parser_fuzz.cpp can feed it
// arbitrary bytes under AddressSanitizer. docs/security.md lists what is checked, and where.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/request.hpp"
#include "core/wire.hpp"
#include "fabric/shm/eager_pool.hpp"
#include "rmpl/types.hpp"

namespace rmpl::core {

/// This rank's limits a cell is checked against (from the segment's parameters).
struct cell_limits {
  std::uint32_t eager_slots = 0;
  std::uint32_t eager_slot_bytes = 0;
  std::uint32_t contexts = 0;    ///< context ids are below this (2 per context pair)
  std::uint32_t inline_max = 0;  ///< the largest inline message (several cells when long)
};

/// What was wrong with a value a peer wrote.
enum class fault : std::uint8_t {
  none,
  kind,           ///< not a kind of cell
  flags,          ///< a flag bit that does not exist, or sync on a rendezvous
  context,        ///< a context id no communicator can have
  tag,            ///< outside [0, tag_ub]
  inline_size,    ///< more than the cell holds, and more than a long inline message may have
  eager_slot,     ///< not a slot of this rank's pool
  eager_size,     ///< more than a slot holds
  eager_claim,    ///< the slot is not claimed by that sender
  rts_address,    ///< a rendezvous with no address
  rts_segments,   ///< a rendezvous whose segment list has more entries than the message bytes
  segment_list,   ///< an entry of a rendezvous's segment list: empty, or beyond the message
  request,        ///< a control cell for no request of this rank that waits for it from that peer
  assist,         ///< an assist with no id, no address, chunks under 4 KiB, or more bytes than sent
  bounce_length,  ///< a bounce chunk of a length the transfer cannot have
  second_cts,     ///< a clear-to-send while a bounce transfer to that peer is running
  ready_position,  ///< a ready notice naming more cells consumed than this rank has sent
};

/// The flags a message cell (inline or eager) may carry: none, sync or ready, never both.
constexpr bool message_flags(std::uint8_t f) noexcept {
  return f == 0 || f == flag::sync || f == flag::ready;
}

/// One cell, decoded: the envelope and whichever body fields its kind has.
struct decoded_cell {
  kind how = kind::none;
  std::uint8_t flags = 0;
  std::uint16_t context = 0;
  int tag = 0;
  std::uint64_t size = 0;         ///< message bytes; assist: bytes to move
  std::uint64_t cookie = 0;       ///< message: the sender's request; control: the request it is for
  std::uint64_t address = 0;      ///< rts: the payload in the sender; assist: the receiver's buffer
  std::uint64_t peer_cookie = 0;  ///< cts: the receiver's request
  std::uint64_t segments = 0;     ///< rts: entries of the sender's segment list (0: contiguous)
  std::uint64_t position = 0;     ///< ready, withdraw: cells of this rank's ring the peer had read
  std::uint32_t slot = 0;         ///< eager
  std::uint32_t cells = 1;        ///< the ring cells the message takes (long inline: several)
  std::uint32_t assist_id = 0, assist_chunk = 0;
};

/// Reads a field of shared memory into a value the compiler cannot replace by a second read of the
/// field (the empty asm makes it opaque), so that a check and the uses after it see one value
/// whatever the peer writes meanwhile. Costs no instruction beyond the load.
template <class T>
inline T read_once(const T& field) noexcept {
  T value = field;
  asm("" : "+r"(value));
  return value;
}

inline bool is_message(kind k) noexcept {
  return k == kind::inline_data || k == kind::eager || k == kind::rts;
}

/// Decodes `c` (seq already checked) into `out`; fault::none if every field is usable.
inline fault decode_cell(const cell& c, const cell_limits& limits, decoded_cell& out) noexcept {
  out.how = static_cast<kind>(read_once(c.kind));
  out.flags = read_once(c.flags);
  out.context = read_once(c.context);
  out.tag = read_once(c.tag);
  out.size = read_once(c.size);
  switch (out.how) {
    case kind::inline_data: {
      // sync carries a cookie in the body's last 8 bytes; ready (a sync send that used a notice)
      // does not; never both.
      const bool sync = out.flags == flag::sync;
      if (!message_flags(out.flags)) return fault::flags;
      if (out.size > header_capacity(sync) && out.size > limits.inline_max) {
        return fault::inline_size;
      }
      // At most a quarter of the ring (inline_max is checked against the ring at attach).
      out.cells = static_cast<std::uint32_t>(inline_cells(out.size, sync));
      if (sync) std::memcpy(&out.cookie, c.body + cookie_offset, sizeof out.cookie);
      break;
    }
    case kind::eager: {
      if (!message_flags(out.flags)) return fault::flags;
      const auto body = read_body<eager_body>(c);
      out.slot = body.slot;
      out.cookie = body.cookie;
      if (out.slot >= limits.eager_slots) return fault::eager_slot;
      if (out.size > limits.eager_slot_bytes) return fault::eager_size;
      break;
    }
    case kind::rts: {
      if (out.flags != 0) return fault::flags;  // the FIN already proves the match
      const auto body = read_body<rts_body>(c);
      out.size = body.size;
      out.cookie = body.cookie;
      out.address = body.address;
      out.segments = body.segments;
      if (out.address == 0) return fault::rts_address;
      // Entries are never empty, so a list cannot have more of them than the message has bytes:
      // the receiver reads it in batches, but this bounds the work a forged count can ask for.
      if (out.segments > out.size) return fault::rts_segments;
      break;
    }
    case kind::ack:
    case kind::fin:
    case kind::cts: {
      const auto body = read_body<control_body>(c);
      out.cookie = body.cookie;
      out.peer_cookie = body.peer_cookie;
      return fault::none;  // the request id is checked against the table (control_target)
    }
    case kind::assist: {
      const auto body = read_body<assist_body>(c);
      out.cookie = body.cookie;
      out.address = body.address;
      out.size = body.bytes;
      out.assist_id = body.id;
      out.assist_chunk = body.chunk;
      if (out.assist_id == 0 || out.address == 0 || out.assist_chunk < 4096) return fault::assist;
      return fault::none;  // its size is checked against the send it names (check_assist)
    }
    case kind::ready:
    case kind::withdraw: {
      // Names the context and tag of a receive: both must be ones a message could carry. Its
      // position is checked against what this rank sent (check_ready).
      const auto body = read_body<ready_body>(c);
      out.position = body.position;
      out.context = static_cast<std::uint16_t>(body.context);
      out.tag = body.tag;
      if (body.context >= limits.contexts) return fault::context;
      if (static_cast<std::uint32_t>(out.tag) > static_cast<std::uint32_t>(tag_ub)) {
        return fault::tag;
      }
      return fault::none;
    }
    case kind::consumed:
      return fault::none;
    default:
      return fault::kind;
  }
  // A message.
  if (out.context >= limits.contexts) return fault::context;
  if (static_cast<std::uint32_t>(out.tag) > static_cast<std::uint32_t>(tag_ub)) return fault::tag;
  return fault::none;
}

/// An eager slot's state word: 0 free, otherwise 1 + the rank of the sender that claimed it, so a
/// cell can only name a slot its own sender filled.
inline std::uint32_t eager_claim_word(int sender) noexcept {
  return fabric::shm::eager_pool::claim_word(sender);
}

/// The send a control cell of kind `how` from `source` completes or advances: a live request of
/// this rank, sent to `source`, in flight and waiting for exactly that kind (an assist comes while
/// a rendezvous waits for its FIN). nullptr for anything else: a forged, stale or freed id, a
/// receive, another peer's send, or a reply of the wrong kind.
inline request* control_target(request_table& table, int source, kind how,
                               std::uint64_t cookie) noexcept {
  request* r = table.lookup(cookie);
  const kind waited = how == kind::assist ? kind::fin : how;
  if (r == nullptr || r->kind != op::send || r->peer != source || r->st != state::in_flight ||
      r->awaits != static_cast<std::uint8_t>(waited)) {
    return nullptr;
  }
  return r;
}

/// An assist asks the sender to copy `d.size` bytes of send `r`: never more than it sends, and
/// never for a scattered send (the receiver reads those alone).
inline fault check_assist(const decoded_cell& d, const request& r) noexcept {
  return d.size > r.bytes || r.segments.count != 0 ? fault::assist : fault::none;
}

/// A ready notice from a peer that has read `d.position` cells of this rank's ring to it, when this
/// rank has published `tail` there: it cannot have read more than was published.
inline fault check_ready(const decoded_cell& d, std::uint64_t tail) noexcept {
  return d.position > tail ? fault::ready_position : fault::none;
}

/// Entry `e` of a rendezvous's segment list (read from the sender's memory), after entries
/// covering `listed` bytes, for a message of `size` bytes: never empty, never beyond the message.
inline fault check_segment(const iovec& e, std::uint64_t listed, std::uint64_t size) noexcept {
  return e.iov_len == 0 || listed > size || e.iov_len > size - listed ? fault::segment_list
                                                                      : fault::none;
}

/// "entry 3 of the segment list (1 KiB at 0x...) goes beyond the message": a faulty list, for the
/// error message. `entry` is its index (the list's length when the list ended too early), `listed`
/// the bytes the entries before it cover.
std::string describe_segment(const decoded_cell& d, std::uint64_t entry, const iovec* e,
                             std::uint64_t listed);

/// A bounce chunk's state word `filled` (1 + bytes, 0 free) of a transfer with `left` bytes to go,
/// in chunks of `chunk_bytes`: only the last chunk may be short. Returns the length in `len`.
inline fault check_bounce_chunk(std::uint32_t filled, std::size_t chunk_bytes, std::size_t left,
                                std::size_t& len) noexcept {
  len = filled - std::size_t{1};
  if (filled == 0 || len == 0 || len > chunk_bytes || len > left ||
      (len < chunk_bytes && len != left)) {
    return fault::bounce_length;
  }
  return fault::none;
}

/// "inline size 200 (a cell holds 48 bytes)": the field and its value, for the error message.
std::string describe(fault f, const decoded_cell& d, const cell_limits& limits);

}  // namespace rmpl::core
