// Raw put reference: what the fabric layer alone delivers between ranks, with no matching, no
// protocol and no library above it (the seed paper's SHMEM curve). Run with rmplrun; it creates a
// fabric::shm::domain and nothing else, so rmpl's engine never starts and this program is the only
// user of the job segment.
//
// Mechanism: every directed pair src -> dst already owns a region of dst's part of the segment, the
// pair's bounce chunks (p().bounce_chunks chunks of p().bounce_chunk_bytes, 4 x 64 KiB by default,
// each with its own state word: 0 free, otherwise 1 + bytes in it). A message goes as a ring of
// chunk puts on its pair: the sender waits for the next chunk to be free, memcpy()s up to a chunk's
// worth of its bytes into it, publishes the state word with a release store and notify(dst)s. The
// receiver waits for the state word (acquire), memcpy()s the bytes out into its private buffer
// (that second copy is what a receive would do: a put into the segment alone does not deliver
// into the user's memory), then acknowledges by storing 0 (release) and notify(src)s, so the chunk
// can be reused. Every message starts in a fresh chunk. Larger messages are pipelined through the
// pair's chunks: the sender fills the next chunk while the receiver empties the previous one.
// Because every sender has its own region of every receiver's area, all-to-one and all-to-all need
// no turns: a rank simply progresses all of one operation's sends and receives in one loop (sends
// in the order of the MPI version, (r+k)%P for alltoall) until every one is done. Waiting is rmpl's
// engine's: spin (RMPL_SPIN polls, 20000, or 32 when ranks outnumber cores), yielding on every
// empty poll when oversubscribed (RMPL_YIELD), then sleep on the doorbell (prepare_sleep, a last
// look, sleep).
//
// Flavours: `put`, the above (the asynchronous send's floor: a sender puts as soon as a chunk is
// free and is done once its last chunk is put), and two synchronous ones, which add the one thing
// any synchronous send (MPI_Ssend) must wait for: it cannot complete before its receive is posted.
// Per directed pair src -> dst the receiver publishes a count of the receives from src it has
// posted (it bumps it, release, and notify(src)s when an operation's receive from src starts); the
// sender's n-th synchronous message to dst waits (acquire) for that count to reach n:
//   put_sync       the same puts at once, the send done only once the count has reached n: the
//                  floor of a synchronous send (the data may travel before the receive is posted,
//                  as an eager message with an acknowledgement does; only completion must wait);
//   put_sync_post  the first chunk put only once the count has reached n, done when put (as
//                  rmpl's synchronous send that found a ready notice). Not a floor: in a loop of
//                  operations it costs a round trip per operation where put_sync overlaps the
//                  next message with the wait (1 KiB, 8 ranks: one-to-all and all-to-one 1.9-2.2x,
//                  all-to-all 1.3x less throughput); only with --flavours.
// `put` bounds an asynchronous send only as far as 4 messages in flight per pair do (one message a
// chunk): with 8 ranks on 2 cores a library whose eager pool holds more lets one-to-all's sender
// run further ahead and passes it (rmpl, 1 KiB: ~2200 against ~1500 MB/s; with
// RMPL_BOUNCE_CHUNKS=32 RMPL_BOUNCE_CHUNK=4096 the raw put reaches ~4700). All-to-all does not move
// with the depth. The count lives in the pair's ring control word `head` (ring(dst, src).head, in
// dst's area, written by dst alone, as the engine's "cells consumed"): this program never uses the
// pair rings, so the word is free, the segment's layout stays as it is and all of the pair's bounce
// chunks still carry data (a reserved chunk would have shortened the synchronous flavours'
// pipeline, and so their large-message figures, against put's). The untimed agreement on batch
// times uses the asynchronous puts in every flavour.
//
// Cases (as bench/seeds.cpp): latency (ranks 0 and 1 ping-pong, time_s = round trip
// / 2), onetoall (rank 0 to each of 1..P-1), alltoone (1..P-1 to rank 0), alltoall (every rank to
// every other); MBps = payload delivered per operation / time per operation. Sizes 8 B, then the
// powers of 4 from 16 B to 16 MiB. Per point: calibration (also the warm-up) in batches of 1, 2, 4,
// ... operations until a batch takes a tenth of the target (0.05 s; 0.01 s with --quick; --time S),
// a batch sized to the target, sized again (up to 3 times) while it took under half; a batch's time
// is the slowest rank's, agreed through rank 0 over the same chunks (untimed). Then, untimed, every
// byte of every received message is checked against a pattern of sender, index and case. Rank 0
// prints, on stdout and nothing else:
//   seeds,<case>,<flavour>,<ranks>,0,<bytes>,<ops>,<metric>,<value>   or
//   check_failed,<case>,<flavour>,<ranks>,0,<bytes>
// for each case, size and flavour in that order (the two flavours of a point back to back, so that
// a drift of the machine hits both alike). Options: --quick, --time S, --sizes 8,1024,...,
// --cases latency,... (the seeds cases this program does not have, broadcast reduce anysource
// stream, are skipped so that one list serves every program), --flavours put,put_sync,put_sync_post
// (default put,put_sync). With one rank nothing runs. Exit status 1 when some check failed, 2 on a
// bad option.
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "base/config.hpp"
#include "fabric/shm/domain.hpp"
#include "runtime/local/job.hpp"
#include "timing.hpp"

namespace {

namespace shm = rmpl::fabric::shm;

enum class case_id { latency, onetoall, alltoone, alltoall };
constexpr const char* case_names[] = {"latency", "onetoall", "alltoone", "alltoall"};
// Cases of the seeds programs that have no raw-put version: accepted in --cases, skipped.
constexpr std::string_view other_seeds_cases[] = {"broadcast", "reduce", "anysource", "stream"};

enum class flavour_id { put, put_sync, put_sync_post };
constexpr const char* flavour_names[] = {"put", "put_sync", "put_sync_post"};

/// What a transfer waits for besides chunks (see the flavours above).
enum class sync_mode : std::uint8_t {
  none,             // put: a send is done when its last chunk is put
  done_after_post,  // put_sync: a send is done when put and its receive is posted
  put_after_post,   // put_sync_post: a send's first chunk waits for its receive to be posted
};

constexpr int max_resizes = 3;
constexpr long min_iterations = 2;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "rmpl-bench-raw-put: %s\n", what.c_str());
  std::exit(1);
}

// Byte i of a message from `sender` in case `c`. The higher bits of i take part so that a chunk
// landing at the wrong offset (a multiple of 64 KiB) is caught, not just a wrong byte.
inline unsigned char pattern(int sender, std::size_t i, int c) {
  return static_cast<unsigned char>(i + (i >> 8) * 3 + (i >> 16) * 5 + (i >> 24) * 7 +
                                    static_cast<std::size_t>(sender) * 37 +
                                    static_cast<std::size_t>(c) * 101 + 1);
}

/// One message of one operation: to `peer` (a send) or from it (a receive).
struct transfer {
  int peer;
  bool send;
  std::byte* buf;
  std::size_t bytes;
  std::size_t chunks;                // at least 1: a 0-byte message is one empty chunk
  sync_mode sync = sync_mode::none;  // a synchronous receive posts; a send waits for the post
  std::size_t next = 0;              // chunks moved so far
  std::uint64_t ready_at = 0;        // a sync send: the peer's posted-receive count it waits for
};

/// The pair channels of this rank over the domain's bounce chunks, and the one wait loop.
class channels {
 public:
  explicit channels(shm::domain& d)
      : d_(d),
        me_(d.rank()),
        nchunks_(d.p().bounce_chunks),
        chunk_(d.p().bounce_chunk_bytes),
        out_seq_(static_cast<std::size_t>(d.size()), 0),
        in_seq_(static_cast<std::size_t>(d.size()), 0),
        sync_sent_(static_cast<std::size_t>(d.size()), 0),
        sync_posted_(static_cast<std::size_t>(d.size()), 0) {
    spin_polls_ = static_cast<unsigned>(
        rmpl::base::env_size("RMPL_SPIN", d.oversubscribed() ? 32 : 20000, 0, 1u << 30));
    yield_ = rmpl::base::env_size("RMPL_YIELD", d.oversubscribed() ? 1 : 0, 0, 1) != 0;
  }

  transfer send(int peer, const std::byte* buf, std::size_t bytes,
                sync_mode sync = sync_mode::none) const {
    return {peer, true, const_cast<std::byte*>(buf), bytes, chunks_of(bytes), sync};
  }
  transfer recv(int peer, std::byte* buf, std::size_t bytes,
                sync_mode sync = sync_mode::none) const {
    return {peer, false, buf, bytes, chunks_of(bytes), sync};
  }

  /// Moves every transfer to completion. The synchronous receives are posted first, all of them
  /// (the operation's receives start together, as the MPI version's posted receives).
  void run(std::vector<transfer>& ts) {
    start(ts);
    unsigned idle = 0;
    for (;;) {
      bool finished = true;
      const bool moved = pass(ts, finished);
      if (finished) return;
      if (moved) {
        idle = 0;
        continue;
      }
      if (++idle < spin_polls_) {
        relax();
        continue;
      }
      const std::uint32_t bell = d_.job().prepare_sleep();
      finished = true;
      const bool moved_now = pass(ts, finished);  // anything published before prepare_sleep
      if (moved_now || finished) {
        d_.job().cancel_sleep();
        if (finished) return;
        idle = 0;
        continue;
      }
      if (d_.job().failed_rank() >= 0) {
        d_.job().cancel_sleep();
        die(d_.job().describe_death(d_.job().failed_rank()));
      }
      d_.job().sleep(bell, 100);
      idle = 0;
    }
  }

 private:
  // Posts this operation's synchronous receives (one fence, then the wake-ups, as
  // domain::wake_if_sleeping asks) and numbers its synchronous sends per peer.
  void start(std::vector<transfer>& ts) {
    bool posted = false;
    for (transfer& t : ts) {
      if (t.sync == sync_mode::none) continue;
      if (t.send) {
        t.ready_at = ++sync_sent_[t.peer];
      } else {
        // Release, paired with the sender's acquire, as every flag here: what this rank did
        // before posting (its acknowledgements of the pair's earlier chunks) is seen with it.
        d_.ring(me_, t.peer).head.store(++sync_posted_[t.peer], std::memory_order_release);
        posted = true;
      }
    }
    if (!posted) return;
    std::atomic_thread_fence(std::memory_order_seq_cst);
    for (const transfer& t : ts) {
      if (t.sync != sync_mode::none && !t.send) d_.wake_if_sleeping(t.peer);
    }
  }

  std::size_t chunks_of(std::size_t bytes) const {
    return bytes == 0 ? 1 : (bytes + chunk_ - 1) / chunk_;
  }

  void relax() const {
    if (yield_) {
      sched_yield();
      return;
    }
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }

  // One look at every unfinished transfer, moving as many chunks as are ready; true if any moved.
  bool pass(std::vector<transfer>& ts, bool& finished) {
    bool moved = false;
    for (transfer& t : ts) {
      while (t.next < t.chunks && (t.send ? push(t) : pull(t))) moved = true;
      if (t.next < t.chunks || (t.send && t.sync == sync_mode::done_after_post && !posted(t))) {
        finished = false;
      }
    }
    return moved;
  }

  // Whether the receive of synchronous send t is posted (acquire: pairs with start()'s release).
  bool posted(const transfer& t) const {
    return d_.ring(t.peer, me_).head.load(std::memory_order_acquire) >= t.ready_at;
  }

  bool push(transfer& t) {
    // put_sync_post: the first chunk waits for the receive to be posted; the rest follow it.
    if (t.sync == sync_mode::put_after_post && t.next == 0 && !posted(t)) return false;
    const auto i = static_cast<std::uint32_t>(out_seq_[t.peer] % nchunks_);
    shm::chunk_state& st = d_.bounce_states(t.peer, me_)[i];
    // Acquire: the receiver's copy out of this chunk is over before we overwrite it.
    if (st.filled.load(std::memory_order_acquire) != 0) return false;
    const std::size_t offset = t.next * chunk_;
    const std::size_t len = std::min(chunk_, t.bytes - std::min(offset, t.bytes));
    std::memcpy(d_.bounce_chunk(t.peer, me_, i), t.buf + offset, len);
    st.filled.store(static_cast<std::uint32_t>(len + 1), std::memory_order_release);
    d_.notify(t.peer);
    ++out_seq_[t.peer];
    ++t.next;
    return true;
  }

  bool pull(transfer& t) {
    const auto i = static_cast<std::uint32_t>(in_seq_[t.peer] % nchunks_);
    shm::chunk_state& st = d_.bounce_states(me_, t.peer)[i];
    const std::uint32_t filled = st.filled.load(std::memory_order_acquire);
    if (filled == 0) return false;
    const std::size_t offset = t.next * chunk_;
    const std::size_t len = std::min(chunk_, t.bytes - std::min(offset, t.bytes));
    // Both sides follow the same sequence of messages on a pair; a length that differs is a bug
    // here, never something to wait out.
    if (filled != len + 1) {
      die("rank " + std::to_string(me_) + " expected a chunk of " + std::to_string(len) +
          " bytes from rank " + std::to_string(t.peer) + " but found " +
          std::to_string(filled - 1));
    }
    std::memcpy(t.buf + offset, d_.bounce_chunk(me_, t.peer, i), len);
    st.filled.store(0, std::memory_order_release);  // the acknowledgement: the chunk is free
    d_.notify(t.peer);
    ++in_seq_[t.peer];
    ++t.next;
    return true;
  }

  shm::domain& d_;
  int me_;
  std::uint64_t nchunks_;
  std::size_t chunk_;
  std::vector<std::uint64_t> out_seq_;      // chunks put to each peer so far
  std::vector<std::uint64_t> in_seq_;       // chunks taken from each peer so far
  std::vector<std::uint64_t> sync_sent_;    // synchronous messages started to each peer so far
  std::vector<std::uint64_t> sync_posted_;  // synchronous receives posted from each peer so far
  unsigned spin_polls_ = 20000;
  bool yield_ = false;
};

class bench {
 public:
  bench(shm::domain& d, std::size_t max_bytes)
      : ch_(d),
        rank_(d.rank()),
        size_(d.size()),
        max_bytes_(max_bytes),
        sbuf_(std::max<std::size_t>(max_bytes, 1)),
        rbuf_(std::max<std::size_t>(max_bytes, 1) * static_cast<std::size_t>(size_ - 1)) {}

  /// Measures one point; false if some rank received wrong data.
  bool run_point(case_id c, flavour_id f, std::size_t bytes, double target) {
    // Untimed: this case's data, and a clean receive buffer so that a stale result cannot pass.
    for (std::size_t i = 0; i < bytes; ++i) {
      sbuf_[i] = static_cast<std::byte>(pattern(rank_, i, static_cast<int>(c)));
    }
    std::memset(rbuf_.data(), 0, rbuf_.size());
    build(c, bytes,
          f == flavour_id::put_sync        ? sync_mode::done_after_post
          : f == flavour_id::put_sync_post ? sync_mode::put_after_post
                                           : sync_mode::none);

    // Calibration and warm-up, as bench/mpi/collectives.c.
    long n = 1;
    double t = batch(n);
    while (t < target / 10) {
      n *= 2;
      t = batch(n);
    }
    long iterations = std::max(min_iterations, static_cast<long>(double(n) * target / t));
    t = batch(iterations);
    for (int again = 0; again < max_resizes && t < target / 2; ++again) {
      iterations = std::max(min_iterations, static_cast<long>(double(iterations) * target / t));
      t = batch(iterations);
    }

    const bool bad = max_over_ranks(check(c, bytes) ? 0.0 : 1.0) != 0.0;
    if (rank_ != 0) return !bad;
    const char* name = case_names[static_cast<int>(c)];
    const char* flavour = flavour_names[static_cast<int>(f)];
    if (bad) {
      std::printf("check_failed,%s,%s,%d,0,%zu\n", name, flavour, size_, bytes);
    } else {
      const double per_op = t / double(iterations);
      const double peers = size_ - 1;
      double value = 0;
      const char* metric = "MBps";
      switch (c) {
        case case_id::latency:
          metric = "time_s";
          value = per_op / 2;
          break;
        case case_id::onetoall:
        case case_id::alltoone:
          value = peers * double(bytes) / per_op / 1e6;
          break;
        case case_id::alltoall:
          value = double(size_) * peers * double(bytes) / per_op / 1e6;
          break;
      }
      std::printf("seeds,%s,%s,%d,0,%zu,%ld,%s,%.6g\n", name, flavour, size_, bytes, iterations,
                  metric, value);
    }
    std::fflush(stdout);
    return !bad;
  }

 private:
  // Where the message from `src` lands in this rank's receive buffer.
  std::byte* slot(int src) {
    const int k = src < rank_ ? src : src - 1;
    return rbuf_.data() + static_cast<std::size_t>(k) * max_bytes_;
  }

  // The transfers of one operation of case c, in the order they are started, all in one sync
  // mode. The latency case's two halves are separate steps (the reply goes only after the ping has
  // arrived; synchronously, rank 0 posts the reply's receive only once its ping is done too).
  void build(case_id c, std::size_t bytes, sync_mode sync) {
    steps_.clear();
    const std::byte* s = sbuf_.data();
    switch (c) {
      case case_id::latency:
        if (rank_ == 0) {
          steps_.push_back({ch_.send(1, s, bytes, sync)});
          steps_.push_back({ch_.recv(1, slot(1), bytes, sync)});
        } else if (rank_ == 1) {
          steps_.push_back({ch_.recv(0, slot(0), bytes, sync)});
          steps_.push_back({ch_.send(0, s, bytes, sync)});
        }
        break;
      case case_id::onetoall:
        steps_.emplace_back();
        if (rank_ == 0) {
          for (int r = 1; r < size_; ++r) steps_.back().push_back(ch_.send(r, s, bytes, sync));
        } else {
          steps_.back().push_back(ch_.recv(0, slot(0), bytes, sync));
        }
        break;
      case case_id::alltoone:
        steps_.emplace_back();
        if (rank_ == 0) {
          for (int r = 1; r < size_; ++r)
            steps_.back().push_back(ch_.recv(r, slot(r), bytes, sync));
        } else {
          steps_.back().push_back(ch_.send(0, s, bytes, sync));
        }
        break;
      case case_id::alltoall:
        steps_.emplace_back();
        for (int k = 1; k < size_; ++k) {
          const int from = (rank_ - k + size_) % size_;
          steps_.back().push_back(ch_.recv(from, slot(from), bytes, sync));
        }
        for (int k = 1; k < size_; ++k)
          steps_.back().push_back(ch_.send((rank_ + k) % size_, s, bytes, sync));
        break;
    }
  }

  void once() {
    for (const std::vector<transfer>& step : steps_) {
      work_ = step;  // a fresh copy: the transfers' progress starts at 0
      ch_.run(work_);
    }
  }

  // `iterations` operations back to back; the slowest rank's elapsed seconds, on every rank.
  double batch(long iterations) {
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < iterations; ++i) once();
    const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
    return max_over_ranks(dt.count());
  }

  // Through rank 0, over the same pair channels (untimed).
  double max_over_ranks(double v) {
    std::vector<double> got(static_cast<std::size_t>(size_), 0.0);
    std::vector<transfer> ts;
    if (rank_ == 0) {
      for (int r = 1; r < size_; ++r) {
        ts.push_back(ch_.recv(r, reinterpret_cast<std::byte*>(&got[r]), sizeof(double)));
      }
      ch_.run(ts);
      for (int r = 1; r < size_; ++r) v = std::max(v, got[r]);
      ts.clear();
      for (int r = 1; r < size_; ++r) {
        ts.push_back(ch_.send(r, reinterpret_cast<const std::byte*>(&v), sizeof(double)));
      }
      ch_.run(ts);
    } else {
      ts.push_back(ch_.send(0, reinterpret_cast<const std::byte*>(&v), sizeof(double)));
      ch_.run(ts);
      ts.clear();
      ts.push_back(ch_.recv(0, reinterpret_cast<std::byte*>(&v), sizeof(double)));
      ch_.run(ts);
    }
    return v;
  }

  // Every byte of every message this rank received in the last operation.
  bool check(case_id c, std::size_t bytes) {
    for (const std::vector<transfer>& step : steps_) {
      for (const transfer& t : step) {
        if (t.send) continue;
        for (std::size_t i = 0; i < bytes; ++i) {
          if (t.buf[i] != static_cast<std::byte>(pattern(t.peer, i, static_cast<int>(c)))) {
            return false;
          }
        }
      }
    }
    return true;
  }

  channels ch_;
  int rank_;
  int size_;
  std::size_t max_bytes_;
  std::vector<std::byte> sbuf_;
  std::vector<std::byte> rbuf_;
  std::vector<std::vector<transfer>> steps_;
  std::vector<transfer> work_;
};

// Every rank parses the same arguments; only rank 0 (or a program started alone) says why it stops.
[[noreturn]] void usage(const char* argv0) {
  const char* rank = std::getenv("RMPL_RANK");
  if (rank == nullptr || *rank == '\0' || std::string_view(rank) == "0") {
    std::fprintf(
        stderr,
        "usage: %s [--quick] [--time seconds-per-point] [--sizes bytes,...] "
        "[--cases latency,onetoall,alltoone,alltoall] [--flavours put,put_sync,put_sync_post]\n",
        argv0);
  }
  std::exit(2);
}

std::vector<std::string_view> split(std::string_view list) {
  std::vector<std::string_view> items;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    items.push_back(list.substr(0, comma));
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return items;
}

}  // namespace

int main(int argc, char** argv) {
  double target = 0.05;
  std::vector<std::size_t> sizes{8};
  for (std::size_t b = 16; b <= std::size_t{16} << 20; b *= 4) sizes.push_back(b);
  bool wanted[4] = {true, true, true, true};
  bool flavours[3] = {true, true, false};
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--quick") {
      target = 0.01;
    } else if (arg == "--time" && i + 1 < argc) {
      char* end = nullptr;
      target = std::strtod(argv[++i], &end);
      if (end == argv[i] || *end != '\0' || !(target > 0)) usage(argv[0]);
    } else if (arg == "--sizes" && i + 1 < argc) {
      auto parsed = rmpl_bench::parse_sizes(argv[++i], std::size_t{1} << 30);
      if (!parsed) usage(argv[0]);
      sizes = std::move(*parsed);
    } else if (arg == "--cases" && i + 1 < argc) {
      std::fill(std::begin(wanted), std::end(wanted), false);
      for (std::string_view item : split(argv[++i])) {
        const auto known = std::find(std::begin(case_names), std::end(case_names), item);
        if (known != std::end(case_names)) {
          wanted[known - std::begin(case_names)] = true;
        } else if (std::find(std::begin(other_seeds_cases), std::end(other_seeds_cases), item) ==
                   std::end(other_seeds_cases)) {
          usage(argv[0]);
        }
      }
    } else if (arg == "--flavours" && i + 1 < argc) {
      std::fill(std::begin(flavours), std::end(flavours), false);
      for (std::string_view item : split(argv[++i])) {
        const auto known = std::find(std::begin(flavour_names), std::end(flavour_names), item);
        if (known == std::end(flavour_names)) usage(argv[0]);
        flavours[known - std::begin(flavour_names)] = true;
      }
    } else {
      usage(argv[0]);
    }
  }

  bool ok = true;
  try {
    rmpl::runtime::local::job job(shm::domain::create);
    shm::domain d(job);
    if (d.size() < 2) return 0;
    const std::size_t max_bytes = sizes.empty() ? 0 : sizes.back();
    bench b(d, max_bytes);
    for (int c = 0; c < 4; ++c) {
      if (!wanted[c]) continue;
      for (std::size_t bytes : sizes) {
        for (int f = 0; f < 3; ++f) {
          if (flavours[f])
            ok &= b.run_point(static_cast<case_id>(c), static_cast<flavour_id>(f), bytes, target);
        }
      }
    }
  } catch (const std::exception& e) {
    die(e.what());
  }
  return ok ? 0 : 1;
}
