// What the benchmark programs share: the seconds each measured point should take (--quick, --time)
// and, for the single-process references, the calibration that sizes a timed run to that target.
#pragma once

#include <cstdlib>
#include <optional>
#include <string_view>

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
