// Stalled collectives. Ranks of an erroneous program that disagree on a collective (counts on
// both sides of a change of algorithm, a different number of chunk messages, one collective
// against another) can wait for a message or a round that no member will ever provide. The
// disagreements a message's size or a short call's slot shows are caught as they arrive
// (task.hpp, shared_short.hpp); catching the rest up front costs every call (the checked mode,
// RMPL_CHECK_COLLECTIVES=1). Here instead a blocking collective that has made no progress for the
// engine's stall_period publishes where it waits, in its rank's stall_note
// (fabric/node_segment.hpp): the communicator, its position there (the collectives and short calls
// it has started, this one included: ranks that agree reach every call at the same position) and
// its signature (the agreement record, coll/agreement.hpp). It then reads the other members' notes:
//  - a member at the same position with another signature disagrees with this rank: this rank
//    fails naming both values, and so does the member when it reads this rank's note (a rank that
//    failed so keeps that call's record in its note, so that a member that looks later still sees
//    it);
//  - a member past this position (a later call started there, its free, or finalize) from which
//    this rank still has a receive posted, after a progress pass, finished its part without
//    sending what this rank waits for (it publishes only once everything it sent is in the
//    rings): this rank fails; and so it does when every other member is past and the call still
//    cannot go on at the next stall (the shared rounds, where no receive names a rank).
// Members that wait elsewhere (another communicator's collective, a short call, a receive, the
// world's barrier) answer through the engine's stall hook (answer_stalled): their position on the
// communicator a stalled rank's note names, or the last one of a communicator they have freed.
// A member that makes progress, or computes, publishes nothing, and a member behind this rank
// tells nothing: a slow peer is never taken for a disagreement. Only stalled ranks write or read
// notes, so the calls that agree pay nothing for it. What stays uncaught is in docs/reliability.md
// (a member that never waits again, a nonblocking collective other than the rank's oldest in
// flight). Nonblocking collectives take part through the engine's stall hook (coll/task.hpp,
// wait_stalled): the oldest in flight publishes its launch position, and a rank's answers never
// put it past a call it still has in flight.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "coll/agreement.hpp"
#include "core/communicator.hpp"
#include "core/context_pool.hpp"
#include "core/engine.hpp"
#include "fabric/node_segment.hpp"

namespace rmpl::coll {

/// Where a rank waits: a communicator and its position there.
struct stall_position {
  std::uint64_t context = 0;  ///< the communicator's collective context
  std::uint64_t tags = 0;     ///< collectives started there (tags taken)
  std::uint64_t shorts = 0;   ///< short-protocol call numbers taken there
  bool left = false;          ///< an answer of a member that freed it (finished every call there)
  static stall_position of(const core::communicator& c) noexcept {
    return {c.collective_context(), c.collectives_started, c.short_calls, false};
  }
};

/// A member's note as read: where it waits and what its call passes, or the call it failed.
struct stall_record {
  std::uint64_t where = 0;  ///< fabric::stall_note::none, collective or finalizing
  stall_position at;
  agreement signature;
};

/// This rank's note while a wait of it is stalled: published by publish() (again at each stall),
/// cleared when the guard goes (the wait ended either way), unless keep_as_failed() made it the
/// record of a call this rank failed.
class stall_notice {
 public:
  explicit stall_notice(core::engine& e) noexcept : e_(e) {}
  stall_notice(const stall_notice&) = delete;
  stall_notice& operator=(const stall_notice&) = delete;
  ~stall_notice() {
    if (published_) clear();
  }
  /// Publishes that this rank waits at `at` in a call that passes `signature`. Returns false
  /// (publishing nothing) while something this rank sent is not yet in the rings: a member that
  /// reads the note must be able to trust that whatever this rank sent has reached it.
  bool publish(const stall_position& at, const agreement& signature) noexcept;
  /// This rank fails the call it published: the record stays (in the note's failed half, which
  /// outlives later waits) for the members that look later.
  void keep_as_failed() noexcept;

 private:
  void clear() noexcept;
  core::engine& e_;
  bool published_ = false;
};

/// Member `world_rank`'s current record, the record of the last call it failed for a stall
/// (where == none when it has none) and the positions it answered (context 0: none), read
/// consistently; nullopt when its note kept changing.
struct stall_records {
  stall_record current, failed;
  std::array<stall_position, fabric::stall_note::answers> answered;
};
std::optional<stall_records> read_stall_note(const core::engine& e, int world_rank) noexcept;

/// Whether a collective context may name several live communicators at once (the self pair's:
/// MPI_COMM_SELF and every create_group agreement run on it), so that a position there says
/// nothing.
inline bool ambiguous(std::uint64_t collective_context) noexcept {
  return collective_context == std::uint64_t{core::context_pool::self_context} + 1;
}

/// How a member's record stands to this rank's position on the same communicator.
enum class stall_relation { unrelated, same_call, past };
stall_relation relate(const stall_record& theirs, const stall_position& mine) noexcept;

/// The first field of `theirs` that disagrees with `mine` (both compared), or compared_fields.
std::size_t first_difference(const agreement& theirs, const agreement& mine) noexcept;

/// Communicator `c` is freed here: this rank answers a member stalled on it with its last
/// position, marked `left` (it has finished every call there), until its context is claimed again.
void communicator_freed(core::engine& e, const core::communicator& c);
/// This rank claims context pair `pair` for a new communicator: what its note says of the freed
/// one that had it goes (before the members can complete the claim, so that none of them reads
/// the old communicator's position as the new one's).
void context_reclaimed(core::engine& e, std::uint32_t pair) noexcept;
/// Forgets what this rank's note says of every communicator it has freed (a claim that cannot
/// say which context it takes before the members complete it).
void forget_freed(core::engine& e) noexcept;

/// The communicators of this process, whose positions it answers: a stalled member may wait on
/// one that this rank has left for another (each call before the next on a different
/// communicator, or a wait that is no collective at all).
void enroll(const core::communicator& c);
void unenroll(const core::communicator& c) noexcept;
/// Answers every stalled rank of the job that waits on a communicator of this process with this
/// rank's position there (when everything this rank sent is in the rings). Called by every wait
/// of this rank that stalls (the engine's stall hook, and the collectives' own).
void answer_stalled(core::engine& e) noexcept;

}  // namespace rmpl::coll
