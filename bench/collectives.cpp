// Collective operations with rmpl's C++ API. bench/mpi/collectives.c is the same logic against the
// MPI C API, so bench/run-collectives can measure rmpl, Open MPI and MPICH side by side.
//
// Operations: barrier, broadcast (root 0), reduce (root 0), allreduce, allgather, alltoall, at 8 B,
// 1 KiB, 64 KiB and 1 MiB per rank (for allgather and alltoall the block each rank contributes per
// peer); reduce and allreduce sum doubles (rmpl::ops::sum). With 2 ranks also allreduce at 16 MiB.
// Per point:
//   - calibration (also the warm-up, rmpl_bench::calibrated): every rank runs batches of 1, 2, 4,
//     ... operations back to back, with no barrier between them; after each batch the ranks agree
//     (through rank 0, point to point, untimed) on the slowest rank's elapsed time, until a batch
//     takes a tenth of the target time (0.2 s; 0.05 s with --quick); the measured batch is then
//     sized to take the target time (at least 2 operations), and sized again (up to 3 times) while
//     it took less than half the target, which a slow calibration batch causes;
//   - the measured batch: each rank's mean time per operation = its elapsed / operations; the
//     figure is the maximum over the ranks (so a slow rank counts);
//   - untimed, a check of the first and last element of every result block.
// Rank 0 prints one CSV line per point:
//   collective,<operation>,<ranks>,<bytes>,<operations timed>,time_us,<value>
// or, when the check failed on some rank:  check_failed,<operation>,<ranks>,<bytes>
// The barrier's <bytes> is 0.
//
//   rmplrun -n 4 rmpl-bench-collectives [--quick] [--time seconds-per-point]
//                                       [--ops alltoall,allgather] [--sizes 65536,1048576]
// --ops and --sizes (up to 16 MiB) pick points to study (the extra 16 MiB allreduce of 2 ranks
// runs only with the default sizes); bench/run-collectives always runs them all.
#include <rmpl/rmpl.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "ranks.hpp"
#include "timing.hpp"

namespace {

enum tags : int { tag_ctrl = 1 };
enum class op { barrier, broadcast, reduce, allreduce, allgather, alltoall };

constexpr std::array<const char*, 6> op_names = {"barrier",   "broadcast", "reduce",
                                                 "allreduce", "allgather", "alltoall"};
constexpr std::array<std::size_t, 4> default_sizes = {8, 1024, 64 * 1024, 1024 * 1024};
constexpr std::size_t big_allreduce = std::size_t{16} * 1024 * 1024;
constexpr std::size_t max_block = std::size_t{16} * 1024 * 1024;  // the largest --sizes
constexpr int max_resizes = 3;

struct free_deleter {
  void operator()(double* p) const noexcept { std::free(p); }
};
using buffer = std::unique_ptr<double[], free_deleter>;

buffer make_buffer(std::size_t bytes) {
  void* p = std::aligned_alloc(4096, bytes);
  if (p == nullptr) throw std::bad_alloc();
  std::memset(p, 0, bytes);
  return buffer(static_cast<double*>(p));
}

/// Element i of rank r's input.
double input(int r, std::size_t i) {
  return static_cast<double>(r + 1) + static_cast<double>(i % 7);
}

class bench {
 public:
  bench(const rmpl::communicator& w, double* sbuf, double* rbuf)
      : w_(w), rank_(w.rank()), size_(w.size()), sbuf_(sbuf), rbuf_(rbuf) {}

  /// One point; returns false if the result was wrong on some rank.
  bool run_point(op o, std::size_t bytes, double target) {
    // A clean output buffer, so a stale result cannot pass the check; the root's broadcast data.
    const bool blocks = o == op::allgather || o == op::alltoall;
    std::memset(rbuf_, 0, blocks ? bytes * static_cast<std::size_t>(size_) : bytes);
    if (o == op::broadcast && rank_ == 0) std::memcpy(rbuf_, sbuf_, bytes);

    // `n` operations back to back; the slowest rank's elapsed seconds (the same on every rank).
    auto batch = [&](long n) {
      const double t0 = rmpl::session::wtime();
      for (long i = 0; i < n; ++i) run_once(o, bytes);
      return rmpl_bench::max_over_ranks(w_, rmpl::session::wtime() - t0, tag_ctrl);
    };
    auto [iters, t] = rmpl_bench::calibrated(batch, target);  // at least 2 operations
    // A slow calibration batch (a first touch, a descheduled rank) makes the measured one short:
    // size it again from what it took, a few times at most.
    for (int again = 0; again < max_resizes && t < target / 2; ++again) {
      iters = static_cast<long>(static_cast<double>(iters) * target / t);
      t = batch(iters);
    }

    const bool bad = rmpl_bench::max_over_ranks(w_, check(o, bytes) ? 0.0 : 1.0, tag_ctrl) != 0.0;
    if (rank_ == 0) {
      const std::size_t shown = o == op::barrier ? 0 : bytes;
      const char* name = op_names[static_cast<std::size_t>(o)];
      if (bad)
        std::printf("check_failed,%s,%d,%zu\n", name, size_, shown);
      else
        std::printf("collective,%s,%d,%zu,%ld,time_us,%.4f\n", name, size_, shown, iters,
                    t / static_cast<double>(iters) * 1e6);
      std::fflush(stdout);
    }
    return !bad;
  }

 private:
  void run_once(op o, std::size_t bytes) const {
    const std::size_t elems = bytes / sizeof(double);
    const auto n = static_cast<std::size_t>(size_);
    const std::span<const double> in(sbuf_, elems);
    const std::span<double> out(rbuf_, elems);
    switch (o) {
      case op::barrier:
        w_.barrier();
        break;
      case op::broadcast:
        w_.broadcast(std::as_writable_bytes(out), 0);
        break;
      case op::reduce:
        w_.reduce(in, out, rmpl::ops::sum{}, 0);
        break;
      case op::allreduce:
        w_.allreduce(in, out, rmpl::ops::sum{});
        break;
      case op::allgather:
        w_.allgather(std::as_bytes(in), std::as_writable_bytes(std::span(rbuf_, n * elems)));
        break;
      case op::alltoall:
        w_.alltoall(std::as_bytes(std::span<const double>(sbuf_, n * elems)),
                    std::as_writable_bytes(std::span(rbuf_, n * elems)));
        break;
    }
  }

  bool expect(const double* block, std::size_t elems, std::size_t first_index, int from_rank,
              bool summed) const {
    for (const std::size_t k : {std::size_t{0}, elems - 1}) {
      const std::size_t i = first_index + k;
      const double want = summed ? static_cast<double>(size_) * (size_ + 1) / 2 +
                                       static_cast<double>(size_) * static_cast<double>(i % 7)
                                 : input(from_rank, i);
      if (block[k] != want) return false;
    }
    return true;
  }

  /// This rank's result of the last operation is right.
  bool check(op o, std::size_t bytes) const {
    const std::size_t e = bytes / sizeof(double);  // elements per block
    bool ok = true;
    switch (o) {
      case op::barrier:
        break;
      case op::broadcast:
        ok = expect(rbuf_, e, 0, 0, false);
        break;
      case op::reduce:
        ok = rank_ != 0 || expect(rbuf_, e, 0, 0, true);
        break;
      case op::allreduce:
        ok = expect(rbuf_, e, 0, 0, true);
        break;
      case op::allgather:
        for (int j = 0; j < size_; ++j)
          ok = ok && expect(rbuf_ + static_cast<std::size_t>(j) * e, e, 0, j, false);
        break;
      case op::alltoall:
        for (int j = 0; j < size_; ++j)
          ok = ok && expect(rbuf_ + static_cast<std::size_t>(j) * e, e,
                            static_cast<std::size_t>(rank_) * e, j, false);
        break;
    }
    return ok;
  }

  rmpl::communicator w_;
  int rank_;
  int size_;
  double* sbuf_;  // input: element i of rank r is r + 1 + i % 7 (never written)
  double* rbuf_;  // output (and broadcast's buffer)
};

/// --ops (names from op_names) and --sizes taken out of argv; the rest is left for target_seconds.
struct selection {
  std::vector<op> ops = {op::barrier,   op::broadcast, op::reduce,
                         op::allreduce, op::allgather, op::alltoall};
  std::vector<std::size_t> sizes{default_sizes.begin(), default_sizes.end()};
  bool all_sizes = true;
};

std::optional<selection> select_points(int& argc, char** argv) {
  selection sel;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--sizes" && i + 1 < argc) {
      auto parsed = rmpl_bench::parse_sizes(argv[++i], max_block);
      if (!parsed || parsed->front() < sizeof(double)) return std::nullopt;
      sel.sizes = *parsed;
      sel.all_sizes = false;
    } else if (arg == "--ops" && i + 1 < argc) {
      sel.ops.clear();
      std::string_view list = argv[++i];
      for (;;) {
        const std::string_view name = list.substr(0, list.find(','));
        const auto* it = std::find(op_names.begin(), op_names.end(), name);
        if (it == op_names.end()) return std::nullopt;
        sel.ops.push_back(static_cast<op>(it - op_names.begin()));
        if (name.size() == list.size()) break;
        list.remove_prefix(name.size() + 1);
      }
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  return sel;
}

int run(int argc, char** argv) {
  rmpl::session s;
  const auto w = s.world();
  const int rank = w.rank();
  const int size = w.size();
  const std::optional<selection> sel = select_points(argc, argv);
  const std::optional<double> chosen =
      sel ? rmpl_bench::target_seconds(argc, argv) : std::optional<double>();
  if (!chosen) {
    if (rank == 0)
      std::fprintf(stderr,
                   "usage: %s [--quick] [--time seconds-per-point] [--ops barrier,broadcast,...] "
                   "[--sizes 8,1024,...]\n",
                   argv[0]);
    return 2;
  }
  const double target = *chosen;

  std::size_t cap = sel->sizes.back() * static_cast<std::size_t>(size);
  if (cap < big_allreduce) cap = big_allreduce;
  const buffer sbuf = make_buffer(cap);
  const buffer rbuf = make_buffer(cap);
  for (std::size_t i = 0; i < cap / sizeof(double); ++i) sbuf[i] = input(rank, i);
  bench b(w, sbuf.get(), rbuf.get());

  if (rank == 0) {
    std::printf("# collectives (rmpl C++ API), %d ranks, %.3f s per point\n", size, target);
    std::printf(
        "# time_us = max over ranks of each rank's mean time per operation (back to back, no "
        "barrier)\n");
    std::fflush(stdout);
  }
  bool ok = true;
  for (const op o : sel->ops) {
    if (o == op::barrier) {
      ok = b.run_point(o, 8, target) && ok;
      continue;
    }
    for (const std::size_t bytes : sel->sizes) ok = b.run_point(o, bytes, target) && ok;
  }
  const bool with_big =
      std::find(sel->ops.begin(), sel->ops.end(), op::allreduce) != sel->ops.end();
  if (size == 2 && sel->all_sizes && with_big)
    ok = b.run_point(op::allreduce, big_allreduce, target) && ok;
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rmpl-bench-collectives: %s\n", e.what());
    return 1;
  }
}
