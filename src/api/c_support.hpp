// What the C API's files share: turning exceptions into return codes (the message kept for
// rmpl_last_error) and statuses into rmpl_status.
#pragma once

#include <exception>
#include <string>

#include "rmpl.h"
#include "rmpl/types.hpp"

namespace rmpl::api {

/// The message of the last failed C call on this thread.
inline std::string& last_c_error() {
  thread_local std::string message;
  return message;
}

/// Runs `f` (which returns a code); an exception becomes its code, and its message is kept.
template <class F>
int guarded(F&& f) noexcept {
  try {
    return f();
  } catch (const rmpl::error& e) {
    last_c_error() = e.what();
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    last_c_error() = std::string("rmpl: ") + e.what();
    return RMPL_ERR_INTERNAL;
  }
}

inline void to_c(const rmpl::status& s, rmpl_status* out) noexcept {
  if (out) *out = rmpl_status{s.source, s.tag, s.bytes, static_cast<int>(s.error)};
}

}  // namespace rmpl::api
