// The short-message protocol of the shared-memory path: barrier of no bytes, broadcast, reduce and
// allreduce of at most payload_lines_max lines of short_max bytes, allgather of blocks of at most
// short_max bytes and alltoall of blocks that fit whole in short_lines_max lines, for blocking
// calls on a communicator that holds a collective area. Each member owns a ring of
// area_flags::short_depth line-sized slots in its area (fabric/node_segment.hpp); short call k of a
// communicator uses slot k % depth of every member, and a slot holds the payload and the call
// number in ONE cache line: the owner writes the payload, then the number with release; a reader
// polls that line alone, and one line transfer brings it both. Each member publishes how many short
// calls it has finished (short_done, its own line); a writer reads those only when it would
// otherwise overwrite a slot a slower reader may not have read yet, so a broadcast's root runs
// ahead of the others by up to a ring's depth of calls.
//
// A call runs as a plain loop on the caller's stack (no coroutine, no operation, no request), and
// waits through the engine's wait_until: spin, yield when oversubscribed, sleep on the doorbell,
// progressing every other request and collective of the engine meanwhile, and throwing
// errc::dead_rank when a rank of the job died. Blocking calls only: blocking and nonblocking
// collectives do not match each other (as in MPI), and a blocking call ends before the next one
// starts, so every rank finishes its short calls in order and short_done is a plain count. The
// nonblocking collectives keep their own rounds (shared_area.hpp) and tags: neither waits for the
// other, so a blocking short call after a pending collective of the same communicator is safe.
//
// Straddles. Ranks whose counts disagree (an erroneous program) can fall on both sides of the
// size at which a collective leaves the short protocol: the short ones would wait in their slots
// for members that never write there, the others in their algorithm for members that took the
// protocol and went on. So a blocking allreduce, allgather or alltoall, a broadcast's root and a
// reduce's ranks, on a communicator with an area, take their short call even when they run another
// algorithm: they publish their entry in their slot (a size field no short call carries, their
// bytes in the payload) and go on (a broadcast's other ranks take the number, writing nothing).
// A short rank that waits for them finds it: an allreduce's, allgather's or alltoall's looks at
// every member's entry and runs the algorithm chosen for the most bytes among those that went
// elsewhere, with its own arguments (whose sizes that algorithm's checks find wrong on every
// rank); a broadcast's reader runs the root's; a reduce's root fails. The other way round, a
// broadcast's reader and a reduce's ranks beyond the limit watch, while their algorithm waits,
// for a member that took the protocol (entry_watch) and fail: only once no transfer of theirs is
// in flight (the shared rounds; a tree of messages does once it has stalled, its receives
// withdrawn: task.cpp). Counts on both sides of a change between two other algorithms, and
// communicators without an area, are left to the stalled-call notes (coll/stall.hpp). Waiting for
// the others' entries before the algorithm would close every straddle up front, but costs every
// call (measured: medium reduces 5.6x, broadcasts 1.13x the time at 1 KiB and 4 ranks).
#pragma once

#include <cstddef>

#include "coll/collectives.hpp"
#include "fabric/node_segment.hpp"

namespace rmpl::coll {

/// Payload bytes a short call carries: a cache line less its call number.
inline constexpr std::size_t short_max = sizeof(fabric::area_flags::short_slot::payload);

/// A blocking broadcast, reduce or allreduce of more than short_max bytes is a wide call: its
/// payload in as many lines as it needs, up to payload_lines_max (1064 bytes), each line with its
/// own call number. Which sizes take the protocol by default is each collective's choice.
inline constexpr std::size_t payload_lines_max = 19;
inline std::size_t payload_lines(std::size_t bytes) noexcept {
  return bytes <= short_max ? 1 : (bytes + short_max - 1) / short_max;
}
/// Whether a broadcast, reduce or allreduce of `bytes` can go as a (wide) short call at all.
inline bool payload_fits(std::size_t bytes) noexcept {
  return payload_lines(bytes) <= payload_lines_max;
}
/// The longest blocking broadcast that takes the short protocol by default: 9 lines. Beyond, the
/// rounds win: a root runs up to 256 of them ahead, against 256 / lines calls here (2026-11-27,
/// forced short over the rounds, 5 interleaved pairs: 512 B 1.10x the time with 4 ranks, 0.78x
/// with 8; 1 KiB 1.88x and 1.47x; 2 ranks, vCPUs close: 1 KiB 1.07x). Below it, against the
/// automatic choice of before: 64 B 0.15x the time of the binomial tree with 4 ranks and 0.24x
/// with 8, 256 B 0.31x and 0.37x, 448 B 0.79x and 0.70x; 2 ranks, vCPUs close, against the
/// rounds: 57 B 0.26x, 128 B 0.46x, 504 B 0.65x.
inline constexpr std::size_t broadcast_short_max = 9 * short_max;
/// The longest blocking reduce and allreduce that take it by default. Every member's operand
/// crosses to the root (or to everyone) line by line, where the tree or the rounds move it in
/// bulk, so the wide calls win only while short (2026-11-27, forced short over the automatic
/// choice, 5 interleaved pairs, 4 / 8 / 2 ranks (vCPUs close): reduce 64 B 0.33x / 0.33x / 0.45x
/// the time, 256 B 0.48x / 0.63x / 0.68x, 504 B 0.93x / 1.08x / 0.89x, 1 KiB 1.51x / 2.12x;
/// allreduce 64 B 0.71x / 0.78x / 0.60x, 128 B - / 0.97x / 0.74x, 256 B 1.04x / 0.98x / 1.0x,
/// 504 B 1.15x / 1.16x / 1.3x).
inline constexpr std::size_t reduce_short_max = 256;
inline constexpr std::size_t allreduce_short_max = 128;

/// Thrown by a short call that met a straddle (above): the bytes of the call whose algorithm this
/// rank must run instead, with its own arguments. An exception, not a return value: the calls that
/// agree pay nothing for it (a returned optional cost every short allreduce 30 instructions).
struct runs_elsewhere {
  std::size_t bytes;
};

/// The collectives over the short protocol, run to their end. The communicator must hold an area;
/// `data` and `in` at most payload_lines_max lines, `op`'s elements whole in them.
void barrier_short(core::engine& e, core::communicator& c);
void broadcast_short(core::engine& e, core::communicator& c, bytes data, int root);
void reduce_short(core::engine& e, core::communicator& c, const_bytes in, bytes out,
                  const reduction& op, int root);
void allreduce_short(core::engine& e, core::communicator& c, const_bytes in, bytes out,
                     const reduction& op);
/// `in` (one block, at most short_max bytes) may lie in `out` (size() blocks).
void allgather_short(core::engine& e, core::communicator& c, const_bytes in, bytes out);
/// An alltoall may take up to this many lines (and as many call numbers) of each member's ring:
/// with 8 ranks, blocks of up to 28 bytes.
inline constexpr std::size_t short_lines_max = 4;
/// The lines an alltoall of `block`-byte blocks takes on `members` ranks: whole blocks per line, as
/// many as fit (more than short_lines_max: the short protocol cannot take it). Inline, and without
/// a division when all blocks fit one line: the choice of algorithm asks it on every call.
inline std::size_t alltoall_short_lines(int members, std::size_t block) noexcept {
  const auto n = static_cast<std::size_t>(members);
  if (n * block <= short_max) return 1;  // n * block: the bytes of a send buffer, no overflow
  const std::size_t per_line = short_max / block;
  if (per_line == 0) return short_lines_max + 1;
  return (n + per_line - 1) / per_line;
}
/// `in` holds size() equal blocks, alltoall_short_lines() <= short_lines_max; `out` as many.
void alltoall_short(core::engine& e, core::communicator& c, const_bytes in, bytes out);

/// The entry of a blocking call that runs another algorithm where other ranks may have taken the
/// short protocol (see "straddles" above); `bytes`: what this rank's call carries (an alltoall's
/// block). Wakes `reader` if it sleeps (a reduce's root), or every other member (-1). Returns the
/// call's number; with `finish` false the call stays open until finish_entry (a watched call).
std::uint64_t enter_elsewhere(core::engine& e, core::communicator& c, const char* what,
                              std::size_t bytes, int reader = -1, bool finish = true);
/// Takes the short call's number, publishing nothing: a broadcast's reader that runs another
/// algorithm (no one reads its slot), so that every member's call numbers stay alike. Returns the
/// number; the call stays open until finish_entry (its reader watches the root meanwhile).
std::uint64_t pass_short_call(core::engine& e, core::communicator& c);
/// Finishes an entry left open (its members may reuse their slots of that call).
void finish_entry(core::engine& e, const core::communicator& c, std::uint64_t call);

/// What a call beyond the protocol watches while its algorithm waits (a broadcast's reader: the
/// root; a reduce's ranks: every member): whether one took the short protocol in the same call,
/// left its payload and went on, so that the algorithm would wait for it forever. The call's
/// entry stays open meanwhile, so that the members' slots of it stay as they are.
struct entry_watch {
  std::uint64_t call = 0;
  int member = -1;  ///< the rank watched, or -1: every other member
};
/// The first member watched that took the short protocol in call w.call, or -1.
int took_short(const core::engine& e, const core::communicator& c, const entry_watch& w);
}  // namespace rmpl::coll
