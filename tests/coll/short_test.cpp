// The short-message protocol of the shared-memory path (src/coll/shared_short.hpp): blocking
// barrier, broadcast, reduce, allreduce, allgather (blocks) and alltoall (all of a rank's blocks)
// of at most a cache line less its call number, through a ring of line-sized slots in each
// member's area. Edge cases: a root (or a reduce's non-roots) running up to the ring's depth of
// calls ahead of a slow rank, then an allgather or alltoall overwriting the slot it used, the ring
// wrapping many times with every value checked, every block size, short calls mixed with
// nonblocking collectives and with long broadcasts of the same communicator, non-commutative
// operators folded in rank order, every root, communicators whose rank order is not the job's or
// that hold part of it, and an area handed to a new communicator after a freed one used it.
#include <cstdint>
#include <string>
#include <vector>

#include "api/communicator.hpp"
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
/// The most doubles a wide short broadcast carries by default (63: 9 lines), and a wide call when
/// forced (133: 19 lines).
constexpr std::size_t max_broadcast_doubles = rmpl::coll::broadcast_short_max / sizeof(double);
constexpr std::size_t max_wide_doubles =
    rmpl::coll::payload_lines_max * rmpl::coll::short_max / sizeof(double);
/// Slots of each member's ring: how far a writer may run ahead.
constexpr int depth = static_cast<int>(rmpl::fabric::area_flags::short_depth);
constexpr int half = depth / 2;

/// Byte b of the block that communicator rank `from` sends to rank `to` in call `call` (an
/// allgather's block has to = 0): distinct for every sender, so a block read from another rank's
/// slot, or from the wrong place in it, shows.
std::uint8_t block_byte(int from, int to, std::size_t b, int call) {
  return static_cast<std::uint8_t>(from * 37 + to * 11 + static_cast<int>(b) * 5 + call * 3 + 1);
}
std::vector<std::uint8_t> block_of(int from, int to, std::size_t bytes, int call) {
  std::vector<std::uint8_t> v(bytes);
  for (std::size_t b = 0; b < bytes; ++b) v[b] = block_byte(from, to, b, call);
  return v;
}

/// An allgather of `block` bytes per rank on `c`, checked against the serial result; in place (the
/// rank's block already in its place in the receive buffer) when `in_place`.
void check_allgather(const rmpl::communicator& c, std::size_t block, int call, bool in_place) {
  const auto n = static_cast<std::size_t>(c.size());
  std::vector<std::uint8_t> expected;
  for (int r = 0; r < c.size(); ++r) {
    const std::vector<std::uint8_t> b = block_of(r, 0, block, call);
    expected.insert(expected.end(), b.begin(), b.end());
  }
  std::vector<std::uint8_t> out(n * block + 3, 0xee);  // 3 bytes past the end stay untouched
  const std::vector<std::uint8_t> in = block_of(c.rank(), 0, block, call);
  if (in_place) {
    std::copy(in.begin(), in.end(), out.begin() + static_cast<std::ptrdiff_t>(c.rank() * block));
    c.allgather(std::span(out).subspan(static_cast<std::size_t>(c.rank()) * block, block),
                std::span(out).first(n * block));
  } else {
    c.allgather(in, std::span(out).first(n * block));
  }
  ASSERT_EQ(
      std::vector<std::uint8_t>(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n * block)),
      expected)
      << "allgather of " << block << "-byte blocks" << (in_place ? " in place" : "");
  ASSERT_EQ(std::vector<std::uint8_t>(out.end() - 3, out.end()), std::vector<std::uint8_t>(3, 0xee))
      << "allgather wrote past its " << n * block << " bytes";
}

/// An alltoall of `block` bytes per pair on `c`, checked against the serial result.
void check_alltoall(const rmpl::communicator& c, std::size_t block, int call) {
  std::vector<std::uint8_t> in, expected;
  for (int r = 0; r < c.size(); ++r) {
    const std::vector<std::uint8_t> to = block_of(c.rank(), r, block, call);
    in.insert(in.end(), to.begin(), to.end());
    const std::vector<std::uint8_t> from = block_of(r, c.rank(), block, call);
    expected.insert(expected.end(), from.begin(), from.end());
  }
  std::vector<std::uint8_t> out(in.size(), 0xee);
  c.alltoall(in, out);
  ASSERT_EQ(out, expected) << "alltoall of " << block << "-byte blocks";
}

/// The largest alltoall block the short protocol takes on `c` (whole blocks in at most
/// short_lines_max lines of short_max bytes): short_max on up to 4 ranks, 28 on 8.
std::size_t alltoall_short_block(const rmpl::communicator& c) {
  const auto per_line_needed =
      (static_cast<std::size_t>(c.size()) + rmpl::coll::short_lines_max - 1) /
      rmpl::coll::short_lines_max;
  return rmpl::coll::short_max / per_line_needed;
}

constexpr const char* short_collectives[] = {"barrier",   "broadcast", "reduce",
                                             "allreduce", "allgather", "alltoall"};

/// Runs `calls` short calls on `c`, cycling through barrier, broadcast, allreduce, reduce,
/// allgather and alltoall with every root, payloads of 0 to max_doubles doubles (every other
/// broadcast, allreduce and reduce: 0 to max_wide_doubles, a wide call) and blocks of 0 to
/// short_max bytes (an alltoall's: 0 to short_max / size() each), checking each result. A
/// "laggard" rank sleeps now and then, so the others run ahead as far as the ring lets them. Adds
/// to `numbers` the call numbers the calls take (a wide call's: one per line).
void run_checked_calls(const rmpl::communicator& c, int calls, int laggard, int salt,
                       std::uint64_t* numbers = nullptr) {
  std::uint64_t taken = 0;
  for (const char* name : short_collectives) rmpl::coll::force_algorithm(name, "short");
  for (int i = 0; i < calls && !::testing::Test::HasFailure(); ++i) {
    const int call = i + salt;
    const int root = (i / 6) % c.size();
    const std::size_t count = static_cast<std::size_t>(i) % (max_doubles + 1);
    const std::size_t gather_block = static_cast<std::size_t>(i / 6) % (rmpl::coll::short_max + 1);
    const std::size_t exchange_block =
        static_cast<std::size_t>(i / 6) % (alltoall_short_block(c) + 1);
    SCOPED_TRACE(::testing::Message()
                 << "call " << i << ", root " << root << ", " << count << " doubles, blocks of "
                 << gather_block << " / " << exchange_block << " bytes, communicator rank "
                 << c.rank() << " of " << c.size());
    if (c.rank() == laggard && i % 97 == 5) rmpl_test::sleep_ms(20);
    // Broadcasts, reduces and allreduces over one line and wide ones, up to the widest call.
    const std::size_t wide_count = static_cast<std::size_t>(i * 5 + i / 6) % (max_wide_doubles + 1);
    const std::size_t count_of_call = i % 3 == 0 ? count : wide_count;
    taken += i % 6 == 5                 ? rmpl::coll::alltoall_short_lines(c.size(), exchange_block)
             : i % 6 >= 1 && i % 6 <= 3 ? rmpl::coll::payload_lines(count_of_call * sizeof(double))
                                        : 1;
    switch (i % 6) {
      case 4:
        check_allgather(c, gather_block, call, i % 12 == 10);
        break;
      case 5:
        check_alltoall(c, exchange_block, call);
        break;
      case 0:
        c.barrier();
        break;
      case 1: {
        std::vector<double> data = c.rank() == root ? call_values(root, count_of_call, call)
                                                    : std::vector<double>(count_of_call, -1);
        c.broadcast(data, root);
        ASSERT_EQ(data, call_values(root, count_of_call, call));
        break;
      }
      case 2: {
        std::vector<double> in = call_values(c.rank(), count_of_call, call), out(count_of_call, -1);
        c.allreduce(in, out, rmpl::ops::sum{});
        ASSERT_EQ(out, call_sum(c.size(), count_of_call, call));
        break;
      }
      case 3: {
        std::vector<double> in = call_values(c.rank(), count_of_call, call), out(count_of_call, -1);
        c.reduce(in, out, rmpl::ops::sum{}, root);
        if (c.rank() == root) {
          ASSERT_EQ(out, call_sum(c.size(), count_of_call, call));
        } else {
          // A non-root's buffer is not written.
          ASSERT_EQ(out, std::vector<double>(count_of_call, -1));
        }
      }
    }
  }
  for (const char* name : short_collectives) rmpl::coll::force_algorithm(name, "auto");
  if (numbers != nullptr) *numbers += taken;
}

/// How many short calls this rank has made on the world communicator (the protocol's count).
std::uint64_t world_short_calls() {
  // Calls that ran another algorithm take a number too, for their entry (shared_short.hpp).
  const auto& k = rmpl::detail::world_comm()->kernel;
  return k.short_calls - k.short_entries;
}

// Many times round the ring, with a rank lagging by up to 20 ms: on the world (every call of which
// takes the short protocol), on a communicator whose rank order is the job's reversed, and on the
// two halves of a split (ranks of each half interleaved with the other's).
TEST_F(ShortProtocol, WrapsAroundWithEveryValueChecked) {
  const std::uint64_t before = world_short_calls();
  std::uint64_t numbers = 0;
  run_checked_calls(world(), 8 * depth, size() - 1, 0, &numbers);
  EXPECT_EQ(world_short_calls() - before, numbers) << "not every call took the short protocol";
  rmpl::communicator reversed = world().split(0, size() - rank());
  ASSERT_TRUE(reversed);
  run_checked_calls(reversed, 4 * depth, 0, 3);
  rmpl::communicator halves = world().split(rank() % 2, size() - rank());
  ASSERT_TRUE(halves);
  run_checked_calls(halves, 4 * depth, halves.size() - 1, 5);
}

// Without forcing, blocking allgathers of blocks up to short_max and alltoalls of up to short_max
// bytes per rank take the short protocol; larger ones do not, and give the right result.
TEST_F(ShortProtocol, ExchangesChooseShortAutomatically) {
  const std::uint64_t before = world_short_calls();
  check_allgather(world(), 8, 1, false);
  check_allgather(world(), rmpl::coll::short_max, 2, false);
  // An alltoall takes one call number per line it uses.
  const std::uint64_t lines =
      rmpl::coll::alltoall_short_lines(size(), alltoall_short_block(world()));
  EXPECT_EQ(lines, (size() * alltoall_short_block(world()) + rmpl::coll::short_max - 1) /
                       rmpl::coll::short_max)
      << "the widest short alltoall wastes a line";
  check_alltoall(world(), alltoall_short_block(world()), 3);
  EXPECT_EQ(world_short_calls() - before, 2 + lines);
  check_allgather(world(), rmpl::coll::short_max + 1, 4, false);
  check_alltoall(world(), alltoall_short_block(world()) + 1, 5);
  EXPECT_EQ(world_short_calls() - before, 2 + lines)
      << "a call over the short protocol's sizes took it";
}

// Without forcing, blocking broadcasts up to broadcast_short_max bytes take the short protocol, one
// call number per line; a byte more does not, and both arrive whole.
TEST_F(ShortProtocol, WideBroadcastsChooseShortAutomatically) {
  constexpr std::size_t widest = rmpl::coll::broadcast_short_max;
  constexpr std::size_t widest_lines = widest / rmpl::coll::short_max;
  const int root = size() - 1;
  const std::uint64_t before = world_short_calls();
  for (const std::size_t bytes : {rmpl::coll::short_max + 1, widest}) {
    std::vector<std::uint8_t> data =
        rank() == root ? block_of(root, 0, bytes, 1) : std::vector<std::uint8_t>(bytes, 0xee);
    world().broadcast(data, root);
    EXPECT_EQ(data, block_of(root, 0, bytes, 1)) << bytes << " bytes";
  }
  EXPECT_EQ(world_short_calls() - before, 2 + widest_lines);
  std::vector<std::uint8_t> data = rank() == root ? block_of(root, 0, widest + 1, 2)
                                                  : std::vector<std::uint8_t>(widest + 1, 0xee);
  world().broadcast(data, root);
  EXPECT_EQ(data, block_of(root, 0, widest + 1, 2));
  EXPECT_EQ(world_short_calls() - before, 2 + widest_lines)
      << "a broadcast over the short protocol's sizes took it";
}

// Without forcing, blocking reduces up to reduce_short_max bytes and allreduces up to
// allreduce_short_max take the short protocol, one call number per line; 8 bytes more do not.
TEST_F(ShortProtocol, WideReductionsChooseShortAutomatically) {
  const int root = size() / 2;
  const std::uint64_t before = world_short_calls();
  std::uint64_t lines = 0;
  for (const bool all : {false, true}) {
    const std::size_t widest = all ? rmpl::coll::allreduce_short_max : rmpl::coll::reduce_short_max;
    for (const std::size_t bytes : {widest, widest + sizeof(double)}) {
      const std::size_t count = bytes / sizeof(double);
      const int call = static_cast<int>(bytes) + (all ? 1 : 0);
      std::vector<double> in = call_values(rank(), count, call), out(count, -1);
      if (all) {
        world().allreduce(in, out, rmpl::ops::sum{});
      } else {
        world().reduce(in, out, rmpl::ops::sum{}, root);
      }
      if (all || rank() == root) {
        EXPECT_EQ(out, call_sum(size(), count, call)) << bytes << " bytes";
      }
    }
    lines += rmpl::coll::payload_lines(widest);
  }
  EXPECT_EQ(world_short_calls() - before, lines)
      << "a reduction over the short protocol's default sizes took it, or one within did not";
}

// The root runs up to the ring's depth of broadcasts ahead of the sleeping others, then joins an
// allgather or alltoall, whose slot is then the one of a broadcast not yet read: it must wait
// until the readers left it. Numbers of broadcasts around 0, half the ring and the whole ring, so
// the exchange's call meets the waits of the half-ring counts and the full ring from every side.
TEST_F(ShortProtocol, ExchangeAfterRootRanAhead) {
  coll_test::forced_algorithm b("broadcast", "short");
  coll_test::forced_algorithm g("allgather", "short");
  coll_test::forced_algorithm a("alltoall", "short");
  std::vector<int> aheads;
  for (int i = 0; i <= 8; ++i) aheads.push_back(i);
  for (int i = half - 4; i <= half + 4; ++i) aheads.push_back(i);
  for (int i = depth - 8; i <= depth + 8; ++i) aheads.push_back(i);
  const int runs = 2 * static_cast<int>(aheads.size());
  const int root = size() / 2;
  for (int run = 0; run < runs && !HasFailure(); ++run) {
    const int ahead = aheads[static_cast<std::size_t>(run) % aheads.size()];
    SCOPED_TRACE(::testing::Message() << ahead << " broadcasts ahead, run " << run);
    if (rank() != root) rmpl_test::sleep_ms(10);
    for (int i = 0; i < ahead; ++i) {
      std::vector<double> data =
          rank() == root ? call_values(root, 2, run * 100 + i) : std::vector<double>(2, -1);
      world().broadcast(data, root);
      ASSERT_EQ(data, call_values(root, 2, run * 100 + i)) << "broadcast " << i;
    }
    if (run < runs / 2) {
      check_allgather(world(), 8, run, false);
    } else {
      check_alltoall(world(), alltoall_short_block(world()), run);
    }
  }
}

// The root broadcasts twice the ring's depth and more in a row while every other rank is asleep:
// it must run ahead until the ring is full, then wait (not overwrite a slot not yet read), and
// every value arrives. Likewise the non-roots of a reduce run ahead of a sleeping root.
TEST_F(ShortProtocol, RootRunsManyCallsAhead) {
  coll_test::forced_algorithm b("broadcast", "short");
  coll_test::forced_algorithm r("reduce", "short");
  const int root = size() / 2;
  if (rank() != root) rmpl_test::sleep_ms(50);
  for (int i = 0; i < 2 * depth + 8; ++i) {
    std::vector<double> data =
        rank() == root ? call_values(root, 3, i) : std::vector<double>(3, -1);
    world().broadcast(data, root);
    ASSERT_EQ(data, call_values(root, 3, i)) << "broadcast " << i;
  }
  // Wide ones (9 lines each): the ring is full after depth / 9 of them.
  if (rank() != root) rmpl_test::sleep_ms(50);
  for (int i = 0; i < depth / 4 + 3; ++i) {
    std::vector<double> data = rank() == root ? call_values(root, max_broadcast_doubles, i)
                                              : std::vector<double>(max_broadcast_doubles, -1);
    world().broadcast(data, root);
    ASSERT_EQ(data, call_values(root, max_broadcast_doubles, i)) << "wide broadcast " << i;
  }
  if (rank() == root) rmpl_test::sleep_ms(50);
  for (int i = 0; i < 2 * depth + 8; ++i) {
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
    // A pending allgather and alltoall of the same sizes as the blocking short ones below.
    const std::vector<double> nb_block = call_values(rank(), 2, i);
    std::vector<double> nb_gathered(2 * static_cast<std::size_t>(size()), -1);
    rmpl::request pending_gather = c.iallgather(nb_block, nb_gathered);
    std::vector<double> nb_sent, nb_received(static_cast<std::size_t>(size()), -1);
    for (int r = 0; r < size(); ++r) nb_sent.push_back(rank() * 1000 + r + i);
    rmpl::request pending_exchange = c.ialltoall(nb_sent, nb_received);
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
    check_allgather(c, 2 * sizeof(double), i, i % 2 == 1);
    check_alltoall(c, alltoall_short_block(c), i);
    pending_exchange.wait();
    pending_gather.wait();
    pending_barrier.wait();
    pending_cast.wait();
    pending_sum.wait();
    EXPECT_EQ(nb, call_values(0, 4, i));
    EXPECT_EQ(out, call_sum(size(), long_count, i));
    std::vector<double> gathered_expected, received_expected;
    for (int r = 0; r < size(); ++r) {
      const std::vector<double> b = call_values(r, 2, i);
      gathered_expected.insert(gathered_expected.end(), b.begin(), b.end());
      received_expected.push_back(r * 1000 + rank() + i);
    }
    EXPECT_EQ(nb_gathered, gathered_expected);
    EXPECT_EQ(nb_received, received_expected);
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
      // 16 and 48 bytes (one line), 64 and 1056 bytes (wide: 2 and 19 lines).
      for (std::size_t count : {std::size_t{1}, std::size_t{3}, std::size_t{4}, std::size_t{66}}) {
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

// Forced to "short", nonblocking calls and payloads over a line (an allgather's block, an
// alltoall's blocks together) run "shared" (or the automatic choice) and give the same results.
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
  coll_test::forced_algorithm g("allgather", "short");
  coll_test::forced_algorithm a("alltoall", "short");
  const std::uint64_t before = world_short_calls();
  check_allgather(world(), rmpl::coll::short_max + 1, 5, false);
  check_allgather(world(), 1000, 6, true);
  check_alltoall(world(), alltoall_short_block(world()) + 1, 7);
  std::vector<std::uint8_t> block = block_of(rank(), 0, 8, 8),
                            gathered(8 * static_cast<std::size_t>(size()), 0);
  world().iallgather(block, gathered).wait();
  for (int r = 0; r < size(); ++r) {
    EXPECT_EQ(std::vector<std::uint8_t>(gathered.begin() + r * 8, gathered.begin() + r * 8 + 8),
              block_of(r, 0, 8, 8))
        << "iallgather forced to short, block of rank " << r;
  }
  std::vector<std::uint8_t> sent(static_cast<std::size_t>(size()),
                                 static_cast<std::uint8_t>(rank())),
      received(static_cast<std::size_t>(size()), 0xee);
  world().ialltoall(sent, received).wait();
  for (int r = 0; r < size(); ++r) EXPECT_EQ(received[static_cast<std::size_t>(r)], r);
  EXPECT_EQ(world_short_calls(), before) << "a call the short protocol cannot take took it";
}

}  // namespace
