#include "runtime/local/memory.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <string_view>

namespace rmpl::runtime::local {
namespace {

/// A limit at or above this is "no limit" (cgroup v1 reports one just under 2^63).
constexpr std::uint64_t unlimited = std::uint64_t{1} << 60;

std::optional<std::uint64_t> read_number(const std::string& path) {
  std::ifstream in(path);
  std::string word;
  if (!(in >> word) || word == "max") return std::nullopt;
  try {
    return std::stoull(word);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

/// The value of `key` in a "key value" file (memory.stat), or 0.
std::uint64_t stat_value(const std::string& path, std::string_view key) {
  std::ifstream in(path);
  std::string name;
  std::uint64_t value = 0;
  while (in >> name >> value) {
    if (name == key) return value;
  }
  return 0;
}

/// MemAvailable: what the kernel estimates new allocations can take without swapping (free memory
/// plus the page cache it can drop).
std::optional<memory_room> meminfo_room() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string key;
    std::uint64_t kib = 0;
    if (words >> key >> kib && key == "MemAvailable:") {
      return memory_room{kib * 1024, "MemAvailable in /proc/meminfo"};
    }
  }
  return std::nullopt;
}

/// The room left under one cgroup directory's limit, counting inactive page cache as free (it is
/// reclaimed before the cgroup's OOM killer runs).
std::optional<memory_room> cgroup_room(const std::string& dir, bool v2) {
  const auto limit = read_number(dir + (v2 ? "/memory.max" : "/memory.limit_in_bytes"));
  if (!limit || *limit >= unlimited) return std::nullopt;
  const auto used = read_number(dir + (v2 ? "/memory.current" : "/memory.usage_in_bytes"));
  if (!used) return std::nullopt;
  const std::uint64_t cache =
      stat_value(dir + "/memory.stat", v2 ? "inactive_file" : "total_inactive_file");
  const std::uint64_t in_use = *used > cache ? *used - cache : 0;
  return memory_room{*limit > in_use ? *limit - in_use : 0,
                     fmt::format("the memory cgroup {} (limit {})", dir, human_bytes(*limit))};
}

void keep_tightest(std::optional<memory_room>& best, std::optional<memory_room> candidate) {
  if (candidate && (!best || candidate->bytes < best->bytes)) best = std::move(candidate);
}

/// Every memory cgroup this process is in, from its own up to the root: "0::/a/b" (v2) or
/// "4:memory:/a/b" (v1) in /proc/self/cgroup. Inside a container the path may not exist under
/// /sys/fs/cgroup (another namespace's view); its ancestors that do are read.
void cgroups_room(std::optional<memory_room>& best) {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    const auto first = line.find(':');
    const auto second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    std::string path = line.substr(second + 1);
    bool v2 = controllers.empty();
    if (!v2 && controllers.find("memory") == std::string::npos) continue;
    const std::string root = v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory";
    for (;;) {
      keep_tightest(best, cgroup_room(root + (path == "/" ? "" : path), v2));
      if (path.empty() || path == "/") break;
      const auto slash = path.rfind('/');
      path = slash == 0 ? "/" : path.substr(0, slash);
    }
  }
}

}  // namespace

std::optional<memory_room> available_memory() {
  std::optional<memory_room> best = meminfo_room();
  cgroups_room(best);
  return best;
}

std::string human_bytes(std::uint64_t bytes) {
  constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", v, units[u]);
}

}  // namespace rmpl::runtime::local
