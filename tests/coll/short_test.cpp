// The short-message protocol of the shared-memory path (src/coll/shared_short.hpp): blocking
// barrier, broadcast, reduce and allreduce of at most a cache line less its call number, through a
// ring of line-sized slots in each member's area. Edge cases: a root (or a reduce's non-roots)
// running up to the ring's depth of calls ahead of a slow rank, the ring wrapping many times with
// every value checked, short calls mixed with nonblocking collectives and with long broadcasts of
// the same communicator, non-commutative operators folded in rank order, every root, communicators
// whose rank order is not the job's, and an area handed to a new communicator after a freed one
// used it.
#include <cstdint>
#include <string>
#include <vector>

#include "coll/select.hpp"
#include "coll/shared_short.hpp"
#include "reference.hpp"

namespace {

using coll_test::call_sum;
using coll_test::call_values;
using rmpl_test::rank;
using rmpl_test::size;
using rmpl_test::world;

class ShortProtocol : public rmpl_test::collective {};

constexpr std::size_t max_doubles = rmpl::coll::short_max / sizeof(double);  // 7

/// Runs `calls` short calls on `c`, cycling through barrier, broadcast, reduce and allreduce with
/// every root and payloads of 0 to max_doubles doubles, checking each result. A "laggard" rank
/// sleeps now and then, so the others run ahead as far as the ring lets them.
void run_checked_calls(const rmpl::communicator& c, int calls, int laggard, int salt) {
  rmpl::coll::force_algorithm("barrier", "short");
  rmpl::coll::force_algorithm("broadcast", "short");
  rmpl::coll::force_algorithm("reduce", "short");
  rmpl::coll::force_algorithm("allreduce", "short");
  for (int i = 0; i < calls && !::testing::Test::HasFailure(); ++i) {
    const int call = i + salt;
    const int root = (i / 4) % c.size();
    const std::size_t count = static_cast<std::size_t>(i) % (max_doubles + 1);
    SCOPED_TRACE(::testing::Message()
                 << "call " << i << ", root " << root << ", " << count
                 << " doubles, communicator rank " << c.rank() << " of " << c.size());
    if (c.rank() == laggard && i % 97 == 5) rmpl_test::sleep_ms(20);
    switch (i % 4) {
      case 0:
        c.barrier();
        break;
      case 1: {
        std::vector<double> data =
            c.rank() == root ? call_values(root, count, call) : std::vector<double>(count, -1);
        c.broadcast(data, root);
        ASSERT_EQ(data, call_values(root, count, call));
        break;
      }
      case 2: {
        std::vector<double> in = call_values(c.rank(), count, call), out(count, -1);
        c.allreduce(in, out, rmpl::ops::sum{});
        ASSERT_EQ(out, call_sum(c.size(), count, call));
        break;
      }
      default: {
        std::vector<double> in = call_values(c.rank(), count, call), out(count, -1);
        c.reduce(in, out, rmpl::ops::sum{}, root);
        if (c.rank() == root) {
          ASSERT_EQ(out, call_sum(c.size(), count, call));
        } else {
          ASSERT_EQ(out, std::vector<double>(count, -1));  // a non-root's buffer is not written
        }
      }
    }
  }
  rmpl::coll::force_algorithm("barrier", "auto");
  rmpl::coll::force_algorithm("broadcast", "auto");
  rmpl::coll::force_algorithm("reduce", "auto");
  rmpl::coll::force_algorithm("allreduce", "auto");
}

// Many times round the ring (depth 16), with a rank lagging by up to 20 ms: on the world and on a
// communicator whose rank order is the job's reversed.
TEST_F(ShortProtocol, WrapsAroundWithEveryValueChecked) {
  run_checked_calls(world(), 1000, size() - 1, 0);
  rmpl::communicator reversed = world().split(0, size() - rank());
  ASSERT_TRUE(reversed);
  run_checked_calls(reversed, 500, 0, 3);
}

// The root broadcasts 200 times in a row while every other rank is asleep: it must run ahead
// until the ring is full, then wait (not overwrite a slot not yet read), and every value arrives.
// Likewise the non-roots of a reduce run ahead of a sleeping root.
TEST_F(ShortProtocol, RootRunsManyCallsAhead) {
  coll_test::forced_algorithm b("broadcast", "short");
  coll_test::forced_algorithm r("reduce", "short");
  const int root = size() / 2;
  if (rank() != root) rmpl_test::sleep_ms(50);
  for (int i = 0; i < 200; ++i) {
    std::vector<double> data =
        rank() == root ? call_values(root, 3, i) : std::vector<double>(3, -1);
    world().broadcast(data, root);
    ASSERT_EQ(data, call_values(root, 3, i)) << "broadcast " << i;
  }
  if (rank() == root) rmpl_test::sleep_ms(50);
  for (int i = 0; i < 200; ++i) {
    std::vector<double> in = call_values(rank(), 2, i), out(2, -1);
    world().reduce(in, out, rmpl::ops::sum{}, root);
    if (rank() == root) {
      ASSERT_EQ(out, call_sum(size(), 2, i)) << "reduce " << i;
    }
  }
}

// Short calls while nonblocking collectives of the same communicator are pending (a long
// allreduce over the rounds of the areas, a short ibroadcast, an ibarrier), and between long
// broadcasts of the same communicator: each goes its own way, none waits for the other.
TEST_F(ShortProtocol, MixedWithNonblockingAndLongCollectives) {
  rmpl::communicator c = world().dup();
  for (int i = 0; i < 40 && !HasFailure(); ++i) {
    SCOPED_TRACE(::testing::Message() << "iteration " << i);
    const std::size_t long_count = i % 2 ? 70000 : 3;
    std::vector<double> in = call_values(rank(), long_count, i), out(long_count, -1);
    rmpl::request pending_sum = c.iallreduce(in, out, rmpl::ops::sum{});
    std::vector<double> nb = rank() == 0 ? call_values(0, 4, i) : std::vector<double>(4, -1);
    rmpl::request pending_cast = c.ibroadcast(nb, 0);
    rmpl::request pending_barrier = c.ibarrier();
    const int root = i % size();
    std::vector<double> data =
        rank() == root ? call_values(root, 7, i) : std::vector<double>(7, -1);
    c.broadcast(data, root);
    EXPECT_EQ(data, call_values(root, 7, i));
    c.barrier();
    std::vector<double> mine = call_values(rank(), 5, i), total(5, -1);
    c.reduce(mine, total, rmpl::ops::sum{}, (root + 1) % size());
    if (rank() == (root + 1) % size()) {
      EXPECT_EQ(total, call_sum(size(), 5, i));
    }
    std::vector<double> big =
        rank() == root ? call_values(root, 150000, i) : std::vector<double>(150000, -1);
    c.broadcast(big, root);  // 1.2 MB: the areas' rounds
    EXPECT_EQ(big, call_values(root, 150000, i));
    pending_barrier.wait();
    pending_cast.wait();
    pending_sum.wait();
    EXPECT_EQ(nb, call_values(0, 4, i));
    EXPECT_EQ(out, call_sum(size(), long_count, i));
  }
}

/// x o y for affine maps x(t) = a t + b modulo a prime: (x o y)(t) = x(y(t)). Not commutative.
struct affine {
  std::int64_t a, b;
  friend bool operator==(const affine&, const affine&) = default;
};
constexpr std::int64_t prime = 1000003;
affine compose(const affine& x, const affine& y) {
  return {x.a * y.a % prime, (x.a * y.b + x.b) % prime};
}
affine map_of(int who, std::size_t i, int salt) {
  return {(who * 31 + static_cast<int>(i) * 7 + salt) % (prime - 1) + 1,
          (who * 17 + static_cast<int>(i) * 3 + salt * 5) % prime};
}

// A non-commutative user operator is folded in the communicator's rank order at every root, on
// the world and on a communicator whose rank order is the job's reversed.
TEST_F(ShortProtocol, NonCommutativeReduceInRankOrder) {
  coll_test::forced_algorithm scope("reduce", "short");
  coll_test::forced_algorithm all_scope("allreduce", "short");
  rmpl::communicator reversed = world().split(0, size() - rank());
  ASSERT_TRUE(reversed);
  const rmpl::communicator w = world();
  const auto op = [](const affine& x, const affine& y) { return compose(x, y); };
  const rmpl::communicator* const both[] = {&w, &reversed};
  for (const rmpl::communicator* c : both) {
    for (int root = 0; root < c->size(); ++root) {
      for (std::size_t count : {std::size_t{1}, std::size_t{3}}) {  // 16 and 48 bytes
        const int salt = root * 10 + static_cast<int>(count);
        std::vector<affine> in(count), out(count, affine{-1, -1}), expected(count);
        for (std::size_t i = 0; i < count; ++i) {
          in[i] = map_of(c->rank(), i, salt);
          expected[i] = map_of(0, i, salt);
          for (int r = 1; r < c->size(); ++r)
            expected[i] = compose(expected[i], map_of(r, i, salt));
        }
        c->reduce(in, out, op, root);
        if (c->rank() == root) {
          for (std::size_t i = 0; i < count; ++i) {
            EXPECT_EQ(out[i], expected[i]) << "root " << root << ", element " << i;
          }
        }
        // In place at the root: its own operand is read before the result overwrites it.
        std::vector<affine> data = in;
        c->reduce(data, op, root);
        if (c->rank() == root) {
          EXPECT_EQ(data, expected) << "in place, root " << root;
        }
        // Allreduce: every rank folds every operand, in rank order too; in place as well.
        std::vector<affine> everywhere(count, affine{-1, -1});
        c->allreduce(in, everywhere, op);
        EXPECT_EQ(everywhere, expected) << "allreduce, salt " << salt;
        std::vector<affine> in_place = in;
        c->allreduce(in_place, op);
        EXPECT_EQ(in_place, expected) << "allreduce in place, salt " << salt;
      }
    }
  }
}

// A freed communicator's area goes to a new one only once every member has finished its short
// calls; the new communicator's calls, counted from 1 again, start on clean slots.
TEST_F(ShortProtocol, AreaReusedAfterAFreedCommunicator) {
  for (int round = 0; round < 6 && !HasFailure(); ++round) {
    rmpl::communicator c = world().dup();
    run_checked_calls(c, 37 + round * 11, round % size(), round);
    c.free();
  }
}

// Forced to "short", nonblocking calls and payloads over a line run "shared" (or the automatic
// choice) and give the same results.
TEST_F(ShortProtocol, ForcedShortFallsBackWhereItCannotRun) {
  coll_test::forced_algorithm b("broadcast", "short");
  coll_test::forced_algorithm r("reduce", "short");
  coll_test::forced_algorithm s("barrier", "short");
  std::vector<double> data = rank() == 0 ? call_values(0, 100, 1) : std::vector<double>(100, -1);
  world().broadcast(data, 0);
  EXPECT_EQ(data, call_values(0, 100, 1));
  std::vector<double> small = rank() == 0 ? call_values(0, 2, 2) : std::vector<double>(2, -1);
  world().ibroadcast(small, 0).wait();
  EXPECT_EQ(small, call_values(0, 2, 2));
  std::vector<double> in = call_values(rank(), 9, 3), out(9, -1);
  world().reduce(in, out, rmpl::ops::sum{}, size() - 1);
  if (rank() == size() - 1) {
    EXPECT_EQ(out, call_sum(size(), 9, 3));
  }
  std::vector<double> in2 = call_values(rank(), 2, 4), out2(2, -1);
  world().ireduce(in2, out2, rmpl::ops::sum{}, 0).wait();
  if (rank() == 0) {
    EXPECT_EQ(out2, call_sum(size(), 2, 4));
  }
  world().ibarrier().wait();
  world().barrier();
}

}  // namespace
