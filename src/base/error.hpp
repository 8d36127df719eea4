// Building rmpl::error values with messages that name what was wrong.
#pragma once

#include <fmt/format.h>

#include <string>

#include "rmpl/types.hpp"

namespace rmpl::base {

/// Throws rmpl::error(code, "rmpl: " + formatted message).
template <class... Args>
[[noreturn]] void fail(errc code, fmt::format_string<Args...> format, Args&&... args) {
  throw error(code, "rmpl: " + fmt::format(format, std::forward<Args>(args)...));
}

/// Throws errc::system naming the failed call and errno's text.
[[noreturn]] void fail_errno(const char* call, int err);

/// Prints "rmpl: ..." to stderr and aborts the process: for errors that cannot be thrown
/// (destructors, noexcept paths) and that must not be ignored.
[[noreturn]] void fatal(const std::string& message) noexcept;

/// The error policy on_error::abort: prints "rmpl: rank <rank>: <e's message>" to stderr and ends
/// the process with e's code as its exit status (never 0), without running destructors (a
/// finalize would wait for ranks that may never come). rmplrun then ends the job and names the
/// rank, as for MPI_ERRORS_ARE_FATAL.
[[noreturn]] void end_job(const error& e, int rank) noexcept;

}  // namespace rmpl::base
