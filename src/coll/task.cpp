#include "coll/task.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "base/error.hpp"
#include "coll/shared_short.hpp"
#include "coll/stall.hpp"

namespace rmpl::coll {

namespace {
/// How a member left a call (error messages of look_for_disagreement).
constexpr std::string_view left_call =
    "has left this call (it failed it, or went on to a later call of the communicator, its free "
    "or finalize)";
/// What a poisoned send of an empty block carries: one byte where none is expected.
constexpr std::byte poison_byte{0};
}  // namespace

void exchange::send(std::span<const std::byte> data, int peer) {
  if (op_->mismatched()) [[unlikely]] {
    // This rank saw the counts disagree: a block one byte short (or one byte where none was due)
    // makes the peer see a disagreement too, and the peer passes it on the same way, so that every
    // rank downstream fails instead of taking the data.
    data = data.empty() ? std::span<const std::byte>(&poison_byte, 1) : data.first(data.size() - 1);
  }
  // Short messages that fit the ring go out at once and need no request.
  if (engine_->try_send_inline(comm_->collective_context(), data.data(), data.size(),
                               comm_->to_world(peer), tag_)) {
    return;
  }
  op_->add(engine_->start_send(comm_->collective_context(), data.data(), data.size(),
                               comm_->to_world(peer), tag_, send_mode::standard));
}

void exchange::recv(std::span<std::byte> data, int peer) {
  op_->add(engine_->start_recv(comm_->collective_context(), data.data(), data.size(),
                               comm_->to_world(peer), tag_));
}

void exchange::note_mismatch(int peer, std::size_t expected, std::size_t arrived) const noexcept {
  op_->note_mismatch(peer, expected, arrived);
}

bool exchange::mismatched() const noexcept {
  return op_->mismatched();
}

bool exchange::all_done::await_ready() {
  // Requests that complete at once (a message that had already arrived) need no suspension.
  return op->settled();
}

void exchange::all_done::await_resume() {
  op->collect();
}

void exchange::nested::await_suspend(std::coroutine_handle<>) {
  op->push(child.handle());
}

void exchange::nested::await_resume() {
  auto& failure = child.handle().promise().failure;
  if (failure) {
    op->discard();
    std::rethrow_exception(failure);
  }
}

operation::~operation() {
  // Only reached with requests pending when the engine itself goes away mid-collective, or when a
  // wait threw (a rank died: the engine has halted and never touches them again).
  pending_.for_each([this](core::request* r) {
    if (r->done()) engine_.free_request(r);
  });
}

void operation::run_to_end() {
  if (watch_ != nullptr) [[unlikely]] {
    run_watched();
    return;
  }
  try {
    // wait_until asks step() before its first progress pass: a collective whose steps all
    // complete at once never polls.
    engine_.wait_until([this] { return step(); }, [this] { stalled(); });
  } catch (...) {
    // The operation is about to leave the stack with its coroutine frame, whose buffers pending
    // transfers may still write. A halted engine never touches them again; otherwise (an error
    // the engine raised without halting, e.g. a corrupt cell) the process cannot go on safely.
    if (!engine_.halted() && !settled()) {
      base::fatal(fmt::format("rmpl: {} failed on rank {} with transfers still in flight",
                              describe(), engine_.rank()));
    }
    throw;
  }
  rethrow_failure();
}

void operation::run_watched() {
  const core::communicator& comm = *comm_;
  const entry_watch& w = *watch_;
  int straddler = -1;
  try {
    engine_.wait_until(
        [&] {
          if (step()) return true;
          if (settled()) straddler = took_short(engine_, comm, w);
          return straddler >= 0;
        },
        [&] {
          // A tree of messages waits for a member that took the protocol: withdraw its receives.
          if (const int r = took_short(engine_, comm, w); r >= 0) {
            fail_stalled(errc::invalid_argument, took_short_message(r));
          }
          stalled();
        });
  } catch (...) {
    finish_entry(engine_, comm, w.call);
    if (!engine_.halted() && !settled()) {
      base::fatal(fmt::format("rmpl: {} failed on rank {} with transfers still in flight",
                              describe(), engine_.rank()));
    }
    throw;
  }
  finish_entry(engine_, comm, w.call);
  if (straddler >= 0) [[unlikely]] {
    base::fail(errc::invalid_argument, "{}", took_short_message(straddler));
  }
  rethrow_failure();
}

std::string operation::took_short_message(int straddler) const {
  return fmt::format(
      "{} on rank {}: the ranks' counts disagree: rank {} took the short protocol (a count of at "
      "most {} bytes) where this rank's takes another algorithm",
      describe(), comm_->rank, straddler, payload_lines_max * short_max);
}

void operation::stalled() {
  answer_stalled(engine_);
  if (comm_ == nullptr || signature_ == nullptr) return;
  const stall_position at = stall_position::of(*comm_);
  // A nonblocking collective of the communicator still in flight here may still send: this
  // rank's note must not say it is past that call (its answers say so neither).
  if (const stall_position done = finished_position(engine_, *comm_);
      done.tags != at.tags || done.shorts != at.shorts) {
    return;
  }
  look_for_disagreement(at, *signature_);
}

void operation::stalled_in_flight() noexcept {
  if (!launch_ || launch_->failure || ended_ || comm_ == nullptr) return;
  try {
    look_for_disagreement(launch_->at, launch_->signature);
  } catch (...) {
    launch_->failure = std::current_exception();
  }
}

bool operation::advance() {
  if (launch_ && launch_->failure) [[unlikely]] {
    // Failed by a stall: its receives are withdrawn and no send is in flight (fail_stalled).
    discard();
    ended_ = true;
    return true;
  }
  return step();
}

stall_position finished_position(const core::engine& e, const core::communicator& c) noexcept {
  stall_position at = stall_position::of(c);
  bool found = false;
  e.for_each_activity([&](const core::activity& a) {
    const auto* op = dynamic_cast<const operation*>(&a);
    const stall_position* launched = op != nullptr ? op->launch_position() : nullptr;
    // Oldest first: the first one of the communicator is its oldest in flight. Its whole launch
    // position counts: short calls made since (a short barrier takes no tag) put this rank no
    // further than it.
    if (!found && launched != nullptr && launched->context == at.context) {
      at = *launched;
      found = true;
    }
  });
  return at;
}

void wait_stalled(core::engine& e) noexcept {
  answer_stalled(e);
  operation* oldest = nullptr;
  e.for_each_activity([&](core::activity& a) {
    if (oldest == nullptr) oldest = dynamic_cast<operation*>(&a);
  });
  if (oldest != nullptr) oldest->stalled_in_flight();
}

void operation::look_for_disagreement(const stall_position& at, const agreement& signature) {
  const core::communicator& c = *comm_;
  // An intercommunicator's ranks name the remote group, and the self pair's collective context
  // is shared by create_group's agreements (coll/stall.hpp, `ambiguous`): no note for either.
  if (c.to_world(c.rank) != engine_.rank() || ambiguous(c.collective_context())) return;
  if (!notice_.publish(at, signature)) return;
  if (what_.algorithm == "shared") {
    // The shared rounds send no message: one that carries this call's tag comes from a member
    // whose count took an algorithm of messages, and that member waits for nothing of this
    // rank's rounds (found where the member finished first: this rank waits for its rounds).
    const int tag = static_cast<int>((at.tags - 1) & static_cast<std::uint64_t>(tag_ub));
    if (status seen; engine_.iprobe(c.collective_context(), any_source, tag, &seen)) {
      fail_stalled(errc::invalid_argument,
                   fmt::format("{} on rank {}: the ranks' counts disagree: rank {} sent a message "
                               "of {} bytes in this call, whose algorithm here sends none",
                               describe(), c.rank, c.from_world(seen.source), seen.bytes));
    }
  }
  std::vector<int> past;
  for (int r = 0; r < c.size; ++r) {
    if (r == c.rank) continue;
    const std::optional<stall_records> note = read_stall_note(engine_, c.to_world(r));
    if (!note) continue;
    for (const stall_record* record : {&note->current, &note->failed}) {
      switch (relate(*record, at)) {
        case stall_relation::same_call:
          if (const std::size_t f = first_difference(record->signature, signature);
              f < compared_fields) {
            fail_stalled(f == 1 ? errc::invalid_rank : errc::invalid_argument,
                         fmt::format("{} on rank {}: the ranks disagree on {}: rank {} {} the "
                                     "same call with {} where this rank passed {}",
                                     describe(), c.rank, field_name(f), r,
                                     record == &note->current ? "waits in" : "failed",
                                     value_text(f, record->signature.field(f)),
                                     value_text(f, signature.field(f))));
          }
          // A member that failed this call has withdrawn its part of it, as one past it.
          if (record == &note->failed) past.push_back(r);
          break;
        case stall_relation::past:
          past.push_back(r);
          break;
        case stall_relation::unrelated:
          break;
      }
    }
    for (const stall_position& answer : note->answered) {
      if (relate({fabric::stall_note::collective, answer, {}}, at) == stall_relation::past)
        past.push_back(r);
    }
  }
  if (past.empty()) {
    everyone_left_ = sent_to_past_ = false;
    return;
  }
  // Whatever those members sent is in the rings (they publish only then): one pass takes it.
  engine_.progress();
  if (ended_) return;  // a nonblocking collective that this pass moved to its end
  std::sort(past.begin(), past.end());
  past.erase(std::unique(past.begin(), past.end()), past.end());
  if (static_cast<int>(past.size()) == c.size - 1) {
    // Every other member has finished this call, so whatever it needs of them is here; a call
    // that still cannot go on at the next stall (the wait has asked it again meanwhile) waits
    // for what none of them will provide (the shared rounds, where no receive names a rank).
    if (everyone_left_) {
      fail_stalled(errc::invalid_argument,
                   fmt::format("{} on rank {}: the ranks' calls or counts disagree: every other "
                               "member {} without providing what this rank waits for",
                               describe(), c.rank, left_call));
    }
    everyone_left_ = true;
  }
  if (rounds_first_ != 0 && c.area >= 0) {
    // A member that took part in this call's shared rounds released them all before it left.
    for (const int r : past) {
      const fabric::area_flags& theirs = engine_.node().area(c.to_world(r), c.area);
      if (theirs.released.load(std::memory_order_acquire) < rounds_first_) {
        fail_stalled(errc::invalid_argument,
                     fmt::format("{} on rank {}: the ranks' calls or counts disagree: rank {} {} "
                                 "without taking part in its shared rounds",
                                 describe(), c.rank, r, left_call));
      }
    }
  }
  const std::uint32_t context = c.collective_context();
  int sends_to_past = -1;  // a member past this call to which a send of this rank is in flight
  for (const int r : past) {
    const int world = c.to_world(r);
    bool waits_for_it = false;
    pending_.for_each([&](const core::request* q) {
      if (q->peer != world || q->context != context || q->done()) return;
      waits_for_it = waits_for_it || (q->kind == core::op::recv && q->st == core::state::posted);
      if (q->kind == core::op::send) sends_to_past = r;
    });
    if (waits_for_it) {
      fail_stalled(errc::invalid_argument,
                   fmt::format("{} on rank {}: the ranks' calls or counts disagree: rank {} {} "
                               "without sending what this rank waits for",
                               describe(), c.rank, r, left_call));
    }
  }
  // A send to a member past this call is never taken; only a last acknowledgement can still be
  // on its way, which the next stall, a stall_period later, has seen.
  if (sends_to_past >= 0 && sent_to_past_) {
    fail_stalled(errc::invalid_argument,
                 fmt::format("{} on rank {}: the ranks' calls or counts disagree: rank {} {} "
                             "without receiving what this rank sends it",
                             describe(), c.rank, sends_to_past, left_call));
  }
  sent_to_past_ = sends_to_past >= 0;
}

void operation::fail_stalled(errc code, const std::string& message) {
  notice_.keep_as_failed();
  pending_.for_each([this](core::request* q) { engine_.cancel(q); });
  if (!settled()) {
    base::fatal(
        fmt::format("rmpl: {}; this rank cannot return: sends of the call are still in "
                    "flight",
                    message));
  }
  base::fail(code, "{}", message);
}

std::string operation::describe() const {
  return fmt::format("{} ({}) of {} bytes on a communicator of {}", what_.collective,
                     what_.algorithm, what_.bytes, what_.comm_size);
}

void operation::push(std::coroutine_handle<task::promise_type> child) {
  if (depth_ == stack_.size()) {
    base::fail(errc::internal, "{}: algorithm steps nested more than {} deep", describe(),
               stack_.size());
  }
  stack_[depth_++] = child;
}

bool operation::settled() const noexcept {
  return pending_.all_of([](const core::request* r) { return r->done(); });
}

void operation::throw_mismatch() const {
  const int me = comm_ != nullptr ? comm_->rank : engine_.rank();
  const auto& m = mismatch_;
  base::fail(
      m.arrived > m.expected ? errc::truncated : errc::invalid_argument,
      "{} on rank {}: the ranks' counts disagree: it expected {} bytes from rank {} but {} "
      "arrived{}",
      describe(), me, m.expected, m.peer, m.arrived,
      m.by_message ? " (a rank that saw a disagreement passes on blocks one byte short)" : "");
}

void operation::collect() {
  if (pending_.empty()) return;
  std::exception_ptr first;
  pending_.for_each([&](core::request* r) {
    // One compare per received block: a size other than the one posted means the ranks' counts
    // disagree. Noted, not thrown: the algorithm goes on (sending what its peers wait for) and
    // reports it at its end.
    if (r->kind == core::op::recv && r->message_bytes != r->bytes) [[unlikely]] {
      const int peer = comm_ != nullptr ? comm_->from_world(r->result.source) : r->result.source;
      note_mismatch(peer, r->bytes, r->message_bytes, true);
      if (r->result.error == errc::truncated) r->result.error = errc::success;
    }
    try {
      engine_.finish(r);
    } catch (...) {
      if (!first) first = std::current_exception();
    }
  });
  pending_.clear();
  if (first) std::rethrow_exception(first);
}

void operation::discard() noexcept {
  try {
    collect();
  } catch (...) {  // the failure being reported is the coroutine's own
  }
}

bool operation::step() {
  // Resume as long as what the running coroutine waits for is complete: a step whose requests
  // complete at once (messages already here, sends that fit the ring) needs no further pass.
  // A coroutine that failed with sends or receives in flight ends only once they have completed:
  // their buffers may live in its frame.
  for (;;) {
    if (!settled()) return false;
    if (condition_.ask != nullptr) {
      if (!condition_.ask(condition_.state)) return false;
      condition_ = {};
    }
    auto h = stack_[depth_ - 1];
    if (!h.done()) {
      h.resume();
      continue;
    }
    if (depth_ == 1) break;
    --depth_;  // the one below resumes next and sees how its child ended
  }
  discard();
  ended_ = true;
  return true;
}

}  // namespace rmpl::coll
