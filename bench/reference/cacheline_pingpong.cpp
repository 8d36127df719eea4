// Physical reference: the one-way latency of a raw cache-line ping-pong between two processes on
// different cores. fork() a child; both share one 64-byte line (a shared anonymous mapping) holding
// an atomic counter; the parent pins itself to the first CPU it may run on and the child to the
// second. The parent writes an odd value and spins until the child answers with the next even one:
// each round trip moves the line across cores twice. No message-passing library can deliver a
// message between processes faster than this.
//
// Warm-up, then a timed run of ~0.2 s (0.05 s with --quick); one-way = elapsed / (2 * round trips).
// Prints one CSV line:  reference,2,64,cacheline_latency_us,<value>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <optional>

#include "timing.hpp"

namespace {

struct alignas(64) line {
  std::atomic<std::uint64_t> value{0};
};
static_assert(std::atomic<std::uint64_t>::is_always_lock_free);

// The n-th CPU in this process's affinity mask, or -1.
int nth_allowed_cpu(int n) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set) && n-- == 0) return cpu;
  }
  return -1;
}

bool pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof set, &set) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::optional<double> chosen = rmpl_bench::target_seconds(argc, argv);
  if (!chosen) {
    std::fprintf(stderr, "usage: %s [--quick] [--time seconds]\n", argv[0]);
    return 2;
  }
  const double target = *chosen;
  const int cpu0 = nth_allowed_cpu(0);
  const int cpu1 = nth_allowed_cpu(1);
  if (cpu0 < 0 || cpu1 < 0) {
    std::fprintf(stderr, "cacheline_pingpong needs two CPUs\n");
    return 1;
  }
  void* mem = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    std::perror("mmap");
    return 1;
  }
  auto* l = new (mem) line;
  std::fflush(stdout);

  const pid_t child = fork();
  if (child < 0) {
    std::perror("fork");
    return 1;
  }
  if (child == 0) {
    if (!pin(cpu1)) std::_Exit(3);
    // Answer every odd value v with v + 1; UINT64_MAX means stop. Leave if the parent is gone.
    const pid_t parent = getppid();
    std::uint64_t expect = 1;
    for (;;) {
      std::uint64_t v;
      std::uint32_t spins = 0;
      while ((v = l->value.load(std::memory_order_acquire)) != expect) {
        if (v == UINT64_MAX) std::_Exit(0);
        if (++spins == 0 && getppid() != parent) std::_Exit(4);
      }
      l->value.store(expect + 1, std::memory_order_release);
      expect += 2;
    }
  }
  if (!pin(cpu0)) {
    std::perror("sched_setaffinity");
    l->value.store(UINT64_MAX, std::memory_order_release);
    waitpid(child, nullptr, 0);
    return 1;
  }

  using clock = std::chrono::steady_clock;
  std::uint64_t next = 1;  // the next odd value to send
  auto run = [&](long n) {
    const auto t0 = clock::now();
    for (long i = 0; i < n; ++i) {
      l->value.store(next, std::memory_order_release);
      while (l->value.load(std::memory_order_acquire) != next + 1) {
      }
      next += 2;
    }
    return std::chrono::duration<double>(clock::now() - t0).count();
  };
  const auto [iters, t] = rmpl_bench::calibrated(run, target);
  l->value.store(UINT64_MAX, std::memory_order_release);
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "cacheline_pingpong: the child failed (status %d)\n", status);
    return 1;
  }
  std::printf("# cache-line ping-pong, CPUs %d and %d, %ld round trips, %.3f s\n", cpu0, cpu1,
              iters, t);
  std::printf("reference,2,64,cacheline_latency_us,%.4f\n",
              t / (2.0 * static_cast<double>(iters)) * 1e6);
  munmap(mem, 4096);
  return 0;
}
