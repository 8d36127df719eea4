#include "core/cell_check.hpp"

#include <fmt/format.h>

namespace rmpl::core {
namespace {

const char* kind_name(kind k) noexcept {
  switch (k) {
    case kind::inline_data:
      return "inline message";
    case kind::eager:
      return "eager message";
    case kind::rts:
      return "rendezvous";
    case kind::ack:
      return "ack";
    case kind::fin:
      return "fin";
    case kind::cts:
      return "clear-to-send";
    case kind::assist:
      return "assist";
    case kind::ready:
      return "ready notice";
    case kind::withdraw:
      return "withdrawal of a ready notice";
    default:
      return "cell";
  }
}

}  // namespace

std::string describe(fault f, const decoded_cell& d, const cell_limits& limits) {
  const char* what = kind_name(d.how);
  switch (f) {
    case fault::none:
      return "no fault";
    case fault::kind:
      return fmt::format("kind {} is not a kind of cell", static_cast<unsigned>(d.how));
    case fault::flags:
      return fmt::format("{} with flags {:#x}", what, d.flags);
    case fault::context:
      return fmt::format("{} on context {} (ids are below {})", what, d.context, limits.contexts);
    case fault::tag:
      return fmt::format("{} with tag {} (outside [0, {}])", what, d.tag, tag_ub);
    case fault::inline_size:
      return fmt::format(
          "inline size {} (a cell holds {} bytes, {} with a sync cookie; a message of several "
          "cells at most {})",
          d.size, inline_capacity, inline_sync_capacity, limits.inline_max);
    case fault::eager_slot:
      return fmt::format("eager slot {} (the pool has {} slots)", d.slot, limits.eager_slots);
    case fault::eager_size:
      return fmt::format("eager size {} in slot {} (a slot holds {} bytes)", d.size, d.slot,
                         limits.eager_slot_bytes);
    case fault::eager_claim:
      return fmt::format("eager slot {} that this sender did not claim", d.slot);
    case fault::rts_address:
      return fmt::format("rendezvous of {} bytes without an address", d.size);
    case fault::rts_segments:
      return fmt::format(
          "rendezvous of {} bytes with a segment list of {} entries (more than bytes)", d.size,
          d.segments);
    case fault::segment_list:
      return fmt::format("rendezvous of {} bytes with a faulty segment list of {} entries", d.size,
                         d.segments);
    case fault::request:
      return fmt::format("{} for request {:#x}, which is no send to this peer waiting for one",
                         what, d.cookie);
    case fault::assist:
      return fmt::format("assist (request {:#x}, id {}) of {} bytes at {:#x} in chunks of {}",
                         d.cookie, d.assist_id, d.size, d.address, d.assist_chunk);
    case fault::bounce_length:
      return "bounce chunk of a length the transfer cannot have";
    case fault::ready_position:
      return fmt::format(
          "{} (context {}, tag {}) that has read {} cells of this rank's ring, more "
          "than were sent",
          what, d.context, d.tag, d.position);
    case fault::second_cts:
      return fmt::format("a second clear-to-send (request {:#x}) while a bounce transfer runs",
                         d.cookie);
  }
  return "unknown fault";
}

std::string describe_segment(const decoded_cell& d, std::uint64_t entry, const iovec* e,
                             std::uint64_t listed) {
  const std::string list = fmt::format(
      "rendezvous of {} bytes (request {:#x}) with a segment list of {} entries at {:#x}", d.size,
      d.cookie, d.segments, d.address);
  if (e == nullptr && entry >= d.segments) {
    return fmt::format("{}: the entries cover only {} bytes", list, listed);
  }
  if (e == nullptr) {
    return fmt::format("{}: entries {} on lie beyond the message (those before cover all of it)",
                       list, entry);
  }
  if (e->iov_len == 0) return fmt::format("{}: entry {} is empty", list, entry);
  return fmt::format("{}: entry {} ({} bytes at {}) goes beyond the message ({} bytes before it)",
                     list, entry, e->iov_len, e->iov_base, listed);
}

}  // namespace rmpl::core
