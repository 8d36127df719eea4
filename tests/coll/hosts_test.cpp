// Communicators across hosts, on one machine: under RMPL_PRETEND_HOSTS (a host number per rank,
// repeated; runtime/local/job.hpp) the ranks are split among pretended hosts, and a communicator
// whose members span hosts must not use the node's shared areas, while one whose members share a
// host may. Collectives give the same results either way (the coll test programs also run under
// the same settings: tests/CMakeLists.txt, variants hosts_*).
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "api/communicator.hpp"
#include "reference.hpp"

namespace {

using rmpl_test::rank;
using rmpl_test::size;
using rmpl_test::world;

class Hosts : public rmpl_test::collective {};

/// The test's own reading of RMPL_PRETEND_HOSTS: rank r's host (0 for all when unset).
int host_of(int r) {
  const char* text = std::getenv("RMPL_PRETEND_HOSTS");
  std::vector<int> hosts;
  for (const char* at = text; at != nullptr && *at != '\0';) {
    char* end = nullptr;
    hosts.push_back(static_cast<int>(std::strtol(at, &end, 10)));
    at = *end == ',' ? end + 1 : end;
  }
  return hosts.empty() ? 0 : hosts[static_cast<std::size_t>(r) % hosts.size()];
}

bool one_host(const std::vector<int>& members) {
  for (int r : members) {
    if (host_of(r) != host_of(members.front())) return false;
  }
  return true;
}

std::vector<int> all_ranks() {
  std::vector<int> v;
  for (int r = 0; r < size(); ++r) v.push_back(r);
  return v;
}

TEST_F(Hosts, SharedAreasOnlyForCommunicatorsOnOneHost) {
  const auto world_impl = rmpl::detail::world_comm();
  EXPECT_EQ(world_impl->kernel.area >= 0, one_host(all_ranks()))
      << "the world (hosts " << (std::getenv("RMPL_PRETEND_HOSTS") ?: "unset") << ")";
  // Split by host: each part is on one host and gets an area; a split across hosts (by parity of
  // the rank, which mixes hosts under every setting the tests use) gets one only if its members
  // happen to share a host.
  const auto by_host = rmpl::detail::split(*world_impl, host_of(rank()), rank());
  ASSERT_TRUE(by_host);
  EXPECT_GE(by_host->kernel.area, 0) << "a communicator on one host has no area";
  const auto by_parity = rmpl::detail::split(*world_impl, rank() % 2, rank());
  ASSERT_TRUE(by_parity);
  std::vector<int> same_parity;
  for (int r = rank() % 2; r < size(); r += 2) same_parity.push_back(r);
  EXPECT_EQ(by_parity->kernel.area >= 0, one_host(same_parity));
  // A duplicate keeps its parent's answer.
  const auto dup = rmpl::detail::dup(*world_impl);
  ASSERT_TRUE(dup);
  EXPECT_EQ(dup->kernel.area >= 0, one_host(all_ranks()));
}

/// How many hosts the ranks of the job are on.
int hosts_used() {
  std::vector<int> seen;
  for (int r = 0; r < size(); ++r) {
    if (std::find(seen.begin(), seen.end(), host_of(r)) == seen.end()) seen.push_back(host_of(r));
  }
  return static_cast<int>(seen.size());
}

// A communicator that spans hosts with several members on some host is seen at two levels: its
// members on this host (which hold an area) and one leader per host, the first member of each.
TEST_F(Hosts, TwoLevelsWhereHostsHoldSeveralMembers) {
  const auto& k = rmpl::detail::world_comm()->kernel;
  const int hosts = hosts_used();
  const bool two_levels = hosts > 1 && hosts < size();
  ASSERT_EQ(k.hosts != nullptr, two_levels) << hosts << " hosts for " << size() << " ranks";
  if (!two_levels) return;
  const rmpl::core::hierarchy& h = *k.hosts;
  int on_my_host = 0, first = -1;
  for (int r = 0; r < size(); ++r) {
    if (host_of(r) != host_of(rank())) continue;
    if (first < 0) first = r;
    ++on_my_host;
  }
  EXPECT_EQ(h.node->size, on_my_host);
  EXPECT_GE(h.node->area, 0) << "the node communicator has no area";
  EXPECT_EQ(h.leaders != nullptr, first == rank()) << "the first member of each host leads it";
  if (h.leaders != nullptr) {
    EXPECT_EQ(h.leaders->size, hosts);
  }
  // Chosen without forcing for blocking calls: each takes a tag of the node communicator.
  const std::uint32_t before = h.node->collectives_started;
  world().barrier();
  std::vector<double> data(4, rank() == 0 ? 1.5 : 0);
  world().broadcast(data, 0);
  std::vector<double> sum(4, -1);
  world().allreduce(data, sum, rmpl::ops::sum{});
  world().reduce(data, sum, rmpl::ops::sum{}, size() - 1);
  EXPECT_EQ(h.node->collectives_started - before, 4u) << "not every call ran at two levels";
  EXPECT_EQ(sum, std::vector<double>(4, 1.5 * size()));
  // A nonblocking call does not (hierarchical.cpp says why).
  const std::uint32_t blocking = h.node->collectives_started;
  world().iallreduce(data, sum, rmpl::ops::sum{}).wait();
  EXPECT_EQ(h.node->collectives_started, blocking);
}

// Every root, each of the four collectives forced to the hierarchical algorithms (blocking calls;
// coll_noncommutative runs under the same mappings for the operators they do not serve).
TEST_F(Hosts, HierarchicalAlgorithmsEveryRoot) {
  coll_test::forced_algorithm fb("barrier", "hierarchical");
  coll_test::forced_algorithm fc("broadcast", "hierarchical");
  coll_test::forced_algorithm fr("reduce", "hierarchical");
  coll_test::forced_algorithm fa("allreduce", "hierarchical");
  for (int root = 0; root < size() && !HasFailure(); ++root) {
    for (std::size_t n : {std::size_t{0}, std::size_t{3}, std::size_t{5000}}) {
      std::vector<int> data(n, rank() == root ? root + 7 : -1);
      world().broadcast(data, root);
      ASSERT_EQ(data, std::vector<int>(n, root + 7)) << "broadcast from " << root << ", " << n;
      std::vector<long> mine(n, rank() + 1), sum(n, -1);
      world().reduce(mine, sum, rmpl::ops::sum{}, root);
      if (rank() == root) {
        ASSERT_EQ(sum, std::vector<long>(n, size() * (size() + 1L) / 2)) << "reduce to " << root;
      }
      std::vector<long> all(n, -1);
      world().allreduce(mine, all, rmpl::ops::max{});
      ASSERT_EQ(all, std::vector<long>(n, size())) << "allreduce max, " << n;
      world().barrier();
    }
  }
}

TEST_F(Hosts, CollectivesAcrossAndWithinHosts) {
  rmpl::communicator local = world().split(host_of(rank()), rank());
  ASSERT_TRUE(local);
  for (int round = 0; round < 50 && !HasFailure(); ++round) {
    // Across hosts (the world), then within this host, short and long.
    for (std::size_t n : {std::size_t{1}, std::size_t{4000}}) {
      std::vector<double> mine(n, rank() + round), sum(n, -1);
      world().allreduce(mine, sum, rmpl::ops::sum{});
      const double want = size() * (size() - 1) / 2.0 + size() * round;
      ASSERT_EQ(sum, std::vector<double>(n, want)) << "allreduce over the world, round " << round;
      std::vector<double> here(n, 1), count(n, -1);
      local.allreduce(here, count, rmpl::ops::sum{});
      ASSERT_EQ(count, std::vector<double>(n, local.size())) << "allreduce within the host";
      std::vector<int> data(n, rank() == round % size() ? round : -1);
      world().broadcast(data, round % size());
      ASSERT_EQ(data, std::vector<int>(n, round));
    }
    world().barrier();
  }
}

}  // namespace
