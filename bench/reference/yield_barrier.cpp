// Physical reference for collectives when ranks outnumber cores: n processes (unpinned, as rmplrun
// and the peers leave them) run back-to-back barriers with nothing else: each writes its round
// number to its own cache line, then looks at every other's, giving its core away with
// sched_yield() on every look that finds a rank behind. No message-passing work at all, so this is
// the floor of any collective in which every rank needs something from every other (barrier,
// allreduce, allgather, alltoall) for a library whose ranks are processes that yield when idle.
//
// Prints one CSV line:  reference,<n>,0,yield_barrier_us,<mean µs per barrier, slowest process>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string_view>

#include "reference/processes.hpp"

namespace {

struct alignas(64) line {
  std::atomic<std::uint64_t> round{0};
};

struct alignas(64) shared {
  std::atomic<int> ready{0};
  std::atomic<std::uint64_t> slowest_ns{0};
};

[[noreturn]] void usage(const char* self) {
  std::fprintf(stderr, "usage: %s --ranks N [--quick]   (2 <= N <= 256)\n", self);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  long barriers = 20000;
  int n = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--quick") {
      barriers = 5000;
    } else if (arg == "--ranks" && i + 1 < argc) {
      n = std::atoi(argv[++i]);
    } else {
      usage(argv[0]);
    }
  }
  if (n < 2 || n > 256) usage(argv[0]);
  const std::size_t bytes = sizeof(shared) + static_cast<std::size_t>(n) * sizeof(line);
  void* mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    std::perror("mmap");
    return 1;
  }
  auto* common = new (mem) shared;
  auto* lines = new (static_cast<char*>(mem) + sizeof(shared)) line[static_cast<std::size_t>(n)];
  const bool ok = rmpl_bench::run_processes(n, [&](int r) {
    common->ready.fetch_add(1);
    while (common->ready.load() < n) sched_yield();  // all start together
    const auto t0 = std::chrono::steady_clock::now();
    for (std::uint64_t s = 1; s <= static_cast<std::uint64_t>(barriers); ++s) {
      lines[r].round.store(s, std::memory_order_release);
      for (int q = 0; q < n; ++q) {
        while (lines[q].round.load(std::memory_order_acquire) < s) sched_yield();
      }
    }
    const auto ns = static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
            .count());
    std::uint64_t seen = common->slowest_ns.load();
    while (seen < ns && !common->slowest_ns.compare_exchange_weak(seen, ns)) {
    }
    return 0;
  });
  if (!ok) {
    std::fprintf(stderr, "yield_barrier: a process failed\n");
    return 1;
  }
  const double us =
      static_cast<double>(common->slowest_ns.load()) / 1e3 / static_cast<double>(barriers);
  std::printf("# yield barrier, %d processes, %ld barriers\n", n, barriers);
  std::printf("reference,%d,0,yield_barrier_us,%.4f\n", n, us);
  return 0;
}
