// Communicators and groups: dup, split, create, members, compare, free; the group algebra; context
// ids (reused after free, agreed by disjoint groups creating communicators at the same time); and
// the errors bad input must give.
#include <algorithm>
#include <chrono>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "reference.hpp"

namespace {

using coll_test::expect_error;
using rmpl_test::rank;
using rmpl_test::size;
using rmpl_test::world;

class Dup : public rmpl_test::collective {};
class Split : public rmpl_test::collective {};
class Create : public rmpl_test::collective {};
class Groups : public rmpl_test::collective {};
class Compare : public rmpl_test::collective {};
class Free : public rmpl_test::collective {};
class ContextIds : public rmpl_test::collective {};
class CommErrors : public rmpl_test::collective {};

int next_in(const rmpl::communicator& c) {
  return (c.rank() + 1) % c.size();
}
int prev_in(const rmpl::communicator& c) {
  return (c.rank() + c.size() - 1) % c.size();
}

std::vector<int> iota_ranks(int n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

std::vector<int> world_ranks_of(const rmpl::group& g) {
  return {g.world_ranks().begin(), g.world_ranks().end()};
}

/// Every rank sends `value` to the next rank of `c` on `tag`; returns what came from the previous
/// one (any_source: a message from a rank outside `c` would show up), checking its source. The tag
/// is named: a rank that has moved on to its next exchange on `c` may already have sent it.
std::int64_t ring_exchange(const rmpl::communicator& c, std::int64_t value, int tag) {
  rmpl::request send = c.isend(std::span(&value, 1), next_in(c), tag);
  std::int64_t got = -1;
  rmpl::status st = c.recv(std::span(&got, 1), rmpl::any_source, tag);
  send.wait();
  EXPECT_EQ(st.source, prev_in(c));
  EXPECT_EQ(st.tag, tag);
  return got;
}

/// A sum over `c` by point-to-point only (to the first rank and back), so that communicator tests
/// do not depend on the collectives being right.
std::int64_t p2p_sum(const rmpl::communicator& c, std::int64_t value, int tag) {
  if (c.rank() == 0) {
    std::int64_t total = value;
    for (int r = 1; r < c.size(); ++r) total += c.recv_value<std::int64_t>(r, tag);
    for (int r = 1; r < c.size(); ++r) c.send_value(total, r, tag);
    return total;
  }
  c.send_value(value, 0, tag);
  return c.recv_value<std::int64_t>(0, tag);
}

// ---- members and world ----

TEST_F(Groups, WorldMembersAreTheJobInOrder) {
  rmpl::group all = world().members();
  EXPECT_EQ(all.size(), size());
  EXPECT_EQ(all.rank(), rank());
  EXPECT_EQ(world_ranks_of(all), iota_ranks(size()));
  for (int r = 0; r < size(); ++r) EXPECT_EQ(all.world_rank(r), r);
  EXPECT_TRUE(all.contains(rank()));
  EXPECT_FALSE(all.contains(size()));
  EXPECT_EQ(all.rank_of_world(size()), rmpl::undefined);
}

// ---- dup ----

// A message sent on the parent is never taken by a wildcard receive posted earlier on the dup (and
// the other way round), even with the same tag and peer.
TEST_F(Dup, TrafficNeverCrossesToTheParent) {
  auto parent = world();
  rmpl::communicator copy = parent.dup();
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy.rank(), parent.rank());
  EXPECT_EQ(copy.size(), parent.size());
  EXPECT_EQ(world_ranks_of(copy.members()), world_ranks_of(parent.members()));

  const int tag = 5;
  std::int64_t on_copy = -1, on_parent = -1;
  // Posted before anything is sent: if the contexts were confused, the parent's message would match
  // this receive, which was posted first.
  rmpl::request copy_receive = copy.irecv(std::span(&on_copy, 1), rmpl::any_source, rmpl::any_tag);
  std::int64_t parent_value = 1000 + rank(), copy_value = 2000 + rank();
  rmpl::request parent_send = parent.isend(std::span(&parent_value, 1), next_in(parent), tag);
  rmpl_test::barrier();  // every parent message is on its way before the dup's are sent
  // A receive that takes the parent's message would hang the parent's receive below: receive with a
  // deadline instead.
  std::int64_t early = -1;
  rmpl::request parent_receive =
      parent.irecv(std::span(&on_parent, 1), rmpl::any_source, rmpl::any_tag);
  std::optional<rmpl::status> parent_status = coll_test::wait_for(parent_receive, 20);
  std::optional<rmpl::status> copy_early = copy_receive.test();
  EXPECT_FALSE(copy_early.has_value())
      << "the dup's wildcard receive completed before anything was sent on the dup";
  if (copy_early) early = on_copy;
  rmpl_test::barrier();  // every rank has looked before any dup message is sent
  rmpl::request copy_send = copy.isend(std::span(&copy_value, 1), next_in(copy), tag);
  std::optional<rmpl::status> copy_status = copy_early;
  if (!copy_status) copy_status = coll_test::wait_for(copy_receive, 20);
  if (!parent_status) {
    ADD_FAILURE() << "the parent's message never arrived on the parent";
    parent_receive.cancel();
    parent_receive.wait();
  }
  if (!copy_status) {
    ADD_FAILURE() << "the dup's message never arrived on the dup";
    copy_receive.cancel();
    copy_receive.wait();
  }
  (void)early;
  parent_send.wait();
  copy_send.wait();
  EXPECT_EQ(on_copy, 2000 + prev_in(copy)) << "the dup received the parent's message";
  EXPECT_EQ(on_parent, 1000 + prev_in(parent)) << "the parent received the dup's message";
  if (copy_status) {
    EXPECT_EQ(copy_status->tag, tag);
  }
  if (parent_status) {
    EXPECT_EQ(parent_status->source, prev_in(parent));
  }
  if (HasFailure()) return;

  // Probes see only their own communicator's messages.
  parent_send = parent.isend(std::span(&parent_value, 1), next_in(parent), tag);
  rmpl::status probed = parent.probe(rmpl::any_source, rmpl::any_tag);
  EXPECT_EQ(probed.source, prev_in(parent));
  EXPECT_FALSE(copy.iprobe(rmpl::any_source, rmpl::any_tag).has_value())
      << "a probe on the dup saw the parent's message";
  parent.recv(std::span(&on_parent, 1), probed.source, probed.tag);
  parent_send.wait();
}

// A dup of a dup, and several dups of one parent, are all distinct message spaces.
TEST_F(Dup, ManyDupsAreAllDistinct) {
  std::vector<rmpl::communicator> comms{world()};
  comms.push_back(world().dup());
  comms.push_back(comms.back().dup());
  comms.push_back(world().dup());
  comms.push_back(comms[2].dup());
  // Send on every communicator first (same tag everywhere), then receive in reverse order with
  // wildcards: each receive must get its own communicator's message.
  std::vector<std::int64_t> values(comms.size()), got(comms.size(), -1);
  std::vector<rmpl::request> sends;
  for (std::size_t c = 0; c < comms.size(); ++c) {
    values[c] = static_cast<std::int64_t>(c) * 100 + rank();
    sends.push_back(comms[c].isend(std::span(&values[c], 1), next_in(comms[c]), 9));
  }
  for (std::size_t c = comms.size(); c-- > 0;) {
    comms[c].recv(std::span(&got[c], 1), rmpl::any_source, rmpl::any_tag);
    EXPECT_EQ(got[c], static_cast<std::int64_t>(c) * 100 + prev_in(comms[c]))
        << "communicator " << c << " received another communicator's message";
  }
  rmpl::wait_all(sends);
}

// ---- split ----

// Colors group the ranks; within a color the new ranks follow the key, then the old rank.
TEST_F(Split, ByColorOrderedByKeyThenOldRank) {
  auto w = world();
  for (int colors : {1, 2, 3}) {
    SCOPED_TRACE(::testing::Message() << colors << " colors");
    // key: descending old rank in color 0, ties (rank / 2) elsewhere so the old rank breaks them.
    const int color = rank() % colors;
    auto key_of = [&](int r) { return r % colors == 0 ? -r : r / 2; };
    rmpl::communicator part = w.split(color, key_of(rank()));
    ASSERT_TRUE(part);
    std::vector<int> expected;
    for (int r = 0; r < size(); ++r) {
      if (r % colors == color) expected.push_back(r);
    }
    std::stable_sort(expected.begin(), expected.end(),
                     [&](int a, int b) { return key_of(a) < key_of(b); });
    EXPECT_EQ(part.size(), static_cast<int>(expected.size()));
    EXPECT_EQ(world_ranks_of(part.members()), expected);
    auto me = std::find(expected.begin(), expected.end(), rank());
    EXPECT_EQ(part.rank(), static_cast<int>(me - expected.begin()));
    EXPECT_EQ(part.members().rank(), part.rank());

    // The new communicator works, and only among its members.
    std::int64_t got = ring_exchange(part, rank(), 3);
    int prev_world = expected[static_cast<std::size_t>(prev_in(part))];
    EXPECT_EQ(got, prev_world);
    std::int64_t sum = p2p_sum(part, rank(), 4);
    EXPECT_EQ(sum, std::accumulate(expected.begin(), expected.end(), std::int64_t{0}));
  }
}

// rmpl::undefined as a color gives a null communicator; the others still get theirs.
TEST_F(Split, UndefinedColorGivesANullCommunicator) {
  auto w = world();
  const bool left_out = rank() % 3 == 1;
  rmpl::communicator part = w.split(left_out ? rmpl::undefined : 7, 0);
  if (left_out) {
    EXPECT_FALSE(part);
    EXPECT_EQ(part.rank(), rmpl::undefined);
    EXPECT_EQ(part.size(), 0);
  } else {
    ASSERT_TRUE(part);
    std::vector<int> expected;
    for (int r = 0; r < size(); ++r) {
      if (r % 3 != 1) expected.push_back(r);
    }
    EXPECT_EQ(world_ranks_of(part.members()), expected);
    EXPECT_EQ(p2p_sum(part, 1, 6), static_cast<std::int64_t>(expected.size()));
  }
  // Everyone undefined: everyone null.
  rmpl::communicator none = w.split(rmpl::undefined, rank());
  EXPECT_FALSE(none);
}

// A split of a split (ranks renumbered twice) and of a reordered communicator.
TEST_F(Split, OfASplit) {
  auto w = world();
  rmpl::communicator reversed = w.split(0, size() - rank());
  ASSERT_TRUE(reversed);
  EXPECT_EQ(reversed.rank(), size() - 1 - rank());
  rmpl::communicator halves = reversed.split(reversed.rank() % 2, reversed.rank());
  ASSERT_TRUE(halves);
  std::vector<int> expected;
  for (int r = reversed.rank() % 2; r < size(); r += 2) expected.push_back(size() - 1 - r);
  EXPECT_EQ(world_ranks_of(halves.members()), expected);
  EXPECT_EQ(ring_exchange(halves, rank(), 8), expected[static_cast<std::size_t>(prev_in(halves))]);
}

// ---- create ----

// The members of the group get a communicator ranked in the group's order; the others get null.
TEST_F(Create, FromAGroupInItsOrder) {
  auto w = world();
  rmpl::group all = w.members();
  // The even ranks, in reverse order.
  std::vector<int> evens;
  for (int r = 0; r < size(); r += 2) evens.insert(evens.begin(), r);
  rmpl::group g = all.include(evens);
  rmpl::communicator c = w.create(g);
  if (rank() % 2 == 0) {
    ASSERT_TRUE(c);
    EXPECT_EQ(c.size(), static_cast<int>(evens.size()));
    EXPECT_EQ(c.rank(), g.rank());
    EXPECT_EQ(world_ranks_of(c.members()), evens);
    EXPECT_EQ(ring_exchange(c, rank(), 2), evens[static_cast<std::size_t>(prev_in(c))]);
  } else {
    EXPECT_FALSE(c);
    EXPECT_EQ(g.rank(), rmpl::undefined);
  }
  // The whole group: a communicator congruent with the parent.
  rmpl::communicator whole = w.create(all);
  ASSERT_TRUE(whole);
  EXPECT_EQ(compare(whole, w), rmpl::relation::congruent);
  // The empty group: null everywhere.
  rmpl::communicator empty = w.create(rmpl::group{});
  EXPECT_FALSE(empty);
}

// create on a communicator that is not the world: the group names job ranks, the new ranks follow
// the group's order.
TEST_F(Create, FromASubCommunicator) {
  auto w = world();
  rmpl::communicator reversed = w.split(0, -rank());
  rmpl::group g = reversed.members().exclude({0});  // every rank but the last job rank
  rmpl::communicator c = reversed.create(g);
  if (rank() == size() - 1) {
    EXPECT_FALSE(c);
  } else {
    ASSERT_TRUE(c);
    EXPECT_EQ(c.rank(), size() - 2 - rank());
    EXPECT_EQ(p2p_sum(c, rank(), 3), static_cast<std::int64_t>(size() - 1) * (size() - 2) / 2);
  }
}

// ---- group algebra ----

TEST_F(Groups, IncludeExcludeAndSetOperations) {
  const int n = size();
  rmpl::group all = world().members();
  std::vector<int> odd_ranks, even_ranks, reversed;
  for (int r = 0; r < n; ++r) (r % 2 ? odd_ranks : even_ranks).push_back(r);
  for (int r = n - 1; r >= 0; --r) reversed.push_back(r);
  rmpl::group odd = all.include(odd_ranks), even = all.exclude(odd_ranks);
  rmpl::group backwards = all.include(reversed);

  EXPECT_EQ(world_ranks_of(odd), odd_ranks);
  EXPECT_EQ(world_ranks_of(even), even_ranks);
  EXPECT_EQ(world_ranks_of(backwards), reversed);
  EXPECT_EQ(backwards.rank(), n - 1 - rank());
  EXPECT_EQ(odd.rank(), rank() % 2 ? rank() / 2 : rmpl::undefined);
  EXPECT_EQ(all.include(std::vector<int>{}).size(), 0);
  EXPECT_EQ(all.exclude(iota_ranks(n)).size(), 0);
  // include of include: ranks of the intermediate group.
  if (n >= 3) {
    EXPECT_EQ(world_ranks_of(backwards.include({0, 2})), (std::vector<int>{n - 1, n - 3}));
    EXPECT_EQ(world_ranks_of(backwards.exclude({0, 2})).size(), static_cast<std::size_t>(n - 2));
  }

  // union: a's members, then b's that are not in a, in b's order.
  rmpl::group u = set_union(odd, backwards);
  std::vector<int> expected_union = odd_ranks;
  for (int r : reversed) {
    if (r % 2 == 0) expected_union.push_back(r);
  }
  EXPECT_EQ(world_ranks_of(u), expected_union);
  EXPECT_EQ(world_ranks_of(set_union(all, all)), iota_ranks(n));
  EXPECT_EQ(set_union(rmpl::group{}, odd), odd);

  // intersection and difference keep a's order.
  std::vector<int> odd_backwards;
  for (int r : reversed) {
    if (r % 2) odd_backwards.push_back(r);
  }
  EXPECT_EQ(world_ranks_of(set_intersection(backwards, odd)), odd_backwards);
  EXPECT_EQ(world_ranks_of(set_intersection(odd, backwards)), odd_ranks);
  EXPECT_EQ(set_intersection(odd, even).size(), 0);
  std::vector<int> even_backwards;
  for (int r : reversed) {
    if (r % 2 == 0) even_backwards.push_back(r);
  }
  EXPECT_EQ(world_ranks_of(set_difference(backwards, odd)), even_backwards);
  EXPECT_EQ(set_difference(all, all).size(), 0);
  EXPECT_EQ(set_difference(odd, even), odd);
}

TEST_F(Groups, TranslateRanks) {
  const int n = size();
  rmpl::group all = world().members();
  std::vector<int> reversed;
  for (int r = n - 1; r >= 0; --r) reversed.push_back(r);
  rmpl::group backwards = all.include(reversed);
  std::vector<int> evens;
  for (int r = 0; r < n; r += 2) evens.push_back(r);
  rmpl::group even = all.include(evens);

  std::vector<int> to_all = translate_ranks(backwards, iota_ranks(n), all);
  EXPECT_EQ(to_all, reversed);
  // Into a subgroup: the members that are absent translate to undefined.
  std::vector<int> to_even = translate_ranks(all, iota_ranks(n), even);
  for (int r = 0; r < n; ++r) {
    EXPECT_EQ(to_even[static_cast<std::size_t>(r)], r % 2 == 0 ? r / 2 : rmpl::undefined) << r;
  }
  EXPECT_TRUE(translate_ranks(all, std::vector<int>{}, even).empty());
}

TEST_F(Groups, Compare) {
  const int n = size();
  rmpl::group all = world().members();
  std::vector<int> reversed;
  for (int r = n - 1; r >= 0; --r) reversed.push_back(r);
  EXPECT_EQ(compare(all, world().members()), rmpl::relation::identical);
  EXPECT_EQ(compare(all, all.include(iota_ranks(n))), rmpl::relation::identical);
  EXPECT_EQ(compare(all, all.include(reversed)),
            n > 1 ? rmpl::relation::similar : rmpl::relation::identical);
  if (n > 1) {
    EXPECT_EQ(compare(all, all.exclude({0})), rmpl::relation::unequal);
    EXPECT_EQ(compare(all.include({0}), all.include({n - 1})), rmpl::relation::unequal);
  }
  EXPECT_EQ(compare(rmpl::group{}, rmpl::group{}), rmpl::relation::identical);
}

// ---- compare communicators ----

TEST_F(Compare, IdenticalCongruentSimilarUnequal) {
  auto w = world();
  rmpl::communicator copy = w;  // a handle: the same communicator
  EXPECT_EQ(compare(copy, w), rmpl::relation::identical);
  rmpl::communicator d = w.dup();
  EXPECT_EQ(compare(d, w), rmpl::relation::congruent);
  EXPECT_EQ(compare(d, d), rmpl::relation::identical);
  rmpl::communicator same_order = w.split(0, 0);
  EXPECT_EQ(compare(same_order, w), rmpl::relation::congruent);
  rmpl::communicator reversed = w.split(0, -rank());
  EXPECT_EQ(compare(reversed, w), size() > 1 ? rmpl::relation::similar : rmpl::relation::congruent);
  if (size() > 1) {
    rmpl::communicator part = w.split(rank() == 0 ? 0 : 1, 0);
    EXPECT_EQ(compare(part, w), rmpl::relation::unequal);
  }
}

// ---- free ----

TEST_F(Free, MakesTheHandleNullAndKeepsCopiesWorking) {
  rmpl::communicator d = world().dup();
  rmpl::communicator copy = d;
  d.free();
  EXPECT_FALSE(d);
  EXPECT_EQ(d.rank(), rmpl::undefined);
  EXPECT_EQ(d.size(), 0);
  ASSERT_TRUE(copy) << "free() of one handle nulled another";
  EXPECT_EQ(ring_exchange(copy, rank() + 40, 1), prev_in(copy) + 40);
  copy.free();
  EXPECT_FALSE(copy);
  d.free();  // freeing a null handle is harmless
}

// ---- context ids ----

// Context ids are reused: thousands of dup + free cycles must not run out. Every dup is used once,
// so a reused id that still had traffic queued would show up as a wrong value.
TEST_F(ContextIds, ThousandsOfDupFreeCycles) {
  const long cycles = rmpl_test::env_long("RMPL_TEST_DUPS", 3000);
  auto w = world();
  for (long i = 0; i < cycles; ++i) {
    rmpl::communicator d = w.dup();
    ASSERT_TRUE(d) << "cycle " << i;
    if (i % 100 == 0) {
      ASSERT_EQ(ring_exchange(d, i * 10 + rank(), 0), i * 10 + prev_in(d)) << "cycle " << i;
    }
    d.free();
  }
  // Splits and creates draw from the same pool.
  for (long i = 0; i < cycles / 10; ++i) {
    rmpl::communicator s = w.split(rank() % 2, 0);
    rmpl::communicator c = w.create(w.members().include({0}));
    ASSERT_TRUE(s) << "cycle " << i;
    ASSERT_EQ(static_cast<bool>(c), rank() == 0) << "cycle " << i;
  }
}

// Many communicators alive at once, each with a message in flight, received in reverse order.
TEST_F(ContextIds, HundredsAliveAtOnce) {
  const int count = 200;
  std::vector<rmpl::communicator> comms;
  for (int i = 0; i < count; ++i) comms.push_back(i % 2 ? comms.back().dup() : world().dup());
  std::vector<std::int64_t> values(count), got(count, -1);
  std::vector<rmpl::request> sends;
  for (int i = 0; i < count; ++i) {
    values[static_cast<std::size_t>(i)] = i * 1000 + rank();
    sends.push_back(comms[static_cast<std::size_t>(i)].isend(
        std::span(&values[static_cast<std::size_t>(i)], 1), next_in(world()), 1));
  }
  for (int i = count; i-- > 0;) {
    comms[static_cast<std::size_t>(i)].recv(std::span(&got[static_cast<std::size_t>(i)], 1));
    EXPECT_EQ(got[static_cast<std::size_t>(i)], i * 1000 + prev_in(world()))
        << "communicator " << i;
  }
  rmpl::wait_all(sends);
}

// Holding communicators until no context is left gives a clear error on every rank at the same
// dup (the free masks are the same everywhere); freeing them makes dup work again.
TEST_F(ContextIds, ExhaustionIsReportedAndRecoverable) {
  auto w = world();
  std::vector<rmpl::communicator> held;
  std::string message;
  for (int i = 0; i < 10000 && message.empty(); ++i) {
    try {
      held.push_back(w.dup());
    } catch (const rmpl::error& e) {
      message = e.what();
      // Not errc::internal (that code means a bug in rmpl): running out is the user's doing.
      EXPECT_NE(e.code(), rmpl::errc::internal) << e.what();
    }
  }
  ASSERT_FALSE(message.empty()) << "10000 communicators held at once and no error";
  EXPECT_NE(coll_test::lowercase(message).find("context"), std::string::npos) << message;
  std::int64_t count = static_cast<std::int64_t>(held.size());
  EXPECT_EQ(p2p_sum(w, count, 5), count * size()) << "the ranks ran out at different dups";
  // The last one still works; then all are freed and dup works again.
  EXPECT_EQ(ring_exchange(held.back(), rank(), 1), prev_in(w));
  held.clear();
  rmpl::communicator again = w.dup();
  ASSERT_TRUE(again);
  EXPECT_EQ(ring_exchange(again, rank() + 1, 2), prev_in(w) + 1);
}

// Disjoint groups create communicators at the same time, different numbers of them, with no central
// server; then a communicator over everyone must still be distinct from every one of them: a
// wildcard receive on a half's communicator must never take the new world communicator's traffic.
TEST_F(ContextIds, DisjointGroupsAgreeWithoutConflict) {
  auto w = world();
  rmpl::communicator half = w.split(rank() % 2, rank());
  std::vector<rmpl::communicator> half_dups;
  const int dups = rank() % 2 ? 5 : 2;  // the halves draw different numbers of ids
  for (int i = 0; i < dups; ++i) half_dups.push_back(half.dup());
  rmpl::communicator everyone = w.dup();

  std::vector<std::int64_t> half_got(half_dups.size(), -1);
  std::vector<rmpl::request> half_receives;
  for (std::size_t i = 0; i < half_dups.size(); ++i) {
    half_receives.push_back(
        half_dups[i].irecv(std::span(&half_got[i], 1), rmpl::any_source, rmpl::any_tag));
  }
  // Traffic on the everyone communicator to a rank of the same half, with the tag the halves use.
  std::int64_t value = 7000 + rank(), got = -1;
  int to = (rank() + 2) % size(), from = (rank() - 2 + 2 * size()) % size();
  rmpl::request send = everyone.isend(std::span(&value, 1), to, 0);
  rmpl::request receive = everyone.irecv(std::span(&got, 1), from, 0);
  bool received = coll_test::wait_or_fail(receive, 20, "the message on the everyone communicator");
  send.wait();
  if (received) {
    EXPECT_EQ(got, 7000 + from);
  }
  for (std::size_t i = 0; i < half_receives.size(); ++i) {
    if (half_receives[i].test()) {
      ADD_FAILURE() << "a wildcard receive on half communicator " << i
                    << " took another communicator's message";
      half_receives[i] = rmpl::request();
    }
  }
  if (HasFailure()) {
    for (rmpl::request& r : half_receives) {
      if (r.active()) r.cancel();
    }
    rmpl::wait_all(half_receives);
    return;
  }
  rmpl_test::barrier();  // every rank has looked before the halves' own traffic starts
  // Now the halves' own traffic.
  std::vector<std::int64_t> half_values(half_dups.size());
  std::vector<rmpl::request> half_sends;
  for (std::size_t i = 0; i < half_dups.size(); ++i) {
    half_values[i] = static_cast<std::int64_t>(i) * 10 + rank();
    half_sends.push_back(half_dups[i].isend(std::span(&half_values[i], 1), next_in(half), 0));
  }
  rmpl::wait_all(half_receives);
  rmpl::wait_all(half_sends);
  for (std::size_t i = 0; i < half_dups.size(); ++i) {
    int prev_world = half.members().world_rank(prev_in(half));
    EXPECT_EQ(half_got[i], static_cast<std::int64_t>(i) * 10 + prev_world) << "half dup " << i;
  }
}

// ---- errors ----

TEST_F(CommErrors, GroupsRejectBadRanksAndDuplicates) {
  rmpl::group all = world().members();
  const int n = size();
  expect_error(
      [&] {
        (void)all.include({0, n});
      },
      rmpl::errc::invalid_rank, {"include", std::to_string(n)}, "include of rank size()");
  expect_error([&] { (void)all.include({-1}); }, rmpl::errc::invalid_rank, {"include", "-1"},
               "include of rank -1");
  expect_error([&] { (void)all.exclude({n + 3}); }, rmpl::errc::invalid_rank,
               {"exclude", std::to_string(n + 3)}, "exclude of rank size() + 3");
  expect_error(
      [&] {
        (void)all.include({0, 0});
      },
      rmpl::errc::invalid_argument, {"twice"}, "include of one rank twice");
  expect_error([&] { (void)all.world_rank(n); }, rmpl::errc::invalid_rank, {std::to_string(n)},
               "world_rank(size())");
  expect_error([&] { (void)translate_ranks(all, std::vector<int>{n + 5}, all); },
               rmpl::errc::invalid_rank, {std::to_string(n + 5)}, "translate_ranks of a bad rank");
}

// Every rank passes the same bad argument, so every rank can report it without waiting for the
// others; the communicator still works afterwards.
TEST_F(CommErrors, BadSplitAndCreateArguments) {
  auto w = world();
  expect_error([&] { (void)w.split(-5, 0); }, rmpl::errc::invalid_argument, {"color", "-5"},
               "split with a negative color");
  // A group with a process outside the communicator.
  rmpl::communicator single = w.split(rank(), 0);  // each rank alone
  rmpl::group beyond = size() > 1 ? w.members().include({(rank() + 1) % size()}) : rmpl::group{};
  if (size() > 1) {
    expect_error([&] { (void)single.create(beyond); },
                 {rmpl::errc::invalid_argument, rmpl::errc::invalid_rank}, {},
                 "create from a group with a process outside the communicator");
  }
  EXPECT_EQ(p2p_sum(w, 1, 2), size()) << "the world communicator no longer works after the errors";
}

// A null communicator (from split or create, or freed) refuses every operation with a clear error.
TEST_F(CommErrors, NullCommunicatorRefusesOperations) {
  rmpl::communicator null;
  int value = 0;
  expect_error([&] { null.send(std::span(&value, 1), 0, 0); }, rmpl::errc::invalid_argument,
               {"null"}, "send on a null communicator");
  expect_error([&] { null.barrier(); }, rmpl::errc::invalid_argument, {"null"},
               "barrier on a null communicator");
  expect_error([&] { (void)null.dup(); }, rmpl::errc::invalid_argument, {"null"},
               "dup of a null communicator");
  rmpl::communicator freed = world().dup();
  freed.free();
  expect_error([&] { freed.allreduce(std::span(&value, 1), rmpl::ops::sum{}); },
               rmpl::errc::invalid_argument, {"null"}, "allreduce on a freed communicator");
}

}  // namespace

// ---- collective areas (the shared-memory path) ----

class SharedAreas : public rmpl_test::collective {
 protected:
  void SetUp() override {
    for (const char* c : {"barrier", "allreduce", "broadcast"}) {
      rmpl::coll::force_algorithm(c, "shared");
    }
  }
  void TearDown() override {
    for (const char* c : {"barrier", "allreduce", "broadcast"}) {
      rmpl::coll::force_algorithm(c, "auto");
    }
  }
};

/// Sum over the ranks of c of (base + world rank), computed by an allreduce of `count` elements.
void expect_allreduce(const rmpl::communicator& c, std::int64_t base, std::size_t count,
                      const std::string& what) {
  std::vector<std::int64_t> in(count), out(count, -1);
  for (std::size_t k = 0; k < count; ++k) in[k] = base + c.rank() + static_cast<std::int64_t>(k);
  c.allreduce(in, out, rmpl::ops::sum{});
  const std::int64_t n = c.size();
  for (std::size_t k = 0; k < count; ++k) {
    ASSERT_EQ(out[k], n * (base + static_cast<std::int64_t>(k)) + n * (n - 1) / 2)
        << what << ", element " << k;
  }
}

// More communicators alive than there are areas: the ones without an area run their collectives
// over point-to-point, all at once, each with its own values.
TEST_F(SharedAreas, MoreCommunicatorsThanAreas) {
  const int count = 24;
  std::vector<rmpl::communicator> comms;
  for (int i = 0; i < count; ++i) comms.push_back(world().dup());
  std::vector<std::vector<std::int64_t>> in(count), out(count);
  std::vector<rmpl::request> reqs;
  for (int i = 0; i < count; ++i) {
    in[i].assign(100 + 37 * static_cast<std::size_t>(i), i * 1000 + rank());
    out[i].assign(in[i].size(), -1);
    reqs.push_back(comms[i].iallreduce(in[i], out[i], rmpl::ops::sum{}));
  }
  rmpl::wait_all(reqs);
  const std::int64_t n = size();
  for (int i = 0; i < count; ++i) {
    for (std::int64_t v : out[i]) ASSERT_EQ(v, n * i * 1000 + n * (n - 1) / 2) << "comm " << i;
  }
  for (int i = 0; i < count; i += 2) comms[i].free();
  for (int i = 1; i < count; i += 2) expect_allreduce(comms[i], i, 5, "comm " + std::to_string(i));
}

// Areas are given back and reused: hundreds of dup / collective / free cycles, ranks running at
// different speeds, so that a fast rank frees a communicator while slow ones still read its area's
// last round. A reused area that was not drained, or whose words were not reset, gives wrong sums
// or a hang (caught by the test's timeout).
TEST_F(SharedAreas, ReusedAfterFreeAtDifferentSpeeds) {
  const long cycles = rmpl_test::env_long("RMPL_TEST_AREA_CYCLES", 300);
  auto w = world();
  for (long i = 0; i < cycles; ++i) {
    rmpl::communicator d = i % 3 == 0 ? w.split(rank() % 2, 0) : w.dup();
    if (rank() == static_cast<int>(i % size()) && i % 7 == 0) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    expect_allreduce(d, i, 1 + static_cast<std::size_t>(i % 5) * 3000,
                     "cycle " + std::to_string(i));
    std::vector<std::int64_t> root_value{i};
    d.broadcast(root_value, static_cast<int>(i % d.size()));
    ASSERT_EQ(root_value[0], i) << "cycle " << i;
    d.free();
  }
  w.barrier();
}
