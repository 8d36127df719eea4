// Vocabulary shared by every layer and API of rmpl: error codes, the error exception, receive
// status, send modes and the wildcard constants. Kept free of any implementation detail so the
// kernel (core) and the public APIs agree on one meaning of each word.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace rmpl {

/// Every failure rmpl reports. The numeric values are the C API's return codes (rmpl.h mirrors
/// them).
enum class errc : int {
  success = 0,
  invalid_argument = 1,  ///< a null buffer with a non-zero size, a negative count, a bad mode...
  invalid_rank = 2,      ///< a destination, source or root outside [0, size)
  invalid_tag = 3,       ///< a tag outside [0, tag_ub] (or any_tag where a real tag is needed)
  truncated = 4,         ///< the message is longer than the receive buffer
  request_invalid = 5,   ///< a request that was never started, already freed or already completed
  request_pending = 6,   ///< an operation that needs a completed request found a pending one
  no_message = 7,        ///< a non-blocking receive found nothing to match (not an error in itself)
  buffer_exhausted = 8,  ///< a buffered send does not fit in the attached buffer
  dead_rank = 9,         ///< a peer process ended while an operation needed it
  not_initialized = 10,  ///< a call before init or after finalize
  system = 11,           ///< the operating system refused something (the message names the call)
  internal = 12,         ///< an invariant of rmpl itself broke (a bug: please report it)
  exhausted = 13,        ///< a bounded resource ran out (e.g. communicator contexts): free some
};

/// A short, constant description of a code (never null).
const char* to_string(errc code) noexcept;

/// What the C++ API throws. what() names the operation, the ranks, the tag and the sizes involved.
class error : public std::runtime_error {
 public:
  error(errc code, const std::string& message) : std::runtime_error(message), code_(code) {}
  errc code() const noexcept { return code_; }

 private:
  errc code_;
};

/// What a communicator does when one of its calls fails (communicator::set_error_policy; the C
/// API's rmpl_set_errors sets the world's). Like MPI's error handlers, a communicator made from
/// another (dup, split, create) starts with its parent's policy.
enum class on_error : std::uint8_t {
  throw_error,  ///< throw rmpl::error (the C API returns its code): the default
  abort,        ///< print the error, naming the rank, and end the job (rmplrun reports the rank)
};

inline constexpr int any_source = -1;  ///< receive from whichever rank's message arrives first
inline constexpr int any_tag = -1;     ///< receive whatever the tag
inline constexpr int tag_ub = (1 << 30) - 1;  ///< the largest valid tag (the range is [0, tag_ub])
inline constexpr int proc_null = -2;  ///< a send or receive with this peer completes at once
/// "No rank": a split color that joins no communicator, a rank outside a group.
inline constexpr int undefined = -32766;

/// How a send completes (MPI's four modes).
enum class send_mode : std::uint8_t {
  standard,     ///< completes when the buffer may be reused; may or may not wait for the receiver
  synchronous,  ///< completes only once a matching receive has been posted and matched
  buffered,     ///< copies the data into the attached buffer and completes at once
  ready,        ///< the receive is known to be posted already (treated as standard)
};

/// What a completed receive (or a probe) tells about the message.
struct status {
  int source = any_source;
  int tag = any_tag;
  std::size_t bytes = 0;  ///< bytes delivered (or, for a probe, bytes in the message)
  errc error = errc::success;
  bool cancelled = false;

  /// Whole elements of T received.
  template <class T>
  std::size_t count() const noexcept {
    return bytes / sizeof(T);
  }
};

}  // namespace rmpl
