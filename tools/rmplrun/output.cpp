#include "output.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>
#include <system_error>

#include "util.hpp"

namespace rmplrun {
namespace {

// A line longer than this is relayed in pieces (each piece a tagged line of its own) so that a rank
// printing without newlines cannot make rmplrun buffer without bound.
constexpr std::size_t max_line = 64 * 1024;

}  // namespace

relayed_output::~relayed_output() {
  for (stream& s : streams_) {
    if (s.fd >= 0) ::close(s.fd);
  }
}

relayed_output::rank_pipes relayed_output::open(int rank) {
  int out[2];
  int err[2];
  if (::pipe2(out, O_CLOEXEC) != 0)
    throw std::system_error(errno, std::generic_category(), "pipe2");
  if (::pipe2(err, O_CLOEXEC) != 0) {
    const int e = errno;
    ::close(out[0]);
    ::close(out[1]);
    throw std::system_error(e, std::generic_category(), "pipe2");
  }
  // Nonblocking reads: poll() may report a pipe ready, yet one read must never stall the others.
  ::fcntl(out[0], F_SETFL, O_NONBLOCK);
  ::fcntl(err[0], F_SETFL, O_NONBLOCK);
  streams_.push_back({out[0], rank, 1, {}});
  streams_.push_back({err[0], rank, 2, {}});
  open_streams_ += 2;
  return {out[1], err[1]};
}

void relayed_output::close_write_ends(rank_pipes& pipes) {
  if (pipes.out >= 0) ::close(pipes.out);
  if (pipes.err >= 0) ::close(pipes.err);
  pipes = {};
}

void relayed_output::add_to_poll(std::vector<pollfd>& fds) {
  polled_.clear();
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    if (streams_[i].fd < 0) continue;
    fds.push_back({streams_[i].fd, POLLIN, 0});
    polled_.push_back(i);
  }
}

void relayed_output::service(std::span<const pollfd> fds) {
  for (std::size_t k = 0; k < fds.size() && k < polled_.size(); ++k) {
    stream& s = streams_[polled_[k]];
    if (s.fd < 0) continue;
    if (broken_[s.target]) {
      // Our side of the output is gone: closing the pipe gives the rank SIGPIPE/EPIPE, as it would
      // have got writing to our stdout itself.
      finish(s);
      continue;
    }
    if (fds[k].revents != 0) read_from(s);
  }
}

void relayed_output::read_from(stream& s) {
  char buf[65536];
  const ssize_t n = ::read(s.fd, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {  // end of file, or an error that ends this stream just the same
    finish(s);
    return;
  }
  // Every complete line of this read goes out in one write.
  const std::string prefix = this->prefix(s.rank);
  std::string text;
  std::string_view data(buf, static_cast<std::size_t>(n));
  while (!data.empty()) {
    const auto nl = data.find('\n');
    if (nl == std::string_view::npos) {
      s.partial.append(data);
      data = {};
    } else {
      s.partial.append(data.substr(0, nl));
      data.remove_prefix(nl + 1);
    }
    if (nl != std::string_view::npos || s.partial.size() >= max_line) {
      text += prefix;
      text += s.partial;
      // Untagged, the output stays byte for byte what the rank wrote: a piece of a long line ends
      // with no newline of ours.
      if (nl != std::string_view::npos || tag_) text += '\n';
      s.partial.clear();
    }
  }
  emit(s.rank, s.target, text);
}

void relayed_output::finish(stream& s) {
  if (!s.partial.empty()) {
    // A last line without newline: tagged, ended by one of ours, so the next tag starts a line.
    emit(s.rank, s.target, prefix(s.rank) + s.partial + (tag_ ? "\n" : ""));
    s.partial.clear();
  }
  ::close(s.fd);
  s.fd = -1;
  --open_streams_;
}

void relayed_output::close_all() {
  for (stream& s : streams_) {
    if (s.fd >= 0) finish(s);
  }
}

std::string relayed_output::prefix(int rank) const {
  return tag_ ? fmt::format("[{}] ", rank) : std::string();
}

void relayed_output::emit(int rank, int target, const std::string& text) {
  if (text.empty() || broken_[target]) return;
  if (!(sink_ ? sink_(rank, target, text) : write_all(target, text))) broken_[target] = true;
}

}  // namespace rmplrun
