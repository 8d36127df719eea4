// Many outstanding nonblocking requests, completed with every completion call; and cancellation.
//
// Each rank exchanges 1,000 messages with its ring neighbours (rank r sends to r+1): message i has
// tag i and says who sent it and its number.
#include <algorithm>
#include <set>
#include <vector>

#include "mp_test.hpp"

namespace {

using rmpl_test::rank;
using rmpl_test::size;
using rmpl_test::world;

class Requests : public rmpl_test::collective {};
class Cancel : public rmpl_test::collective {};

constexpr int count = 1000;

int next_rank() {
  return (rank() + 1) % size();
}
int prev_rank() {
  return (rank() + size() - 1) % size();
}

struct message {
  std::int32_t source = -1;
  std::int32_t index = -1;
  std::uint64_t check = 0;
};

/// The requests of one exchange: receives at [0, count), sends at [count, 2 * count).
struct exchange {
  std::vector<message> outgoing, incoming;
  std::vector<rmpl::request> requests;
  exchange() : outgoing(count), incoming(count), requests(2 * count) {
    for (int i = 0; i < count; ++i) {
      outgoing[i] = message{rank(), i, rmpl_test::mix(rank(), i)};
    }
  }
  // Receives posted in reverse tag order, so that matching must search the posted receives.
  void post_receives() {
    for (int i = count - 1; i >= 0; --i) {
      requests[i] = world().irecv(std::span(&incoming[i], 1), prev_rank(), i);
    }
  }
  void post_sends() {
    for (int i = 0; i < count; ++i) {
      requests[count + i] = world().isend(std::span(&outgoing[i], 1), next_rank(), i);
    }
  }
  /// Checks what receive i delivered.
  void check_data(int i) {
    const message& m = incoming[i];
    EXPECT_TRUE(m.source == prev_rank() && m.index == i && m.check == rmpl_test::mix(m.source, i))
        << "receive " << i << " got message " << m.index << " of rank " << m.source;
  }
  /// Checks a completed request: for a receive, its status and data (sends have nothing to check).
  void check(std::size_t index, const rmpl::status& st, bool any_tag = false) {
    if (index >= static_cast<std::size_t>(count)) return;
    const int i = static_cast<int>(index);
    EXPECT_EQ(st.source, prev_rank()) << "receive " << i;
    if (!any_tag) {
      EXPECT_EQ(st.tag, i) << "receive " << i;
    }
    EXPECT_EQ(st.bytes, sizeof(message)) << "receive " << i;
    check_data(i);
  }
  void check_all_inactive() {
    std::size_t active = std::count_if(requests.begin(), requests.end(),
                                       [](const rmpl::request& r) { return r.active(); });
    EXPECT_EQ(active, 0u) << "requests still active after completion";
  }
};

// Receives posted everywhere before any send; wait_all.
TEST_F(Requests, IrecvsBeforeIsendsWithWaitAll) {
  exchange x;
  x.post_receives();
  rmpl_test::barrier();
  x.post_sends();
  rmpl::wait_all(x.requests);
  x.check_all_inactive();
  for (int i = 0; i < count && !HasFailure(); ++i) x.check_data(i);
}

// Sends posted everywhere before any receive; wait_any until none is active.
TEST_F(Requests, IsendsBeforeIrecvsWithWaitAny) {
  exchange x;
  x.post_sends();
  rmpl_test::barrier();
  x.post_receives();
  std::set<std::size_t> seen;
  for (;;) {
    auto [index, st] = rmpl::wait_any(x.requests);
    if (index == x.requests.size()) break;
    ASSERT_TRUE(seen.insert(index).second) << "wait_any returned request " << index << " twice";
    ASSERT_FALSE(x.requests[index].active()) << "wait_any left request " << index << " active";
    x.check(index, st);
  }
  x.check_all_inactive();
  std::string unreported;
  for (std::size_t i = 0; i < x.requests.size(); ++i) {
    if (!seen.contains(i)) {
      unreported += ' ';  // appended in two steps: GCC 12's -Wrestrict misfires on " " + to_string
      unreported += std::to_string(i);
    }
  }
  EXPECT_EQ(seen.size(), x.requests.size())
      << "requests completed but never returned by wait_any (receives < " << count
      << " <= sends):" << unreported;
}

// test_any, polled until every request has completed.
TEST_F(Requests, TestAny) {
  exchange x;
  x.post_receives();
  x.post_sends();
  std::set<std::size_t> seen;
  while (seen.size() < x.requests.size()) {
    auto done = rmpl::test_any(x.requests);
    if (!done) continue;
    ASSERT_LT(done->first, x.requests.size());
    ASSERT_TRUE(seen.insert(done->first).second) << "test_any returned " << done->first << " twice";
    x.check(done->first, done->second);
  }
  x.check_all_inactive();
  EXPECT_FALSE(rmpl::test_any(x.requests).has_value()) << "test_any found a completed request "
                                                          "among inactive ones";
}

// test_all, polled until it reports everything complete; its statuses describe the receives.
TEST_F(Requests, TestAll) {
  exchange x;
  x.post_sends();
  x.post_receives();
  std::vector<rmpl::status> statuses;
  std::size_t polls = 0;
  while (!rmpl::test_all(x.requests, &statuses)) ++polls;
  ASSERT_EQ(statuses.size(), x.requests.size());
  x.check_all_inactive();
  for (int i = 0; i < count && !HasFailure(); ++i) x.check(i, statuses[i]);
  RecordProperty("polls", static_cast<int>(polls));
}

// wait_some until every request has been reported exactly once.
TEST_F(Requests, WaitSome) {
  exchange x;
  x.post_receives();
  x.post_sends();
  std::set<std::size_t> seen;
  while (seen.size() < x.requests.size()) {
    auto done = rmpl::wait_some(x.requests);
    ASSERT_FALSE(done.empty()) << "wait_some returned nothing with requests active";
    for (const auto& [index, st] : done) {
      ASSERT_LT(index, x.requests.size());
      ASSERT_TRUE(seen.insert(index).second) << "wait_some returned " << index << " twice";
      EXPECT_FALSE(x.requests[index].active());
      x.check(index, st);
    }
  }
}

// Receives with any_tag match the messages in the order they were sent (and receives were posted).
TEST_F(Requests, AnyTagReceivesMatchInPostingOrder) {
  exchange x;
  for (int i = 0; i < count; ++i) {
    x.requests[i] = world().irecv(std::span(&x.incoming[i], 1), rmpl::any_source, rmpl::any_tag);
  }
  x.post_sends();
  std::vector<rmpl::status> statuses(x.requests.size());
  for (std::size_t i = 0; i < x.requests.size(); ++i) statuses[i] = x.requests[i].wait();
  for (int i = 0; i < count && !HasFailure(); ++i) {
    x.check(i, statuses[i], /*any_tag=*/true);
    EXPECT_EQ(statuses[i].tag, i);
  }
}

// ---- cancel ----

// A receive nobody will match is cancelled: wait reports it, the buffer is untouched, and a message
// sent afterwards with the same source and tag goes to the next receive, not the cancelled one.
TEST_F(Cancel, UnmatchedReceiveIsCancelledAndConsumesNothing) {
  auto comm = world();
  const int tag = 77;
  for (int source : {prev_rank(), static_cast<int>(rmpl::any_source)}) {
    SCOPED_TRACE(source == rmpl::any_source ? "any source" : "named source");
    std::uint64_t cancelled_buffer = 0xfeedull, buffer = 0;
    rmpl::request receive = comm.irecv(std::span(&cancelled_buffer, 1), source, tag);
    receive.cancel();
    rmpl::status st = receive.wait();
    EXPECT_TRUE(st.cancelled);
    EXPECT_FALSE(receive.active());
    rmpl_test::barrier();  // every receive is cancelled before any message is sent
    std::uint64_t value = rmpl_test::mix(rank(), tag);
    rmpl::request send = comm.isend(std::span(&value, 1), next_rank(), tag);
    rmpl::status got = comm.recv(std::span(&buffer, 1), source, tag);
    send.wait();
    EXPECT_FALSE(got.cancelled);
    EXPECT_EQ(buffer, rmpl_test::mix(prev_rank(), tag));
    EXPECT_EQ(cancelled_buffer, 0xfeedull) << "the cancelled receive wrote into its buffer";
  }
}

// Cancellation completes the request for test() as well.
TEST_F(Cancel, TestSeesTheCancellation) {
  auto comm = world();
  std::uint32_t buffer = 0;
  rmpl::request receive = comm.irecv(std::span(&buffer, 1), rmpl::any_source, 78);
  receive.cancel();
  std::optional<rmpl::status> st;
  for (int polls = 0; polls < 100000 && !st; ++polls) st = receive.test();
  ASSERT_TRUE(st.has_value()) << "a cancelled receive never completed";
  EXPECT_TRUE(st->cancelled);
}

// Cancel racing with a matching message: either the receive is cancelled and the message is still
// there for the next receive, or the receive completed with the message. Never both, never neither.
TEST_F(Cancel, RaceWithAMatchingMessage) {
  auto comm = world();
  const int tag = 79;
  int cancelled = 0;
  for (int round = 0; round < 20; ++round) {
    std::uint64_t buffer = 0;
    rmpl::request receive = comm.irecv(std::span(&buffer, 1), prev_rank(), tag);
    rmpl_test::barrier();
    std::uint64_t value = rmpl_test::mix(rank(), round);
    rmpl::request send = comm.isend(std::span(&value, 1), next_rank(), tag);
    if (round % 2 == 1) rmpl_test::sleep_ms(round % 4);  // vary who wins
    receive.cancel();
    rmpl::status st = receive.wait();
    if (st.cancelled) {
      ++cancelled;
      EXPECT_EQ(buffer, 0u) << "round " << round << ": a cancelled receive wrote data";
      comm.recv(std::span(&buffer, 1), prev_rank(), tag);
    }
    EXPECT_EQ(buffer, rmpl_test::mix(prev_rank(), round)) << "round " << round;
    send.wait();
  }
  rmpl_test::barrier();
  EXPECT_FALSE(comm.iprobe(rmpl::any_source, tag).has_value()) << "a message was left over";
  RecordProperty("cancelled", cancelled);
}

}  // namespace
