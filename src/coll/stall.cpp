#include "coll/stall.hpp"

#include <atomic>
#include <vector>

#include "coll/task.hpp"
#include "fabric/node_segment.hpp"

namespace rmpl::coll {

namespace {

using note = fabric::stall_note;

note& own_note(const core::engine& e) noexcept {
  return e.node().stall(e.rank());
}

void write(note::record& r, std::uint64_t where, const stall_position& at,
           const agreement& signature) noexcept {
  r.where.store(where, std::memory_order_relaxed);
  r.context.store(at.context, std::memory_order_relaxed);
  r.tags.store(at.tags, std::memory_order_relaxed);
  r.shorts.store(at.shorts, std::memory_order_relaxed);
  for (std::size_t f = 0; f < compared_fields; ++f)
    r.signature[f].store(signature.field(f), std::memory_order_relaxed);
}

stall_record read(const note::record& r) noexcept {
  stall_record out;
  out.where = r.where.load(std::memory_order_relaxed);
  out.at = {r.context.load(std::memory_order_relaxed), r.tags.load(std::memory_order_relaxed),
            r.shorts.load(std::memory_order_relaxed)};
  auto* words = reinterpret_cast<std::uint64_t*>(&out.signature);
  for (std::size_t f = 0; f < compared_fields; ++f)
    words[f] = r.signature[f].load(std::memory_order_relaxed);
  return out;
}

}  // namespace

bool stall_notice::publish(const stall_position& at, const agreement& signature) noexcept {
  if (!e_.all_in_rings()) return false;
  own_note(e_).change([&] { write(own_note(e_).current, note::collective, at, signature); });
  published_ = true;
  return true;
}

void stall_notice::keep_as_failed() noexcept {
  if (!published_) return;
  note& n = own_note(e_);
  n.change([&] {
    const stall_record mine = read(n.current);
    write(n.failed, note::collective, mine.at, mine.signature);
    n.current.where.store(note::none, std::memory_order_relaxed);
  });
  published_ = false;
}

void stall_notice::clear() noexcept {
  note& n = own_note(e_);
  n.change([&] { n.current.where.store(note::none, std::memory_order_relaxed); });
  published_ = false;
}

std::optional<stall_records> read_stall_note(const core::engine& e, int world_rank) noexcept {
  const note& n = e.node().stall(world_rank);
  for (int attempt = 0; attempt < 64; ++attempt) {
    const std::uint64_t before = n.version.load(std::memory_order_acquire);
    if (before % 2 != 0) continue;
    stall_records out{read(n.current), read(n.failed), {}};
    for (std::size_t i = 0; i < note::answers; ++i) {
      out.answered[i] = {n.answered[i].context.load(std::memory_order_relaxed),
                         n.answered[i].tags.load(std::memory_order_relaxed),
                         n.answered[i].shorts.load(std::memory_order_relaxed),
                         n.answered[i].left.load(std::memory_order_relaxed) != 0};
    }
    std::atomic_thread_fence(std::memory_order_acquire);
    if (n.version.load(std::memory_order_relaxed) == before) return out;
  }
  return std::nullopt;
}

stall_relation relate(const stall_record& theirs, const stall_position& mine) noexcept {
  if (theirs.where == note::finalizing) return stall_relation::past;
  // A member that freed the communicator has finished every call of it (a collective in flight
  // keeps it alive): whatever this rank waits for there, it will not send.
  if (theirs.at.left && theirs.at.context == mine.context) return stall_relation::past;
  if (theirs.where != note::collective || theirs.at.context != mine.context)
    return stall_relation::unrelated;
  if (theirs.at.tags == mine.tags && theirs.at.shorts == mine.shorts)
    return stall_relation::same_call;
  // Ranks that agree take the same numbers in the same calls, so a member that has taken more of
  // either kind has started a later call (both counts only grow; the tags' 32 bits do not wrap
  // within a stall).
  if (theirs.at.tags > mine.tags || theirs.at.shorts > mine.shorts) return stall_relation::past;
  return stall_relation::unrelated;
}

std::size_t first_difference(const agreement& theirs, const agreement& mine) noexcept {
  for (std::size_t f = 0; f < compared_fields; ++f) {
    const std::uint64_t a = theirs.field(f), b = mine.field(f);
    if (a != unchecked && b != unchecked && a != b) return f;
  }
  return compared_fields;
}

namespace {
/// This process's communicators (their kernels live in their handles' shared objects).
std::vector<const core::communicator*>& enrolled() {
  // Never destroyed: communicators that outlive main (a program that exits without finalizing,
  // MPI_COMM_SELF's handle) unenroll during the static destructors.
  static auto* all = new std::vector<const core::communicator*>;
  return *all;
}
}  // namespace

void enroll(const core::communicator& c) {
  enrolled().push_back(&c);
}

void unenroll(const core::communicator& c) noexcept {
  auto& all = enrolled();
  std::erase(all, &c);
}

namespace {
/// Writes position `at` into one of `n`'s answers: the one that holds its context, else a free
/// one, else the first.
void put_answer(note& n, const stall_position& at) noexcept {
  std::size_t slot = 0;
  bool found = false;
  for (std::size_t i = 0; i < note::answers && !found; ++i) {
    if (n.answered[i].context.load(std::memory_order_relaxed) == at.context) {
      slot = i;
      found = true;
    }
  }
  for (std::size_t i = 0; i < note::answers && !found; ++i) {
    if (n.answered[i].context.load(std::memory_order_relaxed) == 0) {
      slot = i;
      found = true;
    }
  }
  n.change([&] {
    n.answered[slot].context.store(at.context, std::memory_order_relaxed);
    n.answered[slot].tags.store(at.tags, std::memory_order_relaxed);
    n.answered[slot].shorts.store(at.shorts, std::memory_order_relaxed);
    n.answered[slot].left.store(at.left ? 1 : 0, std::memory_order_relaxed);
  });
}

/// Forgets what `n` says of the communicators whose context `gone` says is gone.
template <class Gone>
void forget(note& n, Gone&& gone) noexcept {
  n.change([&] {
    if (gone(n.failed.context.load(std::memory_order_relaxed)))
      n.failed.where.store(note::none, std::memory_order_relaxed);
    for (note::answer& a : n.answered) {
      if (gone(a.context.load(std::memory_order_relaxed)))
        a.context.store(0, std::memory_order_relaxed);
    }
  });
}
}  // namespace

namespace {
/// The last positions of the communicators freed here, newest last (a bounded list: a member
/// stalled on one freed long ago has been answered by then, or waits in vain for a rank that has
/// moved on through many communicators since).
std::vector<stall_position>& freed() {
  static auto* all = new std::vector<stall_position>;  // never destroyed, as enrolled()'s
  return *all;
}
constexpr std::size_t freed_kept = 64;
void drop_freed(std::uint64_t context) noexcept {
  std::erase_if(freed(), [&](const stall_position& p) { return p.context == context; });
}
}  // namespace

void communicator_freed(core::engine&, const core::communicator& c) {
  stall_position at = stall_position::of(c);
  at.left = true;
  drop_freed(at.context);
  if (freed().size() == freed_kept) freed().erase(freed().begin());
  freed().push_back(at);
}

void context_reclaimed(core::engine& e, std::uint32_t pair) noexcept {
  const std::uint64_t context = std::uint64_t{pair} + 1;  // communicator::collective_context()
  drop_freed(context);
  forget(own_note(e), [&](std::uint64_t c) { return c == context; });
}

void forget_freed(core::engine& e) noexcept {
  freed().clear();
  forget(own_note(e), [](std::uint64_t c) {
    if (c == 0) return false;
    for (const core::communicator* k : enrolled()) {
      if (k->collective_context() == c) return false;
    }
    return true;
  });
}

void answer_stalled(core::engine& e) noexcept {
  if (!e.all_in_rings()) return;
  note& mine = own_note(e);
  const auto& all = enrolled();
  for (int r = 0; r < e.size(); ++r) {
    if (r == e.rank()) continue;
    const note& theirs = e.node().stall(r);
    if (theirs.current.where.load(std::memory_order_acquire) != note::collective) continue;
    const std::uint64_t context = theirs.current.context.load(std::memory_order_relaxed);
    if (ambiguous(context)) continue;
    const core::communicator* c = nullptr;
    for (const core::communicator* k : all) {
      if (k->collective_context() == context && k->rank >= 0) c = k;
    }
    if (c != nullptr) {
      put_answer(mine, finished_position(e, *c));
      continue;
    }
    for (const stall_position& p : freed()) {
      if (p.context == context) put_answer(mine, p);
    }
  }
}

}  // namespace rmpl::coll
