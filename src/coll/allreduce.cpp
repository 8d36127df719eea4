// Allreduce: recursive doubling for short vectors (log n rounds, any operator); Rabenseifner's
// reduce-scatter by recursive halving + allgather by recursive doubling for long ones (any
// operator: the halving keeps rank order, see reduce.cpp); a ring
// (reduce-scatter then allgather around the ring) that keeps every rank busy with neighbour
// transfers only; and reduce + broadcast.
#include <algorithm>
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/scratch.hpp"

namespace rmpl::coll {

task allreduce_recursive_doubling(exchange x, const_bytes in, bytes out, reduction op) {
  const int n = x.size(), rank = x.rank();
  const int pof2 = floor_pow2(n), rem = n - pof2;
  copy_bytes(out, in);
  bytes acc = out.first(in.size());
  scratch incoming(in.size()), spare(op.commutative ? 0 : in.size());

  const int newrank = paired_rank(rank, rem);
  if (x.rank() < 2 * rem) co_await x.run(pair_up(x, rem, acc, incoming, op));
  if (newrank >= 0) {
    for (int mask = 1; mask < pof2; mask *= 2) {
      const int partner = unpaired_rank(newrank ^ mask, rem);
      x.send(acc, partner);
      x.recv(incoming, partner);
      co_await x.all();
      if (partner < rank) {
        reduce_into(op, incoming, acc);
      } else {
        reduce_after(op, acc, incoming, spare);
      }
    }
  }
  if (x.rank() < 2 * rem) co_await x.run(hand_back(x, rem, acc));
}

namespace {

/// Bytes per step of fold_exchange: small enough that a chunk just copied from the partner is
/// still in cache when it is combined.
constexpr std::size_t fold_chunk = std::size_t{256} << 10;

/// Sends `give` to `partner` while receiving the partner's operand for the range this rank keeps,
/// folding it with `mine` into `result`: result = partner's op mine when the partner's operand
/// covers the lower ranks (`partner_lower`), mine op partner's otherwise, so that a
/// non-commutative operator sees rank order. Chunk by chunk, so the data crosses memory once: the
/// partner's chunk is copied straight into `result` and combined with `mine` there when `mine` is
/// the left operand (or the operator commutes); otherwise it goes to a small scratch buffer, as
/// it does when `mine` is `result` itself. The partner runs the same with the roles of the ranges
/// swapped, so the chunks pair up one to one.
task fold_exchange(exchange x, int partner, bool partner_lower, const_bytes give, const_bytes mine,
                   bytes result, reduction op) {
  // Whole elements, at least one (an element larger than fold_chunk made this 0: an endless loop).
  const std::size_t chunk = std::max(op.element, fold_chunk - fold_chunk % op.element);
  const bool in_place = mine.data() == result.data();
  // Whether the partner's chunk lands in `result` and `mine` is combined into it from the left.
  const bool straight = !in_place && (!partner_lower || op.commutative);
  scratch incoming(straight ? 0 : std::min(chunk, result.size()));
  // The first chunk goes both ways even when empty: the partner then waits for the same number of
  // messages whatever its count (an empty range here may be a non-empty one there when the ranks'
  // counts disagree), and sees the sizes differ instead of waiting.
  for (std::size_t at = 0; at == 0 || at < give.size() || at < result.size(); at += chunk) {
    if (at == 0 || at < give.size())
      x.send(give.subspan(at, std::min(chunk, give.size() - at)), partner);
    if (at != 0 && at >= result.size()) {
      co_await x.all();
      continue;
    }
    bytes part = result.subspan(at, std::min(chunk, result.size() - at));
    const_bytes own = mine.subspan(at, part.size());
    bytes target = straight ? part : bytes(incoming).first(part.size());
    x.recv(target, partner);
    // A non-commutative operator with the partner first wants mine as the right operand, which
    // combine() reads from (and writes to) `result`: put it there.
    if (!straight && !in_place) copy_bytes(part, own);
    co_await x.all();
    if (straight) {
      reduce_into(op, own, part);  // mine op partner's
    } else if (partner_lower || op.commutative) {
      reduce_into(op, target, part);  // partner's op mine
    } else {
      // In place with the partner's operand second: combine into the scratch chunk, copy back.
      reduce_into(op, part, target);
      copy_bytes(part, target);
    }
  }
}

}  // namespace

task allreduce_rabenseifner(exchange x, const_bytes in, bytes out, reduction op) {
  const int n = x.size(), rank = x.rank();
  const int pof2 = floor_pow2(n), rem = n - pof2;
  const std::size_t count = in.size() / op.element;
  bytes acc = out.first(in.size());
  // This rank's operand: its input until the first fold leaves it in `out`. Reading the input
  // in place saves copying it to `out` first.
  const_bytes mine = in;

  // The even rank of each of the first rem pairs folds into the odd one (even's op odd's), so
  // new rank i covers a contiguous range of ranks, below new rank i + 1's.
  if (rank < 2 * rem) {
    if (rank % 2 == 0) {
      co_await x.run(fold_exchange(x, rank + 1, false, in, {}, {}, op));
    } else {
      co_await x.run(fold_exchange(x, rank - 1, true, {}, in, acc, op));
      mine = acc;
    }
  }
  const int newrank = paired_rank(rank, rem);
  if (newrank >= 0) {
    const even_blocks blocks(count, op.element, pof2);
    auto range = [&](auto b, int first, int last) { return blocks.range(b, first, last); };
    // Reduce-scatter by recursive halving (binary swap), partners at distance mask = 1, 2, 4...:
    // before the step this rank's partial for [first, last), like its partner's, covers the new
    // ranks of its aligned group of `mask`, the two groups adjacent; the fold keeps rank order.
    // The lower rank keeps the lower half, so new rank r ends with block bit-reverse(r).
    int first = 0, last = pof2;
    for (int mask = 1; mask < pof2; mask *= 2) {
      const int partner_new = newrank ^ mask;
      const int partner = unpaired_rank(partner_new, rem);
      const int middle = first + (last - first) / 2;
      const bool keep_lower = newrank < partner_new;
      const int keep_first = keep_lower ? first : middle, keep_last = keep_lower ? middle : last;
      const int give_first = keep_lower ? middle : first, give_last = keep_lower ? last : middle;
      co_await x.run(fold_exchange(x, partner, !keep_lower, range(mine, give_first, give_last),
                                   range(mine, keep_first, keep_last),
                                   range(acc, keep_first, keep_last), op));
      mine = acc;
      first = keep_first;
      last = keep_last;
    }
    // Allgather by recursive doubling, retracing the halving (the widest distance first).
    if (pof2 == 1) copy_bytes(acc, mine);
    for (int mask = pof2 / 2; mask > 0; mask /= 2) {
      const int partner_new = newrank ^ mask;
      const int partner = unpaired_rank(partner_new, rem);
      const int width = last - first;
      const bool lower = newrank < partner_new;
      const int other_first = lower ? last : first - width;
      x.send(range(acc, first, last), partner);
      x.recv(range(acc, other_first, other_first + width), partner);
      co_await x.all();
      first = std::min(first, other_first);
      last = first + 2 * width;
    }
  }
  if (x.rank() < 2 * rem) co_await x.run(hand_back(x, rem, acc));
}

task allreduce_ring(exchange x, const_bytes in, bytes out, reduction op) {
  const int n = x.size(), rank = x.rank();
  const std::size_t count = in.size() / op.element;
  copy_bytes(out, in);
  bytes acc = out.first(in.size());
  const even_blocks blocks(count, op.element, n);
  auto chunk = [&](bytes b, int i) {
    i = (i % n + n) % n;
    return blocks.range(b, i, i + 1);
  };
  scratch incoming(blocks.sum(0, 1));  // chunk 0 is the largest
  const int right = (rank + 1) % n, left = (rank - 1 + n) % n;
  // Reduce-scatter: after n - 1 steps this rank holds the whole reduction of chunk rank + 1.
  for (int step = 0; step < n - 1; ++step) {
    bytes target = chunk(acc, rank - step - 1);
    x.send(chunk(acc, rank - step), right);
    x.recv(bytes(incoming).first(target.size()), left);
    co_await x.all();
    reduce_into(op, bytes(incoming).first(target.size()), target);
  }
  // Allgather: pass the finished chunks around.
  for (int step = 0; step < n - 1; ++step) {
    x.send(chunk(acc, rank + 1 - step), right);
    x.recv(chunk(acc, rank - step), left);
    co_await x.all();
  }
}

task allreduce_reduce_broadcast(exchange x, const_bytes in, bytes out, reduction op) {
  // Both halves run under this collective's tag: the reduce's messages are all sent (and taken)
  // before any of the broadcast's, and messages between two ranks match in the order sent.
  copy_bytes(out, in);
  bytes result = out.first(in.size());
  co_await x.run(reduce_binomial(x, result, result, op, 0));
  co_await x.run(broadcast_binomial(x, result, 0));
}

}  // namespace rmpl::coll
