// The rest of point-to-point: probe and iprobe, sendrecv, proc_null, the four send modes, buffered
// sends, and send_value / recv_value.
#include <cstring>
#include <vector>

#include "mp_test.hpp"

namespace {

using rmpl_test::rank;
using rmpl_test::size;
using rmpl_test::world;

class Probe : public rmpl_test::collective {};
class Sendrecv : public rmpl_test::collective {};
class ProcNull : public rmpl_test::collective {};
class SendModes : public rmpl_test::collective {};
class Values : public rmpl_test::collective {};

int next_rank() {
  return (rank() + 1) % size();
}
int prev_rank() {
  return (rank() + size() - 1) % size();
}

constexpr std::size_t protocol_sizes[] = {5, 1234, 100000};  // inline, eager, rendezvous

std::vector<std::byte> pattern(std::size_t bytes, int source) {
  std::vector<std::byte> data(bytes);
  rmpl_test::fill_pattern(data, rmpl_test::seed_of(bytes, 0, source));
  return data;
}

// ---- probe ----

TEST_F(Probe, IprobeFindsNothingWhenNothingWasSent) {
  EXPECT_FALSE(world().iprobe(rmpl::any_source, 999).has_value());
  EXPECT_FALSE(world().iprobe(prev_rank(), 999).has_value());
}

// probe tells the size before the receive; probing again finds the same message (probe does not
// consume it); the receive then gets exactly that message.
TEST_F(Probe, ReportsSourceTagAndSizeWithoutReceiving) {
  auto comm = world();
  for (std::size_t bytes : protocol_sizes) {
    SCOPED_TRACE(::testing::Message() << bytes << " bytes");
    const int tag = 11;
    std::vector<std::byte> message = pattern(bytes, rank());
    rmpl::request send = comm.isend(message, next_rank(), tag);
    rmpl::status probed = comm.probe(rmpl::any_source, rmpl::any_tag);
    EXPECT_EQ(probed.source, prev_rank());
    EXPECT_EQ(probed.tag, tag);
    EXPECT_EQ(probed.bytes, bytes);
    std::optional<rmpl::status> again = comm.iprobe(prev_rank(), tag);
    ASSERT_TRUE(again.has_value()) << "the probed message vanished";
    EXPECT_EQ(again->bytes, bytes);
    std::vector<std::byte> buffer(probed.bytes);
    rmpl::status st = comm.recv(buffer, probed.source, probed.tag);
    EXPECT_EQ(st.bytes, bytes);
    EXPECT_EQ(buffer, pattern(bytes, prev_rank()));
    send.wait();
  }
}

// iprobe, polled, eventually sees a message that is on its way.
TEST_F(Probe, IprobePollsUntilTheMessageArrives) {
  auto comm = world();
  const int tag = 12;
  std::vector<std::byte> message = pattern(1234, rank());
  rmpl::request send = comm.isend(message, next_rank(), tag);
  std::optional<rmpl::status> found;
  const double deadline = rmpl::session::wtime() + 30;
  while (!found && rmpl::session::wtime() < deadline) found = comm.iprobe(rmpl::any_source, tag);
  ASSERT_TRUE(found.has_value()) << "iprobe never saw the message";
  EXPECT_EQ(found->bytes, 1234u);
  EXPECT_EQ(found->source, prev_rank());
  std::vector<std::byte> buffer(found->bytes);
  comm.recv(buffer, found->source, tag);
  send.wait();
}

// ---- sendrecv ----

// A value shifted around the ring with sendrecv comes back to its owner after size() steps.
TEST_F(Sendrecv, RingShift) {
  auto comm = world();
  int value = rank() * 10 + 1;
  for (int step = 1; step <= size(); ++step) {
    int got = -1;
    rmpl::status st =
        comm.sendrecv(std::span(&value, 1), next_rank(), 6, std::span(&got, 1), prev_rank(), 6);
    EXPECT_EQ(st.source, prev_rank());
    EXPECT_EQ(got, ((rank() - step) % size() + size()) % size() * 10 + 1) << "step " << step;
    value = got;
  }
  EXPECT_EQ(value, rank() * 10 + 1);
}

// Large exchanges in both directions at once (rendezvous both ways) must not deadlock.
TEST_F(Sendrecv, LargeShiftBothWays) {
  auto comm = world();
  const std::size_t bytes = (1 << 20) + 3;
  std::vector<std::byte> message = pattern(bytes, rank()), buffer(bytes);
  rmpl::status st = comm.sendrecv(message, next_rank(), 7, buffer, rmpl::any_source, 7);
  EXPECT_EQ(st.bytes, bytes);
  EXPECT_EQ(st.source, prev_rank());
  EXPECT_EQ(rmpl_test::check_pattern(buffer, rmpl_test::seed_of(bytes, 0, prev_rank())), "");
  st = comm.sendrecv(message, prev_rank(), 8, buffer, next_rank(), 8);
  EXPECT_EQ(rmpl_test::check_pattern(buffer, rmpl_test::seed_of(bytes, 0, next_rank())), "");
}

// ---- proc_null ----

TEST_F(ProcNull, SendAndReceiveCompleteAtOnce) {
  auto comm = world();
  std::vector<std::byte> data = pattern(100000, rank());
  std::vector<std::byte> buffer(16, std::byte{0x33});
  for (rmpl::send_mode mode :
       {rmpl::send_mode::standard, rmpl::send_mode::synchronous, rmpl::send_mode::buffered}) {
    comm.send(data, rmpl::proc_null, 1, mode);
  }
  rmpl::status st = comm.recv(buffer, rmpl::proc_null, 1);
  EXPECT_EQ(st.source, rmpl::proc_null);
  EXPECT_EQ(st.bytes, 0u);
  EXPECT_EQ(rmpl_test::check_filled(buffer, std::byte{0x33}), "")
      << "a proc_null receive wrote data";

  rmpl::request send = comm.isend(data, rmpl::proc_null, 2);
  rmpl::request receive = comm.irecv(buffer, rmpl::proc_null, rmpl::any_tag);
  EXPECT_TRUE(send.test().has_value()) << "an isend to proc_null is pending";
  std::optional<rmpl::status> received = receive.test();
  ASSERT_TRUE(received.has_value()) << "an irecv from proc_null is pending";
  EXPECT_EQ(received->source, rmpl::proc_null);
  EXPECT_EQ(received->bytes, 0u);

  st = comm.sendrecv(data, rmpl::proc_null, 3, buffer, rmpl::proc_null, 3);
  EXPECT_EQ(st.source, rmpl::proc_null);
  EXPECT_EQ(st.bytes, 0u);
  EXPECT_EQ(rmpl_test::check_filled(buffer, std::byte{0x33}), "");
  EXPECT_FALSE(comm.iprobe(rmpl::any_source, rmpl::any_tag).has_value())
      << "a send to proc_null produced a message";
}

// ---- send modes ----

constexpr rmpl::send_mode all_modes[] = {rmpl::send_mode::standard, rmpl::send_mode::synchronous,
                                         rmpl::send_mode::buffered, rmpl::send_mode::ready};
constexpr const char* mode_names[] = {"standard", "synchronous", "buffered", "ready"};

// Each mode delivers every protocol size around the ring, blocking and nonblocking. Receives are
// posted (everywhere) before the sends, as ready mode requires.
TEST_F(SendModes, AllDeliver) {
  auto comm = world();
  for (std::size_t m = 0; m < std::size(all_modes); ++m) {
    for (std::size_t bytes : protocol_sizes) {
      for (bool nonblocking : {false, true}) {
        SCOPED_TRACE(::testing::Message() << mode_names[m] << (nonblocking ? " isend, " : " send, ")
                                          << bytes << " bytes");
        const int tag = 20 + static_cast<int>(m);
        std::vector<std::byte> message = pattern(bytes, rank()), buffer(bytes);
        rmpl::request receive = comm.irecv(buffer, prev_rank(), tag);
        rmpl_test::barrier();
        if (nonblocking) {
          rmpl::request send = comm.isend(message, next_rank(), tag, all_modes[m]);
          receive.wait();
          send.wait();
        } else {
          comm.send(message, next_rank(), tag, all_modes[m]);
          receive.wait();
        }
        EXPECT_EQ(buffer, pattern(bytes, prev_rank()));
      }
    }
  }
}

// A buffered send completes without its receive: every rank bsends to the next one, then all meet
// at a barrier (which they could not reach if a bsend waited for its receive), then receive.
TEST_F(SendModes, BufferedSendCompletesBeforeTheReceive) {
  auto comm = world();
  for (std::size_t bytes : protocol_sizes) {
    SCOPED_TRACE(::testing::Message() << bytes << " bytes");
    std::vector<std::byte> message = pattern(bytes, rank()), buffer(bytes);
    comm.bsend(message, next_rank(), 30);
    std::fill(message.begin(), message.end(), std::byte{0});  // the send must have copied it
    rmpl_test::barrier();
    comm.recv(buffer, prev_rank(), 30);
    EXPECT_EQ(buffer, pattern(bytes, prev_rank()));
  }
}

// More than the attached buffer (16 MiB by default) cannot be sent buffered.
TEST_F(SendModes, BufferedSendLargerThanTheBufferFails) {
  auto comm = world();
  std::vector<std::byte> message(32u << 20);
  try {
    comm.bsend(message, rank(), 31);
    ADD_FAILURE() << "a 32 MiB buffered send succeeded with the default 16 MiB buffer";
    std::vector<std::byte> buffer(message.size());
    comm.recv(buffer, rank(), 31);
  } catch (const rmpl::error& e) {
    EXPECT_EQ(e.code(), rmpl::errc::buffer_exhausted) << e.what();
  }
  EXPECT_FALSE(comm.iprobe(rank(), 31).has_value()) << "the failed buffered send left a message";
}

// ---- values ----

struct point {
  double x;
  std::int32_t id;
  char label[6];
};

TEST_F(Values, SendValueAndRecvValue) {
  auto comm = world();
  point mine{rank() * 0.5, rank(), "pt"};
  rmpl::request send;
  if (size() > 1) {
    comm.send_value(mine, next_rank(), 40);
  } else {
    send = comm.isend(std::span(&mine, 1), rank(), 40);  // a blocking send to self could wait
  }
  rmpl::status st;
  point got = comm.recv_value<point>(prev_rank(), 40, &st);
  if (send.active()) send.wait();
  EXPECT_EQ(st.source, prev_rank());
  EXPECT_EQ(st.tag, 40);
  EXPECT_EQ(st.bytes, sizeof(point));
  EXPECT_EQ(got.x, prev_rank() * 0.5);
  EXPECT_EQ(got.id, prev_rank());
  EXPECT_STREQ(got.label, "pt");

  // Plain integers, any source and tag.
  std::int64_t big = (std::int64_t{1} << 40) + rank();
  send = comm.isend(std::span(&big, 1), next_rank(), 41);
  EXPECT_EQ(comm.recv_value<std::int64_t>(), (std::int64_t{1} << 40) + prev_rank());
  send.wait();
}

}  // namespace
