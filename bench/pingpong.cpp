// Ping-pong latency and bandwidth with rmpl's C++ API. bench/mpi/pingpong.c is the same logic
// against the MPI C API, so bench/run-pingpong can measure rmpl, Open MPI and MPICH side by side.
//
// Ranks 2k and 2k+1 form a pair; all pairs ping-pong at once (an odd last rank idles). Per size:
//   - calibration (also the warm-up): the pair leader runs batches of 1, 2, 4, ... round trips
//   until
//     one batch takes at least a tenth of the target time, then sizes the measured batch to take
//     the target time (0.2 s; 0.05 s with --quick);
//   - every rank meets at a barrier, so the pairs' measured batches overlap;
//   - the measured batch: latency = elapsed / (2 * round trips), i.e. one-way time;
//     bandwidth = size / one-way time (the ping-pong's, not a streaming rate), in 10^6 bytes/s.
// Rank 0 averages the pairs' one-way times and prints one CSV line per point:
//   pingpong,<ranks>,<size_bytes>,latency_us|bandwidth_MBps,<value>
// With 2 ranks: latency at 0, 8, 1024 and 4096 bytes, bandwidth at 64 KiB, 1 MiB and 16 MiB.
// With more ranks: latency only (the concurrent-pairs case).
// Before each batch the leader sends its partner the batch length (0: done) on a control tag; that
// message is not inside the timed region.
//
//   rmplrun -n 2 rmpl-bench-pingpong [--quick] [--time seconds-per-point]
#include <rmpl/rmpl.hpp>

#include <array>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>

#include "timing.hpp"

namespace {

enum tags : int { tag_ctrl = 1, tag_ping = 2, tag_pong = 3, tag_result = 4, tag_barrier = 5 };

constexpr std::array<std::size_t, 4> latency_sizes = {0, 8, 1024, 4096};
constexpr std::array<std::size_t, 3> bandwidth_sizes = {64 * 1024, 1024 * 1024, 16 * 1024 * 1024};
constexpr std::size_t max_size = std::size_t{16} * 1024 * 1024;
constexpr long min_iters = 2;
constexpr long max_iters = 10'000'000;

struct free_deleter {
  void operator()(std::byte* p) const noexcept { std::free(p); }
};
using buffer = std::unique_ptr<std::byte, free_deleter>;

buffer make_buffer(std::size_t bytes, int fill) {
  void* p = std::aligned_alloc(4096, bytes);
  if (p == nullptr) throw std::bad_alloc();
  std::memset(p, fill, bytes);
  return buffer(static_cast<std::byte*>(p));
}

class bench {
 public:
  bench(const rmpl::communicator& w, std::byte* sbuf, std::byte* rbuf)
      : w_(w), rank_(w.rank()), size_(w.size()), sbuf_(sbuf), rbuf_(rbuf) {}

  // One point: returns (on rank 0) the mean one-way time over the pairs, in seconds.
  double run_point(std::size_t bytes, double target) {
    const int pairs = size_ / 2;
    const bool in_pair = rank_ < 2 * pairs;
    const bool leader = in_pair && rank_ % 2 == 0;
    const int peer = leader ? rank_ + 1 : rank_ - 1;
    long iters = 0;

    // Calibration and warm-up: concurrent in every pair.
    if (leader) {
      for (long n = 1;; n *= 2) {
        const double t = leader_batch(bytes, peer, n);
        if (t >= target / 10 || n >= max_iters) {
          const double est = static_cast<double>(n) * target / (t > 0 ? t : 1e-9);
          iters = est < min_iters   ? min_iters
                  : est > max_iters ? max_iters
                                    : static_cast<long>(est);
          break;
        }
      }
      w_.send_value(long{0}, peer, tag_ctrl);
    } else if (in_pair) {
      partner_batches(bytes, peer);
    }

    barrier();
    double one_way = 0;
    if (leader) {
      const double t = leader_batch(bytes, peer, iters);
      w_.send_value(long{0}, peer, tag_ctrl);
      one_way = t / (2.0 * static_cast<double>(iters));
    } else if (in_pair) {
      partner_batches(bytes, peer);
    }

    // Rank 0 (a leader) averages the pairs' results.
    if (rank_ == 0) {
      double sum = one_way;
      for (int p = 1; p < pairs; ++p) sum += w_.recv_value<double>(2 * p, tag_result);
      one_way = sum / pairs;
    } else if (leader) {
      w_.send_value(one_way, 0, tag_result);
    }
    barrier();
    return one_way;
  }

 private:
  // Linear barrier through rank 0 (untimed; the same in both versions).
  void barrier() const {
    char token = 0;
    if (rank_ == 0) {
      for (int r = 1; r < size_; ++r) w_.recv_bytes(&token, 1, r, tag_barrier);
      for (int r = 1; r < size_; ++r) w_.send_bytes(&token, 1, r, tag_barrier);
    } else {
      w_.send_bytes(&token, 1, 0, tag_barrier);
      w_.recv_bytes(&token, 1, 0, tag_barrier);
    }
  }

  // Leader: tells the partner the batch length, then runs it; returns the elapsed seconds.
  double leader_batch(std::size_t bytes, int partner, long iters) const {
    w_.send_value(iters, partner, tag_ctrl);
    const double t0 = rmpl::session::wtime();
    for (long i = 0; i < iters; ++i) {
      w_.send_bytes(sbuf_, bytes, partner, tag_ping);
      w_.recv_bytes(rbuf_, bytes, partner, tag_pong);
    }
    return rmpl::session::wtime() - t0;
  }

  // Partner: serves batches until the leader sends 0.
  void partner_batches(std::size_t bytes, int leader) const {
    for (;;) {
      const long iters = w_.recv_value<long>(leader, tag_ctrl);
      if (iters == 0) return;
      for (long i = 0; i < iters; ++i) {
        w_.recv_bytes(rbuf_, bytes, leader, tag_ping);
        w_.send_bytes(sbuf_, bytes, leader, tag_pong);
      }
    }
  }

  rmpl::communicator w_;
  int rank_;
  int size_;
  std::byte* sbuf_;
  std::byte* rbuf_;
};

int run(int argc, char** argv) {
  rmpl::session s;
  const auto w = s.world();
  const int rank = w.rank();
  const int size = w.size();
  const std::optional<double> chosen = rmpl_bench::target_seconds(argc, argv);
  if (!chosen) {
    if (rank == 0)
      std::fprintf(stderr, "usage: %s [--quick] [--time seconds-per-point]\n", argv[0]);
    return 2;
  }
  const double target = *chosen;
  if (size < 2) {
    if (rank == 0) std::fprintf(stderr, "pingpong needs at least 2 ranks (rmplrun -n 2 ...)\n");
    return 2;
  }

  const buffer sbuf = make_buffer(max_size, 'a' + rank % 26);
  const buffer rbuf = make_buffer(max_size, 0);
  bench b(w, sbuf.get(), rbuf.get());

  if (rank == 0) {
    std::printf("# pingpong (rmpl C++ API), %d ranks, %d concurrent pair(s), %.3f s per point\n",
                size, size / 2, target);
    std::printf(
        "# latency_us = one-way time (round trip / 2), mean over pairs; "
        "bandwidth_MBps = size / one-way time, 10^6 B/s\n");
    std::fflush(stdout);
  }
  for (const std::size_t bytes : latency_sizes) {
    const double t = b.run_point(bytes, target);
    if (rank == 0) {
      std::printf("pingpong,%d,%zu,latency_us,%.4f\n", size, bytes, t * 1e6);
      std::fflush(stdout);
    }
  }
  if (size == 2) {
    for (const std::size_t bytes : bandwidth_sizes) {
      const double t = b.run_point(bytes, target);
      if (rank == 0) {
        std::printf("pingpong,%d,%zu,bandwidth_MBps,%.1f\n", size, bytes,
                    static_cast<double>(bytes) / t / 1e6);
        std::fflush(stdout);
      }
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rmpl-bench-pingpong: %s\n", e.what());
    return 1;
  }
}
