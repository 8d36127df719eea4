#include "core/matching.hpp"

#include "rmpl/types.hpp"

namespace rmpl::core {
namespace {

bool tag_accepts(int wanted, int tag) noexcept {
  return wanted == any_tag || wanted == tag;
}

}  // namespace

void context_queues::post(request* r) {
  if (r->peer == any_source)
    posted_any_.push_back(r);
  else
    posted_[r->peer].push_back(r);
  ++posted_count_;
}

void context_queues::unpost(request* r) noexcept {
  if (r->peer == any_source)
    posted_any_.erase(r);
  else
    posted_[r->peer].erase(r);
  --posted_count_;
}

request* context_queues::take_posted(int source, int tag) noexcept {
  if (posted_count_ == 0) return nullptr;
  auto accepts = [tag](const request& r) { return tag_accepts(r.tag, tag); };
  request* specific = posted_[source].find(accepts);
  request* wildcard = posted_any_.empty() ? nullptr : posted_any_.find(accepts);
  request* r = specific;
  if (wildcard && (!specific || wildcard->post_order < specific->post_order)) r = wildcard;
  if (r) unpost(r);
  return r;
}

bool context_queues::would_take(int source, int tag) const noexcept {
  if (posted_count_ == 0) return false;
  auto accepts = [tag](const request& r) { return tag_accepts(r.tag, tag); };
  return posted_[source].find(accepts) != nullptr || posted_any_.find(accepts) != nullptr;
}

unexpected* context_queues::find_unexpected(int source, int tag) const noexcept {
  if (unexpected_count_ == 0) return nullptr;
  auto accepts = [tag](const unexpected& u) { return tag_accepts(tag, u.tag); };
  if (source != any_source) return unexpected_[source].find(accepts);
  unexpected* best = nullptr;
  for (const auto& bin : unexpected_) {
    unexpected* u = bin.find(accepts);
    if (u && (!best || u->arrival < best->arrival)) best = u;
  }
  return best;
}

}  // namespace rmpl::core
