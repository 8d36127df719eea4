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
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "base/error.hpp"
#include "coll/algorithms.hpp"
#include "coll/collectives.hpp"
#include "core/context_pool.hpp"

namespace rmpl::coll {

task claim_context(exchange x, std::shared_ptr<context_claim> out) {
  core::engine& e = x.engine();
  using context_mask = core::context_pool::mask;
  constexpr std::size_t context_words = std::tuple_size_v<context_mask>;
  const reduction and_op = detail::make_reduction<std::uint64_t>(ops::bit_and{});
  const reduction min_op = detail::make_reduction<std::uint64_t>(ops::min{});
  constexpr std::uint64_t none = ~std::uint64_t{0};
  for (;;) {
    // The free masks: the context pairs' words, then the area slots' word.
    std::array<std::uint64_t, context_words + 1> mine{}, agreed{};
    std::copy_n(e.contexts().free_mask().begin(), context_words, mine.begin());
    mine.back() = e.areas().free_mask();
    co_await x.run(allreduce_recursive_doubling(x, std::as_bytes(std::span(mine)),
                                                std::as_writable_bytes(std::span(agreed)), and_op));
    context_mask agreed_contexts;
    std::copy_n(agreed.begin(), context_words, agreed_contexts.begin());
    const std::optional<std::uint32_t> context = e.contexts().claim_lowest(agreed_contexts);
    const std::optional<int> area = e.areas().claim_lowest(agreed.back());
    const std::uint64_t c = context ? *context : none;
    const std::uint64_t a = area ? static_cast<std::uint64_t>(*area) : none;
    const std::array<std::uint64_t, 4> choice{c, ~c, a, ~a};
    std::array<std::uint64_t, 4> lowest{};
    co_await x.run(allreduce_recursive_doubling(x, std::as_bytes(std::span(choice)),
                                                std::as_writable_bytes(std::span(lowest)), min_op));
    const bool same_context = lowest[0] == ~lowest[1];
    const bool same_area = lowest[2] == ~lowest[3];
    if (!same_context) {
      if (context) e.contexts().release(*context);
      if (area) e.areas().release(*area, {}, 0);
      continue;
    }
    if (!context) {
      if (area) e.areas().release(*area, {}, 0);
      base::fail(errc::exhausted,
                 "rank {}: no communicator context is free on every rank of a communicator of {} "
                 "({} in use here): free communicators that are no longer needed",
                 x.rank(), x.size(), e.contexts().in_use());
    }
    if (!same_area && area) e.areas().release(*area, {}, 0);
    out->context = *context;
    out->area = same_area && area ? *area : -1;
    co_return;
  }
}

}  // namespace rmpl::coll
