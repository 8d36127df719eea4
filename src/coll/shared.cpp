// The shared-memory algorithms (shared_area.hpp): barrier, broadcast, reduce and allreduce through
// the members' areas in the job segment. Every operand crosses memory once into its owner's area;
// readers take it from there in place. Long vectors go through in rounds of one area chunk, two
// rounds in flight (the areas' two buffers).
#include <algorithm>
#include <cstring>

#include "coll/algorithms.hpp"
#include "coll/shared_area.hpp"

namespace rmpl::coll {
namespace {

/// Operands up to this many bytes are reduced whole by every rank that needs the result (one wait
/// per round); longer ones are cut into one slice per rank, each reduced once and then copied by
/// all (a second wait, but the work is shared instead of repeated).
constexpr std::size_t whole_max = 8u << 10;

std::uint64_t rounds_for(std::size_t bytes, std::size_t per_round) noexcept {
  return (bytes + per_round - 1) / per_round;
}

/// dest = operand_0 op operand_1 op ... op operand_{n-1} over bytes [at, at + len) of round s's
/// operands: folded from the last rank down, so a non-commutative operator sees rank order.
void fold_operands(const shared_area& a, int n, std::uint64_t s, const reduction& op,
                   std::size_t at, std::size_t len, std::byte* dest) {
  std::memcpy(dest, a.operand(n - 1, s) + at, len);
  for (int r = n - 2; r >= 0; --r) {
    reduce_into(op, const_bytes(a.operand(r, s) + at, len), bytes(dest, len));
  }
}

}  // namespace

task barrier_shared(exchange x) {
  shared_area a(x);
  const std::uint64_t s = a.claim(1);
  co_await x.until([&] { return a.writable(s); });
  a.post(s);
  co_await x.until([&] { return a.all_posted(s); });
  a.release(s);
}

task broadcast_shared(exchange x, bytes data, int root) {
  shared_area a(x);
  const std::size_t chunk = a.chunk();
  const std::uint64_t rounds = rounds_for(data.size(), chunk);
  const std::uint64_t first = a.claim(rounds);
  for (std::uint64_t i = 0; i < rounds; ++i) {
    const std::uint64_t s = first + i;
    const std::size_t at = i * chunk, len = std::min(chunk, data.size() - at);
    co_await x.until([&] { return a.writable(s); });
    if (x.rank() == root) {
      std::memcpy(a.operand(root, s), data.data() + at, len);
      a.post(s);
    } else {
      co_await x.until([&] { return a.posted(root, s); });
      std::memcpy(data.data() + at, a.operand(root, s), len);
    }
    a.release(s);
  }
}

task reduce_shared(exchange x, const_bytes in, bytes out, reduction op, int root) {
  shared_area a(x);
  const int n = x.size(), me = x.rank();
  const bool wanted = root < 0 || me == root;  // root < 0: every rank wants the result
  const std::size_t per_round = a.chunk_elements(op.element) * op.element;
  const std::uint64_t rounds = rounds_for(in.size(), per_round);
  const std::uint64_t first = a.claim(rounds);
  for (std::uint64_t i = 0; i < rounds; ++i) {
    const std::uint64_t s = first + i;
    const std::size_t at = i * per_round, len = std::min(per_round, in.size() - at);
    co_await x.until([&] { return a.writable(s); });
    // `in` may be `out` (in place): this rank's operand is read from its area from here on.
    std::memcpy(a.operand(me, s), in.data() + at, len);
    a.post(s);
    if (len <= whole_max || n == 1) {
      if (wanted) {
        co_await x.until([&] { return a.all_posted(s); });
        fold_operands(a, n, s, op, 0, len, out.data() + at);
      }
    } else {
      const even_blocks slices(len / op.element, op.element, n);
      co_await x.until([&] { return a.all_posted(s); });
      fold_operands(a, n, s, op, slices.at(me), slices.sum(me, me + 1),
                    a.result(me, s) + slices.at(me));
      a.reduced(s);
      if (wanted) {
        co_await x.until([&] { return a.all_reduced(s); });
        for (int r = 0; r < n; ++r) {
          std::memcpy(out.data() + at + slices.at(r), a.result(r, s) + slices.at(r),
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
