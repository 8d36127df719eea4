// Inclusive and exclusive prefix reductions. Recursive doubling: in round k each rank swaps its
// running total of a block of 2^k ranks with rank ^ 2^k and folds in what came from below; any
// size of communicator, any operator. The linear chain (rank r waits for r - 1) is the reference.
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/scratch.hpp"

namespace rmpl::coll {

task scan_recursive_doubling(exchange x, const_bytes in, bytes out, reduction op, bool exclusive) {
  const int n = x.size(), rank = x.rank();
  // partial: the reduction of this rank's block so far (what the partner needs).
  scratch partial = scratch::copy_of(in), incoming(in.size()),
          spare(op.commutative ? 0 : in.size());
  // Rank 0's exclusive result is empty and its buffer may be too (nothing is written to it).
  bytes result = out.size() >= in.size() ? out.first(in.size()) : bytes{};
  if (!exclusive) copy_bytes(result, in);
  bool have_result = !exclusive;  // exscan: rank r's result starts empty

  for (int mask = 1; mask < n; mask *= 2) {
    const int partner = rank ^ mask;
    if (partner >= n) continue;
    x.send(partial, partner);
    x.recv(incoming, partner);
    co_await x.all();
    if (partner < rank) {
      // What came is from the ranks just below this rank's block: it goes first.
      reduce_into(op, incoming, partial);
      if (have_result) {
        reduce_into(op, incoming, result);
      } else {
        copy_bytes(result, incoming);
        have_result = true;
      }
    } else {
      reduce_after(op, partial, incoming, spare);
    }
  }
}

task scan_linear(exchange x, const_bytes in, bytes out, reduction op, bool exclusive) {
  const int n = x.size(), rank = x.rank();
  scratch total = scratch::copy_of(in), below(in.size());
  if (rank > 0) {
    x.recv(below, rank - 1);
    co_await x.all();
    reduce_into(op, below, total);
  }
  if (rank + 1 < n) {
    x.send(total, rank + 1);
    co_await x.all();
  }
  if (!exclusive) {
    copy_bytes(out, total);
  } else if (rank > 0) {
    copy_bytes(out, below);
  }
}

}  // namespace rmpl::coll
