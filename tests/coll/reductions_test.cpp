// The reductions (reduce, allreduce, scan, exscan, reduce_scatter_block, reduce_scatter) with sum
// under every algorithm of each collective (forced), every root, counts 0, 1, 3, 1001 and a
// multi-MiB case, blocking, nonblocking and in place, and with user operators; compared with a
// serial fold of the operands every rank can compute. Inputs are chosen so that results are exact
// whatever order the library combines them in (small integers, doubles that are multiples of 1/4,
// products of 1, -1 and 2). The built-in operators on every type family: operators_test.cpp.
#include <algorithm>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reduction_checks.hpp"

namespace {

using coll_test::element_fn;
using coll_test::form;
using coll_test::input_kind;
using coll_test::inputs_of;
using coll_test::reduction_names;
using coll_test::sweep_reduction;
using rmpl_test::rank;
using rmpl_test::size;
using rmpl_test::world;

class Reductions : public coll_test::fixture {};
class UserOperators : public coll_test::fixture {};
class ReductionErrors : public coll_test::fixture {};

/// The large count of each reduction: the whole vector, or per rank for the scattering ones (so the
/// operand is always about 8 MiB).
std::size_t large_of(const std::string& collective) {
  if (collective == "reduce_scatter_block" || collective == "reduce_scatter") {
    return coll_test::large_count / static_cast<std::size_t>(size());
  }
  return coll_test::large_count;
}

// ---- every algorithm, root, count and form, with sum ----

// int for the small counts (exact, and the commonest case), double for the large one.
TEST_F(Reductions, EveryAlgorithmRootCountAndForm) {
  auto c = world();
  for (const std::string& collective : reduction_names()) {
    SCOPED_TRACE(collective);
    sweep_reduction<int>(collective, c, rmpl::ops::sum{}, inputs_of<int>(input_kind::general),
                         coll_test::small_counts(), 0);
    if (HasFailure()) return;
    if (coll_test::large_enabled()) {
      coll_test::for_each_algorithm(collective, [&](const std::string&) {
        coll_test::check_reduction<double>(collective, c, rmpl::ops::sum{},
                                           inputs_of<double>(input_kind::general),
                                           large_of(collective), size() - 1, form::blocking);
        coll_test::any_failed(c);
      });
    }
    if (HasFailure()) return;
  }
}

// Rank 0 has no exclusive prefix, so it need not pass a receive buffer at all; the others get the
// sum of the ranks below them, under every algorithm.
TEST_F(Reductions, ExscanRankZeroMayPassAnEmptyBuffer) {
  for (std::string_view algorithm : rmpl::coll::algorithms("exscan")) {
    SCOPED_TRACE(std::string(algorithm));
    rmpl::coll::force_algorithm("exscan", algorithm);
    const std::vector<long> mine = {rank() + 1L, 2L * rank()};
    std::vector<long> below(rank() == 0 ? 0 : 2, -1);
    world().exscan(mine, below, std::plus<>{});
    if (rank() > 0) {
      EXPECT_EQ(below[0], static_cast<long>(rank()) * (rank() + 1) / 2);
      EXPECT_EQ(below[1], static_cast<long>(rank()) * (rank() - 1));
    }
  }
  rmpl::coll::force_algorithm("exscan", "auto");
}

// ---- user operators that do commute ----

// Declared commutative (the library may reorder), and a stateful lambda not declared so (the
// library must keep rank order, which for a commutative function gives the same result).
TEST_F(UserOperators, CommutativeOnesGiveTheSameResultUnderEveryAlgorithm) {
  const std::int64_t modulus = 1000000007;
  auto sum_mod = [modulus](const std::int64_t& a, const std::int64_t& b) {
    return (a + b) % modulus;
  };
  element_fn<std::int64_t> e = [&](int r, std::size_t i, int salt) {
    return static_cast<std::int64_t>(
        coll_test::hash(static_cast<std::uint64_t>(r), i, static_cast<std::uint64_t>(salt)) %
        static_cast<std::uint64_t>(modulus));
  };
  auto c = world();
  for (const std::string& collective : reduction_names()) {
    SCOPED_TRACE(collective);
    sweep_reduction<std::int64_t>(collective, c, rmpl::commutative(sum_mod), e, {0, 1, 1001}, 0);
    sweep_reduction<std::int64_t>(collective, c, sum_mod, e, {1001}, 0);
    if (HasFailure()) return;
  }
  // A large one, where the reduce-scatter algorithms would be chosen.
  if (coll_test::large_enabled()) {
    coll_test::for_each_algorithm("allreduce", [&](const std::string&) {
      coll_test::check_allreduce(c, rmpl::commutative(sum_mod), e, coll_test::large_count,
                                 form::blocking);
      coll_test::any_failed(c);
    });
  }
}

// A 24-byte element with a commutative user operator: algorithms that split the vector into
// blocks (ring, Rabenseifner, recursive halving) must cut between elements, never inside one, also
// when the count does not divide by the number of ranks.
struct triple {
  std::int64_t a, b, c;
  friend bool operator==(const triple&, const triple&) = default;
};

TEST_F(UserOperators, WideElementsAreNeverSplit) {
  constexpr std::int64_t modulus = 1000003;
  auto add = rmpl::commutative([](const triple& x, const triple& y) {
    return triple{(x.a + y.a) % modulus, (x.b + y.b) % modulus, (x.c + y.c) % modulus};
  });
  element_fn<triple> e = [](int r, std::size_t i, int salt) {
    std::uint64_t h =
        coll_test::hash(static_cast<std::uint64_t>(r), i, static_cast<std::uint64_t>(salt));
    return triple{static_cast<std::int64_t>(h % modulus),
                  static_cast<std::int64_t>((h >> 20) % modulus),
                  static_cast<std::int64_t>((h >> 40) % modulus)};
  };
  auto c = world();
  for (const std::string& collective : reduction_names()) {
    SCOPED_TRACE(collective);
    sweep_reduction<triple>(collective, c, add, e, {1, 3, 1001},
                            collective == "reduce_scatter_block" || collective == "reduce_scatter"
                                ? 100003 / static_cast<std::size_t>(size())
                                : 100003);
    if (HasFailure()) return;
  }
}

// ---- errors ----

// User elements of 320 KB under every algorithm: larger than a round of the collective areas
// (256 KiB with the default area), which must then take another algorithm rather than cut an
// element (start.cpp's area_fits; they divided by zero once), and than the chunk the halving
// allreduce exchanges at a time (it looped forever on 0-byte chunks once).
struct block {
  std::int64_t v[40000];  // 320000 bytes
};

TEST_F(UserOperators, WideElementsUnderEveryAlgorithm) {
  auto add = rmpl::commutative([](const block& x, const block& y) {
    block z;
    for (std::size_t i = 0; i < std::size(z.v); ++i) z.v[i] = x.v[i] + y.v[i];
    return z;
  });
  auto c = world();
  std::vector<block> mine(2), sum(2);
  for (std::size_t k = 0; k < mine.size(); ++k) {
    for (std::size_t i = 0; i < std::size(mine[k].v); ++i) {
      mine[k].v[i] = static_cast<std::int64_t>(rank()) * 1000 + static_cast<std::int64_t>(i + k);
    }
  }
  const std::int64_t n = size();
  for (const char* collective : {"allreduce", "reduce"}) {
    SCOPED_TRACE(collective);
    for (std::string_view algorithm : rmpl::coll::algorithms(collective)) {
      SCOPED_TRACE(std::string(algorithm));
      rmpl::coll::force_algorithm(collective, algorithm);
      for (block& b : sum) std::fill(std::begin(b.v), std::end(b.v), -1);
      if (std::string_view(collective) == "allreduce") {
        c.allreduce(std::span<const block>(mine), std::span(sum), add);
      } else {
        c.reduce(std::span<const block>(mine), std::span(sum), add, size() - 1);
      }
      if (std::string_view(collective) == "allreduce" || rank() == size() - 1) {
        for (std::size_t k = 0; k < sum.size(); ++k) {
          for (std::size_t i = 0; i < std::size(sum[k].v); i += 997) {
            ASSERT_EQ(sum[k].v[i], 1000 * n * (n - 1) / 2 + n * static_cast<std::int64_t>(i + k))
                << "element " << k << ", word " << i;
          }
        }
      }
    }
    rmpl::coll::force_algorithm(collective, "auto");
  }
}

// Every rank passes the same bad argument, so each can refuse it before any communication; the
// communicator works afterwards.
TEST_F(ReductionErrors, BadRootsAndSizesAreRefused) {
  auto c = world();
  const int n = size();
  std::vector<int> one(1), two(2), blocks(static_cast<std::size_t>(n) * 2 - 1);
  coll_test::expect_error([&] { c.reduce(one, one, rmpl::ops::sum{}, n); },
                          rmpl::errc::invalid_rank, {"reduce", std::to_string(n)},
                          "reduce with root size()");
  coll_test::expect_error([&] { (void)c.ireduce(one, one, rmpl::ops::sum{}, -3); },
                          rmpl::errc::invalid_rank, {"reduce", "-3"}, "ireduce with root -3");
  coll_test::expect_error([&] { c.allreduce(two, one, rmpl::ops::sum{}); },
                          rmpl::errc::invalid_argument, {"allreduce"},
                          "allreduce of 2 elements into 1");
  coll_test::expect_error([&] { c.reduce_scatter_block(blocks, two, rmpl::ops::sum{}); },
                          rmpl::errc::invalid_argument, {"reduce_scatter"},
                          "reduce_scatter_block of 2 * size() - 1 elements into blocks of 2");
  std::vector<std::size_t> counts(static_cast<std::size_t>(n) + 1, 1);
  std::vector<int> total(static_cast<std::size_t>(n) + 1);
  coll_test::expect_error([&] { c.reduce_scatter(total, one, counts, rmpl::ops::sum{}); },
                          rmpl::errc::invalid_argument, {"reduce_scatter"},
                          "reduce_scatter with size() + 1 counts");
  std::vector<int> data{1};
  c.allreduce(data, rmpl::ops::sum{});
  EXPECT_EQ(data[0], n);
}

}  // namespace
