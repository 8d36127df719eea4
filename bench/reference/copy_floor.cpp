// Physical reference for collectives that move bulk data: the time to copy B bytes once with every
// core of the machine at once, and nothing else. A collective that delivers B bytes into its
// ranks' receive buffers (alltoall and allgather with p ranks and n-byte blocks: p(p-1)n;
// broadcast: (p-1)n) must write each of them at least once and read it from somewhere, whatever the
// library; on this machine the cores are the limit, so B bytes split evenly over them, each core
// copying its share between two buffers of its own (the collective's footprint: sources and
// destinations of B bytes), is the floor of its time.
//
// One process per core (sysconf(_SC_NPROCESSORS_ONLN), or --procs N), started together: each
// warms up (page faults, caches), then copies its share back and forth for about the target time;
// the figure is the slowest process's mean time per copy of its share, in µs.
//
// Prints one CSV line:  reference,<procs>,<bytes>,copy_floor_us,<µs per copy of all B bytes>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <string_view>
#include <vector>

#include "reference/processes.hpp"
#include "timing.hpp"

namespace {

struct alignas(64) shared {
  std::atomic<int> ready{0};
  std::atomic<std::uint64_t> slowest_ps{0};  // picoseconds per copy of the share
};

[[noreturn]] void usage(const char* self) {
  std::fprintf(stderr, "usage: %s --bytes B [--procs N] [--quick | --time S]\n", self);
  std::exit(2);
}

/// The share's mean seconds per copy, after a calibrated run of about `target` seconds.
double seconds_per_copy(unsigned char* a, unsigned char* b, std::size_t share, double target) {
  auto copy = [&](long n) {
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < n; ++i) {
      // Alternate directions so every copy reads what the previous one wrote.
      if (i % 2 == 0)
        std::memcpy(b, a, share);
      else
        std::memcpy(a, b, share);
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  const auto [iters, t] = rmpl_bench::calibrated(copy, target);
  return t / static_cast<double>(iters);
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t bytes = 0;
  long procs = sysconf(_SC_NPROCESSORS_ONLN);
  std::vector<char*> rest{argv[0]};  // --quick / --time S, for target_seconds
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--bytes" && i + 1 < argc) {
      bytes = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--procs" && i + 1 < argc) {
      procs = std::atol(argv[++i]);
    } else {
      rest.push_back(argv[i]);
    }
  }
  const std::optional<double> target =
      rmpl_bench::target_seconds(static_cast<int>(rest.size()), rest.data());
  if (!target || !(*target > 0) || bytes == 0 || procs < 1 || procs > 256) usage(argv[0]);
  const std::size_t share = (bytes + static_cast<std::size_t>(procs) - 1) / procs;

  void* mem =
      mmap(nullptr, sizeof(shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    std::perror("mmap");
    return 1;
  }
  auto* common = new (mem) shared;
  const bool ok = rmpl_bench::run_processes(static_cast<int>(procs), [&](int) {
    auto* a = static_cast<unsigned char*>(std::aligned_alloc(4096, (share + 4095) / 4096 * 4096));
    auto* b = static_cast<unsigned char*>(std::aligned_alloc(4096, (share + 4095) / 4096 * 4096));
    if (a == nullptr || b == nullptr) return 1;
    std::memset(a, 1, share);
    std::memset(b, 2, share);
    common->ready.fetch_add(1);
    while (common->ready.load() < procs) {
    }  // all copy at once: they share the memory system
    const double s = seconds_per_copy(a, b, share, *target);
    const auto ps = static_cast<std::uint64_t>(s * 1e12);
    std::uint64_t seen = common->slowest_ps.load();
    while (seen < ps && !common->slowest_ps.compare_exchange_weak(seen, ps)) {
    }
    return a[0] + b[share - 1] == 0 ? 1 : 0;  // keeps the copies observable
  });
  if (!ok) {
    std::fprintf(stderr, "copy_floor: a process failed\n");
    return 1;
  }
  const double us = static_cast<double>(common->slowest_ps.load()) / 1e6;
  std::printf("# copy floor: %zu B in %ld processes of %zu B each\n", bytes, procs, share);
  std::printf("reference,%ld,%zu,copy_floor_us,%.4f\n", procs, bytes, us);
  return 0;
}
