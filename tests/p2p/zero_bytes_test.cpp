// Zero-byte messages: in every send mode, blocking and nonblocking, between ranks and to self, with
// null and non-null buffers. A zero-byte message is still a message: it matches one receive,
// carries its tag and source, and keeps its place in the order.
#include <array>
#include <vector>

#include "mp_test.hpp"

namespace {

using rmpl_test::rank;
using rmpl_test::size;
using rmpl_test::world;

class ZeroBytes : public rmpl_test::collective {};

constexpr rmpl::send_mode all_modes[] = {rmpl::send_mode::standard, rmpl::send_mode::synchronous,
                                         rmpl::send_mode::buffered, rmpl::send_mode::ready};
constexpr const char* mode_names[] = {"standard", "synchronous", "buffered", "ready"};

int next_rank() {
  return (rank() + 1) % size();
}
int prev_rank() {
  return (rank() + size() - 1) % size();
}

constexpr std::byte guard{0x5a};
const std::span<const std::byte> nothing{};  // a null pointer and no bytes

void expect_empty_message(const rmpl::status& st, int source, int tag) {
  EXPECT_EQ(st.bytes, 0u);
  EXPECT_EQ(st.source, source);
  EXPECT_EQ(st.tag, tag);
  EXPECT_FALSE(st.cancelled);
  EXPECT_EQ(st.error, rmpl::errc::success);
}

// Rank r sends to r+1 in each mode; the receive is posted first (everywhere, for ready mode).
TEST_F(ZeroBytes, RingBlockingSendInEveryMode) {
  auto comm = world();
  for (std::size_t m = 0; m < std::size(all_modes); ++m) {
    SCOPED_TRACE(mode_names[m]);
    const int tag = 10 + static_cast<int>(m);
    std::array<std::byte, 16> buffer;
    buffer.fill(guard);
    rmpl::request receive = comm.irecv(buffer, prev_rank(), tag);
    rmpl_test::barrier();  // every receive is posted before any ready-mode send
    comm.send(nothing, next_rank(), tag, all_modes[m]);
    expect_empty_message(receive.wait(), prev_rank(), tag);
    EXPECT_EQ(rmpl_test::check_filled(buffer, guard), "") << "a zero-byte message wrote data";
  }
}

// Nonblocking sends in each mode, received by blocking receives into null buffers.
TEST_F(ZeroBytes, RingNonblockingSendInEveryMode) {
  auto comm = world();
  for (std::size_t m = 0; m < std::size(all_modes); ++m) {
    SCOPED_TRACE(mode_names[m]);
    const int tag = 20 + static_cast<int>(m);
    rmpl::request receive;
    if (all_modes[m] == rmpl::send_mode::ready) {
      receive = comm.irecv(std::span<std::byte>{}, prev_rank(), tag);
      rmpl_test::barrier();
    }
    rmpl::request send = comm.isend(nothing, next_rank(), tag, all_modes[m]);
    rmpl::status st =
        receive.active() ? receive.wait() : comm.recv(std::span<std::byte>{}, prev_rank(), tag);
    expect_empty_message(st, prev_rank(), tag);
    send.wait();
  }
}

// To self, in each mode: the send is nonblocking (a blocking synchronous send to self would wait
// for its own receive), except in ready mode, whose receive must come first.
TEST_F(ZeroBytes, ToSelfInEveryMode) {
  auto comm = world();
  for (std::size_t m = 0; m < std::size(all_modes); ++m) {
    SCOPED_TRACE(mode_names[m]);
    const int tag = 30 + static_cast<int>(m);
    std::array<std::byte, 4> buffer;
    buffer.fill(guard);
    if (all_modes[m] == rmpl::send_mode::ready) {
      rmpl::request receive = comm.irecv(buffer, rank(), tag);
      comm.send(nothing, rank(), tag, all_modes[m]);
      expect_empty_message(receive.wait(), rank(), tag);
    } else {
      rmpl::request send = comm.isend(nothing, rank(), tag, all_modes[m]);
      expect_empty_message(comm.recv(buffer, rmpl::any_source, rmpl::any_tag), rank(), tag);
      send.wait();
    }
    EXPECT_EQ(rmpl_test::check_filled(buffer, guard), "");
  }
}

// probe and iprobe see a zero-byte message (and report 0 bytes) without consuming it.
TEST_F(ZeroBytes, ProbeReportsZeroBytes) {
  auto comm = world();
  const int tag = 40;
  rmpl::request send = comm.isend(nothing, next_rank(), tag);
  rmpl::status probed = comm.probe(prev_rank(), tag);
  EXPECT_EQ(probed.bytes, 0u);
  EXPECT_EQ(probed.source, prev_rank());
  EXPECT_EQ(probed.tag, tag);
  std::optional<rmpl::status> again = comm.iprobe(rmpl::any_source, rmpl::any_tag);
  ASSERT_TRUE(again.has_value()) << "iprobe does not see the message probe found";
  EXPECT_EQ(again->bytes, 0u);
  expect_empty_message(comm.recv(std::span<std::byte>{}, prev_rank(), tag), prev_rank(), tag);
  send.wait();
}

// Zero-byte messages keep their place among messages of every protocol, into large buffers.
TEST_F(ZeroBytes, KeepOrderAmongOtherSizes) {
  auto comm = world();
  const int tag = 50;
  const std::size_t sizes[] = {0, 100000, 0, 0, 8, 0, 3000, 0};
  std::vector<std::vector<std::byte>> messages;
  std::vector<rmpl::request> sends;
  for (std::size_t size : sizes) {
    messages.emplace_back(size, std::byte{1});
    sends.push_back(comm.isend(messages.back(), next_rank(), tag));
  }
  std::vector<std::byte> buffer(200000);
  for (std::size_t i = 0; i < std::size(sizes); ++i) {
    rmpl::status st = comm.recv(buffer, rmpl::any_source, tag);
    EXPECT_EQ(st.bytes, sizes[i]) << "message " << i;
    EXPECT_EQ(st.source, prev_rank());
  }
  rmpl::wait_all(sends);
}

}  // namespace
