// Point-to-point under load: every rank sends random messages (sizes 0 B .. 4 MiB, random tags and
// destinations, itself included) in every send mode, blocking and nonblocking, and receives them
// with exact, any_source, any_tag and fully wildcard receives, blocking and nonblocking. Every byte
// of every message is checked, and so is MPI's non-overtaking rule; at the end the ranks agree on
// what was sent and delivered per pair, so nothing lost or duplicated goes unnoticed, and each
// rank's peak RSS must stay under a bound the program states.
//
//   build/release/tools/rmplrun/rmplrun -n 8 build/release/tests/stress_p2p --messages 1000000
//       the long run: 14.2 GB, 76 s and 33 MiB peak RSS per rank on 2 shared cores (Nov 2026)
//   ctest --test-dir build/release -L stress    # what CI runs: 6,000 to 20,000 messages per run
//   stress_p2p --help                           # every option (seed, sizes, batch, tags, bounds)
// The run prints messages, bytes, lost / duplicated / out of order / corrupt counts (all must be
// 0), how many receives and sends of each kind ran, the rate and each rank's peak RSS, then OK or
// FAILED (exit status 1; 3 from the watchdog; 2 for a bad option).
//
// How correctness is checked without a central oracle (schedule.hpp, payload.hpp):
//   - Every rank computes every rank's sends of a round from the seed, so a receiver knows what
//   each
//     source sends it, in order. A message's contents are a function of (source, dest, per-pair
//     sequence number).
//   - The receiver's plan for a round, per source S: the first j_S messages of S get "source-
//     specific" receives (source S; tag exact or any_tag), posted in S's order; the rest
//     ("leftovers") get wildcard receives (any_source with an exact tag, then any_source +
//     any_tag), posted after every source-specific one. Under MPI's matching rules this plan is
//     robust: receive i for S must get S's message i, and every leftover finds a wildcard receive,
//     whatever the arrival order. A receive is sometimes made blocking, but only when an iprobe
//     with its filter shows a message it must take at once (so it never waits on a peer).
//   - Verification runs over the receives in posting order. A source-specific receive must hold
//     exactly its message. A wildcard receive that got a message from S (status.source) must hold
//     the earliest leftover of S its filter accepts that no earlier-posted receive took: MPI's
//     non-overtaking rule forces exactly that (if a later message of S had gone to it, the earlier
//     one went to a later receive that was pending while this one accepted it). A wrong message is
//     classified by the identity record it carries: a copy of one already delivered (duplicated),
//     another message of the same source (out of order), or neither (corrupt).
//   - Deadlock freedom by construction: before a round's barrier a rank only posts receives and
//   makes
//     sends that complete locally (nonblocking ones, buffered ones); every receive of the round is
//     posted before the barrier; the blocking standard, synchronous and ready sends come after it.
//     Rounds alternate between two communicators and the barrier of round k+1 is passed only once
//     every rank has finished round k, so a wildcard receive never takes another round's message.
//   - A message lost leaves a receive pending forever: the watchdog (monitor.hpp) reports the stall
//     and where it happened, and exits 3. A duplicate left over at the end is found by iprobe.
// Memory: a rank's buffers live for one round; the program tracks the largest round's buffers and
// fails if its peak RSS exceeds baseline + 2 x that + a fixed allowance for the library
// (--rss-limit overrides), so memory that grows with the message count (a leak, an unbounded queue)
// fails.
#include <malloc.h>
#include <sched.h>
#include <unistd.h>

#include <rmpl/rmpl.hpp>

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "memory.hpp"
#include "monitor.hpp"
#include "payload.hpp"
#include "schedule.hpp"

namespace {

using stress::message;
using stress::rng;

// ---------------------------------------------------------------- command line

struct config {
  stress::options o;
  double stall_seconds = 60;
  double rss_limit_mib = 0;  ///< 0: the computed bound
  /// The library's share: its rings, eager slots and queues, which do not grow with the number of
  /// messages. Sanitizers keep freed memory in quarantine and map shadow memory: far more.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  double rss_allowance_mib = 512;
#else
  double rss_allowance_mib = 32;
#endif
  bool verbose = false;
};

constexpr const char* usage =
    "usage: rmplrun -n <ranks> stress_p2p [options]\n"
    "  --messages N     messages in total over all ranks (default 1000000)\n"
    "  --max-size B     largest message in bytes, K/M suffixes allowed (default 4M)\n"
    "  --seed S         seed of the schedule and of every random choice (default 1)\n"
    "  --batch B        messages per rank per round (default 64)\n"
    "  --tags T         size of the small tag set most messages use (default 8)\n"
    "  --stall S        seconds without progress before the watchdog fails the run (default 60)\n"
    "  --rss-limit MIB  fail if a rank's peak RSS exceeds this (default: baseline + 2 x the\n"
    "                   largest round's buffers + --rss-allowance)\n"
    "  --rss-allowance MIB  the library's share of that default bound (default 32; 512 under\n"
    "                   sanitizers)\n"
    "  --verbose        a line per 10% of the rounds\n";

std::uint64_t parse_number(std::string_view name, const char* text) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  std::uint64_t scale = 1;
  if (end && (*end == 'K' || *end == 'k')) scale = 1024, ++end;
  if (end && (*end == 'M' || *end == 'm')) scale = 1024 * 1024, ++end;
  if (end == text || !end || *end != '\0' || text[0] == '-') {
    throw std::invalid_argument(std::string(name) + ": not a number: " + text);
  }
  return v * scale;
}

config parse(int argc, char** argv) {
  config c;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(usage, stdout);
      std::exit(0);
    }
    if (arg == "--verbose") {
      c.verbose = true;
      continue;
    }
    if (i + 1 >= argc) throw std::invalid_argument(std::string(arg) + " needs a value");
    const char* value = argv[++i];
    if (arg == "--messages") {
      c.o.messages = parse_number(arg, value);
    } else if (arg == "--max-size") {
      c.o.max_size = parse_number(arg, value);
    } else if (arg == "--seed") {
      c.o.seed = parse_number(arg, value);
    } else if (arg == "--batch") {
      c.o.batch = static_cast<int>(std::clamp<std::uint64_t>(parse_number(arg, value), 1, 100000));
    } else if (arg == "--tags") {
      c.o.tags = static_cast<int>(std::clamp<std::uint64_t>(parse_number(arg, value), 1, 1 << 20));
    } else if (arg == "--stall") {
      c.stall_seconds = static_cast<double>(parse_number(arg, value));
    } else if (arg == "--rss-limit") {
      c.rss_limit_mib = static_cast<double>(parse_number(arg, value));
    } else if (arg == "--rss-allowance") {
      c.rss_allowance_mib = static_cast<double>(parse_number(arg, value));
    } else {
      throw std::invalid_argument("unknown option " + std::string(arg) + "\n" + usage);
    }
  }
  if (c.o.max_size > (std::size_t{1} << 30)) throw std::invalid_argument("--max-size: over 1 GiB");
  return c;
}

/// From this size on, buffers are mapped apart from the heap (mallopt in run) and freed at once.
constexpr std::size_t large_buffer = 256 * 1024;

std::unique_ptr<std::byte[]> buffer_of(std::size_t bytes) {
  return std::make_unique_for_overwrite<std::byte[]>(std::max<std::size_t>(bytes, 1));
}

// ---------------------------------------------------------------- counters

/// One rank's counts; summed over the ranks at the end.
enum counter : std::size_t {
  sent,
  sent_bytes,
  delivered,
  delivered_bytes,
  verified,
  out_of_order,
  duplicated,
  corrupt,
  extra,  ///< a message no receive of the plan should have got (found at the end or mid-round)
  probe_mismatch,
  recv_exact,
  recv_any_source,
  recv_any_tag,
  recv_any_both,
  recv_blocking,
  send_blocking,
  send_standard,
  send_synchronous,
  send_buffered,
  send_ready,
  self_messages,
  counter_count
};

std::string filter_text(int source, int tag) {
  std::string s = "(source ";
  s += source == rmpl::any_source ? "any" : std::to_string(source);
  s += ", tag ";
  s += tag == rmpl::any_tag ? "any" : std::to_string(tag);
  return s + ")";
}

// ---------------------------------------------------------------- one rank's run

struct recv_entry {
  int source = rmpl::any_source;  ///< the receive's filter
  int tag = rmpl::any_tag;
  const message* expect = nullptr;  ///< source-specific receives: the message it must get
  std::size_t capacity = 0;
  std::unique_ptr<std::byte[]> buffer;
  rmpl::status st{};
  bool blocking = false;
  bool settled = false;  ///< counted and checked (at completion, or by verify)
};

class runner {
 public:
  runner(const config& c, const rmpl::communicator& world, stress::monitor& mon)
      : c_(c),
        o_(c.o),
        world_(world),
        rank_(world.rank()),
        n_(world.size()),
        mon_(mon),
        data_(o_.seed, o_.max_size),
        next_seq_(static_cast<std::size_t>(n_) * static_cast<std::size_t>(n_), 0),
        seen_(static_cast<std::size_t>(n_)) {
    sent_to_.assign(static_cast<std::size_t>(n_), 0);
    delivered_from_.assign(static_cast<std::size_t>(n_), 0);
    comms_[0] = world.dup();
    comms_[1] = world.dup();
  }

  std::uint64_t count[counter_count] = {};
  std::size_t largest_round_bytes = 0;
  std::vector<std::uint64_t> sent_to_, delivered_from_;

  void run() {
    const std::uint64_t rounds = stress::round_total(o_, n_);
    for (std::uint64_t k = 0; k < rounds; ++k) {
      try {
        round(k);
      } catch (const std::exception& e) {
        // A failed operation (a truncated receive: a message bigger than the one the plan
        // expected). Pending requests must not be destroyed, and peers may wait for this rank:
        // say what happened and leave at once.
        std::fprintf(stderr, "stress: rank %d, %s: %s\n", rank_, where_text("failed").c_str(),
                     e.what());
        std::fflush(stderr);
        std::_Exit(1);
      }
      if (c_.verbose && rank_ == 0 && rounds >= 10 && (k + 1) % (rounds / 10) == 0) {
        std::printf("stress: round %" PRIu64 " of %" PRIu64 " (%.1f s)\n", k + 1, rounds,
                    rmpl::session::wtime() - start_);
        std::fflush(stdout);
      }
    }
    // Every rank is done: anything still waiting on the data communicators is a message no
    // receive of the plan was for (a duplicate).
    mon_.where("final check for leftover messages");
    world_.barrier();
    for (const rmpl::communicator& comm : comms_) {
      while (auto p = comm.iprobe()) {
        auto buf = buffer_of(p->bytes);
        const rmpl::status st = comm.recv_bytes(buf.get(), p->bytes, p->source, p->tag);
        ++count[extra];
        report("after the last round: an extra message " + filter_text(st.source, st.tag) + ", " +
               std::to_string(st.bytes) + " bytes" + describe(buf.get(), st.bytes));
      }
    }
  }

  void set_start(double t) { start_ = t; }

 private:
  // ---- one round
  void round(std::uint64_t k) {
    const rmpl::communicator& comm = comms_[k % 2];
    const auto all = stress::number_round(o_, n_, k, next_seq_);
    rng r(stress::mix(stress::mix(o_.seed, k), 0x10000 + static_cast<std::uint64_t>(rank_)));
    const std::vector<message>& mine = all[static_cast<std::size_t>(rank_)];
    round_ = k;
    round_bytes_ = 0;

    // What each source sends here this round, in its order.
    std::vector<std::vector<const message*>> from(static_cast<std::size_t>(n_));
    for (int s = 0; s < n_; ++s) {
      for (const message& m : all[static_cast<std::size_t>(s)]) {
        if (m.dest == rank_) from[static_cast<std::size_t>(s)].push_back(&m);
      }
    }
    plan(from, r);

    // Before the barrier: post every receive, interleaved with the sends that complete locally.
    mon_.where(where_text("posting receives and early sends"));
    const auto early = static_cast<std::size_t>(
        std::find_if(mine.begin(), mine.end(), [](const message& m) { return m.late; }) -
        mine.begin());
    std::size_t si = 0, ri = 0;
    while (si < early || ri < recvs_.size()) {
      if (si < early && (ri == recvs_.size() || r.chance(0.5))) {
        send(comm, mine[si++]);
      } else {
        post(comm, ri++, r);
      }
      if (r.chance(0.05)) reap_one();
    }
    mon_.where(where_text("in the barrier before the late sends"));
    comm.barrier();
    mon_.where(where_text("late sends"));
    for (std::size_t i = early; i < mine.size(); ++i) send(comm, mine[i]);
    mon_.where(where_text("completing requests"));
    complete_all(r);
    mon_.where(where_text("verifying"));
    verify();
    largest_round_bytes = std::max(largest_round_bytes, round_bytes_);
    recvs_.clear();
    reqs_.clear();
    owner_.clear();
    send_buffers_.clear();
  }

  std::string where_text(const char* phase) const {
    std::size_t pending = 0;
    for (const rmpl::request& q : reqs_) pending += q.active() ? 1 : 0;
    return "round " + std::to_string(round_) + ", " + phase + ", " + std::to_string(pending) +
           " of " + std::to_string(reqs_.size()) + " requests pending (" +
           std::to_string(recvs_.size()) + " receives planned)";
  }

  /// The round's receives, in posting order (see the file comment).
  void plan(const std::vector<std::vector<const message*>>& from, rng& r) {
    leftovers_.assign(static_cast<std::size_t>(n_), {});
    std::vector<std::size_t> specific(static_cast<std::size_t>(n_)), next(specific.size(), 0);
    std::size_t remaining = 0;
    for (std::size_t s = 0; s < from.size(); ++s) {
      const std::size_t total = from[s].size();
      const double u = r.unit();
      specific[s] = u < 0.25 ? total : u < 0.5 ? 0 : static_cast<std::size_t>(r.below(total + 1));
      remaining += specific[s];
      leftovers_[s].assign(from[s].begin() + static_cast<std::ptrdiff_t>(specific[s]),
                           from[s].end());
    }
    // Source-specific receives: sources interleaved at random, each source's in its order.
    while (remaining > 0) {
      std::size_t pick = static_cast<std::size_t>(r.below(remaining)), s = 0;
      while (pick >= specific[s] - next[s]) {
        pick -= specific[s] - next[s];
        ++s;
      }
      const message* m = from[s][next[s]++];
      recv_entry e;
      e.source = static_cast<int>(s);
      e.tag = r.chance(0.5) ? m->tag : rmpl::any_tag;
      e.expect = m;
      e.capacity = m->size + (r.chance(0.25) ? static_cast<std::size_t>(r.below(65)) : 0);
      recvs_.push_back(std::move(e));
      --remaining;
    }
    // Wildcard receives: any_source with a tag first, then any_source and any_tag. A (any, T)
    // receive may get any leftover with tag T, a (any, any) one any leftover: capacities follow.
    std::vector<const message*> left;
    for (const auto& l : leftovers_) left.insert(left.end(), l.begin(), l.end());
    std::size_t largest = 0;
    for (const message* m : left) largest = std::max(largest, m->size);
    std::vector<std::pair<int, std::size_t>> tagged;  // (tag, capacity), one per (any, T) receive
    for (const message* m : left) {
      if (!r.chance(0.5)) continue;
      std::size_t cap = 0;
      for (const message* o : left) {
        if (o->tag == m->tag) cap = std::max(cap, o->size);
      }
      tagged.emplace_back(m->tag, cap);
    }
    for (std::size_t i = tagged.size(); i > 1; --i) {
      std::swap(tagged[i - 1], tagged[static_cast<std::size_t>(r.below(i))]);
    }
    for (const auto& [tag, cap] : tagged) {
      recv_entry e;
      e.tag = tag;
      e.capacity = cap;
      recvs_.push_back(std::move(e));
    }
    for (std::size_t i = tagged.size(); i < left.size(); ++i) {
      recv_entry e;
      e.capacity = largest;
      recvs_.push_back(std::move(e));
    }
  }

  void send(const rmpl::communicator& comm, const message& m) {
    auto buf = buffer_of(m.size);
    data_.fill(std::span(buf.get(), m.size), rank_, m.dest, m.seq);
    // Buffered sends also leave a copy with the library until delivered.
    round_bytes_ += m.size * (m.mode == rmpl::send_mode::buffered ? 2 : 1);
    ++count[sent];
    count[sent_bytes] += m.size;
    ++sent_to_[static_cast<std::size_t>(m.dest)];
    ++count[send_standard + static_cast<std::size_t>(m.mode)];
    if (m.dest == rank_) ++count[self_messages];
    if (m.blocking) {
      ++count[send_blocking];
      comm.send_bytes(buf.get(), m.size, m.dest, m.tag, m.mode);
      // The buffer is the program's again: scribble over it, so a library that still read it
      // would deliver the wrong bytes.
      std::memset(buf.get(), 0xEE, m.size);
    } else {
      reqs_.push_back(
          comm.isend(std::span<const std::byte>(buf.get(), m.size), m.dest, m.tag, m.mode));
      owner_.push_back(-1 - static_cast<std::int64_t>(send_buffers_.size()));
      send_buffers_.push_back({std::move(buf), m.size});
    }
    mon_.tick();
  }

  void post(const rmpl::communicator& comm, std::size_t index, rng& r) {
    recv_entry& e = recvs_[index];
    e.buffer = buffer_of(e.capacity);
    // What becomes resident: small buffers come from the heap, whose pages stay once touched;
    // large ones are mapped apart and only the pages the message fills count (see deliver).
    round_bytes_ += e.capacity < large_buffer ? e.capacity : 0;
    const bool any_source = e.source == rmpl::any_source, any_tag = e.tag == rmpl::any_tag;
    ++count[any_source ? (any_tag ? recv_any_both : recv_any_source)
                       : (any_tag ? recv_any_tag : recv_exact)];
    // Blocking only when a message this receive must take is already here (see the file comment).
    if (r.chance(0.3)) {
      if (const auto p = comm.iprobe(e.source, e.tag)) {
        if (r.chance(0.25)) {
          const rmpl::status q = comm.probe(e.source, e.tag);
          if (q.source != p->source || q.tag != p->tag || q.bytes != p->bytes) {
            ++count[probe_mismatch];
            report("probe " + filter_text(e.source, e.tag) + " saw " +
                   filter_text(q.source, q.tag) + " " + std::to_string(q.bytes) +
                   " bytes right after iprobe saw " + filter_text(p->source, p->tag) + " " +
                   std::to_string(p->bytes) + " bytes");
          }
        }
        e.blocking = true;
        ++count[recv_blocking];
        e.st = comm.recv_bytes(e.buffer.get(), e.capacity, e.source, e.tag);
        on_receive(index);
        mon_.tick();
        return;
      }
    }
    reqs_.push_back(comm.irecv(std::span(e.buffer.get(), e.capacity), e.source, e.tag));
    owner_.push_back(static_cast<std::int64_t>(index));
  }

  void completed(std::size_t i, const rmpl::status& st) {
    const std::int64_t who = owner_[i];
    if (who >= 0) {
      recvs_[static_cast<std::size_t>(who)].st = st;
      on_receive(static_cast<std::size_t>(who));
    } else {
      auto& [buf, size] = send_buffers_[static_cast<std::size_t>(-1 - who)];
      std::memset(buf.get(), 0xEE, size);
      buf.reset();
    }
    mon_.tick();
  }

  void reap_one() {
    if (const auto d = rmpl::test_any(reqs_)) completed(d->first, d->second);
  }

  /// Waits for every request of the round, each round in one of several ways.
  void complete_all(rng& r) {
    switch (r.below(5)) {
      case 0:  // each in turn, newest first
        for (std::size_t i = reqs_.size(); i-- > 0;) {
          if (reqs_[i].active()) completed(i, reqs_[i].wait());
        }
        break;
      case 1:
        for (;;) {
          const auto [i, st] = rmpl::wait_any(reqs_);
          if (i == reqs_.size()) break;
          completed(i, st);
        }
        break;
      case 2:
        for (;;) {
          const auto some = rmpl::wait_some(reqs_);
          if (some.empty()) break;
          for (const auto& [i, st] : some) completed(i, st);
        }
        break;
      case 3: {  // polling, giving the core away between polls
        std::size_t active = 0;
        for (const rmpl::request& q : reqs_) active += q.active() ? 1 : 0;
        while (active > 0) {
          if (const auto d = rmpl::test_any(reqs_)) {
            completed(d->first, d->second);
            --active;
          } else {
            sched_yield();
          }
        }
        break;
      }
      default: {  // test_all until everything is done, then the statuses at once
        std::vector<rmpl::status> statuses;
        std::vector<std::size_t> index;
        std::vector<rmpl::request> active;
        for (std::size_t i = 0; i < reqs_.size(); ++i) {
          if (reqs_[i].active()) {
            index.push_back(i);
            active.push_back(std::move(reqs_[i]));
          }
        }
        while (!rmpl::test_all(active, &statuses)) sched_yield();
        for (std::size_t j = 0; j < index.size(); ++j) completed(index[j], statuses[j]);
        break;
      }
    }
  }

  // ---- verification
  std::string receive_text(std::size_t i) const {
    const recv_entry& e = recvs_[i];
    return "receive " + std::to_string(i) + " " + filter_text(e.source, e.tag) +
           (e.blocking ? " (blocking)" : "");
  }

  /// Counts a completed receive; false (reported) if its status is unusable.
  bool deliver(std::size_t i) {
    recv_entry& e = recvs_[i];
    const rmpl::status& st = e.st;
    e.settled = true;
    if (st.error != rmpl::errc::success || st.cancelled) {
      ++count[corrupt];
      report(receive_text(i) + ": completed with error " + rmpl::to_string(st.error));
      return false;
    }
    if (st.source < 0 || st.source >= n_) {
      ++count[corrupt];
      report(receive_text(i) + ": status names source " + std::to_string(st.source));
      return false;
    }
    ++count[delivered];
    count[delivered_bytes] += st.bytes;
    if (e.capacity >= large_buffer) round_bytes_ += st.bytes;
    ++delivered_from_[static_cast<std::size_t>(st.source)];
    return true;
  }

  /// At completion: a source-specific receive is checked at once (it must hold its message). A
  /// wildcard one waits for verify (which message it must hold depends on the receives posted
  /// before it), unless its contents already name a message that was not a leftover: then a
  /// source-specific receive's message overtook, and saying so now beats a stall report later.
  void on_receive(std::size_t i) {
    recv_entry& e = recvs_[i];
    if (e.expect) {
      if (deliver(i)) check(receive_text(i), e, *e.expect, e.source);
      return;
    }
    if (e.st.error != rmpl::errc::success || e.st.source < 0 || e.st.source >= n_) return;
    const auto id = data_.identify(
        std::span<const std::byte>(e.buffer.get(), std::min(e.st.bytes, e.capacity)));
    const auto& left = leftovers_[static_cast<std::size_t>(e.st.source)];
    if (!id || id->dest != rank_ || id->source != e.st.source) return;
    if (!left.empty() && id->seq >= left.front()->seq && id->seq <= left.back()->seq) return;
    deliver(i);
    ++count[out_of_order];
    report(receive_text(i) + ": out of order: got message " + std::to_string(id->seq) +
           " of rank " + std::to_string(id->source) +
           ", which an earlier-posted source-specific receive was owed");
  }

  /// The wildcard receives, in posting order: each must hold the earliest leftover of its
  /// message's source that its filter accepts and no earlier receive took.
  void verify() {
    std::vector<std::vector<bool>> taken(leftovers_.size());
    for (std::size_t s = 0; s < leftovers_.size(); ++s)
      taken[s].assign(leftovers_[s].size(), false);
    for (std::size_t i = 0; i < recvs_.size(); ++i) {
      recv_entry& e = recvs_[i];
      if (e.settled) continue;
      if (!deliver(i)) continue;
      const rmpl::status& st = e.st;
      const auto s = static_cast<std::size_t>(st.source);
      const message* want = nullptr;
      for (std::size_t j = 0; j < leftovers_[s].size() && !want; ++j) {
        if (!taken[s][j] && (e.tag == rmpl::any_tag || leftovers_[s][j]->tag == e.tag)) {
          taken[s][j] = true;
          want = leftovers_[s][j];
        }
      }
      if (!want) {
        ++count[extra];
        report(receive_text(i) + ": got " + filter_text(st.source, st.tag) + " " +
               std::to_string(st.bytes) + " bytes, but no message of rank " +
               std::to_string(st.source) + " was left for it" +
               describe(e.buffer.get(), std::min(st.bytes, e.capacity)));
        continue;
      }
      check(receive_text(i), e, *want, st.source);
      mon_.tick();
    }
  }

  void check(const std::string& what, const recv_entry& e, const message& want, int source) {
    const rmpl::status& st = e.st;
    const std::size_t got = std::min(st.bytes, e.capacity);
    std::string problem;
    if (st.source != source || st.tag != want.tag || st.bytes != want.size) {
      problem = "status says " + filter_text(st.source, st.tag) + " " + std::to_string(st.bytes) +
                " bytes";
    } else {
      problem =
          data_.check(std::span<const std::byte>(e.buffer.get(), got), source, rank_, want.seq);
    }
    auto& seen = seen_[static_cast<std::size_t>(source)];
    if (problem.empty()) {
      if (seen.size() <= want.seq) seen.resize(want.seq + 1024, false);
      seen[want.seq] = true;
      ++count[verified];
      return;
    }
    // Which message was it, then?
    const auto id = data_.identify(std::span<const std::byte>(e.buffer.get(), got));
    const char* kind = "corrupt";
    if (id && id->dest == rank_ && id->source >= 0 && id->source < n_) {
      const auto& s = seen_[static_cast<std::size_t>(id->source)];
      if (id->seq < s.size() && s[id->seq]) {
        kind = "duplicated";
      } else if (id->source == source) {
        kind = "out of order";
      }
    }
    ++count[std::string_view(kind) == "duplicated"     ? duplicated
            : std::string_view(kind) == "out of order" ? out_of_order
                                                       : corrupt];
    report(what + ": " + kind + ": expected message " + std::to_string(want.seq) + " of rank " +
           std::to_string(source) + " (tag " + std::to_string(want.tag) + ", " +
           std::to_string(want.size) + " bytes); " + problem + describe(e.buffer.get(), got));
  }

  std::string describe(const std::byte* data, std::size_t bytes) const {
    const auto id = data_.identify(std::span<const std::byte>(data, bytes));
    if (!id) return "";
    return "; its contents are message " + std::to_string(id->seq) + " from rank " +
           std::to_string(id->source) + " to rank " + std::to_string(id->dest);
  }

  void report(const std::string& text) {
    if (++reports_ <= 20) {
      std::fprintf(stderr, "stress: rank %d, round %" PRIu64 ": %s\n", rank_, round_, text.c_str());
    }
  }

  const config& c_;
  const stress::options& o_;
  rmpl::communicator world_;
  int rank_, n_;
  stress::monitor& mon_;
  stress::payload data_;
  rmpl::communicator comms_[2];
  std::vector<std::uint64_t> next_seq_;
  std::vector<std::vector<bool>> seen_;  ///< per source: sequence numbers delivered intact
  // The current round.
  std::uint64_t round_ = 0;
  std::size_t round_bytes_ = 0;
  std::vector<recv_entry> recvs_;
  std::vector<std::vector<const message*>> leftovers_;
  std::vector<rmpl::request> reqs_;
  std::vector<std::int64_t> owner_;  ///< per request: receive index, or -1 - send buffer index
  std::vector<std::pair<std::unique_ptr<std::byte[]>, std::size_t>> send_buffers_;
  std::uint64_t reports_ = 0;
  double start_ = 0;
};

double mib(double kib) {
  return kib / 1024.0;
}

int run_stress(const config& c, const rmpl::communicator& world);

int run(int argc, char** argv) {
  // Large buffers always come from mmap and go back on free: RSS then follows what is live, not
  // the heap's high-water mark.
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(large_buffer));
  const config c = parse(argc, argv);
  rmpl::session session;
  const rmpl::communicator world = session.world();
  try {
    return run_stress(c, world);
  } catch (const std::exception& e) {
    // Leaving through the session's destructor would wait for ranks that may wait for this one.
    std::fprintf(stderr, "stress: rank %d: %s\n", world.rank(), e.what());
    std::fflush(stderr);
    std::_Exit(1);
  }
}

int run_stress(const config& c, const rmpl::communicator& world) {
  const int rank = world.rank(), n = world.size();
  rmpl::session::attach_buffer(4 * c.o.bsend_round_cap);
  stress::monitor mon(rank, c.stall_seconds);
  runner run(c, world, mon);
  world.barrier();
  const long baseline_kib = rmpl_test::current_rss_kib();
  const double start = rmpl::session::wtime();
  run.set_start(start);
  run.run();
  world.barrier();
  const double elapsed = rmpl::session::wtime() - start;

  // Agreement: what every source sent here against what arrived.
  mon.where("agreement");
  std::vector<std::uint64_t> sent_here(static_cast<std::size_t>(n));
  world.alltoall(run.sent_to_, sent_here);
  std::uint64_t lost = 0, excess = 0;
  for (std::size_t s = 0; s < sent_here.size(); ++s) {
    if (sent_here[s] > run.delivered_from_[s]) {
      lost += sent_here[s] - run.delivered_from_[s];
      std::fprintf(stderr, "stress: rank %d: %" PRIu64 " messages from rank %zu never arrived\n",
                   rank, sent_here[s] - run.delivered_from_[s], s);
    } else if (sent_here[s] < run.delivered_from_[s]) {
      excess += run.delivered_from_[s] - sent_here[s];
    }
  }
  const long peak_kib = rmpl_test::peak_rss_kib();
  const double limit_kib = c.rss_limit_mib > 0
                               ? c.rss_limit_mib * 1024
                               : static_cast<double>(baseline_kib) +
                                     2.0 * static_cast<double>(run.largest_round_bytes) / 1024 +
                                     c.rss_allowance_mib * 1024;
  const bool over = static_cast<double>(peak_kib) > limit_kib;
  if (over) {
    std::fprintf(stderr,
                 "stress: rank %d: peak RSS %.1f MiB exceeds the bound %.1f MiB (baseline %.1f "
                 "MiB, largest round's buffers %.1f MiB, allowance %.0f MiB)\n",
                 rank, mib(static_cast<double>(peak_kib)), mib(limit_kib),
                 mib(static_cast<double>(baseline_kib)),
                 static_cast<double>(run.largest_round_bytes) / (1 << 20), c.rss_allowance_mib);
  }

  std::vector<std::uint64_t> mine(run.count, run.count + counter_count);
  mine.push_back(lost);
  mine.push_back(excess);
  mine.push_back(over ? 1 : 0);
  std::vector<std::uint64_t> total(mine.size());
  world.allreduce(mine, total, rmpl::ops::sum{});
  const std::vector<std::uint64_t> rss{
      static_cast<std::uint64_t>(peak_kib), static_cast<std::uint64_t>(limit_kib),
      static_cast<std::uint64_t>(baseline_kib), run.largest_round_bytes / 1024};
  std::vector<std::uint64_t> all_rss(rss.size() * static_cast<std::size_t>(n));
  world.gather(rss, all_rss, 0);

  const std::uint64_t t_lost = total[counter_count], t_excess = total[counter_count + 1],
                      t_over = total[counter_count + 2];
  const std::uint64_t t_dup = total[duplicated] + t_excess + total[extra];
  const bool ok = t_lost == 0 && t_dup == 0 && total[out_of_order] == 0 && total[corrupt] == 0 &&
                  total[probe_mismatch] == 0 && t_over == 0 && total[sent] == c.o.messages &&
                  total[verified] == c.o.messages;
  if (rank == 0) {
    const double bytes = static_cast<double>(total[sent_bytes]);
    std::printf("stress: %d ranks, %" PRIu64 " messages, %" PRIu64 " bytes (seed %" PRIu64
                ", max size %zu, batch %d, %" PRIu64 " rounds)\n",
                n, total[sent], total[sent_bytes], c.o.seed, c.o.max_size, c.o.batch,
                stress::round_total(c.o, n));
    std::printf("stress: delivered %" PRIu64 ", verified byte for byte %" PRIu64 "\n",
                total[delivered], total[verified]);
    std::printf("stress: lost %" PRIu64 ", duplicated %" PRIu64 ", out of order %" PRIu64
                ", corrupt %" PRIu64 ", probe mismatches %" PRIu64 "\n",
                t_lost, t_dup, total[out_of_order], total[corrupt], total[probe_mismatch]);
    std::printf("stress: receives: exact %" PRIu64 ", any_source %" PRIu64 ", any_tag %" PRIu64
                ", both wildcards %" PRIu64 ", blocking %" PRIu64 "\n",
                total[recv_exact], total[recv_any_source], total[recv_any_tag],
                total[recv_any_both], total[recv_blocking]);
    std::printf("stress: sends: standard %" PRIu64 ", synchronous %" PRIu64 ", buffered %" PRIu64
                ", ready %" PRIu64 ", blocking %" PRIu64 ", to self %" PRIu64 "\n",
                total[send_standard], total[send_synchronous], total[send_buffered],
                total[send_ready], total[send_blocking], total[self_messages]);
    std::printf("stress: elapsed %.2f s, %.0f messages/s, %.1f MB/s\n", elapsed,
                static_cast<double>(total[sent]) / elapsed, bytes / elapsed / 1e6);
    std::printf("stress: peak RSS per rank (MiB):");
    std::size_t top = 0;
    for (std::size_t r = 0; r < static_cast<std::size_t>(n); ++r) {
      std::printf(" %.1f", mib(static_cast<double>(all_rss[4 * r])));
      if (all_rss[4 * r] > all_rss[4 * top]) top = r;
    }
    std::printf("\nstress: max %.1f MiB on rank %zu; its bound %.1f MiB = ",
                mib(static_cast<double>(all_rss[4 * top])), top,
                mib(static_cast<double>(all_rss[4 * top + 1])));
    if (c.rss_limit_mib > 0) {
      std::printf("--rss-limit\n");
    } else {
      std::printf("baseline %.1f + 2 x largest round's buffers %.1f + allowance %.0f\n",
                  mib(static_cast<double>(all_rss[4 * top + 2])),
                  mib(static_cast<double>(all_rss[4 * top + 3])), c.rss_allowance_mib);
    }
    std::printf("stress: %s\n", ok ? "OK" : "FAILED");
    std::fflush(stdout);
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "stress: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "stress: %s\n", e.what());
    return 1;
  }
}
