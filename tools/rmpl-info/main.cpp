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
    const auto& fabric = kernel.fabric();
    const auto& p = fabric.p();
    const auto& t = kernel.tune();
    fmt::print("rmpl version        {}\n", RMPL_VERSION);
    fmt::print("provider            shm (one host, memfd segment shared by the ranks)\n");
    fmt::print("ranks               {}\n", kernel.size());
    fmt::print("cores               {}\n", fabric.cores());
    fmt::print("ranks per core      {:.2f}{}\n", double(kernel.size()) / fabric.cores(),
               fabric.oversubscribed() ? " (oversubscribed: waits sleep at once)" : "");
    fmt::print("single copy         {} ({})\n", fabric.single_copy() ? "yes" : "no",
               fabric.single_copy_reason());
    fmt::print("inline max          {} bytes (one 64-byte cell per message)\n",
               rmpl::core::inline_capacity);
    fmt::print(
        "eager max           {} bytes (RMPL_EAGER_MAX), {} slots per rank (RMPL_EAGER_SLOTS)\n",
        t.eager_max, p.eager_slots);
    fmt::print("rendezvous          above {} bytes, {}\n", t.eager_max,
               fabric.single_copy() ? "single copy by the receiver"
                                    : fmt::format("pipelined through {} x {} byte bounce chunks",
                                                  p.bounce_chunks, p.bounce_chunk_bytes));
    fmt::print("ring                {} cells per directed pair (RMPL_RING_CELLS)\n", p.ring_cells);
    fmt::print("unexpected max      {} messages held per rank (RMPL_UNEXPECTED_MAX)\n",
               t.max_unexpected);
    fmt::print("spin before sleep   {} polls (RMPL_SPIN)\n", t.spin_polls);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rmpl-info: %s\n", e.what());
    return 1;
  }
}
