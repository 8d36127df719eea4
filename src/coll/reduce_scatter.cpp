// Reduce-scatter: recursive halving (each rank keeps halving the range it is responsible for and
// reduces only that: log n steps moving n - 1 blocks in all), pairwise exchange (n - 1 steps, each
// rank sends every other rank its block), both for commutative operators; and reduce to rank 0 +
// scatterv, which serves any operator.
#include <numeric>
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/scratch.hpp"

namespace rmpl::coll {

task reduce_scatter_recursive_halving(exchange x, const_bytes in, bytes out, layout recv,
                                      reduction op) {
  const int n = x.size(), rank = x.rank();
  const int pof2 = floor_pow2(n), rem = n - pof2;
  scratch acc = scratch::copy_of(in), incoming(in.size());

  if (x.rank() < 2 * rem) co_await x.run(pair_up(x, rem, acc, incoming, op));
  const int newrank = paired_rank(rank, rem);
  if (newrank >= 0) {
    // New rank i answers for the blocks of the real ranks it stands for: [start[i], start[i+1]).
    std::vector<std::size_t> start(static_cast<std::size_t>(pof2) + 1, 0);
    for (int i = 0; i < pof2; ++i) {
      const int last_real = unpaired_rank(i, rem);
      start[static_cast<std::size_t>(i) + 1] = recv.displ(last_real) + recv.count(last_real);
    }
    auto range = [&](bytes b, int first, int last) {
      return b.subspan(
          start[static_cast<std::size_t>(first)],
          start[static_cast<std::size_t>(last)] - start[static_cast<std::size_t>(first)]);
    };
    int first = 0, last = pof2;
    for (int mask = pof2 / 2; mask > 0; mask /= 2) {
      const int partner_new = newrank ^ mask;
      const int middle = first + (last - first) / 2;
      const bool keep_lower = newrank < partner_new;
      const int keep_first = keep_lower ? first : middle, keep_last = keep_lower ? middle : last;
      const int give_first = keep_lower ? middle : first, give_last = keep_lower ? last : middle;
      const int partner = unpaired_rank(partner_new, rem);
      x.send(range(acc, give_first, give_last), partner);
      x.recv(range(incoming, keep_first, keep_last), partner);
      co_await x.all();
      reduce_into(op, range(incoming, keep_first, keep_last), range(acc, keep_first, keep_last));
      first = keep_first;
      last = keep_last;
    }
  }
  // An odd rank of a pair holds its even partner's block too.
  auto mine = [&](int r) { return bytes(acc).subspan(recv.displ(r), recv.count(r)); };
  if (rank < 2 * rem) {
    if (rank % 2 == 1) {
      x.send(mine(rank - 1), rank - 1);
    } else {
      x.recv(mine(rank), rank + 1);
    }
    co_await x.all();
  }
  copy_bytes(out, mine(rank));
}

task reduce_scatter_pairwise(exchange x, const_bytes in, bytes out, layout recv, reduction op) {
  const int n = x.size(), rank = x.rank();
  bytes result = out.first(recv.count(rank));
  copy_bytes(result, in.subspan(recv.displ(rank), recv.count(rank)));
  scratch incoming(recv.count(rank));
  for (int step = 1; step < n; ++step) {
    const int to = (rank + step) % n, from = (rank - step + n) % n;
    x.send(in.subspan(recv.displ(to), recv.count(to)), to);
    x.recv(incoming, from);
    co_await x.all();
    reduce_into(op, incoming, result);
  }
}

task reduce_scatter_reduce_scatterv(exchange x, const_bytes in, bytes out, layout recv,
                                    reduction op) {
  scratch total(x.rank() == 0 ? in.size() : 0);
  co_await x.run(reduce_binomial(x, in, total, op, 0));
  co_await x.run(scatterv_linear(x, total, recv, out, 0));
}

}  // namespace rmpl::coll
