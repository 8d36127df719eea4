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

// Inlined into take_posted, which runs for every message that arrives.
[[gnu::always_inline]] inline request* context_queues::first_posted(int source,
                                                                    int tag) const noexcept {
  // The source's receives and the any_source ones, each in posting order, walked as one list
  // merged by posting number: the first that accepts is the earliest-posted, and no receive posted
  // after it is looked at (the other list's tail may be long: many wildcards, or many receives of
  // other tags).
  request* named = posted_[source].front();
  request* wild = posted_any_.front();
  if (wild == nullptr) {  // the common case, kept short: no any_source receive pending
    for (; named != nullptr; named = named->next)
      if (tag_accepts(named->tag, tag)) return named;
    return nullptr;
  }
  for (;;) {
    if (named != nullptr && (wild == nullptr || named->post_order < wild->post_order)) {
      if (tag_accepts(named->tag, tag)) return named;
      named = named->next;
    } else if (wild != nullptr) {
      if (tag_accepts(wild->tag, tag)) return wild;
      wild = wild->next;
    } else {
      return nullptr;
    }
  }
}

request* context_queues::take_posted(int source, int tag) noexcept {
  if (posted_count_ == 0) return nullptr;
  request* r = first_posted(source, tag);
  if (r) unpost(r);
  return r;
}

bool context_queues::would_take(int source, int tag) const noexcept {
  return posted_count_ != 0 && first_posted(source, tag) != nullptr;
}

unexpected* context_queues::find_unexpected(int source, int tag) const noexcept {
  if (unexpected_count_ == 0) return nullptr;
  auto accepts = [tag](const unexpected& u) { return tag_accepts(tag, u.tag); };
  if (source != any_source) return unexpected_[source].find(accepts);
  return arrived_.find(accepts);
}

}  // namespace rmpl::core
