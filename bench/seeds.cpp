// The seed papers' cases with rmpl's C++ API. bench/mpi/seeds.c is the same logic against the MPI C
// API, step for step, so rmpl native, rmpl's MPI layer, Open MPI and MPICH do the same work.
//
// Cases, each at every size (8 B, then the powers of 4 up to 16 MiB; --sizes replaces them). The
// flavour is the sender's: `sync` = ssend (the seeds' synchronous send), `async` = isend of
// everything of one operation, then wait_all. Receivers post irecv for every message they expect in
// one operation, then wait_all, unless said otherwise.
//   - latency: ranks 0 and 1 ping-pong (sync: ssend + recv, async: send + recv); time_s = round
//     trip / 2. Other ranks idle.
//   - onetoall: rank 0 sends to ranks 1..P-1 in rank order; MBps = (P-1) * bytes / time.
//   - alltoone: ranks 1..P-1 send to rank 0; MBps = (P-1) * bytes / time.
//   - alltoall: every rank sends to every other. sync: step k = 1..P-1 posts the receive from
//     r-k, ssends to r+k, waits for the receive (blocking sends in rank order would deadlock);
//     async: irecv all, isend all (to r+1, r+2, ...), wait_all. MBps = P * (P-1) * bytes / time.
//   - broadcast: broadcast from root 0; time_s. Flavour coll.
//   - reduce: reduce with rmpl::ops::sum of bytes/8 doubles (at least 1) to root 0; time_s.
//     Flavour coll.
//   - anysource: param k = 1..P-1 senders (ranks 1..k) send one message each per operation; rank
//     0 takes them with blocking recv from rmpl::any_source (as MPIN's test); time_s = time per
//     received message. Sizes 8, 1 KiB and 64 KiB (or those of --sizes).
//   - stream: rank 0 sends a window of param = W messages to rank 1 (isend, sync: issend, x W +
//     wait_all), rank 1 takes them (irecv x W, each into its own buffer, + wait_all) and sends a
//     0-byte ack, which rank 0 waits for; MBps = W * bytes / time per window. W = 64, fewer beyond
//     1 MiB so that a window's buffers stay within 64 MiB (4 at 16 MiB). Other ranks idle.
// Per point:
//   - calibration (also the warm-up, rmpl_bench::calibrated): every rank runs batches of 1, 2, 4,
//     ... operations back to back; after each batch the ranks agree (through rank 0, point to
//     point, untimed) on the slowest rank's elapsed time, until a batch takes a tenth of the target
//     time (0.05 s; 0.01 s with --quick); the measured batch is then sized to take the target time
//     (at least 2 operations), and sized again (up to 3 times) while it took less than half the
//     target;
//   - the figure comes from the measured batch's time per operation (the slowest rank's);
//   - untimed, a check of the last operation's data: the first and last byte of every received
//     message (a pattern of sender, byte index and case; buffers are zeroed before each point),
//     and for reduce the first and last sum.
// Rank 0 prints one CSV line per point (and nothing else on stdout):
//   seeds,<case>,<flavour>,<ranks>,<param>,<bytes>,<operations timed>,MBps|time_s,<value>
// or, when the check failed on some rank:  check_failed,<case>,<flavour>,<ranks>,<param>,<bytes>
// MBps is 10^6 bytes of payload delivered per second.
//
//   rmplrun -n 4 rmpl-bench-seeds [--quick] [--time S] [--sizes 8,1024,...] [--cases latency,...]
// With one rank nothing runs. Exit status: 0, 1 if a check failed, 2 on a bad option.
#include <rmpl/rmpl.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <climits>
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

enum tags : int { tag_ctrl = 1, tag_data = 2, tag_ack = 3 };
// Declared in the order the points run; the values also enter the data pattern (as in seeds.c).
enum class kase { latency, onetoall, alltoone, alltoall, broadcast, reduce, anysource, stream };
enum class flavour { sync, async, coll };

constexpr std::array<kase, 8> all_cases = {kase::latency,   kase::onetoall,  kase::alltoone,
                                           kase::alltoall,  kase::broadcast, kase::reduce,
                                           kase::anysource, kase::stream};
constexpr std::array<const char*, 8> case_names = {"latency",   "onetoall", "alltoone",  "alltoall",
                                                   "broadcast", "reduce",   "anysource", "stream"};
constexpr std::array<const char*, 3> flavour_names = {"sync", "async", "coll"};
constexpr std::array<std::size_t, 12> default_sizes = {8,
                                                       16,
                                                       64,
                                                       256,
                                                       1024,
                                                       4 * 1024,
                                                       16 * 1024,
                                                       64 * 1024,
                                                       256 * 1024,
                                                       1024 * 1024,
                                                       4 * 1024 * 1024,
                                                       16 * 1024 * 1024};
constexpr std::array<std::size_t, 3> anysource_sizes = {8, 1024, 64 * 1024};
constexpr int window = 64;
constexpr std::size_t stream_area = std::size_t{64} * 1024 * 1024;  // rank 1's window buffers
constexpr int max_resizes = 3;

const char* name(kase c) {
  return case_names[static_cast<std::size_t>(c)];
}
const char* name(flavour f) {
  return flavour_names[static_cast<std::size_t>(f)];
}

/// Byte i of what rank `sender` sends in case c: never 0, so a zeroed buffer never passes.
unsigned char pattern(int sender, std::size_t i, kase c) {
  return static_cast<unsigned char>(
      1 + (static_cast<std::size_t>(sender) * 37 + static_cast<std::size_t>(c) * 11 + i * 7) % 255);
}

/// Element i of rank r's reduce input.
double reduce_input(int r, std::size_t i) {
  return static_cast<double>(r + 1) + static_cast<double>(i % 7);
}

std::size_t reduce_elems(std::size_t bytes) {
  return bytes / 8 > 0 ? bytes / 8 : 1;
}

/// The stream window for `bytes`: 64 messages, fewer when 64 would take more than 64 MiB (each
/// pending receive needs its own buffer: overlapping ones are erroneous).
int stream_window(std::size_t bytes) {
  if (bytes == 0 || bytes * window <= stream_area) return window;
  return static_cast<int>(std::max<std::size_t>(stream_area / bytes, 1));
}

struct free_deleter {
  void operator()(void* p) const noexcept { std::free(p); }
};
using buffer = std::unique_ptr<void, free_deleter>;

buffer make_buffer(std::size_t bytes) {
  // aligned_alloc wants a multiple of the alignment. Untouched pages stay unmapped, so a rank's
  // resident memory is what its part needs (e.g. (P-1) * 16 MiB for alltoall).
  const std::size_t rounded = (std::max<std::size_t>(bytes, 1) + 4095) / 4096 * 4096;
  void* p = std::aligned_alloc(4096, rounded);
  if (p == nullptr) throw std::bad_alloc();
  return buffer(p);
}

class bench {
 public:
  bench(const rmpl::communicator& w, void* sbuf, void* rbuf)
      : w_(w),
        rank_(w.rank()),
        size_(w.size()),
        sbuf_(static_cast<std::byte*>(sbuf)),
        rbuf_(static_cast<std::byte*>(rbuf)),
        reqs_(static_cast<std::size_t>(2 * size_ + window)),
        sources_(static_cast<std::size_t>(size_)) {}

  /// Fills this rank's outgoing data for case c (`bytes` of it).
  void fill(kase c, std::size_t bytes) {
    if (c == kase::reduce) {
      auto* in = reinterpret_cast<double*>(sbuf_);
      for (std::size_t i = 0; i < reduce_elems(bytes); ++i) in[i] = reduce_input(rank_, i);
    } else {
      auto* out = reinterpret_cast<unsigned char*>(sbuf_);
      for (std::size_t i = 0; i < bytes; ++i) out[i] = pattern(rank_, i, c);
    }
  }

  /// One point; returns false if the data was wrong on some rank.
  bool run_point(kase c, flavour f, int param, std::size_t bytes, double target) {
    // A clean receive area, so a stale message cannot pass the check.
    std::memset(rbuf_, 0, recv_extent(c, param, bytes));

    // `n` operations back to back; the slowest rank's elapsed seconds (the same on every rank).
    auto batch = [&](long n) {
      const double t0 = rmpl::session::wtime();
      for (long i = 0; i < n; ++i) run_once(c, f, param, bytes);
      return rmpl_bench::max_over_ranks(w_, rmpl::session::wtime() - t0, tag_ctrl);
    };
    auto [iters, t] = rmpl_bench::calibrated(batch, target);  // at least 2 operations
    // A slow calibration batch (a first touch, a descheduled rank) makes the measured one short:
    // size it again from what it took, a few times at most, growing at most 8x a time (as
    // bench/mpi/seeds.c, where an oversubscribed peer's small batches run far faster per
    // operation than large ones).
    for (int again = 0; again < max_resizes && t < target / 2; ++again) {
      iters = std::min(static_cast<long>(static_cast<double>(iters) * target / t), 8 * iters);
      t = batch(iters);
    }

    const bool bad =
        rmpl_bench::max_over_ranks(w_, check(c, param, bytes) ? 0.0 : 1.0, tag_ctrl) != 0.0;
    if (rank_ == 0) {
      if (bad) {
        std::printf("check_failed,%s,%s,%d,%d,%zu\n", name(c), name(f), size_, param, bytes);
      } else {
        const char* metric = nullptr;
        const double v = figure(c, param, bytes, t / static_cast<double>(iters), &metric);
        std::printf("seeds,%s,%s,%d,%d,%zu,%ld,%s,%.6g\n", name(c), name(f), size_, param, bytes,
                    iters, metric, v);
      }
      std::fflush(stdout);
    }
    return !bad;
  }

 private:
  std::span<const std::byte> out(std::size_t bytes) const { return {sbuf_, bytes}; }
  /// Receive slot j of `bytes`.
  std::span<std::byte> in(std::size_t j, std::size_t bytes) const {
    return {rbuf_ + j * bytes, bytes};
  }

  void wait_all(int n) { rmpl::wait_all(std::span(reqs_.data(), static_cast<std::size_t>(n))); }

  /// A blocking send of the flavour: ssend (sync) or one isend + wait_all (async).
  void send_one(flavour f, std::size_t bytes, int dest) {
    if (f == flavour::sync) {
      w_.ssend(out(bytes), dest, tag_data);
    } else {
      reqs_[0] = w_.isend(out(bytes), dest, tag_data);
      wait_all(1);
    }
  }

  /// One operation of the case; ranks that take no part return at once.
  void run_once(kase c, flavour f, int param, std::size_t bytes) {
    const int p = size_;
    switch (c) {
      case kase::latency:
        if (rank_ == 0) {
          if (f == flavour::sync)
            w_.ssend(out(bytes), 1, tag_data);
          else
            w_.send(out(bytes), 1, tag_data);
          w_.recv(in(0, bytes), 1, tag_data);
        } else if (rank_ == 1) {
          w_.recv(in(0, bytes), 0, tag_data);
          if (f == flavour::sync)
            w_.ssend(out(bytes), 0, tag_data);
          else
            w_.send(out(bytes), 0, tag_data);
        }
        break;
      case kase::onetoall:
        if (rank_ == 0) {
          if (f == flavour::sync) {
            for (int d = 1; d < p; ++d) w_.ssend(out(bytes), d, tag_data);
          } else {
            for (int d = 1; d < p; ++d) reqs_[d - 1] = w_.isend(out(bytes), d, tag_data);
            wait_all(p - 1);
          }
        } else {
          reqs_[0] = w_.irecv(in(0, bytes), 0, tag_data);
          wait_all(1);
        }
        break;
      case kase::alltoone:
        if (rank_ == 0) {
          for (int s = 1; s < p; ++s) reqs_[s - 1] = w_.irecv(in(s - 1, bytes), s, tag_data);
          wait_all(p - 1);
        } else {
          send_one(f, bytes, 0);
        }
        break;
      case kase::alltoall:
        // Step k receives from r-k into slot k-1 and sends to r+k.
        if (f == flavour::sync) {
          for (int k = 1; k < p; ++k) {
            reqs_[0] = w_.irecv(in(k - 1, bytes), (rank_ - k + p) % p, tag_data);
            w_.ssend(out(bytes), (rank_ + k) % p, tag_data);
            reqs_[0].wait();
          }
        } else {
          for (int k = 1; k < p; ++k)
            reqs_[k - 1] = w_.irecv(in(k - 1, bytes), (rank_ - k + p) % p, tag_data);
          for (int k = 1; k < p; ++k)
            reqs_[p - 1 + k - 1] = w_.isend(out(bytes), (rank_ + k) % p, tag_data);
          wait_all(2 * (p - 1));
        }
        break;
      case kase::broadcast:
        w_.broadcast(std::span<std::byte>(rank_ == 0 ? sbuf_ : rbuf_, bytes), 0);
        break;
      case kase::reduce: {
        const std::size_t e = reduce_elems(bytes);
        w_.reduce(std::span<const double>(reinterpret_cast<const double*>(sbuf_), e),
                  std::span<double>(reinterpret_cast<double*>(rbuf_), e), rmpl::ops::sum{}, 0);
        break;
      }
      case kase::anysource:
        if (rank_ == 0) {
          for (int j = 0; j < param; ++j)
            sources_[static_cast<std::size_t>(j)] =
                w_.recv(in(static_cast<std::size_t>(j), bytes), rmpl::any_source, tag_data).source;
        } else if (rank_ <= param) {
          send_one(f, bytes, 0);
        }
        break;
      case kase::stream:
        if (rank_ == 0) {
          for (int j = 0; j < param; ++j)
            reqs_[j] = f == flavour::sync ? w_.issend(out(bytes), 1, tag_data)
                                          : w_.isend(out(bytes), 1, tag_data);
          wait_all(param);
          w_.recv(in(0, 0), 1, tag_ack);
        } else if (rank_ == 1) {
          for (int j = 0; j < param; ++j)
            reqs_[j] = w_.irecv(in(static_cast<std::size_t>(j), bytes), 0, tag_data);
          wait_all(param);
          w_.send(out(0), 0, tag_ack);
        }
        break;
    }
  }

  /// How many bytes of rbuf this rank receives into during one operation.
  std::size_t recv_extent(kase c, int param, std::size_t bytes) const {
    const auto others = static_cast<std::size_t>(size_ - 1);
    switch (c) {
      case kase::latency:
        return rank_ <= 1 ? bytes : 0;
      case kase::onetoall:
      case kase::broadcast:
        return rank_ != 0 ? bytes : 0;
      case kase::alltoone:
        return rank_ == 0 ? others * bytes : 0;
      case kase::alltoall:
        return others * bytes;
      case kase::reduce:
        return rank_ == 0 ? reduce_elems(bytes) * 8 : 0;
      case kase::anysource:
        return rank_ == 0 ? static_cast<std::size_t>(param) * bytes : 0;
      case kase::stream:
        return rank_ == 1 ? static_cast<std::size_t>(stream_window(bytes)) * bytes : 0;
    }
    return 0;
  }

  /// The first and last byte of a message from `sender` in slot j.
  bool message_ok(std::size_t j, std::size_t bytes, int sender, kase c) const {
    if (bytes == 0) return true;
    const auto* m = reinterpret_cast<const unsigned char*>(rbuf_ + j * bytes);
    return m[0] == pattern(sender, 0, c) && m[bytes - 1] == pattern(sender, bytes - 1, c);
  }

  /// What this rank received in the last operation is right.
  bool check(kase c, int param, std::size_t bytes) const {
    const int p = size_;
    bool ok = true;
    switch (c) {
      case kase::latency:
        if (rank_ <= 1) ok = message_ok(0, bytes, 1 - rank_, c);
        break;
      case kase::onetoall:
      case kase::broadcast:
        if (rank_ != 0) ok = message_ok(0, bytes, 0, c);
        break;
      case kase::alltoone:
        if (rank_ == 0)
          for (int s = 1; s < p; ++s)
            ok = message_ok(static_cast<std::size_t>(s - 1), bytes, s, c) && ok;
        break;
      case kase::alltoall:
        for (int k = 1; k < p; ++k)
          ok = message_ok(static_cast<std::size_t>(k - 1), bytes, (rank_ - k + p) % p, c) && ok;
        break;
      case kase::reduce:
        if (rank_ == 0) {
          const auto* sum = reinterpret_cast<const double*>(rbuf_);
          const std::size_t e = reduce_elems(bytes);
          for (const std::size_t i : {std::size_t{0}, e - 1})
            ok = ok && sum[i] == static_cast<double>(p) * (p + 1) / 2 +
                                     static_cast<double>(p) * static_cast<double>(i % 7);
        }
        break;
      case kase::anysource:
        // Which sender filled which slot is up to the library: check each against its status.
        if (rank_ == 0)
          for (int j = 0; j < param; ++j) {
            const int s = sources_[static_cast<std::size_t>(j)];
            ok = s >= 1 && s <= param && message_ok(static_cast<std::size_t>(j), bytes, s, c) && ok;
          }
        break;
      case kase::stream:
        if (rank_ == 1)
          for (int j = 0; j < param; ++j)
            ok = message_ok(static_cast<std::size_t>(j), bytes, 0, c) && ok;
        break;
    }
    return ok;
  }

  /// The figure of a point from its seconds per operation; sets *metric.
  double figure(kase c, int param, std::size_t bytes, double per_op, const char** metric) const {
    const auto p = static_cast<double>(size_);
    const auto b = static_cast<double>(bytes);
    *metric = "MBps";
    switch (c) {
      case kase::latency:
        *metric = "time_s";
        return per_op / 2;
      case kase::onetoall:
      case kase::alltoone:
        return (p - 1) * b / per_op / 1e6;
      case kase::alltoall:
        return p * (p - 1) * b / per_op / 1e6;
      case kase::anysource:
        *metric = "time_s";
        return per_op / param;
      case kase::stream:
        return param * b / per_op / 1e6;
      case kase::broadcast:
      case kase::reduce:
        break;
    }
    *metric = "time_s";
    return per_op;
  }

  rmpl::communicator w_;
  int rank_;
  int size_;
  std::byte* sbuf_;  // this rank's outgoing data (doubles for reduce), never received into
  std::byte* rbuf_;  // incoming messages, one slot of `bytes` each
  std::vector<rmpl::request> reqs_;
  std::vector<int> sources_;  // anysource: the sender of each slot in the last operation
};

struct options {
  double target = 0.05;
  std::vector<std::size_t> sizes{default_sizes.begin(), default_sizes.end()};
  bool sizes_given = false;
  std::array<bool, 8> chosen{true, true, true, true, true, true, true, true};
};

/// "latency,stream" as the chosen cases; false on an unknown name.
bool parse_cases(std::string_view s, std::array<bool, 8>& chosen) {
  chosen.fill(false);
  while (!s.empty()) {
    const std::size_t len = std::min(s.find(','), s.size());
    const std::string_view one = s.substr(0, len);
    bool found = false;
    for (std::size_t c = 0; c < case_names.size(); ++c)
      if (one == case_names[c]) found = chosen[c] = true;
    if (!found) return false;
    s.remove_prefix(len);
    if (!s.empty()) s.remove_prefix(1);
  }
  return true;
}

std::optional<options> parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--quick") {
      o.target = 0.01;
    } else if (arg == "--time" && has_value) {
      o.target = std::atof(argv[++i]);
      if (!(o.target > 0)) return std::nullopt;
    } else if (arg == "--sizes" && has_value) {
      // At most an int count: seeds.c's limit, which MPI's counts set.
      auto sizes = rmpl_bench::parse_sizes(argv[++i], INT_MAX);
      if (!sizes) return std::nullopt;
      o.sizes = std::move(*sizes);
      o.sizes_given = true;
    } else if (arg == "--cases" && has_value) {
      if (!parse_cases(argv[++i], o.chosen)) return std::nullopt;
    } else {
      return std::nullopt;
    }
  }
  return o;
}

int run(int argc, char** argv) {
  rmpl::session s;
  const auto w = s.world();
  const int rank = w.rank();
  const int size = w.size();
  const std::optional<options> parsed = parse(argc, argv);
  if (!parsed) {
    if (rank == 0)
      std::fprintf(
          stderr,
          "usage: %s [--quick] [--time seconds-per-point] [--sizes bytes,...] "
          "[--cases latency,onetoall,alltoone,alltoall,broadcast,reduce,anysource,stream]\n",
          argv[0]);
    return 2;
  }
  const options& o = *parsed;
  if (size < 2) return 0;  // every case needs a peer

  const std::vector<std::size_t> any_sizes =
      o.sizes_given ? o.sizes
                    : std::vector<std::size_t>(anysource_sizes.begin(), anysource_sizes.end());
  const auto others = static_cast<std::size_t>(size - 1);
  std::size_t send_cap = 8;  // reduce sends at least one double
  std::size_t recv_cap = 8;
  for (const std::size_t b : o.sizes)
    recv_cap = std::max({recv_cap, others * b, static_cast<std::size_t>(stream_window(b)) * b});
  for (const std::size_t b : any_sizes) recv_cap = std::max(recv_cap, others * b);
  for (const auto* list : {&o.sizes, &any_sizes})
    for (const std::size_t b : *list) send_cap = std::max(send_cap, b);
  const buffer sbuf = make_buffer(send_cap);
  const buffer rbuf = make_buffer(recv_cap);
  bench b(w, sbuf.get(), rbuf.get());

  bool ok = true;
  for (const kase c : all_cases) {
    if (!o.chosen[static_cast<std::size_t>(c)]) continue;
    b.fill(c, send_cap);
    const bool coll = c == kase::broadcast || c == kase::reduce;
    const std::vector<flavour> flavours =
        coll ? std::vector{flavour::coll} : std::vector{flavour::sync, flavour::async};
    for (const flavour f : flavours) {
      if (c == kase::anysource) {
        for (int senders = 1; senders < size; ++senders)
          for (const std::size_t bytes : any_sizes)
            ok = b.run_point(c, f, senders, bytes, o.target) && ok;
      } else {
        for (const std::size_t bytes : o.sizes)
          ok = b.run_point(c, f, c == kase::stream ? stream_window(bytes) : 0, bytes, o.target) &&
               ok;
      }
    }
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rmpl-bench-seeds: %s\n", e.what());
    return 1;
  }
}
