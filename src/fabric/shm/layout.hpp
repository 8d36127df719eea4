// The job segment's layout: one shared mapping, the same in every rank, in which every rank finds
// every other rank's areas at offsets computed from ranks alone (a symmetric layout, as SHMEM's).
// Ownership of each word (who writes it) is noted beside it; everything a peer writes is read with
// acquire and is checked before use by whoever reads it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace rmpl::fabric::shm {

inline constexpr std::size_t cache_line = 64;
inline constexpr std::uint64_t segment_magic = 0x726d706c2d73686dull;  // "rmpl-shm"
inline constexpr std::uint32_t segment_version = 6;

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

/// A futex word a rank sleeps on, and the flag that tells producers to wake it.
struct alignas(cache_line) doorbell {
  std::atomic<std::uint32_t> sleeping{0};  // owner writes; producers read
  std::atomic<std::uint32_t> ring{0};      // producers increment and wake; owner waits on it
};

enum class rank_state : std::uint32_t { absent = 0, alive = 1, finalized = 2, dead = 3 };

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
  record current;  ///< where the owner waits now
  record failed;   ///< the last call the owner failed for what it read in a note
  answer answered[answers];
};

/// One per rank. Written by its owner at start-up (and state by the launcher when the rank dies).
struct alignas(cache_line) rank_info {
  std::atomic<std::int32_t> pid{0};
  std::atomic<rank_state> state{rank_state::absent};
  std::atomic<std::int32_t> single_copy{-1};  // this rank's probe of a peer: 1 ok, 0 refused
  std::atomic<std::int32_t> exit_status{0};   // set by the launcher with state = dead (wait status)
  /// The launcher's, right after the fork: the peers watch a rank that has not joined yet by it
  /// (the same process once it execs), so that one that dies before joining is found even while
  /// the launcher cannot say so (stopped). 0 under a launcher that does not write it.
  std::atomic<std::int32_t> launched_pid{0};
  std::atomic<std::uint64_t> probe_address{0};  // address of probe_value in the owner's memory
  std::uint64_t probe_value = 0;
  doorbell bell;
  stall_note stall;
};

/// Job-wide words.
struct alignas(cache_line) header {
  std::uint64_t magic;
  std::uint32_t version;
  std::uint32_t reserved;
  params p;
  std::uint64_t total_bytes;
  std::uint64_t rank_info_offset;
  std::uint64_t ring_offset, ring_bytes;  // ring(dst, src) = ring_offset + (dst*n + src)*ring_bytes
  std::uint64_t pool_offset, pool_bytes;  // pool(dst) = pool_offset + dst*pool_bytes
  std::uint64_t bounce_offset, bounce_bytes;  // bounce(dst, src) likewise
  std::uint64_t coll_offset,
      coll_bytes;  // area(rank, slot) = coll_offset + (rank*slots+slot)*bytes
  alignas(cache_line) std::atomic<std::uint32_t> barrier_arrived{0};  // every rank fetch_adds
  std::atomic<std::uint32_t> barrier_generation{0};                   // the last to arrive bumps it
  alignas(cache_line) std::atomic<std::int32_t> failed_rank{-1};      // launcher: first dead rank
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

/// Byte offsets of every area for a job of p.nranks ranks.
struct layout {
  explicit layout(const params& p);
  params p;
  std::uint64_t rank_info_offset, ring_offset, ring_bytes, pool_offset, pool_bytes, bounce_offset,
      bounce_bytes, coll_offset, coll_bytes, total_bytes;
};

}  // namespace rmpl::fabric::shm
