// Communicators and groups of the C++ API: the world, dup, split, create, members and compare.
// A new communicator's context pair and collective area slot are agreed on by its parent's members
// with one allreduce of their free masks (core/context_pool.hpp, core/area_pool.hpp); a split gives
// every color the same pair and slot, since the colors' members are disjoint.
#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <span>
#include <tuple>
#include <vector>

#include "api/communicator.hpp"
#include "api/runtime.hpp"
#include "base/error.hpp"
#include "coll/collectives.hpp"
#include "coll/stall.hpp"
#include "core/threads.hpp"

namespace rmpl {
namespace detail {

namespace {
std::vector<int> job_ranks(const comm_impl& c);
}  // namespace

comm_impl::comm_impl(core::communicator k) : kernel(std::move(k)) {
  coll::enroll(kernel);  // its members stalled in a collective may ask this rank's position
}

comm_impl::~comm_impl() {
  core::threads::guard locked;
  coll::unenroll(kernel);
  // The world's and self's pairs and the world's area (0) are never returned; a communicator that
  // outlives its session has nowhere to return them to. No collective of this communicator is in
  // flight here (each keeps it alive), but slower members may still read its area's last round.
  // The live engine, not just initialized(): at exit without finalize the engine is abandoned
  // (api/cxx_api.cpp) before the last communicators go, and they must not reach for it.
  if (kernel.context < 2 * core::context_pool::reserved_pairs || api::live_engine == nullptr)
    return;
  api::kernel().contexts().release(kernel.context);
  coll::communicator_freed(api::kernel(), kernel);
  if (kernel.area >= 0) {
    api::kernel().areas().release(kernel.area, job_ranks(*this), kernel.area_rounds.claimed(),
                                  kernel.short_calls);
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
/// (coll/claim.cpp), and claims them.
claim agree_on_claim(const comm_impl& parent) {
  auto out = std::make_shared<coll::context_claim>();
  core::engine& e = api::kernel();
  // Run to its end here, except in the checked mode (RMPL_CHECK_COLLECTIVES), which always starts
  // a collective and leaves the wait to its caller.
  if (core::request* r =
          coll::start_context_claim(coll::target{e, parent.kernel, nullptr, true}, out)) {
    e.wait(r);
    e.finish(r);
  }
  return {out->context, out->area};
}

/// Gives `k`'s area slot back (every member does, seeing the same members and hosts) when its
/// members span hosts: the node's shared areas serve node-local communicators only.
void keep_area_if_node_local(core::communicator& k) {
  if (k.area < 0) return;
  core::engine& e = api::kernel();
  std::vector<int> members(static_cast<std::size_t>(k.size));
  for (int r = 0; r < k.size; ++r) members[static_cast<std::size_t>(r)] = k.to_world(r);
  if (e.all_on_my_host(members)) return;
  e.areas().release(k.area, std::move(members), 0, 0);
  k.area = -1;
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
  keep_area_if_node_local(k);
  auto made = std::make_shared<comm_impl>(std::move(k));
  add_hierarchy(*made);
  return made;
}

std::vector<int> job_ranks(const comm_impl& c) {
  std::vector<int> out(static_cast<std::size_t>(c.kernel.size));
  for (int r = 0; r < c.kernel.size; ++r) out[static_cast<std::size_t>(r)] = c.kernel.to_world(r);
  return out;
}

}  // namespace

void add_hierarchy(const comm_impl& c) {
  core::engine& e = api::kernel();
  const core::communicator& k = c.kernel;
  const auto n = static_cast<std::size_t>(k.size);
  // Hosts numbered by their first member in rank order: the order the leaders take among
  // themselves (the leaders' split below is by rank), so host i's leader is rank i there.
  std::vector<int> seen;  // job host of each host number
  std::vector<int> host(n), node_rank(n), on_host;
  for (std::size_t r = 0; r < n; ++r) {
    const int job_host = e.host_of(k.to_world(static_cast<int>(r)));
    const auto at = std::find(seen.begin(), seen.end(), job_host);
    const auto i = static_cast<std::size_t>(at - seen.begin());
    if (at == seen.end()) {
      seen.push_back(job_host);
      on_host.push_back(0);
    }
    host[r] = static_cast<int>(i);
    node_rank[r] = on_host[i]++;
  }
  if (seen.size() == 1 || seen.size() == n) return;
  const auto me = static_cast<std::size_t>(k.rank);
  comm_ptr node = split(c, host[me], k.rank);
  comm_ptr leaders = split(c, node_rank[me] == 0 ? 0 : undefined, k.rank);
  // The node communicators hold an area on every member or on none (their slot was agreed over
  // all of `c`): without one, the communicator stays flat.
  if (node->kernel.area < 0) return;
  auto h = std::make_shared<core::hierarchy>();
  h->node = &node->kernel;
  h->leaders = leaders ? &leaders->kernel : nullptr;
  h->host = std::move(host);
  h->node_rank = std::move(node_rank);
  h->owner = std::make_shared<std::pair<comm_ptr, comm_ptr>>(std::move(node), std::move(leaders));
  c.kernel.hosts = std::move(h);
}

comm_ptr world_comm() {
  core::threads::guard locked;
  return api::world();
}

namespace {
/// A new communicator starts with its parent's error policy (as MPI's error handlers do).
comm_ptr inheriting(const comm_impl& parent, comm_ptr made) {
  if (made) made->policy = parent.policy;
  return made;
}
}  // namespace

namespace {
/// `c`'s duplicate on the pair and slot `taken`.
comm_ptr dup_on(const comm_impl& c, const claim& taken) {
  core::communicator k = c.kernel;
  k.context = taken.context;
  k.collectives_started = 0;
  k.area = taken.area;
  keep_area_if_node_local(k);
  k.hosts = nullptr;  // its own, made by dup() (a nonblocking dup goes without)
  k.area_rounds = {};
  k.short_calls = k.short_seen = 0;
  return inheriting(c, std::make_shared<comm_impl>(std::move(k)));
}
}  // namespace

comm_ptr dup(const comm_impl& c) {
  core::threads::guard locked;
  comm_ptr made = dup_on(c, agree_on_claim(c));
  add_hierarchy(*made);
  return made;
}

/// A nonblocking dup in flight: the parent (kept alive by it) and what its members agree on.
struct pending_dup {
  std::shared_ptr<const comm_impl> parent;
  std::shared_ptr<coll::context_claim> claim = std::make_shared<coll::context_claim>();
  // Of an intercommunicator's: its local group's communicator and what that group agrees on for
  // the new one's.
  std::shared_ptr<const comm_impl> local_group;
  std::shared_ptr<coll::context_claim> local_claim;
};

request_id idup(const comm_impl& c, std::shared_ptr<pending_dup>& out) {
  core::threads::guard locked;
  out = std::make_shared<pending_dup>();
  out->parent = c.shared_from_this();
  return coll::start_context_claim(coll::target{api::kernel(), c.kernel, c.shared_from_this()},
                                   out->claim)
      ->id();
}

comm_ptr finish_dup(const pending_dup& d) {
  core::threads::guard locked;
  return dup_on(*d.parent, claim{d.claim->context, d.claim->area});
}

comm_ptr split(const comm_impl& c, int color, int key) {
  core::threads::guard locked;
  if (color < 0 && color != undefined) {
    base::fail(errc::invalid_argument,
               "split on rank {}: color {} is negative (use rmpl::undefined to join no "
               "communicator)",
               c.kernel.rank, color);
  }
  const auto n = static_cast<std::size_t>(c.kernel.size);
  std::vector<int> mine = {color, key}, all(2 * n);
  request_id id =
      iallgather(c, std::as_bytes(std::span(mine)), std::as_writable_bytes(std::span(all)));
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
  return inheriting(c, make(taken, std::move(members)));
}

comm_ptr create(const comm_impl& c, const group& members) {
  core::threads::guard locked;
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
  return inheriting(c, make(taken, std::move(ranks)));
}

comm_ptr create_group(const comm_impl& parent, const group& members, int tag) {
  core::threads::guard locked;
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
  return inheriting(parent, make(agree_on_claim(*among_members), std::move(ranks)));
}

// ---- intercommunicators (the MPI layer's) ----
//
// An intercommunicator's kernel communicator names the remote group: `world` maps remote ranks to
// job ranks and `local` job ranks to remote ranks, while `rank` is this process's rank in its own
// group; so point-to-point on it needs nothing of its own (a destination or source is a remote
// rank, a status reports one). Its context pair must be free on every process of both groups: each
// group ANDs its members' free masks over an intracommunicator of its own, the two groups' leaders
// swap and AND theirs, and each leader broadcasts the result to its group, which then claims the
// lowest pair free in it, as agree_on_claim does within one communicator. A split gives every
// color the same pair, as split does within one communicator.

namespace {

using words = std::vector<std::uint64_t>;
constexpr std::size_t context_words = std::tuple_size_v<core::context_pool::mask>;

/// This process's free masks: the context pairs' words, then the area slots' word.
words free_masks() {
  core::engine& e = api::kernel();
  // Any pair free here may be claimed, and no round follows in which this process could forget
  // the one chosen before the others can use it (coll/stall.hpp).
  coll::forget_freed(e);
  const core::context_pool::mask& contexts = e.contexts().free_mask();
  words out(contexts.begin(), contexts.end());
  out.push_back(e.areas().free_mask());
  return out;
}

/// ANDs `masks` word by word over every member of `c`.
void and_over(const comm_impl& c, words& masks) {
  auto span = std::as_writable_bytes(std::span(masks));
  request_id id = iallreduce(c, span, span, make_reduction<std::uint64_t>(ops::bit_and{}));
  wait(id);
}

void and_into(words& masks, const words& other) {
  for (std::size_t i = 0; i < masks.size(); ++i) masks[i] &= other[i];
}

template <class T>
void broadcast_from(const comm_impl& c, std::vector<T>& data, int root) {
  request_id id = ibroadcast(c, std::as_writable_bytes(std::span(data)), root);
  wait(id);
}

/// Swaps `out` for `in` (the same length on both sides) with job rank `peer` on `context` and
/// `tag`. The receive is posted before the send, so two leaders swapping with each other never
/// wait on each other's sends.
void swap_with(std::uint32_t context, int peer, int tag, std::span<const std::byte> out,
               std::span<std::byte> in, const char* operation) {
  core::engine& e = api::kernel();
  core::request* r = e.start_recv(context, in.data(), in.size(), peer, tag);
  try {
    e.send(context, out.data(), out.size(), peer, tag, send_mode::standard);
  } catch (...) {
    e.cancel(r);
    if (r->done()) e.free_request(r);
    throw;
  }
  e.wait(r);
  const status s = e.finish(r);
  if (s.bytes != in.size()) {
    base::fail(errc::invalid_argument,
               "{} on process {}: the remote leader (process {}) sent {} bytes where {} were "
               "expected (another message with the same tag {}?)",
               operation, e.rank(), peer, s.bytes, in.size(), tag);
  }
}

/// The context pair (and, with `with_area`, the area slot) lowest in `agreed`, claimed here.
claim claim_agreed(const words& agreed, bool with_area, const char* operation) {
  core::engine& e = api::kernel();
  core::context_pool::mask contexts;
  std::copy_n(agreed.begin(), contexts.size(), contexts.begin());
  const auto context = e.contexts().claim_lowest(contexts);
  if (context) coll::context_reclaimed(e, *context);
  if (!context) {
    base::fail(errc::exhausted,
               "{} on process {}: no communicator context is free on every process of both "
               "groups ({} in use here): free communicators that are no longer needed",
               operation, e.rank(), e.contexts().in_use());
  }
  const int area = with_area ? e.areas().claim_lowest(agreed[context_words]).value_or(-1) : -1;
  return {*context, area};
}

/// The intercommunicator to the `remote` group (job ranks in rank order) on `taken`'s context,
/// seen from this process, whose rank in its own group is `rank_here`.
comm_ptr make_inter(claim taken, std::vector<int> remote, int rank_here) {
  core::engine& e = api::kernel();
  core::communicator k =
      core::communicator::of(taken.context, std::move(remote), e.rank(), e.size());
  k.rank = rank_here;
  k.area = -1;  // the MPI layer's collectives on it are point-to-point between the groups
  return std::make_shared<comm_impl>(std::move(k));
}

/// What both groups of `inter` agree on (coll/claim.cpp: a context pair free on every member of
/// both, claimed there, and with `with_area` an area slot), the leaders swapping `extra`; run to
/// its end here (the checked mode leaves the wait to the caller, as in agree_on_claim).
coll::context_claim agree_on_claim_between(const comm_impl& inter, const comm_impl& local_group,
                                           std::uint64_t extra, bool with_area) {
  auto out = std::make_shared<coll::context_claim>();
  core::engine& e = api::kernel();
  if (core::request* r =
          coll::start_context_claim_between(coll::target{e, local_group.kernel, nullptr, true},
                                            inter.kernel, extra, with_area, out, nullptr)) {
    e.wait(r);
    e.finish(r);
  }
  return *out;
}

}  // namespace

comm_ptr intercomm_create(const comm_impl& local_group, int local_leader, const comm_impl* peer,
                          int remote_leader, int tag) {
  core::threads::guard locked;
  core::engine& e = api::kernel();
  const char* operation = "intercomm_create";
  words agreed = free_masks();
  and_over(local_group, agreed);
  // What the leader hands its group: whether it failed, the masks of both groups AND-ed, the size
  // of the remote group; then the remote group's job ranks.
  words header(1 + agreed.size() + 1, 0);
  std::vector<int> remote;
  const bool leader = local_group.kernel.rank == local_leader;
  if (leader) {
    try {
      if (peer == nullptr) {
        base::fail(errc::invalid_argument,
                   "{} on process {}: the local leader has no valid peer "
                   "communicator",
                   operation, e.rank());
      }
      if (remote_leader < 0 || remote_leader >= peer->kernel.size) {
        base::fail(errc::invalid_rank,
                   "{} on process {}: remote leader {} is not a rank of the peer communicator "
                   "(size {})",
                   operation, e.rank(), remote_leader, peer->kernel.size);
      }
      const int peer_job = peer->kernel.to_world(remote_leader);
      if (peer_job == e.rank()) {
        base::fail(errc::invalid_rank,
                   "{} on process {}: remote leader {} of the peer communicator is the local "
                   "leader itself",
                   operation, e.rank(), remote_leader);
      }
      if (tag < 0 || tag > tag_ub) {
        base::fail(errc::invalid_tag, "{} on process {}: tag {} is outside [0, {}]", operation,
                   e.rank(), tag, tag_ub);
      }
      words mine = agreed, theirs(agreed.size() + 1);
      mine.push_back(static_cast<std::uint64_t>(local_group.kernel.size));
      swap_with(peer->kernel.context, peer_job, tag, std::as_bytes(std::span(mine)),
                std::as_writable_bytes(std::span(theirs)), operation);
      remote.resize(static_cast<std::size_t>(theirs.back()));
      const std::vector<int> members = job_ranks(local_group);
      swap_with(peer->kernel.context, peer_job, tag, std::as_bytes(std::span(members)),
                std::as_writable_bytes(std::span(remote)), operation);
      and_into(agreed, theirs);
      std::copy(agreed.begin(), agreed.end(), header.begin() + 1);
      header.back() = remote.size();
    } catch (...) {
      // Tell the group, which would otherwise wait for the leader's broadcast forever.
      header[0] = 1;
      broadcast_from(local_group, header, local_leader);
      throw;
    }
  }
  broadcast_from(local_group, header, local_leader);
  if (header[0] != 0) {
    base::fail(errc::invalid_argument,
               "{} on process {}: the local leader (rank {} of the local communicator) failed to "
               "reach the remote group (its own error says why)",
               operation, e.rank(), local_leader);
  }
  remote.resize(static_cast<std::size_t>(header.back()));
  broadcast_from(local_group, remote, local_leader);
  for (int w : remote) {
    if (w < 0 || w >= e.size() || local_group.kernel.from_world(w) != undefined) {
      base::fail(errc::invalid_argument,
                 "{} on process {}: process {} is in both the local and the remote group (they "
                 "must be disjoint)",
                 operation, e.rank(), w);
    }
  }
  agreed.assign(header.begin() + 1, header.end() - 1);
  return make_inter(claim_agreed(agreed, false, operation), std::move(remote),
                    local_group.kernel.rank);
}

comm_ptr intercomm_dup(const comm_impl& inter, const comm_impl& local_group) {
  core::threads::guard locked;
  const coll::context_claim agreed = agree_on_claim_between(inter, local_group, 0, false);
  return make_inter(claim{agreed.context, -1}, job_ranks(inter), local_group.kernel.rank);
}

request_id intercomm_idup(const comm_impl& inter, const comm_impl& local_group,
                          std::shared_ptr<pending_dup>& out) {
  core::threads::guard locked;
  out = std::make_shared<pending_dup>();
  out->parent = inter.shared_from_this();
  out->local_group = local_group.shared_from_this();
  out->local_claim = std::make_shared<coll::context_claim>();
  // The operation keeps `out`, and with it both communicators it runs on.
  return coll::start_context_claim_between(coll::target{api::kernel(), local_group.kernel, out},
                                           inter.kernel, 0, false, out->claim, out->local_claim)
      ->id();
}

std::pair<comm_ptr, comm_ptr> finish_intercomm_dup(const pending_dup& d) {
  core::threads::guard locked;
  return {make_inter(claim{d.claim->context, -1}, job_ranks(*d.parent), d.local_group->kernel.rank),
          dup_on(*d.local_group, claim{d.local_claim->context, d.local_claim->area})};
}

comm_ptr intercomm_merge(const comm_impl& inter, const comm_impl& local_group, bool high) {
  core::threads::guard locked;
  const coll::context_claim agreed = agree_on_claim_between(inter, local_group, high ? 1 : 0, true);
  const bool remote_high = agreed.remote_extra != 0;
  // The group that passed high = false comes first; when both passed the same, the group of the
  // leader with the lower job rank (an order both groups compute alike).
  const bool local_first =
      high != remote_high ? !high : local_group.kernel.to_world(0) < inter.kernel.to_world(0);
  std::vector<int> members = job_ranks(local_group), remote = job_ranks(inter);
  members.insert(local_first ? members.end() : members.begin(), remote.begin(), remote.end());
  // Every member of both groups took part in the area slot's agreement: the merged communicator
  // may take one too.
  return make(claim{agreed.context, agreed.area}, std::move(members));
}

intercomm_parts intercomm_split(const comm_impl& inter, const comm_impl& local_group, int color,
                                int key) {
  core::threads::guard locked;
  const char* operation = "intercomm_split";
  if (color < 0 && color != undefined) {
    base::fail(errc::invalid_argument,
               "{} on rank {}: color {} is negative (use rmpl::undefined to join no "
               "communicator)",
               operation, local_group.kernel.rank, color);
  }
  // Every member's (color, key), this group's gathered here and the remote group's handed over
  // by the leaders (on the intercommunicator's collective context, which no user message uses,
  // with the tag of its next collective: every member of both groups counts them alike).
  const auto n = static_cast<std::size_t>(local_group.kernel.size);
  const auto remote_n = static_cast<std::size_t>(inter.kernel.size);
  const std::vector<int> mine = {color, key};
  std::vector<int> local_pairs(2 * n), remote_pairs(2 * remote_n);
  request_id id = iallgather(local_group, std::as_bytes(std::span(mine)),
                             std::as_writable_bytes(std::span(local_pairs)));
  wait(id);
  const int tag = inter.kernel.next_collective_tag();
  if (local_group.kernel.rank == 0) {
    swap_with(inter.kernel.collective_context(), inter.kernel.to_world(0), tag,
              std::as_bytes(std::span(local_pairs)),
              std::as_writable_bytes(std::span(remote_pairs)), operation);
  }
  broadcast_from(local_group, remote_pairs, 0);
  // Members of `color` of one side, by (key, rank on that side), as job ranks.
  auto chosen = [&](const std::vector<int>& pairs, const comm_impl& side) {
    std::vector<std::tuple<int, int>> order;
    for (std::size_t r = 0; 2 * r < pairs.size(); ++r) {
      if (color != undefined && pairs[2 * r] == color) {
        order.emplace_back(pairs[2 * r + 1], static_cast<int>(r));
      }
    }
    std::sort(order.begin(), order.end());
    std::vector<int> out;
    for (auto [k, r] : order) out.push_back(side.kernel.to_world(r));
    return out;
  };
  // The new local group first (its claim among this group's members), then the new
  // intercommunicator's context, agreed by both groups with that claim already taken.
  intercomm_parts made;
  made.local_group = make(agree_on_claim(local_group), chosen(local_pairs, local_group));
  const coll::context_claim agreed = agree_on_claim_between(inter, local_group, 0, false);
  const claim taken{agreed.context, -1};
  std::vector<int> remote = chosen(remote_pairs, inter);
  if (!made.local_group || remote.empty()) {
    // Outside every new group, or a color the remote group does not have: MPI_COMM_NULL.
    taken.give_back();
    made.local_group = nullptr;
    return made;
  }
  made.inter = make_inter(taken, std::move(remote), made.local_group->kernel.rank);
  return made;
}

group members(const comm_impl& c) {
  core::threads::guard locked;
  return group(job_ranks(c));
}

relation compare(const comm_impl* a, const comm_impl* b) {
  core::threads::guard locked;
  if (a == b) return relation::identical;
  if (a == nullptr || b == nullptr) return relation::unequal;
  const relation groups = compare(members(*a), members(*b));
  return groups == relation::identical ? relation::congruent : groups;
}

void null_communicator(const char* operation) {
  base::fail(errc::invalid_argument,
             "{} on a null communicator (default-constructed, moved from, freed with free(), or "
             "one that split or create gave to a process outside it)",
             operation);
}

void throw_error(errc code, const std::string& message) {
  const error e(code, message);
  apply_error_policy(nullptr, e);
  throw e;
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
