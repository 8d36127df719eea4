// rmpl::session(rmpl::threads::multiple): every call of the C++ API may come from any thread at any
// time. 4 threads per rank, each on its own tag: a ring of isends and blocking receives in sizes of
// every protocol (every byte checked) with collectives on the thread's own dup between rounds,
// while the main thread runs allreduces on the world; each thread frees its dup (the last handle)
// itself. And a thread blocked in a receive from its own rank gets a message another thread sends
// it later.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "mp_test.hpp"

namespace {

using rmpl_test::rank;
using rmpl_test::size;
using rmpl_test::world;

class Threads : public rmpl_test::collective {};

constexpr int thread_count = 4;
constexpr std::array<std::size_t, 4> sizes{8, 200, 4096, 70000};

/// The seed of thread t's round `round` message from rank `from`.
std::uint64_t seed(int from, int t, int round) {
  return rmpl_test::seed_of(sizes[static_cast<std::size_t>(round) % sizes.size()],
                            static_cast<std::size_t>(round * thread_count + t), from);
}

/// Thread t's part: rings on the world with tag t, collectives on `mine` (a dup of the world that
/// only this thread of each rank uses), which it frees at the end.
void ring_and_collectives(rmpl::communicator mine, int t, int rounds) {
  const rmpl::communicator w = world();
  const int me = w.rank(), n = w.size();
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  std::vector<std::byte> out(sizes.back()), in(sizes.back());
  bool reported = false;  // the first mismatch of this thread only; the protocol goes on
  auto report = [&](const std::string& what) {
    if (!reported) ADD_FAILURE() << "rank " << me << " thread " << t << ": " << what;
    reported = true;
  };
  for (int round = 0; round < rounds; ++round) {
    const std::size_t bytes = sizes[static_cast<std::size_t>(round) % sizes.size()];
    const std::span<std::byte> message(out.data(), bytes);
    rmpl_test::fill_pattern(message, seed(me, t, round));
    rmpl::request sent = w.isend(message, next, t);
    const rmpl::status s = w.recv(in, prev, t);
    if (s.bytes != bytes || s.source != prev || s.tag != t) {
      report("round " + std::to_string(round) + ": received " + std::to_string(s.bytes) +
             " bytes from " + std::to_string(s.source) + " tag " + std::to_string(s.tag) +
             ", expected " + std::to_string(bytes) + " from " + std::to_string(prev) + " tag " +
             std::to_string(t));
    } else if (std::string bad =
                   rmpl_test::check_pattern(std::span(in.data(), bytes), seed(prev, t, round));
               !bad.empty()) {
      report("round " + std::to_string(round) + ", " + std::to_string(bytes) + " bytes from " +
             std::to_string(prev) + ": " + bad);
    }
    sent.wait();
    if (round % 4 == 3) {
      std::array<std::int64_t, 2> v{me + round, t};
      mine.allreduce(v, rmpl::ops::sum{});
      const std::int64_t sum = std::int64_t{n} * (n - 1) / 2 + std::int64_t{n} * round;
      if (v[0] != sum || v[1] != std::int64_t{n} * t) {
        report("allreduce in round " + std::to_string(round) + ": {" + std::to_string(v[0]) + ", " +
               std::to_string(v[1]) + "}, expected {" + std::to_string(sum) + ", " +
               std::to_string(n * t) + "}");
      }
      const int root = round % n;
      std::vector<std::int32_t> b(64, me == root ? round * 100 + t : -1);
      mine.broadcast(b, root);
      if (std::count(b.begin(), b.end(), round * 100 + t) != 64) {
        report("broadcast in round " + std::to_string(round) + " from " + std::to_string(root) +
               ": " + std::to_string(b[0]) + ", expected " + std::to_string(round * 100 + t));
      }
      mine.barrier();
    }
  }
  mine.free();  // the last handle: the communicator's context goes back from this thread
}

TEST_F(Threads, RingsAndCollectivesOnDupsFromFourThreadsPerRank) {
  rmpl::session multiple(rmpl::threads::multiple);
  ASSERT_EQ(rmpl::session::thread_level(), rmpl::threads::multiple);
  const rmpl::communicator w = world();
  std::vector<rmpl::communicator> dups;
  for (int t = 0; t < thread_count; ++t) dups.push_back(w.dup());
  const int rounds = std::max(40, 1000 / size());
  std::vector<std::thread> pool;
  for (int t = 0; t < thread_count; ++t) {
    pool.emplace_back([&dups, t, rounds] {
      try {
        ring_and_collectives(std::move(dups[static_cast<std::size_t>(t)]), t, rounds);
      } catch (const std::exception& e) {
        ADD_FAILURE() << "rank " << rank() << " thread " << t << ": " << e.what();
      }
    });
  }
  // The main threads meanwhile run collectives on the world.
  for (int i = 0; i < 50; ++i) {
    std::int64_t v = rank() + i;
    w.allreduce(std::span(&v, 1), rmpl::ops::sum{});
    EXPECT_EQ(v, std::int64_t{size()} * (size() - 1) / 2 + std::int64_t{size()} * i)
        << "rank " << rank() << ": allreduce " << i << " on the main thread";
  }
  for (std::thread& th : pool) th.join();
}

TEST_F(Threads, ReceiveFromSelfWokenByAnotherThreadsSend) {
  rmpl::session multiple(rmpl::threads::multiple);
  const rmpl::communicator w = world();
  for (int i = 0; i < 4; ++i) {
    std::thread sender([&w, i] {
      rmpl_test::sleep_ms(20);  // the receive below is asleep by now
      const int v = 99 + i;
      try {
        w.send(std::span(&v, 1), w.rank(), 500);
      } catch (const std::exception& e) {
        ADD_FAILURE() << "rank " << w.rank() << ": send to self: " << e.what();
      }
    });
    int v = 0;
    const rmpl::status s = w.recv(std::span(&v, 1), w.rank(), 500);
    EXPECT_EQ(v, 99 + i) << "rank " << rank() << ": receive from self " << i;
    EXPECT_EQ(s.source, rank());
    sender.join();
  }
}

}  // namespace
