#include "program.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "options.hpp"

namespace rmplrun {
namespace {

/// Why `path` cannot be executed, or an empty string when it can; `missing` tells whether it does
/// not exist at all (which a PATH search skips silently).
std::string unusable(const std::string& path, bool* missing = nullptr) {
  struct stat st {};
  if (missing) *missing = false;
  if (::stat(path.c_str(), &st) != 0) {
    int err = errno;
    if (missing) *missing = err == ENOENT || err == ENOTDIR;
    return std::strerror(err);
  }
  if (S_ISDIR(st.st_mode)) return "is a directory";
  if (!S_ISREG(st.st_mode)) return "is not a regular file";
  // access() rather than the mode bits: it applies the real rules (root, ACLs, noexec mounts).
  if (::access(path.c_str(), X_OK) != 0) return "is not executable";
  return {};
}

}  // namespace

std::string find_program(const std::string& name) {
  if (name.empty()) throw usage_error("the program name is empty");
  if (name.find('/') != std::string::npos) {
    if (std::string why = unusable(name); !why.empty()) {
      throw usage_error(fmt::format("cannot run '{}': {}", name, why));
    }
    return name;
  }
  const char* env = std::getenv("PATH");
  std::string_view path = env ? env : "/bin:/usr/bin";  // glibc execvp's default
  std::string not_executable;  // a match that could not be run, to explain a failed search
  for (;;) {
    auto colon = path.find(':');
    std::string_view dir = path.substr(0, colon);
    std::string candidate = fmt::format("{}/{}", dir.empty() ? "." : dir, name);
    bool missing = false;
    if (unusable(candidate, &missing).empty()) return candidate;
    if (!missing && not_executable.empty()) not_executable = candidate;
    if (colon == std::string_view::npos) break;
    path.remove_prefix(colon + 1);
  }
  if (!not_executable.empty()) {
    throw usage_error(
        fmt::format("cannot run '{}': {} {}", name, not_executable, unusable(not_executable)));
  }
  throw usage_error(fmt::format("program '{}' not found in PATH", name));
}

}  // namespace rmplrun
