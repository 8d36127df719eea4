#include "fabric/ucx/tcp_timeout.hpp"

#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>

#include "base/config.hpp"

namespace rmpl::fabric::ucx {
namespace {

/// Calls f(fd, inode) for each socket this process has open.
template <class F>
void for_each_socket(F&& f) {
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return;
  const int own = ::dirfd(dir);
  while (const dirent* e = ::readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || fd == own) continue;
    struct stat st {};
    if (::fstat(static_cast<int>(fd), &st) == 0 && S_ISSOCK(st.st_mode))
      f(static_cast<int>(fd), st.st_ino);
  }
  ::closedir(dir);
}

}  // namespace

tcp_timeout::tcp_timeout()
    : ms_(static_cast<unsigned>(base::env_size("RMPL_UCX_TCP_TIMEOUT", 10, 0, 86400) * 1000)) {}

void tcp_timeout::before() {
  if (ms_ == 0) return;
  before_.clear();
  for_each_socket([&](int, ino_t inode) { before_.push_back(inode); });
  std::sort(before_.begin(), before_.end());
}

void tcp_timeout::after() {
  if (ms_ == 0) return;
  for_each_socket([&](int fd, ino_t inode) {
    if (std::binary_search(before_.begin(), before_.end(), inode)) return;
    int protocol = 0;
    socklen_t len = sizeof protocol;
    if (::getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &protocol, &len) != 0 || protocol != IPPROTO_TCP)
      return;
    // Best effort: a socket UCX has closed meanwhile, or a kernel without the option, keeps the
    // kernel's bound.
    ::setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ms_, sizeof ms_);
  });
}

}  // namespace rmpl::fabric::ucx
