#include "link.hpp"

#include <unistd.h>

#include <cerrno>

namespace rmplrun::link {

reader::state reader::read_from(int fd) {
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      buffer_.append(buf, static_cast<std::size_t>(n));
      if (n < static_cast<ssize_t>(sizeof buf)) break;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) break;
    return state::closed;
  }
  if (buffer_.size() >= sizeof(header)) {
    header h;
    std::memcpy(&h, buffer_.data(), sizeof h);
    if (h.bytes > max_bytes) broken_ = true;
  }
  return broken_ ? state::broken : state::open;
}

std::optional<frame> reader::next() {
  if (broken_ || buffer_.size() < sizeof(header)) return std::nullopt;
  frame f;
  std::memcpy(&f.head, buffer_.data(), sizeof f.head);
  if (f.head.bytes > max_bytes) {
    broken_ = true;
    return std::nullopt;
  }
  if (buffer_.size() < sizeof(header) + f.head.bytes) return std::nullopt;
  f.payload = buffer_.substr(sizeof(header), f.head.bytes);
  buffer_.erase(0, sizeof(header) + f.head.bytes);
  return f;
}

}  // namespace rmplrun::link
