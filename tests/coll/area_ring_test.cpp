// The placement of shared-area rounds (core/area_ring.hpp), in one process, against a model that
// remembers every byte range ever placed: no round may be written while an earlier round that used
// any of its bytes may still be read (every such round is at most its must_release), a round never
// waits for itself or a later one, a collective that may run ahead gets many rounds in flight, a
// lockstep one stays in two buffers, and no round leaves the area.
#include "core/area_ring.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using rmpl::core::area_ring;

constexpr std::size_t capacity = std::size_t{1} << 20;

/// Every round placed so far: its number and bytes.
struct placed_round {
  std::uint64_t round;
  std::size_t offset, bytes;
};

struct claim_args {
  std::uint64_t count;
  std::size_t bytes;
  std::size_t lap;
};

/// Claims `args` on `ring` and checks each new round against `history`; returns the rounds.
std::vector<placed_round> claim_checked(area_ring& ring, std::vector<placed_round>& history,
                                        const claim_args& args, std::size_t area = capacity) {
  const area_ring::rounds r = ring.claim(args.count, args.bytes, args.lap, area);
  std::vector<placed_round> mine;
  for (std::uint64_t i = 0; i < args.count; ++i) {
    const std::uint64_t s = r.first() + i;
    const std::uint64_t need = r.must_release(i);
    std::ostringstream where;
    where << "round " << s << " (" << i << " of " << args.count << ", " << args.bytes
          << " bytes, lap " << args.lap << ")";
    EXPECT_LT(need, s) << where.str() << " waits for itself or a later round";
    if (args.bytes == 0) continue;
    const std::size_t at = r.offset(i);
    EXPECT_LE(at + args.bytes, area) << where.str() << " leaves the area";
    for (const placed_round& p : history) {
      const bool overlap = p.offset < at + args.bytes && at < p.offset + p.bytes;
      if (overlap && p.round < s && p.round > need) {
        ADD_FAILURE() << where.str() << " at " << at << " overlaps round " << p.round << " at "
                      << p.offset << " but waits only for " << need;
        return mine;
      }
    }
    history.push_back({s, at, args.bytes});
    mine.push_back(history.back());
  }
  return mine;
}

TEST(AreaRing, RandomClaimsNeverOverwriteARoundThatMayStillBeRead) {
  std::mt19937_64 rng(7);
  const std::size_t sizes[] = {0,    1,     8,     64,     100,          1000,
                               4096, 65536, 65537, 200000, capacity / 4, capacity / 2};
  area_ring ring;
  std::vector<placed_round> history;
  for (int k = 0; k < 3000; ++k) {
    const std::size_t bytes = sizes[rng() % std::size(sizes)];
    // Rounds of a quarter or half of the area come in runs; smaller ones alone.
    const std::uint64_t count = bytes >= capacity / 4 ? 1 + rng() % 6 : (rng() % 8 == 0 ? 0 : 1);
    const std::size_t lap = rng() % 2 == 0 ? 0 : capacity;
    claim_checked(ring, history, {count, bytes, lap});
    if (HasFailure()) return;
    if (history.size() > 4000) history.erase(history.begin(), history.begin() + 2000);
  }
  EXPECT_GT(ring.claimed(), 3000u);
}

TEST(AreaRing, SmallAreasWrapOftenAndStaySafe) {
  std::mt19937_64 rng(11);
  for (std::size_t area : {std::size_t{1024}, std::size_t{4096}, std::size_t{65536}}) {
    area_ring ring;
    std::vector<placed_round> history;
    for (int k = 0; k < 2000; ++k) {
      const std::size_t bytes = 1 + rng() % (area / 2);
      const std::uint64_t count = bytes > area / 4 ? 1 + rng() % 4 : 1;
      claim_checked(ring, history, {count, bytes, rng() % 2 == 0 ? 0 : area}, area);
      if (HasFailure()) return;
    }
  }
}

TEST(AreaRing, ARootMayRunManySmallRoundsAhead) {
  area_ring ring;
  // 64 KiB rounds that may run ahead: 16 fit in 1 MiB, so round s waits for round s - 16.
  for (int k = 0; k < 100; ++k) {
    const auto r = ring.claim(1, 65536, capacity, capacity);
    const std::uint64_t want = k >= 16 ? r.first() - 16 : 0;
    EXPECT_EQ(r.must_release(0), want) << "broadcast " << k;
  }
  // 8-byte rounds: at most max_ahead in flight, within max_ahead granules of the area.
  for (int k = 0; k < 1000; ++k) {
    const auto r = ring.claim(1, 8, capacity, capacity);
    EXPECT_GE(r.must_release(0) + area_ring::max_ahead, r.first()) << "broadcast " << k;
    EXPECT_LT(r.offset(0), area_ring::max_ahead * (capacity / area_ring::granules));
  }
}

TEST(AreaRing, LockstepRoundsAlternateBetweenTwoBuffers) {
  area_ring ring;
  std::vector<placed_round> history;
  std::vector<std::size_t> offsets;
  for (int k = 0; k < 50; ++k) {
    const auto mine = claim_checked(ring, history, {1, 65536, 0});
    if (HasFailure()) return;
    offsets.push_back(mine.front().offset);
    ring.claim(1, 0, 0, capacity);  // a barrier in between: a round that places nothing
  }
  for (std::size_t k = 2; k < offsets.size(); ++k) {
    EXPECT_EQ(offsets[k], offsets[k - 2]) << "allreduce " << k;
    EXPECT_NE(offsets[k], offsets[k - 1]) << "allreduce " << k;
  }
  // A long lockstep collective: rounds of a quarter of the area, each waiting for the one two back.
  const auto r = ring.claim(10, capacity / 4, 0, capacity);
  for (std::uint64_t i = 2; i < 10; ++i) EXPECT_EQ(r.must_release(i), r.first() + i - 2);
}

}  // namespace
