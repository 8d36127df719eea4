#include "core/engine.hpp"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "base/config.hpp"
#include "base/error.hpp"

namespace rmpl::core {
namespace {

std::string peer_text(int peer) {
  if (peer == any_source) return "any source";
  if (peer == proc_null) return "proc_null";
  return fmt::format("rank {}", peer);
}
std::string tag_text(int tag) {
  return tag == any_tag ? "any tag" : fmt::format("tag {}", tag);
}

}  // namespace

engine::engine()
    : job_(fabric::shm::domain::create),
      dom_(job_),
      rank_(job_.rank()),
      size_(job_.size()),
      matcher_(size_, 0) {
  tune_.eager_max = dom_.p().eager_slot_bytes;
  tune_.inline_max = dom_.p().inline_max;
  tune_.max_unexpected = base::env_size("RMPL_UNEXPECTED_MAX", 1u << 16, 16, 1u << 26);
  // When ranks outnumber cores a waiting rank gives its core away at once: it yields on every empty
  // poll (a peer on this core runs, maybe the one that will answer) and sleeps after a few dozen.
  // Yielding measured 30-50% faster than sleeping at once for 4 ping-pong pairs on 2 cores (a futex
  // wake-up and sleep cost more than a yield). Otherwise a short spin catches replies without a
  // sleep.
  tune_.spin_polls = static_cast<unsigned>(
      base::env_size("RMPL_SPIN", job_.oversubscribed() ? 32 : 20000, 0, 1u << 30));
  tune_.yield_when_idle = base::env_size("RMPL_YIELD", job_.oversubscribed() ? 1 : 0, 0, 1) != 0;
  tune_.fast_polls = job_.oversubscribed() ? 0 : 2000;
  // Both sides copying a large rendezvous needs both running: not when ranks outnumber cores.
  tune_.assist_min =
      base::env_size("RMPL_ASSIST_MIN", job_.oversubscribed() ? std::uint64_t{1} << 62 : 512u << 10,
                     0, std::uint64_t{1} << 62);
  tune_.assist_chunk = base::env_size("RMPL_ASSIST_CHUNK", 256u << 10, 4096, 1u << 30);
  tune_.drain_batch = std::max<std::size_t>(dom_.p().ring_cells / 4, 1);
  matcher_ = matcher(size_, tune_.max_unexpected);
  // Under MPI_THREAD_MULTIPLE a thread leaving the library wakes this rank's threads asleep on its
  // bell (core/threads.hpp).
  threads::set_self_ring(
      [](void* j) noexcept { static_cast<const runtime::local::job*>(j)->wake_own_threads(); },
      &job_);
  limits_ = cell_limits{dom_.p().eager_slots, dom_.p().eager_slot_bytes, 2 * context_pool::pairs,
                        dom_.p().inline_max};
  control_reserve_ = std::max<std::uint64_t>(2, dom_.p().ring_cells / 4);
  out_.resize(size_);
  in_.resize(size_);
  for (int peer = 0; peer < size_; ++peer) {
    out_[peer].ring = fabric::shm::ring_writer(dom_.ring_cells(peer, rank_),
                                               &dom_.ring(peer, rank_), dom_.p().ring_cells);
    in_[peer].ring = fabric::shm::ring_reader(dom_.ring_cells(rank_, peer), &dom_.ring(rank_, peer),
                                              dom_.p().ring_cells);
  }
  start_remote();
}

void engine::finalize() {
  if (finalized_) return;
  finalized_ = true;  // tried once: a death found here is reported here, not again at destruction
  // Push out what we still owe peers (buffered sends, control cells), then wait for every rank,
  // progressing all the while so that peers' transfers that need us can finish.
  wait_until([this] {
    return backlogged_ == 0 && bounces_ == 0 && bsend_total_ == 0 && remote_in_flight_ == 0;
  });
  // Members stalled in a collective that waits for a message of this rank learn from this note
  // that it has left every call, and fail instead of waiting for it (coll/stall.hpp).
  fabric::stall_note& note = dom_.node().stall(rank_);
  note.change(
      [&] { note.current.where.store(fabric::stall_note::finalizing, std::memory_order_relaxed); });
  leaving_ = true;  // from here on a peer that leaves (closes its endpoints) has done nothing wrong
  const std::uint32_t generation = job_.barrier_arrive();
  wait_until([&] { return job_.barrier_done(generation); });
  if (remote_ != nullptr) remote_->close();
  areas_.reset_mine();
}

engine::~engine() {
  threads::set_self_ring(nullptr, nullptr);
  // The C++ session's end (and a process that never finalized explicitly): nobody to return the
  // error to, so it is printed.
  try {
    finalize();
  } catch (const error& e) {
    std::fprintf(stderr, "%s (during finalize)\n", e.what());
  }
}

errc engine::vanished_peer(int peer) const {
  // The process is gone, and the data with it. A peer never leaves while a message of its to this
  // rank is unread (its send waits for our FIN, its finalize for every rank), unless it died or a
  // death elsewhere ended it early: either way a rank of the job has died, which the launcher
  // writes into the segment within milliseconds of reaping the process. Its word gives the error
  // its true cause (MPI_ERR_PROC_FAILED naming the dead rank and how it died, as every other
  // survivor reports it) rather than ESRCH's "No such process". Waited for without progressing
  // (nothing of the job moves after a death anyway), and not forever. A launcher that is stopped
  // (SIGSTOP, a debugger) or gone says nothing: this rank's own watcher then finds the process
  // gone and marks it, with its wait status while it is an unreaped zombie.
  using clock = std::chrono::steady_clock;
  const auto give_up = clock::now() + std::chrono::seconds(10);
  for (;;) {
    job_.check_liveness();
    if (job_.failed_rank() >= 0) return errc::dead_rank;
    if (job_.finalized(peer)) return errc::system;
    if (clock::now() >= give_up) return errc::dead_rank;  // gone without a word: died all the same
    ::usleep(1000);
  }
}

void engine::check_liveness_now() noexcept {
  polls_until_liveness_ = polls_per_liveness_check;
  job_.check_liveness();  // a death found is marked: the next progress pass halts
}

void engine::throw_dead_rank() const {
  int dead = job_.failed_rank();
  if (dead < 0 && remote_failed_rank_ >= 0) {
    // The provider lost a peer. A lost connection is most often the echo of a death: the dead
    // process's sockets close at once, while its launcher reaps it, marks it and relays it to the
    // other hosts a few milliseconds later, and meanwhile its peers elsewhere may have reported it
    // and exited, closing their own connections. The runtime's word names the death that started
    // it all ("rank 3 was killed by signal 9 (on host b)"), so it is waited for, briefly, before
    // the provider's own account is given (a cut link, which no launcher sees).
    using clock = std::chrono::steady_clock;
    const auto give_up = clock::now() + (remote_failure_waited_ ? std::chrono::milliseconds(0)
                                                                : remote_failure_grace);
    remote_failure_waited_ = true;
    for (;;) {
      job_.check_liveness();
      dead = job_.failed_rank();
      if (dead >= 0 || clock::now() >= give_up) break;
      ::usleep(1000);
    }
    if (dead < 0) {
      base::fail(errc::dead_rank, "rank {} cannot continue: {}", rank_, remote_failure_);
    }
  }
  base::fail(errc::dead_rank, "rank {} cannot continue: {}", rank_, job_.describe_death(dead));
}

void engine::corrupt(int source, const std::string& what) const {
  // The offending cell stays where it is (it is not consumed), so every later pass over that ring
  // reports it again: nothing that rank sends after it is ever acted on.
  base::fail(errc::internal, "rank {}: corrupt shared memory written by rank {}: {}", rank_, source,
             what);
}

std::string engine::describe(const request& r) const {
  if (r.kind == op::collective) return fmt::format("{} on rank {}", r.work->describe(), rank_);
  if (r.kind == op::send) {
    return fmt::format("send on rank {} to {} ({}, {} bytes)", rank_, peer_text(r.peer),
                       tag_text(r.tag), r.bytes);
  }
  return fmt::format("recv on rank {} from {} ({}, buffer of {} bytes)", rank_, peer_text(r.peer),
                     tag_text(r.tag), r.bytes);
}

// ---------------------------------------------------------------- argument checks

void engine::check_send(std::uint32_t context, const void* buf, std::size_t bytes, int dest,
                        int tag, send_mode mode) const {
  if (dest != proc_null && (dest < 0 || dest >= size_)) {
    base::fail(errc::invalid_rank,
               "send on rank {} ({}, {} bytes): destination {} is not a rank of the communicator "
               "(size {})",
               rank_, tag_text(tag), bytes, dest, size_);
  }
  if (tag < 0 || tag > tag_ub) {
    base::fail(errc::invalid_tag,
               "send on rank {} to rank {} ({} bytes): tag {} is outside [0, {}]", rank_, dest,
               bytes, tag, tag_ub);
  }
  if (buf == nullptr && bytes > 0) {
    base::fail(errc::invalid_argument,
               "send on rank {} to rank {} (tag {}): null buffer of {} bytes", rank_, dest, tag,
               bytes);
  }
  if (context > 0xffff) {
    base::fail(errc::invalid_argument, "send on rank {}: communicator context {} is invalid", rank_,
               context);
  }
  if (static_cast<unsigned>(mode) > static_cast<unsigned>(send_mode::ready)) {
    base::fail(errc::invalid_argument, "send on rank {}: unknown send mode {}", rank_,
               static_cast<unsigned>(mode));
  }
}

void engine::check_recv(std::uint32_t context, const void* buf, std::size_t capacity, int source,
                        int tag) const {
  if (source != any_source && source != proc_null && (source < 0 || source >= size_)) {
    base::fail(errc::invalid_rank,
               "recv on rank {} ({}): source {} is not a rank of the communicator (size {})", rank_,
               tag_text(tag), source, size_);
  }
  if (tag != any_tag && (tag < 0 || tag > tag_ub)) {
    base::fail(errc::invalid_tag, "recv on rank {} from {}: tag {} is outside [0, {}]", rank_,
               peer_text(source), tag, tag_ub);
  }
  if (buf == nullptr && capacity > 0) {
    base::fail(errc::invalid_argument, "recv on rank {} from {}: null buffer of {} bytes", rank_,
               peer_text(source), capacity);
  }
  if (context > 0xffff) {
    base::fail(errc::invalid_argument, "recv on rank {}: communicator context {} is invalid", rank_,
               context);
  }
}

// ---------------------------------------------------------------- sending

bool engine::emit(int dest, request* r) {
  out_channel& ch = out_[dest];
  cell* c = ch.ring.claim(control_reserve_);
  if (c == nullptr) return false;
  // Whatever its mode, this message matches the receive a notice for its (context, tag) announced.
  // A synchronous one then completes when published, with no ack, unless the receiver has written
  // something this rank has not read yet: that could be the notice's withdrawal (engine::cancel).
  bool noticed = false;
  if (!ch.held.empty()) [[unlikely]] {
    noticed = take_notice(ch, r->context, r->tag);
  }
  const bool sync = r->mode == send_mode::synchronous;
  const bool acked = sync && !(noticed && quiet_from(dest));
  const std::uint8_t flags = acked ? flag::sync : sync ? flag::ready : 0;
  bool waits = acked;
  r->awaits = static_cast<std::uint8_t>(acked ? kind::ack : kind::none);
  std::uint64_t cells = 1;
  if (r->bytes <= header_capacity(acked)) {
    if (r->segments.count != 0) [[unlikely]] {
      write_inline(*c, r->context, r->tag, nullptr, 0, flags);
      c->size = static_cast<std::uint32_t>(r->bytes);
      gather(r->segments.entries.get(), c->body, r->bytes);
    } else {
      write_inline(*c, r->context, r->tag, r->buffer, r->bytes, flags);
    }
  } else if (r->bytes <= tune_.inline_max && r->segments.count == 0 &&
             ch.ring.room_for(inline_cells(r->bytes, acked), control_reserve_)) {
    // Long inline: the ring's own cells, no pool slot (fabric/shm/layout.hpp, continuation_bytes).
    const auto* data = static_cast<const unsigned char*>(r->buffer);
    const std::size_t head = header_capacity(acked);
    write_inline(*c, r->context, r->tag, data, head, flags);
    c->size = static_cast<std::uint32_t>(r->bytes);
    ch.ring.write_continuation(data, head, r->bytes);
    cells = inline_cells(r->bytes, acked);
  } else if (int slot;
             r->bytes <= tune_.eager_max && (slot = dom_.pool_of(dest).claim(rank_)) >= 0) {
    c->flags = flags;
    c->context = static_cast<std::uint16_t>(r->context);
    c->tag = r->tag;
    void* data = dom_.pool_of(dest).data(static_cast<std::uint32_t>(slot));
    if (r->segments.count != 0) [[unlikely]] {
      gather(r->segments.entries.get(), data, r->bytes);  // straight into the slot, no staging
    } else {
      std::memcpy(data, r->buffer, r->bytes);
    }
    c->kind = static_cast<std::uint8_t>(kind::eager);
    c->size = static_cast<std::uint32_t>(r->bytes);
    write_body(*c, eager_body{static_cast<std::uint32_t>(slot), 0, acked ? r->id() : 0});
  } else {
    c->kind = static_cast<std::uint8_t>(kind::rts);
    c->flags = 0;  // the FIN that ends every rendezvous already proves the match
    c->context = static_cast<std::uint16_t>(r->context);
    c->tag = r->tag;
    c->size = 0;
    // A scattered send names its segment list; the receiver reads the list, then the segments.
    const segment_list& parts = r->segments;
    write_body(*c, rts_body{r->bytes, r->id(),
                            reinterpret_cast<std::uint64_t>(parts.count != 0 ? parts.entries.get()
                                                                             : r->buffer),
                            parts.count});
    waits = true;
    // The receiver pulls the data and sends FIN, or, without single copy, asks for it with CTS.
    r->awaits = static_cast<std::uint8_t>(dom_.single_copy() ? kind::fin : kind::cts);
  }
  if (acked && c->kind == static_cast<std::uint8_t>(kind::inline_data)) {
    // A synchronous inline message (short or long) carries its cookie in the header cell's tail,
    // past the data header_capacity(true) leaves room for; an eager one has it in its body.
    const std::uint64_t cookie = r->id();
    std::memcpy(c->body + cookie_offset, &cookie, sizeof cookie);
  }
  publish(ch, dest, c, cells);
  ++ch.sent;
  if (waits) {
    r->st = state::in_flight;
  } else {
    complete_send(r);
  }
  return true;
}

void engine::write_inline(cell& c, std::uint32_t context, int tag, const void* buf,
                          std::size_t bytes, std::uint8_t flags) noexcept {
  c.kind = static_cast<std::uint8_t>(kind::inline_data);
  c.flags = flags;
  c.context = static_cast<std::uint16_t>(context);
  c.tag = tag;
  c.size = static_cast<std::uint32_t>(bytes);
  if (bytes) std::memcpy(c.body, buf, bytes);
}

// try_send_inline's body, inlined into send() for certain: GCC stopped inlining try_send_inline
// there once it held the notices' test, which cost the blocking send a call and a frame (+32
// instructions per send to self under callgrind).
[[gnu::always_inline]] inline bool engine::send_inline_now(std::uint32_t context, const void* buf,
                                                           std::size_t bytes, int dest,
                                                           int tag) noexcept {
  if (bytes > inline_capacity || dest < 0 || dest >= size_ || tag < 0 || tag > tag_ub ||
      context > 0xffff || (buf == nullptr && bytes > 0) || remote(dest)) {
    return false;
  }
  out_channel& ch = out_[dest];
  if (!ch.backlog.empty()) return false;  // behind queued cells: order first
  cell* c = ch.ring.claim(control_reserve_);
  if (c == nullptr) return false;
  if (!ch.held.empty()) [[unlikely]] {
    take_notice(ch, context, tag);  // this message matches the announced receive
  }
  write_inline(*c, context, tag, buf, bytes, 0);
  publish(ch, dest, c);
  ++ch.sent;
  return true;
}

bool engine::try_send_inline(std::uint32_t context, const void* buf, std::size_t bytes, int dest,
                             int tag) noexcept {
  return send_inline_now(context, buf, bytes, dest, tag);
}

// ---------------------------------------------------------------- notices

void engine::announce(const context_queues& q, request* r) noexcept {
  const int source = r->peer;
  // The receive must be certain to take the source's next (context, tag) message: a named tag, and
  // no receive posted before it that would take such a message first.
  if (r->tag == any_tag || q.would_take(source, r->tag)) return;
  // The notice names how far this rank has read the source's ring; a cell waiting there unread
  // means the source has published more, and would refuse it.
  if (!quiet_from(source)) return;
  const ready_body notice{in_[source].taken, r->context, r->tag};
  if (source == rank_) {
    // To itself this rank is its own sender: it keeps the notice at once, with no cell (one would
    // be read only after the send it is for). Quiet, its ring to itself holds nothing unread, so
    // its tail there is the position.
    if (!out_[rank_].backlog.empty()) return;
    keep_notice(out_[rank_], notice.position, notice.context, notice.tag);
    r->announced = true;
    r->announced_at = notice.position;
    return;
  }
  // A ready cell may be dropped, never queued: it is only an optimisation, and queued it would be
  // a control cell this rank owes (every wait would wait for it) that is stale by the time it
  // goes. It also keeps half the reserve of the ring for control cells that complete requests,
  // and goes only with nothing queued before it (a withdraw there must arrive first).
  out_channel& ch = out_[source];
  if (!ch.backlog.empty()) return;
  cell* c = ch.ring.claim(control_reserve_ / 2);
  if (c == nullptr) return;
  unsigned char body[sizeof(cell::body)] = {};
  std::memcpy(body, &notice, sizeof notice);
  write_control(c, kind::ready, body);
  publish(ch, source, c);
  r->announced = true;
  r->announced_at = notice.position;
}

void engine::accept_notice(int source, const decoded_cell& d) {
  out_channel& ch = out_[source];
  if (check_ready(d, ch.sent) != fault::none) [[unlikely]] {
    corrupt(source, core::describe(fault::ready_position, d, limits_));
  }
  // Anything published or queued since the receiver's view could be matched before this rank's
  // next message on (context, tag): the receive it announced may not be the one that message
  // takes.
  if (d.position != ch.sent || !ch.backlog.empty()) return;
  keep_notice(ch, d.position, d.context, d.tag);
}

void engine::keep_notice(out_channel& ch, std::uint64_t position, std::uint32_t context,
                         int tag) noexcept {
  if (const std::size_t i = find_notice(ch, context, tag); i < ch.held.size()) {
    // An honest receiver announces (context, tag) again only after the first receive was matched
    // (which consumed its notice) or cancelled (whose withdraw came first): keep the newer one
    // anyway.
    ch.held[i].position = position;
    return;
  }
  if (ch.held.size() >= max_notices) return;
  ch.held.push_back(notice{position, context, tag});
}

void engine::drop_notice(out_channel& ch, std::uint64_t position, std::uint32_t context,
                         int tag) noexcept {
  // Unless a message has consumed it already (a notice held now for the same context and tag, at
  // another position, is a newer receive's).
  const std::size_t i = find_notice(ch, context, tag);
  if (i < ch.held.size() && ch.held[i].position == position) remove_notice(ch, i);
}

bool engine::take_notice(out_channel& ch, std::uint32_t context, int tag) noexcept {
  const std::size_t i = find_notice(ch, context, tag);
  if (i == ch.held.size()) return false;
  remove_notice(ch, i);
  return true;
}

std::size_t engine::find_notice(const out_channel& ch, std::uint32_t context, int tag) noexcept {
  std::size_t i = 0;
  while (i < ch.held.size() && !(ch.held[i].context == context && ch.held[i].tag == tag)) ++i;
  return i;
}

void engine::remove_notice(out_channel& ch, std::size_t i) noexcept {
  ch.held[i] = ch.held.back();
  ch.held.pop_back();
}

void engine::forge_cell_for_test(int dest, const cell& fields) {
  cell* c = out_[dest].ring.claim(0);
  if (c == nullptr) base::fail(errc::internal, "forge_cell_for_test: the ring to {} is full", dest);
  c->kind = fields.kind;
  c->flags = fields.flags;
  c->context = fields.context;
  c->tag = fields.tag;
  c->size = fields.size;
  std::memcpy(c->body, fields.body, sizeof c->body);
  publish(out_[dest], dest, c);
}

void engine::write_control(cell* c, kind how, const unsigned char* body) noexcept {
  c->kind = static_cast<std::uint8_t>(how);
  c->flags = 0;
  c->context = 0;
  c->tag = 0;
  c->size = 0;
  std::memcpy(c->body, body, sizeof(c->body));
}

void engine::send_control_bytes(int dest, kind how, const unsigned char* body) {
  if (remote(dest)) [[unlikely]] {
    // Through a provider the only control a receiver sends is the ack of a synchronous message.
    control_body c;
    std::memcpy(&c, body, sizeof c);
    if (how != kind::ack) {
      base::fail(errc::internal, "rank {}: a control cell of kind {} for {}, on another host",
                 rank_, static_cast<unsigned>(how), where(dest));
    }
    remote_ack(dest, c.cookie);
    return;
  }
  out_channel& ch = out_[dest];
  if (ch.backlog.empty()) {
    if (cell* c = ch.ring.claim(0)) {
      write_control(c, how, body);
      publish(ch, dest, c);
      return;
    }
    ++backlogged_;
  }
  // The reserve is full (the peer has not drained its ring): queue it, and owe it until it is out.
  // Control cells do not take part in matching order, so they may overtake queued messages, but
  // not each other: after the controls already queued. (A control pushed in front of them once
  // sent a rendezvous's fin ahead of its assist, and the sender took the assist for a forgery.)
  ++controls_owed_;
  pending p{nullptr, how, {}};
  std::memcpy(p.body, body, sizeof(p.body));
  ch.backlog.insert(ch.backlog.begin() + static_cast<std::ptrdiff_t>(ch.backlog_controls), p);
  ++ch.backlog_controls;
}

bool engine::flush_backlog(int dest) {
  out_channel& ch = out_[dest];
  bool worked = false;
  while (!ch.backlog.empty()) {
    pending& p = ch.backlog.front();
    if (p.req) {
      if (!emit(dest, p.req)) break;
    } else {
      cell* c = ch.ring.claim(0);
      if (c == nullptr) break;
      write_control(c, p.how, p.body);
      publish(ch, dest, c);
      --controls_owed_;
      --ch.backlog_controls;
    }
    ch.backlog.pop_front();
    worked = true;
  }
  if (ch.backlog.empty() && worked) --backlogged_;
  return worked;
}

void engine::complete_send(request* r) noexcept {
  r->st = state::complete;
  if (r->detached) {
    r->account->used -= r->bytes;
    bsend_total_ -= r->bytes;
    if (!retired_buffers_.empty() && r->account->used == 0) {
      std::erase_if(retired_buffers_, [](const auto& a) { return a->used == 0; });
    }
    requests_.release(r);
  }
}

buffer_account& engine::buffer_for(std::uint32_t context) noexcept {
  if (!context_buffers_.empty()) {
    if (auto it = context_buffers_.find(context); it != context_buffers_.end()) {
      if (it->second->attached) return *it->second;
    }
  }
  return process_buffer_;
}

void engine::use_buffer(std::uint32_t context, std::shared_ptr<buffer_account> account) {
  auto it = context_buffers_.find(context);
  if (it != context_buffers_.end()) {
    // Its messages in flight still name it: kept until they are delivered (complete_send).
    if (it->second->used > 0) retired_buffers_.push_back(std::move(it->second));
    context_buffers_.erase(it);
  }
  if (account != nullptr) context_buffers_.emplace(context, std::move(account));
}

inline request* engine::new_send(std::uint32_t context, std::size_t bytes, int dest, int tag,
                                 send_mode mode) {
  request* r = requests_.allocate();
  r->kind = op::send;
  r->mode = mode == send_mode::synchronous ? mode : send_mode::standard;
  r->context = context;
  r->peer = dest;
  r->tag = tag;
  r->bytes = bytes;
  r->st = dest == proc_null ? state::complete : state::queued;  // to nobody: done at once
  return r;
}

request* engine::start_send(std::uint32_t context, const void* buf, std::size_t bytes, int dest,
                            int tag, send_mode mode) {
  check_send(context, buf, bytes, dest, tag, mode);
  request* r = new_send(context, bytes, dest, tag, mode);
  r->buffer = const_cast<void*>(buf);
  if (dest == proc_null) return r;
  if (mode == send_mode::buffered) {
    // The copy travels on its own (detached); the caller gets a request that is already complete.
    buffer_account& account = buffer_for(context);
    if (bytes > account.limit - account.used) {
      requests_.release(r);
      base::fail(
          errc::buffer_exhausted,
          "buffered send on rank {} to rank {} (tag {}): {} bytes do not fit in the attached "
          "{}buffer ({} of {} bytes in use)",
          rank_, dest, tag, bytes,
          &account == &process_buffer_ ? "" : "communicator's or session's ", account.used,
          account.limit);
    }
    r->owned = std::make_unique<std::byte[]>(std::max<std::size_t>(bytes, 1));
    if (bytes) std::memcpy(r->owned.get(), buf, bytes);
    r->buffer = r->owned.get();
    r->detached = true;
    r->account = &account;
    account.used += bytes;
    bsend_total_ += bytes;
    out_channel& ch = out_[dest];
    if (remote(dest)) {
      remote_send(r);
    } else if (!ch.backlog.empty() || !emit(dest, r)) {
      if (ch.backlog.empty()) ++backlogged_;
      ch.backlog.push_back(pending{r, kind::none, {}});
    }
    request* done = requests_.allocate();
    done->kind = op::send;
    done->peer = dest;
    done->tag = tag;
    done->bytes = bytes;
    done->st = state::complete;
    return done;
  }
  return queue_send(r);
}

request* engine::queue_send(request* r) {
  const int dest = r->peer;
  if (remote(dest)) [[unlikely]] {
    remote_send(r);
    return r;
  }
  out_channel& ch = out_[dest];
  if (!ch.backlog.empty() || !emit(dest, r)) {
    if (ch.backlog.empty()) ++backlogged_;
    ch.backlog.push_back(pending{r, kind::none, {}});
  }
  return r;
}

void engine::check_segments(const char* what, const segment_list& data, std::size_t bytes, int peer,
                            int tag) const {
  if (!dom_.single_copy()) {
    base::fail(errc::invalid_argument,
               "{} on rank {} ({} {}, {}): data in segments needs single copy, which is off", what,
               rank_, what[0] == 's' ? "to" : "from", peer_text(peer), tag_text(tag));
  }
  std::size_t sum = 0;
  for (std::size_t i = 0; i < data.count; ++i) {
    const iovec& e = data.entries[i];
    if (e.iov_base == nullptr || e.iov_len == 0 || e.iov_len > bytes - sum) {
      base::fail(errc::invalid_argument,
                 "{} on rank {} ({} {}, {}): segment {} of {} ({} bytes at {}) is null, empty or "
                 "beyond the {} bytes of the message",
                 what, rank_, what[0] == 's' ? "to" : "from", peer_text(peer), tag_text(tag), i,
                 data.count, e.iov_len, e.iov_base, bytes);
    }
    sum += e.iov_len;
  }
  if (data.count == 0 || sum != bytes) {
    base::fail(errc::invalid_argument,
               "{} on rank {} ({} {}, {}): {} segments cover {} bytes, not {}", what, rank_,
               what[0] == 's' ? "to" : "from", peer_text(peer), tag_text(tag), data.count, sum,
               bytes);
  }
}

request* engine::start_send(std::uint32_t context, segment_list data, std::size_t bytes, int dest,
                            int tag, send_mode mode) {
  check_send(context, data.entries.get(), bytes, dest, tag, mode);
  if (mode == send_mode::buffered) {
    base::fail(errc::invalid_argument,
               "send on rank {} to {} ({}): a buffered send cannot take segments", rank_,
               peer_text(dest), tag_text(tag));
  }
  check_segments("send", data, bytes, dest, tag);
  request* r = new_send(context, bytes, dest, tag, mode);
  r->segments = std::move(data);
  return dest == proc_null ? r : queue_send(r);
}

void engine::send(std::uint32_t context, const void* buf, std::size_t bytes, int dest, int tag,
                  send_mode mode) {
  // Fast path: a small standard send with room in the ring completes without a request.
  if ((mode == send_mode::standard || mode == send_mode::ready) &&
      send_inline_now(context, buf, bytes, dest, tag)) {
    return;
  }
  request* r = start_send(context, buf, bytes, dest, tag, mode);
  wait(r);
  finish(r);
}

// ---------------------------------------------------------------- receiving

request* engine::start_recv(std::uint32_t context, void* buf, std::size_t capacity, int source,
                            int tag) {
  check_recv(context, buf, capacity, source, tag);
  request* r = requests_.allocate();
  r->kind = op::recv;
  r->context = context;
  r->peer = source;
  r->tag = tag;
  r->buffer = buf;
  r->bytes = capacity;
  return post_recv(r);
}

request* engine::start_recv(std::uint32_t context, segment_list data, std::size_t capacity,
                            int source, int tag) {
  check_recv(context, data.entries.get(), capacity, source, tag);
  check_segments("recv", data, capacity, source, tag);
  request* r = requests_.allocate();
  r->kind = op::recv;
  r->context = context;
  r->peer = source;
  r->tag = tag;
  r->bytes = capacity;
  r->segments = std::move(data);
  return post_recv(r);
}

request* engine::post_recv(request* r) {
  const int source = r->peer, tag = r->tag;
  const std::uint32_t context = r->context;
  if (source == proc_null) {
    r->result.source = proc_null;
    r->result.tag = any_tag;
    r->st = state::complete;
    return r;
  }
  context_queues& q = matcher_.queues(context);
  if (unexpected* u = q.find_unexpected(source, tag)) {
    q.remove_unexpected(u);
    const bool long_inline = u->how == kind::inline_data && is_long_inline(u->size, u->flags);
    deliver(r, incoming{u->source, u->tag, u->how, u->flags, u->size, u->cookie, u->address,
                        u->segments, u->slot, long_inline ? u->long_data.data() : u->data});
    matcher_.release(u);
    return r;
  }
  r->post_order = ++posts_;
  r->st = state::posted;
  if (source >= 0 && (in_[source].last_flags & (flag::sync | flag::ready)) != 0) [[unlikely]] {
    announce(q, r);
  }
  q.post(r);
  return r;
}

// Inlined into recv() for certain (as send_inline_now into send()): out of line, the fast path
// cost the blocking receive 34 more instructions per call under callgrind (a call, a frame, the
// status copied back).
[[gnu::always_inline]] inline bool engine::try_fast_recv(std::uint32_t context, void* buf,
                                                         std::size_t capacity, int source, int tag,
                                                         status& out) {
  // A blocking receive from one source, with nothing posted and nothing held from that source, must
  // take the next message in that source's ring if it matches. When that message is a standard
  // or synchronous inline or eager one it is copied straight into the user's buffer: no request,
  // no queue (a synchronous one acked at once).
  // Anything else, or no message within a short spin, goes the general way (which also keeps every
  // other ring progressing).
  if (source < 0 || source >= size_ || context > 0xffff ||
      (tag != any_tag && (tag < 0 || tag > tag_ub)) || (buf == nullptr && capacity > 0) ||
      backlogged_ > 0 || bounces_ > 0 || remote(source)) {
    return false;
  }
  const context_queues& q = matcher_.queues(context);
  if (!q.nothing_posted() || !q.nothing_from(source)) return false;
  in_channel& ch = in_[source];
  cell& c = ch.ring.head_cell();
  for (unsigned polls = 0; !ch.ring.published(c); ++polls) {
    if (polls >= tune_.fast_polls) return false;
    relax(false);
  }
  if (static_cast<kind>(c.kind) == kind::eager)
    return fast_recv_eager(ch, c, context, buf, capacity, source, tag, out);
  // A synchronous one out of line: the standard one's path stays small enough to be inlined.
  if (c.flags != 0) [[unlikely]]
    return fast_recv_inline_sync(ch, c, context, buf, capacity, source, tag, out);
  // Each field is read once (the peer could rewrite it between a check and a use); anything odd
  // is left to the general path, which reports it.
  const int cell_tag = read_once(c.tag);
  const std::size_t size = read_once(c.size);
  if (static_cast<kind>(c.kind) != kind::inline_data || c.flags != 0 || c.context != context ||
      (tag == any_tag ? static_cast<std::uint32_t>(cell_tag) > static_cast<std::uint32_t>(tag_ub)
                      : cell_tag != tag) ||
      size > std::min<std::size_t>(capacity,
                                   std::max<std::size_t>(inline_capacity, limits_.inline_max))) {
    return false;  // a truncation too: the general path reports it
  }
  std::uint64_t cells = 1;
  if (size <= inline_capacity) {
    if (size) std::memcpy(buf, c.body, size);
  } else {
    read_long_inline(ch, false, static_cast<unsigned char*>(buf), size);
    cells = inline_cells(size, false);
  }
  out = status{source, cell_tag, size, errc::success, false};
  ch.last_flags = 0;
  ch.ring.advance(cells);
  ++ch.taken;
  consumed(ch, source, cells);
  return true;
}

bool engine::fast_recv_inline_sync(in_channel& ch, cell& c, std::uint32_t context, void* buf,
                                   std::size_t capacity, int source, int tag, status& out) {
  // As the standard inline path, for a synchronous message: its header cell holds less data (the
  // cookie takes its tail), and it is acked once copied out. A ready one is left to the general
  // path (it matches the receive whose notice it consumed).
  const std::uint8_t flags = read_once(c.flags);
  const int cell_tag = read_once(c.tag);
  const std::size_t size = read_once(c.size);
  if (static_cast<kind>(c.kind) != kind::inline_data || flags != flag::sync ||
      c.context != context ||
      (tag == any_tag ? static_cast<std::uint32_t>(cell_tag) > static_cast<std::uint32_t>(tag_ub)
                      : cell_tag != tag) ||
      size > capacity || (size > header_capacity(true) && size > limits_.inline_max)) {
    return false;
  }
  std::uint64_t cells = 1;
  if (size <= header_capacity(true)) {
    if (size) std::memcpy(buf, c.body, size);
  } else {
    read_long_inline(ch, true, static_cast<unsigned char*>(buf), size);
    cells = inline_cells(size, true);
  }
  std::uint64_t cookie;
  std::memcpy(&cookie, c.body + cookie_offset, sizeof cookie);
  out = status{source, cell_tag, size, errc::success, false};
  ch.last_flags = flags;
  ch.ring.advance(cells);
  ++ch.taken;
  consumed(ch, source, cells);
  ack_now(source, cookie);
  return true;
}

bool engine::fast_recv_eager(in_channel& ch, cell& c, std::uint32_t context, void* buf,
                             std::size_t capacity, int source, int tag, status& out) {
  // Decoded and checked as the general path would (every field read once); anything it would
  // report, or a message for another receive, a ready one or a truncation, is left to it.
  decoded_cell d;
  if (decode_cell(c, limits_, d) != fault::none || (d.flags != 0 && d.flags != flag::sync) ||
      d.context != context || (tag != any_tag && d.tag != tag) || d.size > capacity ||
      !dom_.pool_of(rank_).claimed_by(d.slot, source)) {
    return false;
  }
  if (d.size) std::memcpy(buf, dom_.pool_of(rank_).data(d.slot), d.size);
  release_slot(d.slot);
  out = status{source, d.tag, d.size, errc::success, false};
  ch.last_flags = d.flags;
  ch.ring.advance(1);
  ++ch.taken;
  consumed(ch, source, 1);
  if (d.flags == flag::sync) ack_now(source, d.cookie);
  return true;
}

void engine::ack_now(int source, std::uint64_t cookie) {
  send_control(source, kind::ack, control_body{cookie, 0});
  // The receive returns now, and the sender's ssend must not wait for this rank's next call into
  // rmpl: an ack that found the ring full goes out before the receive returns.
  if (controls_owed_ != 0) wait_until([] { return true; });
}

status engine::recv(std::uint32_t context, void* buf, std::size_t capacity, int source, int tag) {
  status fast;
  if (try_fast_recv(context, buf, capacity, source, tag, fast)) return fast;
  request* r = start_recv(context, buf, capacity, source, tag);
  wait(r);
  return finish(r);
}

void engine::deliver(request* r, const incoming& m) {
  r->result.source = m.source;
  r->result.tag = m.tag;
  r->message_bytes = m.size;
  const std::size_t n = std::min(m.size, r->bytes);
  if (m.size > r->bytes) r->result.error = errc::truncated;
  switch (m.how) {
    case kind::inline_data:
      if (m.ring != nullptr) {  // a long one, still in its ring
        const bool sync = (m.flags & flag::sync) != 0;
        if (r->segments.count != 0) [[unlikely]] {
          stage_.resize(n);
          read_long_inline(*m.ring, sync, stage_.data(), n);
          scatter(stage_.data(), r->segments.entries.get(), n);
        } else {
          read_long_inline(*m.ring, sync, static_cast<unsigned char*>(r->buffer), n);
        }
      } else if (r->segments.count != 0) [[unlikely]] {
        scatter(m.data, r->segments.entries.get(), n);
      } else if (n) {
        std::memcpy(r->buffer, m.data, n);
      }
      break;
    case kind::eager:
      if (r->segments.count != 0) [[unlikely]] {
        scatter(dom_.pool_of(rank_).data(m.slot), r->segments.entries.get(),
                n);  // no staging either
      } else if (n) {
        std::memcpy(r->buffer, dom_.pool_of(rank_).data(m.slot), n);
      }
      release_slot(m.slot);
      break;
    case kind::rts:
      if (dom_.single_copy()) {
        // The receiver-initiated zero-copy transfer: one copy from the sender's buffer into ours.
        // Either side in segments: one process_vm_readv per batch of them, and no assist (the
        // sender's half would need the receiver's list too; not worth it).
        const bool scattered = r->segments.count != 0 || m.segments != 0;
        const bool assisted = !scattered && n >= tune_.assist_min && m.source != rank_;
        const int err =
            n == 0      ? 0
            : scattered ? scattered_read(m.source, r, m, n)
            : assisted
                ? assisted_read(m.source, r, m, n)
                : dom_.read_peer(m.source, reinterpret_cast<const void*>(m.address), r->buffer, n);
        if (err != 0) {
          r->result.error = err == ESRCH ? vanished_peer(m.source) : errc::system;
          r->transferred = static_cast<std::size_t>(err);  // the errno, for the message
        }
        send_control(m.source, kind::fin, control_body{m.cookie, 0});
        break;
      }
      // Without single copy the MPI layer packs scattered data itself (the bounce chunks would need
      // a cursor through the segments on both sides); a peer's segment list here is a forgery.
      if (m.segments != 0) [[unlikely]] {
        corrupt(m.source, fmt::format("rendezvous of {} bytes with a segment list of {} entries, "
                                      "but single copy is off",
                                      m.size, m.segments));
      }
      r->peer_cookie = m.cookie;
      r->transferred = 0;
      r->st = state::in_flight;
      ++bounces_;
      if (in_[m.source].bounce == nullptr)
        start_bounce_recv(m.source, r);
      else
        in_[m.source].bounce_waiting.push_back(r);
      return;
    case kind::fetch: {
      // A payload waiting at a sender on another host: fetched whole, straight into the buffer,
      // or into a staging copy when the buffer is in segments or too small (then truncated).
      void* to = r->buffer;
      if (r->segments.count != 0 || m.size > r->bytes) {
        r->owned = std::make_unique<std::byte[]>(m.size);
        to = r->owned.get();
      }
      r->transferred = n;                                      // what the receive takes
      r->peer_cookie = (m.flags & flag::sync) ? m.cookie : 0;  // acked once fetched
      r->st = state::in_flight;
      ++remote_in_flight_;
      if (remote_->fetch(reinterpret_cast<void*>(m.address), to, m.size, r->id())) {
        remote_fetch_ended(r);
      }
      return;
    }
    default:
      break;
  }
  if ((m.flags & flag::sync) && m.how != kind::rts) {
    send_control(m.source, kind::ack, control_body{m.cookie, 0});
  }
  r->result.bytes = n;
  r->st = state::complete;
}

status engine::finish(request* r) {
  if (r->kind == op::collective) {
    std::unique_ptr<activity> work = std::move(r->work);
    requests_.release(r);
    work->rethrow_failure();
    return work->result();
  }
  status s = r->result;
  if (r->kind == op::send) s = status{};
  if (r->source_ranks && s.source >= 0)
    s.source = (*r->source_ranks)[static_cast<std::size_t>(s.source)];
  const errc code = r->result.error;
  if (code == errc::success) {
    requests_.release(r);
    return s;
  }
  std::string message;
  if (code == errc::dead_rank) {
    // From vanished_peer: the source's process was gone when this receive read its message.
    const int source = r->result.source;
    const std::size_t bytes = r->message_bytes;
    requests_.release(r);
    if (job_.failed_rank() >= 0 || remote_failed_rank_ >= 0) throw_dead_rank();
    base::fail(errc::dead_rank,
               "rank {} cannot continue: the process of rank {} is gone (its message of {} bytes "
               "could not be read: {}), and the launcher has not said how it ended",
               rank_, source, bytes, std::strerror(ESRCH));
  }
  if (code == errc::truncated) {
    message = fmt::format(
        "{}: message truncated: {} bytes arrived from rank {} (tag {}) but the "
        "buffer holds {} bytes",
        describe(*r), r->message_bytes, r->result.source, r->result.tag, r->bytes);
  } else if (code == errc::system && r->transferred == ESRCH) {
    // vanished_peer: the source had finalized, so it owed this rank nothing, yet this message
    // was still unread (not a path of the protocol: said plainly, whatever caused it).
    message = fmt::format(
        "{}: rank {} finalized and exited before its message of {} bytes was read (single copy: "
        "{}); the message is lost",
        describe(*r), r->result.source, r->message_bytes, std::strerror(ESRCH));
  } else if (code == errc::system) {
    message = fmt::format("{}: single copy of {} bytes from rank {} failed: {}", describe(*r),
                          r->message_bytes, r->result.source,
                          std::strerror(static_cast<int>(r->transferred)));
  } else {
    message = fmt::format("{}: {}", describe(*r), to_string(code));
  }
  requests_.release(r);
  throw error(code, "rmpl: " + message);
}

void engine::cancel(request* r) {
  if (r->kind != op::recv || r->st != state::posted) return;  // matched already: nothing to undo
  if (r->announced) {
    // The source may hold a ready notice for this receive. Cancelling stays local (MPI: a cancelled
    // receive's wait returns whatever other ranks do) and succeeds; the withdraw makes the source
    // forget the notice. A synchronous send there uses a notice only while nothing from this rank
    // waits unread in its ring, so one that starts after this withdraw is published waits for a
    // real match and its ack. Only a send that took the notice before then (concurrently with this
    // cancel) has completed: at that moment the receive was still posted, and its message now
    // waits, unexpected, for the next receive that matches it, as a standard send's would. The
    // withdraw is owed like any control cell if the ring is full (queued, and the waits of this
    // rank wait for it), so a stale notice cannot outlive a cancel for want of room.
    // To itself (announce keeps that notice at once) the withdraw is as direct, and exact.
    if (r->peer == rank_) {
      drop_notice(out_[rank_], r->announced_at, r->context, r->tag);
    } else {
      send_control(r->peer, kind::withdraw, ready_body{r->announced_at, r->context, r->tag});
    }
  }
  matcher_.queues(r->context).unpost(r);
  r->result.cancelled = true;
  r->st = state::complete;
}

std::size_t engine::discard_unexpected(std::uint32_t context) {
  context_queues& q = matcher_.queues(context);
  std::size_t dropped = 0;
  // A rendezvous without single copy would need a bounce transfer to finish: left as it is.
  auto droppable = [this](const unexpected& u) { return u.how != kind::rts || dom_.single_copy(); };
  unexpected* u = q.find_unexpected(any_source, any_tag);
  while (u != nullptr) {
    unexpected* next = u->any_next;
    if (u->how == kind::fetch) {  // from another host: its payload is given back unread
      q.remove_unexpected(u);
      remote_->drop(reinterpret_cast<void*>(u->address));
      if (u->flags & flag::sync) remote_ack(u->source, u->cookie);
      matcher_.release(u);
      ++dropped;
    } else if (droppable(*u)) {
      q.remove_unexpected(u);
      request sink;  // a receive of no bytes: deliver() copies nothing and answers the sender
      sink.kind = op::recv;
      deliver(&sink, incoming{u->source, u->tag, u->how, u->flags, u->size, u->cookie, u->address,
                              u->segments, u->slot, u->data});
      matcher_.release(u);
      ++dropped;
    }
    u = next;
  }
  return dropped;
}

bool engine::iprobe(std::uint32_t context, int source, int tag, status* out) {
  check_recv(context, reinterpret_cast<void*>(1), 0, source, tag);
  if (source == proc_null) {
    *out = status{proc_null, any_tag, 0, errc::success, false};
    return true;
  }
  progress();
  const unexpected* u = matcher_.queues(context).find_unexpected(source, tag);
  if (!u) {
    throw_if_halted();  // an iprobe loop would otherwise poll forever
    return false;
  }
  *out = status{u->source, u->tag, u->size, errc::success, false};
  return true;
}

status engine::probe(std::uint32_t context, int source, int tag) {
  status s;
  check_recv(context, reinterpret_cast<void*>(1), 0, source, tag);
  wait_until([&] { return iprobe(context, source, tag, &s); });
  return s;
}

// ---------------------------------------------------------------- progress

bool engine::progress() {
  if (job_.failed_rank() >= 0) [[unlikely]] {
    halted_ = true;
    return false;
  }
  bool worked = false;
  for (int i = 0; i < size_; ++i) {
    int source = next_source_ + i;
    if (source >= size_) source -= size_;
    worked |= drain(source);
  }
  if (++next_source_ == size_) next_source_ = 0;
  if (backlogged_ > 0) {
    for (int dest = 0; dest < size_; ++dest) {
      if (!out_[dest].backlog.empty()) worked |= flush_backlog(dest);
    }
  }
  if (bounces_ > 0) {
    for (int peer = 0; peer < size_; ++peer) {
      if (out_[peer].bounce) worked |= progress_bounce_send(peer);
      if (in_[peer].bounce) worked |= progress_bounce_recv(peer);
    }
  }
  if (remote_ != nullptr) [[unlikely]] {
    worked |= remote_progress();
  }
  if (!activities_.empty()) worked |= advance_activities();
  return worked;
}

request* engine::start_activity(std::unique_ptr<activity> work) {
  request* r = requests_.allocate();
  r->kind = op::collective;
  r->work = std::move(work);
  r->st = state::in_flight;
  if (!advance_activity(r)) activities_.push_back(r);
  return r;
}

bool engine::advance_activity(request* r) {
  if (!r->work->advance()) return false;
  r->result = r->work->result();  // readable before the request is finished
  r->st = state::complete;
  return true;
}

bool engine::advance_activities() {
  // An activity only starts point-to-point operations; it never starts another activity, so the
  // list does not change under this loop.
  bool ended = false;
  for (request*& r : activities_) {
    if (advance_activity(r)) {
      r = nullptr;
      ended = true;
    }
  }
  if (ended) std::erase(activities_, nullptr);
  return ended;
}

bool engine::drain(int source) {
  in_channel& ch = in_[source];
  std::size_t taken = 0;
  while (taken < tune_.drain_batch) {
    cell* c = ch.ring.next();
    if (c == nullptr) break;
    const std::uint32_t cells = handle_cell(ch, source, *c);
    if (cells == 0) {
      handle_stalled_controls(source);
      break;
    }
    ch.ring.advance(cells);
    taken += cells;
  }
  if (taken == 0) return false;
  consumed(ch, source, taken);
  return true;
}

std::uint32_t engine::handle_cell(in_channel& ch, int source, cell& c) {
  decoded_cell d;
  if (const fault f = decode_cell(c, limits_, d); f != fault::none) [[unlikely]] {
    corrupt(source, core::describe(f, d, limits_));
  }
  if (!is_message(d.how)) {
    if (d.how != kind::consumed) handle_control(source, d);
    return 1;
  }
  if (d.how == kind::eager && !dom_.pool_of(rank_).claimed_by(d.slot, source)) {
    corrupt(source, core::describe(fault::eager_claim, d, limits_));
  }
  ch.last_flags = d.flags;
  const auto how = d.how;
  const incoming m{source,
                   d.tag,
                   how,
                   d.flags,
                   d.size,
                   d.cookie,
                   d.address,
                   d.segments,
                   d.slot,
                   c.body,
                   d.cells > 1 ? &ch : nullptr};
  context_queues& q = matcher_.queues(d.context);
  if (request* r = q.take_posted(source, m.tag)) {
    ++ch.taken;
    deliver(r, m);
    return d.cells;
  }
  unexpected* u = matcher_.allocate();
  if (u == nullptr) return 0;  // bounded: leave it in the ring, the sender will wait
  ++ch.taken;
  u->source = source;
  u->tag = m.tag;
  u->how = how;
  u->flags = m.flags;
  u->size = m.size;
  u->cookie = m.cookie;
  u->address = m.address;
  u->segments = m.segments;
  u->slot = m.slot;
  if (m.ring != nullptr) {
    // The ring must move on: a long inline message waits in the descriptor's own buffer.
    u->long_data.resize(m.size);
    read_long_inline(ch, (m.flags & flag::sync) != 0, u->long_data.data(), m.size);
  } else if (how == kind::inline_data && m.size) {
    std::memcpy(u->data, c.body, m.size);
  }
  q.add_unexpected(u);
  return d.cells;
}

void engine::handle_stalled_controls(int source) {
  // The unexpected store is full and a message blocks the head of this ring. Control cells behind
  // it (acks, fins, clear-to-sends) must not wait for it, or two ranks could wait on each other:
  // handle them now and mark them consumed.
  // Cells are decoded from the head on, each message stepped over whole: the cells after a long
  // inline message's header are its data, not cells of their own.
  in_channel& ch = in_[source];
  for (std::uint64_t pos = ch.ring.head(); pos < ch.ring.head() + ch.ring.size();) {
    cell* at = ch.ring.published_at(pos);
    if (at == nullptr) break;
    cell& c = *at;
    decoded_cell d;
    if (const fault f = decode_cell(c, limits_, d); f != fault::none) {
      corrupt(source, core::describe(f, d, limits_));
    }
    if (d.how == kind::ack || d.how == kind::fin || d.how == kind::cts || d.how == kind::assist) {
      handle_control(source, d);
      c.kind = static_cast<std::uint8_t>(kind::consumed);
    }
    pos += d.cells;
  }
}

request* engine::control_target(int source, const decoded_cell& d) {
  request* r = core::control_target(requests_, source, d.how, d.cookie);
  if (r == nullptr) [[unlikely]] {
    corrupt(source, core::describe(fault::request, d, limits_));
  }
  return r;
}

void engine::handle_control(int source, const decoded_cell& d) {
  switch (d.how) {
    case kind::ack:
    case kind::fin:
      complete_send(control_target(source, d));
      break;
    case kind::assist:
      assist_send(source, d);
      break;
    case kind::ready:
      accept_notice(source, d);
      break;
    case kind::withdraw:  // the receive a notice announced was cancelled
      drop_notice(out_[source], d.position, d.context, d.tag);
      break;
    case kind::cts: {
      request* r = control_target(source, d);
      if (out_[source].bounce != nullptr)
        corrupt(source, core::describe(fault::second_cts, d, limits_));
      r->awaits = static_cast<std::uint8_t>(kind::none);  // it completes when the data is out
      out_[source].bounce = r;
      out_[source].bounce_chunk = 0;
      r->transferred = 0;
      ++bounces_;
      progress_bounce_send(source);
      break;
    }
    default:  // decode_cell lets no other kind through
      corrupt(source, core::describe(fault::kind, d, limits_));
  }
}

// ---------------------------------------------------------------- assisted rendezvous

// A large single-copy rendezvous is split into chunks that the receiver (reading) and the sender
// (writing) claim from a shared counter and copy at the same time, so two cores move the data. The
// receiver never depends on the sender: it claims whatever is left, and waits only for chunks the
// sender has already claimed.
int engine::assisted_read(int source, request* r, const incoming& m, std::size_t bytes) {
  std::uint32_t id = ++in_[source].assist_id;
  if (id == 0) id = ++in_[source].assist_id;
  const std::uint64_t chunk = tune_.assist_chunk;
  fabric::shm::assisted_transfer transfer(in_[source].ring.control(), id, bytes, chunk);
  transfer.open();
  send_control(source, kind::assist,
               assist_body{m.cookie, reinterpret_cast<std::uint64_t>(r->buffer), bytes, id,
                           static_cast<std::uint32_t>(chunk)});
  int err = transfer.copy_claimed_chunks([&](std::uint64_t offset, std::size_t len) {
    return dom_.read_peer(source, reinterpret_cast<const void*>(m.address + offset),
                          static_cast<std::byte*>(r->buffer) + offset, len);
  });
  for (unsigned spins = 1; !transfer.done(); ++spins) {
    relax(false);  // the sender is finishing a chunk it claimed
    if ((spins & 0xfff) == 0) {
      job_.check_liveness();  // a sender that died mid-chunk, its launcher stopped
      if (job_.failed_rank() >= 0) throw_dead_rank();
    }
  }
  if (err == 0) err = transfer.sender_error();
  return err;
}

void engine::assist_send(int dest, const decoded_cell& d) {
  request* r = control_target(dest, d);
  if (check_assist(d, *r) != fault::none) {
    corrupt(dest, fmt::format("{} for a send of {} bytes",
                              core::describe(fault::assist, d, limits_), r->bytes));
  }
  struct {
    std::uint64_t bytes, address;
    std::uint32_t id, chunk;
  } const body{d.size, d.address, d.assist_id, d.assist_chunk};
  fabric::shm::assisted_transfer transfer(out_[dest].ring.control(), body.id, body.bytes,
                                          body.chunk);
  transfer.copy_claimed_chunks([&](std::uint64_t offset, std::size_t len) {
    const int err = dom_.write_peer(dest, reinterpret_cast<void*>(body.address + offset),
                                    static_cast<const std::byte*>(r->buffer) + offset, len);
    if (err != 0) transfer.note_error(err);
    return err;
  });
}

// ---------------------------------------------------------------- scattered rendezvous

// The receiver walks both lists at once: its own segments (or its one buffer), and the sender's,
// read from the sender's memory a batch at a time and checked entry by entry before use (a peer's
// values are untrusted: an entry may not be empty or reach beyond the size the RTS announced, and
// the entries must cover exactly that size). Each step moves what the two sides' next batches
// have in common with one process_vm_readv. Memory: three batches of iovecs, whatever the lists.
int engine::scattered_read(int source, request* r, const incoming& m, std::size_t bytes) {
  if (!segment_scratch_) segment_scratch_ = std::make_unique<iovec[]>(3 * segment_batch);
  iovec* const list = segment_scratch_.get();
  iovec* const local_batch = list + segment_batch;
  iovec* const remote_batch = local_batch + segment_batch;
  const iovec whole_local{r->buffer, r->bytes};
  const iovec whole_remote{reinterpret_cast<void*>(m.address), m.size};
  segment_cursor local = r->segments.count != 0
                             ? segment_cursor{r->segments.entries.get(), r->segments.count, 0}
                             : segment_cursor{&whole_local, 1, 0};
  segment_cursor remote = m.segments != 0 ? segment_cursor{} : segment_cursor{&whole_remote, 1, 0};
  decoded_cell d;  // for the error messages
  d.how = kind::rts;
  d.size = m.size;
  d.cookie = m.cookie;
  d.address = m.address;
  d.segments = m.segments;
  std::uint64_t fetched = 0;  // entries of the sender's list read so far
  std::uint64_t listed = 0;   // the bytes they cover
  for (std::size_t left = bytes; left > 0;) {
    if (remote.at_end()) {  // only for a list: a whole remote buffer holds m.size >= bytes
      const std::uint64_t k = std::min<std::uint64_t>(segment_batch, m.segments - fetched);
      if (k == 0) corrupt(source, describe_segment(d, fetched, nullptr, listed));
      const auto* at = reinterpret_cast<const void*>(m.address + fetched * sizeof(iovec));
      if (const int err = dom_.read_peer(source, at, list, k * sizeof(iovec))) return err;
      for (std::uint64_t i = 0; i < k; ++i) {
        if (check_segment(list[i], listed, m.size) != fault::none) [[unlikely]] {
          corrupt(source, describe_segment(d, fetched + i, &list[i], listed));
        }
        listed += list[i].iov_len;
      }
      fetched += k;
      remote = segment_cursor{list, static_cast<std::size_t>(k), 0};
    }
    std::size_t nl = 0, nr = 0;
    std::size_t step = local.peek(local_batch, segment_batch, left, nl);
    const std::size_t remote_step = remote.peek(remote_batch, segment_batch, step, nr);
    if (remote_step < step) step = local.peek(local_batch, segment_batch, remote_step, nl);
    if (const int err = dom_.read_peer(source, local_batch, nl, remote_batch, nr)) return err;
    local.advance(step);
    remote.advance(step);
    left -= step;
  }
  // The whole message was read: entries not fetched yet would lie beyond it (none is empty).
  if (m.segments != 0 && bytes == m.size && fetched < m.segments) [[unlikely]] {
    corrupt(source, describe_segment(d, fetched, nullptr, listed));
  }
  return 0;
}

// ---------------------------------------------------------------- the fallback copy path

void engine::start_bounce_recv(int source, request* r) {
  in_[source].bounce = r;
  in_[source].bounce_chunk = 0;
  send_control(source, kind::cts, control_body{r->peer_cookie, r->id()});
}

bool engine::progress_bounce_send(int dest) {
  out_channel& ch = out_[dest];
  request* r = ch.bounce;
  fabric::shm::bounce_chunks chunks = dom_.bounce_of(dest, rank_);
  bool worked = false;
  while (r->transferred < r->bytes) {
    const std::uint32_t k = chunks.index(ch.bounce_chunk);
    if (!chunks.free(k)) break;
    const std::size_t len = std::min(chunks.chunk_bytes(), r->bytes - r->transferred);
    std::memcpy(chunks.data(k), static_cast<const std::byte*>(r->buffer) + r->transferred, len);
    chunks.fill(k, len);
    r->transferred += len;
    ++ch.bounce_chunk;
    worked = true;
  }
  if (worked) dom_.notify(dest);
  if (r->transferred == r->bytes) {
    ch.bounce = nullptr;
    --bounces_;
    complete_send(r);
  }
  return worked;
}

bool engine::progress_bounce_recv(int source) {
  in_channel& ch = in_[source];
  request* r = ch.bounce;
  fabric::shm::bounce_chunks chunks = dom_.bounce_of(rank_, source);
  bool worked = false;
  while (r->transferred < r->message_bytes) {
    const std::uint32_t k = chunks.index(ch.bounce_chunk);
    const std::uint32_t filled = chunks.filled(k);
    if (filled == 0) break;
    std::size_t len = 0;
    const std::size_t left = r->message_bytes - r->transferred;
    if (check_bounce_chunk(filled, chunks.chunk_bytes(), left, len) != fault::none) {
      corrupt(source, fmt::format("bounce chunk {} of {} bytes with {} left (chunks of {})", k, len,
                                  left, chunks.chunk_bytes()));
    }
    if (r->transferred < r->bytes) {
      std::memcpy(static_cast<std::byte*>(r->buffer) + r->transferred, chunks.data(k),
                  std::min(len, r->bytes - r->transferred));
    }
    chunks.release(k);
    r->transferred += len;
    ++ch.bounce_chunk;
    worked = true;
  }
  if (worked) dom_.notify(source);
  if (r->transferred == r->message_bytes) {
    r->result.bytes = std::min(r->message_bytes, r->bytes);
    r->st = state::complete;
    --bounces_;
    ch.bounce = nullptr;
    if (!ch.bounce_waiting.empty()) {
      request* next = ch.bounce_waiting.front();
      ch.bounce_waiting.pop_front();
      start_bounce_recv(source, next);
    }
  }
  return worked;
}

}  // namespace rmpl::core

namespace rmpl::core {

std::vector<std::pair<std::string, std::string>> engine::describe_transport() const {
  const auto& p = dom_.p();
  std::vector<std::pair<std::string, std::string>> lines;
  lines.emplace_back("provider",
                     job_.under_pmix()
                         ? "shm (the ranks of this host; segment made by its first rank)"
                         : "shm (the ranks of this host; memfd segment shared by the ranks)");
  lines.emplace_back("runtime", job_.under_pmix() ? "PMIx (the launcher's server)"
                                                  : "local (rmplrun, or a job of one)");
  lines.emplace_back("cores", fmt::format("{}", dom_.cores()));
  lines.emplace_back(
      "ranks per core",
      fmt::format("{:.2f}{}", double(size_) / dom_.cores(),
                  job_.oversubscribed() ? " (oversubscribed: waits sleep at once)" : ""));
  lines.emplace_back("single copy", fmt::format("{} ({})", dom_.single_copy() ? "yes" : "no",
                                                dom_.single_copy_reason()));
  lines.emplace_back("inline max", fmt::format("{} bytes in one 64-byte cell, up to {} in the ring "
                                               "(RMPL_INLINE_MAX)",
                                               inline_capacity, tune_.inline_max));
  lines.emplace_back("eager max",
                     fmt::format("{} bytes (RMPL_EAGER_MAX), {} slots per rank (RMPL_EAGER_SLOTS)",
                                 tune_.eager_max, p.eager_slots));
  lines.emplace_back(
      "rendezvous",
      fmt::format("above {} bytes, {}", tune_.eager_max,
                  dom_.single_copy() ? "single copy by the receiver"
                                     : fmt::format("pipelined through {} x {} byte bounce chunks",
                                                   p.bounce_chunks, p.bounce_chunk_bytes)));
  lines.emplace_back("ring",
                     fmt::format("{} cells per directed pair (RMPL_RING_CELLS)", p.ring_cells));
  if (remote_ != nullptr) {
    lines.emplace_back("hosts", fmt::format("{} (this rank on {}; shm within a host, the "
                                            "provider below between hosts)",
                                            job_.host_count(), job_.host_name(host_of(rank_))));
    for (auto& line : remote_->describe()) lines.push_back(std::move(line));
    lines.emplace_back("ucx wire-up", remote_wired_at_start_
                                          ? "every endpoint at start (RMPL_UCX_CONNECT_ALL)"
                                          : "each endpoint on first use (more remote peers than "
                                            "RMPL_UCX_CONNECT_ALL)");
  }
  return lines;
}

}  // namespace rmpl::core
