// --tag-output: the ranks' stdout and stderr go to pipes that rmplrun reads; each complete line is
// written to rmplrun's own stdout or stderr as "[rank] line" in a single write, so lines of
// different ranks never mix mid-line (they can only alternate whole lines).
#pragma once

#include <poll.h>

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace rmplrun {

class tagged_output {
 public:
  /// The write ends of a rank's pipes, for the child's stdout and stderr (close-on-exec: the child
  /// dup2()s them onto 1 and 2).
  struct rank_pipes {
    int out = -1;
    int err = -1;
  };

  tagged_output() = default;
  ~tagged_output();
  tagged_output(const tagged_output&) = delete;
  tagged_output& operator=(const tagged_output&) = delete;

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
  void emit(int target, const std::string& text);

  std::vector<stream> streams_;
  std::vector<std::size_t> polled_;  // streams_ index of each entry add_to_poll() appended
  std::size_t open_streams_ = 0;
  bool broken_[3] = {false, false, false};  // our stdout/stderr can no longer be written
};

}  // namespace rmplrun
