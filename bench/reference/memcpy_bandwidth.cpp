// Physical reference: single-thread memcpy bandwidth between two 16 MiB buffers (bytes copied per
// second, each byte counted once, in 10^6 B/s). A ping-pong of 16 MiB between two processes needs
// at least one such copy per message, so this bounds what any single-copy transport can reach.
//
// Warm-up copies first (page faults, caches), then a timed run of ~0.2 s (0.05 s with --quick);
// prints one CSV line:  reference,1,16777216,memcpy_MBps,<value>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "timing.hpp"

int main(int argc, char** argv) {
  const std::optional<double> chosen = rmpl_bench::target_seconds(argc, argv);
  if (!chosen) {
    std::fprintf(stderr, "usage: %s [--quick] [--time seconds]\n", argv[0]);
    return 2;
  }
  const double target = *chosen;
  constexpr std::size_t bytes = std::size_t{16} * 1024 * 1024;
  auto* a = static_cast<unsigned char*>(std::aligned_alloc(4096, bytes));
  auto* b = static_cast<unsigned char*>(std::aligned_alloc(4096, bytes));
  if (a == nullptr || b == nullptr) {
    std::fprintf(stderr, "out of memory\n");
    return 1;
  }
  std::memset(a, 1, bytes);
  std::memset(b, 2, bytes);

  using clock = std::chrono::steady_clock;
  auto copy = [&](long n) {
    const auto t0 = clock::now();
    for (long i = 0; i < n; ++i) {
      // Alternate directions so every copy reads what the previous one wrote.
      if (i % 2 == 0)
        std::memcpy(b, a, bytes);
      else
        std::memcpy(a, b, bytes);
    }
    return std::chrono::duration<double>(clock::now() - t0).count();
  };
  const auto [iters, t] = rmpl_bench::calibrated(copy, target);
  // Keep the copies observable.
  unsigned sum = 0;
  for (std::size_t i = 0; i < bytes; i += 4096) sum += a[i] + b[i];
  std::printf("# memcpy of %zu B, %ld copies, %.3f s (check %u)\n", bytes, iters, t, sum);
  std::printf("reference,1,%zu,memcpy_MBps,%.1f\n", bytes,
              static_cast<double>(bytes) * iters / t / 1e6);
  std::free(a);
  std::free(b);
  return 0;
}
