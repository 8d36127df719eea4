// The job segment rmplrun hands to the ranks is the job user's alone (mode 0600), has no name in
// the file system, and is sealed at its size, so no rank can truncate it under the others (which
// would kill them with SIGBUS). Run under rmplrun; every rank checks its inherited descriptor.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <rmpl/rmpl.hpp>
#include <string>

int main() {
  rmpl::session session;
  const int rank = session.world().rank();
  const char* fd_text = std::getenv("RMPL_SHM_FD");
  if (!fd_text) {
    std::printf("rank %d: RMPL_SHM_FD is not set: run this under rmplrun\n", rank);
    return 1;
  }
  const int fd = std::atoi(fd_text);
  int failures = 0;
  auto check = [&](bool ok, const std::string& what) {
    if (!ok) {
      std::printf("rank %d: FAILED: %s\n", rank, what.c_str());
      ++failures;
    }
  };
  struct stat st {};
  check(::fstat(fd, &st) == 0, "fstat of the segment");
  check((st.st_mode & 07777) == 0600,
        "segment mode is " + std::to_string(st.st_mode & 07777) + " (octal 600 expected)");
  check(st.st_uid == ::geteuid(), "segment owned by the job's user");
  const int seals = ::fcntl(fd, F_GET_SEALS);
  check(seals >= 0 && (seals & F_SEAL_SHRINK) && (seals & F_SEAL_GROW) && (seals & F_SEAL_SEAL),
        "segment sealed against shrinking, growing and new seals (seals " + std::to_string(seals) +
            ")");
  errno = 0;
  check(::ftruncate(fd, 0) != 0 && errno == EPERM, "ftruncate of the segment refused with EPERM");
  char link[PATH_MAX] = {};
  const std::string self = "/proc/self/fd/" + std::to_string(fd);
  const ssize_t n = ::readlink(self.c_str(), link, sizeof link - 1);
  check(n > 0 && std::strncmp(link, "/memfd:", 7) == 0,
        std::string("segment is an anonymous memfd, not a named file (") + link + ")");
  session.world().barrier();
  if (failures == 0) std::printf("rank %d: segment mode 0600, sealed, anonymous\n", rank);
  return failures == 0 ? 0 : 1;
}
