// What the benchmark programs share: the seconds each measured point should take (--quick, --time),
// the list of message sizes (--sizes, --bytes) and, for the single-process references, the
// calibration that sizes a timed run to that target.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <vector>

namespace rmpl_bench {

/// The target seconds per point from `--quick` (0.05) or `--time S` (default 0.2); nothing on any
/// other argument (the caller prints its usage).
inline std::optional<double> target_seconds(int argc, char** argv) {
  double target = 0.2;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--quick") {
      target = 0.05;
    } else if (arg == "--time" && i + 1 < argc) {
      target = std::atof(argv[++i]);
    } else {
      return std::nullopt;
    }
  }
  return target;
}

/// "8,1024,65536" as sizes in bytes, sorted, each once; nothing if an item is empty, not a plain
/// decimal number or above `max` (the caller prints its usage).
inline std::optional<std::vector<std::size_t>> parse_sizes(std::string_view s, std::size_t max) {
  std::vector<std::size_t> out;
  for (;;) {
    const std::size_t len = std::min(s.find(','), s.size());
    unsigned long long v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + len, v);
    if (len == 0 || ec != std::errc() || end != s.data() + len || v > max) return std::nullopt;
    out.push_back(static_cast<std::size_t>(v));
    if (len == s.size()) break;
    s.remove_prefix(len + 1);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

struct timed_run {
  long iterations;
  double seconds;
};

/// Warm-up and calibration: `run(n)` (which does n iterations and returns its seconds) is called
/// with 1, 2, 4, ... until a run takes a tenth of `target`, then once more sized to take `target`.
template <class Run>
timed_run calibrated(Run&& run, double target) {
  long n = 1;
  double t = run(n);
  while (t < target / 10) {
    n *= 2;
    t = run(n);
  }
  long iterations = static_cast<long>(static_cast<double>(n) * target / t);
  if (iterations < 2) iterations = 2;
  return {iterations, run(iterations)};
}

}  // namespace rmpl_bench
