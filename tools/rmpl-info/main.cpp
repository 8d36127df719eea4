// rmpl-info: prints what rmpl will do on this machine. Run it alone (a job of one rank) or under
// rmplrun to see the job's view (only rank 0 prints); single copy is probed for real either way.
#include <fmt/format.h>

#include <cstdio>
#include <exception>

#include "core/engine.hpp"

int main() {
  try {
    rmpl::core::engine kernel;
    if (kernel.rank() != 0) return 0;
    const auto& t = kernel.tune();
    fmt::print("{:<20}{}\n", "rmpl version", RMPL_VERSION);
    fmt::print("{:<20}{}\n", "ranks", kernel.size());
    for (const auto& [name, value] : kernel.describe_transport()) {
      fmt::print("{:<20}{}\n", name, value);
    }
    fmt::print("{:<20}{} messages held per rank (RMPL_UNEXPECTED_MAX)\n", "unexpected max",
               t.max_unexpected);
    fmt::print("{:<20}{} polls (RMPL_SPIN)\n", "spin before sleep", t.spin_polls);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rmpl-info: %s\n", e.what());
    return 1;
  }
}
