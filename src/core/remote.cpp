// The engine's half for peers on other hosts: messages through a message provider
// (fabric/provider.hpp; the ucx provider, fabric/ucx), into the same matcher and the same requests
// as the shm path's. What differs from a ring: every message carries an envelope
// (core/envelope.hpp) with its sender and its number, since the provider neither keeps a sender's
// order nor gives one queue per sender; a payload too large for the provider's eager path waits at
// the sender until a receive matches it and fetches it (the seeds' receiver-initiated rendezvous);
// a synchronous send completes on the receiver's ack once the provider has also ended the send.
#include <cstring>
#include <utility>

#include "base/config.hpp"
#include "base/error.hpp"
#include "core/engine.hpp"
#include "fabric/ucx/make.hpp"

namespace rmpl::core {

void engine::start_remote() {
  const int host = job_.host_of(rank_);
  bool spans = false;
  is_remote_.assign(static_cast<std::size_t>(size_), 0);
  for (int r = 0; r < size_; ++r) {
    if (job_.host_of(r) != host) {
      is_remote_[r] = 1;
      spans = true;
    }
  }
  if (!spans) {
    is_remote_.clear();
    return;
  }
  remote_map_ = is_remote_.data();
  // Every rank starts the provider when the job spans hosts (each one has peers elsewhere), so
  // the barrier below is every rank's.
  remote_peers_.resize(static_cast<std::size_t>(size_));
  remote_credits_ =
      static_cast<std::uint32_t>(base::env_size("RMPL_UCX_CREDITS", 128, 1, max_remote_credits));
  for (remote_peer& p : remote_peers_) p.credits = remote_credits_;
  remote_ = fabric::ucx::make_provider(
      rank_, size_, remote_events_, [this](int peer) { return job_.card_of(peer); },
      [this] { job_.notify(rank_); }, [this](int peer) { return where(peer); });
  const std::vector<std::byte> address = remote_->address();
  job_.publish_card(address);
  job_.exchange_cards("exchanging the UCX addresses of the ranks");
  // Endpoints are made on first use, and wiring one up takes a few round trips that need both
  // ranks' progress: a first message to a peer stays with its sender until the sender calls the
  // library again (as with any MPI over UCX). Below RMPL_UCX_CONNECT_ALL remote peers (the jobs
  // most programs run), every endpoint is wired up here instead, while every rank progresses, so
  // that a message is on its way once its send returns.
  std::size_t peers = 0;
  for (std::uint8_t far : is_remote_) peers += far;
  const std::size_t connect_all = base::env_size("RMPL_UCX_CONNECT_ALL", 256, 0, 1u << 20);
  if (peers > connect_all) return;
  remote_wired_at_start_ = true;
  for (int r = 0; r < size_; ++r) {
    if (is_remote_[r] && !remote_->flush(r, flush_cookie)) ++flushes_pending_;
  }
  // Arrived only once this rank's endpoints are up; left once every rank's are, progressing all
  // the while (a peer's last step may need this rank's answer).
  wait_until([this] { return flushes_pending_ == 0; });
  const std::uint32_t generation = job_.barrier_arrive();
  wait_until([&] { return job_.barrier_done(generation); });
  remote_->wired_up();
}

std::string engine::where(int r) const {
  return fmt::format("rank {} (host {})", r, job_.host_name(host_of(r)));
}

void engine::remote_corrupt(int source, const std::string& what) const {
  base::fail(errc::internal, "rank {}: a corrupt message from {}: {}", rank_, where(source), what);
}

// ---------------------------------------------------------------- sending

void engine::remote_send(request* r) {
  const int dest = r->peer;
  const bool sync = r->mode == send_mode::synchronous;
  if (r->segments.count != 0) {
    // The provider takes one contiguous payload: the segments are gathered into a copy the request
    // keeps until the send ends.
    r->owned = std::make_unique<std::byte[]>(std::max<std::size_t>(r->bytes, 1));
    gather(r->segments.entries.get(), r->owned.get(), r->bytes);
  }
  r->awaits = static_cast<std::uint8_t>(sync ? kind::ack : kind::none);
  r->remote_waits = sync ? 2 : 1;
  r->st = state::in_flight;
  ++remote_in_flight_;
  remote_peer& p = remote_peers_[dest];
  if (p.credits == 0 || !p.waiting.empty()) [[unlikely]] {
    p.waiting.push_back(r);  // after those waiting already: messages leave in order
    return;
  }
  issue_remote(r);
}

void engine::issue_remote(request* r) {
  const int dest = r->peer;
  remote_peer& p = remote_peers_[dest];
  --p.credits;
  const bool sync = r->mode == send_mode::synchronous;
  r->header = envelope{rank_,
                       r->tag,
                       ++p.sent,
                       sync ? r->id() : 0,
                       static_cast<std::uint16_t>(r->context),
                       static_cast<std::uint8_t>(envelope_kind::message),
                       static_cast<std::uint8_t>(sync ? flag::sync : 0),
                       remote_credits_};
  const void* data = r->segments.count != 0 ? r->owned.get() : r->buffer;
  const auto* header = reinterpret_cast<const std::byte*>(&r->header);
  if (remote_->send(dest, {header, sizeof(envelope)}, data, r->bytes, r->id(), r->detached)) {
    remote_send_ended(r);
  }
}

void engine::remote_send_ended(request* r) {
  --remote_in_flight_;
  if (--r->remote_waits == 0) complete_send(r);
}

void engine::remote_ack(int dest, std::uint64_t cookie) {
  if (in_remote_progress_) {  // sent when the provider's progress returns
    controls_owed_remote_.push_back({dest, envelope_kind::ack, cookie});
    return;
  }
  send_remote_control(dest, envelope_kind::ack, cookie);
}

void engine::remote_taken(int source, std::uint32_t window) {
  remote_peer& p = remote_peers_[source];
  // Given back a quarter of the sender's window at a time (its own, which its envelopes carry:
  // with this rank's, a sender given fewer credits could wait forever for a batch never filled):
  // one control message per that many, and the sender never runs dry while the receiver takes.
  if (++p.consumed < std::max<std::uint32_t>(window / 4, 1)) return;
  const std::uint32_t n = std::exchange(p.consumed, 0);
  if (in_remote_progress_) {
    controls_owed_remote_.push_back({source, envelope_kind::credit, n});
    return;
  }
  send_remote_control(source, envelope_kind::credit, n);
}

void engine::send_remote_control(int dest, envelope_kind what, std::uint64_t value) {
  std::uint32_t index;
  if (!free_ack_headers_.empty()) {
    index = free_ack_headers_.back();
    free_ack_headers_.pop_back();
  } else {
    index = static_cast<std::uint32_t>(ack_headers_.size());
    ack_headers_.emplace_back();
  }
  envelope& e = ack_headers_[index];
  e = envelope{rank_, 0, 0, value, 0, static_cast<std::uint8_t>(what), 0, 0};
  ++remote_in_flight_;
  if (remote_->send(dest, {reinterpret_cast<const std::byte*>(&e), sizeof e}, nullptr, 0,
                    std::uint64_t{index} + 1, true)) {
    --remote_in_flight_;
    free_ack_headers_.push_back(index);
  }
}

void engine::remote_sent(std::uint64_t cookie, int peer, const std::string& error) {
  // The provider could not deliver it: the peer, or the link to its host, is gone.
  if (!error.empty())
    remote_failed(peer, fmt::format("a send to it through UCX failed: {}", error));
  if (cookie == flush_cookie) {
    --flushes_pending_;
    return;
  }
  if ((cookie >> 32) == 0) {  // an ack's envelope
    --remote_in_flight_;
    free_ack_headers_.push_back(static_cast<std::uint32_t>(cookie - 1));
    return;
  }
  request* r = requests_.lookup(cookie);
  if (r == nullptr || r->kind != op::send || r->remote_waits == 0) {
    base::fail(errc::internal, "rank {}: the ucx provider ended a send this rank does not have",
               rank_);
  }
  remote_send_ended(r);
}

// ---------------------------------------------------------------- receiving

bool engine::remote_progress() {
  in_remote_progress_ = true;
  bool worked;
  try {
    worked = remote_->progress();
  } catch (...) {
    in_remote_progress_ = false;
    throw;
  }
  in_remote_progress_ = false;
  if (remote_error_) std::rethrow_exception(std::exchange(remote_error_, nullptr));
  if (!controls_owed_remote_.empty()) {
    for (std::size_t i = 0; i < controls_owed_remote_.size(); ++i) {
      const control_owed& c = controls_owed_remote_[i];
      send_remote_control(c.dest, c.what, c.value);
    }
    controls_owed_remote_.clear();
  }
  if (remote_credited_) {
    remote_credited_ = false;
    for (remote_peer& p : remote_peers_) {
      while (p.credits > 0 && !p.waiting.empty()) {
        request* r = p.waiting.front();
        p.waiting.pop_front();
        issue_remote(r);
        worked = true;
      }
    }
  }
  if (remote_held_ > 0) {
    for (int source = 0; source < size_; ++source) {
      if (!remote_peers_[source].held.empty()) worked |= take_held(source);
    }
  }
  return worked;
}

void engine::remote_arrived(const fabric::arrival& a) {
  envelope e;
  if (a.header.size() != sizeof e) {
    remote_corrupt(a.source,
                   fmt::format("an envelope of {} bytes, not {}", a.header.size(), sizeof e));
  }
  std::memcpy(&e, a.header.data(), sizeof e);
  const int source = a.source;
  if (e.kind == static_cast<std::uint8_t>(envelope_kind::ack)) {
    request* r = core::control_target(requests_, source, kind::ack, e.cookie);
    if (r == nullptr || a.bytes != 0) {
      remote_corrupt(source, fmt::format("an ack for request {:#x}, which is no synchronous send "
                                         "of this rank to it waiting for one",
                                         e.cookie));
    }
    r->awaits = static_cast<std::uint8_t>(kind::none);
    if (--r->remote_waits == 0) complete_send(r);
    return;
  }
  if (e.kind == static_cast<std::uint8_t>(envelope_kind::credit)) {
    remote_peer& p = remote_peers_[source];
    if (a.bytes != 0 || e.cookie == 0 || e.cookie > remote_credits_ ||
        p.credits + e.cookie > remote_credits_) {
      remote_corrupt(source, fmt::format("{} credits back, with {} of {} in hand", e.cookie,
                                         p.credits, remote_credits_));
    }
    p.credits += static_cast<std::uint32_t>(e.cookie);
    if (!p.waiting.empty()) remote_credited_ = true;  // its sends go once the progress returns
    return;
  }
  if (e.kind != static_cast<std::uint8_t>(envelope_kind::message) || e.tag < 0 || e.tag > tag_ub ||
      (e.flags != 0 && e.flags != flag::sync) || (e.flags == flag::sync && e.cookie == 0) ||
      e.window == 0 || e.window > max_remote_credits) {
    remote_corrupt(source, fmt::format("kind {}, tag {}, flags {:#x}, context {}, window {}",
                                       e.kind, e.tag, e.flags, e.context, e.window));
  }
  remote_peer& p = remote_peers_[source];
  if (e.seq <= p.taken) {
    remote_corrupt(source,
                   fmt::format("message number {} again (it sent {} already)", e.seq, p.taken));
  }
  if (e.seq == p.taken + 1 && p.held.empty() &&
      take_remote(e, reinterpret_cast<const unsigned char*>(a.data), a.bytes, a.deferred)) {
    return;
  }
  // Its turn has not come (or the store is full): held in order of number, the payload copied.
  held_arrival h;
  h.header = e;
  h.bytes = a.bytes;
  h.deferred = a.deferred;
  if (a.data != nullptr) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(a.data);
    h.data.assign(bytes, bytes + a.bytes);
  }
  auto at = p.held.begin();
  while (at != p.held.end() && at->header.seq < e.seq) ++at;
  if (at != p.held.end() && at->header.seq == e.seq) {
    remote_corrupt(source, fmt::format("message number {} twice", e.seq));
  }
  p.held.insert(at, std::move(h));
  ++remote_held_;
}

bool engine::take_held(int source) {
  remote_peer& p = remote_peers_[source];
  bool worked = false;
  while (!p.held.empty() && p.held.front().header.seq == p.taken + 1) {
    held_arrival& h = p.held.front();
    if (!take_remote(h.header, h.deferred != nullptr ? nullptr : h.data.data(), h.bytes,
                     h.deferred)) {
      break;  // the unexpected store is full: again after the next pass
    }
    p.held.pop_front();
    --remote_held_;
    worked = true;
  }
  return worked;
}

bool engine::take_remote(const envelope& e, const unsigned char* data, std::size_t bytes,
                         void* deferred) {
  const int source = e.source;
  const kind how = deferred != nullptr ? kind::fetch : kind::inline_data;
  const incoming m{
      source, e.tag, how,  e.flags, bytes, e.cookie, reinterpret_cast<std::uint64_t>(deferred),
      0,      0,     data, nullptr};
  context_queues& q = matcher_.queues(e.context);
  if (request* r = q.take_posted(source, e.tag)) {
    ++remote_peers_[source].taken;
    deliver(r, m);
    remote_taken(source, e.window);
    return true;
  }
  unexpected* u = matcher_.allocate();
  if (u == nullptr) return false;
  ++remote_peers_[source].taken;
  remote_taken(source, e.window);
  u->source = source;
  u->tag = e.tag;
  u->how = how;
  u->flags = e.flags;
  u->size = bytes;
  u->cookie = e.cookie;
  u->address = m.address;
  u->segments = 0;
  u->slot = 0;
  if (how == kind::inline_data) {
    // Where post_recv looks for it: the descriptor's own cell-sized buffer, or its long one.
    if (is_long_inline(bytes, e.flags)) {
      u->long_data.assign(data, data + bytes);
    } else if (bytes) {
      std::memcpy(u->data, data, bytes);
    }
  }
  q.add_unexpected(u);
  return true;
}

void engine::remote_fetch_ended(request* r) {
  --remote_in_flight_;
  const std::size_t n = r->transferred;
  if (r->owned) {  // fetched whole into a staging copy: the receive takes what fits
    if (r->segments.count != 0) {
      scatter(reinterpret_cast<const unsigned char*>(r->owned.get()), r->segments.entries.get(), n);
    } else if (n) {
      std::memcpy(r->buffer, r->owned.get(), n);
    }
    r->owned.reset();
  }
  r->transferred = 0;
  r->result.bytes = n;
  r->st = state::complete;
  if (r->peer_cookie != 0) remote_ack(r->result.source, r->peer_cookie);
}

void engine::remote_fetched(std::uint64_t cookie, const std::string& error) {
  request* r = requests_.lookup(cookie);
  if (r == nullptr || r->kind != op::recv || r->st != state::in_flight) {
    base::fail(errc::internal, "rank {}: the ucx provider ended a fetch this rank does not have",
               rank_);
  }
  remote_fetch_ended(r);
  if (!error.empty()) {
    r->result.error = errc::dead_rank;
    remote_failed(r->result.source, fmt::format("fetching its message of {} bytes failed: {}",
                                                r->message_bytes, error));
  }
}

void engine::remote_failed(int rank, const std::string& why) {
  if (leaving_) return;  // every rank is at the finalize barrier: peers may go
  halted_ = true;
  if (remote_failed_rank_ >= 0) return;  // the first failure is the one reported
  remote_failed_rank_ = rank;
  // The host's other ranks are named too: a lost link or host takes them all.
  const int host = host_of(rank);
  std::string ranks;
  for (int r = 0, first = -1; r <= size_; ++r) {
    const bool on = r < size_ && host_of(r) == host;
    if (on && first < 0) first = r;
    if (!on && first >= 0) {
      ranks += fmt::format("{}{}", ranks.empty() ? "" : ",", first);
      if (r - 1 > first) ranks += fmt::format("-{}", r - 1);
      first = -1;
    }
  }
  remote_failure_ = fmt::format("{} is unreachable: {} (host {} runs ranks {})", where(rank), why,
                                job_.host_name(host), ranks);
}

}  // namespace rmpl::core
