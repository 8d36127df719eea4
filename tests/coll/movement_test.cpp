// The collectives that move data without combining it: barrier, broadcast, gather(v), scatter(v),
// allgather(v), alltoall(v). Each runs under every algorithm it has (forced), every root, counts 0,
// 1, 3, 1001 and a multi-MiB case, blocking and nonblocking, and its result is compared with the
// blocks every rank can compute for every other rank. The v-forms use uneven counts with zeros and
// displacements that are not packed (blocks in reverse rank order with gaps, which must stay
// untouched).
#include <algorithm>
#include <numeric>
#include <span>
#include <string>
#include <vector>

#include "reduction_checks.hpp"

namespace {

using coll_test::first_difference;
using coll_test::for_each_algorithm;
using coll_test::items;
using coll_test::next_salt;
using coll_test::sentinel;
using coll_test::uneven_counts;
using rmpl_test::rank;
using rmpl_test::size;
using rmpl_test::world;

class Barrier : public coll_test::fixture {};
class Broadcast : public coll_test::fixture {};
class Gather : public coll_test::fixture {};
class Scatter : public coll_test::fixture {};
class Allgather : public coll_test::fixture {};
class Alltoall : public coll_test::fixture {};
class SubCommunicators : public coll_test::fixture {};
class Selection : public coll_test::fixture {};
class MovementErrors : public coll_test::fixture {};

/// A 24-byte element with no arithmetic meaning: the byte movers must not care about the type.
struct record {
  std::uint64_t a;
  std::int32_t b;
  char c[12];
};
static_assert(sizeof(record) == 24);

std::vector<int> roots_of(const rmpl::communicator& c, bool all) {
  std::vector<int> roots;
  if (all) {
    for (int r = 0; r < c.size(); ++r) roots.push_back(r);
  } else {
    roots.push_back(c.size() - 1);
  }
  return roots;
}

/// Runs check(count, root, nonblocking) under every algorithm of `collective`: every root (just 0
/// when not rooted) with each small count, blocking and nonblocking; then, unless
/// RMPL_TEST_LARGE=0, `large` (when non-zero) with one root, blocking.
template <class Check>
void sweep(const rmpl::communicator& c, std::string_view collective, bool rooted,
           const std::vector<std::size_t>& counts, std::size_t large, Check&& check) {
  for_each_algorithm(collective, [&](const std::string&) {
    for (std::size_t count : counts) {
      for (int root : roots_of(c, rooted)) {
        for (bool nonblocking : {false, true}) {
          check(count, root, nonblocking);
          if (coll_test::any_failed(c)) return;
        }
      }
    }
    if (large != 0 && coll_test::large_enabled()) {
      check(large, c.size() - 1, false);
      coll_test::any_failed(c);
    }
  });
}

/// "1001 elements, root 2, nonblocking" (root < 0: not a rooted collective).
std::string trace(std::size_t count, int root, bool nonblocking, const char* unit = "elements") {
  return std::to_string(count) + " " + unit +
         (root >= 0 ? ", root " + std::to_string(root) : std::string()) +
         (nonblocking ? ", nonblocking" : ", blocking");
}

/// Displacements of `counts` blocks in reverse rank order with a gap of 2 elements before each
/// block and after the last; `total` receives the buffer size they need.
std::vector<std::size_t> gapped_displs(const std::vector<std::size_t>& counts, std::size_t& total) {
  std::vector<std::size_t> displs(counts.size());
  std::size_t position = 0;
  for (std::size_t r = counts.size(); r-- > 0;) {
    position += 2;
    displs[r] = position;
    position += counts[r];
  }
  total = position + 2;
  return displs;
}

/// The packed displacements of `counts` (and their total).
std::vector<std::size_t> packed_displs(const std::vector<std::size_t>& counts, std::size_t& total) {
  std::vector<std::size_t> displs(counts.size());
  std::size_t position = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    displs[r] = position;
    position += counts[r];
  }
  total = position;
  return displs;
}

// ---------------------------------------------------------------- barrier

TEST_F(Barrier, EveryAlgorithmRepeatedly) {
  auto c = world();
  for_each_algorithm("barrier", [&](const std::string&) {
    for (int i = 0; i < 20; ++i) c.barrier();
    std::vector<rmpl::request> pending;
    for (int i = 0; i < 5; ++i) pending.push_back(c.ibarrier());
    rmpl::wait_all(pending);
  });
}

// No rank leaves a barrier before the last one enters it. The late rank (a different one for each
// algorithm) notes the time (CLOCK_MONOTONIC, shared by the processes of one host) just before it
// enters; every other rank notes when it leaves, and must have left after.
TEST_F(Barrier, NoRankLeavesBeforeTheLastEnters) {
  auto c = world();
  int index = 0;
  for_each_algorithm("barrier", [&](const std::string&) {
    const int late = (index++ * 3 + size() - 1) % size();
    for (bool nonblocking : {false, true}) {
      SCOPED_TRACE(::testing::Message()
                   << "late rank " << late << (nonblocking ? ", ibarrier" : ", barrier"));
      rmpl_test::barrier();
      double entered = 0, left = 0;
      if (rank() == late) {
        rmpl_test::sleep_ms(50);
        entered = rmpl::session::wtime();
      }
      if (nonblocking) {
        rmpl::request r = c.ibarrier();
        while (!r.test()) {  // polling must not complete it early either
        }
      } else {
        c.barrier();
      }
      left = rmpl::session::wtime();
      // Tell everyone when the late rank entered (point-to-point, tag 0 on the same communicator).
      if (rank() == late) {
        for (int r = 0; r < size(); ++r) {
          if (r != late) c.send_value(entered, r, 0);
        }
      } else {
        entered = c.recv_value<double>(late, 0);
        EXPECT_GE(left, entered) << "rank " << rank() << " left the barrier "
                                 << (entered - left) * 1e3 << " ms before rank " << late
                                 << " entered it";
      }
    }
  });
}

// ---------------------------------------------------------------- broadcast

template <class T>
void check_broadcast(const rmpl::communicator& c, std::size_t count, int root, bool nonblocking) {
  SCOPED_TRACE(trace(count, root, nonblocking));
  const int salt = next_salt();
  std::vector<T> want = items<T>(root, count, salt);
  std::vector<T> data = c.rank() == root ? want : std::vector<T>(count, sentinel<T>());
  if (nonblocking) {
    rmpl::request r = c.ibroadcast(data, root);
    r.wait();
  } else {
    c.broadcast(data, root);
  }
  EXPECT_EQ(first_difference(data, want), "");
}

TEST_F(Broadcast, EveryAlgorithmRootAndCount) {
  auto c = world();
  sweep(c, "broadcast", true, coll_test::small_counts(), coll_test::large_count,
        [&](std::size_t count, int root, bool nonblocking) {
          check_broadcast<double>(c, count, root, nonblocking);
        });
}

TEST_F(Broadcast, OtherElementTypes) {
  auto c = world();
  sweep(c, "broadcast", false, {1, 3, 1001, 70001}, 0, [&](std::size_t count, int root, bool nb) {
    check_broadcast<char>(c, count, root, nb);
    check_broadcast<int>(c, count, root, nb);
    check_broadcast<record>(c, count, root, nb);
  });
}

// ---------------------------------------------------------------- gather

template <class T>
void check_gather(const rmpl::communicator& c, std::size_t count, int root, bool nonblocking) {
  SCOPED_TRACE(trace(count, root, nonblocking, "elements per rank"));
  const int salt = next_salt();
  const std::size_t total = count * static_cast<std::size_t>(c.size());
  std::vector<T> in = items<T>(c.rank(), count, salt);
  // Outside the root the receive buffer is not used: empty for the nonblocking form, full of
  // sentinels (which must stay) for the blocking one.
  const bool at_root = c.rank() == root;
  std::vector<T> out(at_root || !nonblocking ? total : 0, sentinel<T>());
  if (nonblocking) {
    rmpl::request r = c.igather(in, out, root);
    r.wait();
  } else {
    c.gather(in, out, root);
  }
  std::vector<T> want;
  if (at_root) {
    for (int r = 0; r < c.size(); ++r) {
      std::vector<T> block = items<T>(r, count, salt);
      want.insert(want.end(), block.begin(), block.end());
    }
  } else {
    want.assign(out.size(), sentinel<T>());
  }
  EXPECT_EQ(first_difference(out, want), "") << (at_root ? "at the root" : "outside the root");
  EXPECT_EQ(first_difference(in, items<T>(c.rank(), count, salt)), "") << "gather wrote its input";
}

template <class T>
void check_gatherv(const rmpl::communicator& c, std::size_t base, int root, bool nonblocking) {
  const bool gapped = nonblocking;  // the sweep's second pass: gapped displacements
  SCOPED_TRACE(trace(base, root, nonblocking, "base count") + (gapped ? ", gapped" : ", packed"));
  const int salt = next_salt();
  std::vector<std::size_t> counts = uneven_counts(c.size(), base);
  std::size_t total = 0;
  std::vector<std::size_t> displs =
      gapped ? gapped_displs(counts, total) : packed_displs(counts, total);
  std::vector<T> in = items<T>(c.rank(), counts[static_cast<std::size_t>(c.rank())], salt);
  const bool at_root = c.rank() == root;
  std::vector<T> out(at_root ? total : 0, sentinel<T>());
  std::vector<std::size_t> no_displs;
  auto d = gapped ? std::span<const std::size_t>(displs) : std::span<const std::size_t>(no_displs);
  if (nonblocking) {
    rmpl::request r = c.igatherv(in, out, counts, d, root);
    r.wait();
  } else {
    c.gatherv(in, out, counts, d, root);
  }
  if (at_root) {
    std::vector<T> want(total, sentinel<T>());
    for (int r = 0; r < c.size(); ++r) {
      std::vector<T> block = items<T>(r, counts[static_cast<std::size_t>(r)], salt);
      std::copy(block.begin(), block.end(),
                want.begin() + static_cast<std::ptrdiff_t>(displs[static_cast<std::size_t>(r)]));
    }
    EXPECT_EQ(first_difference(out, want), "");
  }
}

TEST_F(Gather, EveryAlgorithmRootAndCount) {
  auto c = world();
  sweep(c, "gather", true, coll_test::small_counts(), coll_test::large_count / size(),
        [&](std::size_t count, int root, bool nb) { check_gather<int>(c, count, root, nb); });
  sweep(c, "gather", false, {1, 3, 1001}, 0, [&](std::size_t count, int root, bool nb) {
    check_gather<char>(c, count, root, nb);
    check_gather<record>(c, count, root, nb);
  });
}

TEST_F(Gather, VectorFormUnevenCountsAndGaps) {
  auto c = world();
  sweep(c, "gatherv", true, {0, 1, 3, 1001}, coll_test::large_count / size(),
        [&](std::size_t base, int root, bool nb) { check_gatherv<double>(c, base, root, nb); });
  // The nonblocking form, with every rank's count zero but one.
  std::vector<std::size_t> counts(static_cast<std::size_t>(size()), 0);
  counts.back() = 5;
  std::vector<int> in(rank() == size() - 1 ? 5 : 0, rank() + 1), out(rank() == 0 ? 5 : 0, -1);
  rmpl::request r = c.igatherv(in, out, counts, {}, 0);
  r.wait();
  if (rank() == 0) {
    EXPECT_EQ(out, std::vector<int>(5, size()));
  }
}

// ---------------------------------------------------------------- scatter

template <class T>
void check_scatter(const rmpl::communicator& c, std::size_t count, int root, bool nonblocking) {
  SCOPED_TRACE(trace(count, root, nonblocking, "elements per rank"));
  const int salt = next_salt();
  std::vector<T> in;
  if (c.rank() == root) {
    for (int r = 0; r < c.size(); ++r) {
      std::vector<T> block = items<T>(r, count, salt);
      in.insert(in.end(), block.begin(), block.end());
    }
  }
  std::vector<T> out(count, sentinel<T>());
  if (nonblocking) {
    rmpl::request r = c.iscatter(in, out, root);
    r.wait();
  } else {
    c.scatter(in, out, root);
  }
  EXPECT_EQ(first_difference(out, items<T>(c.rank(), count, salt)), "");
}

template <class T>
void check_scatterv(const rmpl::communicator& c, std::size_t base, int root, bool nonblocking) {
  const bool gapped = nonblocking;  // the sweep's second pass: gapped displacements
  SCOPED_TRACE(trace(base, root, nonblocking, "base count") + (gapped ? ", gapped" : ", packed"));
  const int salt = next_salt();
  std::vector<std::size_t> counts = uneven_counts(c.size(), base);
  std::size_t total = 0;
  std::vector<std::size_t> displs =
      gapped ? gapped_displs(counts, total) : packed_displs(counts, total);
  std::vector<T> in;
  if (c.rank() == root) {
    in.assign(total, sentinel<T>());
    for (int r = 0; r < c.size(); ++r) {
      std::vector<T> block = items<T>(r, counts[static_cast<std::size_t>(r)], salt);
      std::copy(block.begin(), block.end(),
                in.begin() + static_cast<std::ptrdiff_t>(displs[static_cast<std::size_t>(r)]));
    }
  }
  const std::size_t mine = counts[static_cast<std::size_t>(c.rank())];
  std::vector<T> out(mine, sentinel<T>());
  std::vector<std::size_t> no_displs;
  auto d = gapped ? std::span<const std::size_t>(displs) : std::span<const std::size_t>(no_displs);
  if (nonblocking) {
    rmpl::request r = c.iscatterv(in, counts, d, out, root);
    r.wait();
  } else {
    c.scatterv(in, counts, d, out, root);
  }
  EXPECT_EQ(first_difference(out, items<T>(c.rank(), mine, salt)), "");
}

TEST_F(Scatter, EveryAlgorithmRootAndCount) {
  auto c = world();
  sweep(c, "scatter", true, coll_test::small_counts(), coll_test::large_count / size(),
        [&](std::size_t count, int root, bool nb) { check_scatter<int>(c, count, root, nb); });
  sweep(c, "scatter", false, {1, 3, 1001}, 0, [&](std::size_t count, int root, bool nb) {
    check_scatter<char>(c, count, root, nb);
    check_scatter<record>(c, count, root, nb);
  });
}

TEST_F(Scatter, VectorFormUnevenCountsAndGaps) {
  auto c = world();
  sweep(c, "scatterv", true, {0, 1, 3, 1001}, coll_test::large_count / size(),
        [&](std::size_t base, int root, bool nb) { check_scatterv<double>(c, base, root, nb); });
}

// ---------------------------------------------------------------- allgather

/// What allgather of `count` items per rank from `members` ranks gives: every rank's block in
/// rank order.
template <class T>
std::vector<T> gathered(int members, std::size_t count, int salt) {
  std::vector<T> want;
  for (int r = 0; r < members; ++r) {
    std::vector<T> block = items<T>(r, count, salt);
    want.insert(want.end(), block.begin(), block.end());
  }
  return want;
}

/// allgather of `count` items per rank; `in_place`: `in` is this rank's own block of `out`.
template <class T>
void check_allgather(const rmpl::communicator& c, std::size_t count, bool nonblocking,
                     bool in_place = false) {
  SCOPED_TRACE(trace(count, -1, nonblocking, "elements per rank") + (in_place ? ", in place" : ""));
  const int salt = next_salt();
  const auto me = static_cast<std::size_t>(c.rank());
  std::vector<T> mine = items<T>(c.rank(), count, salt);
  std::vector<T> out(count * static_cast<std::size_t>(c.size()), sentinel<T>());
  if (in_place)
    std::copy(mine.begin(), mine.end(), out.begin() + static_cast<std::ptrdiff_t>(me * count));
  const std::span<const T> in =
      in_place ? std::span<const T>(out.data() + me * count, count) : std::span<const T>(mine);
  if (nonblocking) {
    rmpl::request r = c.iallgather(in, out);
    r.wait();
  } else {
    c.allgather(in, out);
  }
  EXPECT_EQ(first_difference(out, gathered<T>(c.size(), count, salt)), "");
}

template <class T>
void check_allgatherv(const rmpl::communicator& c, std::size_t base, bool nonblocking) {
  const bool gapped = nonblocking;
  SCOPED_TRACE(trace(base, -1, nonblocking, "base count") + (gapped ? ", gapped" : ", packed"));
  const int salt = next_salt();
  std::vector<std::size_t> counts = uneven_counts(c.size(), base);
  std::size_t total = 0;
  std::vector<std::size_t> displs =
      gapped ? gapped_displs(counts, total) : packed_displs(counts, total);
  std::vector<T> in = items<T>(c.rank(), counts[static_cast<std::size_t>(c.rank())], salt);
  std::vector<T> out(total, sentinel<T>());
  if (nonblocking) {
    rmpl::request r = c.iallgatherv(in, out, counts, displs);
    r.wait();
  } else {
    c.allgatherv(in, out, counts);  // packed: the default displacements
  }
  std::vector<T> want(total, sentinel<T>());
  for (int r = 0; r < c.size(); ++r) {
    std::vector<T> block = items<T>(r, counts[static_cast<std::size_t>(r)], salt);
    std::copy(block.begin(), block.end(),
              want.begin() + static_cast<std::ptrdiff_t>(displs[static_cast<std::size_t>(r)]));
  }
  EXPECT_EQ(first_difference(out, want), "");
}

TEST_F(Allgather, EveryAlgorithmAndCount) {
  auto c = world();
  sweep(c, "allgather", false, coll_test::small_counts(), coll_test::large_count / size(),
        [&](std::size_t count, int, bool nb) { check_allgather<double>(c, count, nb); });
  sweep(c, "allgather", false, {1, 3, 1001}, 0, [&](std::size_t count, int, bool nb) {
    check_allgather<char>(c, count, nb);
    check_allgather<record>(c, count, nb);
  });
}

// In place: `in` is this rank's own block of `out`. The algorithms send their first step straight
// from `in` and copy it into `out` only after posting it (allgather.cpp), so here the block they
// send is the one they would copy onto itself: it must go out whole and stay as it was.
TEST_F(Allgather, InPlaceEveryAlgorithm) {
  auto c = world();
  sweep(c, "allgather", false, coll_test::small_counts(), coll_test::large_count / size(),
        [&](std::size_t count, int, bool nb) { check_allgather<double>(c, count, nb, true); });
}

TEST_F(Allgather, VectorFormUnevenCountsAndGaps) {
  auto c = world();
  sweep(c, "allgatherv", false, {0, 1, 3, 1001}, coll_test::large_count / size(),
        [&](std::size_t base, int, bool nb) { check_allgatherv<int>(c, base, nb); });
}

// ---------------------------------------------------------------- alltoall

/// The block rank `from` sends to rank `to`.
template <class T>
std::vector<T> block_between(int from, int to, std::size_t count, int salt) {
  return items<T>(from * 4096 + to, count, salt);
}

template <class T>
void check_alltoall(const rmpl::communicator& c, std::size_t count, bool nonblocking) {
  SCOPED_TRACE(trace(count, -1, nonblocking, "elements per block"));
  const int salt = next_salt();
  std::vector<T> in, want;
  for (int r = 0; r < c.size(); ++r) {
    std::vector<T> to = block_between<T>(c.rank(), r, count, salt);
    in.insert(in.end(), to.begin(), to.end());
    std::vector<T> from = block_between<T>(r, c.rank(), count, salt);
    want.insert(want.end(), from.begin(), from.end());
  }
  std::vector<T> out(in.size(), sentinel<T>());
  if (nonblocking) {
    rmpl::request r = c.ialltoall(in, out);
    r.wait();
  } else {
    c.alltoall(in, out);
  }
  EXPECT_EQ(first_difference(out, want), "");
}

/// Elements rank i sends to rank j in the v-form: uneven, a quarter of the pairs empty (including
/// some ranks to themselves).
std::size_t pair_count(int i, int j, std::size_t base) {
  return (i + 2 * j) % 4 == 0 ? 0 : base + static_cast<std::size_t>((i + 3 * j) % 5);
}

template <class T>
void check_alltoallv(const rmpl::communicator& c, std::size_t base, bool nonblocking) {
  const bool gapped = nonblocking;
  SCOPED_TRACE(trace(base, -1, nonblocking, "base count") + (gapped ? ", gapped" : ", packed"));
  const int salt = next_salt();
  const std::size_t n = static_cast<std::size_t>(c.size());
  std::vector<std::size_t> send_counts(n), recv_counts(n);
  for (int r = 0; r < c.size(); ++r) {
    send_counts[static_cast<std::size_t>(r)] = pair_count(c.rank(), r, base);
    recv_counts[static_cast<std::size_t>(r)] = pair_count(r, c.rank(), base);
  }
  std::size_t send_total = 0, recv_total = 0;
  std::vector<std::size_t> send_displs =
      gapped ? gapped_displs(send_counts, send_total) : packed_displs(send_counts, send_total);
  std::vector<std::size_t> recv_displs =
      gapped ? gapped_displs(recv_counts, recv_total) : packed_displs(recv_counts, recv_total);
  std::vector<T> in(send_total, sentinel<T>()), out(recv_total, sentinel<T>()),
      want(recv_total, sentinel<T>());
  for (std::size_t r = 0; r < n; ++r) {
    std::vector<T> to = block_between<T>(c.rank(), static_cast<int>(r), send_counts[r], salt);
    std::copy(to.begin(), to.end(), in.begin() + static_cast<std::ptrdiff_t>(send_displs[r]));
    std::vector<T> from = block_between<T>(static_cast<int>(r), c.rank(), recv_counts[r], salt);
    std::copy(from.begin(), from.end(), want.begin() + static_cast<std::ptrdiff_t>(recv_displs[r]));
  }
  if (nonblocking) {
    rmpl::request r = c.ialltoallv(in, send_counts, send_displs, out, recv_counts, recv_displs);
    r.wait();
  } else {
    c.alltoallv(in, send_counts, send_displs, out, recv_counts, recv_displs);
  }
  EXPECT_EQ(first_difference(out, want), "");
}

TEST_F(Alltoall, EveryAlgorithmAndCount) {
  auto c = world();
  sweep(c, "alltoall", false, coll_test::small_counts(), coll_test::large_count / size(),
        [&](std::size_t count, int, bool nb) { check_alltoall<double>(c, count, nb); });
  sweep(c, "alltoall", false, {1, 3, 1001}, 0, [&](std::size_t count, int, bool nb) {
    check_alltoall<char>(c, count, nb);
    check_alltoall<record>(c, count, nb);
  });
}

TEST_F(Alltoall, VectorFormUnevenCountsAndGaps) {
  auto c = world();
  sweep(c, "alltoallv", false, {0, 1, 3, 1001}, coll_test::large_count / size() / 2,
        [&](std::size_t base, int, bool nb) { check_alltoallv<int>(c, base, nb); });
}

// ---------------------------------------------------------------- other communicators

// The same collectives on communicators whose ranks are not the job's: reversed, and without the
// job's rank 0 (an odd size where the job's is even). Roots and blocks are in the communicator's
// ranks.
TEST_F(SubCommunicators, RanksAreTheCommunicators) {
  auto w = world();
  rmpl::communicator reversed = w.split(0, -rank());
  rmpl::communicator alone = w.split(rank(), 0);  // a communicator of one per rank
  rmpl::communicator without_first = w.split(rank() == 0 && size() > 1 ? rmpl::undefined : 0, 0);
  for (const rmpl::communicator* c : {&reversed, &alone, &without_first}) {
    if (!*c) continue;  // job rank 0 is outside the last one
    SCOPED_TRACE(c == &reversed ? "reversed communicator"
                 : c == &alone  ? "communicator of one"
                                : "communicator without job rank 0");
    for (int root = 0; root < c->size(); ++root) {
      for_each_algorithm("broadcast", [&](const std::string&) {
        check_broadcast<int>(*c, 1001, root, root % 2 == 1);
        coll_test::any_failed(*c);
      });
      for_each_algorithm("gather", [&](const std::string&) {
        check_gather<int>(*c, 3, root, root % 2 == 1);
        coll_test::any_failed(*c);
      });
      for_each_algorithm("scatter", [&](const std::string&) {
        check_scatter<int>(*c, 3, root, root % 2 == 1);
        coll_test::any_failed(*c);
      });
      for_each_algorithm("gatherv", [&](const std::string&) {
        check_gatherv<int>(*c, 3, root, true);
        coll_test::any_failed(*c);
      });
      for_each_algorithm("scatterv", [&](const std::string&) {
        check_scatterv<int>(*c, 3, root, true);
        coll_test::any_failed(*c);
      });
    }
    for_each_algorithm("allgather", [&](const std::string&) {
      check_allgather<int>(*c, 3, true);
      coll_test::any_failed(*c);
    });
    for_each_algorithm("allgatherv", [&](const std::string&) {
      check_allgatherv<int>(*c, 3, true);
      coll_test::any_failed(*c);
    });
    for_each_algorithm("alltoall", [&](const std::string&) {
      check_alltoall<int>(*c, 3, false);
      coll_test::any_failed(*c);
    });
    for_each_algorithm("alltoallv", [&](const std::string&) {
      check_alltoallv<int>(*c, 3, true);
      coll_test::any_failed(*c);
    });
    for_each_algorithm("barrier", [&](const std::string&) { c->barrier(); });
  }
}

// ---------------------------------------------------------------- algorithm selection

TEST_F(Selection, EveryCollectiveListsAutoFirstAndAcceptsItsNames) {
  for (std::string_view name : rmpl::coll::collective_names) {
    SCOPED_TRACE(std::string(name));
    std::vector<std::string> algorithms = coll_test::algorithms_of(name);
    ASSERT_FALSE(algorithms.empty());
    EXPECT_EQ(algorithms.front(), "auto");
    for (const std::string& a : algorithms) {
      EXPECT_NO_THROW(rmpl::coll::force_algorithm(name, a)) << a;
    }
    rmpl::coll::force_algorithm(name, "auto");
  }
}

TEST_F(Selection, UnknownNamesAreRefusedWithTheChoices) {
  std::vector<std::string> algorithms = coll_test::algorithms_of("allreduce");
  std::vector<std::string> words{"allreduce", "no_such_algorithm"};
  if (algorithms.size() > 1) words.push_back(algorithms[1]);  // names a valid choice
  coll_test::expect_error([] { rmpl::coll::force_algorithm("allreduce", "no_such_algorithm"); },
                          rmpl::errc::invalid_argument, words,
                          "force_algorithm with an unknown algorithm");
  coll_test::expect_error([] { rmpl::coll::force_algorithm("allreduction", "auto"); },
                          rmpl::errc::invalid_argument, {"allreduction"},
                          "force_algorithm with an unknown collective");
  coll_test::expect_error([] { (void)rmpl::coll::algorithms("no_such_collective"); },
                          rmpl::errc::invalid_argument, {"no_such_collective"},
                          "algorithms() of an unknown collective");
  // The refused calls changed nothing: the default still runs.
  std::vector<int> data{1};
  world().allreduce(data, rmpl::ops::sum{});
  EXPECT_EQ(data[0], size());
}

// Every collective once with the default choice ("auto", or what RMPL_COLL_<NAME> says: the
// env_* variants of this program run this test with algorithms chosen by the environment).
TEST_F(Selection, DefaultChoiceOfEveryCollective) {
  auto c = world();
  const int root = size() - 1;
  for (std::size_t count : {std::size_t{3}, std::size_t{1001}}) {
    c.barrier();
    check_broadcast<double>(c, count, root, false);
    check_gather<int>(c, count, root, true);
    check_gatherv<int>(c, count, root, true);
    check_scatter<int>(c, count, root, false);
    check_scatterv<int>(c, count, root, true);
    check_allgather<int>(c, count, false);
    check_allgatherv<int>(c, count, true);
    check_alltoall<int>(c, count, true);
    check_alltoallv<int>(c, count, false);
    for (const std::string& collective : coll_test::reduction_names()) {
      coll_test::check_reduction<double>(
          collective, c, rmpl::ops::sum{},
          coll_test::inputs_of<double>(coll_test::input_kind::general), count, root,
          coll_test::form::blocking);
    }
  }
}

// ---------------------------------------------------------------- errors

// Every rank passes the same bad argument, so every rank can refuse it before any communication.
TEST_F(MovementErrors, BadRootsAndSizesAreRefused) {
  auto c = world();
  const int n = size();
  std::vector<int> one(1), many(static_cast<std::size_t>(n) + 1);
  coll_test::expect_error([&] { c.broadcast(one, n); }, rmpl::errc::invalid_rank,
                          {"broadcast", std::to_string(n)}, "broadcast with root size()");
  coll_test::expect_error([&] { c.broadcast(one, -1); }, rmpl::errc::invalid_rank,
                          {"broadcast", "-1"}, "broadcast with root -1");
  coll_test::expect_error([&] { c.gather(one, many, n + 2); }, rmpl::errc::invalid_rank,
                          {"gather", std::to_string(n + 2)}, "gather with root size() + 2");
  coll_test::expect_error([&] { (void)c.iscatter(many, one, n); }, rmpl::errc::invalid_rank,
                          {"scatter", std::to_string(n)}, "iscatter with root size()");
  // allgather's output must hold size() blocks: one element short everywhere.
  std::vector<int> two(2), short_out(static_cast<std::size_t>(n) * 2 - 1);
  coll_test::expect_error([&] { c.allgather(two, short_out); }, rmpl::errc::invalid_argument,
                          {"allgather"}, "allgather of 2 elements into 2 * size() - 1");
  // alltoall's input must be size() equal blocks. (Bytes: the library checks byte counts, so an
  // int vector of 2 * size() + 1 elements would split evenly at even sizes.)
  if (n > 1) {
    std::vector<char> in(static_cast<std::size_t>(n) * 2 + 1),
        out(static_cast<std::size_t>(n) * 2 + 1);
    coll_test::expect_error([&] { c.alltoall(in, out); }, rmpl::errc::invalid_argument,
                            {"alltoall"}, "alltoall of a size not divisible by size()");
  }
  // A counts list of the wrong length.
  std::vector<std::size_t> short_counts(static_cast<std::size_t>(n) + 1, 1);
  std::vector<int> total(static_cast<std::size_t>(n) + 1);
  coll_test::expect_error([&] { c.allgatherv(one, total, short_counts); },
                          rmpl::errc::invalid_argument, {"allgatherv"},
                          "allgatherv with size() + 1 counts");
  // The communicator still works.
  std::vector<int> data{rank() == 0 ? 42 : 0};
  c.broadcast(data, 0);
  EXPECT_EQ(data[0], 42);
}

}  // namespace
