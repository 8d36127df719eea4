// The kernel's request table (core/request.hpp) on its own: ids name one use of a request (a
// released request's id finds nothing, even once the slot serves again), requests never move as
// the table grows past its blocks, a reused request starts fresh, and the live count follows.
#include <gtest/gtest.h>

#include <vector>

#include "core/request.hpp"

namespace rmpl::core {
namespace {

TEST(RequestTable, IdsFindTheirRequestUntilReleased) {
  request_table t;
  request* r = t.allocate();
  r->st = state::queued;
  const request_id id = r->id();
  EXPECT_EQ(t.lookup(id), r);
  EXPECT_EQ(t.live(), 1u);
  t.release(r);
  EXPECT_EQ(t.lookup(id), nullptr);
  EXPECT_EQ(t.live(), 0u);
  EXPECT_EQ(t.lookup(0), nullptr);  // null_request
}

TEST(RequestTable, AReusedSlotHasANewIdAndStartsFresh) {
  request_table t;
  request* r = t.allocate();
  r->st = state::queued;
  r->tag = 42;
  r->bytes = 1000;
  const request_id old_id = r->id();
  t.release(r);
  request* again = t.allocate();
  EXPECT_EQ(again, r);  // the slot serves again
  EXPECT_NE(again->id(), old_id);
  EXPECT_EQ(again->tag, 0);
  EXPECT_EQ(again->bytes, 0u);
  again->st = state::queued;
  EXPECT_EQ(t.lookup(old_id), nullptr);
  EXPECT_EQ(t.lookup(again->id()), again);
}

TEST(RequestTable, RequestsStayPutAcrossBlocks) {
  request_table t;
  std::vector<request*> held;
  std::vector<request_id> ids;
  for (int i = 0; i < 2000; ++i) {  // several blocks of 256
    request* r = t.allocate();
    r->st = state::queued;
    r->tag = i;
    held.push_back(r);
    ids.push_back(r->id());
  }
  EXPECT_EQ(t.live(), 2000u);
  for (int i = 0; i < 2000; ++i) {
    ASSERT_EQ(t.lookup(ids[static_cast<std::size_t>(i)]), held[static_cast<std::size_t>(i)]);
    ASSERT_EQ(held[static_cast<std::size_t>(i)]->tag, i);
  }
  for (int i = 0; i < 2000; i += 2) t.release(held[static_cast<std::size_t>(i)]);
  EXPECT_EQ(t.live(), 1000u);
  for (int i = 0; i < 2000; ++i) {
    const bool live = i % 2 == 1;
    ASSERT_EQ(t.lookup(ids[static_cast<std::size_t>(i)]) != nullptr, live) << i;
  }
}

TEST(RequestTable, ForeignIdsFindNothing) {
  request_table t;
  request* r = t.allocate();
  r->st = state::queued;
  const request_id id = r->id();
  EXPECT_EQ(t.lookup(id + 1), nullptr);                         // an index never made
  EXPECT_EQ(t.lookup(id ^ (std::uint64_t{7} << 32)), nullptr);  // another generation
}

}  // namespace
}  // namespace rmpl::core
