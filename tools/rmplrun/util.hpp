// Small helpers shared by rmplrun's parts.
#pragma once

#include <fmt/format.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <string_view>
#include <utility>

namespace rmplrun {

/// Writes all of `text` to `fd` (retrying short writes and EINTR); false if the fd cannot be
/// written.
inline bool write_all(int fd, std::string_view text) noexcept {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

/// Blocks the signals rmplrun handles (SIGCHLD, SIGINT, SIGTERM, SIGHUP), saving the mask before
/// in `before`, and returns a signalfd that reads them (nonblocking, close-on-exec), or -1 with
/// errno set. rmplrun takes signals synchronously in its event loop; they are blocked from here
/// on so that none is lost between the first fork and the loop.
inline int take_signals(sigset_t* before) noexcept {
  sigset_t handled;
  ::sigemptyset(&handled);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) ::sigaddset(&handled, sig);
  ::sigprocmask(SIG_BLOCK, &handled, before);
  return ::signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK);
}

/// Who says what say() prints: "rmplrun", or on the hosts of a job across hosts "rmplrun on HOST".
inline std::string& speaker() {
  static std::string name = "rmplrun";
  return name;
}

/// Prints "rmplrun: <message>" on stderr in one write, so it cannot be split by the ranks' output.
template <class... Args>
void say(fmt::format_string<Args...> format, Args&&... args) {
  write_all(2, speaker() + ": " + fmt::format(format, std::forward<Args>(args)...) + "\n");
}

}  // namespace rmplrun
