// The agreement on a new communicator's context pair and collective area slot
// (core/context_pool.hpp, core/area_pool.hpp): the parent's members AND their free masks and each
// claims the lowest pair (and slot) free in the result. Several agreements may be in flight on one
// process at once (a nonblocking MPI_Comm_idup beside a blocking dup on another communicator), and
// each claims when it completes here, which is not at the same moment on every member: a pair free
// when a member sent its mask may have been taken by another agreement before this one completed
// there. So the members then compare their choices (one more short allreduce, of each choice and
// its complement under min: the lowest and the highest choice at once) and, if any differs, give
// their claims back and start over with fresh masks. Only a disagreement on the area slot is
// settled without a second try: the new communicator then goes without one (its collectives use
// messages).
//
// Between the two groups of an intercommunicator (dup, merge, split of one, blocking or not) each
// step is the same, done by each group among its members, with the leaders (rank 0 of each group)
// combining the two groups' results on the intercommunicator and each handing the whole back to its
// group by a broadcast.
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "base/error.hpp"
#include "coll/algorithms.hpp"
#include "coll/collectives.hpp"
#include "coll/stall.hpp"
#include "core/context_pool.hpp"

namespace rmpl::coll {
namespace {

using context_mask = core::context_pool::mask;
constexpr std::size_t context_words = std::tuple_size_v<context_mask>;
constexpr std::uint64_t none = ~std::uint64_t{0};

/// What this member claimed from the agreed masks, until the members have compared their choices.
struct tentative {
  std::optional<std::uint32_t> context;
  std::optional<int> area;

  /// Claims the lowest pair free in `agreed` (its first context_words words) and, with
  /// `with_area`, the lowest slot free in its next word.
  static tentative claim(core::engine& e, std::span<const std::uint64_t> agreed, bool with_area) {
    context_mask contexts;
    std::copy_n(agreed.begin(), context_words, contexts.begin());
    const std::optional<std::uint32_t> context = e.contexts().claim_lowest(contexts);
    if (context) {
      // Before this member's choice goes out (the comparison, which every member waits for), so
      // that no member of the new communicator reads the old one's position as its own
      // (coll/stall.hpp), nor can have sent anything on it yet: what is queued on the pair now
      // is the old communicator's, left unreceived (an erroneous program's failed collective),
      // which the new one's receives, its collectives numbered from 0 again, would take. Its
      // senders sent it before their part of this claim, and the waits since have taken it from
      // the rings (one still in a ring stays: dropping is a courtesy to erroneous programs).
      context_reclaimed(e, *context);
      e.discard_unexpected(*context);
      e.discard_unexpected(*context + 1);
    }
    return {context, with_area ? e.areas().claim_lowest(agreed[context_words]) : std::nullopt};
  }

  /// The choices and their complements: under min over all members, the lowest and (complemented)
  /// the highest choice at once.
  std::array<std::uint64_t, 4> choices() const {
    const std::uint64_t c = context ? *context : none;
    const std::uint64_t a = area ? static_cast<std::uint64_t>(*area) : none;
    return {c, ~c, a, ~a};
  }

  /// After the comparison (`lowest`: the min of every member's choices()): false if the members
  /// chose different pairs (both claims given back: start over); else fills `out` (without the
  /// slot if they chose different ones) and returns true. Calls `exhausted` (which throws) if no
  /// pair was free on every member.
  template <class Exhausted>
  bool settle(core::engine& e, const std::array<std::uint64_t, 4>& lowest, context_claim& out,
              Exhausted exhausted) const {
    const bool same_context = lowest[0] == ~lowest[1];
    const bool same_area = lowest[2] == ~lowest[3];
    if (!same_context || !context) {
      if (context) e.contexts().release(*context);
      if (area) e.areas().release(*area, {}, 0);
      if (same_context) exhausted();
      return false;
    }
    if (!same_area && area) e.areas().release(*area, {}, 0);
    out.context = *context;
    out.area = same_area && area ? *area : -1;
    return true;
  }
};

}  // namespace

task claim_context(exchange x, std::shared_ptr<context_claim> out) {
  core::engine& e = x.engine();
  const reduction and_op = detail::make_reduction<std::uint64_t>(ops::bit_and{});
  const reduction min_op = detail::make_reduction<std::uint64_t>(ops::min{});
  for (;;) {
    // The free masks: the context pairs' words, then the area slots' word.
    std::array<std::uint64_t, context_words + 1> mine{}, agreed{};
    std::copy_n(e.contexts().free_mask().begin(), context_words, mine.begin());
    mine.back() = e.areas().free_mask();
    co_await x.run(allreduce_recursive_doubling(x, std::as_bytes(std::span(mine)),
                                                std::as_writable_bytes(std::span(agreed)), and_op));
    const tentative taken = tentative::claim(e, agreed, true);
    const std::array<std::uint64_t, 4> choices = taken.choices();
    std::array<std::uint64_t, 4> lowest{};
    co_await x.run(allreduce_recursive_doubling(x, std::as_bytes(std::span(choices)),
                                                std::as_writable_bytes(std::span(lowest)), min_op));
    if (taken.settle(e, lowest, *out, [&] {
          base::fail(errc::exhausted,
                     "rank {}: no communicator context is free on every rank of a communicator "
                     "of {} ({} in use here): free communicators that are no longer needed",
                     x.rank(), x.size(), e.contexts().in_use());
        })) {
      co_return;
    }
  }
}

task claim_context_between(exchange local, exchange across, std::uint64_t extra, bool with_area,
                           std::shared_ptr<context_claim> out) {
  core::engine& e = local.engine();
  const reduction and_op = detail::make_reduction<std::uint64_t>(ops::bit_and{});
  const reduction min_op = detail::make_reduction<std::uint64_t>(ops::min{});
  const bool leader = local.rank() == 0;
  // Each group among its members, then its leader with the other group's leader (the first
  // `words` words combined under `combine`, the rest taken from the other side), then the leader
  // to its group.
  auto over_both = [&](auto& mine, auto& agreed, const reduction& op, std::size_t words,
                       auto combine) -> task {
    co_await local.run(allreduce_recursive_doubling(local, std::as_bytes(std::span(mine)),
                                                    std::as_writable_bytes(std::span(agreed)), op));
    if (leader) {
      std::remove_cvref_t<decltype(agreed)> theirs{};
      across.recv(std::as_writable_bytes(std::span(theirs)), 0);
      across.send(std::as_bytes(std::span(agreed)), 0);
      co_await across.all();
      for (std::size_t i = 0; i < agreed.size(); ++i) {
        agreed[i] = i < words ? combine(agreed[i], theirs[i]) : theirs[i];
      }
    }
    co_await local.run(broadcast_binomial(local, std::as_writable_bytes(std::span(agreed)), 0));
  };
  for (;;) {
    // The free masks (context pairs, then area slots), and the extra word, which only the leaders'
    // swap carries across (an AND within the group: its members pass the same).
    std::array<std::uint64_t, context_words + 2> mine{}, agreed{};
    std::copy_n(e.contexts().free_mask().begin(), context_words, mine.begin());
    mine[context_words] = with_area ? e.areas().free_mask() : 0;
    mine[context_words + 1] = extra;
    co_await local.run(over_both(mine, agreed, and_op, context_words + 1,
                                 [](std::uint64_t a, std::uint64_t b) { return a & b; }));
    const tentative taken = tentative::claim(e, agreed, with_area);
    std::array<std::uint64_t, 4> choices = taken.choices(), lowest{};
    co_await local.run(over_both(choices, lowest, min_op, 4,
                                 [](std::uint64_t a, std::uint64_t b) { return std::min(a, b); }));
    if (taken.settle(e, lowest, *out, [&] {
          base::fail(errc::exhausted,
                     "rank {}: no communicator context is free on every process of both groups "
                     "of an intercommunicator ({} and {} processes; {} in use here): free "
                     "communicators that are no longer needed",
                     local.rank(), local.size(), across.size(), e.contexts().in_use());
        })) {
      out->remote_extra = agreed[context_words + 1];
      co_return;
    }
  }
}

}  // namespace rmpl::coll
