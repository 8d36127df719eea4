// A broken or hostile peer's cell must be reported (errc::internal, naming the peer and the field)
// instead of sizing a copy, indexing the segment or naming a request. Each case forges one cell
// into this rank's ring from itself (engine::forge_cell_for_test) in a job of one rank, lets
// progress find it and checks the error; a case whose cell is acted on instead fails.
//
//   corrupt_cell <case>    (cases: see the table below; CTest runs each)
// The segment_* cases forge a scattered rendezvous (the sender's RTS names a list of iovecs in its
// memory, which the receiver reads once matched): each list breaks one rule of cell_check.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "api/runtime.hpp"

namespace {

using rmpl::core::cell;
using rmpl::core::kind;

/// Fills the envelope of `c` (which cannot be copied: its seq is atomic).
void set(cell& c, kind how, int tag = 1, std::uint32_t size = 0) {
  c.kind = static_cast<std::uint8_t>(how);
  c.flags = 0;
  c.context = 0;
  c.tag = tag;
  c.size = size;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string which = argc > 1 ? argv[1] : "";
  rmpl::session session;
  rmpl::core::engine& engine = rmpl::api::kernel();
  const int me = engine.rank();
  // A rendezvous send to this rank itself, in flight: the target of the forged control cells.
  std::vector<char> big(1 << 20, 'x');
  rmpl::core::request* send = nullptr;
  auto rendezvous = [&] {
    send = engine.start_send(0, big.data(), big.size(), me, 9, rmpl::send_mode::standard);
    return send->id();
  };

  // The faulty segment lists of the segment_* cases, their data, and a buffer to receive into.
  std::vector<iovec> list;
  std::vector<char> payload(4096, 'y'), into(4096);
  cell forged{};
  std::string expected;
  if (which == "inline_size") {
    // One byte more than a long inline message (several cells) may carry.
    const auto size = static_cast<std::uint32_t>(engine.tune().inline_max + 1);
    set(forged, kind::inline_data, 1, size);
    expected = "inline size " + std::to_string(size);
  } else if (which == "tag") {
    set(forged, kind::inline_data, -5, 4);
    expected = "tag -5";
  } else if (which == "kind") {
    set(forged, static_cast<kind>(42));
    expected = "kind 42";
  } else if (which == "context") {
    set(forged, kind::inline_data, 1, 4);
    forged.context = 5000;
    expected = "context 5000";
  } else if (which == "flags") {
    set(forged, kind::inline_data, 1, 4);
    forged.flags = 0x80;
    expected = "flags 0x80";
  } else if (which == "flags_sync_ready") {
    // sync wants an ack, ready says none is wanted: a message is one or the other.
    set(forged, kind::inline_data, 1, 4);
    forged.flags = rmpl::core::flag::sync | rmpl::core::flag::ready;
    expected = "inline message with flags 0x3";
  } else if (which == "ready_position") {
    // A notice may only name cells this rank has sent: none yet here.
    set(forged, kind::ready, 0);
    rmpl::core::write_body(forged, rmpl::core::ready_body{1000000, 0, 4});
    expected = "ready notice (context 0, tag 4) that has read 1000000 cells";
  } else if (which == "ready_tag") {
    set(forged, kind::ready, 0);
    rmpl::core::write_body(forged, rmpl::core::ready_body{0, 0, -1});
    expected = "ready notice with tag -1";
  } else if (which == "eager_slot") {
    set(forged, kind::eager, 1, 8);
    rmpl::core::write_body(forged, rmpl::core::eager_body{100000, 0, 0});
    expected = "eager slot 100000";
  } else if (which == "eager_claim") {
    set(forged, kind::eager, 1, 8);
    rmpl::core::write_body(forged, rmpl::core::eager_body{3, 0, 0});
    expected = "eager slot 3 that this sender did not claim";
  } else if (which == "rts_address") {
    set(forged, kind::rts);
    rmpl::core::write_body(forged, rmpl::core::rts_body{100, 1, 0, 0});
    expected = "without an address";
  } else if (which == "rts_segments") {
    set(forged, kind::rts);
    rmpl::core::write_body(forged, rmpl::core::rts_body{100, 1, 0x1000, 101});
    expected = "segment list of 101 entries (more than bytes)";
  } else if (which.starts_with("segment_")) {
    // A rendezvous of `size` bytes whose segment list (in this process) is faulty; a receive is
    // posted first, so the receiver reads the list as soon as it finds the cell.
    std::uint64_t size = 100;
    if (which == "segment_long") {  // 60 + 60 bytes for a message of 100
      list = {{payload.data(), 60}, {payload.data() + 60, 60}};
      expected = "entry 1 (60 bytes at";
    } else if (which == "segment_short") {
      list = {{payload.data(), 40}};
      expected = "cover only 40 bytes";
    } else if (which == "segment_empty") {
      list = {{payload.data(), 0}, {payload.data(), 100}};
      expected = "entry 0 is empty";
    } else if (which == "segment_unread") {  // the first batch covers the message, more follow
      size = 2048;
      list.assign(1100, iovec{payload.data(), 1});
      for (std::size_t i = 0; i < rmpl::core::segment_batch; ++i) list[i].iov_len = 2;
      expected = "entries 1024 on lie beyond the message";
    }
    engine.start_recv(0, into.data(), into.size(), me, 1);
    set(forged, kind::rts);
    rmpl::core::write_body(
        forged,
        rmpl::core::rts_body{size, 1, reinterpret_cast<std::uint64_t>(list.data()), list.size()});
    if (!engine.single_copy()) expected = "but single copy is off";
  } else if (which == "fin_forged") {
    set(forged, kind::fin);
    rmpl::core::write_body(forged, rmpl::core::control_body{0x1234567800000001ull, 0});
    expected = "fin for request 0x1234567800000001";
  } else if (which == "ack_for_rendezvous") {
    // A rendezvous waits for FIN (or CTS); an ACK would let its buffer be reused too early.
    const auto id = rendezvous();
    set(forged, kind::ack);
    rmpl::core::write_body(forged, rmpl::core::control_body{id, 0});
    expected = "ack for request";
  } else if (which == "assist_bytes") {
    const auto id = rendezvous();
    set(forged, kind::assist);
    rmpl::core::write_body(forged,
                           rmpl::core::assist_body{id, reinterpret_cast<std::uint64_t>(big.data()),
                                                   std::uint64_t{2} << 20, 1, 4096});
    // Without single copy the send waits for CTS, and an assist is refused for that alone.
    expected = engine.single_copy() ? "for a send of 1048576 bytes" : "assist for request";
  } else {
    std::fprintf(stderr, "corrupt_cell: unknown case '%s'\n", which.c_str());
    return 2;
  }
  // The rendezvous cell comes first in the ring; the forged one after it.
  engine.forge_cell_for_test(me, forged);
  try {
    for (int pass = 0; pass < 100; ++pass) engine.progress();
  } catch (const rmpl::error& e) {
    const std::string text = e.what();
    std::printf("%s\n", text.c_str());
    const bool ok = e.code() == rmpl::errc::internal &&
                    text.find("written by rank " + std::to_string(me)) != std::string::npos &&
                    text.find(expected) != std::string::npos;
    if (!ok)
      std::printf("FAILED: expected errc::internal naming rank %d and '%s'\n", me,
                  expected.c_str());
    std::fflush(stdout);
    std::_Exit(ok ? 0 : 1);  // the ring stays poisoned: finalize would report it again
  }
  std::printf("FAILED: the forged cell (%s) was accepted\n", which.c_str());
  std::fflush(stdout);
  std::_Exit(1);
}
