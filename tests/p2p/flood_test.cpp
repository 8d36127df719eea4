// Both ranks of a pair flooding each other. Ranks pair up as (0,1), (2,3)...; with an odd number of
// ranks the last one floods itself. Each pattern must finish without deadlock and deliver every
// message, in order, intact.
#include <cstring>
#include <optional>
#include <vector>

#include "mp_test.hpp"

namespace {

using rmpl_test::rank;
using rmpl_test::size;
using rmpl_test::world;

class Flood : public rmpl_test::collective {};

int partner() {
  if (size() % 2 == 1 && rank() == size() - 1) return rank();
  return rank() ^ 1;
}

/// The sizes flooded: one inline, one long inline (several ring cells), one eager, one rendezvous
/// (with the default thresholds), with a message count that keeps each case to a moment.
struct flood_case {
  const char* name;
  std::size_t bytes;
  std::size_t count;
};
constexpr flood_case cases[] = {
    {"inline", 16, 20000},
    {"long inline", 200, 20000},
    {"eager", 2000, 2000},
    {"rendezvous", 70000, 40},
};

struct header {
  std::int32_t source;
  std::uint32_t seq;
  std::uint64_t check;
};

/// Message `seq` from `source`: a header, then a pattern.
std::vector<std::byte> make_message(std::size_t bytes, int source, std::uint32_t seq) {
  std::vector<std::byte> data(bytes);
  header h{source, seq, rmpl_test::mix(source, seq)};
  rmpl_test::fill_pattern(std::span(data).subspan(sizeof h), h.check);
  std::memcpy(data.data(), &h, sizeof h);
  return data;
}

/// Empty if `data` is message `seq` of `source` with `bytes` bytes.
std::string check_message(std::span<const std::byte> data, const rmpl::status& st,
                          std::size_t bytes, int source, std::uint32_t seq) {
  if (st.bytes != bytes) return "wrong size " + std::to_string(st.bytes);
  if (st.source != source) return "wrong source " + std::to_string(st.source);
  header h{};
  std::memcpy(&h, data.data(), sizeof h);
  if (h.source != source || h.seq != seq || h.check != rmpl_test::mix(source, seq)) {
    return "expected message " + std::to_string(seq) + " of rank " + std::to_string(source) +
           ", got message " + std::to_string(h.seq) + " of rank " + std::to_string(h.source);
  }
  return rmpl_test::check_pattern(data.subspan(sizeof h, bytes - sizeof h), h.check);
}

// Each rank isends everything to its partner, then receives everything from it, then waits for its
// sends: the library must keep the sends moving while the rank receives.
TEST_F(Flood, IsendAllThenReceiveAll) {
  auto comm = world();
  for (const flood_case& c : cases) {
    SCOPED_TRACE(c.name);
    const int tag = 1;
    std::vector<std::vector<std::byte>> messages;
    std::vector<rmpl::request> sends;
    messages.reserve(c.count);
    sends.reserve(c.count);
    for (std::uint32_t seq = 0; seq < c.count; ++seq) {
      messages.push_back(make_message(c.bytes, rank(), seq));
      sends.push_back(comm.isend(messages.back(), partner(), tag));
    }
    // Half the ranks receive with any_source: only the partner sends to them here.
    const int source = rank() % 2 == 0 ? partner() : rmpl::any_source;
    std::vector<std::byte> buffer(c.bytes);
    for (std::uint32_t seq = 0; seq < c.count; ++seq) {
      rmpl::status st = comm.recv(buffer, source, tag);
      if (!HasFailure()) {
        EXPECT_EQ(check_message(buffer, st, c.bytes, partner(), seq), "");
      }
    }
    rmpl::wait_all(sends);
  }
}

// An ack stuck behind messages nobody has asked for yet: B's synchronous send completes only on
// A's ack, which A publishes after 18 messages B takes last. With a store of 16 unexpected
// messages (the small_store variant) B's ring from A stalls at the 17th, and the ack must be
// found behind it: each message stepped over whole (a long inline one is several cells). Pairs
// as the floods above; a rank left alone does both halves to itself.
TEST_F(Flood, AckBehindUnexpectedMessages) {
  auto comm = world();
  const int a = rank() % 2 == 0 ? rank() : partner();
  const int b = partner() == rank() ? rank() : (rank() % 2 == 0 ? partner() : rank());
  constexpr std::uint32_t count = 18;
  const std::size_t bytes = 200;  // long inline with the default RMPL_INLINE_MAX (5 cells)
  const std::vector<std::byte> token(8, std::byte{7});
  std::vector<std::byte> got(token.size());
  std::optional<rmpl::request> ssend;
  if (rank() == b) ssend = comm.isend(token, a, 7, rmpl::send_mode::synchronous);
  std::vector<std::vector<std::byte>> messages;
  std::vector<rmpl::request> sends;
  if (rank() == a) {
    messages.reserve(count);
    for (std::uint32_t seq = 0; seq < count; ++seq) {
      messages.push_back(make_message(bytes, a, seq));
      sends.push_back(comm.isend(messages.back(), b, 1));
    }
    comm.recv(got, b, 7);  // acks B's synchronous send behind the 18 messages
  }
  if (rank() == b) {
    ssend->wait();
    std::vector<std::byte> buffer(bytes);
    for (std::uint32_t seq = 0; seq < count; ++seq) {
      rmpl::status st = comm.recv(buffer, a, 1);
      if (!HasFailure()) {
        EXPECT_EQ(check_message(buffer, st, bytes, a, seq), "");
      }
    }
  }
  rmpl::wait_all(sends);
}

// Each rank posts every receive first, then sends everything with blocking sends: posted receives
// are matched in the order they were posted.
TEST_F(Flood, IrecvAllThenBlockingSends) {
  auto comm = world();
  for (const flood_case& c : cases) {
    SCOPED_TRACE(c.name);
    const int tag = 2;
    std::vector<std::vector<std::byte>> buffers(c.count, std::vector<std::byte>(c.bytes));
    std::vector<rmpl::request> receives;
    receives.reserve(c.count);
    for (auto& buffer : buffers) receives.push_back(comm.irecv(buffer, partner(), tag));
    for (std::uint32_t seq = 0; seq < c.count; ++seq) {
      comm.send(make_message(c.bytes, rank(), seq), partner(), tag);
    }
    for (std::uint32_t seq = 0; seq < c.count; ++seq) {
      rmpl::status st = receives[seq].wait();
      if (!HasFailure()) {
        EXPECT_EQ(check_message(buffers[seq], st, c.bytes, partner(), seq), "");
      }
    }
  }
}

// Both ranks alternate a blocking send and a blocking receive, sending first. One message is in
// flight each way: the documented eager buffering (inline and eager sizes) must carry it.
TEST_F(Flood, AlternatingBlockingSendAndRecv) {
  auto comm = world();
  for (const flood_case& c : cases) {
    // A rendezvous send may wait for its receive: sending first on both sides is unsafe then.
    if (c.bytes > rmpl_test::eager_max()) continue;
    SCOPED_TRACE(c.name);
    const int tag = 3;
    std::vector<std::byte> buffer(c.bytes);
    const std::uint32_t count = static_cast<std::uint32_t>(c.count / 4);
    for (std::uint32_t seq = 0; seq < count; ++seq) {
      comm.send(make_message(c.bytes, rank(), seq), partner(), tag);
      rmpl::status st = comm.recv(buffer, partner(), tag);
      if (!HasFailure()) {
        EXPECT_EQ(check_message(buffer, st, c.bytes, partner(), seq), "");
      }
    }
  }
}

// The same exchange with sendrecv, which is safe at every size.
TEST_F(Flood, SendrecvExchange) {
  auto comm = world();
  for (const flood_case& c : cases) {
    SCOPED_TRACE(c.name);
    const int tag = 4;
    std::vector<std::byte> buffer(c.bytes);
    const std::uint32_t count = static_cast<std::uint32_t>(c.count / 4);
    for (std::uint32_t seq = 0; seq < count; ++seq) {
      rmpl::status st =
          comm.sendrecv(make_message(c.bytes, rank(), seq), partner(), tag, buffer, partner(), tag);
      if (!HasFailure()) {
        EXPECT_EQ(check_message(buffer, st, c.bytes, partner(), seq), "");
      }
    }
  }
}

}  // namespace
