// The shm provider's part of the job segment (after the runtime's, runtime/local/layout.hpp): one
// shared mapping, the same in every rank, in which every rank finds every other rank's areas at
// offsets computed from ranks alone (a symmetric layout, as SHMEM's).
// Ownership of each word (who writes it) is noted beside it; everything a peer writes is read with
// acquire and is checked before use by whoever reads it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "fabric/node_segment.hpp"
#include "runtime/doorbell.hpp"

namespace rmpl::fabric::shm {

using runtime::cache_line;
using runtime::doorbell;

inline constexpr std::uint64_t segment_magic = 0x726d706c2d73686dull;  // "rmpl-shm"
inline constexpr std::uint32_t segment_version = 7;

/// Sizes that shape the segment. Chosen once by the segment's creator and stored in its header.
struct params {
  std::uint32_t nranks = 1;
  std::uint32_t ring_cells = 128;  ///< cells per directed pair ring (power of two)
  std::uint32_t inline_max = 256;  ///< largest message carried in ring cells (continuation_bytes)
  std::uint32_t eager_slots = 64;  ///< eager slots per receiver
  std::uint32_t eager_slot_bytes = 16384;  ///< bytes per eager slot: the eager/rendezvous threshold
  std::uint32_t bounce_chunks = 4;  ///< pipelined-copy chunks per directed pair (fallback path)
  std::uint32_t bounce_chunk_bytes = 65536;
  std::uint32_t coll_slots = 8;              ///< collective areas per rank (one per communicator)
  std::uint32_t coll_area_bytes = 1u << 20;  ///< data bytes of each collective area
};

/// One per rank, written by its owner (the job's own per-rank words, pid, state and doorbell, are
/// the runtime's: runtime/local/layout.hpp).
struct alignas(cache_line) rank_info {
  std::atomic<std::int32_t> single_copy{-1};    // this rank's probe of a peer: 1 ok, 0 refused
  std::atomic<std::uint64_t> probe_address{0};  // address of probe_value in the owner's memory
  std::uint64_t probe_value = 0;
  stall_note stall;
};

/// The provider's header, at the start of its part of the segment; offsets from there.
struct alignas(cache_line) header {
  std::uint64_t magic;
  std::uint32_t version;
  std::uint32_t reserved;
  params p;
  std::uint64_t total_bytes;  ///< of this part
  std::uint64_t rank_info_offset;
  std::uint64_t ring_offset, ring_bytes;  // ring(dst, src) = ring_offset + (dst*n + src)*ring_bytes
  std::uint64_t pool_offset, pool_bytes;  // pool(dst) = pool_offset + dst*pool_bytes
  std::uint64_t bounce_offset, bounce_bytes;  // bounce(dst, src) likewise
  std::uint64_t coll_offset,
      coll_bytes;  // area(rank, slot) = coll_offset + (rank*slots+slot)*bytes
};

/// One 64-byte message cell of a directed pair ring. The sender fills everything but `seq`, then
/// stores `seq` with release (MPICH-T3D's lesson: the flag is written last); the receiver loads
/// `seq` with acquire and only then reads the rest.
struct alignas(cache_line) cell {
  std::atomic<std::uint32_t> seq;  // (position + 1) truncated: valid only for the expected lap
  std::uint8_t kind;
  std::uint8_t flags;
  std::uint16_t context;
  std::int32_t tag;
  std::uint32_t size;
  unsigned char body[48];
};
static_assert(sizeof(cell) == cache_line);

/// A message too long for one cell's body but at most params::inline_max bytes travels in the ring
/// itself: its first bytes in the body of its header cell, the rest in the cells right after it,
/// 60 bytes each after their own seq word (core/wire.hpp). Every cell keeps its seq, written as
/// for a cell of its own, so that a later lap never mistakes data left in it for a header. The
/// receiver then reads lines that only this pair writes, where an eager slot costs the claim in
/// the pool map, the slot's state and its data (each a line crossing between cores).
inline constexpr std::uint32_t continuation_bytes = cache_line - sizeof(std::uint32_t);
static_assert(sizeof(cell::seq) == sizeof(std::uint32_t));

/// The largest inline_max a ring of `ring_cells` cells takes: a message in at most a quarter of
/// the ring, so that a long message always leaves room for the control cells its pair needs.
constexpr std::uint32_t long_inline_limit(std::uint32_t ring_cells) noexcept {
  return static_cast<std::uint32_t>(sizeof(cell::body)) + (ring_cells / 4 - 1) * continuation_bytes;
}

/// A directed pair ring (src -> dst), stored with the receiver's areas.
struct alignas(cache_line) ring_control {
  std::atomic<std::uint64_t> head{0};            // receiver: cells consumed so far
  std::atomic<std::uint32_t> sender_waiting{0};  // sender: set when it found the ring full
  // An assisted rendezvous (both sides copy at once): {transfer id << 32 | next chunk}, claimed by
  // CAS from either side; bytes copied so far; the first error either side met.
  alignas(cache_line) std::atomic<std::uint64_t> assist_claim{0};
  std::atomic<std::uint64_t> assist_done{0};
  std::atomic<std::int32_t> assist_error{0};
};

/// One word of the receiver's eager pool map: bit i set = slot 64 * word + i is claimed. A sender
/// claims the lowest clear bit with one fetch_or (an atomic allocation on the receiver's memory, as
/// ACLMPL's fetch-and-add, but one that hands out the slot freed last, still in cache, where a
/// counter would cycle through the whole pool); the receiver clears the bit with fetch_and once it
/// has copied the message out. Each word has its own line and sender s starts at word s % words, so
/// with a deep pool senders do not contend with each other.
struct alignas(cache_line) pool_word {
  std::atomic<std::uint64_t> used{0};
};

/// The words of a pool of `slots` slots.
constexpr std::uint32_t pool_words(std::uint32_t slots) noexcept {
  return (slots + 63) / 64;
}

/// A bounce chunk's state word: 0 free (the sender may fill it), otherwise 1 + bytes in it. An
/// eager slot's: 0 free, otherwise 1 + the rank of the sender that claimed it
/// (core/cell_check.hpp).
struct alignas(cache_line) chunk_state {
  std::atomic<std::uint32_t> filled{0};
};

/// Byte offsets of every area for a job of p.nranks ranks.
struct layout {
  explicit layout(const params& p);
  params p;
  std::uint64_t rank_info_offset, ring_offset, ring_bytes, pool_offset, pool_bytes, bounce_offset,
      bounce_bytes, coll_offset, coll_bytes, total_bytes;
};

}  // namespace rmpl::fabric::shm
