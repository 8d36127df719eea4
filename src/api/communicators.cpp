// Communicators and groups of the C++ API: the world, dup, split, create, members and compare.
// A new communicator's context pair and collective area slot are agreed on by its parent's members
// with one allreduce of their free masks (core/context_pool.hpp, core/area_pool.hpp); a split gives
// every color the same pair and slot, since the colors' members are disjoint.
#include <algorithm>
#include <array>
#include <numeric>
#include <tuple>
#include <vector>

#include "api/communicator.hpp"
#include "api/runtime.hpp"
#include "base/error.hpp"

namespace rmpl {
namespace detail {

namespace {
std::vector<int> job_ranks(const comm_impl& c);
}  // namespace

comm_impl::~comm_impl() {
  // The world's and self's pairs and the world's area (0) are never returned; a communicator that
  // outlives its session has nowhere to return them to. No collective of this communicator is in
  // flight here (each keeps it alive), but slower members may still read its area's last round.
  if (kernel.context < 2 * core::context_pool::reserved_pairs || !api::initialized()) return;
  api::kernel().contexts().release(kernel.context);
  if (kernel.area >= 0) {
    api::kernel().areas().release(kernel.area, job_ranks(*this), kernel.area_rounds);
  }
}

namespace {

/// What a new communicator takes on every member: a context pair and, if one is free everywhere, a
/// collective area slot.
struct claim {
  std::uint32_t context;
  int area;
  /// Gives both back (a process that turned out not to be a member).
  void give_back() const {
    api::kernel().contexts().release(context);
    api::kernel().areas().release(area, {}, 0);
  }
};

/// Agrees with every member of `parent` on a context pair and an area slot free on all of them
/// (one allreduce of their free masks), and claims them.
claim agree_on_claim(const comm_impl& parent) {
  core::engine& e = api::kernel();
  const core::context_pool::mask& contexts = e.contexts().free_mask();
  std::array<std::uint64_t, std::tuple_size_v<core::context_pool::mask> + 1> agreed{};
  std::copy(contexts.begin(), contexts.end(), agreed.begin());
  agreed.back() = e.areas().free_mask();
  const reduction and_op = make_reduction<std::uint64_t>(ops::bit_and{});
  auto span = std::as_writable_bytes(std::span(agreed));
  request_id id = iallreduce(parent, span, span, and_op);
  wait(id);
  core::context_pool::mask agreed_contexts;
  std::copy_n(agreed.begin(), agreed_contexts.size(), agreed_contexts.begin());
  const auto context = e.contexts().claim_lowest(agreed_contexts);
  if (!context) {
    base::fail(errc::exhausted,
               "rank {}: no communicator context is free on every rank of a communicator "
               "of {} ({} in use here): free communicators that are no longer needed",
               parent.kernel.rank, parent.kernel.size, e.contexts().in_use());
  }
  return {*context, e.areas().claim_lowest(agreed.back()).value_or(-1)};
}

/// A communicator of `members` (job ranks, in rank order) on `context`, or null if this process
/// is not among them (its claim on the context is then given back).
comm_ptr make(claim taken, std::vector<int> members) {
  core::engine& e = api::kernel();
  const int me = e.rank();
  if (std::find(members.begin(), members.end(), me) == members.end()) {
    taken.give_back();
    return nullptr;
  }
  core::communicator k = core::communicator::of(taken.context, std::move(members), me, e.size());
  k.area = taken.area;
  return std::make_shared<comm_impl>(std::move(k));
}

std::vector<int> job_ranks(const comm_impl& c) {
  std::vector<int> out(static_cast<std::size_t>(c.kernel.size));
  for (int r = 0; r < c.kernel.size; ++r) out[static_cast<std::size_t>(r)] = c.kernel.to_world(r);
  return out;
}

}  // namespace

comm_ptr world_comm() {
  return api::world();
}

comm_ptr dup(const comm_impl& c) {
  const claim taken = agree_on_claim(c);
  core::communicator k = c.kernel;
  k.context = taken.context;
  k.collectives_started = 0;
  k.area = taken.area;
  k.area_rounds = k.area_done = 0;
  return std::make_shared<comm_impl>(std::move(k));
}

comm_ptr split(const comm_impl& c, int color, int key) {
  if (color < 0 && color != undefined) {
    base::fail(errc::invalid_argument,
               "split on rank {}: color {} is negative (use rmpl::undefined to join no "
               "communicator)",
               c.kernel.rank, color);
  }
  const auto n = static_cast<std::size_t>(c.kernel.size);
  std::vector<int> mine = {color, key}, all(2 * n);
  request_id id = iallgather(c, std::as_bytes(std::span(mine)), std::as_writable_bytes(std::span(all)));
  wait(id);
  const claim taken = agree_on_claim(c);
  if (color == undefined) {
    taken.give_back();
    return nullptr;
  }
  // Members of this color, by (key, rank in the parent).
  std::vector<std::tuple<int, int>> chosen;
  for (std::size_t r = 0; r < n; ++r) {
    if (all[2 * r] == color) chosen.emplace_back(all[2 * r + 1], static_cast<int>(r));
  }
  std::sort(chosen.begin(), chosen.end());
  std::vector<int> members;
  for (auto [k, r] : chosen) members.push_back(c.kernel.to_world(r));
  return make(taken, std::move(members));
}

comm_ptr create(const comm_impl& c, const group& members) {
  for (int w : members.world_ranks()) {
    if (w < 0 || w >= api::kernel().size() || c.kernel.from_world(w) == undefined) {
      base::fail(errc::invalid_rank,
                 "create on rank {}: process {} of the group is not a member of the "
                 "communicator (size {})",
                 c.kernel.rank, w, c.kernel.size);
    }
  }
  const claim taken = agree_on_claim(c);
  std::vector<int> ranks(members.world_ranks().begin(), members.world_ranks().end());
  return make(taken, std::move(ranks));
}

comm_ptr create_group(const comm_impl& parent, const group& members, int tag) {
  const int me = api::kernel().rank();
  for (int w : members.world_ranks()) {
    if (w < 0 || w >= api::kernel().size() || parent.kernel.from_world(w) == undefined) {
      base::fail(errc::invalid_rank,
                 "create_group on rank {}: process {} of the group is not a member of the "
                 "communicator (size {})",
                 parent.kernel.rank, w, parent.kernel.size);
    }
  }
  if (!members.contains(me)) return nullptr;
  if (tag < 0 || tag > tag_ub) {
    base::fail(errc::invalid_tag, "create_group on rank {}: tag {} is outside [0, {}]",
               parent.kernel.rank, tag, tag_ub);
  }
  // Only the group's members take part, so the agreement cannot run over the parent (its other
  // members would have to join) nor on the parent's contexts (its own collectives count their tags
  // from 0 on the same members). It runs on the collective context of the self pair instead, which
  // carries no message between two processes otherwise: a communicator of one member sends
  // nothing to another process, and collectives receive from named ranks only, never from any
  // source. Its tag is the caller's, which keeps concurrent creations on overlapping groups apart
  // (MPI requires them to pass different tags); no collective area, so it runs point-to-point.
  std::vector<int> ranks(members.world_ranks().begin(), members.world_ranks().end());
  core::communicator agreement =
      core::communicator::of(core::context_pool::self_context, ranks, me, api::kernel().size());
  agreement.collectives_started = static_cast<std::uint32_t>(tag);
  agreement.area = -1;
  const auto among_members = std::make_shared<comm_impl>(std::move(agreement));
  return make(agree_on_claim(*among_members), std::move(ranks));
}

group members(const comm_impl& c) {
  return group(job_ranks(c));
}

relation compare(const comm_impl* a, const comm_impl* b) {
  if (a == b) return relation::identical;
  if (a == nullptr || b == nullptr) return relation::unequal;
  const relation groups = compare(members(*a), members(*b));
  return groups == relation::identical ? relation::congruent : groups;
}

void null_communicator(const char* operation) {
  base::fail(errc::invalid_argument, "{} on a null communicator (one that split or create "
             "gave to a process outside it, or one already freed)", operation);
}

void throw_error(errc code, const std::string& message) {
  throw error(code, message);
}

}  // namespace detail

communicator::communicator(detail::comm_ptr impl) : impl_(std::move(impl)) {
  if (impl_) {
    rank_ = impl_->kernel.rank;
    size_ = impl_->kernel.size;
  }
}

communicator session::world() const {
  return communicator(detail::world_comm());
}

}  // namespace rmpl
