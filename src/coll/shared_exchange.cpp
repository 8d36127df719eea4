// Allgather and alltoall through the communicator's shared areas (shared_area.hpp): each rank
// copies its blocks into its own area once and posts the round; every rank then takes what it needs
// straight from the others' areas and releases the round. One wait per round instead of one
// message round per step, which matters most when ranks outnumber cores: a rank that cannot go on
// costs a hand-off of its core, and Bruck's or the ring's log2(p) or p - 1 steps each cost one.
// Long blocks go in rounds of one area chunk, as the reductions do.
#include <algorithm>
#include <cstring>

#include "coll/algorithms.hpp"
#include "coll/shared_area.hpp"

namespace rmpl::coll {
namespace {

std::uint64_t rounds_for(std::size_t bytes, std::size_t per_round) noexcept {
  return per_round == 0 ? 0 : (bytes + per_round - 1) / per_round;
}

/// memcpy of n bytes where n may be 0 and the pointers then null (an empty block).
void copy_bytes(std::byte* to, const std::byte* from, std::size_t n) noexcept {
  if (n != 0) std::memcpy(to, from, n);
}

/// After the first round (first) was posted by all: whether a member announced a block size other
/// than `block`; if so notes it and leaves the collective (shared_area::abandon), past the rounds
/// of every member (blocks of `per_round` bytes a round).
bool disagree(exchange x, shared_area& a, std::uint64_t first, std::size_t block,
              std::uint64_t rounds, std::size_t per_round) {
  const int r = a.disagreeing(first, block, [](int) { return true; });
  if (r < 0) [[likely]]
    return false;
  x.note_mismatch(r, block, a.announced(r, first));
  std::uint64_t most = rounds;
  for (int m = 0; m < x.size(); ++m) {
    most = std::max<std::uint64_t>(most, rounds_for(a.announced(m, first), per_round));
  }
  a.abandon(first + most - 1);
  return true;
}

}  // namespace

task allgather_shared(exchange x, const_bytes in, bytes out) {
  shared_area a(x);
  const int n = x.size();
  const std::size_t block = in.size(), chunk = a.chunk();
  // Even an empty block takes one round: the others' blocks are empty too, but every rank still
  // claims the same number of rounds.
  const std::uint64_t rounds = std::max<std::uint64_t>(rounds_for(block, chunk), 1);
  const std::uint64_t first =
      a.claim(rounds, std::min(chunk, block), 1, shared_area::pace::lockstep);
  for (std::uint64_t i = 0; i < rounds; ++i) {
    const std::uint64_t s = first + i;
    const std::size_t at = i * chunk, len = std::min(chunk, block - std::min(block, at));
    co_await x.until([&] { return a.writable(s); });
    if (i == 0) a.announce(first, block);
    // `in` may lie in `out` (in place): every block, this rank's too, is copied from the areas.
    copy_bytes(a.operand(x.rank(), s), in.data() + at, len);
    a.post(s);
    co_await x.until([&] { return a.all_posted(s); });
    if (i == 0 && disagree(x, a, first, block, rounds, chunk)) co_return;
    for (int r = 0; r < n; ++r) {
      copy_bytes(out.data() + static_cast<std::size_t>(r) * block + at, a.operand(r, s), len);
    }
    a.release(s);
  }
}

task alltoall_shared(exchange x, const_bytes in, bytes out) {
  shared_area a(x);
  const int n = x.size(), me = x.rank();
  const auto members = static_cast<std::size_t>(n);
  const std::size_t block = in.size() / members;
  // A round carries the same slice of each of this rank's n blocks, side by side in its area.
  const std::size_t slice = a.chunk() / members;
  const std::uint64_t rounds = std::max<std::uint64_t>(rounds_for(block, slice), 1);
  const std::uint64_t first =
      a.claim(rounds, members * std::min(slice, block), 1, shared_area::pace::lockstep);
  for (std::uint64_t i = 0; i < rounds; ++i) {
    const std::uint64_t s = first + i;
    const std::size_t at = i * slice, len = std::min(slice, block - std::min(block, at));
    co_await x.until([&] { return a.writable(s); });
    if (i == 0) a.announce(first, block);
    std::byte* mine = a.operand(me, s);
    for (std::size_t r = 0; r < members; ++r) {
      copy_bytes(mine + r * len, in.data() + r * block + at, len);
    }
    a.post(s);
    co_await x.until([&] { return a.all_posted(s); });
    if (i == 0 && disagree(x, a, first, block, rounds, slice)) co_return;
    for (int r = 0; r < n; ++r) {
      copy_bytes(out.data() + static_cast<std::size_t>(r) * block + at,
                 a.operand(r, s) + static_cast<std::size_t>(me) * len, len);
    }
    a.release(s);
  }
}

}  // namespace rmpl::coll
