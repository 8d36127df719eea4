#include "base/error.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include <unistd.h>

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

void end_job(const error& e, int rank) noexcept {
  std::string_view what = e.what();
  if (what.starts_with("rmpl: ")) what.remove_prefix(6);
  std::fprintf(stderr, "rmpl: rank %d: %.*s (%s; error policy abort: the job is ended)\n", rank,
               static_cast<int>(what.size()), what.data(), to_string(e.code()));
  std::fflush(stdout);
  std::fflush(stderr);
  const int status = static_cast<int>(e.code());
  _exit(status > 0 && status < 256 ? status : 1);
}

}  // namespace base
}  // namespace rmpl
