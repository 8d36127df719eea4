// The link between rmplrun and the rmplrun it starts on each host of a job across hosts (its host
// agent, tools/rmplrun/hosts.hpp): the agent's standard input and output, carried by the launch
// agent (ssh). Both directions carry frames: a fixed header, then `bytes` bytes. Only control and
// the ranks' output go this way; the ranks' messages go over the network provider (UCX).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rmplrun::link {

enum class kind : std::uint32_t {
  // agent -> launcher
  arrive = 1,  ///< every rank of the host reached the job barrier; payload: their cards
  output = 2,  ///< a = rank, b = 1 (stdout) or 2 (stderr); payload: whole lines
  dead = 3,    ///< a = rank, b = wait status: a rank of the host failed the job (both directions)
  done = 4,    ///< a = the host's exit status: every rank of the host has been reaped
  input_taken = 8,  ///< a = bytes of input rank 0 has been given (the launcher may send more)
  // launcher -> agent
  release = 5,  ///< the barrier is complete everywhere; payload: every rank's card
  end = 6,      ///< a = signal: end the ranks (SIGKILL: at once)
  input = 7,    ///< payload: bytes of the launcher's standard input for rank 0 (none: its end)
};

/// The most standard input in flight to rank 0's host (sent, not yet given to rank 0).
inline constexpr std::size_t input_window = 1 << 20;

struct header {
  kind what;
  std::int32_t a;
  std::int32_t b;
  std::uint32_t bytes;
};

/// The most a frame carries: 4096 cards of 4 KiB, with room to spare.
inline constexpr std::uint32_t max_bytes = 20u << 20;

struct frame {
  header head;
  std::string payload;
};

inline std::string encode(kind what, std::int32_t a, std::int32_t b, std::string_view payload) {
  const header h{what, a, b, static_cast<std::uint32_t>(payload.size())};
  std::string out(sizeof h, '\0');
  std::memcpy(out.data(), &h, sizeof h);
  out += payload;
  return out;
}

/// Cards as a payload: for each, the rank, its length, its bytes.
inline void append_card(std::string& payload, std::int32_t rank, std::span<const std::byte> card) {
  const std::int32_t head[2] = {rank, static_cast<std::int32_t>(card.size())};
  payload.append(reinterpret_cast<const char*>(head), sizeof head);
  payload.append(reinterpret_cast<const char*>(card.data()), card.size());
}

/// Calls f(rank, bytes) for each card of `payload`; false if it is malformed.
template <class F>
bool for_each_card(std::string_view payload, F&& f) {
  while (!payload.empty()) {
    std::int32_t head[2];
    if (payload.size() < sizeof head) return false;
    std::memcpy(head, payload.data(), sizeof head);
    payload.remove_prefix(sizeof head);
    if (head[1] < 0 || static_cast<std::size_t>(head[1]) > payload.size()) return false;
    f(head[0], std::span(reinterpret_cast<const std::byte*>(payload.data()),
                         static_cast<std::size_t>(head[1])));
    payload.remove_prefix(static_cast<std::size_t>(head[1]));
  }
  return true;
}

/// Reassembles frames from what a nonblocking descriptor gives.
class reader {
 public:
  enum class state { open, closed, broken };
  /// Reads what `fd` has; `closed` at end of file (or a read error), `broken` on a frame too large.
  state read_from(int fd);
  /// The next complete frame, if any.
  std::optional<frame> next();

 private:
  std::string buffer_;
  bool broken_ = false;
};

}  // namespace rmplrun::link
