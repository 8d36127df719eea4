#include "memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>

namespace rmpl_test {

long peak_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

long current_rss_kib() {
  long pages_total = 0, pages_resident = 0;
  if (FILE* statm = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(statm, "%ld %ld", &pages_total, &pages_resident) != 2) pages_resident = 0;
    std::fclose(statm);
  }
  return pages_resident * (sysconf(_SC_PAGESIZE) / 1024);
}

}  // namespace rmpl_test
