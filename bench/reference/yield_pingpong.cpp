// Physical reference for oversubscribed runs: 4 pairs of processes (8 on however many cores there
// are, unpinned, as rmplrun and the peers leave them) bounce a flag on a shared cache line, and a
// process waiting for its turn gives its core away with sched_yield() on every look. Each hop needs
// the receiving process to be scheduled, so this measures the cost of the context switches alone,
// with no message-passing work at all: the floor for any library whose ranks are processes.
//
// Prints one CSV line:  reference,8,8,yield_latency_us,<mean one-way µs over the pairs>
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
#include <string_view>

namespace {

constexpr int pairs = 4;

struct alignas(64) line {
  std::atomic<std::uint64_t> turn{0};  // even: the pair's first process may go; odd: the second
};

}  // namespace

int main(int argc, char** argv) {
  long round_trips = 20000;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--quick") {
      round_trips = 5000;
    } else {
      std::fprintf(stderr, "usage: %s [--quick]\n", argv[0]);
      return 2;
    }
  }
  void* mem = mmap(nullptr, 4096 + sizeof(std::atomic<int>), PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    std::perror("mmap");
    return 1;
  }
  auto* lines = new (mem) line[pairs];
  auto* ready = new (static_cast<char*>(mem) + 4096) std::atomic<int>{0};
  std::fflush(stdout);

  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  for (int p = 0; p < 2 * pairs; ++p) {
    const pid_t child = fork();
    if (child < 0) {
      std::perror("fork");
      return 1;
    }
    if (child != 0) continue;
    line& l = lines[p / 2];
    const std::uint64_t me = p % 2;
    ready->fetch_add(1);
    while (ready->load() < 2 * pairs) sched_yield();  // all pairs start together
    for (long i = 0; i < round_trips; ++i) {
      const std::uint64_t mine = 2 * static_cast<std::uint64_t>(i) + me;
      while (l.turn.load(std::memory_order_acquire) != mine) sched_yield();
      l.turn.store(mine + 1, std::memory_order_release);
    }
    std::_Exit(0);
  }
  bool ok = true;
  for (int p = 0; p < 2 * pairs; ++p) {
    int status = 0;
    wait(&status);
    ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  const double t = std::chrono::duration<double>(clock::now() - t0).count();
  if (!ok) {
    std::fprintf(stderr, "yield_pingpong: a process failed\n");
    return 1;
  }
  std::printf("# yield ping-pong, %d pairs, %ld round trips each, %.3f s\n", pairs, round_trips, t);
  std::printf("reference,8,8,yield_latency_us,%.4f\n",
              t / (2.0 * static_cast<double>(round_trips)) * 1e6);
  return 0;
}
