// What the C API's files share: turning exceptions into return codes (the message kept for
// rmpl_last_error) and statuses into rmpl_status.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "api/runtime.hpp"
#include "base/error.hpp"
#include "core/threads.hpp"
#include "rmpl.h"
#include "rmpl/types.hpp"

namespace rmpl::api {

/// The message of the last failed C call on this thread.
inline std::string& last_c_error() {
  thread_local std::string message;
  return message;
}

/// Runs `f` (which returns a code); an exception becomes its code, and its message is kept. Under
/// RMPL_ERRORS_ARE_FATAL (the world's policy on_error::abort) the error ends the job instead.
template <class F>
int guarded(F&& f) noexcept {
  // After rmpl_init_threads (or MPI_Init_thread with MPI_THREAD_MULTIPLE) the library lock for the
  // call's span (core/threads.hpp); otherwise a load and a branch.
  core::threads::guard locked;
  try {
    return f();
  } catch (const rmpl::error& e) {
    if (world_error_policy() == on_error::abort) {
      base::end_job(e, initialized() ? kernel().rank() : 0);
    }
    last_c_error() = e.what();
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    const rmpl::error internal(errc::internal, std::string("rmpl: ") + e.what());
    if (world_error_policy() == on_error::abort) {
      base::end_job(internal, initialized() ? kernel().rank() : 0);
    }
    last_c_error() = internal.what();
    return RMPL_ERR_INTERNAL;
  }
}

/// Fails with RMPL_ERR_ARGUMENT when an output argument of `function` is NULL.
inline void require_output(const void* p, const char* function, const char* argument) {
  if (p == nullptr) {
    base::fail(errc::invalid_argument, "{} on rank {}: {} is NULL", function,
               initialized() ? kernel().rank() : 0, argument);
  }
}

/// The largest byte count a C call accepts: what a buffer can hold (PTRDIFF_MAX). A negative
/// count passed as size_t shows up as a number above it.
inline constexpr std::size_t max_bytes = static_cast<std::size_t>(PTRDIFF_MAX);

/// Fails with RMPL_ERR_ARGUMENT when `bytes` cannot be a buffer's size.
inline void check_count(std::size_t bytes, const char* function, const char* what) {
  if (bytes > max_bytes) {
    base::fail(errc::invalid_argument,
               "{} on rank {}: {} {} is larger than any buffer (at most {}; a negative count "
               "converted to size_t?)",
               function, initialized() ? kernel().rank() : 0, what, bytes, max_bytes);
  }
}

/// count * element bytes (`what` names the counted things: "elements", "blocks"), failing
/// (RMPL_ERR_ARGUMENT) when the product overflows or exceeds max_bytes.
inline std::size_t checked_product(std::size_t count, std::size_t element, const char* function,
                                   const char* what) {
  if (element != 0 && count > max_bytes / element) {
    base::fail(errc::invalid_argument,
               "{} on rank {}: {} {} of {} bytes overflow (at most {} bytes; a negative count "
               "converted to size_t?)",
               function, initialized() ? kernel().rank() : 0, count, what, element, max_bytes);
  }
  return count * element;
}

inline void to_c(const rmpl::status& s, rmpl_status* out) noexcept {
  if (out) *out = rmpl_status{s.source, s.tag, s.bytes, static_cast<int>(s.error)};
}

}  // namespace rmpl::api
