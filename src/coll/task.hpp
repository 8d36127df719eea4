// A collective algorithm is a coroutine over point-to-point requests: it posts sends and receives
// on the communicator's collective context, suspends until they have completed (co_await x.all()),
// combines data, and goes on. The progress engine resumes it after each pass over the rings (see
// core/activity.hpp), so the same code serves the blocking and the nonblocking collectives, and
// several collectives, on one communicator or on many, can be in flight at once.
//
//   task broadcast_binomial(exchange x, std::span<std::byte> data, int root) {
//     ...
//     x.recv(data, parent);
//     co_await x.all();
//     for (int child : children) x.send(data, child);
//     co_await x.all();
//   }
#pragma once

#include <array>
#include <coroutine>
#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "coll/agreement.hpp"
#include "coll/recycled.hpp"
#include "coll/stall.hpp"
#include "core/activity.hpp"
#include "core/communicator.hpp"
#include "core/engine.hpp"

namespace rmpl::coll {

/// The return type of an algorithm coroutine. It starts suspended; operation::advance runs it.
class task {
 public:
  struct promise_type {
    std::exception_ptr failure;
    static void* operator new(std::size_t bytes) { return recycled::allocate(bytes); }
    static void operator delete(void* frame, std::size_t bytes) noexcept {
      recycled::release(frame, bytes);
    }
    task get_return_object() noexcept {
      return task(std::coroutine_handle<promise_type>::from_promise(*this));
    }
    std::suspend_always initial_suspend() noexcept { return {}; }
    std::suspend_always final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() noexcept { failure = std::current_exception(); }
  };

  task() = default;
  task(task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  task& operator=(task&& other) noexcept {
    if (this != &other) {
      if (handle_) handle_.destroy();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  ~task() {
    if (handle_) handle_.destroy();
  }
  std::coroutine_handle<promise_type> handle() const noexcept { return handle_; }

 private:
  explicit task(std::coroutine_handle<promise_type> h) : handle_(h) {}
  std::coroutine_handle<promise_type> handle_;
};

class operation;
struct entry_watch;

/// What an algorithm sees of its collective: its rank and the communicator's size, and sends and
/// receives to ranks of the communicator, tagged with this collective's number. Cheap to copy (the
/// coroutine keeps its own copy in its frame).
class exchange {
 public:
  exchange(operation& op, core::engine& e, core::communicator& c, int tag) noexcept
      : op_(&op), engine_(&e), comm_(&c), tag_(tag) {}

  int rank() const noexcept { return comm_->rank; }
  int size() const noexcept { return comm_->size; }
  core::engine& engine() const noexcept { return *engine_; }
  /// The communicator (its shared-area round counters advance as shared_area rounds run).
  core::communicator& comm() const noexcept { return *comm_; }
  /// The operation this exchange runs in.
  operation& op() const noexcept { return *op_; }

  /// Posts a send of `data` to rank `peer` of the communicator; completes at the next all().
  void send(std::span<const std::byte> data, int peer);
  /// Posts a receive of exactly data.size() bytes from rank `peer`.
  void recv(std::span<std::byte> data, int peer);

  /// Awaitable: suspends until every send and receive posted so far has completed. Rethrows the
  /// first failure among them (after all have completed, so no transfer outlives the frame).
  struct all_done {
    operation* op;
    bool await_ready();
    void await_suspend(std::coroutine_handle<>) const noexcept {}
    void await_resume();
  };
  all_done all() const noexcept { return {op_}; }

  /// Awaitable: suspends until `condition()` holds (asked after each progress pass): words in
  /// shared memory that peers write. Whatever the condition refers to must outlive the wait. The
  /// condition stays in the awaiter, which the coroutine's frame holds while it is suspended; the
  /// operation asks it there through a pointer (a std::function cost every short collective a
  /// construction and a destruction per wait).
  template <class Condition>
  struct condition_met {
    operation* op;
    Condition condition;
    bool await_ready() { return condition(); }
    void await_suspend(std::coroutine_handle<>) noexcept;
    void await_resume() const noexcept {}
  };
  template <class Condition>
  condition_met<std::decay_t<Condition>> until(Condition&& condition) const {
    return {op_, std::forward<Condition>(condition)};
  }

  /// Awaitable: runs another algorithm (a coroutine started with this same exchange) to its end,
  /// then goes on; its failure is rethrown here. Sequential parts of one collective can share its
  /// tag: messages between two ranks are matched in the order they were sent.
  struct nested {
    operation* op;
    task child;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<>);
    void await_resume();
  };
  nested run(task child) const noexcept { return {op_, std::move(child)}; }

  /// This collective's exchange on another communicator `other`, with that communicator's tag
  /// `tag`: for an agreement between the two groups of an intercommunicator, whose members talk
  /// among themselves on the local group's communicator and whose leaders talk across.
  exchange across(core::communicator& other, int tag) const noexcept {
    return exchange(*op_, *engine_, other, tag);
  }

  /// The ranks' counts disagree: peer `peer` carries `arrived` bytes where this rank expected
  /// `expected` (seen in shared memory; receives note it themselves). Reported at the end.
  void note_mismatch(int peer, std::size_t expected, std::size_t arrived) const noexcept;
  /// Whether a disagreement has been noted so far (by this rank, in any part of the collective).
  bool mismatched() const noexcept;

 private:
  operation* op_;
  core::engine* engine_;
  core::communicator* comm_;
  int tag_;
};

/// The point-to-point requests a step of an algorithm waits for. Most steps post one or two, so the
/// first few are held inline: a vector would cost every short collective a malloc and a free.
class request_list {
 public:
  void push_back(core::request* r) {
    if (count_ < few_.size()) {
      few_[count_] = r;
    } else {
      more_.push_back(r);
    }
    ++count_;
  }
  bool empty() const noexcept { return count_ == 0; }
  void clear() noexcept {
    count_ = 0;
    more_.clear();
  }
  /// Whether f(request*) holds for each, tried in the order they were added (stops at the first
  /// that does not).
  template <class F>
  bool all_of(F&& f) const {
    const std::size_t inline_count = count_ < few_.size() ? count_ : few_.size();
    for (std::size_t i = 0; i < inline_count; ++i) {
      if (!f(few_[i])) return false;
    }
    for (core::request* r : more_) {
      if (!f(r)) return false;
    }
    return true;
  }
  /// Calls f(request*) for each, in the order they were added.
  template <class F>
  void for_each(F&& f) const {
    all_of([&](core::request* r) {
      f(r);
      return true;
    });
  }

 private:
  std::array<core::request*, 4> few_;
  std::size_t count_ = 0;
  std::vector<core::request*> more_;
};

/// One collective in flight: the engine's activity. It owns the algorithm's coroutine, keeps the
/// communicator alive (a communicator freed while its collective runs stays until it ends) and
/// holds the point-to-point requests the coroutine waits for. A blocking collective's operation
/// lives on the caller's stack instead and runs there to its end (run_to_end): it needs no request
/// of the engine's, and no activity.
class operation final : public core::activity {
 public:
  /// What the operation is, for error messages (formatted only when one is needed).
  struct label {
    std::string_view collective;
    std::string_view algorithm;  ///< a literal: outlives the operation
    std::size_t bytes;
    int comm_size;
  };
  /// `keep` holds whatever must outlive the operation (the communicator's handle).
  // Inlined: out of line (as it went with the stall members) it cost a blocking collective 30
  // instructions more.
  [[gnu::always_inline]] operation(core::engine& e, std::shared_ptr<const void> keep, label what)
      : engine_(e), keep_(std::move(keep)), what_(what), notice_(e) {}
  ~operation() override;
  static void* operator new(std::size_t bytes) { return recycled::allocate(bytes); }
  static void operator delete(void* op, std::size_t bytes) noexcept {
    recycled::release(op, bytes);
  }

  void run(task t) {
    task_ = std::move(t);
    stack_[0] = task_.handle();
    depth_ = 1;
  }

  /// Runs the operation to its end on the caller's stack, without a request: advances it, then
  /// waits (progressing the engine, so other requests and collectives in flight move too) until
  /// it has ended; rethrows its failure. Errors of the wait (errc::dead_rank) propagate as a
  /// request's wait would throw them.
  void run_to_end();
  /// Makes run_to_end also watch `w` (shared_short.hpp, "straddles"): a watched member that took
  /// the short protocol fails the call, at once when no transfer of it is in flight (the shared
  /// rounds), else once the call has stalled (its posted receives withdrawn); the entry is
  /// finished when the call ends either way. `w` must outlive run_to_end.
  void watch(const entry_watch& w) noexcept { watch_ = &w; }
  /// What every rank passes alike (coll/agreement.hpp): with it, run_to_end looks, when the call
  /// stalls, for members that disagree with this rank (coll/stall.hpp). Must outlive run_to_end.
  void sign(const agreement& a) noexcept { signature_ = &a; }
  /// Makes the operation a nonblocking collective's (an activity of the engine) launched at
  /// position `at` of its communicator with signature `a` (kept: the caller's goes): when a wait
  /// of this rank stalls while it is the oldest collective in flight, it looks for members that
  /// disagree with it (stalled_in_flight).
  void launched(const stall_position& at, const agreement& a) {
    launch_.emplace(launch_record{at, a, nullptr});
  }
  /// The position this activity was launched at, if it is one (launched()).
  const stall_position* launch_position() const noexcept {
    return launch_ ? &launch_->at : nullptr;
  }
  /// A wait of this rank stalled while this activity is the oldest in flight: publishes where it
  /// waits and compares it with the members' notes (coll/stall.hpp). A disagreement ends the
  /// activity with that error (its request completes, its wait throws it).
  void stalled_in_flight() noexcept;

  /// As an activity: step(), once no stall ended it.
  bool advance() override;
  /// Resumes the algorithm as far as what it waits for has completed; true once it has ended.
  bool step();
  void rethrow_failure() override {
    if (launch_ && launch_->failure) [[unlikely]]
      std::rethrow_exception(launch_->failure);
    if (task_.handle() && task_.handle().promise().failure) {
      std::rethrow_exception(task_.handle().promise().failure);
    }
    if (mismatch_.peer >= 0) [[unlikely]]
      throw_mismatch();
  }
  std::string describe() const override;

  core::engine& engine() noexcept { return engine_; }
  /// True when every pending request has completed.
  bool settled() const noexcept;
  /// Takes every (completed) pending request's result; throws the first failure.
  void collect();
  /// collect(), ignoring failures.
  void discard() noexcept;
  void add(core::request* r) { pending_.push_back(r); }
  /// The communicator the collective runs on (its ranks name peers in error messages).
  void set_comm(const core::communicator& c) noexcept { comm_ = &c; }
  /// Whether a receive of this collective brought a size other than it expected (the ranks'
  /// counts disagree). The collective then goes on to its end, so that no peer waits forever for
  /// a message it skipped, but every later send goes out shortened (poisoned) so that the ranks
  /// downstream see a disagreement too; its end reports the first one seen.
  bool mismatched() const noexcept { return mismatch_.peer >= 0; }
  /// Records a disagreement seen other than by a receive (a shared-area peer published another
  /// size): `peer` a rank of the communicator.
  void note_mismatch(int peer, std::size_t expected, std::size_t arrived,
                     bool by_message = false) noexcept {
    if (mismatch_.peer < 0) mismatch_ = {peer, expected, arrived, by_message};
  }
  /// A condition the running coroutine waits for (exchange::until): `ask(state)` says whether it
  /// holds.
  struct condition_ref {
    bool (*ask)(void* state) = nullptr;
    void* state = nullptr;
  };
  /// The collective's rounds in the shared area start at `first` (shared_area::claim): a stalled
  /// call compares the members' released rounds with it (look_for_disagreement).
  void rounds_from(std::uint64_t first) noexcept { rounds_first_ = first; }
  /// Holds the running coroutine until `condition` is met.
  void wait_for(condition_ref condition) noexcept { condition_ = condition; }
  /// Runs `child` before resuming whatever runs now (exchange::run).
  void push(std::coroutine_handle<task::promise_type> child);

 private:
  core::engine& engine_;
  std::shared_ptr<const void> keep_;
  label what_;
  task task_;
  /// The coroutine running now is last; each one below waits for the one above it to end.
  /// (Algorithms nest a few levels at most: allreduce = reduce + broadcast, each with a step.)
  std::array<std::coroutine_handle<task::promise_type>, 8> stack_{};
  std::size_t depth_ = 0;
  request_list pending_;
  condition_ref condition_;  ///< what the running coroutine waits for besides requests
  /// The first receive whose size disagreed (peer: a rank of the communicator; -1: none).
  struct mismatch {
    int peer = -1;
    std::size_t expected = 0, arrived = 0;
    bool by_message = false;  ///< seen by a receive (which may carry a poisoned size)
  } mismatch_;
  const core::communicator* comm_ = nullptr;
  const entry_watch* watch_ = nullptr;
  const agreement* signature_ = nullptr;
  bool everyone_left_ = false;      ///< the last stall found every other member past this call
  bool ended_ = false;              ///< step() has returned true
  bool sent_to_past_ = false;       ///< the last stall found a send to a member past this call
  std::uint64_t rounds_first_ = 0;  ///< the first shared-area round of the call (0: none)
  /// A nonblocking collective's launch (launched()): where, what it passes, and the
  /// disagreement a stall found (kept here: a blocking collective's operation then destroys no
  /// exception_ptr).
  struct launch_record {
    stall_position at;
    agreement signature;
    std::exception_ptr failure;
  };
  std::optional<launch_record> launch_;
  stall_notice notice_;  ///< this rank's note while this call is stalled
  [[noreturn]] void throw_mismatch() const;
  void run_watched();
  /// Called by run_to_end's wait when the call has stalled: answers the stalled members, then
  /// looks for a disagreement at the call's position (look_for_disagreement).
  void stalled();
  /// Publishes that this rank waits at `at` in a call that passes `signature` and fails the call
  /// when a member's note shows a disagreement (coll/stall.hpp).
  void look_for_disagreement(const stall_position& at, const agreement& signature);
  /// Fails the stalled call with `message`: withdraws its posted receives and throws, keeping the
  /// call in this rank's note for the members that look later. A call with sends still in flight
  /// cannot return (their buffers may be the caller's): the process ends with the message.
  /// The error of a watched call whose member `straddler` took the short protocol.
  std::string took_short_message(int straddler) const;
  [[noreturn]] void fail_stalled(errc code, const std::string& message);
};

/// What this rank answers a member stalled on communicator `c` (coll/stall.hpp): its position
/// there, or, while nonblocking collectives of it are in flight here, the oldest one's launch
/// position (a call this rank has started may still send until it ends; every call before the
/// oldest in flight has ended).
stall_position finished_position(const core::engine& e, const core::communicator& c) noexcept;

/// The engine's stall hook (a wait with no stall handling of its own made no progress for the
/// engine's stall_period): answers the stalled members (answer_stalled), then lets the oldest
/// nonblocking collective in flight look for a disagreement (operation::stalled_in_flight).
void wait_stalled(core::engine& e) noexcept;

template <class Condition>
void exchange::condition_met<Condition>::await_suspend(std::coroutine_handle<>) noexcept {
  op->wait_for({[](void* state) { return (*static_cast<Condition*>(state))(); }, &condition});
}

}  // namespace rmpl::coll
