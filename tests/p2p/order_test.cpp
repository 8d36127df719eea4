// Message order under wildcard receives, and fairness between sources.
//
// Non-overtaking: two messages from one sender that the same receive could match are matched in the
// order they were sent, whatever the wildcards, tags, sizes and protocols (inline, eager and
// rendezvous messages are mixed in one stream here).
#include <algorithm>
#include <cstring>
#include <vector>

#include "mp_test.hpp"

namespace {

using rmpl_test::rank;
using rmpl_test::size;
using rmpl_test::world;

class Order : public rmpl_test::collective {};

/// What every message of these tests starts with.
struct header {
  std::int32_t source;
  std::int32_t tag;
  std::uint32_t seq;
  std::uint32_t bytes;
};

constexpr std::size_t max_message = 32 * 1024;

// Mostly inline messages, some eager ones and a few rendezvous ones.
std::size_t message_size(int source, std::uint32_t seq) {
  if (seq % 97 == 13) return 20000 + static_cast<std::size_t>(source);
  if (seq % 11 == 5) return 1000 + seq % 7;
  return sizeof(header) + seq % 20;
}

int message_tag(int source, std::uint32_t seq) {
  return 1 + static_cast<int>(rmpl_test::mix(static_cast<std::uint64_t>(source), seq) % 3);
}

std::vector<std::byte> make_message(int source, std::uint32_t seq) {
  std::vector<std::byte> data(message_size(source, seq));
  header h{source, message_tag(source, seq), seq, static_cast<std::uint32_t>(data.size())};
  rmpl_test::fill_pattern(std::span(data).subspan(sizeof h), rmpl_test::mix(source, seq));
  std::memcpy(data.data(), &h, sizeof h);
  return data;
}

/// Checks a received message against its status; returns its header.
header check_message(std::span<const std::byte> buffer, const rmpl::status& st) {
  header h{};
  EXPECT_GE(st.bytes, sizeof h);
  if (st.bytes < sizeof h) return h;
  std::memcpy(&h, buffer.data(), sizeof h);
  EXPECT_EQ(st.source, h.source) << "status.source disagrees with the message";
  EXPECT_EQ(st.tag, h.tag) << "status.tag disagrees with the message";
  EXPECT_EQ(st.bytes, h.bytes) << "status.bytes disagrees with the message";
  EXPECT_EQ(rmpl_test::check_pattern(buffer.subspan(sizeof h, st.bytes - sizeof h),
                                     rmpl_test::mix(h.source, h.seq)),
            "")
      << "message " << h.seq << " from rank " << h.source;
  return h;
}

/// A rank's whole stream to rank 0 posted as isends; the buffers and requests live until the end
/// of the test. (Rank 0 sends to itself this way: a blocking send to self could wait for its own
/// receive.)
struct posted_sends {
  std::vector<std::vector<std::byte>> buffers;
  std::vector<rmpl::request> requests;
  explicit posted_sends(std::uint32_t count) {
    buffers.reserve(count);  // no reallocation: the requests borrow the buffers
    requests.reserve(count);
    for (std::uint32_t seq = 0; seq < count; ++seq) {
      buffers.push_back(make_message(rank(), seq));
      requests.push_back(world().isend(buffers.back(), 0, message_tag(rank(), seq)));
    }
  }
};

// Every rank streams to rank 0 (itself included); rank 0 receives everything with any_source and
// any_tag, and each source's messages must come in sequence.
TEST_F(Order, NonOvertakingUnderAnySourceAnyTag) {
  const std::uint32_t count = 1500;
  auto comm = world();
  if (rank() != 0) {
    for (std::uint32_t seq = 0; seq < count; ++seq) {
      auto message = make_message(rank(), seq);
      comm.send(message, 0, message_tag(rank(), seq));
    }
    return;
  }
  posted_sends mine(count);
  std::vector<std::uint32_t> next(size(), 0);
  std::vector<std::byte> buffer(max_message);
  for (std::size_t received = 0; received < count * static_cast<std::size_t>(size()); ++received) {
    rmpl::status st = comm.recv(buffer, rmpl::any_source, rmpl::any_tag);
    header h = check_message(buffer, st);
    ASSERT_TRUE(h.source >= 0 && h.source < size()) << "bad source " << h.source;
    ASSERT_EQ(h.seq, next[h.source]) << "message from rank " << h.source << " out of order";
    ++next[h.source];
    if (HasFailure()) return;
  }
  rmpl::wait_all(mine.requests);
}

// The same stream, received with a mix of receives: any source/any tag, any source/one tag, one
// source/any tag and one source/one tag. Each receive must get the earliest message of its source
// that it can match. The senders use isends: a receive for one tag may have to pass a rendezvous
// message of another tag, whose blocking send would not return until that message is received.
TEST_F(Order, SpecificTagReceivesInterleavedWithAnyTag) {
  const std::uint32_t count = 1000;
  posted_sends mine(count);
  if (rank() != 0) {
    rmpl::wait_all(mine.requests);
    return;
  }
  auto comm = world();

  // What is left to receive, to choose only receives that some message will match.
  const int ntags = 4;  // tags 1..3
  std::vector<std::vector<bool>> received(size(), std::vector<bool>(count, false));
  std::vector<std::vector<int>> left(size(), std::vector<int>(ntags, 0));  // [source][tag]
  std::vector<int> left_of_tag(ntags, 0), left_of_source(size(), count);
  for (int s = 0; s < size(); ++s) {
    for (std::uint32_t seq = 0; seq < count; ++seq) {
      ++left[s][message_tag(s, seq)];
      ++left_of_tag[message_tag(s, seq)];
    }
  }
  // The earliest message of `source` not yet received whose tag matches `tag`.
  auto earliest = [&](int source, int tag) {
    for (std::uint32_t seq = 0; seq < count; ++seq) {
      if (!received[source][seq] && (tag == rmpl::any_tag || message_tag(source, seq) == tag)) {
        return seq;
      }
    }
    return count;
  };

  std::vector<std::byte> buffer(max_message);
  const std::size_t total = count * static_cast<std::size_t>(size());
  for (std::size_t step = 0; step < total; ++step) {
    int want_source = rmpl::any_source;
    int want_tag = rmpl::any_tag;
    int pick_source = static_cast<int>(step / 4 % size());
    int pick_tag = 1 + static_cast<int>(step / 4 % 3);
    switch (step % 4) {
      case 1:
        if (left_of_tag[pick_tag] > 0) want_tag = pick_tag;
        break;
      case 2:
        if (left_of_source[pick_source] > 0) want_source = pick_source;
        break;
      case 3:
        if (left[pick_source][pick_tag] > 0) {
          want_source = pick_source;
          want_tag = pick_tag;
        }
        break;
      default:
        break;
    }
    rmpl::status st = comm.recv(buffer, want_source, want_tag);
    header h = check_message(buffer, st);
    ASSERT_TRUE(h.source >= 0 && h.source < size() && h.seq < count) << "bad message header";
    if (want_source != rmpl::any_source) {
      ASSERT_EQ(h.source, want_source);
    }
    if (want_tag != rmpl::any_tag) {
      ASSERT_EQ(h.tag, want_tag);
    }
    ASSERT_EQ(h.seq, earliest(h.source, want_tag))
        << "receive(source " << want_source << ", tag " << want_tag << ") got message " << h.seq
        << " of rank " << h.source << " (tag " << h.tag << ") but an earlier one matched";
    received[h.source][h.seq] = true;
    --left[h.source][h.tag];
    --left_of_tag[h.tag];
    --left_of_source[h.source];
  }
  rmpl::wait_all(mine.requests);
}

// No starvation: rank 0 receives with any_source while every other rank streams to it as fast as it
// can. Each sender posts its first message before rank 0 starts receiving (and rank 0 waits a
// little more, so every sender can fill its channel). With fair matching, in arrival order or round
// robin, only messages that were waiting too can come before such a first message: at most a
// channel's worth from each other sender (a ring holds 128 cells by default). So every sender's
// first message must be received among the first 200 per sender. A receiver that serves one source
// first whenever it has a message waiting (a fixed polling order) fails: rank 0 receives more
// slowly than the senders send, so that source always has a message waiting, and the next sender
// gets its turn only after it.
TEST_F(Order, NoSourceStarvesUnderAnySource) {
  if (size() < 3) GTEST_SKIP() << "needs at least two senders";
  // Across hosts too: a source on another host is taken into matching at every progress pass (at
  // most its credits' worth, core/remote.cpp), so its first message waits no longer than theirs.
  struct message {
    std::int32_t source;
    std::uint32_t seq;
  };
  const std::uint32_t count = 2400;  // per sender
  const std::size_t fair_share = 200;
  const int tag = 5;
  auto comm = world();
  if (rank() != 0) {
    message first{rank(), 0};
    rmpl::request first_request = comm.isend(std::span(&first, 1), 0, tag);
    rmpl_test::barrier();
    for (std::uint32_t seq = 1; seq < count; ++seq) {
      message m{rank(), seq};
      comm.send(std::span(&m, 1), 0, tag);
    }
    first_request.wait();
    return;
  }
  rmpl_test::barrier();  // every sender has posted its first message
  rmpl_test::sleep_ms(200);

  const std::size_t senders = static_cast<std::size_t>(size() - 1);
  const std::size_t total = senders * count;
  std::vector<std::size_t> first_position(size(), total);
  std::vector<std::uint32_t> next(size(), 0);
  for (std::size_t position = 0; position < total; ++position) {
    // Pausing now and then lets every sender refill its channel, so that several sources always
    // have messages waiting: the situation in which an unfair receiver starves some of them.
    if (position % 16 == 15) rmpl_test::sleep_ms(1);
    message m{};
    rmpl::status st = comm.recv(std::span(&m, 1), rmpl::any_source, tag);
    ASSERT_TRUE(st.source > 0 && st.source < size() && m.source == st.source);
    ASSERT_EQ(m.seq, next[m.source]) << "from rank " << m.source;
    if (next[m.source]++ == 0) first_position[m.source] = position;
  }
  const std::size_t window = std::min(total / 2, fair_share * senders);
  for (int source = 1; source < size(); ++source) {
    EXPECT_LT(first_position[source], window)
        << "rank " << source << "'s first message (waiting before the receives began) was received "
        << "only as message " << first_position[source] << " of " << total;
  }
}

}  // namespace
