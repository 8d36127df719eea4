// A request: the state machine of one send or receive (after MPIN). Requests live in a table owned
// by the engine; users and peers name them by id (table index + generation), so a stale or forged
// id is recognised instead of dereferenced.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/activity.hpp"
#include "core/envelope.hpp"
#include "core/segments.hpp"
#include "rmpl/types.hpp"

namespace rmpl::core {

struct buffer_account;  // core/buffer_account.hpp

using request_id = std::uint64_t;

enum class op : std::uint8_t { send, recv, collective };

enum class state : std::uint8_t {
  free,       ///< in the table's free list
  queued,     ///< send: waiting for room in the ring to its destination
  posted,     ///< recv: in the posted queue, unmatched
  in_flight,  ///< send: published, waiting for ack / fin / cts; recv: matched, data still arriving
  complete,
};

struct request {
  request* next = nullptr;
  request* prev = nullptr;
  std::uint32_t index = 0;
  std::uint32_t generation = 1;
  op kind = op::send;
  state st = state::free;
  send_mode mode = send_mode::standard;
  bool detached = false;   ///< buffered send: nobody waits; freed when complete
  bool announced = false;  ///< recv: a ready notice went to its source (cancel withdraws it)
  /// send in flight: the control cell (a core::kind: ack, fin or cts) that alone may advance it, so
  /// a peer's forged or misdirected reply is recognised (core/cell_check.hpp)
  std::uint8_t awaits = 0;
  std::uint32_t context = 0;
  int peer = 0;  ///< send: destination; recv: the source asked for (may be any_source)
  int tag = 0;
  void* buffer = nullptr;
  std::size_t bytes = 0;  ///< send: message size; recv: buffer capacity
  /// When count > 0, the data is in these segments instead of `buffer` (null): their lengths add up
  /// to `bytes` (core/segments.hpp). Only with single copy on.
  segment_list segments;
  std::uint64_t post_order = 0;
  std::uint64_t announced_at = 0;  ///< recv announced: the position its ready cell named
  status result;
  std::size_t message_bytes = 0;       ///< recv: the size the sender sent (for truncation reports)
  std::size_t transferred = 0;         ///< bounce transfers: bytes moved so far
  std::uint64_t peer_cookie = 0;       ///< recv in a bounce transfer: the sender's request
  std::unique_ptr<std::byte[]> owned;  ///< buffered send: the copy being sent
  buffer_account* account = nullptr;   ///< buffered send: the buffer it drew on
  std::unique_ptr<activity> work;      ///< collective: the operation in flight
  /// send through a message provider (peers on other hosts): its envelope, which the provider may
  /// read until the send ends
  envelope header{};
  /// send through a message provider: events still to come before it completes (the provider's
  /// end of the send; for a synchronous one also the receiver's ack)
  std::uint8_t remote_waits = 0;
  /// recv on a communicator other than the world: job rank -> rank there, for result.source.
  std::shared_ptr<const std::vector<int>> source_ranks;

  request_id id() const noexcept { return (std::uint64_t{generation} << 32) | (index + 1u); }
  bool done() const noexcept { return st == state::complete; }
};

class request_table {
 public:
  request* allocate() {
    if (!free_.empty()) [[likely]] {
      request* r = free_.back();
      free_.pop_back();
      const std::uint32_t index = r->index, generation = r->generation;
      *r = request{};
      r->index = index;
      r->generation = generation;
      return r;
    }
    return fresh();
  }
  void release(request* r) noexcept {
    r->owned.reset();
    r->segments.entries.reset();
    r->work.reset();
    r->source_ranks.reset();
    r->st = state::free;
    r->generation = r->generation + 1 == 0 ? 1 : r->generation + 1;
    free_.push_back(r);
  }
  /// The live request with this id, or nullptr.
  request* lookup(request_id id) noexcept {
    const std::uint64_t index = (id & 0xffffffffu) - 1;
    if ((id & 0xffffffffu) == 0 || index >= made_) return nullptr;
    request& r = at(index);
    if (r.generation != (id >> 32) || r.st == state::free) return nullptr;
    return &r;
  }
  std::size_t live() const noexcept { return made_ - free_.size(); }

 private:
  /// Requests live in blocks that never move (peers and the matching queues point at them); a
  /// block holds many, so a program with thousands outstanding (posted receives) allocates once
  /// per block rather than once or twice per request, as a deque's 512-byte nodes did.
  static constexpr std::size_t block_shift = 8;
  static constexpr std::size_t block_size = std::size_t{1} << block_shift;
  request& at(std::size_t index) noexcept {
    return blocks_[index >> block_shift][index & (block_size - 1)];
  }
  /// The next request never used (already as request{} leaves it).
  [[gnu::noinline]] request* fresh() {
    if (made_ == blocks_.size() * block_size)
      blocks_.push_back(std::make_unique<request[]>(block_size));
    request* r = &at(made_);
    r->index = static_cast<std::uint32_t>(made_++);
    return r;
  }
  std::vector<std::unique_ptr<request[]>> blocks_;
  std::size_t made_ = 0;
  std::vector<request*> free_;
};

}  // namespace rmpl::core
