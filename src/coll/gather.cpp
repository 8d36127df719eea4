// Gather: a binomial tree for small blocks (each rank forwards its subtree's blocks in one
// message, log n steps at the root) and the linear form, where the root receives each block
// straight into place (with single copy, long blocks move once).
#include <algorithm>
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/scratch.hpp"

namespace rmpl::coll {

task gather_binomial(exchange x, const_bytes in, bytes out, int root) {
  const int n = x.size();
  const int rel = (x.rank() - root + n) % n;
  const std::size_t block = in.size();
  // This rank's subtree: relative ranks [rel, rel + span).
  const int span = subtree_span(rel, n);
  scratch blocks(static_cast<std::size_t>(span) * block);
  copy_bytes(bytes(blocks).first(block), in);
  for (int mask = 1; mask < span; mask *= 2) {
    const int child = rel + mask;
    if (child >= n) break;
    const int child_span = std::min(mask, n - child);
    x.recv(bytes(blocks).subspan(static_cast<std::size_t>(mask) * block,
                                 static_cast<std::size_t>(child_span) * block),
           (child + root) % n);
  }
  co_await x.all();
  if (rel != 0) {
    const int parent = rel - (rel & -rel);
    x.send(blocks, (parent + root) % n);
    co_await x.all();
    co_return;
  }
  // The root's blocks are in relative order: rotate them into rank order.
  for (int r = 0; r < n; ++r) {
    const int real = (r + root) % n;
    copy_bytes(out.subspan(static_cast<std::size_t>(real) * block, block),
               const_bytes(blocks).subspan(static_cast<std::size_t>(r) * block, block));
  }
}

task gatherv_linear(exchange x, const_bytes in, bytes out, layout blocks, int root) {
  const int n = x.size();
  if (x.rank() != root) {
    x.send(in, root);
    co_await x.all();
    co_return;
  }
  for (int r = 0; r < n; ++r) {
    bytes place = out.subspan(blocks.displ(r), blocks.count(r));
    if (r == root) {
      copy_bytes(place, in.first(blocks.count(r)));
    } else {
      x.recv(place, r);
    }
  }
  co_await x.all();
}

}  // namespace rmpl::coll
