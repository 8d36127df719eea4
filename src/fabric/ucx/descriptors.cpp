#include "fabric/ucx/descriptors.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

#include "base/config.hpp"

namespace rmpl::fabric::ucx {
namespace {

/// Calls f(fd, stat) for each descriptor this process has open.
template <class F>
void for_each_descriptor(F&& f) {
#if defined(__SANITIZE_THREAD__)
  // ThreadSanitizer models each descriptor as memory that its creating thread wrote: a look at one
  // UCX's thread has just accepted is reported as a data race. The TSan build leaves UCX's
  // descriptors as UCX makes them (its tests check neither close-on-exec nor the TCP bound).
  (void)f;
  return;
#endif
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return;
  const int own = ::dirfd(dir);
  while (const dirent* e = ::readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || fd == own) continue;
    struct stat st {};
    if (::fstat(static_cast<int>(fd), &st) == 0) f(static_cast<int>(fd), st);
  }
  ::closedir(dir);
}

/// The local port of a TCP socket (IPv4 or IPv6), or 0.
unsigned local_port(int fd) {
  sockaddr_storage at{};
  socklen_t len = sizeof at;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&at), &len) != 0) return 0;
  if (at.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in&>(at).sin_port);
  if (at.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6&>(at).sin6_port);
  return 0;
}

}  // namespace

descriptors::descriptors()
    : tcp_ms_(static_cast<unsigned>(base::env_size("RMPL_UCX_TCP_TIMEOUT", 10, 0, 86400) * 1000)) {}

void descriptors::before() {
  before_.clear();
  for_each_descriptor([&](int fd, const struct stat& st) { before_.emplace_back(fd, st.st_ino); });
  std::sort(before_.begin(), before_.end());
}

void descriptors::after() {
  // Best effort throughout: a descriptor UCX has closed meanwhile, or a kernel without the option,
  // keeps what it had.
  for_each_descriptor([&](int fd, const struct stat& st) {
    if (std::binary_search(before_.begin(), before_.end(), std::pair(fd, st.st_ino))) return;
    if (const int flags = ::fcntl(fd, F_GETFD); flags >= 0 && (flags & FD_CLOEXEC) == 0)
      ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
    if (tcp_ms_ == 0 || !S_ISSOCK(st.st_mode)) return;
    int protocol = 0;
    socklen_t len = sizeof protocol;
    if (::getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &len) != 0 ||
        protocol != IPPROTO_TCP) {
      return;
    }
    ::setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &tcp_ms_, sizeof tcp_ms_);
    int listening = 0;
    len = sizeof listening;
    if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) == 0 && listening != 0) {
      if (const unsigned port = local_port(fd); port != 0) listening_ports_.push_back(port);
    }
  });
}

void descriptors::sweep(bool now_anyway) {
  if (listening_ports_.empty()) return;
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  const std::int64_t now = ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
  if (!now_anyway && now - last_sweep_ns_ < 1'000'000'000LL) return;
  last_sweep_ns_ = now;
  for_each_descriptor([&](int fd, const struct stat& st) {
    if (!S_ISSOCK(st.st_mode)) return;
    const int flags = ::fcntl(fd, F_GETFD);
    if (flags < 0 || (flags & FD_CLOEXEC) != 0) return;
    const unsigned port = local_port(fd);
    if (std::find(listening_ports_.begin(), listening_ports_.end(), port) !=
        listening_ports_.end()) {
      ::fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
    }
  });
}

}  // namespace rmpl::fabric::ucx
