#include "base/error.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace rmpl {

const char* to_string(errc code) noexcept {
  switch (code) {
    case errc::success:
      return "success";
    case errc::invalid_argument:
      return "invalid argument";
    case errc::invalid_rank:
      return "invalid rank";
    case errc::invalid_tag:
      return "invalid tag";
    case errc::truncated:
      return "message truncated";
    case errc::request_invalid:
      return "invalid request";
    case errc::request_pending:
      return "request still pending";
    case errc::no_message:
      return "no matching message";
    case errc::buffer_exhausted:
      return "buffered-send buffer exhausted";
    case errc::dead_rank:
      return "a peer rank died";
    case errc::not_initialized:
      return "rmpl is not initialized";
    case errc::system:
      return "operating system error";
    case errc::internal:
      return "internal error";
    case errc::exhausted:
      return "resource exhausted";
  }
  return "unknown error code";
}

namespace base {

void fail_errno(const char* call, int err) {
  fail(errc::system, "{} failed: {}", call, std::strerror(err));
}

void fatal(const std::string& message) noexcept {
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace base
}  // namespace rmpl
