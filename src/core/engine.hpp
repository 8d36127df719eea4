// The communication kernel: one per process. It turns sends and receives into cells in the directed
// pair rings of the fabric, picks a protocol by size (inline cell, eager slot, rendezvous with
// single copy or the pipelined fallback), matches arrivals against posted receives, and drives
// everything with one progress engine. Every blocking call waits through wait_until(): spin
// briefly, then sleep on this rank's doorbell.
#pragma once

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "core/area_pool.hpp"
#include "core/buffer_account.hpp"
#include "core/cell_check.hpp"
#include "core/context_pool.hpp"
#include "core/envelope.hpp"
#include "core/matching.hpp"
#include "core/request.hpp"
#include "core/threads.hpp"
#include "core/wire.hpp"
#include "fabric/provider.hpp"
#include "fabric/shm/assist.hpp"
#include "fabric/shm/bounce.hpp"
#include "fabric/shm/domain.hpp"
#include "fabric/shm/ring.hpp"
#include "rmpl/types.hpp"
#include "runtime/local/job.hpp"

namespace rmpl::core {

/// Thresholds and limits read once at start-up (RMPL_* variables).
struct tuning {
  std::size_t eager_max = 0;       ///< from the segment: larger messages go by rendezvous
  std::size_t max_unexpected = 0;  ///< RMPL_UNEXPECTED_MAX descriptors
  unsigned spin_polls = 0;         ///< RMPL_SPIN: empty polls before sleeping
  bool yield_when_idle = false;    ///< RMPL_YIELD: give the core away between empty polls
  std::size_t drain_batch = 0;  ///< cells taken from one ring per pass (fairness between sources)
  unsigned fast_polls = 0;      ///< polls of one ring by a blocking receive before the general path
  std::size_t assist_min = 0;   ///< RMPL_ASSIST_MIN: rendezvous this large are copied by both sides
  std::size_t assist_chunk = 0;  ///< RMPL_ASSIST_CHUNK: the unit either side claims
  std::size_t inline_max = 0;    ///< from the segment: larger messages leave the ring's cells
};

class engine {
 public:
  engine();
  /// Finalizes, as the destructor would if this had not run: pushes out what the rank still owes
  /// its peers and waits for every rank. Throws errc::dead_rank when a rank died first (before or
  /// during this wait); the engine is finalized either way and the destructor does nothing more.
  /// For callers that must report that failure (MPI_Finalize), which a destructor cannot.
  void finalize();
  ~engine();
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  /// The host of job rank r (runtime/local/job.hpp: one host, unless tests pretend more).
  int host_of(int r) const noexcept { return job_.host_of(r); }
  /// Whether the job ranks `members` all share this process's host: only then may a
  /// communicator of theirs use the node's shared areas (node()).
  bool all_on_my_host(const std::vector<int>& members) const noexcept {
    const int mine = host_of(rank_);
    for (int r : members) {
      if (host_of(r) != mine) return false;
    }
    return true;
  }
  /// Whether job rank r is reached through a message provider (it is on another host).
  bool remote(int r) const noexcept { return remote_map_ != nullptr && remote_map_[r] != 0; }
  /// The collective areas, stall notes and doorbells of the ranks on this node
  /// (fabric/node_segment.hpp).
  const fabric::node_segment& node() const noexcept { return dom_.node(); }
  /// Whether a receiver copies a rendezvous straight out of its sender's memory (and sends and
  /// receives may be in segments, start_send/start_recv below): the same on every rank.
  bool single_copy() const noexcept { return dom_.single_copy(); }
  /// Wakes this rank's wait if it sleeps (for completions that happen outside the library's
  /// calls, such as a generalized request completed by another thread). Any thread may call it.
  void wake() const noexcept { dom_.notify(rank_); }
  /// What rmpl-info prints of the transport: (name, value) lines.
  std::vector<std::pair<std::string, std::string>> describe_transport() const;
  const tuning& tune() const noexcept { return tune_; }
  /// The context ids in use by this process's communicators.
  context_pool& contexts() noexcept { return contexts_; }
  /// The collective area slots of this process's communicators.
  area_pool& areas() noexcept { return areas_; }

  // ---- operations (the request-free fast paths are used by the blocking calls) ----
  void send(std::uint32_t context, const void* buf, std::size_t bytes, int dest, int tag,
            send_mode mode);
  status recv(std::uint32_t context, void* buf, std::size_t capacity, int source, int tag);
  request* start_send(std::uint32_t context, const void* buf, std::size_t bytes, int dest, int tag,
                      send_mode mode);
  request* start_recv(std::uint32_t context, void* buf, std::size_t capacity, int source, int tag);
  /// The same with the data in segments (core/segments.hpp; their lengths add up to `bytes`),
  /// which the request keeps until it completes. Single copy must be on, and the mode not
  /// buffered: the MPI layer packs in those cases. A rendezvous publishes the list itself, and the
  /// receiver reads the segments straight out of this process.
  request* start_send(std::uint32_t context, segment_list data, std::size_t bytes, int dest,
                      int tag, send_mode mode);
  /// A receive into segments (their lengths add up to `capacity`), kept until it completes.
  /// Single copy must be on.
  request* start_recv(std::uint32_t context, segment_list data, std::size_t capacity, int source,
                      int tag);
  /// A standard send that fits one cell and finds room in the ring now: written, published and
  /// complete on return (true). False, with nothing done, otherwise.
  bool try_send_inline(std::uint32_t context, const void* buf, std::size_t bytes, int dest,
                       int tag) noexcept;
  /// Starts a collective (or any other activity): advances it once at once, then after every
  /// progress pass until it ends. Its request completes when it ends.
  request* start_activity(std::unique_ptr<activity> work);
  /// Calls f(activity&) for each activity in flight, oldest first.
  template <class F>
  void for_each_activity(F&& f) const {
    for (request* r : activities_) f(*r->work);
  }
  bool iprobe(std::uint32_t context, int source, int tag, status* out);
  status probe(std::uint32_t context, int source, int tag);

  // ---- requests ----
  request* lookup(request_id id) noexcept { return requests_.lookup(id); }
  void wait(request* r) {
    wait_until([r] { return r->done(); });
  }
  /// One progress pass, then whether `r` has completed. Throws errc::dead_rank if it has not and a
  /// rank of the job has died (a test loop would otherwise poll forever).
  bool test(request* r) {
    if (r->done()) return true;
    progress();
    if (!r->done()) throw_if_halted();
    return r->done();
  }
  /// For a test that found its requests incomplete after a progress pass: throws errc::dead_rank
  /// once a rank of the job has died (nothing will move any more; a test loop would poll forever).
  /// A test loop never sleeps, so it is where such a loop checks the peers' processes too
  /// (runtime/local/liveness.hpp), every polls_per_liveness_check fruitless polls.
  void throw_if_halted() {
    if (halted_) [[unlikely]] {
      throw_dead_rank();
    }
    if (--polls_until_liveness_ == 0) [[unlikely]] {
      check_liveness_now();
    }
  }
  /// Takes a completed request's status and frees it; throws rmpl::error if the operation failed.
  status finish(request* r);
  void cancel(request* r);
  /// Drops every message waiting unexpected on `context` (a freed communicator's, whose context a
  /// new one claims: an erroneous program's collective may have left messages nobody received,
  /// which the new communicator's receives, numbered from 0 again, would otherwise take). Their
  /// senders are answered as a receive would (eager slots released, rendezvous finished without a
  /// copy, synchronous sends acknowledged). Returns how many were dropped.
  std::size_t discard_unexpected(std::uint32_t context);
  void free_request(request* r) noexcept { requests_.release(r); }
  /// "recv on rank 1 from any source (tag 3, 100 bytes)": names a request in error messages.
  std::string describe(const request& r) const;

  /// For benchmarks that compare protocols within one job (bench/protocol_ab.cpp): the largest
  /// message this rank sends in ring cells, up to the segment's RMPL_INLINE_MAX (which every
  /// receiver accepts whatever the senders choose).
  void limit_inline_for_bench(std::size_t bytes) noexcept {
    tune_.inline_max = std::min<std::size_t>(bytes, dom_.p().inline_max);
  }
  /// For tests of the checks only: publishes a cell to `dest` as written (every field but seq),
  /// as a broken or hostile peer could.
  void forge_cell_for_test(int dest, const cell& fields);

  /// The process's buffer for buffered sends (MPI_Buffer_attach): its size.
  void attach_buffer(std::size_t bytes) noexcept { process_buffer_.limit = bytes; }
  /// Bytes of buffered sends not yet delivered, whatever buffer they drew on.
  std::size_t buffered_bytes() const noexcept { return bsend_total_; }
  /// ... of those that drew on the process's buffer (MPI_Buffer_detach waits for 0).
  std::size_t process_buffered_bytes() const noexcept { return process_buffer_.used; }
  /// Buffered sends on `context` draw on `account` while it is attached (a communicator's or
  /// session's buffer; null: the process's again). The account must outlive its messages: a
  /// detach waits until its `used` is 0.
  void use_buffer(std::uint32_t context, std::shared_ptr<buffer_account> account);
  // What the tool interface reports (MPI_T performance variables, mpi/tool.cpp): levels and a
  // count the engine keeps anyway, read without any cost to the paths that keep them.
  /// Messages taken out of the rings that wait, unexpected, for their receive.
  std::size_t unexpected_messages() const noexcept { return matcher_.in_use(); }
  /// Receives started before their message had arrived (posted to wait for it), since the start.
  std::uint64_t receives_posted() const noexcept { return posts_; }
  /// Nonblocking collectives in flight.
  std::size_t collectives_in_flight() const noexcept { return activities_.size(); }

  /// One pass over every incoming ring, outgoing backlog and bounce transfer; true if anything
  /// moved. Once a rank of the job has died it does nothing any more (see halted_).
  bool progress();
  /// A rank of the job has died and this rank has noticed: nothing progresses any more.
  bool halted() const noexcept { return halted_; }
  /// Whether everything this rank has sent, and every control cell it owes, is in its peers'
  /// rings (nothing waits for room).
  bool all_in_rings() const noexcept { return backlogged_ == 0 && controls_owed_ == 0; }

  /// What a wait that watches for nothing calls when it stalls.
  struct no_stall {
    void operator()() const noexcept {}
  };
  /// How long a wait makes no progress (its rank asleep on its doorbell) before it calls its
  /// `stalled`, and again each time as long after.
  static constexpr std::chrono::milliseconds stall_period{100};

  /// The one waiting mechanism: progress until done() holds, spinning briefly, then sleeping on
  /// this rank's doorbell. done() is asked after each progress pass until it returns true, never
  /// again after that. Throws errc::dead_rank when a rank of the job has died. `stalled()` is
  /// called after a pass, every stall_period that passes without one that moved anything (a
  /// blocking collective looks then whether its peers disagree with it, coll/stall.hpp); what it
  /// throws ends the wait. A wait that gives none calls the engine's stall hook instead.
  template <class Done, class Stalled = no_stall>
  void wait_until(Done&& done, Stalled&& stalled = {}) {
    // Finished once done() has said so (it is not asked again: a predicate may consume what it
    // finds) and every control cell this rank owes its peers is out.
    bool said_done = false;
    auto finished = [&] {
      if (!said_done) said_done = done();
      return said_done && controls_owed_ == 0;
    };
    if (finished()) return;
    // MPI_THREAD_MULTIPLE: the caller holds the library lock, which this wait must let go between
    // passes (out of line from here: a single-threaded wait pays one load and branch).
    if (threads::locking.load(std::memory_order_relaxed) && threads::held()) [[unlikely]] {
      wait_threaded(finished, stalled);
      return;
    }
    unsigned idle = 0;
    stall_clock clock;
    for (;;) {
      const bool worked = progress();
      if (finished()) return;
      if (halted_) [[unlikely]] {
        throw_dead_rank();
      }
      if (worked) {
        idle = 0;
        clock.moved();
        continue;
      }
      if (++idle < tune_.spin_polls) {
        relax(tune_.yield_when_idle);
        continue;
      }
      const std::uint32_t bell = job_.prepare_sleep();
      const bool moved = progress();
      const bool over = finished();
      if (moved || over) {
        job_.cancel_sleep();
        if (over) return;
        idle = 0;
        continue;
      }
      if (job_.failed_rank() >= 0) {
        job_.cancel_sleep();
        throw_dead_rank();
      }
      if (remote_ != nullptr && !remote_->arm()) [[unlikely]] {
        job_.cancel_sleep();  // the provider has events: progress them first
        idle = 0;
        continue;
      }
      job_.sleep(bell, 100);
      idle = 0;
      if (clock.due()) on_stall(stalled);
    }
  }

  /// What a wait that made no progress for stall_period runs: `stalled`, or the stall hook.
  using stall_hook = void (*)(engine&) noexcept;
  /// What every wait that gives no `stalled` of its own runs when it stalls (the collectives
  /// answer stalled members there, coll/stall.hpp).
  void set_stall_hook(stall_hook h) noexcept { stall_hook_ = h; }

  /// Forbids the blocking receive's spin on one ring (MPI_THREAD_MULTIPLE: it would spin holding
  /// the library lock, keeping out the threads that may be about to send what it waits for).
  void no_fast_spin() noexcept { tune_.fast_polls = 0; }

 private:
  /// A stalled wait's call: its own `stalled`, or the engine's hook for a wait that gave none.
  template <class Stalled>
  void on_stall(Stalled& stalled) {
    if constexpr (std::is_same_v<std::decay_t<Stalled>, no_stall>) {
      if (stall_hook_ != nullptr) stall_hook_(*this);
    } else {
      stalled();
    }
  }
  stall_hook stall_hook_ = nullptr;
  /// Since when a wait has made no progress (read only on its sleeping path).
  class stall_clock {
   public:
    void moved() noexcept { since_ = {}; }
    /// Whether stall_period has passed since the last progress (or the last time this said so).
    bool due() noexcept {
      const auto now = std::chrono::steady_clock::now();
      if (since_ == std::chrono::steady_clock::time_point{}) {
        since_ = now;
        return false;
      }
      if (now - since_ < stall_period) return false;
      since_ = now;
      return true;
    }

   private:
    std::chrono::steady_clock::time_point since_{};
  };

  /// wait_until under MPI_THREAD_MULTIPLE, holding the library lock. Each pass is made holding it;
  /// between passes it is let go (and the core yielded to a thread waiting for it), so waits in
  /// several threads take turns and each one's pass progresses the others' requests. A pass that
  /// moved something rings the rank's own bell when threads sleep on it (what it completed may be
  /// theirs: the pass, not a peer, finished it, and no peer will ring); so does every call's
  /// unlock (threads::unlock), since a call (a send to self, a request cancelled or completed) can
  /// complete another thread's wait without any ring. Several threads may sleep on the bell at
  /// once: the sleeping flag stays set until the last of them wakes (threads::sleepers, counted
  /// under the lock), so peers keep ringing. A thread woken for nothing makes one pass and sleeps
  /// again rather than spinning anew.
  template <class Finished, class Stalled>
  void wait_threaded(Finished& finished, Stalled& stalled) {
    struct asleep {  // the count of sleepers, kept right whatever a pass throws
      runtime::local::job& job;
      asleep(runtime::local::job& j) : job(j) { ++threads::sleepers; }
      ~asleep() {
        if (--threads::sleepers == 0) job.cancel_sleep();
      }
    };
    unsigned idle = 0;
    stall_clock clock;
    for (;;) {
      const bool worked = progress();
      if (finished()) return;
      if (halted_) [[unlikely]] {
        throw_dead_rank();
      }
      const unsigned depth = threads::release_all(worked);
      if (!worked) relax(tune_.yield_when_idle);
      threads::reacquire(depth);
      if (worked) {
        idle = 0;
        clock.moved();
        continue;
      }
      if (++idle < tune_.spin_polls) continue;
      const std::uint32_t bell = job_.prepare_sleep();
      asleep counted(job_);
      const bool moved = progress();
      if (finished()) return;
      if (moved) {
        idle = 0;
        continue;
      }
      if (job_.failed_rank() >= 0) throw_dead_rank();
      if (remote_ != nullptr && !remote_->arm()) [[unlikely]] {
        continue;  // the provider has events: progress them first
      }
      const unsigned held = threads::release_all(false);
      job_.sleep_leaving_flag(bell, 100);
      threads::reacquire(held);
      if (clock.due()) on_stall(stalled);
    }
  }

  /// A cell waiting for room in a ring: a user message (req) or a control cell (req == nullptr).
  struct pending {
    request* req;
    kind how;
    unsigned char body[sizeof(cell::body)];
  };
  // Notices (ACLMPL's receiver-initiated synchronous protocol). A receiver that posts a receive
  // which is certain to take the next message of (context, tag) from a rank sends that rank a
  // `ready` cell with the number of its messages it has taken so far (`position`: messages, not
  // cells, so that the rule holds whatever carries them). The sender keeps it only if it has
  // published exactly that many messages to the receiver and queued none since, so nothing it sent
  // can come between; its next message on (context, tag) to that receiver, whatever
  // the mode, then matches that receive and consumes the notice. A synchronous send that consumes
  // one needs no ack: it is written with flag::ready and completes when published. Only an
  // optimisation: a ready cell that finds no room is dropped, and a receiver sends one only when
  // the last message from that rank was synchronous (standard traffic pays nothing). A cancelled
  // receive that announced itself sends `withdraw`; see engine::cancel for the rule.
  struct notice {
    std::uint64_t position;
    std::uint32_t context;
    int tag;
  };
  /// Notices kept per destination at most (each names a receive posted there: a hostile peer
  /// could otherwise grow the list without bound); more are ignored.
  static constexpr std::size_t max_notices = 64;
  struct out_channel {
    fabric::shm::ring_writer ring;
    std::uint64_t sent = 0;  ///< messages published to the receiver (notices count them)
    std::deque<pending> backlog;
    /// Control cells at the front of `backlog`: they overtake queued messages, but keep their own
    /// order (an assist must reach the sender before its transfer's fin).
    std::size_t backlog_controls = 0;
    /// the receiver's ready notices, one per (context, tag); the send paths test empty() (one
    /// predictable branch while there are none)
    std::vector<notice> held;
    request* bounce = nullptr;  ///< a send being pushed through the pair's bounce buffers
    std::uint64_t bounce_chunk = 0;
  };
  struct in_channel {
    fabric::shm::ring_reader ring;
    std::uint64_t taken = 0;    ///< messages taken from this sender (matched or held unexpected)
    request* bounce = nullptr;  ///< a receive being filled from the bounce buffers
    std::uint64_t bounce_chunk = 0;
    std::deque<request*> bounce_waiting;  ///< matched receives waiting for the bounce buffers
    std::uint32_t assist_id = 0;          ///< the last assisted transfer's id on this pair
    /// The flags of the last message from this source that the general path took: only when it
    /// was synchronous (sync or ready) does a receive posted for it announce itself with a ready
    /// cell. The blocking fast path, which takes only standard inline cells, does not clear it (a
    /// store there for a stale bit would cost every blocking receive; the bit only says whether
    /// a ready cell is worth sending).
    std::uint8_t last_flags = 0;
  };
  /// A message as the matcher sees it, whether read from a cell or from an unexpected descriptor.
  struct incoming {
    int source;
    int tag;
    kind how;
    std::uint8_t flags;
    std::size_t size;
    std::uint64_t cookie;
    std::uint64_t address;
    std::uint64_t segments;
    std::uint32_t slot;
    const unsigned char* data;
    /// A long inline message still in its ring (read at its head), or nullptr: data holds it.
    const in_channel* ring = nullptr;
  };

  static void relax(bool yield) noexcept {
    if (yield) {
      sched_yield();
      return;
    }
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
  [[noreturn]] void throw_dead_rank() const;
  /// For throw_if_halted: checks the peers' and the launcher's processes if due (a clock read when
  /// not), then counts polls again.
  void check_liveness_now() noexcept;
  /// Fruitless test or iprobe polls between two liveness checks: a poll costs a progress pass
  /// (~100 ns at least), so this is every few hundred microseconds of polling or more, and the
  /// check itself runs at most every 50 ms.
  static constexpr unsigned polls_per_liveness_check = 1024;
  /// How long throw_dead_rank waits for the runtime to explain a peer the provider lost (a death
  /// it marks, here or relayed from another host) before reporting the provider's account.
  static constexpr std::chrono::milliseconds remote_failure_grace{1000};
  unsigned polls_until_liveness_ = polls_per_liveness_check;
  /// The outcome of a single copy from `peer` that found no process (ESRCH), once the segment says
  /// why: errc::dead_rank if a rank died (this one, or the one whose death made it end) or if it
  /// vanished without its launcher saying how, errc::system (the message says it had finished)
  /// if it had finalized.
  errc vanished_peer(int peer) const;
  // Set by progress() once the segment says a rank died. From then on nothing moves: every wait
  // that is not already satisfied throws errc::dead_rank, and requests still pending (a collective
  // whose coroutine would write into the caller's buffers, a receive) are never touched again, so
  // they can be dropped while the error unwinds the caller's stack.
  bool halted_ = false;
  bool finalized_ = false;  ///< finalize() has run (or been tried): the destructor skips it

  void check_send(std::uint32_t context, const void* buf, std::size_t bytes, int dest, int tag,
                  send_mode mode) const;
  void check_recv(std::uint32_t context, const void* buf, std::size_t capacity, int source,
                  int tag) const;

  // sending
  /// Publishes header cell `c` of a message taking `cells` cells (the rest written already) and
  /// rings the receiver's bell.
  void publish(out_channel& ch, int dest, cell* c, std::uint64_t cells = 1) noexcept {
    ch.ring.publish(c, cells);
    dom_.notify(dest);
  }
  /// Copies the first n bytes of the long inline message at the head of `ch` into `to`.
  static void read_long_inline(const in_channel& ch, bool sync, unsigned char* to,
                               std::size_t n) noexcept {
    ch.ring.read_long_inline(header_capacity(sync), to, n);
  }
  bool emit(int dest, request* r);
  /// A send request of `bytes` bytes to `dest`, filled but for its data and not yet queued (what
  /// both start_send overloads share).
  request* new_send(std::uint32_t context, std::size_t bytes, int dest, int tag, send_mode mode);
  /// Puts a started send to `dest` on its way: emitted now, or queued behind the backlog.
  request* queue_send(request* r);
  /// Matches a started receive against the unexpected messages, or posts it.
  request* post_recv(request* r);
  void check_segments(const char* what, const segment_list& data, std::size_t bytes, int peer,
                      int tag) const;
  template <class Body>
  void send_control(int dest, kind how, const Body& body) {
    static_assert(sizeof(Body) <= sizeof(cell::body));
    unsigned char bytes[sizeof(cell::body)] = {};
    std::memcpy(bytes, &body, sizeof(Body));
    send_control_bytes(dest, how, bytes);
  }
  void send_control_bytes(int dest, kind how, const unsigned char* body);
  static void write_inline(cell& c, std::uint32_t context, int tag, const void* buf,
                           std::size_t bytes, std::uint8_t flags) noexcept;
  void write_control(cell* c, kind how, const unsigned char* body) noexcept;
  bool flush_backlog(int dest);
  /// try_send_inline, inlined into send().
  bool send_inline_now(std::uint32_t context, const void* buf, std::size_t bytes, int dest,
                       int tag) noexcept;
  /// post_recv's half of the notices: sends `r`'s source a ready cell if `r` (not yet in `q`) is
  /// certain to take that source's next message on its (context, tag) and there is room.
  [[gnu::noinline]] void announce(const context_queues& q, request* r) noexcept;
  /// A ready cell from `source`: kept if this rank has sent nothing the receiver has not read.
  void accept_notice(int source, const decoded_cell& d);
  /// Keeps a notice for `ch`'s destination (replacing one for the same context and tag).
  void keep_notice(out_channel& ch, std::uint64_t position, std::uint32_t context,
                   int tag) noexcept;
  /// Forgets the notice a withdraw names, if it is still held.
  void drop_notice(out_channel& ch, std::uint64_t position, std::uint32_t context,
                   int tag) noexcept;
  /// Removes the notice for (context, tag) held for `ch`'s destination; whether there was one.
  /// Out of line: the send paths call it only while notices are held, and inlined it would grow
  /// try_send_inline past what its callers inline.
  [[gnu::noinline]] static bool take_notice(out_channel& ch, std::uint32_t context,
                                            int tag) noexcept;
  /// The index in ch.held of the notice for (context, tag), or ch.held.size().
  static std::size_t find_notice(const out_channel& ch, std::uint32_t context, int tag) noexcept;
  static void remove_notice(out_channel& ch, std::size_t i) noexcept;
  /// Nothing from `peer` waits unread in its ring to this rank (so no withdraw either).
  bool quiet_from(int peer) const noexcept {
    return in_[peer].ring.next() == nullptr;
  }
  /// Frees eager slot `slot` of this rank's pool once its message is copied out.
  void release_slot(std::uint32_t slot) noexcept {
    dom_.pool_of(rank_).release(slot);
  }
  /// recv()'s first step: the message from `source` (a job rank, not any_source) that is, or
  /// within a short spin becomes, the next cell of its ring, if it is inline or eager (standard or
  /// synchronous: acked here) and matches and nothing is posted or held from that source: copied
  /// into `buf`, status in `out` (source a job rank), true. False, nothing taken, otherwise
  /// (invalid arguments too): start_recv() then.
  bool try_fast_recv(std::uint32_t context, void* buf, std::size_t capacity, int source, int tag,
                     status& out);
  /// try_fast_recv's eager half: the standard or synchronous eager message in cell `c` at the
  /// head of `ch`.
  /// Out of line, as the synchronous inline half, so that try_fast_recv is inlined into recv().
  [[gnu::noinline]] bool fast_recv_eager(in_channel& ch, cell& c, std::uint32_t context, void* buf,
                                         std::size_t capacity, int source, int tag, status& out);
  /// try_fast_recv's synchronous inline half.
  [[gnu::noinline]] bool fast_recv_inline_sync(in_channel& ch, cell& c, std::uint32_t context,
                                               void* buf, std::size_t capacity, int source, int tag,
                                               status& out);
  /// Acks synchronous message `cookie` from `source`, taken by the fast path: out before return.
  [[gnu::noinline]] void ack_now(int source, std::uint64_t cookie);
  void complete_send(request* r) noexcept;

  // receiving
  bool drain(int source);
  bool advance_activities();
  /// Advances activity request `r` once; completes it (its result taken) when the work ended.
  bool advance_activity(request* r);
  /// Tells `source` how far this rank has read its ring (the last `taken` cells), and wakes it if
  /// it waits for room.
  void consumed(in_channel& ch, int source, std::size_t taken) noexcept {
    if (ch.ring.consumed(taken)) dom_.notify(source);
  }
  /// The cell at the head of `ch`, the ring from `source`: the cells it took (a long inline
  /// message takes several), or 0 if it must stay there for now.
  std::uint32_t handle_cell(in_channel& ch, int source, cell& c);
  void handle_control(int source, const decoded_cell& d);
  void handle_stalled_controls(int source);
  void deliver(request* r, const incoming& m);
  void start_bounce_recv(int source, request* r);
  int assisted_read(int source, request* r, const incoming& m, std::size_t bytes);
  /// A single-copy rendezvous where either side is in segments: reads the sender's list in
  /// batches, checks it, and copies `bytes` with one process_vm_readv per batch. 0 or an errno.
  int scattered_read(int source, request* r, const incoming& m, std::size_t bytes);
  void assist_send(int dest, const decoded_cell& d);
  bool progress_bounce_send(int dest);
  bool progress_bounce_recv(int source);
  /// The send control cell `d` from `source` is for (core::control_target), or corrupt().
  request* control_target(int source, const decoded_cell& d);
  /// Throws errc::internal: `source` wrote `what` into shared memory.
  [[noreturn]] void corrupt(int source, const std::string& what) const;

  runtime::local::job job_;  ///< this process in the job: ranks, barrier, doorbells, deaths
  fabric::shm::domain dom_;  ///< the shm provider
  int rank_;
  int size_;
  tuning tune_;
  cell_limits limits_;  ///< what a peer's cell is checked against
  // Control cells (ack, fin, cts, assist) complete a peer's request, so this rank must not leave
  // the library while one is queued here for want of room: messages leave the last control_reserve_
  // cells of every ring to them, and every wait also waits until controls_owed_ is zero.
  std::uint64_t control_reserve_ = 2;
  std::size_t controls_owed_ = 0;  ///< control cells queued in backlogs
  std::vector<out_channel> out_;
  std::vector<in_channel> in_;
  request_table requests_;
  matcher matcher_;
  std::uint64_t posts_ = 0;
  /// A long inline message on its way into a scattered receive (gathered from the ring first).
  std::vector<unsigned char> stage_;
  std::size_t backlogged_ = 0;        ///< channels with a non-empty backlog
  std::size_t bounces_ = 0;           ///< bounce transfers in progress (either side)
  std::vector<request*> activities_;  ///< collectives in flight
  /// scattered_read()'s iovecs: a batch of the sender's list, and one batch per side for a call.
  std::unique_ptr<iovec[]> segment_scratch_;
  // ---- peers on other hosts, reached through a message provider (core/remote.cpp) ----
  /// A message from a remote peer that cannot be handled yet: it came before one sent earlier (the
  /// provider does not keep order), or the unexpected store is full.
  struct held_arrival {
    envelope header;
    std::vector<unsigned char> data;  ///< a payload that arrived (copied: the provider's is lent)
    void* deferred = nullptr;         ///< or the handle of one waiting at the sender
    std::size_t bytes = 0;
  };
  struct remote_peer {
    std::uint64_t sent = 0;   ///< messages sent to it (the seq of the last)
    std::uint64_t taken = 0;  ///< messages taken from it (matched or held unexpected), in order
    std::deque<held_arrival> held;  ///< by seq
    // Flow control, as a ring bounds what a sender leaves at a receiver: a sender may have
    // `credits` messages on their way to this peer or held there (not yet taken into its
    // matching, whose unexpected store is bounded too); the others wait here, in order, until the
    // peer gives credits back (envelope_kind::credit) as it takes them.
    std::uint32_t credits = 0;
    std::deque<request*> waiting;  ///< sends to it not handed to the provider yet
    std::uint32_t consumed = 0;    ///< its messages taken here since credits were last returned
  };
  /// What the provider's events call (fabric::events), forwarding to the engine.
  class remote_events final : public fabric::events {
   public:
    explicit remote_events(engine& e) : e_(e) {}
    // Called from inside the provider's library (C frames): nothing may unwind through them, so
    // an error is kept and thrown once the provider's progress has returned (remote_progress).
    void arrived(const fabric::arrival& a) noexcept override {
      guard([&] { e_.remote_arrived(a); });
    }
    void sent(std::uint64_t cookie, int peer, const std::string& error) noexcept override {
      guard([&] { e_.remote_sent(cookie, peer, error); });
    }
    void fetched(std::uint64_t cookie, const std::string& error) noexcept override {
      guard([&] { e_.remote_fetched(cookie, error); });
    }
    void completed(std::uint64_t /*cookie*/, int peer, const std::string& error) noexcept override {
      // The engine issues no one-sided operation itself (user-level ones, issue 25, will keep
      // their own completions); a failed one is still a failure of its peer.
      if (!error.empty()) {
        guard([&] {
          e_.remote_failed(peer, "a one-sided operation on its memory failed: " + error);
        });
      }
    }
    void peer_failed(int rank, const std::string& why) noexcept override {
      guard([&] { e_.remote_failed(rank, why); });
    }

   private:
    template <class F>
    void guard(F&& f) noexcept {
      try {
        f();
      } catch (...) {
        if (!e_.remote_error_) e_.remote_error_ = std::current_exception();
      }
    }
    engine& e_;
  };
  std::exception_ptr remote_error_;  ///< thrown by an event handler, rethrown after progress
  /// Wire-up: when some rank is on another host, starts the provider, publishes its address and
  /// marks which peers it reaches (once: this is the only place that asks where a peer is).
  void start_remote();
  /// "rank 3 (host 1)".
  std::string where(int r) const;
  /// Sends started send `r` to its remote destination.
  void remote_send(request* r);
  static constexpr std::uint64_t flush_cookie = 0;  ///< sent() of a wire-up flush
  std::size_t flushes_pending_ = 0;
  /// Whether start_remote() wired up every endpoint (at most RMPL_UCX_CONNECT_ALL remote peers).
  bool remote_wired_at_start_ = false;
  /// Sends an ack of synchronous send `cookie` to remote rank `dest` (queued while the provider's
  /// progress runs, sent at its end).
  void remote_ack(int dest, std::uint64_t cookie);
  void send_remote_control(int dest, envelope_kind what, std::uint64_t value);
  bool remote_progress();
  void remote_arrived(const fabric::arrival& a);
  void remote_sent(std::uint64_t cookie, int peer, const std::string& error);
  void remote_fetched(std::uint64_t cookie, const std::string& error);
  void remote_failed(int rank, const std::string& why);
  /// Matches, or keeps unexpected, message `e` from a remote peer; false (nothing done) when the
  /// unexpected store is full.
  bool take_remote(const envelope& e, const unsigned char* data, std::size_t bytes, void* deferred);
  /// Takes the held arrivals of `source` whose turn has come.
  bool take_held(int source);
  /// A send or ack through the provider ended (or its fetch, for a receive).
  void remote_send_ended(request* r);
  void remote_fetch_ended(request* r);
  [[noreturn]] void remote_corrupt(int source, const std::string& what) const;
  std::vector<std::uint8_t> is_remote_;  ///< by job rank; empty when every rank is on this host
  /// is_remote_'s data, or null: one load and a test on the fast paths of a one-host job.
  const std::uint8_t* remote_map_ = nullptr;
  std::vector<remote_peer> remote_peers_;
  std::size_t remote_held_ = 0;       ///< arrivals held, over every peer
  std::size_t remote_in_flight_ = 0;  ///< sends, acks and fetches the provider has not ended
  bool in_remote_progress_ = false;   ///< inside the provider's progress (its callbacks)
  /// Control messages (acks, credits) raised in the provider's callbacks, sent once its progress
  /// returns.
  struct control_owed {
    int dest;
    envelope_kind what;
    std::uint64_t value;
  };
  std::vector<control_owed> controls_owed_remote_;
  std::uint32_t remote_credits_ = 0;  ///< RMPL_UCX_CREDITS: messages per peer not yet received
  bool remote_credited_ = false;      ///< credits came back to a peer with sends waiting
  /// A remote peer's message has been taken into matching here (matched, or kept unexpected in
  /// the matcher's bounded store): gives the sender its credits back once enough have gathered.
  void remote_taken(int source, std::uint32_t window);
  /// The most RMPL_UCX_CREDITS may be (and an envelope's window).
  static constexpr std::uint32_t max_remote_credits = 1u << 20;
  /// Hands `r` to the provider (its turn and a credit have come).
  void issue_remote(request* r);
  /// The envelopes of acks in flight (the provider reads them until their send ends); a control
  /// send's cookie is its index + 1 here (a request id is never below 2^32).
  std::deque<envelope> ack_headers_;
  std::vector<std::uint32_t> free_ack_headers_;
  bool leaving_ = false;  ///< at the finalize barrier: peers that leave are not failures
  int remote_failed_rank_ = -1;
  std::string remote_failure_;
  /// throw_dead_rank() gave the runtime its chance to explain remote_failure_ (once: later calls
  /// report at once).
  mutable bool remote_failure_waited_ = false;
  remote_events remote_events_{*this};
  std::unique_ptr<fabric::provider> remote_;  ///< null when every rank is on this host

  context_pool contexts_;
  area_pool areas_{dom_.node(), rank_, [this](int r) { return job_.dead(r); }};
  int next_source_ = 0;  ///< where the next progress pass starts draining (round robin)
  buffer_account process_buffer_{std::size_t{16} << 20, 0, true};
  /// The communicators' and sessions' buffers, by context (buffer_account.hpp).
  std::unordered_map<std::uint32_t, std::shared_ptr<buffer_account>> context_buffers_;
  /// Buffers no communicator draws on any more whose messages are still in flight.
  std::vector<std::shared_ptr<buffer_account>> retired_buffers_;
  std::size_t bsend_total_ = 0;  ///< bytes of every buffered send not yet delivered
  /// The buffer a buffered send on `context` draws on.
  buffer_account& buffer_for(std::uint32_t context) noexcept;
};

}  // namespace rmpl::core
