// The shared-memory algorithms (shared_area.hpp): barrier, broadcast, reduce and allreduce through
// the members' areas in the job segment. Every operand crosses memory once into its owner's area;
// readers take it from there in place. Long vectors go through in rounds of one area chunk, two
// rounds or more in flight (shared_area.hpp).
//
// A long reduction round is cut into one slice per rank, and rank r folds slice r: the others'
// operands from their areas, its own straight from its input (so a rank copies into its area only
// the slices the others fold), into its result buffer, which the others copy from. Per byte of a
// 2-rank allreduce a rank reads its input once from memory and writes its output once; the rest
// (area in, area out) stays in the caches. From 8 MiB the output is written with streaming stores,
// which spare the read of every output line before it is overwritten.
#include <algorithm>
#include <cstring>

#include "coll/algorithms.hpp"
#include "coll/shared_area.hpp"
#include "coll/stream_copy.hpp"

namespace rmpl::coll {
namespace {

/// Operands up to this many bytes are reduced whole by every rank that needs the result (one wait
/// per round); longer ones are cut into one slice per rank, each reduced once and then copied by
/// all (a second wait, but the work is shared instead of repeated).
constexpr std::size_t whole_max = 8u << 10;

/// A rooted reduce folds its rounds whole at the root (the non-roots post and go on: one wait for
/// the root, none for them) while the root folds at most this many bytes of the others' operands
/// per round. Against slices (2026-11-23, medians of 6 pairs): 64 KiB 0.79x the time with 2 ranks,
/// 0.78x with 4, 0.97x with 8 (448 KiB to fold); 1 MiB (rounds of 256 KiB) 1.03x with 2, 0.85-1.0x
/// with 4 (768 KiB), 1.40x with 8.
constexpr std::size_t rooted_whole_max = 256u << 10;

/// The bytes of `dest` fold_operands finishes at a time: well within a first-level data cache.
constexpr std::size_t fold_block = 8u << 10;

/// From this many bytes a result is copied out with streaming stores (stream_copy.hpp): the
/// output is then too large to stay in the cache anyway (with the operand and the other local
/// ranks' buffers), and plain stores would read every output line in first. glibc's memcpy makes
/// the same switch at three quarters of a thread's share of the last-level cache (12 MiB on the
/// 2-core, 32 MiB-L3 machine of docs/benchmarks.md).
constexpr std::size_t stream_min = 8u << 20;

void copy_out(bool streaming, std::byte* to, const std::byte* from, std::size_t n) noexcept {
  if (streaming)
    stream_copy(to, from, n);
  else
    std::memcpy(to, from, n);
}

std::uint64_t rounds_for(std::size_t bytes, std::size_t per_round) noexcept {
  return (bytes + per_round - 1) / per_round;
}

/// dest = operand_0 op operand_1 op ... op operand_{n-1} over bytes [at, at + len) of round s's
/// operands: folded from the last rank down, so a non-commutative operator sees rank order. Rank
/// `me`'s operand is read from `mine` (already offset to `at`), the others' from their areas; `me`
/// is -1 when every operand is in the areas. `dest` overlaps none of them. Block by block, so that
/// each block of `dest`, copied from the last operand and folded with all the others, stays in
/// the first-level cache: `dest` then crosses memory once, as a fused `dest = a op b` would
/// (2026-11-23, 8 pairs: 2-rank reduce of 64 KiB 0.85x the time of copying all of it and then
/// folding; 1 MiB and 4 ranks within the noise).
void fold_operands(const shared_area& a, int n, std::uint64_t s, const reduction& op,
                   std::size_t at, std::size_t len, int me, const std::byte* mine,
                   std::byte* dest) {
  const auto operand = [&](int r) -> const std::byte* {
    return r == me ? mine : a.operand(r, s) + at;
  };
  const std::size_t block = std::max<std::size_t>(fold_block / op.element, 1) * op.element;
  for (std::size_t b = 0; b < len; b += block) {
    const std::size_t m = std::min(block, len - b);
    std::memcpy(dest + b, operand(n - 1) + b, m);
    for (int r = n - 2; r >= 0; --r) {
      reduce_into(op, const_bytes(operand(r) + b, m), bytes(dest + b, m));
    }
  }
}

}  // namespace

task barrier_shared(exchange x) {
  shared_area a(x);
  const std::uint64_t s = a.claim(1, 0, 0, shared_area::pace::lockstep);
  co_await x.until([&] { return a.writable(s); });
  a.post(s);
  co_await x.until([&] { return a.all_posted(s); });
  a.release(s);
}

task broadcast_shared(exchange x, bytes data, int root) {
  // The root may fill as many rounds as the area holds before the others read them: a member that
  // waits for a core then finds several broadcasts' data posted at once.
  shared_area a(x);
  const std::size_t chunk = a.chunk();
  // Even an empty broadcast takes a round: its first round carries the root's size, which a
  // reader whose count differs must see (rather than wait for rounds the root never posts).
  const std::uint64_t rounds = std::max<std::uint64_t>(rounds_for(data.size(), chunk), 1);
  const std::uint64_t first =
      a.claim(rounds, std::min(chunk, data.size()), 1, shared_area::pace::ahead);
  for (std::uint64_t i = 0; i < rounds; ++i) {
    const std::uint64_t s = first + i;
    const std::size_t at = i * chunk,
                      len = std::min(chunk, data.size() - std::min(at, data.size()));
    co_await x.until([&] { return a.writable(s); });
    if (x.rank() == root) {
      if (i == 0) a.announce(first, data.size());
      if (len != 0) std::memcpy(a.operand(root, s), data.data() + at, len);
      a.post(s);
    } else {
      co_await x.until([&] { return a.posted(root, s); });
      if (i == 0 && !a.agrees(root, first, data.size())) [[unlikely]] {
        const std::size_t theirs = a.announced(root, first);
        x.note_mismatch(root, data.size(), theirs);
        a.abandon(first + std::max(rounds, rounds_for(theirs, chunk)) - 1);
        co_return;
      }
      if (len != 0) std::memcpy(data.data() + at, a.operand(root, s), len);
    }
    a.release(s);
  }
}

task reduce_shared(exchange x, const_bytes in, bytes out, reduction op, int root) {
  shared_area a(x);
  const int n = x.size(), me = x.rank();
  const bool wanted = root < 0 || me == root;  // root < 0: every rank wants the result
  const std::size_t per_round = a.chunk_elements(op.element) * op.element;
  // At least one round, whose first carries this rank's size (see broadcast_shared).
  const std::uint64_t rounds = std::max<std::uint64_t>(rounds_for(in.size(), per_round), 1);
  // Whole rounds are folded by every rank that wants the result and need an operand buffer;
  // sliced ones a result buffer too. Lockstep: a rooted reduce's non-roots could post several
  // whole rounds ahead, but 2- and 4-rank reductions of 1 KiB were no faster so (2026-11-23).
  const std::size_t round_bytes = std::min(per_round, in.size());
  const bool whole =
      n == 1 || in.size() <= whole_max ||
      (root >= 0 && static_cast<std::size_t>(n - 1) * round_bytes <= rooted_whole_max);
  // In a whole round a reduce's root, the only reader, folds its own operand straight from `in`,
  // unless in place (`in` is `out`, which the fold overwrites first): then from its area too.
  const bool own_from_in = me == root && in.data() != out.data();
  const std::uint64_t first =
      a.claim(rounds, round_bytes, whole ? 1 : 2, shared_area::pace::lockstep);
  const bool streaming = in.size() >= stream_min;
  for (std::uint64_t i = 0; i < rounds; ++i) {
    const std::uint64_t s = first + i;
    const std::size_t at = i * per_round,
                      len = std::min(per_round, in.size() - std::min(at, in.size()));
    co_await x.until([&] { return a.writable(s); });
    if (i == 0) a.announce(first, in.size());
    // Whoever reads the others' operands first compares their sizes with its own.
    auto disagree = [&]() -> bool {
      const int r = a.disagreeing(first, in.size(), [](int) { return true; });
      if (r < 0) [[likely]]
        return false;
      x.note_mismatch(r, in.size(), a.announced(r, first));
      std::uint64_t most = rounds;
      for (int m = 0; m < n; ++m) {
        most = std::max<std::uint64_t>(most, rounds_for(a.announced(m, first), per_round));
      }
      a.abandon(first + most - 1);
      return true;
    };
    if (whole || len <= whole_max) {
      // Every reader folds the whole round from the areas (the root its own operand from `in`).
      if (!own_from_in && len != 0) std::memcpy(a.operand(me, s), in.data() + at, len);
      a.post(s);
      if (wanted) {
        co_await x.until([&] { return a.all_posted(s); });
        if (i == 0 && disagree()) co_return;
        fold_operands(a, n, s, op, 0, len, own_from_in ? me : -1, in.data() + at, out.data() + at);
      }
    } else {
      // Rank r folds slice r. The others read their slices of this rank's operand from its area;
      // its own slice it folds straight from `in`, so that part never goes through the area.
      const even_blocks slices(len / op.element, op.element, n);
      const std::size_t lo = slices.at(me), hi = slices.at(me + 1);
      const std::byte* const mine = in.data() + at;
      std::memcpy(a.operand(me, s), mine, lo);
      std::memcpy(a.operand(me, s) + hi, mine + hi, len - hi);
      a.post(s);
      co_await x.until([&] { return a.all_posted(s); });
      if (i == 0 && disagree()) co_return;
      // Into the area, not `out`: in place, `out` is `in`, which the fold still reads.
      fold_operands(a, n, s, op, lo, hi - lo, me, mine + lo, a.result(me, s) + lo);
      a.reduced(s);
      if (wanted) {
        // This rank's slice is still in its cache: copy it out while the others finish theirs.
        copy_out(streaming, out.data() + at + lo, a.result(me, s) + lo, hi - lo);
        co_await x.until([&] { return a.all_reduced(s); });
        for (int r = 0; r < n; ++r) {
          if (r == me) continue;
          copy_out(streaming, out.data() + at + slices.at(r), a.result(r, s) + slices.at(r),
                   slices.sum(r, r + 1));
        }
      }
    }
    a.release(s);
  }
}

task allreduce_shared(exchange x, const_bytes in, bytes out, reduction op) {
  return reduce_shared(x, in, out, std::move(op), -1);
}

}  // namespace rmpl::coll
