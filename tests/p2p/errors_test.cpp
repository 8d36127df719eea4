// Errors the API reports: truncation (with both sizes in the message) and invalid ranks and tags
// (with the offending value in the message). After each error the library must still work.
#include <algorithm>
#include <cctype>
#include <functional>
#include <vector>

#include "expect_error.hpp"
#include "mp_test.hpp"

namespace {

using rmpl_test::rank;
using rmpl_test::size;
using rmpl_test::world;

class Errors : public rmpl_test::collective {};

int next_rank() {
  return (rank() + 1) % size();
}
int prev_rank() {
  return (rank() + size() - 1) % size();
}

using rmpl_test::expect_error;

// ---- truncation ----

struct truncation_case {
  const char* protocol;
  std::size_t message;
  std::size_t capacity;
};
// Sizes whose decimal forms appear nowhere else in a message about them.
constexpr truncation_case truncation_cases[] = {
    {"inline", 45, 13},
    {"eager", 3001, 2999},
    {"rendezvous", 100003, 65537},
};

std::vector<std::byte> filled(std::size_t bytes, int source) {
  std::vector<std::byte> data(bytes);
  rmpl_test::fill_pattern(data, rmpl_test::seed_of(bytes, 0, source));
  return data;
}

/// A message was truncated; the next message on the same pair and tag must arrive whole (the
/// truncated one was consumed by the receive that matched it).
void expect_pair_still_works(int to, int from, int tag) {
  auto comm = world();
  std::uint64_t value = rmpl_test::mix(rank(), 77), got = 0;
  rmpl::request send = comm.isend(std::span(&value, 1), to, tag);
  rmpl::status st = comm.recv(std::span(&got, 1), from, tag);
  send.wait();
  EXPECT_EQ(st.bytes, sizeof got) << "the truncated message was not consumed";
  EXPECT_EQ(got, rmpl_test::mix(from, 77));
}

void truncate_with_blocking_recv(int to, int from) {
  auto comm = world();
  for (const truncation_case& c : truncation_cases) {
    SCOPED_TRACE(c.protocol);
    const int tag = 7;
    std::vector<std::byte> message = filled(c.message, rank());
    rmpl::request send = comm.isend(message, to, tag);
    std::vector<std::byte> buffer(c.capacity);
    expect_error([&] { comm.recv(buffer, from, tag); }, rmpl::errc::truncated,
                 {std::to_string(c.message), std::to_string(c.capacity)},
                 "recv into a short buffer");
    EXPECT_NO_THROW(send.wait()) << "the sender of a truncated message sees an error";
    expect_pair_still_works(to, from, tag);
  }
}

void truncate_with_irecv(int to, int from) {
  auto comm = world();
  for (const truncation_case& c : truncation_cases) {
    SCOPED_TRACE(c.protocol);
    const int tag = 8;
    std::vector<std::byte> buffer(c.capacity);
    rmpl::request receive = comm.irecv(buffer, from, tag);
    std::vector<std::byte> message = filled(c.message, rank());
    rmpl::request send = comm.isend(message, to, tag);
    expect_error([&] { receive.wait(); }, rmpl::errc::truncated,
                 {std::to_string(c.message), std::to_string(c.capacity)},
                 "irecv into a short buffer");
    EXPECT_FALSE(receive.active()) << "a failed request stays active after wait()";
    EXPECT_NO_THROW(send.wait()) << "the sender of a truncated message sees an error";
    expect_pair_still_works(to, from, tag);
  }
}

TEST_F(Errors, TruncationInRing) {
  truncate_with_blocking_recv(next_rank(), prev_rank());
}
TEST_F(Errors, TruncationToSelf) {
  truncate_with_blocking_recv(rank(), rank());
}
TEST_F(Errors, TruncationOfPostedReceiveInRing) {
  truncate_with_irecv(next_rank(), prev_rank());
}
TEST_F(Errors, TruncationOfPostedReceiveToSelf) {
  truncate_with_irecv(rank(), rank());
}

// ---- invalid ranks and tags (local checks: every rank runs them on its own) ----

TEST_F(Errors, InvalidRanksAreRejected) {
  auto comm = world();
  int value = 1;
  const int bad_ranks[] = {size(), size() + 3, -5, rmpl::any_source};
  for (int bad : bad_ranks) {
    std::vector<std::string> words = {"rank", std::to_string(bad)};
    std::string which = " rank " + std::to_string(bad);
    expect_error([&] { comm.send(std::span(&value, 1), bad, 0); }, rmpl::errc::invalid_rank, words,
                 "send to" + which);
    expect_error([&] { auto r = comm.isend(std::span(&value, 1), bad, 0); },
                 rmpl::errc::invalid_rank, words, "isend to" + which);
    expect_error([&] { comm.ssend(std::span(&value, 1), bad, 0); }, rmpl::errc::invalid_rank, words,
                 "ssend to" + which);
    expect_error(
        [&] { comm.sendrecv(std::span(&value, 1), bad, 0, std::span(&value, 1), rank(), 0); },
        rmpl::errc::invalid_rank, words, "sendrecv to" + which);
    if (bad == rmpl::any_source) continue;  // a valid source
    expect_error([&] { comm.recv(std::span(&value, 1), bad, 0); }, rmpl::errc::invalid_rank, words,
                 "recv from" + which);
    expect_error([&] { auto r = comm.irecv(std::span(&value, 1), bad, 0); },
                 rmpl::errc::invalid_rank, words, "irecv from" + which);
    expect_error([&] { comm.probe(bad, 0); }, rmpl::errc::invalid_rank, words, "probe of" + which);
    expect_error([&] { comm.iprobe(bad, 0); }, rmpl::errc::invalid_rank, words,
                 "iprobe of" + which);
  }
}

TEST_F(Errors, InvalidTagsAreRejected) {
  auto comm = world();
  int value = 1;
  const int bad_tags[] = {-3, rmpl::tag_ub + 1, rmpl::any_tag};
  for (int bad : bad_tags) {
    std::vector<std::string> words = {"tag", std::to_string(bad)};
    std::string which = " with tag " + std::to_string(bad);
    expect_error([&] { comm.send(std::span(&value, 1), rank(), bad); }, rmpl::errc::invalid_tag,
                 words, "send" + which);
    expect_error([&] { auto r = comm.isend(std::span(&value, 1), rank(), bad); },
                 rmpl::errc::invalid_tag, words, "isend" + which);
    expect_error([&] { comm.send(std::span(&value, 1), rank(), bad, rmpl::send_mode::buffered); },
                 rmpl::errc::invalid_tag, words, "bsend" + which);
    if (bad == rmpl::any_tag) continue;  // a valid receive tag
    expect_error([&] { comm.recv(std::span(&value, 1), rank(), bad); }, rmpl::errc::invalid_tag,
                 words, "recv" + which);
    expect_error([&] { auto r = comm.irecv(std::span(&value, 1), rmpl::any_source, bad); },
                 rmpl::errc::invalid_tag, words, "irecv" + which);
    expect_error([&] { comm.probe(rank(), bad); }, rmpl::errc::invalid_tag, words, "probe" + which);
    expect_error([&] { comm.iprobe(rmpl::any_source, bad); }, rmpl::errc::invalid_tag, words,
                 "iprobe" + which);
  }
  // Nothing was sent by the failed calls...
  EXPECT_FALSE(comm.iprobe(rmpl::any_source, rmpl::any_tag).has_value())
      << "a rejected send left a message behind";
  // ...and the extreme valid tags work.
  for (int tag : {0, rmpl::tag_ub}) {
    int sent = tag ^ 0x55, got = 0;
    rmpl::request send = comm.isend(std::span(&sent, 1), rank(), tag);
    rmpl::status st = comm.recv(std::span(&got, 1), rank(), tag);
    send.wait();
    EXPECT_EQ(got, sent);
    EXPECT_EQ(st.tag, tag);
  }
}

// A null buffer with a non-zero size is an invalid argument, not a crash.
TEST_F(Errors, NullBufferWithSizeIsRejected) {
  auto comm = world();
  expect_error([&] { comm.send_bytes(nullptr, 8, rank(), 0); }, rmpl::errc::invalid_argument, {},
               "send of 8 bytes from a null pointer");
  expect_error([&] { comm.recv_bytes(nullptr, 8, rank(), 0); }, rmpl::errc::invalid_argument, {},
               "recv of 8 bytes into a null pointer");
}

}  // namespace
