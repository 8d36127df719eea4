// Many senders, one late receiver: every rank but 0 sends 100,000 small messages to rank 0, which
// starts receiving only after sleeping a second. Nothing may be lost or reordered, the senders must
// block while rank 0 sleeps (flow control, not unbounded buffering) and resume when it receives,
// and memory must stay bounded.
//
// RMPL_TEST_MESSAGES overrides the number of messages per sender.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "memory.hpp"
#include "mp_test.hpp"

namespace {

using rmpl::session;
using rmpl_test::rank;
using rmpl_test::size;
using rmpl_test::world;

class ManyToOne : public rmpl_test::collective {};

struct message {
  std::int32_t source;
  std::uint32_t seq;
  std::uint64_t value;
};

/// What each sender reports to rank 0 at the end.
struct sender_report {
  std::uint64_t sent_before_receiver_started;  // sends that completed while rank 0 slept
  double send_seconds;                         // from the first send to the last
  long rss_growth_kib;
};

constexpr int data_tag = 9, start_tag = 10, report_tag = 11;
constexpr long rss_limit_kib = 256 * 1024;        // rank 0's peak resident set
constexpr long rss_growth_limit_kib = 32 * 1024;  // any rank's growth during the stream

TEST_F(ManyToOne, LateReceiverLosesNothingAndSendersBlock) {
  if (size() < 2) GTEST_SKIP() << "needs at least one sender";
  // Senders block on flow control: the shared-memory rings, or the ucx provider's credits
  // (core/remote.cpp) for senders on another host.
  auto comm = world();
  const std::uint32_t count =
      static_cast<std::uint32_t>(rmpl_test::env_long("RMPL_TEST_MESSAGES", 100000));

  if (rank() != 0) {
    std::vector<double> completed_at(count);  // allocated (and touched) before measuring memory
    std::fill(completed_at.begin(), completed_at.end(), 0.0);
    const long rss_before = rmpl_test::current_rss_kib();
    const double start = session::wtime();
    for (std::uint32_t seq = 0; seq < count; ++seq) {
      message m{rank(), seq, rmpl_test::mix(rank(), seq)};
      comm.send(std::span(&m, 1), 0, data_tag);
      completed_at[seq] = session::wtime();
    }
    const double receiver_started = comm.recv_value<double>(0, start_tag);
    sender_report report{};
    report.sent_before_receiver_started = static_cast<std::uint64_t>(std::count_if(
        completed_at.begin(), completed_at.end(), [&](double t) { return t < receiver_started; }));
    report.send_seconds = completed_at.back() - start;
    report.rss_growth_kib = rmpl_test::current_rss_kib() - rss_before;
    comm.send_value(report, 0, report_tag);
    return;
  }

  const long rss_before = rmpl_test::current_rss_kib();
  rmpl_test::sleep_ms(1000);
  const double started = session::wtime();
  std::vector<std::uint32_t> received(size(), 0);
  std::vector<std::uint64_t> checksum(size(), 0);
  const std::size_t total = static_cast<std::size_t>(count) * (size() - 1);
  for (std::size_t i = 0; i < total; ++i) {
    message m{};
    rmpl::status st = comm.recv(std::span(&m, 1), rmpl::any_source, data_tag);
    ASSERT_TRUE(st.source > 0 && st.source < size() && m.source == st.source)
        << "message " << i << ": status source " << st.source << ", message says " << m.source;
    ASSERT_EQ(m.seq, received[m.source]) << "from rank " << m.source << ": lost or reordered";
    ASSERT_EQ(m.value, rmpl_test::mix(m.source, m.seq)) << "from rank " << m.source;
    ++received[m.source];
    checksum[m.source] += m.value;
  }
  const double finished = session::wtime();
  for (int source = 1; source < size(); ++source) {
    std::uint64_t expected = 0;
    for (std::uint32_t seq = 0; seq < count; ++seq) expected += rmpl_test::mix(source, seq);
    EXPECT_EQ(received[source], count) << "from rank " << source;
    EXPECT_EQ(checksum[source], expected) << "from rank " << source;
  }
  EXPECT_LT(rmpl_test::peak_rss_kib(), rss_limit_kib) << "rank 0's peak RSS (KiB)";
  EXPECT_LT(rmpl_test::current_rss_kib() - rss_before, rss_growth_limit_kib)
      << "rank 0's RSS grew by this much (KiB) while receiving";

  for (int source = 1; source < size(); ++source) comm.send_value(started, source, start_tag);
  std::uint64_t most_before_start = 0;
  for (int source = 1; source < size(); ++source) {
    rmpl::status st;
    auto report = comm.recv_value<sender_report>(source, report_tag, &st);
    // A sender that completed most of its sends while rank 0 slept buffered them: no flow control.
    // (Meaningful only when the count is far beyond what the rings and eager slots hold.)
    if (count >= 20000) {
      EXPECT_LT(report.sent_before_receiver_started, count / 2)
          << "rank " << source << " completed this many sends before rank 0 received anything";
    }
    EXPECT_LT(report.rss_growth_kib, rss_growth_limit_kib)
        << "rank " << source << "'s RSS grew by this much (KiB) while sending";
    most_before_start = std::max(most_before_start, report.sent_before_receiver_started);
  }
  const double seconds = finished - started;
  std::printf(
      "[ many-to-one ] %d senders x %u messages received in %.2f s (%.0f messages/s); "
      "at most %llu sends completed per sender before the receiver started; rank 0 peak RSS "
      "%ld MiB\n",
      size() - 1, count, seconds, static_cast<double>(total) / seconds,
      static_cast<unsigned long long>(most_before_start), rmpl_test::peak_rss_kib() / 1024);
  RecordProperty("receive_seconds", std::to_string(seconds));
}

}  // namespace
