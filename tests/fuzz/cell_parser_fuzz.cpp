// libFuzzer target: arbitrary bytes as everything a peer writes that the receive side reads (ring
// cells, eager slot claims, bounce chunk lengths, the request ids of control cells), fed to the
// engine's checks (core/cell_check.hpp) over a fake domain of two ranks in private memory. Every
// buffer is allocated to its exact size, so a check that lets a bad length, index or id through
// becomes an out-of-bounds access that AddressSanitizer reports; the invariants the engine relies
// on after a check passes are asserted too (a failed one traps, which libFuzzer reports).
//
// Input: 4 bytes of shape (eager slots, slot bytes, receive capacity, bounce chunk bytes), one
// claim byte per eager slot, 8 send sizes, then 64-byte cells. A cell's seq word, which the ring
// check consumes before decoding, says instead which rank wrote it (bit 0) and, for a rendezvous,
// the state word of the bounce chunk its data would arrive in (bits 8-31), for a ready notice the
// cells this rank has sent to that peer (bits 8-31).
//
//   build: cmake --preset fuzz && cmake --build build/fuzz
//   run:   build/fuzz/tests/fuzz/cell_parser_fuzz -max_total_time=600 build/fuzz/corpus
//   tests/fuzz/corpus
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "core/cell_check.hpp"

namespace {

using namespace rmpl::core;

void require(bool invariant) {
  if (!invariant) __builtin_trap();
}

/// Reads the input front to back; past its end, zeros.
struct reader {
  const std::uint8_t* p;
  std::size_t left;
  std::uint8_t byte() {
    if (left == 0) return 0;
    --left;
    return *p++;
  }
};

/// What a receiving rank holds in private memory, sized from the input. Two ranks: 0 (this one,
/// sending to itself) and 1.
struct fake_domain {
  cell_limits limits;
  std::vector<std::uint32_t> slot_states;
  std::unique_ptr<unsigned char[]> slots;  // eager_slots * eager_slot_bytes, nothing more
  std::size_t capacity = 0;                // of the posted receive
  std::size_t chunk_bytes = 0;             // of a bounce chunk
  std::unique_ptr<unsigned char[]> chunk;  // one bounce chunk
  request_table table;
  std::vector<std::unique_ptr<unsigned char[]>> send_buffers;  // by request index
};

void setup(fake_domain& dom, reader& in) {
  dom.limits.eager_slots = 1 + in.byte() % 8;
  dom.limits.eager_slot_bytes = 64 * (1 + in.byte() % 4);
  dom.limits.contexts = 4096;
  dom.capacity = in.byte();
  dom.chunk_bytes = 64 * (1 + in.byte() % 4);
  dom.slot_states.resize(dom.limits.eager_slots);
  for (auto& s : dom.slot_states) s = in.byte() % 4;  // free, claimed by rank 0 or 1, or junk
  dom.slots = std::make_unique<unsigned char[]>(std::size_t{dom.limits.eager_slots} *
                                                dom.limits.eager_slot_bytes);
  dom.chunk = std::make_unique<unsigned char[]>(dom.chunk_bytes);
  // Sends in every state a control cell can find: waiting for an ack, a fin, a cts, from rank 0
  // or 1; one complete; one freed (its id is stale); and a receive.
  constexpr kind awaited[] = {kind::ack, kind::fin, kind::cts, kind::fin,
                              kind::ack, kind::cts, kind::fin, kind::none};
  for (int i = 0; i < 8; ++i) {
    request* r = dom.table.allocate();
    r->kind = i == 7 ? op::recv : op::send;
    r->peer = i % 2;
    r->bytes = in.byte();
    r->st = i == 4 ? state::complete : state::in_flight;
    r->awaits = static_cast<std::uint8_t>(awaited[i]);
    dom.send_buffers.push_back(std::make_unique<unsigned char[]>(r->bytes));
    r->buffer = dom.send_buffers.back().get();
  }
  dom.table.release(dom.table.lookup((std::uint64_t{1} << 32) | 6));  // index 5: freed
}

volatile std::size_t sink;  // keeps the copies and messages from being optimised away

void receive_message(fake_domain& dom, const cell& c, const decoded_cell& d, int source,
                     std::uint32_t seq) {
  if (d.how == kind::eager && dom.slot_states[d.slot] != eager_claim_word(source)) {
    sink = describe(fault::eager_claim, d, dom.limits).size();
    return;
  }
  require(d.tag >= 0 && d.context < dom.limits.contexts);
  auto buffer = std::make_unique<unsigned char[]>(dom.capacity);
  const std::size_t n = std::min<std::uint64_t>(d.size, dom.capacity);
  switch (d.how) {
    case kind::inline_data:
      std::memcpy(buffer.get(), c.body, n);
      break;
    case kind::eager:
      std::memcpy(buffer.get(), dom.slots.get() + std::size_t{d.slot} * dom.limits.eager_slot_bytes,
                  n);
      break;
    default: {  // rts, by the fallback path: the first chunk of the bounce transfer
      require(d.address != 0);
      const std::uint32_t filled = seq >> 8;
      std::size_t len = 0;
      if (check_bounce_chunk(filled, dom.chunk_bytes, d.size, len) != fault::none) return;
      std::memcpy(buffer.get(), dom.chunk.get(), std::min(len, dom.capacity));
      break;
    }
  }
  if (n > 0) sink = buffer[n - 1];
}

/// A ready or withdraw cell: a notice the sender keeps, checked against what it sent (here, a
/// tail taken from the cell's own seq word, bits 8-31).
void receive_notice(fake_domain& dom, const decoded_cell& d, std::uint32_t seq) {
  const std::uint64_t tail = seq >> 8;
  if (check_ready(d, tail) != fault::none) {
    sink = describe(fault::ready_position, d, dom.limits).size();
    return;
  }
  require(d.position <= tail && d.context < dom.limits.contexts && d.tag >= 0);
  sink = d.position + d.context + static_cast<std::size_t>(d.tag);
}

void receive_control(fake_domain& dom, const decoded_cell& d, int source) {
  request* r = control_target(dom.table, source, d.how, d.cookie);
  if (r == nullptr) {
    sink = describe(fault::request, d, dom.limits).size();
    return;
  }
  require(r->kind == op::send && r->peer == source && r->st == state::in_flight);
  auto* data = static_cast<const unsigned char*>(r->buffer);
  switch (d.how) {
    case kind::assist: {
      if (check_assist(d, *r) != fault::none) return;
      // The sender's side of an assisted copy: every chunk it may claim, read from its buffer.
      std::size_t sum = 0;
      for (std::uint64_t offset = 0; offset < d.size; offset += d.assist_chunk) {
        const std::uint64_t len = std::min<std::uint64_t>(d.assist_chunk, d.size - offset);
        for (std::uint64_t i = 0; i < len; i += 61) sum += data[offset + i];
      }
      sink = sum;
      break;
    }
    case kind::cts:
      r->awaits = static_cast<std::uint8_t>(kind::none);  // the bounce send completes it
      break;
    default:  // ack, fin
      r->st = state::complete;
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  reader in{data, size};
  fake_domain dom;
  setup(dom, in);
  while (in.left >= sizeof(cell)) {
    // Each cell gets its own allocation of exactly one cell: reading past its body is caught.
    auto c = std::make_unique<cell>();
    std::memcpy(static_cast<void*>(c.get()), in.p, sizeof(cell));
    in.p += sizeof(cell);
    in.left -= sizeof(cell);
    const std::uint32_t seq = c->seq.load(std::memory_order_relaxed);
    const int source = static_cast<int>(seq & 1);
    decoded_cell d;
    const fault f = decode_cell(*c, dom.limits, d);
    if (f != fault::none) {
      sink = describe(f, d, dom.limits).size();
      continue;
    }
    if (is_message(d.how)) {
      receive_message(dom, *c, d, source, seq);
    } else if (d.how == kind::ready || d.how == kind::withdraw) {
      receive_notice(dom, d, seq);
    } else if (d.how != kind::consumed) {
      receive_control(dom, d, source);
    }
  }
  return 0;
}
