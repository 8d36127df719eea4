// How much memory a new job segment may take. The segment is a memfd: its pages come from shmem on
// the kernel's internal mount, which has no size limit of its own (unlike /dev/shm), so what bounds
// it is the machine's free memory and the memory cgroup the launcher runs in. A page that cannot be
// had when a rank first touches it does not fail a call: the OOM killer ends some process instead.
// So the launcher checks the segment's size against this before any rank starts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace rmpl::runtime::local {

/// Bytes that new shared pages can still take, and where that bound comes from.
struct memory_room {
  std::uint64_t bytes = 0;
  std::string source;  ///< "MemAvailable in /proc/meminfo", "the memory cgroup /x (limit ...)"
};

/// The tightest of MemAvailable and the limits of this process's memory cgroups (v1 or v2, every
/// ancestor), or nothing when none can be read.
std::optional<memory_room> available_memory();

/// "1.5 GiB", "96 MiB", "512 B".
std::string human_bytes(std::uint64_t bytes);

}  // namespace rmpl::runtime::local
