// Ready notices (core/engine.hpp, "notices"): a receiver that posts a receive certain to take its
// source's next message on (context, tag) tells the source so, and a synchronous send that finds
// the notice completes when its message is out, with no ack, so without the receiver running
// again. These tests check that it does, and that a notice never lets a synchronous send complete
// when no matching receive is posted: after a standard send consumed it, after the receive was
// cancelled, or when an earlier receive takes the message.
//
// Notices are sent only when the last message from that source was synchronous, so every test
// starts a pair with a synchronous warm-up message. Pairs are (0,1), (2,3)...: the even rank
// sends; with an odd number of ranks the last one idles.
#include <algorithm>
#include <string>
#include <vector>

#include "mp_test.hpp"

namespace {

using rmpl::session;
using rmpl_test::rank;
using rmpl_test::size;
using rmpl_test::world;

class Ready : public rmpl_test::collective {};

constexpr int data_tag = 3, signal_tag = 4, time_tag = 5;
constexpr int receiver_sleep_ms = 600;
// Inline with a cookie's room, a full inline cell (only a notice lets a synchronous send use the
// last 8 bytes), eager.
constexpr std::size_t quick_sizes[] = {0, 8, 48, 1000};

std::vector<std::byte> pattern(std::size_t bytes, int salt) {
  std::vector<std::byte> data(bytes);
  rmpl_test::fill_pattern(data, rmpl_test::seed_of(bytes, static_cast<std::size_t>(salt), 0));
  return data;
}

bool in_pair() {
  return rank() + 1 < size() || rank() % 2 == 1;
}

/// The synchronous message that makes the receiver announce its next receives from the sender.
void warm_up(const rmpl::communicator& comm, bool sender, int partner) {
  std::byte b{7};
  if (sender) {
    comm.ssend(std::span(&b, 1), partner, data_tag);
  } else {
    comm.recv(std::span(&b, 1), partner, data_tag);
  }
}

// The receive is posted and announced; the receiver then sleeps outside the library. A blocking
// ssend and an issend + wait must both return while it sleeps: without notices they wait for the
// receiver's ack, which it sends only when it runs again.
TEST_F(Ready, SsendCompletesWhileTheReceiverSleeps) {
  if (size() < 2) GTEST_SKIP() << "needs 2 ranks";
  auto comm = world();
  const int partner = rank() ^ 1;
  for (int r = 0; r + 1 < size(); r += 2) {
    // Ready notices are the shared-memory path's: through the ucx provider a synchronous send
    // completes on the receiver's ack, which a receiver outside the library does not send (why
    // there are no notices there: docs/architecture.md, "Peers on other hosts").
    if (rmpl_test::spans_hosts({r, r + 1}))
      GTEST_SKIP() << "ranks " << r << " and " << r + 1 << " are on different hosts";
  }
  const bool sender = rank() % 2 == 0;
  for (int way = 0; way < 2; ++way) {
    for (std::size_t bytes : quick_sizes) {
      SCOPED_TRACE(::testing::Message()
                   << (way == 0 ? "ssend" : "issend + wait") << ", " << bytes << " bytes");
      rmpl_test::barrier();
      if (!in_pair()) continue;
      warm_up(comm, sender, partner);
      const std::vector<std::byte> data = pattern(bytes, way);
      if (!sender) {
        std::vector<std::byte> buffer(bytes);
        rmpl::request r = comm.irecv(buffer, partner, data_tag);
        comm.send_value(0, partner, signal_tag);  // "posted": behind the ready cell in the ring
        rmpl_test::sleep_ms(receiver_sleep_ms);
        const double woke = session::wtime();
        const rmpl::status st = r.wait();
        EXPECT_EQ(st.bytes, bytes);
        EXPECT_EQ(buffer, data);
        comm.send_value(woke, partner, time_tag);
        continue;
      }
      comm.recv_value<int>(partner, signal_tag);
      const double start = session::wtime();
      if (way == 0) {
        comm.ssend(data, partner, data_tag);
      } else {
        rmpl::request s = comm.issend(data, partner, data_tag);
        s.wait();
      }
      const double completed = session::wtime();
      const double woke = comm.recv_value<double>(partner, time_tag);
      EXPECT_LT(completed, woke) << "the synchronous send took " << (completed - start) * 1e3
                                 << " ms and completed only after the receiver woke ("
                                 << (completed - woke) * 1e3 << " ms after)";
    }
  }
}

// A standard send consumes the notice (its message takes the announced receive), so the
// synchronous send after it must wait for a second receive, posted late.
TEST_F(Ready, StandardSendConsumesTheNotice) {
  if (size() < 2) GTEST_SKIP() << "needs 2 ranks";
  auto comm = world();
  const int partner = rank() ^ 1;
  const bool sender = rank() % 2 == 0;
  for (std::size_t bytes : quick_sizes) {
    SCOPED_TRACE(::testing::Message() << bytes << " bytes");
    rmpl_test::barrier();
    if (!in_pair()) continue;
    warm_up(comm, sender, partner);
    const std::vector<std::byte> first = pattern(bytes, 1), second = pattern(bytes, 2);
    if (!sender) {
      std::vector<std::byte> buffer(bytes);
      rmpl::request r = comm.irecv(buffer, partner, data_tag);
      comm.send_value(0, partner, signal_tag);
      r.wait();
      EXPECT_EQ(buffer, first);
      rmpl_test::sleep_ms(receiver_sleep_ms / 2);
      const double posted = session::wtime();
      comm.recv(buffer, partner, data_tag);
      EXPECT_EQ(buffer, second);
      comm.send_value(posted, partner, time_tag);
      continue;
    }
    comm.recv_value<int>(partner, signal_tag);
    comm.send(first, partner, data_tag);
    comm.ssend(second, partner, data_tag);
    const double completed = session::wtime();
    const double posted = comm.recv_value<double>(partner, time_tag);
    EXPECT_GE(completed, posted) << "the synchronous send completed " << (posted - completed) * 1e3
                                 << " ms before its receive was posted (a consumed notice reused)";
  }
}

// A cancelled receive withdraws its notice: a synchronous send started after the cancel waits for
// the receive posted later. Two orders: the sender reads the withdraw before it sends (it drops
// the notice), or it holds the notice and the withdraw waits unread in its ring when it sends
// (it must not use the notice then).
TEST_F(Ready, CancelledReceiveWithdrawsItsNotice) {
  if (size() < 2) GTEST_SKIP() << "needs 2 ranks";
  auto comm = world();
  const int partner = rank() ^ 1;
  const bool sender = rank() % 2 == 0;
  for (int order = 0; order < 2; ++order) {
    for (std::size_t bytes : quick_sizes) {
      SCOPED_TRACE(::testing::Message() << (order == 0 ? "withdraw read" : "withdraw unread")
                                        << ", " << bytes << " bytes");
      rmpl_test::barrier();
      const bool active = in_pair();
      const std::vector<std::byte> data = pattern(bytes, 3);
      std::vector<std::byte> buffer(bytes);
      if (active) warm_up(comm, sender, partner);
      if (active && !sender) {
        rmpl::request r = comm.irecv(buffer, partner, data_tag);
        if (order == 1) {
          comm.send_value(0, partner, signal_tag);    // the sender reads the notice...
          comm.recv_value<int>(partner, signal_tag);  // ...and says so
        }
        r.cancel();
        const rmpl::status st = r.wait();
        EXPECT_TRUE(st.cancelled);
        if (order == 0) comm.send_value(0, partner, signal_tag);  // behind the withdraw
      } else if (active && order == 1) {
        comm.recv_value<int>(partner, signal_tag);
        comm.send_value(0, partner, signal_tag);
      }
      // Order 1: the withdraw is published before the sender goes on, which reads nothing in
      // between (the harness barrier is outside rmpl).
      if (order == 1) rmpl_test::barrier();
      if (!active) continue;
      if (!sender) {
        rmpl_test::sleep_ms(receiver_sleep_ms / 2);
        const double posted = session::wtime();
        comm.recv(buffer, partner, data_tag);
        EXPECT_EQ(buffer, data);
        comm.send_value(posted, partner, time_tag);
        continue;
      }
      if (order == 0) comm.recv_value<int>(partner, signal_tag);
      comm.ssend(data, partner, data_tag);
      const double completed = session::wtime();
      const double posted = comm.recv_value<double>(partner, time_tag);
      EXPECT_GE(completed, posted)
          << "the synchronous send completed " << (posted - completed) * 1e3
          << " ms before its receive was posted (the cancelled receive's notice was used)";
    }
  }
}

// An any_source receive posted first takes the next message, so the named receive posted after
// it announces nothing; both get the right messages, in order. Then the same with an any_tag
// receive from the sender.
TEST_F(Ready, EarlierWildcardReceiveTakesTheMessage) {
  if (size() < 2) GTEST_SKIP() << "needs 2 ranks";
  auto comm = world();
  const int partner = rank() ^ 1;
  const bool sender = rank() % 2 == 0;
  for (int wildcard = 0; wildcard < 2; ++wildcard) {
    for (std::size_t bytes : quick_sizes) {
      SCOPED_TRACE(::testing::Message()
                   << (wildcard == 0 ? "any source" : "any tag") << ", " << bytes << " bytes");
      rmpl_test::barrier();
      if (!in_pair()) continue;
      warm_up(comm, sender, partner);
      const std::vector<std::byte> first = pattern(bytes, 4), second = pattern(bytes, 5);
      if (!sender) {
        std::vector<std::byte> a(bytes), b(bytes);
        rmpl::request early = wildcard == 0 ? comm.irecv(a, rmpl::any_source, data_tag)
                                            : comm.irecv(a, partner, rmpl::any_tag);
        rmpl::request named = comm.irecv(b, partner, data_tag);
        comm.send_value(0, partner, signal_tag);
        const rmpl::status s1 = early.wait();
        const rmpl::status s2 = named.wait();
        EXPECT_EQ(s1.source, partner);
        EXPECT_EQ(s1.tag, data_tag);
        EXPECT_EQ(a, first) << "the earlier wildcard receive did not get the first message";
        EXPECT_EQ(s2.source, partner);
        EXPECT_EQ(b, second);
        continue;
      }
      comm.recv_value<int>(partner, signal_tag);
      comm.ssend(first, partner, data_tag);
      comm.ssend(second, partner, data_tag);
    }
  }
}

// To itself a rank keeps its notice at once: an issend after the irecv is complete before the
// receive is waited for. After a cancel the notice is gone: the issend stays incomplete until a
// receive is posted.
TEST_F(Ready, SelfNoticeIsKeptAtOnceAndWithdrawnExactly) {
  auto comm = world();
  const int me = rank();
  for (std::size_t bytes : quick_sizes) {
    SCOPED_TRACE(::testing::Message() << bytes << " bytes");
    std::vector<std::byte> buffer(bytes);
    const std::vector<std::byte> data = pattern(bytes, 6);
    {  // the synchronous warm-up, to itself
      rmpl::request r = comm.irecv(buffer, me, data_tag);
      comm.ssend(data, me, data_tag);
      r.wait();
    }
    rmpl::request r = comm.irecv(buffer, me, data_tag);
    rmpl::request s = comm.issend(data, me, data_tag);
    EXPECT_TRUE(s.done()) << "the issend to a posted, announced receive did not complete at once";
    r.wait();
    s.wait();
    EXPECT_EQ(buffer, data);

    rmpl::request cancelled = comm.irecv(buffer, me, data_tag);
    cancelled.cancel();
    EXPECT_TRUE(cancelled.wait().cancelled);
    rmpl::request late = comm.issend(data, me, data_tag);
    for (int i = 0; i < 20; ++i) {
      ASSERT_FALSE(late.test().has_value()) << "completed with no receive posted (after a cancel)";
      rmpl_test::sleep_ms(1);
    }
    std::fill(buffer.begin(), buffer.end(), std::byte{0});
    comm.recv(buffer, me, data_tag);
    late.wait();
    EXPECT_EQ(buffer, data);
  }
}

// Mixed modes on several tags and two communicators, with notices coming and going: every rank
// sends to the next and receives from the previous one, each round posting its receives first
// (one per tag and communicator at a time, so each is announced) and then sending with blocking
// standard, synchronous and buffered sends and an issend. Every message must land in the receive
// MPI's order gives it.
TEST_F(Ready, MixedModesKeepMpiOrder) {
  auto comm = world();
  auto other = comm.dup();
  const rmpl::communicator* comms[] = {&comm, &other};
  const int p = size();
  const int next = (rank() + 1) % p, prev = (rank() + p - 1) % p;
  constexpr int tags[] = {11, 12, 13};
  constexpr std::size_t sizes[] = {0, 8, 40, 48, 1000, 20000};
  constexpr int per_tag = 4, rounds = 30;
  constexpr std::size_t max_bytes = 20000;
  // Message i of (communicator c, tag t) in round k: its size and its contents' salt.
  auto size_of = [&](int k, int c, int t, int i) {
    return sizes[static_cast<std::size_t>(k + 3 * c + 5 * t + 7 * i) % std::size(sizes)];
  };
  auto salt_of = [&](int from, int k, int c, int t, int i) {
    return (((from * rounds + k) * 2 + c) * 3 + t) * per_tag + i;
  };
  std::vector<std::vector<std::byte>> buffers(2 * 3 * per_tag, std::vector<std::byte>(max_bytes));
  std::vector<std::vector<std::byte>> outgoing(2 * 3 * per_tag);
  for (int k = 0; k < rounds; ++k) {
    SCOPED_TRACE(::testing::Message() << "round " << k);
    // Receives, posted i-major: the first per (communicator, tag) is announced; the ones after it
    // are not (an earlier one would take the message), but each becomes first in turn.
    std::vector<rmpl::request> recvs;
    for (int i = 0; i < per_tag; ++i)
      for (int c = 0; c < 2; ++c)
        for (int t = 0; t < 3; ++t)
          recvs.push_back(comms[c]->irecv(
              buffers[static_cast<std::size_t>((c * 3 + t) * per_tag + i)], prev, tags[t]));
    // Sends, tag-major with a rotating start, so cross-tag order differs from the posting order.
    std::vector<rmpl::request> isends;
    for (int tt = 0; tt < 3; ++tt) {
      const int t = (tt + k) % 3;
      for (int c = 0; c < 2; ++c) {
        for (int i = 0; i < per_tag; ++i) {
          auto& out = outgoing[static_cast<std::size_t>((c * 3 + t) * per_tag + i)];
          out = pattern(size_of(k, c, t, i), salt_of(rank(), k, c, t, i));
          switch ((i + t + k + c) % 4) {
            case 0:
              comms[c]->send(out, next, tags[t]);
              break;
            case 1:
              comms[c]->ssend(out, next, tags[t]);
              break;
            case 2:
              comms[c]->bsend(out, next, tags[t]);
              break;
            default:
              isends.push_back(comms[c]->issend(out, next, tags[t]));
              break;
          }
        }
      }
    }
    rmpl::wait_all(recvs);
    rmpl::wait_all(isends);
    for (int c = 0; c < 2; ++c) {
      for (int t = 0; t < 3; ++t) {
        for (int i = 0; i < per_tag; ++i) {
          const std::size_t bytes = size_of(k, c, t, i);
          const auto& got = buffers[static_cast<std::size_t>((c * 3 + t) * per_tag + i)];
          const std::string bad = rmpl_test::check_pattern(
              std::span(got.data(), bytes),
              rmpl_test::seed_of(bytes, static_cast<std::size_t>(salt_of(prev, k, c, t, i)), 0));
          EXPECT_TRUE(bad.empty())
              << "communicator " << c << ", tag " << tags[t] << ", message " << i << " from rank "
              << prev << " (" << bytes << " bytes): " << bad;
        }
      }
    }
  }
}

}  // namespace
