// Non-commutative user operators must be applied in rank order (x0 op x1 op ... op xn-1) by every
// algorithm of reduce (every root), allreduce, scan, exscan, reduce_scatter_block and
// reduce_scatter; an algorithm that needs commutativity must fall back to one that does not.
//
// Two operators prove the order: products of 2x2 integer matrices modulo a prime (random matrices
// almost never commute, so any reordering changes the product) and concatenation of short
// sequences of rank numbers (a wrong result reads as the order the library used, e.g. [0 2 1 3]).
// Both also run on communicators whose ranks are not the job's, where rank order means the
// communicator's order. Binary swap (reduce and allreduce "rabenseifner", the default for long
// vectors on a communicator without a collective area) is checked on its own at the counts and
// rank counts that exercise its halving and its folding of the first ranks in pairs.
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

// ---- binary swap (reduce and allreduce "rabenseifner") ----

/// The largest power of two not above n.
std::size_t floor_pow2(int n) {
  std::size_t p = 1;
  while (p * 2 <= static_cast<std::size_t>(n)) p *= 2;
  return p;
}

// Binary swap halves the vector between partners at distance 1, 2, 4...: each partial covers an
// aligned range of ranks and partners combine theirs lower range first; on 2^k + rem ranks the
// first rem pairs (2i, 2i + 1) fold first. Forced on the world (which would otherwise take the
// shared areas), at the fewest elements it takes (one per block), counts that leave the blocks
// uneven, and past the sizes where it is the default (64 KiB for reduce, 16 KiB for allreduce),
// every root and form.
TEST_F(MatrixProducts, BinarySwapKeepsRankOrder) {
  auto c = world();
  const std::size_t fewest = floor_pow2(size());
  for (const std::string collective : {"reduce", "allreduce"}) {
    SCOPED_TRACE(collective);
    coll_test::forced_algorithm scope(collective, "rabenseifner");
    for (std::size_t count : {fewest, fewest + 1, 2 * fewest + 3, std::size_t{2053}}) {
      const int roots = collective == "reduce" ? size() : 1;
      for (int root = 0; root < roots; ++root) {
        for (form f : {form::blocking, form::nonblocking, form::in_place}) {
          coll_test::check_reduction<mat2>(collective, c, matrix_product(), random_matrices(),
                                           count, collective == "reduce" ? root : -1, f);
          if (coll_test::any_failed(c)) return;
        }
      }
    }
  }
}

/// Reduce (to the last rank) or allreduce of `count` random matrices on `c` with the default
/// algorithm, checked against the serial product; returns how many products this rank computed.
std::size_t products_computed(const rmpl::communicator& c, const std::string& collective,
                              std::size_t count) {
  SCOPED_TRACE(collective + " of " + std::to_string(count) + " matrices");
  const int salt = coll_test::next_salt();
  const element_fn<mat2> e = random_matrices();
  const std::vector<mat2> in = coll_test::operand(e, c.rank(), 0, count, salt);
  std::vector<mat2> out(count);
  std::size_t products = 0;
  auto counted = [&products, op = matrix_product()](const mat2& x, const mat2& y) {
    ++products;
    return op(x, y);
  };
  const int root = c.size() - 1;
  if (collective == "reduce") {
    c.reduce(in, out, counted, root);
  } else {
    c.allreduce(in, out, counted);
  }
  if (collective == "allreduce" || c.rank() == root) {
    EXPECT_EQ(coll_test::first_difference(
                  out, coll_test::reduced(matrix_product(), e, salt, 0, c.size(), 0, count)),
              "");
  }
  return products;
}

// On a communicator without a collective area, the default for a non-commutative operator is the
// same as for a commutative one: binary swap from 64 KiB (reduce) and 16 KiB (allreduce), where
// the last rank computes products (the binomial tree's last rank only sends) and fewer than one
// per element (recursive doubling's computes at least one per element).
TEST_F(MatrixProducts, BinarySwapIsTheDefaultWithoutAnArea) {
  auto w = world();
  // The world holds an area and the dups take the others: the last dup has none.
  std::vector<rmpl::communicator> dups;
  const long slots = rmpl_test::env_long("RMPL_COLL_SLOTS", 8);
  for (long i = 0; i < slots; ++i) dups.push_back(w.dup());
  const rmpl::communicator& c = dups.back();
  const bool last = c.rank() == c.size() - 1 && c.size() > 1;
  const std::size_t large = std::size_t{1} << 17;  // 4 MiB of matrices
  {
    coll_test::forced_algorithm scope("reduce", "auto");
    const std::size_t below = (std::size_t{64} << 10) / sizeof(mat2) - 1;
    const std::size_t tree = products_computed(c, "reduce", below);
    if (last) {
      EXPECT_EQ(tree, 0u) << "below 64 KiB: the binomial tree";
    }
    for (std::size_t count : {below + 2, large + 3}) {
      const std::size_t swap = products_computed(c, "reduce", count);
      if (last) {
        EXPECT_GT(swap, 0u) << count << " matrices: binary swap";
        EXPECT_LT(swap, count) << count << " matrices: binary swap";
      }
    }
  }
  {
    coll_test::forced_algorithm scope("allreduce", "auto");
    const std::size_t below = (std::size_t{16} << 10) / sizeof(mat2) - 1;
    const std::size_t doubling = products_computed(c, "allreduce", below);
    if (last) {
      EXPECT_GE(doubling, below) << "below 16 KiB: recursive doubling";
    }
    for (std::size_t count : {below + 1, large + 3}) {
      const std::size_t swap = products_computed(c, "allreduce", count);
      if (last) {
        EXPECT_LT(swap, count) << count << " matrices: binary swap";
      }
    }
  }
}

// ---- the shared-memory path over several rounds ----

/// Reduce at every root and allreduce of `count` matrices through the collective areas, in place
/// and not, each in rank order.
void check_shared_rounds(std::size_t count) {
  auto c = world();
  for (const std::string collective : {"reduce", "allreduce"}) {
    SCOPED_TRACE(collective);
    coll_test::forced_algorithm scope(collective, "shared");
    const int roots = collective == "reduce" ? size() : 1;
    for (int root = 0; root < roots; ++root) {
      for (form f : {form::in_place, form::blocking}) {
        coll_test::check_reduction(collective, c, matrix_product(), random_matrices(), count,
                                   collective == "reduce" ? root : -1, f);
        if (coll_test::any_failed(c)) return;
      }
    }
  }
}

// Past one round of the collective area (256 KiB by default) a reduction goes through it round by
// round, and each rank folds its slice of a round from its own buffer and the others' areas. In
// place (where the output is the operand the fold still reads) and with a count that leaves the
// last round short and its slices uneven, every root of reduce and allreduce must keep rank order.
TEST_F(MatrixProducts, SharedRoundsKeepRankOrderInPlace) {
  check_shared_rounds(3 * ((std::size_t{256} << 10) / sizeof(mat2)) + 5);
}

// From 8 MiB (shared.cpp, stream_min) a reduction through the areas writes its result with
// streaming stores: each rank folds its slice reading its own operand straight from its input,
// streams its own result slice out first, then the others'. The 786 KiB of
// SharedRoundsKeepRankOrderInPlace stay below that. In place (the output is the input that the
// later rounds still read), with 32 full rounds and a last one of 5 elements, every root must keep
// rank order.
TEST_F(MatrixProducts, StreamedRoundsKeepRankOrderInPlace) {
  check_shared_rounds((std::size_t{8} << 20) / sizeof(mat2) + 5);
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
