// Every kind of bad input to the native C++ API, on the world and on a communicator smaller than
// it: each call must throw rmpl::error with the right code and a message naming what was wrong
// (the rank and the communicator's size, the root, the tag and its range, the sizes, the request,
// the communicator), and the library must go on working afterwards. Every rank passes the same bad
// argument, so a collective fails on all ranks alike and none waits for another.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "expect_error.hpp"
#include "mp_test.hpp"

namespace {

using rmpl_test::rank;
using rmpl_test::size;
using rmpl_test::world;

class BadInput : public rmpl_test::collective {};

using rmpl_test::expect_error;

/// A communicator of the even ranks (the odd ones get the odd ranks): smaller than the world from
/// 2 ranks on, so "size" in a message is the communicator's, not the job's.
rmpl::communicator halves() {
  return world().split(rank() % 2, rank());
}

/// After the errors, the communicator still carries a collective and a message.
void expect_still_works(const rmpl::communicator& comm) {
  std::vector<int> v{1};
  comm.allreduce(v, rmpl::ops::sum{});
  EXPECT_EQ(v[0], comm.size());
  int out = 7 + comm.rank(), in = -1;
  comm.sendrecv(std::span(&out, 1), comm.rank(), 3, std::span(&in, 1), comm.rank(), 3);
  EXPECT_EQ(in, out);
}

TEST_F(BadInput, PeerRanksOutOfRangeNameTheRankAndTheSize) {
  const rmpl::communicator comm = halves();
  const int n = comm.size();
  int value = 0;
  for (int bad : {n, n + 3, -3, -100}) {
    const std::vector<std::string> words = {std::to_string(bad), "size " + std::to_string(n)};
    const std::string which = " rank " + std::to_string(bad);
    expect_error([&] { comm.send(std::span(&value, 1), bad, 0); }, rmpl::errc::invalid_rank, words,
                 "send to" + which);
    expect_error([&] { auto r = comm.isend(std::span(&value, 1), bad, 0); },
                 rmpl::errc::invalid_rank, words, "isend to" + which);
    expect_error([&] { comm.recv(std::span(&value, 1), bad, 0); }, rmpl::errc::invalid_rank, words,
                 "recv from" + which);
    expect_error([&] { auto r = comm.irecv(std::span(&value, 1), bad, 0); },
                 rmpl::errc::invalid_rank, words, "irecv from" + which);
    expect_error([&] { comm.probe(bad, 0); }, rmpl::errc::invalid_rank, words, "probe" + which);
    expect_error(
        [&] { comm.sendrecv(std::span(&value, 1), bad, 0, std::span(&value, 1), comm.rank(), 0); },
        rmpl::errc::invalid_rank, words, "sendrecv to" + which);
  }
  // any_source is a receive's wildcard, never a destination.
  expect_error([&] { comm.send(std::span(&value, 1), rmpl::any_source, 0); },
               rmpl::errc::invalid_rank, {"-1", "size " + std::to_string(n)}, "send to any_source");
  expect_still_works(comm);
}

TEST_F(BadInput, TagsOutOfRangeNameTheTagAndTheRange) {
  const rmpl::communicator comm = halves();
  int value = 0;
  for (int bad : {-5, rmpl::tag_ub + 1, std::numeric_limits<int>::max()}) {
    const std::vector<std::string> words = {std::to_string(bad), std::to_string(rmpl::tag_ub)};
    expect_error([&] { comm.send(std::span(&value, 1), comm.rank(), bad); },
                 rmpl::errc::invalid_tag, words, "send with tag " + std::to_string(bad));
    expect_error([&] { auto r = comm.irecv(std::span(&value, 1), comm.rank(), bad); },
                 rmpl::errc::invalid_tag, words, "irecv with tag " + std::to_string(bad));
  }
  // any_tag is a receive's wildcard, never a send's tag.
  expect_error([&] { comm.send(std::span(&value, 1), comm.rank(), rmpl::any_tag); },
               rmpl::errc::invalid_tag, {"-1"}, "send with any_tag");
  expect_still_works(comm);
}

TEST_F(BadInput, RootsOutOfRangeNameTheRootAndTheSize) {
  const rmpl::communicator comm = halves();
  const int n = comm.size();
  std::vector<int> one{1}, all(static_cast<std::size_t>(n));
  const std::vector<std::size_t> counts(static_cast<std::size_t>(n), 1);
  for (int bad : {n, -1, n + 7}) {
    const std::vector<std::string> words = {"root " + std::to_string(bad),
                                            "communicator of " + std::to_string(n)};
    const std::string which = " with root " + std::to_string(bad);
    expect_error([&] { comm.broadcast(one, bad); }, rmpl::errc::invalid_rank, words,
                 "broadcast" + which);
    expect_error([&] { comm.reduce(one, all, rmpl::ops::sum{}, bad); }, rmpl::errc::invalid_rank,
                 words, "reduce" + which);
    expect_error([&] { comm.gather(one, all, bad); }, rmpl::errc::invalid_rank, words,
                 "gather" + which);
    expect_error([&] { comm.gatherv(one, all, counts, {}, bad); }, rmpl::errc::invalid_rank, words,
                 "gatherv" + which);
    expect_error([&] { comm.scatter(all, one, bad); }, rmpl::errc::invalid_rank, words,
                 "scatter" + which);
    expect_error([&] { comm.scatterv(all, counts, {}, one, bad); }, rmpl::errc::invalid_rank, words,
                 "scatterv" + which);
    expect_error([&] { auto r = comm.ibroadcast(one, bad); }, rmpl::errc::invalid_rank, words,
                 "ibroadcast" + which);
  }
  expect_still_works(comm);
}

TEST_F(BadInput, NullBuffersWithSizesAreRejected) {
  const rmpl::communicator comm = halves();
  const std::span<int> null_span(static_cast<int*>(nullptr), 4);
  std::vector<int> four(4);
  expect_error([&] { comm.send_bytes(nullptr, 8, comm.rank(), 0); }, rmpl::errc::invalid_argument,
               {"null", "8 bytes"}, "send_bytes(nullptr, 8)");
  expect_error([&] { comm.recv_bytes(nullptr, 12, comm.rank(), 0); }, rmpl::errc::invalid_argument,
               {"null", "12 bytes"}, "recv_bytes(nullptr, 12)");
  expect_error([&] { comm.broadcast(null_span, 0); }, rmpl::errc::invalid_argument,
               {"broadcast", "null", "16 bytes"}, "broadcast of a null span");
  expect_error([&] { comm.allreduce(null_span, four, rmpl::ops::sum{}); },
               rmpl::errc::invalid_argument, {"allreduce", "send buffer is null", "16 bytes"},
               "allreduce from a null span");
  expect_error([&] { comm.allreduce(four, null_span, rmpl::ops::sum{}); },
               rmpl::errc::invalid_argument, {"allreduce", "receive buffer is null", "16 bytes"},
               "allreduce into a null span");
  const auto n = static_cast<std::size_t>(comm.size());
  std::vector<int> blocks(n);
  expect_error([&] { comm.alltoall(std::span<int>(static_cast<int*>(nullptr), n), blocks); },
               rmpl::errc::invalid_argument, {"alltoall", "null"}, "alltoall from a null span");
  expect_still_works(comm);
}

TEST_F(BadInput, CountsThatDoNotFitAreRejected) {
  const rmpl::communicator comm = halves();
  const auto n = static_cast<std::size_t>(comm.size());
  std::vector<int> one{1}, small(n), big(4 * n);
  // A receive buffer too small for what arrives.
  expect_error(
      [&] { comm.allreduce(big, one, rmpl::ops::sum{}); }, rmpl::errc::invalid_argument,
      {"allreduce", std::to_string(sizeof(int)) + " bytes", std::to_string(4 * n * sizeof(int))},
      "allreduce into a buffer too small");
  expect_error([&] { comm.allgather(big, small); }, rmpl::errc::invalid_argument,
               {"allgather", "needed"}, "allgather into a buffer too small");
  // Per-rank counts: the wrong number of them, a block outside the buffer, an overflowing count.
  const std::vector<std::size_t> few(n + 1, 1), outside(n, 4 * n + 1),
      overflowing(n, std::numeric_limits<std::size_t>::max() / 2);
  expect_error([&] { comm.allgatherv(one, big, few); }, rmpl::errc::invalid_argument,
               {std::to_string(n + 1) + " counts", "communicator of " + std::to_string(n)},
               "allgatherv with one count too many");
  expect_error([&] { comm.alltoallv(big, outside, {}, big, outside, {}); },
               rmpl::errc::invalid_argument, {"alltoallv", "outside", "offset"},
               "alltoallv with blocks outside the buffer");
  expect_error([&] { comm.allgatherv(one, big, overflowing); }, rmpl::errc::invalid_argument,
               {"allgatherv on rank " + std::to_string(comm.rank()), std::to_string(overflowing[0]),
                "overflows"},
               "allgatherv with counts of 2^63");
  expect_error([&] { comm.reduce_scatter(big, one, overflowing, rmpl::ops::sum{}); },
               rmpl::errc::invalid_argument, {"overflows"}, "reduce_scatter with counts of 2^63");
  if (n > 1) {
    std::vector<int> odd(n + 1);
    expect_error([&] { comm.alltoall(odd, odd); }, rmpl::errc::invalid_argument,
                 {std::to_string(n + 1) + " elements", std::to_string(n) + " equal blocks"},
                 "alltoall of a length that does not split");
  }
  expect_still_works(comm);
}

TEST_F(BadInput, EmptyAndStaleRequestsAreDetected) {
  auto comm = world();
  rmpl::request empty;
  expect_error([&] { empty.wait(); }, rmpl::errc::request_invalid, {"wait", "empty"},
               "wait on a default-constructed request");
  expect_error([&] { empty.test(); }, rmpl::errc::request_invalid, {"test", "empty"},
               "test on a default-constructed request");
  expect_error([&] { empty.cancel(); }, rmpl::errc::request_invalid, {"cancel", "empty"},
               "cancel of a default-constructed request");
  int out = 5, in = 0;
  rmpl::request recv = comm.irecv(std::span(&in, 1), rank(), 11);
  comm.send(std::span(&out, 1), rank(), 11);
  recv.wait();
  EXPECT_EQ(in, 5);
  expect_error([&] { recv.wait(); }, rmpl::errc::request_invalid,
               {"wait on rank " + std::to_string(rank()), "empty", "already waited"},
               "a second wait on a completed request");
  rmpl::request moved_to = comm.isend(std::span(&out, 1), rank(), 12);
  rmpl::request moved_from = std::move(moved_to);
  expect_error([&] { moved_to.wait(); }, rmpl::errc::request_invalid, {"moved from"},
               "wait on a moved-from request");
  comm.recv(std::span(&in, 1), rank(), 12);
  moved_from.wait();
  // The byte-level id of a completed request is stale: its table entry's generation moved on.
  rmpl::detail::request_id id = rmpl::detail::isend(
      *[&] {
        // A live comm_impl: the world's, through a request on it.
        return rmpl::detail::world_comm();
      }(),
      &out, sizeof out, rank(), 13, rmpl::send_mode::standard);
  const rmpl::detail::request_id stale = id;
  comm.recv(std::span(&in, 1), rank(), 13);
  rmpl::detail::wait(id);
  rmpl::detail::request_id copy = stale;
  expect_error([&] { rmpl::detail::wait(copy); }, rmpl::errc::request_invalid,
               {"wait", "not a live request"}, "wait on a stale copy of a completed request id");
  expect_still_works(comm);
}

TEST_F(BadInput, NullFreedAndMovedFromCommunicatorsAreDetected) {
  rmpl::communicator none;
  int value = 0;
  expect_error([&] { none.send(std::span(&value, 1), 0, 0); }, rmpl::errc::invalid_argument,
               {"send on a null communicator"}, "send on a default-constructed communicator");
  rmpl::communicator freed = world().dup();
  freed.free();
  expect_error([&] { freed.barrier(); }, rmpl::errc::invalid_argument,
               {"barrier on a null communicator", "freed"}, "barrier on a freed communicator");
  expect_error([&] { auto c = freed.dup(); }, rmpl::errc::invalid_argument,
               {"dup on a null communicator"}, "dup of a freed communicator");
  rmpl::communicator from = world().dup();
  rmpl::communicator to = std::move(from);
  expect_error([&] { from.recv(std::span(&value, 1), 0, 0); }, rmpl::errc::invalid_argument,
               {"recv on a null communicator", "moved from"}, "recv on a moved-from communicator");
  expect_still_works(to);
}

TEST_F(BadInput, GroupsAndSplitsRejectBadRanksAndColors) {
  auto comm = world();
  const rmpl::group members = comm.members();
  expect_error([&] { auto g = members.include({size()}); }, rmpl::errc::invalid_rank,
               {std::to_string(size())}, "group include of a rank past the end");
  expect_error([&] { auto c = comm.split(-7); }, rmpl::errc::invalid_argument,
               {"color -7", "undefined"}, "split with a negative color");
  expect_still_works(comm);
}

TEST_F(BadInput, ErrorPolicyBelongsToTheCommunicatorAndIsInherited) {
  rmpl::communicator comm = world().dup();
  EXPECT_EQ(comm.error_policy(), rmpl::on_error::throw_error);
  comm.set_error_policy(rmpl::on_error::abort);
  const rmpl::communicator copy = comm;  // another handle to the same communicator
  EXPECT_EQ(copy.error_policy(), rmpl::on_error::abort);
  const rmpl::communicator child = comm.dup();
  EXPECT_EQ(child.error_policy(), rmpl::on_error::abort) << "dup did not inherit the policy";
  EXPECT_EQ(world().error_policy(), rmpl::on_error::throw_error) << "the world's changed too";
  comm.set_error_policy(rmpl::on_error::throw_error);
  int value = 0;
  expect_error([&] { comm.send(std::span(&value, 1), size(), 0); }, rmpl::errc::invalid_rank,
               {std::to_string(size())}, "send to a bad rank after the policy went back");
  expect_error([&] { comm.set_error_policy(static_cast<rmpl::on_error>(9)); },
               rmpl::errc::invalid_argument, {"9", "on_error"}, "an unknown policy");
  child.set_error_policy(rmpl::on_error::throw_error);
  expect_still_works(child);
}

}  // namespace
