// Message sizes across every protocol threshold, from 1 byte to 64 MiB: inline (up to 48 bytes in
// one cell, up to RMPL_INLINE_MAX in several), eager (up to RMPL_EAGER_MAX), rendezvous (single
// copy, or pipelined through bounce buffers with RMPL_SINGLE_COPY=0). Odd sizes, buffers misaligned
// by 0..7 bytes, receive buffers larger than the message, and every byte checked, plus guard bytes
// around the receive area.
#include <algorithm>
#include <vector>

#include "mp_test.hpp"

namespace {

using rmpl_test::rank;
using rmpl_test::size;
using rmpl_test::world;

class Sizes : public rmpl_test::collective {};

constexpr std::size_t KiB = 1024, MiB = 1024 * KiB;
constexpr std::byte guard{0xa5};
constexpr std::size_t guard_bytes = 16;

std::vector<std::size_t> test_sizes() {
  // clang-format off
  std::vector<std::size_t> sizes = {
      1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33,
      40, 41, 47, 48, 49,                 // the inline limit (sync: 40)
      63, 64, 65, 108, 109, 127, 129, 168, 169,  // long inline: 48 + 60 per extra cell
      255, 257, 1000, 1023, 1024, 1025,          // the default long inline limit (1 KiB)
      4095, 4097, 8191, 8193,
      16383, 16384, 16385,                // the default eager limit
      32767, 32769, 65535, 65536, 65537,  // one bounce chunk
      131073, 262143, 262144, 262145,     // a full bounce ring
      1 * MiB - 1, 1 * MiB + 3, 4 * MiB - 5, 16 * MiB + 1,
      64 * MiB};
  // clang-format on
  std::size_t eager = rmpl_test::eager_max();
  sizes.insert(sizes.end(), {eager - 1, eager, eager + 1});
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

/// How one message of the test is laid out: every rank uses the same plan for message i, so the
/// receiver knows the sender's offset (and hence the pattern's seed).
struct plan {
  std::size_t size;
  std::size_t send_offset;  // 0..7 bytes into the send allocation
  std::size_t recv_offset;
  std::size_t slack;  // receive capacity beyond the message
  int tag;
};

plan plan_for(std::size_t index, std::size_t size) {
  return plan{size, index % 8, (index * 3 + 5) % 8, index % 3 == 0 ? std::size_t{13} : 0,
              static_cast<int>(index)};
}

/// A send buffer holding the pattern of (size, offset, source) at the planned offset.
struct send_area {
  std::vector<std::byte> storage;
  std::span<const std::byte> message;
  send_area(const plan& p, int source) : storage(p.send_offset + p.size) {
    auto bytes = std::span(storage).subspan(p.send_offset, p.size);
    rmpl_test::fill_pattern(bytes, rmpl_test::seed_of(p.size, p.send_offset, source));
    message = bytes;
  }
};

/// A receive buffer: guard bytes, then the planned capacity, then guard bytes.
struct recv_area {
  std::vector<std::byte> storage;
  const plan& p;
  explicit recv_area(const plan& planned)
      : storage(planned.recv_offset + planned.size + planned.slack + guard_bytes, guard),
        p(planned) {}
  std::span<std::byte> capacity() {
    return std::span(storage).subspan(p.recv_offset, p.size + p.slack);
  }

  void check(const rmpl::status& st, int source) {
    EXPECT_EQ(st.bytes, p.size);
    EXPECT_EQ(st.source, source);
    EXPECT_EQ(st.tag, p.tag);
    EXPECT_EQ(st.error, rmpl::errc::success);
    std::span<const std::byte> all(storage);
    EXPECT_EQ(rmpl_test::check_pattern(all.subspan(p.recv_offset, p.size),
                                       rmpl_test::seed_of(p.size, p.send_offset, source)),
              "")
        << "in the message";
    EXPECT_EQ(rmpl_test::check_filled(all.first(p.recv_offset), guard), "") << "before the buffer";
    EXPECT_EQ(rmpl_test::check_filled(all.subspan(p.recv_offset + p.size), guard), "")
        << "after the message";
  }
};

int next_rank() {
  return (rank() + 1) % size();
}
int prev_rank() {
  return (rank() + size() - 1) % size();
}

enum class style { irecv_then_send, isend_then_recv };

/// Every size once from each rank to `to`, received from `from`.
void exchange_all_sizes(int to, int from, style how) {
  auto comm = world();
  std::vector<std::size_t> sizes = test_sizes();
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    plan p = plan_for(i, sizes[i]);
    SCOPED_TRACE(::testing::Message()
                 << sizes[i] << " bytes, send offset " << p.send_offset << ", receive offset "
                 << p.recv_offset << ", capacity " << p.size + p.slack);
    send_area out(p, rank());
    recv_area in(p);
    rmpl::status st;
    if (how == style::irecv_then_send) {
      rmpl::request receive = comm.irecv(in.capacity(), from, p.tag);
      comm.send(out.message, to, p.tag);
      st = receive.wait();
    } else {
      rmpl::request send = comm.isend(out.message, to, p.tag);
      st = comm.recv(in.capacity(), from, p.tag);
      send.wait();
    }
    // After a failure keep exchanging (the other ranks expect every message) but stop reporting.
    if (!::testing::Test::HasFailure()) in.check(st, from);
  }
}

TEST_F(Sizes, RingIrecvThenSend) {
  exchange_all_sizes(next_rank(), prev_rank(), style::irecv_then_send);
}

TEST_F(Sizes, RingIsendThenRecv) {
  exchange_all_sizes(next_rank(), prev_rank(), style::isend_then_recv);
}

TEST_F(Sizes, SelfIrecvThenSend) {
  exchange_all_sizes(rank(), rank(), style::irecv_then_send);
}

TEST_F(Sizes, SelfIsendThenRecv) {
  exchange_all_sizes(rank(), rank(), style::isend_then_recv);
}

// The receive names any source and any tag: the status must still tell who sent what.
TEST_F(Sizes, RingWildcardReceive) {
  auto comm = world();
  const std::size_t sizes[] = {1, 48, 49, 16385, 1 * MiB + 7};
  for (std::size_t i = 0; i < std::size(sizes); ++i) {
    plan p = plan_for(i + 3, sizes[i]);
    send_area out(p, rank());
    recv_area in(p);
    rmpl::request send = comm.isend(out.message, next_rank(), p.tag);
    rmpl::status st = comm.recv(in.capacity(), rmpl::any_source, rmpl::any_tag);
    send.wait();
    in.check(st, prev_rank());
  }
}

}  // namespace
