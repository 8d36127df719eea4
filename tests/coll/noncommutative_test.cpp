// Non-commutative user operators must be applied in rank order (x0 op x1 op ... op xn-1) by every
// algorithm of reduce (every root), allreduce, scan, exscan, reduce_scatter_block and
// reduce_scatter; an algorithm that needs commutativity must fall back to one that does not.
//
// Two operators prove the order: products of 2x2 integer matrices modulo a prime (random matrices
// almost never commute, so any reordering changes the product) and concatenation of short
// sequences of rank numbers (a wrong result reads as the order the library used, e.g. [0 2 1 3]).
// Both also run on communicators whose ranks are not the job's, where rank order means the
// communicator's order.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "reduction_checks.hpp"

namespace {

using coll_test::element_fn;
using coll_test::form;
using coll_test::reduction_names;
using coll_test::sweep_reduction;
using rmpl_test::rank;
using rmpl_test::size;
using rmpl_test::world;

class MatrixProducts : public coll_test::fixture {};
class Concatenation : public coll_test::fixture {};

// ---- 2x2 matrices modulo a prime ----

struct mat2 {
  std::int64_t a, b, c, d;  // [a b; c d], each in [0, prime)
  friend bool operator==(const mat2&, const mat2&) = default;
  friend std::ostream& operator<<(std::ostream& out, const mat2& m) {
    return out << "[" << m.a << " " << m.b << "; " << m.c << " " << m.d << "]";
  }
};

constexpr std::int64_t prime = 1000000007;  // products of two entries fit in 63 bits

/// A lambda with state (the modulus), as users write them.
auto matrix_product() {
  return [p = prime](const mat2& x, const mat2& y) {
    return mat2{(x.a * y.a + x.b * y.c) % p, (x.a * y.b + x.b * y.d) % p,
                (x.c * y.a + x.d * y.c) % p, (x.c * y.b + x.d * y.d) % p};
  };
}

element_fn<mat2> random_matrices() {
  return [](int r, std::size_t i, int salt) {
    auto entry = [&](std::uint64_t k) {
      return static_cast<std::int64_t>(coll_test::hash(static_cast<std::uint64_t>(r), i * 4 + k,
                                                       static_cast<std::uint64_t>(salt)) %
                                       static_cast<std::uint64_t>(prime));
    };
    return mat2{entry(0), entry(1), entry(2), entry(3)};
  };
}

// The serial reference really is order-sensitive: the product of the ranks' matrices in reverse
// order differs (a sanity check of the test itself).
TEST_F(MatrixProducts, TheOperatorDoesNotCommute) {
  auto op = matrix_product();
  element_fn<mat2> e = random_matrices();
  mat2 x = e(0, 0, 1), y = e(1, 0, 1);
  EXPECT_FALSE(op(x, y) == op(y, x));
}

TEST_F(MatrixProducts, EveryAlgorithmRootCountAndForm) {
  auto c = world();
  for (const std::string& collective : reduction_names()) {
    SCOPED_TRACE(collective);
    // 64 Ki matrices (2 MiB) for the large case, per rank for the scattering collectives.
    std::size_t large = std::size_t{1} << 16;
    if (collective == "reduce_scatter_block" || collective == "reduce_scatter") {
      large /= static_cast<std::size_t>(size());
    }
    sweep_reduction<mat2>(collective, c, matrix_product(), random_matrices(),
                          coll_test::small_counts(), large);
    if (HasFailure()) return;
  }
}

// On a communicator in reverse job order, and on one without job rank 0: the product must follow
// the communicator's ranks.
TEST_F(MatrixProducts, FollowTheCommunicatorsRankOrder) {
  auto w = world();
  rmpl::communicator reversed = w.split(0, -rank());
  rmpl::communicator without_first = w.split(rank() == 0 && size() > 1 ? rmpl::undefined : 0, 0);
  for (const rmpl::communicator* c : {&reversed, &without_first}) {
    if (!*c) continue;
    SCOPED_TRACE(c == &reversed ? "reversed communicator" : "communicator without job rank 0");
    for (const std::string& collective : reduction_names()) {
      SCOPED_TRACE(collective);
      sweep_reduction<mat2>(collective, *c, matrix_product(), random_matrices(), {1, 1001}, 0);
      if (HasFailure()) return;
    }
  }
}

// ---- concatenation of rank numbers ----

struct trail {
  std::uint8_t length;
  std::uint8_t items[15];  // unused places stay zero, so that == compares only the sequence
  friend bool operator==(const trail&, const trail&) = default;
  friend std::ostream& operator<<(std::ostream& out, const trail& t) {
    out << "[";
    for (int k = 0; k < t.length && k < 15; ++k) out << (k ? " " : "") << int{t.items[k]};
    return out << "]";
  }
};

/// x then y; 255 marks a sequence that overflowed (more than 15 operands: not with these tests'
/// rank counts).
trail concatenate(const trail& x, const trail& y) {
  trail out{};
  if (x.length + y.length > 15) {
    out.length = 255;
    return out;
  }
  out.length = static_cast<std::uint8_t>(x.length + y.length);
  for (int k = 0; k < x.length; ++k) out.items[k] = x.items[k];
  for (int k = 0; k < y.length; ++k) out.items[x.length + k] = y.items[k];
  return out;
}

/// Rank r's element i: the sequence [r + 16 * ((i + salt) % 8)], so the rank reads off each item
/// (item % 16) and elements and calls differ.
element_fn<trail> rank_numbers() {
  return [](int r, std::size_t i, int salt) {
    trail t{};
    t.length = 1;
    t.items[0] = static_cast<std::uint8_t>(
        r + 16 * static_cast<int>((i + static_cast<std::size_t>(salt)) % 8));
    return t;
  };
}

TEST_F(Concatenation, ShowsRankOrderOnEveryCommunicator) {
  auto w = world();
  rmpl::communicator reversed = w.split(0, -rank());
  rmpl::communicator without_first = w.split(rank() == 0 && size() > 1 ? rmpl::undefined : 0, 0);
  for (const rmpl::communicator* c : {&w, &reversed, &without_first}) {
    if (!*c) continue;
    SCOPED_TRACE(c == &w          ? "world"
                 : c == &reversed ? "reversed communicator"
                                  : "communicator without job rank 0");
    for (const std::string& collective : reduction_names()) {
      SCOPED_TRACE(collective);
      sweep_reduction<trail>(collective, *c, concatenate, rank_numbers(), {1, 3}, 0);
      if (HasFailure()) return;
    }
  }
}

}  // namespace
