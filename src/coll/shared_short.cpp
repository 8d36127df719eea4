// The short-message protocol (shared_short.hpp). Per call: one line written by each writer (a
// wide alltoall's writers: up to short_lines_max), one line read per (reader, writer) pair, one
// fence by each writer before it rings the sleepers' doorbells; the short_done words cross cores
// only once every half ring.
#include "coll/shared_short.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "base/error.hpp"
#include "coll/combine.hpp"
#include "core/engine.hpp"

namespace rmpl::coll {
namespace {

using fabric::area_flags;
constexpr std::uint64_t depth = area_flags::short_depth;
/// A member rings the others' doorbells after finishing every `half`-th call only (a writer short
/// of room waits for a multiple of it, see make_room): the rest cost a local store.
constexpr std::uint64_t half = depth / 2;
/// A slot's word holds the call number in its low bits and, above `size_shift`, the bytes the
/// writer's call carries (its payload, or an alltoall's block), so that a reader compares the size
/// with its own in the line it polls anyway: ranks whose counts disagree fail instead of taking
/// the wrong bytes, or waiting for lines the writer never fills.
constexpr int size_shift = 48;
constexpr std::uint64_t number_mask = (std::uint64_t{1} << size_shift) - 1;
/// The size field no short call carries (shared_short.hpp, "straddles"): the member took another
/// algorithm; the line's payload holds the bytes of its call.
constexpr std::uint64_t elsewhere_field = 0xffff;
static_assert(payload_lines_max * short_max < elsewhere_field);
static_assert(std::max(short_lines_max, payload_lines_max) + half - 1 <= depth,
              "a writer short of room must wait for a count every member reaches without it");

/// Short call k of communicator c, as this rank sees it. A call of `lines` lines takes as many call
/// numbers, first() to k, and their slots: line i is slot (first() + i) % depth, numbered first() +
/// i; one-line calls (all but a wide alltoall) use slot k % depth alone.
class short_call {
 public:
  /// `what`: the collective, for errors; `size`: the bytes this rank's call carries (published
  /// with each line, see size_shift).
  short_call(core::engine& e, core::communicator& c, const char* what, std::size_t size,
             std::uint64_t lines = 1) noexcept
      : what_(what),
        e_(e),
        c_(c),
        d_(e.node()),
        k_(c.short_calls += lines),
        first_(k_ - lines + 1),
        size_(static_cast<std::uint64_t>(size) << size_shift) {}

  int rank() const noexcept { return c_.rank; }
  int size() const noexcept { return c_.size; }
  area_flags& area(int r) const noexcept { return d_.area(c_.to_world(r), c_.area); }
  area_flags::short_slot& slot(int r) const noexcept { return area(r).short_slots[k_ % depth]; }
  std::uint64_t first() const noexcept { return first_; }
  area_flags::short_slot& line(int r, std::uint64_t i) const noexcept {
    return area(r).short_slots[(first_ + i) % depth];
  }
  /// The size field of member r's first line of this call (arrived): its bytes, or
  /// elsewhere_field.
  std::uint64_t field_of(int r) const noexcept {
    return line(r, 0).call.load(std::memory_order_relaxed) >> size_shift;
  }
  /// The bytes of member r's call (its first line of this call arrived).
  std::size_t size_of(int r) const noexcept {
    const std::uint64_t field = field_of(r);
    if (field < elsewhere_field) [[likely]]
      return static_cast<std::size_t>(field);
    std::uint64_t bytes;
    std::memcpy(&bytes, line(r, 0).payload, sizeof bytes);
    return static_cast<std::size_t>(bytes);
  }
  std::size_t own_size() const noexcept { return static_cast<std::size_t>(size_ >> size_shift); }
  /// Throws, naming member r, whose call carries another size than this rank's (a disagreement;
  /// the call is finished either way by the caller's handler).
  [[noreturn]] [[gnu::noinline]] void disagree(int r) const {
    const std::size_t theirs = size_of(r), mine = own_size();
    base::fail(theirs > mine ? errc::truncated : errc::invalid_argument,
               "{} (short) on rank {} (communicator of {}): the ranks' counts disagree: rank {} "
               "expected {} bytes from rank {} but {} arrived",
               what_, rank(), size(), rank(), mine, r, theirs);
  }
  /// A reader that found member r's call of another size: takes that call's numbers as its own
  /// (a broadcast's readers all follow the root), so the next short call lines up again.
  void follow(int r) noexcept {
    const std::uint64_t lines = field_of(r) < elsewhere_field ? payload_lines(size_of(r)) : 1;
    k_ = first_ + lines - 1;
    c_.short_calls = k_;
  }
  /// Waits until every other member has entered this call (published its first line: short
  /// ones their payload, the others their entry), then returns the most bytes among the members
  /// that took another algorithm, if any.
  std::optional<std::size_t> entries_elsewhere() {
    e_.wait_until([&] {
      for (int r = 0; r < size(); ++r) {
        if (r == rank()) continue;
        if ((line(r, 0).call.load(std::memory_order_acquire) & number_mask) != first_) return false;
      }
      return true;
    });
    std::optional<std::size_t> most;
    for (int r = 0; r < size(); ++r) {
      if (r != rank() && field_of(r) == elsewhere_field)
        most = std::max(most.value_or(0), size_of(r));
    }
    return most;
  }
  /// A reader that found member r of another size in its first line: throws runs_elsewhere when
  /// `may_follow` and a member took another algorithm (the caller runs that one), else the
  /// disagreement. Out of line: the calls that agree carry none of it.
  [[noreturn]] [[gnu::noinline]] void met_other_size(int r, bool may_follow) {
    if (may_follow) {
      if (const std::optional<std::size_t> other = entries_elsewhere())
        throw runs_elsewhere{*other};
    }
    disagree(r);
  }
  /// Publishes this rank's entry (a call that takes no short protocol): `bytes` in its slot's
  /// payload, the size field `field` (the call was made with it as its size).
  void publish_entry(std::size_t bytes, std::uint64_t field) const noexcept {
    const auto b = static_cast<std::uint64_t>(bytes);
    std::memcpy(slot(rank()).payload, &b, sizeof b);
    slot(rank()).call.store(k_ | field << size_shift, std::memory_order_release);
  }

  /// Waits until this rank may overwrite its slots of call k: every member has finished call
  /// k - depth, the last one of the last slot (and so the calls of the others: counts only ever
  /// reach a call's last number). Asks the members only when the least count it saw last is too
  /// small, and then waits for the next multiple of `half` (a count at or past which the member
  /// rang the doorbells): at most first() - 1, which every member reaches without this rank.
  void make_room() {
    if (k_ <= depth || k_ - depth <= c_.short_seen) return;
    wait_for_room();
  }
  [[gnu::noinline]] void wait_for_room() {
    const std::uint64_t need = (k_ - depth + half - 1) / half * half;
    e_.wait_until([&] {
      std::uint64_t least = ~std::uint64_t{0};
      for (int r = 0; r < size(); ++r) {
        if (r == rank()) continue;
        const std::uint64_t done = area(r).short_done.load(std::memory_order_acquire);
        if (done < least) least = done;
      }
      c_.short_seen = least;
      return least >= need;
    });
  }

  /// Publishes this rank's slot of call k (its payload written before).
  void publish() const noexcept { slot(rank()).call.store(k_ | size_, std::memory_order_release); }
  /// Publishes this rank's line i of call k (its payload written before).
  void publish_line(std::uint64_t i) const noexcept {
    line(rank(), i).call.store((first_ + i) | size_, std::memory_order_release);
  }

  /// Orders what this rank published before its reads of the peers' `sleeping` words (see
  /// domain::wake_if_sleeping: without it a wake-up can be lost).
  void fence() const noexcept { std::atomic_thread_fence(std::memory_order_seq_cst); }
  /// Rings the doorbell of member r if it sleeps (after fence()).
  void wake(int r) const noexcept { d_.wake_if_sleeping(c_.to_world(r)); }
  /// fence(), then wakes every other member that sleeps.
  void wake_others() const noexcept {
    if (size() == 1) return;
    fence();
    for (int r = 0; r < size(); ++r) {
      if (r != rank()) wake(r);
    }
  }

  /// Waits until every other member has published line i of call k (of a one-line call, line 0 is
  /// its slot). Returns -1, or the first member found whose line carries another size than this
  /// rank's (then it waits no longer: that member fills another number of lines). The size costs
  /// nothing when the ranks agree: the whole word is compared with the one this rank expects, and
  /// only a word that differs is looked at again.
  int wait_arrivals(std::uint64_t i = 0) {
    const std::uint64_t number = first_ + i, expected = number | size_;
    int differs = -1;
    e_.wait_until([&] {
      for (int r = 0; r < size(); ++r) {
        if (r == rank()) continue;
        const std::uint64_t word = line(r, i).call.load(std::memory_order_acquire);
        if (word != expected) [[unlikely]] {
          if ((word & number_mask) != number) return false;
          differs = r;
          return true;
        }
      }
      return true;
    });
    return differs;
  }
  /// Waits until member r has published line i of call k; returns whether its size is this rank's.
  bool wait_arrival(int r, std::uint64_t i = 0) {
    const std::uint64_t number = first_ + i, expected = number | size_;
    bool same = true;
    e_.wait_until([&] {
      const std::uint64_t word = line(r, i).call.load(std::memory_order_acquire);
      same = word == expected;
      return same || (word & number_mask) == number;
    });
    return same;
  }

  /// This rank has read all it needs of call k: its slots of call k - depth may be overwritten.
  /// The doorbells ring when the count reaches or passes a multiple of `half`.
  void finish() const noexcept {
    area(rank()).short_done.store(k_, std::memory_order_release);
    if (k_ % half <= k_ - first_) wake_others();  // one line: k_ % half == 0
  }

 private:
  const char* what_;
  core::engine& e_;
  core::communicator& c_;
  const fabric::node_segment& d_;
  std::uint64_t k_;
  std::uint64_t first_;
  std::uint64_t size_;  ///< own size, shifted into place
};

/// acc = operand_0 op operand_1 op ... op operand_{n-1} of call k's slots, folded from the last
/// rank down, so a non-commutative operator sees rank order; this rank's operand comes from `own`
/// when it is not null (a reduce's root does not publish its own). The operands are folded in
/// aligned copies (a slot's payload is only 8-byte aligned); whole payloads are copied (a fixed
/// size, inlined), and the bytes past len are never used.
void fold_slots(const short_call& call, const reduction& op, std::size_t len, const std::byte* own,
                std::byte* acc) {
  const int n = call.size();
  const std::size_t count = len / op.element;
  auto operand = [&](int r) -> const void* {
    return r == call.rank() && own != nullptr ? static_cast<const void*>(own)
                                              : call.slot(r).payload;
  };
  alignas(64) std::byte next[short_max];
  std::memcpy(acc, operand(n - 1), short_max);
  for (int r = n - 2; r >= 0; --r) {
    std::memcpy(next, operand(r), short_max);
    combine(op, next, acc, count);
  }
}

/// The most bytes a wide call's payload holds.
constexpr std::size_t payload_max = payload_lines_max * short_max;

/// Writes `len` bytes from `from` into this rank's `lines` lines of the call, line i with bytes
/// [i * short_max, (i + 1) * short_max), and publishes each in order (the caller made room): a
/// reader that sees the last line's number sees them all (each number is stored with release).
void write_lines(const short_call& call, const std::byte* from, std::size_t len,
                 std::size_t lines) {
  if (lines == 1) {  // most calls: their one slot, as directly as the one-line collectives
    if (len != 0) std::memcpy(call.slot(call.rank()).payload, from, len);
    call.publish();
    return;
  }
  for (std::size_t i = 0, at = 0; i < lines; ++i, at += short_max) {
    const std::size_t part = std::min(short_max, len - std::min(len, at));
    if (part != 0) std::memcpy(call.line(call.rank(), i).payload, from + at, part);
    call.publish_line(i);
  }
}

/// Copies the `len` bytes of member r's payload lines of the call into `to`.
void read_lines(const short_call& call, int r, std::byte* to, std::size_t len) {
  if (len <= short_max) {  // one line: the call's slot
    if (len != 0) std::memcpy(to, call.slot(r).payload, len);
    return;
  }
  for (std::size_t i = 0, at = 0; at < len; ++i, at += short_max) {
    std::memcpy(to + at, call.line(r, i).payload, std::min(short_max, len - at));
  }
}

/// fold_slots for a wide call: each operand gathered from its lines into an aligned buffer first.
void fold_lines(const short_call& call, const reduction& op, std::size_t len, const std::byte* own,
                std::byte* acc) {
  const int n = call.size();
  const std::size_t count = len / op.element;
  auto load = [&](int r, std::byte* to) {
    if (r == call.rank() && own != nullptr) {
      std::memcpy(to, own, len);
    } else {
      read_lines(call, r, to, len);
    }
  };
  alignas(64) std::byte next[payload_max];
  load(n - 1, acc);
  for (int r = n - 2; r >= 0; --r) {
    load(r, next);
    combine(op, next, acc, count);
  }
}

/// Waits for the other members' line `line` of the call (a one-line call: their slots), reads them
/// with `read` and finishes the call, also when the wait or `read` throws (a rank died, a user
/// operator threw): the slots of this call are read no more either way. A member of another size
/// is a disagreement, unless `may_follow` and a member took another algorithm: then this rank
/// runs that (runs_elsewhere).
template <class Read>
void read_arrivals(short_call& call, Read&& read, std::uint64_t line = 0, bool may_follow = true) {
  try {
    // Every member's first line carries its size: compared before any later line is awaited,
    // as a member whose count differs fills another number of lines.
    if (const int differs = call.wait_arrivals(0); differs >= 0) [[unlikely]] {
      call.met_other_size(differs, may_follow);
    }
    if (line != 0) call.wait_arrivals(line);
    read();
  } catch (...) {
    call.finish();
    throw;
  }
  call.finish();
}

/// Folds the other members' operands of the call as they arrive (fold_slots, or fold_lines for a
/// call of several lines; see read_arrivals).
[[gnu::noinline]] void fold_arrivals(short_call& call, const reduction& op, std::size_t len,
                                     std::size_t lines, const std::byte* own, std::byte* acc,
                                     bool may_follow) {
  if (lines == 1) {
    read_arrivals(
        call, [&] { fold_slots(call, op, len, own, acc); }, 0, may_follow);
  } else {
    read_arrivals(
        call, [&] { fold_lines(call, op, len, own, acc); }, lines - 1, may_follow);
  }
}

/// Writes `len` bytes from `from` into this rank's `lines` lines of the call and publishes them
/// (write_lines), once the slowest reader has left them (make_room), then wakes the members that
/// sleep. `from` may lie in the caller's receive buffer: it is read before anything is written
/// there.
void publish_own(short_call& call, const std::byte* from, std::size_t len, std::size_t lines = 1) {
  call.make_room();
  write_lines(call, from, len, lines);
  call.wake_others();
}

}  // namespace

void barrier_short(core::engine& e, core::communicator& c) {
  short_call call(e, c, "barrier", 0);
  call.make_room();
  call.publish();
  call.wake_others();
  call.wait_arrivals();  // sizes: every barrier's is 0
  call.finish();
}

void broadcast_short(core::engine& e, core::communicator& c, bytes data, int root) {
  const std::size_t lines = payload_lines(data.size());
  short_call call(e, c, "broadcast", data.size(), lines);
  if (call.rank() == root) {
    publish_own(call, data.data(), data.size(), lines);
  } else {
    // The root's first line carries its size (the only line of most calls): a root whose count
    // differs fills another number of lines, so the last line is awaited only once they agree.
    if (!call.wait_arrival(root, 0)) [[unlikely]] {
      const bool root_elsewhere = call.field_of(root) == elsewhere_field;
      const std::size_t theirs = call.size_of(root);  // before finish(): then the root may reuse it
      call.follow(root);
      call.finish();
      if (root_elsewhere) throw runs_elsewhere{theirs};
      call.disagree(root);
    }
    if (lines != 1) call.wait_arrival(root, lines - 1);  // its last line
    read_lines(call, root, data.data(), data.size());
  }
  call.finish();
}

void reduce_short(core::engine& e, core::communicator& c, const_bytes in, bytes out,
                  const reduction& op, int root) {
  const std::size_t len = in.size(), lines = payload_lines(len);
  short_call call(e, c, "reduce", len, lines);
  if (call.rank() != root) {
    call.make_room();
    write_lines(call, in.data(), len, lines);
    call.fence();
    call.wake(root);
    call.finish();
    return;
  }
  // The root's own operand is kept in an aligned copy, not published: it may be `out` itself (in
  // place), and no other rank reads it. A member that took another algorithm is a disagreement
  // here: the root decides (shared_short.hpp).
  // Its first line's bytes are all defined: fold_slots copies whole payloads.
  alignas(64) std::byte mine[payload_max], acc[payload_max];
  std::memset(mine, 0, short_max);
  if (len != 0) std::memcpy(mine, in.data(), len);
  fold_arrivals(call, op, len, lines, mine, acc, false);
  if (len != 0) std::memcpy(out.data(), acc, len);
}

void allreduce_short(core::engine& e, core::communicator& c, const_bytes in, bytes out,
                     const reduction& op) {
  const std::size_t len = in.size(), lines = payload_lines(len);
  short_call call(e, c, "allreduce", len, lines);
  // Every rank publishes its operand and folds all of them: one line written and one read per
  // other member and line, against the shared rounds' four flag words (posted and released, each
  // read by the other side). `in` may be `out`: the operand is in the lines before anything is
  // written there.
  publish_own(call, in.data(), len, lines);
  alignas(64) std::byte acc[payload_max];
  fold_arrivals(call, op, len, lines, nullptr, acc, true);
  if (len != 0) std::memcpy(out.data(), acc, len);
}

void allgather_short(core::engine& e, core::communicator& c, const_bytes in, bytes out) {
  const std::size_t block = in.size();
  short_call call(e, c, "allgather", block);
  // Every rank publishes its block and copies every slot, its own too (a local line): `in` may
  // lie in `out` (in place), and it is in the slot before `out` is written. As allreduce, one line
  // written and one read per other member; the wait is for all of them, so no rank runs more than
  // one call ahead of another here, but a broadcast's root may have (make_room).
  publish_own(call, in.data(), block);
  read_arrivals(call, [&] {
    if (block == 0) return;  // `out` may then be null
    std::byte* to = out.data();
    for (int r = 0; r < call.size(); ++r, to += block) {
      std::memcpy(to, call.slot(r).payload, block);
    }
  });
}

void alltoall_short(core::engine& e, core::communicator& c, const_bytes in, bytes out) {
  const auto members = static_cast<std::size_t>(c.size);
  const std::size_t block = in.size() / members;
  const std::size_t lines = alltoall_short_lines(c.size, block);
  short_call call(e, c, "alltoall", block, lines);
  // Rank r's lines hold its n outgoing blocks, as many whole ones per line as fit (per_line),
  // side by side; rank j polls and reads only the line that holds block j of each member: one
  // line read per other member, however many lines the call has. A wide call still ends with one
  // fence and one round of doorbells; its lines are published in order, each with its number.
  const std::size_t per_line = lines == 1 ? members : short_max / block;  // block may be 0
  call.make_room();
  for (std::size_t i = 0, at = 0; i < lines; ++i, at += per_line) {
    const std::size_t count = std::min(per_line, members - at);
    if (block != 0)
      std::memcpy(call.line(call.rank(), i).payload, in.data() + at * block, count * block);
    call.publish_line(i);
  }
  call.wake_others();
  const auto me = static_cast<std::size_t>(call.rank());
  const std::size_t mine = me / per_line;
  const std::size_t offset = me % per_line * block;
  read_arrivals(
      call,
      [&] {
        if (block == 0) return;  // `out` may be null then
        std::byte* to = out.data();
        for (int r = 0; r < call.size(); ++r, to += block) {
          std::memcpy(to, call.line(r, mine).payload + offset, block);
        }
      },
      mine);
}

std::uint64_t enter_elsewhere(core::engine& e, core::communicator& c, const char* what,
                              std::size_t bytes, int reader, bool finish) {
  short_call call(e, c, what, elsewhere_field);
  ++c.short_entries;
  call.make_room();
  call.publish_entry(bytes, elsewhere_field);
  if (reader < 0) {
    call.wake_others();
  } else if (reader != c.rank) {
    call.fence();
    call.wake(reader);
  }
  if (finish) call.finish();
  return c.short_calls;
}

std::uint64_t pass_short_call(core::engine& e, core::communicator& c) {
  short_call call(e, c, "", elsewhere_field);
  ++c.short_entries;
  return c.short_calls;
}

void finish_entry(core::engine& e, const core::communicator& c, std::uint64_t call) {
  const fabric::node_segment& d = e.node();
  d.area(c.to_world(c.rank), c.area).short_done.store(call, std::memory_order_release);
  if (call % half != 0 || c.size == 1) return;  // as short_call::finish
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (int r = 0; r < c.size; ++r) {
    if (r != c.rank) d.wake_if_sleeping(c.to_world(r));
  }
}

int took_short(const core::engine& e, const core::communicator& c, const entry_watch& w) {
  const fabric::node_segment& d = e.node();
  for (int r = 0; r < c.size; ++r) {
    if (r == c.rank || (w.member >= 0 && r != w.member)) continue;
    const area_flags& a = d.area(c.to_world(r), c.area);
    // short_done first: an entry is published before its call is finished.
    const bool finished = a.short_done.load(std::memory_order_acquire) >= w.call;
    const std::uint64_t word = a.short_slots[w.call % depth].call.load(std::memory_order_acquire);
    if ((word & number_mask) == w.call) {
      if ((word >> size_shift) != elsewhere_field) return r;  // its payload: a short call
    } else if (finished) {
      return r;  // finished the call without publishing it: a reduce's short root
    }
  }
  return -1;
}

}  // namespace rmpl::coll
