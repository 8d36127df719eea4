// The stress program's schedule: which messages every rank sends in every round, as a pure function
// of the seed. Every rank computes every rank's list, so a receiver knows exactly what is coming to
// it (source, order, tag, size) without asking anyone: the receive plan and the verification need
// no central oracle, only this shared function.
//
// A round of `batch` messages per rank: each message has a random destination (itself included), a
// tag (mostly from a small set, so tag matching has something to choose between; sometimes any tag
// up to tag_ub), a size from the distribution below, a send mode and blocking or not. A rank sends
// its list in order: the "early" messages (nonblocking ones, and buffered blocking sends, which
// complete locally) before the round's barrier, the "late" ones (blocking standard, synchronous and
// ready sends, every ready send, and a random share of the others) after it, when every receiver
// has posted every receive of the round (ready sends need that; blocking sends then cannot
// deadlock).
//
// Size distribution (max = --max-size, 4 MiB by default; every class is clipped to max):
//   2 %    0 B
//   50 %   1 .. 64 B, uniform           (inline cells and just past them)
//   42.5 % 65 B .. 16 KiB, log-uniform  (eager slots)
//   5 %    16 KiB .. 256 KiB, log-uniform (rendezvous)
//   0.5 %  256 KiB .. max, log-uniform, a tenth of them exactly max (rendezvous with assist)
// Mean about 12 KiB: a million messages move about 12 GB.
#pragma once

#include <rmpl/rmpl.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace stress {

/// splitmix64's finaliser: a 64-bit bijection that scatters every input bit.
inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
inline std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  return mix64(a ^ mix64(b + 0x632BE59BD9B4E019ull));
}

/// A small deterministic generator (splitmix64): the same seed gives the same stream on every rank.
class rng {
 public:
  explicit rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    state_ += 0x9E3779B97F4A7C15ull;
    return mix64(state_);
  }
  /// Uniform in [0, n) (n > 0; the modulo bias is irrelevant here).
  std::uint64_t below(std::uint64_t n) { return next() % n; }
  /// Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  bool chance(double p) { return unit() < p; }

 private:
  std::uint64_t state_;
};

struct options {
  std::uint64_t messages = 1'000'000;  ///< in total, over all ranks
  std::size_t max_size = std::size_t{4} << 20;
  std::uint64_t seed = 1;
  int batch = 64;  ///< messages per rank per round
  int tags = 8;    ///< the small tag set most messages draw from
  /// A rank's buffered sends in one round stay under this (larger ones become standard sends), so
  /// the attached buffer (4 times this) holds every round that can be in flight at once.
  std::size_t bsend_round_cap = std::size_t{32} << 20;
};

struct message {
  int dest = 0;
  int tag = 0;
  std::size_t size = 0;
  rmpl::send_mode mode = rmpl::send_mode::standard;
  bool blocking = false;
  bool late = false;      ///< sent after the round's barrier
  std::uint64_t seq = 0;  ///< per (source, dest) pair over the whole run: names the contents
};

inline std::size_t log_uniform(rng& r, std::size_t lo, std::size_t hi) {
  const double l = std::log(static_cast<double>(lo)), h = std::log(static_cast<double>(hi));
  const auto v = static_cast<std::size_t>(std::exp(l + r.unit() * (h - l)));
  return std::clamp(v, lo, hi);
}

/// A size from the distribution above.
inline std::size_t draw_size(rng& r, std::size_t max) {
  const double u = r.unit();
  std::size_t s;
  if (u < 0.02) {
    s = 0;
  } else if (u < 0.52) {
    s = 1 + r.below(64);
  } else if (u < 0.945) {
    s = log_uniform(r, 65, 16384);
  } else if (u < 0.995) {
    s = log_uniform(r, 16385, 262144);
  } else {
    s = max > 262145 && !r.chance(0.1) ? log_uniform(r, 262145, max) : max;
  }
  return std::min(s, max);
}

/// How many messages `source` sends in `round`: `batch`, except at the end of the run.
inline int round_count(const options& o, int ranks, std::uint64_t round, int source) {
  const std::uint64_t per_round = static_cast<std::uint64_t>(ranks) * o.batch;
  const std::uint64_t first = round * per_round + static_cast<std::uint64_t>(source) * o.batch;
  if (first >= o.messages) return 0;
  return static_cast<int>(std::min<std::uint64_t>(o.batch, o.messages - first));
}

inline std::uint64_t round_total(const options& o, int ranks) {
  const std::uint64_t per_round = static_cast<std::uint64_t>(ranks) * o.batch;
  return (o.messages + per_round - 1) / per_round;
}

/// `source`'s messages of `round`, in the order it sends them (early ones first). Sequence numbers
/// are left at 0: the caller numbers them per pair (see number_round).
inline std::vector<message> round_sends(const options& o, int ranks, std::uint64_t round,
                                        int source) {
  rng r(mix(mix(o.seed, round), static_cast<std::uint64_t>(source)));
  const int count = round_count(o, ranks, round, source);
  std::vector<message> out(static_cast<std::size_t>(count));
  std::size_t bsend_bytes = 0;
  for (message& m : out) {
    m.dest = static_cast<int>(r.below(static_cast<std::uint64_t>(ranks)));
    m.tag = r.chance(0.9) ? static_cast<int>(r.below(static_cast<std::uint64_t>(o.tags)))
                          : static_cast<int>(r.below(std::uint64_t{rmpl::tag_ub} + 1));
    m.size = draw_size(r, o.max_size);
    m.mode = static_cast<rmpl::send_mode>(r.below(4));
    m.blocking = r.chance(0.5);
    if (m.mode == rmpl::send_mode::buffered) {
      if (bsend_bytes + m.size > o.bsend_round_cap) {
        m.mode = rmpl::send_mode::standard;
      } else {
        bsend_bytes += m.size;
      }
    }
    // Blocking sends that may wait for the receiver, and ready sends, go after the barrier.
    const bool local = !m.blocking || m.mode == rmpl::send_mode::buffered;
    m.late = !local || m.mode == rmpl::send_mode::ready || r.chance(0.3);
  }
  std::stable_partition(out.begin(), out.end(), [](const message& m) { return !m.late; });
  return out;
}

/// Every rank's sends of one round, numbered: next_seq[source * ranks + dest] is the pair's next
/// sequence number and advances.
inline std::vector<std::vector<message>> number_round(const options& o, int ranks,
                                                      std::uint64_t round,
                                                      std::vector<std::uint64_t>& next_seq) {
  std::vector<std::vector<message>> all(static_cast<std::size_t>(ranks));
  for (int s = 0; s < ranks; ++s) {
    all[static_cast<std::size_t>(s)] = round_sends(o, ranks, round, s);
    for (message& m : all[static_cast<std::size_t>(s)]) {
      m.seq = next_seq[static_cast<std::size_t>(s) * static_cast<std::size_t>(ranks) +
                       static_cast<std::size_t>(m.dest)]++;
    }
  }
  return all;
}

}  // namespace stress
