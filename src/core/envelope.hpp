// What the kernel puts in front of every message it sends through a message provider
// (fabric/provider.hpp): the transport-neutral envelope. Unlike a ring cell it says who sent it
// (a provider's messages arrive on one queue, not one ring per sender) and numbers the messages
// of each sender to each receiver: UCX does not promise to deliver active messages in the order
// they were sent (several lanes, rendezvous beside eager), and MPI's non-overtaking rule needs that
// order, so the receiver restores it (engine::remote_arrived). Checked field by field on arrival,
// as a cell is: another process wrote it.
#pragma once

#include <cstdint>

namespace rmpl::core {

/// What an envelope carries.
enum class envelope_kind : std::uint8_t {
  message = 1,  ///< a message for matching: the payload follows (or waits at the sender)
  ack = 2,      ///< a synchronous send's message has been matched (no payload)
  credit = 3,   ///< the receiver has taken `cookie` more of this sender's messages (flow control)
};

struct envelope {
  std::int32_t source;  ///< the sender's job rank (first: the provider reads it)
  std::int32_t tag;     ///< message: its tag
  std::uint64_t seq;  ///< message: its number among the sender's messages to this receiver, from 1
  std::uint64_t cookie;  ///< synchronous message: the sender's request (acked); ack: that request;
                         ///< credit: how many messages
  std::uint16_t context;
  std::uint8_t kind;     ///< an envelope_kind
  std::uint8_t flags;    ///< message: core::flag (sync)
  std::uint32_t window;  ///< message: the sender's credits per receiver (RMPL_UCX_CREDITS), which
                         ///< the receiver returns a quarter at a time: the variable may differ
                         ///< between ranks
};
static_assert(sizeof(envelope) == 32);

}  // namespace rmpl::core
