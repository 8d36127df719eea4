// The matcher's queues (core/matching.hpp) on their own, one process: MPI's order rules as the
// engine relies on them. A message takes the earliest-posted receive that accepts it, whether that
// receive names its source or is any_source, and whatever tags earlier receives wait for; a
// receive takes the earliest-arrived message it accepts, from its source or from any; the counts
// and emptiness tests follow posts, takes and removals. (Issue 24 moves the matcher above the
// transports: these pin its behaviour first.)
#include <gtest/gtest.h>

#include <deque>
#include <vector>

#include "core/matching.hpp"
#include "rmpl/types.hpp"

namespace rmpl::core {
namespace {

constexpr int ranks = 4;

/// Posted receives numbered as the engine numbers them (post_order), kept alive by the test.
class Posts {
 public:
  request* post(context_queues& q, int source, int tag) {
    request& r = store_.emplace_back();
    r.kind = op::recv;
    r.peer = source;
    r.tag = tag;
    r.post_order = ++order_;
    q.post(&r);
    return &r;
  }

 private:
  std::deque<request> store_;
  std::uint64_t order_ = 0;
};

/// Arrived messages, kept alive by the test.
class Arrivals {
 public:
  unexpected* arrive(context_queues& q, int source, int tag) {
    unexpected& u = store_.emplace_back();
    u.source = source;
    u.tag = tag;
    q.add_unexpected(&u);
    return &u;
  }

 private:
  std::deque<unexpected> store_;
};

TEST(Matching, NamedReceivesInPostingOrder) {
  context_queues q(ranks);
  Posts p;
  request* first = p.post(q, 1, 7);
  request* second = p.post(q, 1, 7);
  EXPECT_TRUE(q.would_take(1, 7));
  EXPECT_EQ(q.take_posted(1, 7), first);
  EXPECT_EQ(q.take_posted(1, 7), second);
  EXPECT_EQ(q.take_posted(1, 7), nullptr);
  EXPECT_TRUE(q.nothing_posted());
}

TEST(Matching, AnySourceAndNamedMergedByPostingOrder) {
  context_queues q(ranks);
  Posts p;
  request* wild_first = p.post(q, any_source, 3);
  request* named = p.post(q, 2, 3);
  request* wild_later = p.post(q, any_source, 3);
  // The wildcard was posted first: it takes the first message from rank 2.
  EXPECT_EQ(q.take_posted(2, 3), wild_first);
  EXPECT_EQ(q.take_posted(2, 3), named);
  EXPECT_EQ(q.take_posted(0, 3), wild_later);
  EXPECT_TRUE(q.nothing_posted());
}

TEST(Matching, TagsSkipWithoutOvertaking) {
  context_queues q(ranks);
  Posts p;
  request* tag5 = p.post(q, 0, 5);
  request* any = p.post(q, 0, any_tag);
  request* tag6 = p.post(q, 0, 6);
  // A tag-6 message skips the tag-5 receive and takes the any_tag one posted before tag6.
  EXPECT_EQ(q.take_posted(0, 6), any);
  EXPECT_EQ(q.take_posted(0, 6), tag6);
  EXPECT_FALSE(q.would_take(0, 6));
  EXPECT_EQ(q.take_posted(0, 5), tag5);
}

TEST(Matching, AnySourceAnyTagTakesTheEarliestPosted) {
  context_queues q(ranks);
  Posts p;
  request* named_other_tag = p.post(q, 3, 1);
  request* wild = p.post(q, any_source, any_tag);
  EXPECT_EQ(q.take_posted(3, 2), wild);  // the named one wants tag 1
  EXPECT_EQ(q.take_posted(3, 1), named_other_tag);
  EXPECT_EQ(q.take_posted(3, 1), nullptr);
}

TEST(Matching, UnpostWithdrawsOneReceive) {
  context_queues q(ranks);
  Posts p;
  request* a = p.post(q, 1, 0);
  request* b = p.post(q, any_source, 0);
  q.unpost(a);
  EXPECT_EQ(q.take_posted(1, 0), b);
  EXPECT_TRUE(q.nothing_posted());
}

TEST(Matching, UnexpectedInArrivalOrderPerSourceAndAcrossSources) {
  context_queues q(ranks);
  Arrivals m;
  unexpected* from2_tag1 = m.arrive(q, 2, 1);
  unexpected* from1_tag1 = m.arrive(q, 1, 1);
  unexpected* from2_tag2 = m.arrive(q, 2, 2);
  EXPECT_FALSE(q.nothing_from(2));
  EXPECT_TRUE(q.nothing_from(3));
  // From one source, the earliest it accepts; from any source, the earliest of all.
  EXPECT_EQ(q.find_unexpected(2, 2), from2_tag2);
  EXPECT_EQ(q.find_unexpected(2, any_tag), from2_tag1);
  EXPECT_EQ(q.find_unexpected(any_source, 1), from2_tag1);
  EXPECT_EQ(q.find_unexpected(any_source, any_tag), from2_tag1);
  q.remove_unexpected(from2_tag1);
  EXPECT_EQ(q.find_unexpected(any_source, any_tag), from1_tag1);
  EXPECT_EQ(q.find_unexpected(any_source, 2), from2_tag2);
  EXPECT_EQ(q.find_unexpected(3, any_tag), nullptr);
  q.remove_unexpected(from1_tag1);
  q.remove_unexpected(from2_tag2);
  EXPECT_EQ(q.find_unexpected(any_source, any_tag), nullptr);
  EXPECT_TRUE(q.nothing_from(2));
}

TEST(Matching, ManyInterleavedFollowPostingOrder) {
  // 200 receives alternating between named and any_source, tags cycling: each message takes
  // exactly the receive a linear scan in posting order would pick.
  context_queues q(ranks);
  Posts p;
  std::vector<request*> all;
  for (int i = 0; i < 200; ++i) {
    all.push_back(p.post(q, i % 3 == 0 ? any_source : i % ranks, i % 5 == 0 ? any_tag : i % 4));
  }
  for (int m = 0; m < 300; ++m) {
    const int source = m % ranks, tag = m % 4;
    request* expected = nullptr;
    for (request*& r : all) {
      if (r && (r->peer == any_source || r->peer == source) &&
          (r->tag == any_tag || r->tag == tag)) {
        expected = r;
        r = nullptr;
        break;
      }
    }
    ASSERT_EQ(q.take_posted(source, tag), expected) << "message " << m;
  }
}

}  // namespace
}  // namespace rmpl::core
