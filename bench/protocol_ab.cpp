// Two point-to-point protocols compared inside one job: blocks of 2-rank ping-pongs alternate
// between a message size's long inline form (the ring's own cells) and its eager form (a pool
// slot), and each block's time is divided by the next one's. On this machine the host moves the two
// vCPUs between near and distant cores every few minutes and timings of separate runs differ by up
// to 3x; a ratio of neighbouring blocks in one job sees both forms under the same conditions.
//
//   rmplrun -n 2 rmpl-bench-protocol-ab [--bytes 64,256,1024] [--blocks 20] [--iters 2000]
//
// The long form is used up to the segment's RMPL_INLINE_MAX (set it to the largest size asked
// for, e.g. RMPL_INLINE_MAX=1024), the eager form by lowering this rank's limit to 0 for the block
// (engine::limit_inline_for_bench; receivers accept both). Cases, one-way time (round trip / 2):
//   blocking  send + recv: the receive's fast path (straight from the cell or slot)
//   posted    send + start_recv/wait: the general path (a posted receive, matched by progress)
//   sync      synchronous send + recv (an ack per message, or a ready notice)
// Rank 0 prints, per size and case: protocol_ab,<case>,<bytes>,<eager us>,<long us>,<ratio
// median>,<ratio p10>,<ratio p90> (ratio = long / eager; medians over the blocks). The last message
// of every block is checked; a wrong byte prints check_failed and exits 1.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "api/runtime.hpp"
#include "timing.hpp"

namespace {

enum class pattern { blocking, posted, sync };
constexpr const char* names[] = {"blocking", "posted", "sync"};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

/// `iters` round trips of `bytes` between ranks 0 and 1; the one-way time in µs, or -1 if a
/// message arrived wrong.
double round_trips(rmpl::core::engine& e, pattern how, std::size_t bytes, int iters, int seed) {
  const int me = e.rank(), peer = 1 - me;
  std::vector<unsigned char> out(bytes), in(bytes);
  for (std::size_t i = 0; i < bytes; ++i) out[i] = static_cast<unsigned char>(i * 7 + seed + me);
  const auto mode = how == pattern::sync ? rmpl::send_mode::synchronous : rmpl::send_mode::standard;
  auto receive = [&] {
    if (how == pattern::posted) {
      rmpl::core::request* r = e.start_recv(0, in.data(), bytes, peer, 1);
      e.wait(r);
      e.finish(r);
    } else {
      e.recv(0, in.data(), bytes, peer, 1);
    }
  };
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) {
    if (me == 0) {
      e.send(0, out.data(), bytes, peer, 1, mode);
      receive();
    } else {
      receive();
      e.send(0, out.data(), bytes, peer, 1, mode);
    }
  }
  const double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  for (std::size_t i = 0; i < bytes; ++i) {
    if (in[i] != static_cast<unsigned char>(i * 7 + seed + peer)) return -1;
  }
  return us / iters / 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes = {64, 256, 1024};
  int blocks = 20, iters = 2000;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string opt = argv[i];
    if (opt == "--bytes") {
      auto parsed = rmpl_bench::parse_sizes(argv[i + 1], std::size_t{1} << 20);
      if (!parsed) {
        std::fprintf(stderr, "%s: --bytes wants sizes up to 1 MiB, e.g. 64,256,1024; got '%s'\n",
                     argv[0], argv[i + 1]);
        return 2;
      }
      sizes = std::move(*parsed);
    } else if (opt == "--blocks") {
      blocks = std::max(2, std::atoi(argv[i + 1]));
    } else if (opt == "--iters") {
      iters = std::max(1, std::atoi(argv[i + 1]));
    } else {
      std::fprintf(stderr, "usage: %s [--bytes 64,256,1024] [--blocks 20] [--iters 2000]\n",
                   argv[0]);
      return 2;
    }
  }
  rmpl::session session;
  rmpl::core::engine& e = rmpl::api::kernel();
  if (e.size() != 2) {
    if (e.rank() == 0) std::fprintf(stderr, "rmpl-bench-protocol-ab needs 2 ranks\n");
    return 2;
  }
  const std::size_t segment_max = e.tune().inline_max;
  if (e.rank() == 0) {
    std::printf(
        "# protocol A/B in one job: long inline (RMPL_INLINE_MAX=%zu) / eager, %d blocks of "
        "%d round trips per case and size\n",
        segment_max, blocks, iters);
  }
  for (std::size_t bytes : sizes) {
    if (bytes > segment_max && e.rank() == 0) {
      std::printf("# %zu B is above RMPL_INLINE_MAX: both blocks go eager\n", bytes);
    }
    for (pattern how : {pattern::blocking, pattern::posted, pattern::sync}) {
      std::vector<double> eager, inline_long, ratio;
      for (int b = 0; b < blocks; ++b) {
        double t[2];
        for (int form = 0; form < 2; ++form) {
          e.limit_inline_for_bench(form == 0 ? 0 : segment_max);
          t[form] = round_trips(e, how, bytes, iters, b * 2 + form);
          if (t[form] < 0) {
            // Exits at once: the peer is told this rank died rather than left waiting.
            std::printf("check_failed,%s,%zu\n", names[static_cast<int>(how)], bytes);
            std::fflush(stdout);
            std::exit(1);
          }
        }
        eager.push_back(t[0]);
        inline_long.push_back(t[1]);
        ratio.push_back(t[1] / t[0]);
      }
      e.limit_inline_for_bench(segment_max);
      if (e.rank() == 0) {
        std::printf("protocol_ab,%s,%zu,%.4f,%.4f,%.3f,%.3f,%.3f\n", names[static_cast<int>(how)],
                    bytes, median(eager), median(inline_long), median(ratio), quantile(ratio, 0.1),
                    quantile(ratio, 0.9));
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
