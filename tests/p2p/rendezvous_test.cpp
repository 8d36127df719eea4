// Interleavings of the single-copy rendezvous, the assisted one above all (RMPL_ASSIST_MIN: the
// receiver asks the sender to copy half of a large message, by an `assist` control cell that must
// reach the sender before the transfer's `fin`). Many rendezvous in flight at once in both
// directions fill the rings with control cells, so some wait in the sender's backlog: the order
// they leave it in must be the order they were sent in. Every exchange below runs with windows of 1
// to 64 messages, sizes just below, at and above the assist threshold (and a chunk's worth beyond
// it), both directions at once, in pairs and in a ring, with named and any-source receives.
//
// The registered variants lower RMPL_ASSIST_MIN / RMPL_ASSIST_CHUNK so that the assisted protocol
// runs at every rank count (it is off by default when ranks outnumber cores) and a window of 64
// stays small; one variant keeps the library's defaults (512 KiB) at two ranks.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mp_test.hpp"

namespace {

using rmpl_test::rank;
using rmpl_test::size;
using rmpl_test::world;

class Rendezvous : public rmpl_test::collective {};

std::size_t assist_min() {
  return static_cast<std::size_t>(rmpl_test::env_long("RMPL_ASSIST_MIN", 512 << 10));
}
std::size_t assist_chunk() {
  return static_cast<std::size_t>(rmpl_test::env_long("RMPL_ASSIST_CHUNK", 256 << 10));
}

/// The sizes a window cycles through: plain single copy just below the threshold, then assisted
/// transfers of one chunk, of a chunk and a byte, and of several chunks with a short last one.
std::vector<std::size_t> window_sizes() {
  const std::size_t min = assist_min(), chunk = assist_chunk();
  return {min - 1, min, min + chunk + 1, 2 * min + chunk / 2 + 3};
}

constexpr int windows[] = {1, 2, 7, 16, 64};

/// Message `seq` of a window from `source`: its size cycles through window_sizes(), shifted by the
/// source so that the two directions of a pair move different sizes at the same moment.
std::size_t message_bytes(int source, int seq) {
  static const std::vector<std::size_t> sizes = window_sizes();
  return sizes[static_cast<std::size_t>(seq + source) % sizes.size()];
}

std::uint64_t message_seed(int source, int round, int seq) {
  return rmpl_test::mix(rmpl_test::mix(static_cast<std::uint64_t>(source), round),
                        static_cast<std::uint64_t>(seq));
}

enum class order { receives_first, sends_first, interleaved };

const char* order_name(order o) {
  return o == order::receives_first ? "receives first"
         : o == order::sends_first  ? "sends first"
                                    : "interleaved";
}

/// One round: `window` messages from this rank to `to` and `window` from `from` to this rank, all
/// nonblocking, posted in `how` order, then waited for together. Receives name `from` or take any
/// source (only `from` sends to this rank in a round). Checks every byte and every status.
void exchange(const rmpl::communicator& comm, int to, int from, int window, order how,
              bool any_source, int round) {
  const int tag = 40 + round % 8;
  std::vector<std::vector<std::byte>> out(static_cast<std::size_t>(window));
  std::vector<std::vector<std::byte>> in(static_cast<std::size_t>(window));
  for (int i = 0; i < window; ++i) {
    auto& o = out[static_cast<std::size_t>(i)];
    o.resize(message_bytes(rank(), i));
    rmpl_test::fill_pattern(o, message_seed(rank(), round, i));
    in[static_cast<std::size_t>(i)].assign(message_bytes(from, i), std::byte{0});
  }
  std::vector<rmpl::request> receives, sends;
  receives.reserve(static_cast<std::size_t>(window));
  sends.reserve(static_cast<std::size_t>(window));
  const int source = any_source ? rmpl::any_source : from;
  auto post_receive = [&](int i) {
    receives.push_back(comm.irecv(in[static_cast<std::size_t>(i)], source, tag));
  };
  auto post_send = [&](int i) {
    sends.push_back(comm.isend(out[static_cast<std::size_t>(i)], to, tag));
  };
  switch (how) {
    case order::receives_first:
      for (int i = 0; i < window; ++i) post_receive(i);
      for (int i = 0; i < window; ++i) post_send(i);
      break;
    case order::sends_first:
      for (int i = 0; i < window; ++i) post_send(i);
      for (int i = 0; i < window; ++i) post_receive(i);
      break;
    case order::interleaved:
      for (int i = 0; i < window; ++i) {
        post_receive(i);
        post_send(i);
      }
      break;
  }
  // Wait for the receives in reverse so that a rank is often still sending while it copies. An
  // error of the library ends the job (requests still in flight cannot be left behind), but says
  // what it was first.
  try {
    for (int i = window - 1; i >= 0; --i) {
      const rmpl::status st = receives[static_cast<std::size_t>(i)].wait();
      const auto& got = in[static_cast<std::size_t>(i)];
      EXPECT_EQ(st.source, from) << "message " << i;
      EXPECT_EQ(st.bytes, got.size()) << "message " << i;
      EXPECT_EQ(rmpl_test::check_pattern(got, message_seed(from, round, i)), "")
          << "message " << i << " of " << got.size() << " bytes from rank " << from;
    }
    rmpl::wait_all(sends);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d, round %d (window %d): %s\n", rank(), round, window, e.what());
    std::abort();
  }
}

/// Every window, post order and receive kind, with `to` / `from` as the round's partners.
void all_interleavings(int to, int from) {
  auto comm = world();
  int round = 0;
  for (const int window : windows) {
    for (const order how : {order::receives_first, order::sends_first, order::interleaved}) {
      for (const bool any_source : {false, true}) {
        SCOPED_TRACE(std::string("window ") + std::to_string(window) + ", " + order_name(how) +
                     (any_source ? ", any_source" : ", named source"));
        exchange(comm, to, from, window, how, any_source, round++);
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

// Pairs (0,1), (2,3)...: both ranks of a pair send to each other at once, the bidirectional
// bandwidth pattern. An odd rank out exchanges with itself (no assist: a copy within one process).
TEST_F(Rendezvous, PairsInBothDirections) {
  const int partner = size() % 2 == 1 && rank() == size() - 1 ? rank() : rank() ^ 1;
  all_interleavings(partner, partner);
}

// A ring: each rank sends to the next and receives from the previous, so every rank is a sender
// and a receiver of assisted transfers with two different peers at once.
TEST_F(Rendezvous, Ring) {
  all_interleavings((rank() + 1) % size(), (rank() + size() - 1) % size());
}

}  // namespace
