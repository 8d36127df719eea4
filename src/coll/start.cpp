// The collectives' entry points (collectives.hpp): argument checks, the choice of algorithm and
// the start of the operation. Every check names the collective, the rank, the communicator's size
// and the sizes that disagree.
#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "coll/agreement.hpp"
#include "coll/algorithms.hpp"
#include "coll/collectives.hpp"
#include "coll/combine.hpp"
#include "coll/select.hpp"
#include "coll/shared_area.hpp"
#include "coll/shared_short.hpp"
#include "core/context_pool.hpp"
#include "rmpl/types.hpp"

namespace rmpl::coll {
namespace {

template <class... Args>
[[noreturn]] void reject(const target& t, collective c, errc code,
                         fmt::format_string<Args...> format, Args&&... args) {
  base::fail(code, "{} on rank {} (communicator of {}): {}",
             collective_names[static_cast<std::size_t>(c)], t.comm.rank, t.comm.size,
             fmt::format(format, std::forward<Args>(args)...));
}

void check_root(const target& t, collective c, int root) {
  if (root < 0 || root >= t.comm.size) {
    reject(t, c, errc::invalid_rank, "root {} is not a rank of the communicator", root);
  }
}

/// A null buffer of a non-zero size (a span made from a null pointer: the C API and byte-level
/// callers can pass one) would be dereferenced by the algorithm.
template <class Span>
void check_buffer(const target& t, collective c, Span data, const char* buffer) {
  if (data.data() == nullptr && !data.empty()) {
    reject(t, c, errc::invalid_argument, "the {} is null but its size is {} bytes", buffer,
           data.size());
  }
}
template <class In, class Out>
void check_buffers(const target& t, collective c, In in, Out out) {
  check_buffer(t, c, in, "send buffer");
  check_buffer(t, c, out, "receive buffer");
}

void check_reduction(const target& t, collective c, const_bytes in, const reduction& op) {
  if (op.element == 0) reject(t, c, errc::invalid_argument, "the operator's element size is 0");
  if (op.op == detail::builtin_op::none && !op.user) {
    reject(t, c, errc::invalid_argument, "no operator given");
  }
  if (op.op != detail::builtin_op::none) {
    // Checked here on every rank, not where operands meet: with a bad operator some ranks would
    // fail while the others waited for them.
    try {
      check_combinable(op);
    } catch (const error& e) {
      std::string_view why = e.what();
      if (why.starts_with("rmpl: ")) why.remove_prefix(6);
      reject(t, c, e.code(), "{}", why);
    }
  }
  if (in.size() % op.element != 0) {
    reject(t, c, errc::invalid_argument, "{} bytes are not a whole number of {}-byte elements",
           in.size(), op.element);
  }
}

void check_room(const target& t, collective c, std::size_t have, std::size_t need,
                const char* buffer) {
  if (have < need) {
    reject(t, c, errc::invalid_argument, "the {} holds {} bytes but {} are needed", buffer, have,
           need);
  }
}

/// Counts and displacements (bytes) of a v-collective, checked against the buffer they index.
layout checked_layout(const target& t, collective c, sizes counts, sizes displs,
                      std::size_t buffer_bytes, const char* buffer) {
  const auto n = static_cast<std::size_t>(t.comm.size);
  if (counts.size() != n) {
    reject(t, c, errc::invalid_argument, "{} counts given for a communicator of {}", counts.size(),
           n);
  }
  if (!displs.empty() && displs.size() != n) {
    reject(t, c, errc::invalid_argument, "{} displacements given for a communicator of {}",
           displs.size(), n);
  }
  layout l;
  l.counts.assign(counts.begin(), counts.end());
  l.displs.resize(n);
  std::size_t packed = 0;
  for (std::size_t r = 0; r < n; ++r) {
    l.displs[r] = displs.empty() ? packed : displs[r];
    packed += counts[r];
    if (l.displs[r] > buffer_bytes || counts[r] > buffer_bytes - l.displs[r]) {
      reject(t, c, errc::invalid_argument,
             "block {} ({} bytes at offset {}) lies outside the {} of {} bytes", r, counts[r],
             l.displs[r], buffer, buffer_bytes);
    }
  }
  return l;
}

// ---------------------------------------------------------------- checked mode
//
// With RMPL_CHECK_COLLECTIVES=1 every collective first agrees, with an allgather of a small record
// (the Bruck algorithm, on the collective's own tag, before its own messages), on what all ranks
// must pass alike: which collective, the root, the byte count, the operator, the counts of the
// v-forms that every rank gives. A disagreement fails the collective on every rank, with a message
// naming the ranks and their values, instead of hanging or mixing up data. It runs the
// point-to-point algorithms only: the shared-area ones number their rounds when they first run,
// and the agreement step could let two collectives in flight start in different orders on
// different ranks.

bool checking_from_environment() {
  const char* value = std::getenv("RMPL_CHECK_COLLECTIVES");
  if (value == nullptr || *value == '\0' || std::string_view(value) == "0") return false;
  if (std::string_view(value) == "1") return true;
  base::fail(errc::invalid_argument, "RMPL_CHECK_COLLECTIVES={} is neither 0 nor 1", value);
}

/// Asked a few times by every collective's start: inlined, it is a load and a branch.
[[gnu::always_inline]] inline bool checking() {
  static const bool on = checking_from_environment();
  return on;
}

agreement agree_on(collective c, int root = -1, std::size_t bytes = unchecked) {
  agreement a;
  a.kind = static_cast<std::uint64_t>(c);
  if (root >= 0) a.root = static_cast<std::uint64_t>(root);
  a.bytes = bytes;
  return a;
}
agreement with_op(agreement a, const reduction& op) {
  a.op = static_cast<std::uint64_t>(op.op) << 56 | static_cast<std::uint64_t>(op.type) << 48 |
         (op.element & 0xffffffffffff);
  return a;
}
agreement with_counts(agreement a, sizes counts) {
  std::uint64_t h = 0xcbf29ce484222325;  // FNV-1a over the counts
  for (std::size_t n : counts) h = (h ^ n) * 0x100000001b3;
  a.counts = h;
  return a;
}

/// "0", "0, 2", "1-3, 5": the ranks, runs shortened.
std::string ranks_text(const std::vector<int>& ranks) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += std::to_string(ranks[i]);
    if (j > i) out += (j == i + 1 ? ", " : "-") + std::to_string(ranks[j]);
    i = j + 1;
  }
  return out;
}

/// Exchanges every rank's record and fails, naming who passed what, on the first field the ranks
/// disagree on. Every rank sees all records, so every rank fails alike.
task agree(exchange x, agreement mine) {
  constexpr std::size_t fields = compared_fields;
  const auto n = static_cast<std::size_t>(x.size());
  std::vector<agreement> all(n);
  co_await x.run(allgather_bruck(x, std::as_bytes(std::span(&mine, 1)),
                                 std::as_writable_bytes(std::span(all))));
  // A rank that rejected its own arguments took part only so that the others fail with it: it
  // reports its own error (the step after this one), they name it.
  if (mine.failed != 0) co_return;
  std::vector<int> failed;
  for (std::size_t r = 0; r < n; ++r) {
    if (all[r].failed != 0) failed.push_back(static_cast<int>(r));
  }
  if (!failed.empty()) {
    const auto code = static_cast<errc>(all[static_cast<std::size_t>(failed[0])].failed);
    base::fail(code,
               "{} on rank {} (communicator of {}): {} {} rejected {} own arguments ({}; see {} "
               "error) (RMPL_CHECK_COLLECTIVES)",
               collective_names[mine.kind], x.rank(), x.size(),
               failed.size() == 1 ? "rank" : "ranks", ranks_text(failed),
               failed.size() == 1 ? "its" : "their", to_string(code),
               failed.size() == 1 ? "its" : "their");
  }
  for (std::size_t f = 0; f < fields; ++f) {
    auto field = [&](const agreement& a) { return a.field(f); };
    bool same = true;
    for (const agreement& a : all) same = same && field(a) == field(all[0]);
    if (same) continue;
    // Group the ranks by the value they passed, in the order the values first appear.
    std::vector<std::uint64_t> values;
    std::vector<std::vector<int>> who;
    for (std::size_t r = 0; r < n; ++r) {
      std::size_t k = 0;
      while (k < values.size() && values[k] != field(all[r])) ++k;
      if (k == values.size()) {
        values.push_back(field(all[r]));
        who.emplace_back();
      }
      who[k].push_back(static_cast<int>(r));
    }
    std::string groups;
    for (std::size_t k = 0; k < values.size(); ++k) {
      if (!groups.empty()) groups += "; ";
      groups += (who[k].size() == 1 ? "rank " : "ranks ") + ranks_text(who[k]) + ": " +
                value_text(f, values[k]);
    }
    base::fail(f == 0   ? errc::invalid_argument
               : f == 1 ? errc::invalid_rank
                        : errc::invalid_argument,
               "{} on rank {} (communicator of {}): the ranks disagree on {}: {} "
               "(RMPL_CHECK_COLLECTIVES)",
               collective_names[mine.kind], x.rank(), x.size(), field_name(f), groups);
  }
}

/// The agreement, then the algorithm.
task checked(exchange x, agreement mine, task body) {
  co_await x.run(agree(x, mine));
  co_await x.run(std::move(body));
}

/// Gives operation `op` its coroutine: `start` (the algorithm), after the agreement in the checked
/// mode.
template <class Start>
void prepare(operation& op, const target& t, const agreement& a, Start&& start) {
  exchange x(op, t.engine, t.comm, t.comm.next_collective_tag());
  op.set_comm(t.comm);
  if (checking()) {
    op.run(checked(x, a, start(x)));
  } else {
    op.run(start(x));
  }
}

/// Starts `algorithm` (named `name`) as collective `c` on the target; with t.to_end, runs it to
/// its end on this stack instead (no request, no activity, no operation on the heap: the fixed
/// cost of a short blocking collective) and returns null. In the checked mode it always starts
/// it: checked_start() tells this rank's argument errors from the collective's own by where they
/// are thrown, and waits itself.
template <class Start>
core::request* launch(const target& t, collective c, const agreement& a, std::string_view name,
                      std::size_t bytes, Start&& start) {
  const operation::label what{collective_names[static_cast<std::size_t>(c)], name, bytes,
                              t.comm.size};
  if (t.to_end && !checking()) {
    operation op(t.engine, nullptr, what);
    prepare(op, t, a, start);
    if (t.watch != nullptr) [[unlikely]]
      op.watch(*t.watch);
    op.sign(a);
    op.run_to_end();
    return nullptr;
  }
  auto op = std::make_unique<operation>(t.engine, t.keep, what);
  prepare(*op, t, a, start);
  op->launched(stall_position::of(t.comm), a);
  return t.engine.start_activity(std::move(op));
}

task nothing(exchange) {
  co_return;
}

/// Collectives started in the checked mode so far (see checked_starts()).
std::uint64_t checked_count = 0;

/// Takes part in collective `c`'s agreement as a rank that rejected its own arguments (`code`),
/// waits for it to end and ignores its outcome: this rank's own error is the one to report (a
/// dead peer is reported by the next call).
void join_as_rejected(const target& t, collective c, errc code) {
  agreement a = agree_on(c);
  a.failed = static_cast<std::uint64_t>(code);
  core::request* r = launch(t, c, a, "rejected", 0, [](exchange x) { return nothing(x); });
  try {
    t.engine.wait(r);
    t.engine.finish(r);
  } catch (const error&) {
  }
}

/// Runs `start` (a collective's checks and launch). In the checked mode a rank whose own
/// arguments fail the checks still takes part in the collective's agreement, flagged, so the
/// other ranks fail too instead of waiting for it; it waits for that agreement (which needs the
/// others to have called the collective, as the collective itself would), then throws its error.
template <class Start>
core::request* checked_start(const target& t, collective c, Start&& start) {
  if (!checking()) return start();
  ++checked_count;
  core::request* started = nullptr;
  try {
    started = start();
  } catch (const error& e) {
    join_as_rejected(t, c, e.code());
    throw;
  }
  if (!t.to_end) return started;
  // A blocking call in the checked mode: the collective's own errors (a disagreement, a dead
  // rank) come from this wait, outside the argument checks' handler above.
  t.engine.wait(started);
  t.engine.finish(started);
  return nullptr;
}

/// The largest alltoall (bytes per rank, all blocks) that goes through the areas by default: its
/// rounds carry a slice of every block, so long blocks take many rounds, each of which waits for
/// every member (forced shared over linear, 4 ranks: 64 KiB blocks 2.8x the time, 1 MiB 3.6x).
constexpr std::size_t alltoall_shared_max = 512u << 10;

/// Whether the shared-area algorithms may run: the communicator has an area, and the checked mode
/// is off (see above). Inlined: the short protocol's choice asks it on every call.
[[gnu::always_inline]] inline bool area_usable(const target& t) {
  return t.comm.area >= 0 && !checking();
}

bool is_pow2(int n) {
  return (n & (n - 1)) == 0;
}

/// Whether the hierarchical algorithms (hierarchical.cpp) may run: a blocking call outside the
/// checked mode, on a communicator that spans hosts with several members on some host.
bool hierarchy_usable(const target& t) {
  return t.comm.hosts != nullptr && t.to_end && !checking();
}

/// The call's tags on the node and leaders communicators, taken now (at the call, in program order,
/// as every member takes them).
level_tags take_level_tags(const target& t) {
  const core::hierarchy& h = *t.comm.hosts;
  return {h.node->next_collective_tag(),
          h.leaders != nullptr ? h.leaders->next_collective_tag() : 0};
}

/// Whether a round of the shared areas holds at least one element of `op` (a user operator's
/// elements may be larger than a round buffer; its reductions then go over messages).
bool area_fits(const target& t, const reduction& op) {
  return op.element <= shared_area::chunk_for(t.engine.node().area_bytes());
}

/// Whether rendezvous messages move in one copy (process_vm_readv) on this job: the same answer
/// on every rank (the fabric agrees on it at startup), so every rank picks the same algorithm.
bool single_copy(const target& t) {
  return t.engine.single_copy();
}

/// Whether a rooted collective of `bytes` goes through the shared areas when not forced. Measured
/// with bench/collectives (docs/benchmarks.md): with two ranks up to `two_rank_max`. A longer
/// broadcast goes faster as one message that the receiver copies once from the root's buffer
/// (single copy) than copied into the area and out again (2026-11-23, Intel host, medians of 8
/// pairs, binomial over shared: 16 KiB 1.22x the time, 32 KiB 1.12x, 64 KiB 0.91-0.94x, 256 KiB
/// 0.75x, 1 MiB 0.45x); without single copy it stays in the areas up to 4 MiB. A reduce, which
/// folds anyway, wins through the areas at every size (1 MiB: messages 2.2x the time). With more
/// ranks from `many_rank_min`: below it a binomial tree's inline messages cost less than a round's
/// fixed cost (a coroutine, an operation, the flag words). A reduce's rounds go in lockstep, so
/// its tree, whose leaves run ahead, wins up to 16 KiB; a broadcast's root runs ahead through the
/// areas too (core/area_ring.hpp), which wins from 512 B (medians of 6 pairs of forced runs,
/// shared over binomial with 3, 4 and 8 ranks: 128 B 1.12-1.23x the time, 256 B 0.94-1.07, 512 B
/// 0.82-1.03, 4 KiB 0.58-0.79; 1 KiB 0.58 and 0.70 with 4 and 8 ranks).
bool shared_suits(const target& t, std::size_t bytes, std::size_t two_rank_max,
                  std::size_t many_rank_min) {
  if (!area_usable(t)) return false;
  return t.comm.size <= 2 ? bytes <= two_rank_max : bytes >= many_rank_min;
}

/// Whether an allgather or alltoall may go the shared way by default: with more than 2 ranks one
/// wait per round beats a message round per step (4 and 8 ranks on 2 cores, 8 B to 64 KiB blocks:
/// 0.23-0.9x the time of Bruck's, recursive doubling or the ring, in back-to-back pairs on
/// 2026-11-22). With 2 ranks either way is one exchange, and messages measured no slower.
bool shared_exchange_suits(const target& t) {
  return area_usable(t) && t.comm.size > 2;
}

/// The algorithm forced for `c`, with "shared" and "short" read as "auto" on a communicator
/// without an area.
std::string_view chosen(const target& t, collective c) {
  const std::string_view name = forced(c);
  return (is(name, "shared") || is(name, "short")) && !area_usable(t) ? "auto" : name;
}

/// Whether a call takes the short protocol (shared_short.hpp) without further choice: a blocking
/// one that nothing forces, whose payload `fits` (at most short_max bytes per rank; a broadcast's,
/// reduce's or allreduce's in at most payload_lines_max lines, an alltoall's blocks in at most
/// short_lines_max), on a communicator with an area, outside the checked mode, at any rank count.
/// Asked first, before the rest of the automatic choice: it is the fixed cost of every short
/// blocking collective. In interleaved runs (2026-11-22, loaded machine) the short protocol took
/// 0.38-0.40 of the time of the algorithms it replaced at 2 ranks ("shared"), 0.82-0.89 at 4 and
/// 0.87-0.98 at 8 ("shared" barrier, binomial broadcast and reduce); 8 B allgather and alltoall
/// blocks (2026-11-23, loaded, 19 pairs): 0.74 and 0.40-0.52 at 2 ranks (recursive doubling,
/// linear), 0.80-0.93 at 4 and 8 ("shared").
/// Always inlined: called, it cost an 8 B barrier 15 instructions (2026-11-29).
[[gnu::always_inline]] inline bool short_by_default(const target& t, collective c, bool fits) {
  return t.to_end && fits && area_usable(t) && !algorithm_forced(c);
}
/// Whether a call forced to "short" (RMPL_COLL_<NAME>=short) takes it: a blocking one whose
/// payload `fits` the protocol at all, on a communicator with an area. One that cannot runs
/// "shared" instead (short_or_shared).
bool short_forced(const target& t, collective c, bool fits) {
  return t.to_end && fits && area_usable(t) && algorithm_forced(c) && is(forced(c), "short");
}
/// The algorithm forced for `c` (chosen()), with "short" read as "shared": for a call that did
/// not take the short protocol although it was forced.
std::string_view short_or_shared(const target& t, collective c) {
  const std::string_view name = chosen(t, c);
  return is(name, "short") ? "shared" : name;
}
/// Whether a blocking call that does not take the short protocol publishes its entry in its short
/// call (shared_short.hpp, "straddles"): ranks whose counts differ may have taken the protocol.
/// Not when another algorithm is forced: every rank runs that one.
bool others_may_take_short(const target& t, collective c) {
  return t.to_end && area_usable(t) && (!algorithm_forced(c) || is(forced(c), "short"));
}

/// Runs a short call (`run`): true when it ran; false when it met a straddle (shared_short.hpp),
/// with `by` set to the bytes whose algorithm this rank runs instead.
template <class Run>
bool ran_short(std::size_t& by, Run&& run) {
  try {
    run();
    return true;
  } catch (const runs_elsewhere& other) {
    by = other.bytes;
    return false;
  }
}

}  // namespace

void check_environment() {
  check_algorithm_variables();
  (void)checking();
}

bool checking_collectives() noexcept {
  return checking();
}

std::uint64_t checked_starts() noexcept {
  return checked_count;
}

void join_rejected(const target& t, collective c, errc code) {
  if (checking()) join_as_rejected(t, c, code);
}

core::request* start_barrier(const target& t) {
  return checked_start(t, collective::barrier, [&]() -> core::request* {
    constexpr auto c = collective::barrier;
    if (short_by_default(t, c, true) || short_forced(t, c, true)) {
      barrier_short(t.engine, t.comm);
      return nullptr;
    }
    const agreement a = agree_on(c);
    std::string_view name = short_or_shared(t, c);
    if (is(name, "auto")) {
      name = area_usable(t) ? "shared" : hierarchy_usable(t) ? "hierarchical" : "dissemination";
    }
    if (is(name, "shared"))
      return launch(t, c, a, name, 0, [&](exchange x) { return barrier_shared(x); });
    if (is(name, "hierarchical") && hierarchy_usable(t)) {
      return launch(t, c, a, name, 0,
                    [&](exchange x) { return barrier_hierarchical(x, take_level_tags(t)); });
    }
    return launch(t, c, a, "dissemination", 0,
                  [&](exchange x) { return barrier_dissemination(x); });
  });
}

core::request* start_broadcast(const target& t, bytes data, int root) {
  return checked_start(t, collective::broadcast, [&]() -> core::request* {
    constexpr auto c = collective::broadcast;
    check_root(t, c, root);
    const agreement a = agree_on(c, root, data.size());
    check_buffer(t, c, data, "buffer");
    const bool short_fits = payload_fits(data.size());
    // The bytes whose algorithm this rank runs: its own, or the root's (straddles).
    std::size_t by = data.size();
    bool watch_root = false;
    if (short_by_default(t, c, data.size() <= broadcast_short_max && short_fits) ||
        short_forced(t, c, short_fits)) {
      if (ran_short(by, [&] { broadcast_short(t.engine, t.comm, data, root); })) return nullptr;
    } else if (others_may_take_short(t, c)) {
      if (t.comm.rank == root) {
        enter_elsewhere(t.engine, t.comm, "broadcast", data.size());
      } else {
        watch_root = true;  // the root may have taken the protocol (its count within the limit)
      }
    }
    entry_watch watch;
    std::optional<target> watching;  // made only here: a target copy costs an atomic increment
    if (watch_root) {
      watch = {pass_short_call(t.engine, t.comm), root};
      watching.emplace(t).watch = &watch;
    }
    const target& watched = watching ? *watching : t;
    std::string_view name = short_or_shared(t, c);
    if (is(name, "auto")) {
      name = shared_suits(t, by, single_copy(t) ? 32u << 10 : 4u << 20, 512) ? "shared"
             : hierarchy_usable(t)                                           ? "hierarchical"
             : t.comm.size <= 2 || by < (256u << 10)                         ? "binomial"
                                                                             : "scatter_allgather";
    }
    if (is(name, "shared")) {
      return launch(watched, c, a, name, data.size(),
                    [&](exchange x) { return broadcast_shared(x, data, root); });
    }
    if (is(name, "hierarchical") && hierarchy_usable(t)) {
      return launch(watched, c, a, name, data.size(), [&](exchange x) {
        return broadcast_hierarchical(x, data, root, take_level_tags(t));
      });
    }
    if (is(name, "scatter_allgather")) {
      return launch(watched, c, a, name, data.size(),
                    [&](exchange x) { return broadcast_scatter_allgather(x, data, root); });
    }
    return launch(watched, c, a, "binomial", data.size(),
                  [&](exchange x) { return broadcast_binomial(x, data, root); });
  });
}

core::request* start_reduce(const target& t, const_bytes in, bytes out, const reduction& op,
                            int root) {
  return checked_start(t, collective::reduce, [&]() -> core::request* {
    constexpr auto c = collective::reduce;
    check_root(t, c, root);
    check_reduction(t, c, in, op);
    const agreement a = with_op(agree_on(c, root, in.size()), op);
    check_buffers(t, c, in, t.comm.rank == root ? out : bytes{});
    if (t.comm.rank == root) check_room(t, c, out.size(), in.size(), "receive buffer");
    const std::size_t count = in.size() / op.element;
    // Binary swap serves any operator (it combines in rank order); it needs a block per new rank.
    const bool halving_fits = count >= static_cast<std::size_t>(floor_pow2(t.comm.size));
    if (short_by_default(t, c, in.size() <= reduce_short_max && payload_fits(in.size())) ||
        short_forced(t, c, payload_fits(in.size()))) {
      reduce_short(t.engine, t.comm, in, out, op, root);
      return nullptr;
    }
    // A short root finds this entry and fails; this rank watches the others (straddles).
    entry_watch watch;
    std::optional<target> watching;
    if (others_may_take_short(t, c)) {
      watch = {enter_elsewhere(t.engine, t.comm, "reduce", in.size(), root, false), -1};
      watching.emplace(t).watch = &watch;
    }
    const target& watched = watching ? *watching : t;
    std::string_view name = short_or_shared(t, c);
    if (is(name, "auto")) {
      name = shared_suits(t, in.size(), ~std::size_t{0}, 16u << 10) && area_fits(t, op) ? "shared"
             : hierarchy_usable(t) && op.commutative && area_fits(t, op) ? "hierarchical"
             : halving_fits && in.size() >= (64u << 10)                  ? "rabenseifner"
                                                                         : "binomial";
    }
    if (is(name, "shared") && area_fits(t, op)) {
      return launch(watched, c, a, name, in.size(),
                    [&](exchange x) { return reduce_shared(x, in, out, op, root); });
    }
    if (is(name, "hierarchical") && hierarchy_usable(t) && op.commutative && area_fits(t, op)) {
      return launch(watched, c, a, name, in.size(), [&](exchange x) {
        return reduce_hierarchical(x, in, out, op, root, take_level_tags(t));
      });
    }
    if (is(name, "rabenseifner") && halving_fits) {
      return launch(watched, c, a, name, in.size(),
                    [&](exchange x) { return reduce_rabenseifner(x, in, out, op, root); });
    }
    return launch(watched, c, a, "binomial", in.size(),
                  [&](exchange x) { return reduce_binomial(x, in, out, op, root); });
  });
}

core::request* start_context_claim(const target& t, std::shared_ptr<context_claim> out) {
  // Named an allreduce of the free masks for the checked mode, as it is one (and a second, short
  // one when the members' choices are compared).
  constexpr auto c = collective::allreduce;
  const agreement a = agree_on(c, -1, (core::context_pool::pairs / 64 + 1) * 8);
  return launch(t, c, a, "context_claim", 0,
                [&](exchange x) { return claim_context(x, std::move(out)); });
}

namespace {
task claim_local_then_between(exchange x, exchange across, std::uint64_t extra, bool with_area,
                              std::shared_ptr<context_claim> out,
                              std::shared_ptr<context_claim> local_group_out) {
  // Sequential parts of one collective on the local group: they share its tag.
  co_await x.run(claim_context(x, std::move(local_group_out)));
  co_await x.run(claim_context_between(x, across, extra, with_area, std::move(out)));
}
}  // namespace

core::request* start_context_claim_between(const target& local, core::communicator& inter,
                                           std::uint64_t extra, bool with_area,
                                           std::shared_ptr<context_claim> out,
                                           std::shared_ptr<context_claim> local_group_out) {
  constexpr auto c = collective::allreduce;
  const agreement a = agree_on(c, -1, (core::context_pool::pairs / 64 + 2) * 8);
  // The intercommunicator's collective number, taken here, at the call, as every member of both
  // groups takes it (the leaders swap on it).
  const int across_tag = inter.next_collective_tag();
  return launch(local, c, a, "context_claim_between", 0, [&](exchange x) {
    if (local_group_out) {
      return claim_local_then_between(x, x.across(inter, across_tag), extra, with_area,
                                      std::move(out), std::move(local_group_out));
    }
    return claim_context_between(x, x.across(inter, across_tag), extra, with_area, std::move(out));
  });
}

core::request* start_allreduce(const target& t, const_bytes in, bytes out, const reduction& op) {
  return checked_start(t, collective::allreduce, [&]() -> core::request* {
    constexpr auto c = collective::allreduce;
    check_reduction(t, c, in, op);
    const agreement a = with_op(agree_on(c, -1, in.size()), op);
    check_buffers(t, c, in, out);
    check_room(t, c, out.size(), in.size(), "receive buffer");
    // The bytes whose algorithm this rank runs: its own, or those of a rank that took another
    // algorithm than the short protocol (straddles).
    std::size_t by = in.size();
    if (short_by_default(t, c, in.size() <= allreduce_short_max && payload_fits(in.size())) ||
        short_forced(t, c, payload_fits(in.size()))) {
      if (ran_short(by, [&] { allreduce_short(t.engine, t.comm, in, out, op); })) return nullptr;
    } else if (others_may_take_short(t, c)) {
      enter_elsewhere(t.engine, t.comm, "allreduce", in.size());
    }
    std::string_view name = short_or_shared(t, c);
    if (is(name, "auto")) {
      name = area_usable(t) && area_fits(t, op)                          ? "shared"
             : hierarchy_usable(t) && op.commutative && area_fits(t, op) ? "hierarchical"
             : by >= (16u << 10)                                         ? "rabenseifner"
                                                                         : "recursive_doubling";
    }
    if (is(name, "shared") && area_fits(t, op)) {
      return launch(t, c, a, name, in.size(),
                    [&](exchange x) { return allreduce_shared(x, in, out, op); });
    }
    if (is(name, "hierarchical") && hierarchy_usable(t) && op.commutative && area_fits(t, op)) {
      return launch(t, c, a, name, in.size(), [&](exchange x) {
        return allreduce_hierarchical(x, in, out, op, take_level_tags(t));
      });
    }
    // The ring reorders operands: non-commutative operators take the halving (binary swap), which
    // keeps rank order.
    if (is(name, "ring") && !op.commutative) name = "rabenseifner";
    if (is(name, "rabenseifner")) {
      return launch(t, c, a, name, in.size(),
                    [&](exchange x) { return allreduce_rabenseifner(x, in, out, op); });
    }
    if (is(name, "ring")) {
      return launch(t, c, a, name, in.size(),
                    [&](exchange x) { return allreduce_ring(x, in, out, op); });
    }
    if (is(name, "reduce_broadcast")) {
      return launch(t, c, a, name, in.size(),
                    [&](exchange x) { return allreduce_reduce_broadcast(x, in, out, op); });
    }
    return launch(t, c, a, "recursive_doubling", in.size(),
                  [&](exchange x) { return allreduce_recursive_doubling(x, in, out, op); });
  });
}

core::request* start_scan(const target& t, const_bytes in, bytes out, const reduction& op,
                          bool exclusive) {
  return checked_start(
      t, exclusive ? collective::exscan : collective::scan, [&]() -> core::request* {
        const auto c = exclusive ? collective::exscan : collective::scan;
        check_reduction(t, c, in, op);
        const agreement a = with_op(agree_on(c, -1, in.size()), op);
        check_buffers(t, c, in, out);
        if (!exclusive || t.comm.rank > 0)
          check_room(t, c, out.size(), in.size(), "receive buffer");
        if (forced(c) == "linear") {
          return launch(t, c, a, "linear", in.size(),
                        [&](exchange x) { return scan_linear(x, in, out, op, exclusive); });
        }
        return launch(t, c, a, "recursive_doubling", in.size(), [&](exchange x) {
          return scan_recursive_doubling(x, in, out, op, exclusive);
        });
      });
}

namespace {

core::request* start_reduce_scatter_layout(const target& t, collective c, const agreement& a,
                                           const_bytes in, bytes out, layout recv,
                                           const reduction& op) {
  const std::size_t mine = recv.count(t.comm.rank);
  check_room(t, c, out.size(), mine, "receive buffer");
  for (int r = 0; r < t.comm.size; ++r) {
    if (recv.count(r) % op.element != 0) {
      reject(t, c, errc::invalid_argument,
             "rank {}'s share of {} bytes is not a whole number "
             "of {}-byte elements",
             r, recv.count(r), op.element);
    }
  }
  std::string_view name = forced(c);
  if (is(name, "auto")) {
    name = !op.commutative            ? "reduce_scatterv"
           : in.size() < (512u << 10) ? "recursive_halving"
                                      : "pairwise";
  }
  if (!op.commutative) name = "reduce_scatterv";
  const std::size_t total = in.size();
  if (is(name, "recursive_halving")) {
    return launch(t, c, a, name, total, [&](exchange x) {
      return reduce_scatter_recursive_halving(x, in, out, std::move(recv), op);
    });
  }
  if (is(name, "pairwise")) {
    return launch(t, c, a, name, total, [&](exchange x) {
      return reduce_scatter_pairwise(x, in, out, std::move(recv), op);
    });
  }
  return launch(t, c, a, "reduce_scatterv", total, [&](exchange x) {
    return reduce_scatter_reduce_scatterv(x, in, out, std::move(recv), op);
  });
}

}  // namespace

core::request* start_reduce_scatter_block(const target& t, const_bytes in, bytes out,
                                          const reduction& op) {
  return checked_start(t, collective::reduce_scatter_block, [&]() -> core::request* {
    constexpr auto c = collective::reduce_scatter_block;
    check_reduction(t, c, in, op);
    const std::size_t block = out.size();
    check_room(t, c, in.size(), block * static_cast<std::size_t>(t.comm.size), "send buffer");
    const agreement a = with_op(agree_on(c, -1, block), op);
    check_buffers(t, c, in, out);
    return start_reduce_scatter_layout(t, c, a,
                                       in.first(block * static_cast<std::size_t>(t.comm.size)), out,
                                       layout::uniform(t.comm.size, block), op);
  });
}

core::request* start_reduce_scatter(const target& t, const_bytes in, bytes out, sizes counts,
                                    const reduction& op) {
  return checked_start(t, collective::reduce_scatter, [&]() -> core::request* {
    constexpr auto c = collective::reduce_scatter;
    check_reduction(t, c, in, op);
    layout recv = checked_layout(t, c, counts, {}, in.size(), "send buffer");
    const std::size_t total = std::accumulate(counts.begin(), counts.end(), std::size_t{0});
    const agreement a = with_op(with_counts(agree_on(c), counts), op);
    check_buffers(t, c, in, out);
    return start_reduce_scatter_layout(t, c, a, in.first(total), out, std::move(recv), op);
  });
}

core::request* start_gather(const target& t, const_bytes in, bytes out, int root) {
  return checked_start(t, collective::gather, [&]() -> core::request* {
    constexpr auto c = collective::gather;
    check_root(t, c, root);
    const agreement a = agree_on(c, root, in.size());
    check_buffers(t, c, in, t.comm.rank == root ? out : bytes{});
    const std::size_t n = static_cast<std::size_t>(t.comm.size);
    if (t.comm.rank == root) check_room(t, c, out.size(), n * in.size(), "receive buffer");
    std::string_view name = forced(c);
    if (is(name, "auto")) name = in.size() < 2048 ? "binomial" : "linear";
    if (is(name, "binomial")) {
      return launch(t, c, a, name, in.size(),
                    [&](exchange x) { return gather_binomial(x, in, out, root); });
    }
    layout blocks = t.comm.rank == root ? layout::uniform(t.comm.size, in.size()) : layout{};
    return launch(t, c, a, "linear", in.size(),
                  [&](exchange x) { return gatherv_linear(x, in, out, std::move(blocks), root); });
  });
}

core::request* start_gatherv(const target& t, const_bytes in, bytes out, sizes counts, sizes displs,
                             int root) {
  return checked_start(t, collective::gatherv, [&]() -> core::request* {
    constexpr auto c = collective::gatherv;
    check_root(t, c, root);
    const agreement a = agree_on(c, root);
    check_buffers(t, c, in, t.comm.rank == root ? out : bytes{});
    layout blocks;
    if (t.comm.rank == root) {
      blocks = checked_layout(t, c, counts, displs, out.size(), "receive buffer");
      if (in.size() != blocks.count(root)) {
        reject(t, c, errc::invalid_argument, "the root sends {} bytes but its count says {}",
               in.size(), blocks.count(root));
      }
    }
    return launch(t, c, a, "linear", in.size(),
                  [&](exchange x) { return gatherv_linear(x, in, out, std::move(blocks), root); });
  });
}

core::request* start_scatter(const target& t, const_bytes in, bytes out, int root) {
  return checked_start(t, collective::scatter, [&]() -> core::request* {
    constexpr auto c = collective::scatter;
    check_root(t, c, root);
    const agreement a = agree_on(c, root, out.size());
    check_buffers(t, c, t.comm.rank == root ? in : const_bytes{}, out);
    const std::size_t n = static_cast<std::size_t>(t.comm.size);
    if (t.comm.rank == root) check_room(t, c, in.size(), n * out.size(), "send buffer");
    std::string_view name = forced(c);
    if (is(name, "auto")) name = out.size() < 2048 ? "binomial" : "linear";
    if (is(name, "binomial")) {
      return launch(t, c, a, name, out.size(),
                    [&](exchange x) { return scatter_binomial(x, in, out, root); });
    }
    layout blocks = t.comm.rank == root ? layout::uniform(t.comm.size, out.size()) : layout{};
    return launch(t, c, a, "linear", out.size(),
                  [&](exchange x) { return scatterv_linear(x, in, std::move(blocks), out, root); });
  });
}

core::request* start_scatterv(const target& t, const_bytes in, sizes counts, sizes displs,
                              bytes out, int root) {
  return checked_start(t, collective::scatterv, [&]() -> core::request* {
    constexpr auto c = collective::scatterv;
    check_root(t, c, root);
    const agreement a = agree_on(c, root);
    check_buffers(t, c, t.comm.rank == root ? in : const_bytes{}, out);
    layout blocks;
    if (t.comm.rank == root) {
      blocks = checked_layout(t, c, counts, displs, in.size(), "send buffer");
      check_room(t, c, out.size(), blocks.count(root), "receive buffer");
    }
    return launch(t, c, a, "linear", out.size(),
                  [&](exchange x) { return scatterv_linear(x, in, std::move(blocks), out, root); });
  });
}

core::request* start_allgather(const target& t, const_bytes in, bytes out) {
  return checked_start(t, collective::allgather, [&]() -> core::request* {
    constexpr auto c = collective::allgather;
    const agreement a = agree_on(c, -1, in.size());
    check_buffers(t, c, in, out);
    const int n = t.comm.size;
    const std::size_t total = static_cast<std::size_t>(n) * in.size();
    check_room(t, c, out.size(), total, "receive buffer");
    std::size_t by = in.size();  // as allreduce
    if (short_by_default(t, c, in.size() <= short_max) ||
        short_forced(t, c, in.size() <= short_max)) {
      if (ran_short(by, [&] { allgather_short(t.engine, t.comm, in, out); })) return nullptr;
    } else if (others_may_take_short(t, c)) {
      enter_elsewhere(t.engine, t.comm, "allgather", in.size());
    }
    std::string_view name = short_or_shared(t, c);
    if (is(name, "auto")) {
      // The areas at every size: each rank copies its block in once and every block out once,
      // where the ring's p - 1 steps each wait for a peer to be scheduled (2026-11-27, AMD host,
      // medians of 4-6 interleaved pairs, forced shared over ring: 256 KiB blocks 0.66x the time
      // with 3 ranks, 0.70x with 4, 0.51x with 5, 0.44x with 8; 1 MiB blocks 0.81x, 0.72-0.80x,
      // 0.56x, 0.62x).
      name = shared_exchange_suits(t)                          ? "shared"
             : static_cast<std::size_t>(n) * by >= (64u << 10) ? "ring"
             : is_pow2(n)                                      ? "recursive_doubling"
                                                               : "bruck";
    }
    if (is(name, "recursive_doubling") && !is_pow2(n)) name = "bruck";
    if (is(name, "shared")) {
      return launch(t, c, a, name, in.size(),
                    [&](exchange x) { return allgather_shared(x, in, out); });
    }
    if (is(name, "recursive_doubling")) {
      return launch(t, c, a, name, in.size(),
                    [&](exchange x) { return allgather_recursive_doubling(x, in, out); });
    }
    if (is(name, "bruck")) {
      return launch(t, c, a, name, in.size(),
                    [&](exchange x) { return allgather_bruck(x, in, out); });
    }
    return launch(t, c, a, "ring", in.size(), [&](exchange x) {
      return allgather_ring(x, in, out, layout::uniform(n, in.size()));
    });
  });
}

core::request* start_allgatherv(const target& t, const_bytes in, bytes out, sizes counts,
                                sizes displs) {
  return checked_start(t, collective::allgatherv, [&]() -> core::request* {
    constexpr auto c = collective::allgatherv;
    const agreement a = with_counts(agree_on(c), counts);
    check_buffers(t, c, in, out);
    layout blocks = checked_layout(t, c, counts, displs, out.size(), "receive buffer");
    if (in.size() != blocks.count(t.comm.rank)) {
      reject(t, c, errc::invalid_argument, "this rank sends {} bytes but its count says {}",
             in.size(), blocks.count(t.comm.rank));
    }
    return launch(t, c, a, "ring", in.size(),
                  [&](exchange x) { return allgather_ring(x, in, out, std::move(blocks)); });
  });
}

core::request* start_alltoall(const target& t, const_bytes in, bytes out) {
  return checked_start(t, collective::alltoall, [&]() -> core::request* {
    constexpr auto c = collective::alltoall;
    const agreement a = agree_on(c, -1, in.size());
    check_buffers(t, c, in, out);
    const int n = t.comm.size;
    if (in.size() % static_cast<std::size_t>(n) != 0) {
      reject(t, c, errc::invalid_argument, "{} bytes do not split into {} equal blocks", in.size(),
             n);
    }
    check_room(t, c, out.size(), in.size(), "receive buffer");
    const std::size_t block = in.size() / static_cast<std::size_t>(n);
    const bool short_fits = alltoall_short_lines(n, block) <= short_lines_max;
    std::size_t by = block;  // as allreduce
    if (short_by_default(t, c, short_fits) || short_forced(t, c, short_fits)) {
      if (ran_short(by, [&] { alltoall_short(t.engine, t.comm, in, out); })) return nullptr;
    } else if (others_may_take_short(t, c)) {
      enter_elsewhere(t.engine, t.comm, "alltoall", block);
    }
    std::string_view name = short_or_shared(t, c);
    if (is(name, "auto")) {
      // Blocks of 32 KiB and more go faster as messages, each copied once by a rendezvous
      // (single copy), than twice through the areas: linear over shared 0.77-0.83x the time at
      // 32 KiB, 0.62-0.72x at 64 KiB with 4 and 8 ranks; 1.01-1.02x at 16 KiB. And all at once
      // (linear) rather than pairwise: 0.91x at 1 MiB (2026-11-23, medians of 5 pairs). Without
      // single copy a message is copied twice too, and the areas keep every size they take.
      const bool as_messages = single_copy(t) && by >= (32u << 10);
      name = shared_exchange_suits(t) && static_cast<std::size_t>(n) * by <= alltoall_shared_max &&
                     !as_messages
                 ? "shared"
             : by <= 128 && n > 2 ? "bruck"
                                  : "linear";
    }
    if (is(name, "shared")) {
      return launch(t, c, a, name, block, [&](exchange x) { return alltoall_shared(x, in, out); });
    }
    if (is(name, "bruck")) {
      return launch(t, c, a, name, block, [&](exchange x) { return alltoall_bruck(x, in, out); });
    }
    layout blocks = layout::uniform(n, block);
    if (is(name, "pairwise")) {
      return launch(t, c, a, name, block,
                    [&](exchange x) { return alltoall_pairwise(x, in, blocks, out, blocks); });
    }
    return launch(t, c, a, "linear", block,
                  [&](exchange x) { return alltoall_linear(x, in, blocks, out, blocks); });
  });
}

core::request* start_alltoallv(const target& t, const_bytes in, sizes send_counts,
                               sizes send_displs, bytes out, sizes recv_counts, sizes recv_displs) {
  return checked_start(t, collective::alltoallv, [&]() -> core::request* {
    constexpr auto c = collective::alltoallv;
    const agreement a = agree_on(c);
    check_buffers(t, c, in, out);
    layout send = checked_layout(t, c, send_counts, send_displs, in.size(), "send buffer");
    layout recv = checked_layout(t, c, recv_counts, recv_displs, out.size(), "receive buffer");
    const std::size_t total =
        std::accumulate(send_counts.begin(), send_counts.end(), std::size_t{0});
    if (forced(c) == "pairwise") {
      return launch(t, c, a, "pairwise", total, [&](exchange x) {
        return alltoall_pairwise(x, in, std::move(send), out, std::move(recv));
      });
    }
    return launch(t, c, a, "linear", total, [&](exchange x) {
      return alltoall_linear(x, in, std::move(send), out, std::move(recv));
    });
  });
}

}  // namespace rmpl::coll

namespace rmpl::coll {
namespace {

/// One side of a neighbourhood exchange, checked: a peer per block, each a rank of the
/// communicator or proc_null, and every block inside the buffer.
neighbors checked_neighbors(const target& t, std::span<const int> peers, sizes counts, sizes displs,
                            std::size_t buffer_bytes, const char* side, const char* buffer) {
  constexpr auto c = collective::neighbor_exchange;
  if (counts.size() != peers.size() || displs.size() != peers.size()) {
    reject(t, c, errc::invalid_argument, "{} {}s with {} {} counts and {} displacements",
           peers.size(), side, counts.size(), side, displs.size());
  }
  neighbors n;
  n.peers.assign(peers.begin(), peers.end());
  n.blocks.counts.assign(counts.begin(), counts.end());
  n.blocks.displs.assign(displs.begin(), displs.end());
  for (std::size_t i = 0; i < peers.size(); ++i) {
    if (peers[i] != proc_null && (peers[i] < 0 || peers[i] >= t.comm.size)) {
      reject(t, c, errc::invalid_rank, "{} {} is rank {}, not a rank of the communicator", side, i,
             peers[i]);
    }
    if (displs[i] > buffer_bytes || counts[i] > buffer_bytes - displs[i]) {
      reject(t, c, errc::invalid_argument,
             "the block of {} {} ({} bytes at offset {}) lies outside the {} of {} bytes", side, i,
             counts[i], displs[i], buffer, buffer_bytes);
    }
  }
  return n;
}

}  // namespace

core::request* start_neighbor_exchange(const target& t, const_bytes in,
                                       std::span<const int> destinations, sizes send_counts,
                                       sizes send_displs, bytes out, std::span<const int> sources,
                                       sizes recv_counts, sizes recv_displs) {
  return checked_start(t, collective::neighbor_exchange, [&]() -> core::request* {
    constexpr auto c = collective::neighbor_exchange;
    // Only the collective itself is agreed on: each rank's neighbours and counts are its own.
    const agreement a = agree_on(c);
    check_buffers(t, c, in, out);
    neighbors to = checked_neighbors(t, destinations, send_counts, send_displs, in.size(),
                                     "destination", "send buffer");
    neighbors from = checked_neighbors(t, sources, recv_counts, recv_displs, out.size(), "source",
                                       "receive buffer");
    const std::size_t total =
        std::accumulate(send_counts.begin(), send_counts.end(), std::size_t{0});
    return launch(t, c, a, "linear", total, [&](exchange x) {
      return neighbor_exchange(x, in, std::move(to), out, std::move(from));
    });
  });
}

}  // namespace rmpl::coll
