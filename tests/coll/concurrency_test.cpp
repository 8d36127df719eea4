// Collectives that run at the same time as other traffic: on split communicators concurrently,
// nonblocking collectives on several communicators outstanding at once (started and completed in
// different orders on different ranks), interleaved with point-to-point messages that use the same
// tags on the same communicator (a pending wildcard receive must never take a collective's
// message, nor a collective a user's), overlapped with computation, and many outstanding at once.
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "reference.hpp"

namespace {

using coll_test::call_sum;
using coll_test::call_values;
using coll_test::first_difference;
using rmpl_test::rank;
using rmpl_test::size;
using rmpl_test::world;

class SplitConcurrently : public rmpl_test::collective {};
class Outstanding : public rmpl_test::collective {};
class WithPointToPoint : public rmpl_test::collective {};
class Overlap : public rmpl_test::collective {};

int next_in(const rmpl::communicator& c) {
  return (c.rank() + 1) % c.size();
}
int prev_in(const rmpl::communicator& c) {
  return (c.rank() + c.size() - 1) % c.size();
}

/// What the algorithm of allreduce is at iteration i of a loop: all of them in turn.
std::string nth_algorithm(const char* collective, int i) {
  std::vector<std::string> algorithms = coll_test::algorithms_of(collective);
  return algorithms[static_cast<std::size_t>(i) % algorithms.size()];
}

// ---- split communicators at the same time ----

// The even and odd ranks each loop over allreduce and broadcast on their half, the halves a
// different number of times and with different sizes, cycling through the algorithms.
TEST_F(SplitConcurrently, HalvesLoopIndependently) {
  rmpl::communicator half = world().split(rank() % 2, rank());
  ASSERT_TRUE(half);
  const int iterations = rank() % 2 ? 45 : 30;
  const std::size_t counts[] = {1, 1001, 20000};
  for (int i = 0; i < iterations; ++i) {
    const std::size_t count = counts[i % 3];
    SCOPED_TRACE(::testing::Message()
                 << "half " << rank() % 2 << ", iteration " << i << ", " << count << " elements");
    {
      coll_test::forced_algorithm scope("allreduce", nth_algorithm("allreduce", i));
      std::vector<double> in = call_values(half.rank(), count, i), out(count, -1);
      half.allreduce(in, out, rmpl::ops::sum{});
      ASSERT_EQ(first_difference(out, call_sum(half.size(), count, i)), "");
    }
    {
      coll_test::forced_algorithm scope("broadcast", nth_algorithm("broadcast", i));
      const int root = i % half.size();
      std::vector<double> data =
          half.rank() == root ? call_values(root, count, i) : std::vector<double>(count, -1);
      half.broadcast(data, root);
      ASSERT_EQ(first_difference(data, call_values(root, count, i)), "");
    }
  }
  // Then everyone together again.
  std::vector<double> one{1};
  world().allreduce(one, rmpl::ops::sum{});
  EXPECT_EQ(one[0], size());
}

// Nonblocking collectives on a half and on the world outstanding at the same time.
TEST_F(SplitConcurrently, HalfAndWorldOutstandingTogether) {
  auto w = world();
  rmpl::communicator half = w.split(rank() % 2, -rank());
  for (int call = 0; call < 10; ++call) {
    SCOPED_TRACE(::testing::Message() << "call " << call);
    const std::size_t count = call % 2 ? 1001 : 3;
    std::vector<double> half_in = call_values(half.rank(), count, call), half_out(count, -1);
    std::vector<double> world_in = call_values(w.rank(), count, call + 100), world_out(count, -1);
    std::vector<rmpl::request> pending(2);
    // Half the ranks start on the world first.
    if (rank() % 3 == 0) {
      pending[1] = w.iallreduce(world_in, world_out, rmpl::ops::sum{});
      pending[0] = half.iallreduce(half_in, half_out, rmpl::ops::sum{});
    } else {
      pending[0] = half.iallreduce(half_in, half_out, rmpl::ops::sum{});
      pending[1] = w.iallreduce(world_in, world_out, rmpl::ops::sum{});
    }
    if (rank() % 2) {
      rmpl::wait_all(pending);
    } else {
      pending[1].wait();
      pending[0].wait();
    }
    EXPECT_EQ(first_difference(half_out, call_sum(half.size(), count, call)), "");
    EXPECT_EQ(first_difference(world_out, call_sum(size(), count, call + 100)), "");
  }
}

// ---- several communicators outstanding ----

// Three nonblocking collectives on three communicators (the world and two dups), started in a
// different order on odd and even ranks and completed in yet other orders, under every allreduce
// algorithm.
TEST_F(Outstanding, ThreeCommunicatorsStartedAndCompletedInDifferentOrders) {
  auto w = world();
  rmpl::communicator a = w.dup(), b = w.dup();
  int call = 0;
  coll_test::for_each_algorithm("allreduce", [&](const std::string&) {
    for (std::size_t count : {std::size_t{1}, std::size_t{1001}, std::size_t{100000}}) {
      SCOPED_TRACE(::testing::Message() << count << " elements");
      ++call;
      const int root = call % size();
      std::vector<double> a_in = call_values(rank(), count, call), a_out(count, -1);
      std::vector<double> b_data =
          rank() == root ? call_values(root, count, call + 1) : std::vector<double>(count, -1);
      std::vector<double> w_in = call_values(rank(), count, call + 2),
                          w_out(count * static_cast<std::size_t>(size()), -1);
      std::vector<rmpl::request> pending(3);
      auto start_a = [&] { pending[0] = a.iallreduce(a_in, a_out, rmpl::ops::sum{}); };
      auto start_b = [&] { pending[1] = b.ibroadcast(b_data, root); };
      auto start_w = [&] { pending[2] = w.iallgather(w_in, w_out); };
      if (rank() % 2 == 0) {
        start_a();
        start_b();
        start_w();
        // Complete in reverse order of starting.
        pending[2].wait();
        pending[1].wait();
        pending[0].wait();
      } else {
        start_w();
        start_b();
        start_a();
        // Complete in whatever order they finish.
        for (int done = 0; done < 3; ++done) {
          auto [index, st] = rmpl::wait_any(pending);
          ASSERT_LT(index, pending.size());
        }
      }
      EXPECT_EQ(first_difference(a_out, call_sum(size(), count, call)), "") << "allreduce";
      EXPECT_EQ(first_difference(b_data, call_values(root, count, call + 1)), "") << "broadcast";
      std::vector<double> want;
      for (int r = 0; r < size(); ++r) {
        std::vector<double> block = call_values(r, count, call + 2);
        want.insert(want.end(), block.begin(), block.end());
      }
      EXPECT_EQ(first_difference(w_out, want), "") << "allgather";
    }
  });
}

// Twenty allreduces outstanding on one communicator with a barrier, a broadcast and an allgather
// among them, completed with wait_all; then again completed with test_all polling, and with
// wait_any in whatever order they finish.
TEST_F(Outstanding, ManyOnOneCommunicator) {
  auto c = world();
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE(::testing::Message() << "round " << round);
    const int n = 20;
    std::vector<std::vector<double>> in(n), out(n);
    std::vector<rmpl::request> pending;
    std::vector<double> bcast(777, rank() == 1 % size() ? 3.5 : -1);
    std::vector<int> gather_in{rank() + round}, gather_out(static_cast<std::size_t>(size()), -1);
    for (int k = 0; k < n; ++k) {
      const std::size_t count = static_cast<std::size_t>(k * k * 7 % 3000 + 1);
      in[static_cast<std::size_t>(k)] = call_values(rank(), count, round * 100 + k);
      out[static_cast<std::size_t>(k)].assign(count, -1);
      pending.push_back(c.iallreduce(in[static_cast<std::size_t>(k)],
                                     out[static_cast<std::size_t>(k)], rmpl::ops::sum{}));
      if (k == 5) pending.push_back(c.ibarrier());
      if (k == 9) pending.push_back(c.ibroadcast(bcast, 1 % size()));
      if (k == 14) pending.push_back(c.iallgather(gather_in, gather_out));
    }
    if (round == 0) {
      rmpl::wait_all(pending);
    } else if (round == 1) {
      const double deadline = rmpl::session::wtime() + 60;
      while (!rmpl::test_all(pending)) {
        ASSERT_LT(rmpl::session::wtime(), deadline) << "test_all never saw them all complete";
      }
    } else {
      for (std::size_t done = 0; done < pending.size(); ++done) rmpl::wait_any(pending);
    }
    for (int k = 0; k < n; ++k) {
      EXPECT_EQ(first_difference(
                    out[static_cast<std::size_t>(k)],
                    call_sum(size(), out[static_cast<std::size_t>(k)].size(), round * 100 + k)),
                "")
          << "allreduce " << k;
    }
    EXPECT_EQ(bcast, std::vector<double>(777, 3.5));
    std::vector<int> want(static_cast<std::size_t>(size()));
    std::iota(want.begin(), want.end(), round);
    EXPECT_EQ(gather_out, want);
  }
}

// Hundreds of small nonblocking collectives outstanding on one communicator: more than a ring's
// cells or a rank's eager slots, so flow control must hold them back without losing or reordering
// any (the tight variant squeezes rings and slots further).
TEST_F(Outstanding, HundredsOnOneCommunicator) {
  auto c = world();
  const int n = 300;
  std::vector<std::vector<double>> in(n), out(n);
  std::vector<rmpl::request> pending;
  for (int k = 0; k < n; ++k) {
    const std::size_t count = k % 3 == 0 ? 300 : 2;
    in[static_cast<std::size_t>(k)] = call_values(rank(), count, 500 + k);
    out[static_cast<std::size_t>(k)].assign(count, -1);
    if (k % 5 == 4) {
      const int root = k % size();
      if (rank() == root) out[static_cast<std::size_t>(k)] = call_values(root, count, 500 + k);
      pending.push_back(c.ibroadcast(out[static_cast<std::size_t>(k)], root));
    } else {
      pending.push_back(c.iallreduce(in[static_cast<std::size_t>(k)],
                                     out[static_cast<std::size_t>(k)], rmpl::ops::sum{}));
    }
  }
  // Completed in reverse order of starting.
  for (std::size_t k = pending.size(); k-- > 0;) pending[k].wait();
  for (int k = 0; k < n; ++k) {
    const std::vector<double>& got = out[static_cast<std::size_t>(k)];
    std::vector<double> want = k % 5 == 4 ? call_values(k % size(), got.size(), 500 + k)
                                          : call_sum(size(), got.size(), 500 + k);
    EXPECT_EQ(first_difference(got, want), "") << "call " << k;
  }
}

// Shared-area broadcasts let their root run ahead as far as the area holds (core/area_ring.hpp):
// the root's next rounds go into bytes the others may not have read yet, so they must wait for
// exactly the rounds that used those bytes. Broadcasts of sizes that take one line, a 1 KiB span,
// 64 KiB (16 fit the area) and 300 KiB (two rounds of a quarter) from rotating roots, with one rank
// late so that the others fill the area, and lockstep allreduces and allgathers of other sizes in
// between, whose buffers overlap the broadcasts'; blocking, then all outstanding at once.
TEST_F(Outstanding, BroadcastsRunAheadThroughTheArea) {
  auto c = world();
  coll_test::forced_algorithm bcast("broadcast", "shared");
  coll_test::forced_algorithm allreduce("allreduce", "shared");
  coll_test::forced_algorithm allgather("allgather", "shared");
  const std::size_t counts[] = {3, 128, 8192, 38400};  // doubles: 24 B, 1, 64 and 300 KiB
  const int calls = 120;
  const int late = size() > 1 ? 1 : -1;
  auto root_of = [&](int k) { return (k / 5) % size(); };
  auto between = [](int k) { return k % 9 == 8; };  // an allreduce or allgather after call k
  for (bool nonblocking : {false, true}) {
    SCOPED_TRACE(nonblocking ? "nonblocking" : "blocking");
    if (rank() == late) rmpl_test::sleep_ms(30);
    std::vector<std::vector<double>> data(calls), other(calls), in(calls);
    std::vector<rmpl::request> pending;
    for (int k = 0; k < calls; ++k) {
      const auto ku = static_cast<std::size_t>(k);
      const std::size_t count = counts[ku % std::size(counts)];
      const int root = root_of(k);
      data[ku] =
          rank() == root ? call_values(root, count, 900 + k) : std::vector<double>(count, -1);
      if (nonblocking) {
        pending.push_back(c.ibroadcast(data[ku], root));
      } else {
        c.broadcast(data[ku], root);
      }
      if (between(k)) {
        const std::size_t n = k % 2 ? 5000 : 700;
        in[ku] = call_values(rank(), n, 1900 + k);
        if (k % 4 == 0) {
          other[ku].assign(n * static_cast<std::size_t>(size()), -1);
          if (nonblocking) {
            pending.push_back(c.iallgather(in[ku], other[ku]));
          } else {
            c.allgather(in[ku], other[ku]);
          }
        } else {
          other[ku].assign(n, -1);
          if (nonblocking) {
            pending.push_back(c.iallreduce(in[ku], other[ku], rmpl::ops::sum{}));
          } else {
            c.allreduce(in[ku], other[ku], rmpl::ops::sum{});
          }
        }
      }
    }
    for (std::size_t k = pending.size(); k-- > 0;) pending[k].wait();
    for (int k = 0; k < calls; ++k) {
      const auto ku = static_cast<std::size_t>(k);
      ASSERT_EQ(first_difference(data[ku], call_values(root_of(k), data[ku].size(), 900 + k)), "")
          << "broadcast " << k << " of " << data[ku].size() << " doubles from rank " << root_of(k);
      if (!between(k)) continue;
      const std::size_t n = in[ku].size();
      std::vector<double> want;
      if (k % 4 == 0) {
        for (int r = 0; r < size(); ++r) {
          const std::vector<double> block = call_values(r, n, 1900 + k);
          want.insert(want.end(), block.begin(), block.end());
        }
      } else {
        want = call_sum(size(), n, 1900 + k);
      }
      ASSERT_EQ(first_difference(other[ku], want), "") << "the collective after broadcast " << k;
    }
  }
}

// A blocking collective on one communicator while a nonblocking one is pending on another: the
// blocking wait must progress the pending one (the even ranks start it before, the odd ranks
// after the blocking calls).
TEST_F(Outstanding, BlockingOnOneWhileAnotherIsPending) {
  auto w = world();
  rmpl::communicator other = w.dup();
  for (std::size_t count : {std::size_t{5}, std::size_t{200000}}) {
    SCOPED_TRACE(::testing::Message() << count << " elements");
    std::vector<double> in = call_values(rank(), count, 21), out(count, -1);
    rmpl::request pending;
    if (rank() % 2 == 0) pending = other.iallreduce(in, out, rmpl::ops::sum{});
    for (int k = 0; k < 5; ++k) {
      std::vector<double> data = call_values(rank(), 100, 30 + k), sum(100, -1);
      w.allreduce(data, sum, rmpl::ops::sum{});
      EXPECT_EQ(first_difference(sum, call_sum(size(), 100, 30 + k)), "") << "blocking call " << k;
    }
    if (rank() % 2 == 1) pending = other.iallreduce(in, out, rmpl::ops::sum{});
    pending.wait();
    EXPECT_EQ(first_difference(out, call_sum(size(), count, 21)), "");
  }
}

// Blocking collectives on the communicator of a pending nonblocking one: they run on the caller's
// stack (no request), after it in every member's order, so their wait must advance it (on the
// shared areas a round waits for this rank's previous round to be over).
TEST_F(Outstanding, BlockingAfterAPendingOneOnTheSameCommunicator) {
  rmpl::communicator c = world().dup();
  for (std::size_t count : {std::size_t{3}, std::size_t{70000}}) {
    SCOPED_TRACE(::testing::Message() << count << " elements");
    std::vector<double> in = call_values(rank(), count, 41), out(count, -1);
    rmpl::request pending = c.iallreduce(in, out, rmpl::ops::sum{});
    std::vector<double> data(7, rank() == size() - 1 ? 2.5 : -1.0);
    c.broadcast(data, size() - 1);
    EXPECT_EQ(data, std::vector<double>(7, 2.5));
    c.barrier();
    std::vector<double> small = call_values(rank(), 9, 42), sum(9, -1);
    c.allreduce(small, sum, rmpl::ops::sum{});
    EXPECT_EQ(first_difference(sum, call_sum(size(), 9, 42)), "");
    pending.wait();
    EXPECT_EQ(first_difference(out, call_sum(size(), count, 41)), "");
  }
}

// The last handle of a communicator dropped while a collective on it is pending: the operation
// keeps what it needs and completes; new communicators made meanwhile (which may be offered the
// same context once it is released) do not disturb it.
TEST_F(Outstanding, CommunicatorFreedWhileACollectiveIsPending) {
  auto w = world();
  const std::size_t count = 100000;
  std::vector<double> in = call_values(rank(), count, 40), out(count, -1);
  rmpl::request pending;
  {
    rmpl::communicator d = w.dup();
    pending = d.iallreduce(in, out, rmpl::ops::sum{});
    d.free();
  }
  std::vector<rmpl::communicator> fresh;
  for (int k = 0; k < 3; ++k) fresh.push_back(w.dup());
  std::vector<double> small = call_values(rank(), 10, 41), small_sum(10, -1);
  fresh.back().allreduce(small, small_sum, rmpl::ops::sum{});
  pending.wait();
  EXPECT_EQ(first_difference(out, call_sum(size(), count, 40)), "");
  EXPECT_EQ(first_difference(small_sum, call_sum(size(), 10, 41)), "");
}

// ---- point-to-point on the same communicator, same tags ----

// A wildcard receive posted before the collectives stays pending through all of them (under every
// algorithm of each): no collective message may match it. Messages sent before the collectives and
// not yet received must come out afterwards, in order, untouched by the collectives.
TEST_F(WithPointToPoint, WildcardReceiveNeverTakesACollectivesMessage) {
  auto c = world();
  // Unexpected user messages on tags 0, 1 and 2, queued at the next rank before the collectives.
  std::vector<std::int64_t> early{1000 + rank(), 2000 + rank(), 3000 + rank()};
  std::vector<rmpl::request> sends;
  for (int t = 0; t < 3; ++t) {
    sends.push_back(c.isend(std::span(&early[static_cast<std::size_t>(t)], 1), next_in(c), t));
  }
  // The wildcard receive (part 2) is posted only once these have been received: posted now, it
  // would rightly take the first of them. Large enough for any collective fragment, so a wrongly
  // matched one would show up rather than fail as truncated.
  std::vector<std::byte> wildcard_buffer(1 << 20);

  int call = 0;
  auto run_collectives = [&] {
    for (const char* collective : {"allreduce", "broadcast", "alltoall", "gather", "scan",
                                   "barrier", "allgather", "reduce_scatter_block"}) {
      coll_test::for_each_algorithm(collective, [&](const std::string&) {
        ++call;
        const std::size_t count = call % 2 ? 3 : 5000;
        const std::size_t n = static_cast<std::size_t>(size());
        std::vector<double> in = call_values(rank(), count * n, call), out(count * n, -1);
        std::string which = collective;
        if (which == "allreduce") {
          c.allreduce(in, out, rmpl::ops::sum{});
        } else if (which == "broadcast") {
          c.broadcast(in, call % size());
        } else if (which == "alltoall") {
          c.alltoall(in, out);
        } else if (which == "gather") {
          std::vector<double> mine(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(count));
          c.gather(mine, out, call % size());
        } else if (which == "scan") {
          c.scan(in, out, rmpl::ops::sum{});
        } else if (which == "barrier") {
          c.barrier();
        } else if (which == "allgather") {
          std::vector<double> mine(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(count));
          c.allgather(mine, out);
        } else {
          std::vector<double> block(count);
          c.reduce_scatter_block(in, block, rmpl::ops::sum{});
        }
      });
    }
  };

  // 1. Queued user messages survive the collectives, in order, on their tags.
  run_collectives();
  for (int t = 0; t < 3; ++t) {
    std::int64_t got = -1;
    rmpl::status st = c.recv(std::span(&got, 1), rmpl::any_source, rmpl::any_tag);
    EXPECT_EQ(st.source, prev_in(c));
    EXPECT_EQ(st.tag, t) << "the user messages came out of order";
    EXPECT_EQ(got, (t + 1) * 1000 + prev_in(c)) << "tag " << t;
  }
  rmpl::wait_all(sends);
  rmpl_test::barrier();  // every early message has been received everywhere

  // 2. A posted wildcard receive is never matched by a collective's message.
  rmpl::request wildcard = c.irecv(wildcard_buffer, rmpl::any_source, rmpl::any_tag);
  run_collectives();
  std::optional<rmpl::status> stolen = wildcard.test();
  EXPECT_FALSE(stolen.has_value())
      << "a collective's message (" << (stolen ? stolen->bytes : 0) << " bytes from rank "
      << (stolen ? stolen->source : -1) << ", tag " << (stolen ? stolen->tag : -1)
      << ") matched a user's wildcard receive";
  rmpl_test::barrier();  // everyone has finished the collectives before the user message is sent
  std::int64_t late = 4000 + rank();
  rmpl::request late_send = c.isend(std::span(&late, 1), next_in(c), 0);
  if (!stolen) {
    if (coll_test::wait_or_fail(wildcard, 20, "the user's message to the wildcard receive")) {
      std::int64_t got = -1;
      std::memcpy(&got, wildcard_buffer.data(), sizeof got);
      EXPECT_EQ(got, 4000 + prev_in(c));
    }
  } else {
    c.recv(std::span(&late, 1), prev_in(c), 0);
  }
  late_send.wait();
  // 3. The collectives left nothing a user probe could see.
  EXPECT_FALSE(c.iprobe(rmpl::any_source, rmpl::any_tag).has_value())
      << "a collective left a message visible to point-to-point";
}

// A user exchange with any_source / any_tag in the middle of a nonblocking collective on the same
// communicator gets the user's message, and the collective its own.
TEST_F(WithPointToPoint, ExchangeWhileANonblockingCollectiveIsInFlight) {
  auto c = world();
  coll_test::for_each_algorithm("allreduce", [&](const std::string&) {
    for (std::size_t count : {std::size_t{3}, std::size_t{300000}}) {
      SCOPED_TRACE(::testing::Message() << count << " elements");
      std::vector<double> in = call_values(rank(), count, 7), out(count, -1);
      rmpl::request collective = c.iallreduce(in, out, rmpl::ops::sum{});
      std::vector<double> mine(count, rank() + 0.5), got(count, -1);
      rmpl::request send = c.isend(mine, next_in(c), 0);
      rmpl::status st = c.recv(got, rmpl::any_source, rmpl::any_tag);
      send.wait();
      collective.wait();
      EXPECT_EQ(st.source, prev_in(c));
      EXPECT_EQ(st.tag, 0);
      EXPECT_EQ(first_difference(got, std::vector<double>(count, prev_in(c) + 0.5)), "")
          << "the user's receive got something else";
      EXPECT_EQ(first_difference(out, call_sum(size(), count, 7)), "") << "allreduce";
    }
  });
}

// ---- overlap with computation ----

// Start, compute while testing now and then, complete: the result is right, and the request
// completes through test() alone (no wait) before a generous deadline.
TEST_F(Overlap, ComputeWhileTesting) {
  auto c = world();
  coll_test::for_each_algorithm("allreduce", [&](const std::string&) {
    const std::size_t count = 1 << 18;
    std::vector<double> in = call_values(rank(), count, 11), out(count, -1);
    std::vector<double> a2a_in = call_values(rank(), 4096 * static_cast<std::size_t>(size()), 12),
                        a2a_out(a2a_in.size(), -1);
    rmpl::request reduction = c.iallreduce(in, out, rmpl::ops::sum{});
    rmpl::request exchange = c.ialltoall(a2a_in, a2a_out);
    double work = 0;
    long rounds = 0;
    const double deadline = rmpl::session::wtime() + 60;
    bool reduction_done = false, exchange_done = false;
    while (!(reduction_done && exchange_done) && rmpl::session::wtime() < deadline) {
      for (int k = 0; k < 2000; ++k) work += std::sqrt(static_cast<double>(k + rounds));
      ++rounds;
      if (!reduction_done) reduction_done = reduction.test().has_value();
      if (!exchange_done) exchange_done = exchange.test().has_value();
    }
    ASSERT_TRUE(reduction_done && exchange_done)
        << "not complete through test() after 60 s (" << rounds << " rounds)";
    EXPECT_GT(work, 0);
    EXPECT_EQ(first_difference(out, call_sum(size(), count, 11)), "");
    std::vector<double> want;
    for (int r = 0; r < size(); ++r) {
      std::vector<double> all = call_values(r, a2a_in.size(), 12);
      want.insert(want.end(), all.begin() + rank() * 4096, all.begin() + (rank() + 1) * 4096);
    }
    EXPECT_EQ(first_difference(a2a_out, want), "") << "alltoall";
  });
}

// A rank that starts a collective and then stays away from the library for a while (computing, not
// testing) only delays the others; nobody deadlocks.
TEST_F(Overlap, ARankAwayFromTheLibrary) {
  auto c = world();
  for (int away = 0; away < std::min(size(), 3); ++away) {
    SCOPED_TRACE(::testing::Message() << "rank " << away << " away");
    std::vector<double> in = call_values(rank(), 100000, away), out(100000, -1);
    std::vector<double> data =
        rank() == away ? call_values(away, 70000, 50) : std::vector<double>(70000);
    rmpl::request reduction = c.iallreduce(in, out, rmpl::ops::sum{});
    rmpl::request broadcast = c.ibroadcast(data, away);
    if (rank() == away) rmpl_test::sleep_ms(100);
    broadcast.wait();
    reduction.wait();
    EXPECT_EQ(first_difference(out, call_sum(size(), 100000, away)), "");
    EXPECT_EQ(first_difference(data, call_values(away, 70000, 50)), "");
  }
}

}  // namespace
