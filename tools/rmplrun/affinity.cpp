#include "affinity.hpp"

#include <sched.h>

#include <cerrno>

namespace rmplrun {

std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  // The kernel's mask may be larger than cpu_set_t's 1024 CPUs: grow until sched_getaffinity fits.
  for (int ncpus = 1024; ncpus <= (1 << 20); ncpus *= 2) {
    cpu_set_t* set = CPU_ALLOC(ncpus);
    if (set == nullptr) break;
    const std::size_t size = CPU_ALLOC_SIZE(ncpus);
    CPU_ZERO_S(size, set);
    if (::sched_getaffinity(0, size, set) == 0) {
      for (int cpu = 0; cpu < ncpus; ++cpu) {
        if (CPU_ISSET_S(cpu, size, set)) cpus.push_back(cpu);
      }
      CPU_FREE(set);
      break;
    }
    const int err = errno;
    CPU_FREE(set);
    if (err != EINVAL) break;
  }
  return cpus;
}

int bind_to_cpu(int cpu) {
  cpu_set_t* set = CPU_ALLOC(cpu + 1);
  if (set == nullptr) return ENOMEM;
  const std::size_t size = CPU_ALLOC_SIZE(cpu + 1);
  CPU_ZERO_S(size, set);
  CPU_SET_S(cpu, size, set);
  const int rc = ::sched_setaffinity(0, size, set) == 0 ? 0 : errno;
  CPU_FREE(set);
  return rc;
}

}  // namespace rmplrun
