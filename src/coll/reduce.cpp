// Reduce: a binomial tree (the seeds' hypercube reduce), which also serves non-commutative
// operators by reducing towards rank 0 in rank order; and Rabenseifner's reduce-scatter by
// recursive halving followed by a binomial gather (ACLMPL's binary swap, which the seed built for
// compositing images with the non-commutative "over"), which moves each byte O(1) times instead of
// O(log n) for long vectors, of any operator: partners at distance 1, 2, 4... combine aligned,
// adjacent ranges of ranks, the lower range first.
#include <algorithm>
#include <utility>
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/scratch.hpp"

namespace rmpl::coll {

task reduce_binomial(exchange x, const_bytes in, bytes out, reduction op, int root) {
  const int n = x.size();
  // Non-commutative: every partial result must cover a contiguous range of ranks, lowest first,
  // which the tree gives when rooted at rank 0; rank 0 then hands the result to the root.
  const int tree_root = op.commutative ? root : 0;
  const int rel = (x.rank() - tree_root + n) % n;
  scratch acc = scratch::copy_of(in), incoming(in.size()), spare(op.commutative ? 0 : in.size());

  for (int mask = 1; mask < n; mask *= 2) {
    if (rel & mask) {
      x.send(acc, (rel - mask + tree_root) % n);
      co_await x.all();
      break;
    }
    const int child = rel | mask;
    if (child < n) {
      x.recv(incoming, (child + tree_root) % n);
      co_await x.all();
      // acc covers ranks [rel, rel + mask), the child's partial the ones just above.
      reduce_after(op, acc, incoming, spare);
    }
  }
  if (x.rank() == tree_root && tree_root != root) {
    x.send(acc, root);
    co_await x.all();
  } else if (x.rank() == root && tree_root != root) {
    x.recv(out.first(in.size()), tree_root);
    co_await x.all();
  }
  if (x.rank() == root && tree_root == root) copy_bytes(out, acc);
}

task reduce_rabenseifner(exchange x, const_bytes in, bytes out, reduction op, int root) {
  const int n = x.size(), rank = x.rank();
  const int pof2 = floor_pow2(n), rem = n - pof2;
  const std::size_t count = in.size() / op.element;
  scratch first_buffer = scratch::copy_of(in), second_buffer(in.size());
  // acc holds this rank's partial for the blocks it answers for; incoming takes the partner's.
  // They swap roles whenever the result of a step is left in incoming.
  bytes acc = first_buffer, incoming = second_buffer;

  // The even rank of each of the first rem pairs folds into the odd one (acc = even's op odd's),
  // so new rank i covers a contiguous range of ranks, below new rank i + 1's.
  if (x.rank() < 2 * rem) co_await x.run(pair_up(x, rem, acc, incoming, op));
  const int newrank = paired_rank(rank, rem);
  // The root's stand-in among the new ranks: itself, or the odd partner that holds its data.
  const int new_root = paired_rank(root < 2 * rem && root % 2 == 0 ? root + 1 : root, rem);

  if (newrank >= 0) {
    const even_blocks blocks(count, op.element, pof2);
    // Reduce-scatter by recursive halving, partners at distance mask = 1, 2, 4...: before the
    // step, this rank's partial (and its partner's, for the same blocks) covers the new ranks of
    // its aligned group of `mask`, the two groups adjacent. The lower rank keeps the lower half
    // of the blocks; each combines its partner's partial as op(lower group, upper group).
    int send_idx = 0, recv_idx = 0, last_idx = pof2;
    int mask = 1;
    for (; mask < pof2; mask *= 2) {
      const int partner = unpaired_rank(newrank ^ mask, rem);
      const bool lower = newrank < (newrank ^ mask);
      std::size_t send_bytes, recv_bytes;
      if (lower) {
        send_idx = recv_idx + pof2 / (mask * 2);
        send_bytes = blocks.sum(send_idx, last_idx);
        recv_bytes = blocks.sum(recv_idx, send_idx);
      } else {
        recv_idx = send_idx + pof2 / (mask * 2);
        send_bytes = blocks.sum(send_idx, recv_idx);
        recv_bytes = blocks.sum(recv_idx, last_idx);
      }
      x.send(const_bytes(acc).subspan(blocks.at(send_idx), send_bytes), partner);
      bytes theirs = incoming.subspan(blocks.at(recv_idx), recv_bytes);
      x.recv(theirs, partner);
      co_await x.all();
      bytes ours = acc.subspan(blocks.at(recv_idx), recv_bytes);
      if (lower) {
        // incoming = ours op theirs: the result stays in incoming, which becomes acc.
        reduce_into(op, ours, theirs);
        std::swap(acc, incoming);
      } else {
        reduce_into(op, theirs, ours);
      }
      send_idx = recv_idx;
      last_idx = recv_idx + pof2 / (mask * 2);
    }
    // Binomial gather of the pieces to new_root, retracing the halving in reverse.
    const int rel = newrank ^ new_root;  // xor keeps the pieces' ranges contiguous
    for (mask = pof2 / 2; mask > 0; mask /= 2) {
      // Before this step this rank holds [recv_idx, last_idx) (its index range just widened).
      const int partner_new = newrank ^ mask;
      const int partner = unpaired_rank(partner_new, rem);
      if ((rel & mask) != 0) {
        // Hand everything held so far to the partner, which is nearer the root, and stop.
        x.send(const_bytes(acc).subspan(blocks.at(recv_idx), blocks.sum(recv_idx, last_idx)),
               partner);
        co_await x.all();
        break;
      }
      // Receive the partner's range, adjacent to ours.
      if (newrank < partner_new) {
        const int other_last = last_idx + (last_idx - recv_idx);
        x.recv(bytes(acc).subspan(blocks.at(last_idx), blocks.sum(last_idx, other_last)), partner);
        co_await x.all();
        last_idx = other_last;
      } else {
        const int other_first = recv_idx - (last_idx - recv_idx);
        x.recv(bytes(acc).subspan(blocks.at(other_first), blocks.sum(other_first, recv_idx)),
               partner);
        co_await x.all();
        recv_idx = other_first;
      }
    }
  }
  // The stand-in passes the whole result to a root that sat out.
  const int holder = unpaired_rank(new_root, rem);
  if (holder != root) {
    if (rank == holder) x.send(acc, root);
    if (rank == root) x.recv(out.first(in.size()), holder);
    co_await x.all();
  } else if (rank == root) {
    copy_bytes(out, acc);
  }
}

}  // namespace rmpl::coll
