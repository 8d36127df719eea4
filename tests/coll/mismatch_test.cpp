// Run with RMPL_CHECK_COLLECTIVES=1: collectives whose ranks disagree on which collective, the
// root, the byte count, the operator or the per-rank counts must fail on every rank with a message
// naming the ranks and what each passed, instead of hanging or mixing up data; collectives that
// agree must still give the right results, and the communicator must go on working after a
// failure.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

#include "mp_test.hpp"

namespace {

using rmpl_test::rank;
using rmpl_test::size;
using rmpl_test::world;

class Mismatch : public rmpl_test::collective {
 protected:
  void SetUp() override {
    rmpl_test::collective::SetUp();
    const char* on = std::getenv("RMPL_CHECK_COLLECTIVES");
    ASSERT_TRUE(on != nullptr && std::string(on) == "1") << "run with RMPL_CHECK_COLLECTIVES=1";
  }
};
#define NEEDS_TWO_RANKS() \
  if (size() < 2) GTEST_SKIP() << "a disagreement needs 2 ranks"

/// `operation` must throw rmpl::error `code` whose message holds each of `words`.
template <class F>
void expect_disagreement(F&& operation, rmpl::errc code, const std::vector<std::string>& words,
                         const char* what) {
  try {
    operation();
    ADD_FAILURE() << what << ": no error on rank " << rank();
  } catch (const rmpl::error& e) {
    EXPECT_EQ(e.code(), code) << what << ": " << e.what();
    const std::string message = e.what();
    for (const std::string& w : words) {
      EXPECT_NE(message.find(w), std::string::npos)
          << what << ": the message does not mention \"" << w << "\": " << message;
    }
  }
}

/// "0, 2, 4" style: the ranks of one parity up to size().
std::string parity_ranks(int parity) {
  std::string out;
  std::vector<int> ranks;
  for (int r = parity; r < size(); r += 2) ranks.push_back(r);
  if (ranks.size() == 1) return "rank " + std::to_string(ranks[0]);
  out = "ranks ";
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(ranks[i]);
  }
  return out;
}

void expect_still_works() {
  auto comm = world();
  std::vector<int> v{rank() + 1};
  comm.allreduce(v, rmpl::ops::sum{});
  EXPECT_EQ(v[0], size() * (size() + 1) / 2);
}

TEST_F(Mismatch, DifferentRootsFailEverywhere) {
  NEEDS_TWO_RANKS();
  std::vector<int> data{rank()};
  const int root = rank() % 2;
  expect_disagreement([&] { world().broadcast(data, root); }, rmpl::errc::invalid_rank,
                      {"broadcast on rank " + std::to_string(rank()), "disagree on the root",
                       parity_ranks(0) + ": root 0", parity_ranks(1) + ": root 1"},
                      "broadcast with roots 0 and 1");
  EXPECT_EQ(data[0], rank()) << "the failed broadcast wrote into the buffer";
  expect_still_works();
}

TEST_F(Mismatch, DifferentByteCountsFailEverywhere) {
  NEEDS_TWO_RANKS();
  const bool last = rank() == size() - 1;
  std::vector<double> in(last ? 3 : 2, 1.0), out(3);
  expect_disagreement([&] { world().allreduce(in, out, rmpl::ops::sum{}); },
                      rmpl::errc::invalid_argument,
                      {"allreduce", "disagree on the byte count", ": 16 bytes",
                       "rank " + std::to_string(size() - 1) + ": 24 bytes"},
                      "allreduce of 2 and 3 doubles");
  expect_still_works();
}

TEST_F(Mismatch, DifferentCollectivesFailEverywhere) {
  NEEDS_TWO_RANKS();
  std::vector<int> data{7};
  expect_disagreement(
      [&] {
        if (rank() == 0) {
          world().barrier();
        } else {
          world().broadcast(data, 0);
        }
      },
      rmpl::errc::invalid_argument,
      {"disagree on which collective they call", "rank 0: barrier", ": broadcast"},
      "barrier on rank 0, broadcast elsewhere");
  expect_still_works();
}

TEST_F(Mismatch, DifferentOperatorsFailEverywhere) {
  NEEDS_TWO_RANKS();
  std::vector<int> v{1};
  expect_disagreement(
      [&] {
        if (rank() == 0) {
          world().allreduce(v, rmpl::ops::max{});
        } else {
          world().allreduce(v, rmpl::ops::sum{});
        }
      },
      rmpl::errc::invalid_argument, {"disagree on the reduction operator", "rank 0: operator"},
      "max on rank 0, sum elsewhere");
  expect_still_works();
}

TEST_F(Mismatch, DifferentCountsOfAllgathervFailEverywhere) {
  NEEDS_TWO_RANKS();
  const auto n = static_cast<std::size_t>(size());
  std::vector<std::size_t> counts(n, 1);
  if (rank() == 0) counts[n - 1] = 2;  // rank 0 expects two elements from the last rank
  std::vector<int> in(counts[static_cast<std::size_t>(rank())], rank()), out(n + 1);
  expect_disagreement([&] { world().allgatherv(in, out, counts); }, rmpl::errc::invalid_argument,
                      {"allgatherv", "per-rank counts"},
                      "allgatherv with counts that differ on rank 0");
  expect_still_works();
}

TEST_F(Mismatch, ARankThatRejectsItsOwnArgumentsFailsTheOthersToo) {
  NEEDS_TWO_RANKS();
  const int last = size() - 1;
  std::vector<int> data{rank()};
  // The last rank passes a root outside the communicator: it reports that, the others name it.
  const std::vector<std::string> words =
      rank() == last ? std::vector<std::string>{"root " + std::to_string(size()),
                                                "is not a rank of the communicator"}
                     : std::vector<std::string>{"rank " + std::to_string(last) +
                                                " rejected its own arguments (invalid rank"};
  expect_disagreement([&] { world().broadcast(data, rank() == last ? size() : 0); },
                      rmpl::errc::invalid_rank, words, "broadcast with a bad root on one rank");
  // Rank 0's receive buffer is too small: it throws at the call, the others at wait.
  std::vector<int> in(4, 1), out(rank() == 0 ? 2 : 4);
  expect_disagreement(
      [&] {
        rmpl::request r = world().iallreduce(in, out, rmpl::ops::sum{});
        r.wait();
      },
      rmpl::errc::invalid_argument,
      {rank() == 0 ? "holds 8 bytes but 16 are needed" : "rank 0 rejected its own arguments"},
      "iallreduce into a buffer too small on rank 0");
  expect_still_works();
}

TEST_F(Mismatch, AgreeingCollectivesStillGiveTheirResults) {
  auto comm = world();
  const auto n = static_cast<std::size_t>(size());
  for (int root = 0; root < size(); ++root) {
    std::vector<int> data(5, rank() == root ? root + 100 : -1);
    comm.broadcast(data, root);
    EXPECT_EQ(data, std::vector<int>(5, root + 100));
  }
  std::vector<long> mine{rank() + 1L, 2L}, sum(2);
  comm.allreduce(mine, sum, rmpl::ops::sum{});
  EXPECT_EQ(sum[0], static_cast<long>(n * (n + 1) / 2));
  std::vector<int> gathered(n);
  comm.allgather(std::vector<int>{rank()}, gathered);
  for (std::size_t r = 0; r < n; ++r) EXPECT_EQ(gathered[r], static_cast<int>(r));
  // Nonblocking collectives in flight together keep their order.
  std::vector<int> a{rank()}, b{rank() * 2};
  rmpl::request first = comm.iallreduce(a, a, rmpl::ops::sum{});
  rmpl::request second = comm.iallreduce(b, b, rmpl::ops::max{});
  second.wait();
  first.wait();
  EXPECT_EQ(a[0], static_cast<int>(n * (n - 1) / 2));
  EXPECT_EQ(b[0], 2 * (size() - 1));
  comm.barrier();
}

}  // namespace
