// The ranks' output relayed by rmplrun: with --tag-output, and always on the hosts of a job across
// hosts (where it travels to the rmplrun that started the job, tools/rmplrun/link.hpp). The ranks'
// stdout and stderr go to pipes that rmplrun reads; complete lines are written on (to rmplrun's own
// stdout or stderr, or to a sink) in a single write, as "[rank] line" when tagged, so lines of
// different ranks never mix mid-line (they can only alternate whole lines).
#pragma once

#include <poll.h>

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rmplrun {

class relayed_output {
 public:
  /// Where lines go instead of rmplrun's stdout (target 1) or stderr (2); false when it can take
  /// no more.
  using sink = std::function<bool(int rank, int target, std::string_view lines)>;
  /// The write ends of a rank's pipes, for the child's stdout and stderr (close-on-exec: the child
  /// dup2()s them onto 1 and 2).
  struct rank_pipes {
    int out = -1;
    int err = -1;
  };

  /// `tag`: "[rank] " before each line. `to`: where lines go (default: rmplrun's stdout, stderr).
  explicit relayed_output(bool tag, sink to = {}) : tag_(tag), sink_(std::move(to)) {}
  ~relayed_output();
  relayed_output(const relayed_output&) = delete;
  relayed_output& operator=(const relayed_output&) = delete;

  /// Creates the pipes of `rank`. Throws std::system_error.
  rank_pipes open(int rank);
  /// Closes the write ends in rmplrun once the child has them, so that EOF means the rank is done.
  static void close_write_ends(rank_pipes& pipes);

  /// Appends a pollfd for each pipe still open; service() must then get the same entries back.
  void add_to_poll(std::vector<pollfd>& fds);
  /// Reads what is ready in the entries added by add_to_poll() and relays the complete lines.
  void service(std::span<const pollfd> fds);
  /// True when every pipe has reached end of file.
  bool done() const noexcept { return open_streams_ == 0; }
  /// Relays the partial lines left and closes every pipe (for writers that never close theirs).
  void close_all();

 private:
  struct stream {
    int fd;
    int rank;
    int target;           // 1 or 2: our stdout or stderr
    std::string partial;  // the start of a line not yet ended
  };
  void read_from(stream& s);
  void finish(stream& s);
  void emit(int rank, int target, const std::string& text);
  std::string prefix(int rank) const;

  bool tag_;
  sink sink_;
  std::vector<stream> streams_;
  std::vector<std::size_t> polled_;  // streams_ index of each entry add_to_poll() appended
  std::size_t open_streams_ = 0;
  bool broken_[3] = {false, false, false};  // our stdout/stderr can no longer be written
};

}  // namespace rmplrun
