// Scatter: the binomial tree (the root sends each half of the remaining blocks down in one message)
// and the linear form (the root sends each block straight from place).
#include <algorithm>
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/scratch.hpp"

namespace rmpl::coll {

task scatter_binomial(exchange x, const_bytes in, bytes out, int root) {
  const int n = x.size();
  const int rel = (x.rank() - root + n) % n;
  const std::size_t block = out.size();
  const int span = subtree_span(rel, n);
  // This rank's subtree's blocks, in relative order.
  scratch blocks(static_cast<std::size_t>(span) * block);
  if (rel == 0) {
    for (int r = 0; r < n; ++r) {
      copy_bytes(bytes(blocks).subspan(static_cast<std::size_t>(r) * block, block),
                 in.subspan(static_cast<std::size_t>((r + root) % n) * block, block));
    }
  } else {
    const int parent = rel - (rel & -rel);
    x.recv(blocks, (parent + root) % n);
    co_await x.all();
  }
  for (int mask = 1; mask < span; mask *= 2) {
    const int child = rel + mask;
    if (child >= n) break;
    const int child_span = std::min(mask, n - child);
    x.send(const_bytes(blocks).subspan(static_cast<std::size_t>(mask) * block,
                                       static_cast<std::size_t>(child_span) * block),
           (child + root) % n);
  }
  copy_bytes(out, const_bytes(blocks).first(block));
  co_await x.all();
}

task scatterv_linear(exchange x, const_bytes in, layout blocks, bytes out, int root) {
  const int n = x.size();
  if (x.rank() != root) {
    x.recv(out, root);
    co_await x.all();
    co_return;
  }
  for (int r = 0; r < n; ++r) {
    const_bytes piece = in.subspan(blocks.displ(r), blocks.count(r));
    if (r == root) {
      copy_bytes(out, piece);
    } else {
      x.send(piece, r);
    }
  }
  co_await x.all();
}

}  // namespace rmpl::coll
