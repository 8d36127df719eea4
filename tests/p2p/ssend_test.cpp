// A synchronous send completes only after its receive has been posted.
//
// The proof: the receiver sleeps, notes the time (rmpl::session::wtime, CLOCK_MONOTONIC, the same
// clock in every process of the host) just before posting its receive, and sends that time to the
// sender afterwards. The sender notes when it saw its send complete. Completing before the receive
// was posted would make that time earlier than the posting time, whatever the scheduling. The
// sender also tests the request while the receiver sleeps, and it must stay incomplete.
#include <vector>

#include "mp_test.hpp"

namespace {

using rmpl::session;
using rmpl_test::rank;
using rmpl_test::size;
using rmpl_test::world;

class Ssend : public rmpl_test::collective {};

constexpr int receiver_delay_ms = 200;
// nothing, inline, inline in two cells (a sync cookie leaves 40 bytes in the first), inline in
// many cells, eager, rendezvous
constexpr std::size_t sizes[] = {0, 8, 44, 1000, 4000, 100000};

enum class how { issend_and_test, issend_and_wait, blocking_ssend };
constexpr how all_ways[] = {how::issend_and_test, how::issend_and_wait, how::blocking_ssend};
constexpr const char* way_names[] = {"issend + test", "issend + wait", "ssend"};

std::vector<std::byte> pattern(std::size_t bytes) {
  std::vector<std::byte> data(bytes);
  rmpl_test::fill_pattern(data, rmpl_test::seed_of(bytes, 0, 0));
  return data;
}

// Pairs (0,1), (2,3)...: the even rank sends synchronously, the odd one receives late.
TEST_F(Ssend, DoesNotCompleteBeforeTheReceiveIsPosted) {
  if (size() < 2) GTEST_SKIP() << "needs 2 ranks (see SelfDoesNotCompleteBeforeTheReceive)";
  auto comm = world();
  const bool in_pair = rank() + 1 < size() || rank() % 2 == 1;
  const int partner = rank() ^ 1;
  for (std::size_t w = 0; w < std::size(all_ways); ++w) {
    for (std::size_t bytes : sizes) {
      SCOPED_TRACE(::testing::Message() << way_names[w] << ", " << bytes << " bytes");
      const int tag = 3, time_tag = 4;
      rmpl_test::barrier();
      if (!in_pair) continue;
      std::vector<std::byte> data = pattern(bytes);
      if (rank() % 2 == 1) {
        rmpl_test::sleep_ms(receiver_delay_ms);
        std::vector<std::byte> buffer(bytes);
        double posted = session::wtime();
        rmpl::status st = comm.recv(buffer, partner, tag);
        EXPECT_EQ(st.bytes, bytes);
        EXPECT_EQ(buffer, data);
        comm.send_value(posted, partner, time_tag);
        continue;
      }
      double completed = 0;
      std::vector<double> incomplete_at;  // ends of tests that found the send incomplete
      if (all_ways[w] == how::blocking_ssend) {
        comm.ssend(data, partner, tag);
        completed = session::wtime();
      } else {
        rmpl::request send = comm.issend(data, partner, tag);
        if (all_ways[w] == how::issend_and_test) {
          while (!send.test()) {
            incomplete_at.push_back(session::wtime());
            rmpl_test::sleep_ms(1);
          }
        } else {
          send.wait();
        }
        completed = session::wtime();
      }
      const double posted = comm.recv_value<double>(partner, time_tag);
      EXPECT_GE(completed, posted)
          << "the synchronous send completed " << (posted - completed) * 1e3
          << " ms before its receive was posted";
      if (all_ways[w] == how::issend_and_test) {
        std::size_t before = 0;
        for (double t : incomplete_at) before += t < posted ? 1 : 0;
        EXPECT_GT(before, 0u) << "no test() found the send incomplete while the receiver slept";
      }
    }
  }
}

// The other half of the contract: once the receive has returned, the send completes without the
// receiver calling rmpl again (its ack, or a rendezvous's FIN, is out before the receive returns).
// The receiver computes for 500 ms after its receive, outside rmpl; the sender must see its send
// complete within that time. The message is in the ring before the receive (the receiver sleeps
// first), so a blocking receive takes it by its fast path, which acks it itself.
TEST_F(Ssend, CompletesWhileTheReceiverComputesAfterItsReceive) {
  if (size() < 2) GTEST_SKIP() << "needs 2 ranks";
  auto comm = world();
  const bool in_pair = rank() + 1 < size() || rank() % 2 == 1;
  const int partner = rank() ^ 1;
  constexpr double compute_s = 0.5;
  // nothing, inline, long inline (two and more cells), eager, rendezvous
  for (std::size_t bytes : {std::size_t{0}, std::size_t{8}, std::size_t{44}, std::size_t{200},
                            std::size_t{4000}, std::size_t{100000}}) {
    SCOPED_TRACE(::testing::Message() << bytes << " bytes");
    const int tag = 6, time_tag = 7;
    rmpl_test::barrier();
    if (!in_pair) continue;
    std::vector<std::byte> data = pattern(bytes);
    if (rank() % 2 == 1) {
      rmpl_test::sleep_ms(50);
      std::vector<std::byte> buffer(bytes);
      rmpl::status st = comm.recv(buffer, partner, tag);
      const double returned = session::wtime();
      rmpl_test::sleep_ms(static_cast<int>(compute_s * 1000));  // no rmpl call meanwhile
      EXPECT_EQ(st.bytes, bytes);
      EXPECT_EQ(buffer, data);
      comm.send_value(returned, partner, time_tag);
      continue;
    }
    comm.ssend(data, partner, tag);
    const double completed = session::wtime();
    const double returned = comm.recv_value<double>(partner, time_tag);
    EXPECT_LT(completed, returned + compute_s)
        << "the synchronous send completed only " << (completed - returned) * 1e3
        << " ms after its receive returned, when the receiver called rmpl again";
  }
}

// To self: nothing can complete the send until this rank posts the receive, so every test() before
// that must fail.
TEST_F(Ssend, SelfDoesNotCompleteBeforeTheReceive) {
  auto comm = world();
  for (std::size_t bytes : sizes) {
    SCOPED_TRACE(::testing::Message() << bytes << " bytes");
    const int tag = 5;
    std::vector<std::byte> data = pattern(bytes);
    rmpl::request send = comm.issend(data, rank(), tag);
    for (int i = 0; i < 50; ++i) {
      ASSERT_FALSE(send.test().has_value()) << "completed with no receive posted";
      rmpl_test::sleep_ms(1);
    }
    std::vector<std::byte> buffer(bytes);
    rmpl::status st = comm.recv(buffer, rank(), tag);
    send.wait();
    EXPECT_EQ(st.bytes, bytes);
    EXPECT_EQ(buffer, data);
  }
}

}  // namespace
