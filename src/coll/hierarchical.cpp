// Collectives on a communicator whose members span hosts with several on some host
// (core::hierarchy): each host's part through the node's shared areas (its members' node
// communicator), the hosts' parts over messages between their leaders (the first member of each
// host). Only blocking calls take them (start.cpp): a nested algorithm claims the node
// communicator's tags and shared-area rounds when it starts, and two calls in flight at once could
// start their nested parts in different orders on different members.
#include "coll/algorithms.hpp"
#include "coll/scratch.hpp"
#include "core/communicator.hpp"

namespace rmpl::coll {
namespace {

/// What a host's leader hands on to the other members of its host (or, in a reduce, to the root):
/// `data`, or, once the leader has seen the ranks' counts disagree (in the hosts' messages, which
/// the members of other hosts cannot see), one byte less, or one byte from `spare` when `data` is
/// empty, as the message algorithms pass a disagreement on: every member then reports it.
bytes handed_on(const exchange& x, bool leader, bytes data, scratch& spare) {
  if (!leader || !x.mismatched()) [[likely]]
    return data;
  if (!data.empty()) return data.first(data.size() - 1);
  spare = scratch(1);
  return spare;
}

}  // namespace

task barrier_hierarchical(exchange x, level_tags tags) {
  const core::hierarchy& h = *x.comm().hosts;
  exchange node = x.across(*h.node, tags.node);
  co_await x.run(barrier_shared(node));  // this host's members have arrived
  if (h.leaders != nullptr)
    co_await x.run(barrier_dissemination(x.across(*h.leaders, tags.leaders)));
  co_await x.run(barrier_shared(node));  // and the leader has seen every host arrive
}

task broadcast_hierarchical(exchange x, bytes data, int root, level_tags tags) {
  const core::hierarchy& h = *x.comm().hosts;
  exchange node = x.across(*h.node, tags.node);
  const auto at = [](int r) { return static_cast<std::size_t>(r); };
  const bool roots_host = h.host[at(x.rank())] == h.host[at(root)];
  // The root's host first, from the root: its leader then holds the data too.
  if (roots_host) co_await x.run(broadcast_shared(node, data, h.node_rank[at(root)]));
  if (h.leaders != nullptr) {
    co_await x.run(broadcast_binomial(x.across(*h.leaders, tags.leaders), data, h.host[at(root)]));
  }
  scratch spare;
  if (!roots_host) {
    co_await x.run(broadcast_shared(node, handed_on(x, h.leaders != nullptr, data, spare), 0));
  }
}

task reduce_hierarchical(exchange x, const_bytes in, bytes out, reduction op, int root,
                         level_tags tags) {
  // Commutative operators only (start.cpp): the hosts' partial results combine out of rank order.
  const core::hierarchy& h = *x.comm().hosts;
  exchange node = x.across(*h.node, tags.node);
  const auto at = [](int r) { return static_cast<std::size_t>(r); };
  const int me = x.rank();
  const bool leader = h.leaders != nullptr;
  const bool roots_host = h.host[at(me)] == h.host[at(root)];
  const bool root_leads = h.node_rank[at(root)] == 0;
  // Each host's operands to its leader, then the leaders' to the leader of the root's host: into
  // the root's buffer when the root leads its host, else into a scratch its leader then hands on.
  scratch partial(leader ? in.size() : 0);
  co_await x.run(reduce_shared(node, in, partial, op, 0));
  scratch total(leader && roots_host && me != root ? in.size() : 0);
  if (leader) {
    co_await x.run(reduce_binomial(x.across(*h.leaders, tags.leaders), partial,
                                   me == root ? out : bytes(total), op, h.host[at(root)]));
  }
  if (root_leads) co_return;
  if (leader && roots_host) {
    scratch spare;
    node.send(handed_on(x, true, total, spare), h.node_rank[at(root)]);
    co_await node.all();
  } else if (me == root) {
    node.recv(out.first(in.size()), 0);
    co_await node.all();
  }
}

task allreduce_hierarchical(exchange x, const_bytes in, bytes out, reduction op, level_tags tags) {
  // Commutative operators only, as reduce_hierarchical.
  const core::hierarchy& h = *x.comm().hosts;
  exchange node = x.across(*h.node, tags.node);
  const bytes result = out.first(in.size());
  scratch partial(h.leaders != nullptr ? in.size() : 0);
  co_await x.run(reduce_shared(node, in, partial, op, 0));
  if (h.leaders != nullptr) {
    co_await x.run(
        allreduce_recursive_doubling(x.across(*h.leaders, tags.leaders), partial, result, op));
  }
  scratch spare;
  co_await x.run(broadcast_shared(node, handed_on(x, h.leaders != nullptr, result, spare), 0));
}

}  // namespace rmpl::coll
