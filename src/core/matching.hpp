// Matching: the posted-receive and unexpected-message queues of one context, binned per source (the
// Communication Kernel's hash per sender). Posting order is numbered so that any_source and
// any_tag receives still obey MPI's non-overtaking rule: a message matches the earliest-posted
// receive that accepts it, and a receive takes the earliest-arrived message it accepts. Every
// operation costs O(1) plus the entries it must step over (earlier ones that do not accept), never
// a walk over the ranks: a message walks its source's receives and the any_source ones merged by
// posting number, and an any_source receive walks one list of every source's messages in arrival
// order (each unexpected message is on two lists).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "core/ilist.hpp"
#include "core/request.hpp"
#include "core/wire.hpp"

namespace rmpl::core {

/// A message that arrived before its receive was posted. Inline payloads are copied here; eager
/// ones stay in their slot and rendezvous ones in the sender's memory, so memory stays bounded by
/// the number of descriptors (RMPL_UNEXPECTED_MAX) and the slot pool.
struct unexpected {
  unexpected* next = nullptr;  ///< its source's list
  unexpected* prev = nullptr;
  unexpected* any_next = nullptr;  ///< the list of every source's
  unexpected* any_prev = nullptr;
  int source = 0;
  int tag = 0;
  kind how = kind::none;
  std::uint8_t flags = 0;
  std::size_t size = 0;
  std::uint64_t cookie = 0;    // sync inline/eager: the sender's request; rts: likewise
  std::uint64_t address = 0;   // rts: the payload in the sender's memory (or its segment list)
  std::uint64_t segments = 0;  // rts: entries of the segment list at address (0: contiguous)
  std::uint32_t slot = 0;      // eager: the slot in this rank's pool
  unsigned char data[inline_capacity];
  /// A long inline message's bytes, copied out of the ring (which must move on); the descriptor
  /// is recycled with its buffer, so a steady stream of them allocates nothing.
  std::vector<unsigned char> long_data;
};

class context_queues {
 public:
  explicit context_queues(int nranks) : posted_(nranks), unexpected_(nranks) {}

  void post(request* r);
  void unpost(request* r) noexcept;
  /// Removes and returns the earliest-posted receive accepting (source, tag), or nullptr.
  request* take_posted(int source, int tag) noexcept;
  /// Whether a posted receive would accept a message (source, tag): what take_posted would find.
  bool would_take(int source, int tag) const noexcept;

  void add_unexpected(unexpected* u) noexcept {
    unexpected_[u->source].push_back(u);
    arrived_.push_back(u);
    ++unexpected_count_;
  }
  void remove_unexpected(unexpected* u) noexcept {
    unexpected_[u->source].erase(u);
    arrived_.erase(u);
    --unexpected_count_;
  }
  bool nothing_posted() const noexcept { return posted_count_ == 0; }
  bool nothing_from(int source) const noexcept { return unexpected_[source].empty(); }

  /// The earliest-arrived message accepted by (source, tag) (either may be a wildcard), or nullptr.
  unexpected* find_unexpected(int source, int tag) const noexcept;

 private:
  /// The earliest-posted receive accepting (source, tag), or nullptr.
  request* first_posted(int source, int tag) const noexcept;

  std::vector<ilist<request>> posted_;  // by source
  ilist<request> posted_any_;           // any_source receives
  std::size_t posted_count_ = 0;
  std::vector<ilist<unexpected>> unexpected_;  // by source
  // Every source's, in arrival order: what an any_source receive searches.
  ilist<unexpected, &unexpected::any_next, &unexpected::any_prev> arrived_;
  std::size_t unexpected_count_ = 0;
};

/// Every context's queues, and the bounded store of unexpected descriptors.
class matcher {
 public:
  matcher(int nranks, std::size_t max_unexpected)
      : nranks_(nranks), max_unexpected_(max_unexpected) {}

  context_queues& queues(std::uint32_t context) {
    // Every receive posted and every message that arrives asks: the hit stays inline.
    if (context < contexts_.size() && contexts_[context]) [[likely]]
      return *contexts_[context];
    return first_queues(context);
  }
  /// A fresh descriptor, or nullptr when RMPL_UNEXPECTED_MAX are in use (the ring then holds the
  /// rest).
  unexpected* allocate() {
    if (in_use_ >= max_unexpected_) return nullptr;
    ++in_use_;
    if (!free_.empty()) {
      unexpected* u = free_.back();
      free_.pop_back();
      return u;
    }
    return &store_.emplace_back();
  }
  [[gnu::noinline]] context_queues& first_queues(std::uint32_t context) {
    if (context >= contexts_.size()) contexts_.resize(context + 1);
    contexts_[context] = std::make_unique<context_queues>(nranks_);
    return *contexts_[context];
  }
  void release(unexpected* u) noexcept {
    --in_use_;
    free_.push_back(u);
  }
  std::size_t in_use() const noexcept { return in_use_; }

 private:
  int nranks_;
  std::size_t max_unexpected_;
  std::size_t in_use_ = 0;
  std::vector<std::unique_ptr<context_queues>> contexts_;
  std::deque<unexpected> store_;
  std::vector<unexpected*> free_;
};

}  // namespace rmpl::core
