// Allgather: the ring (n - 1 neighbour steps, each block moves once per step: best for long
// blocks), recursive doubling (log n steps, power-of-two sizes) and Bruck's algorithm (log n steps
// for any size, then one local rotation), for short blocks.
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/scratch.hpp"

namespace rmpl::coll {

task allgather_ring(exchange x, const_bytes in, bytes out, layout blocks) {
  const int n = x.size(), rank = x.rank();
  auto block = [&](int r) {
    r = (r % n + n) % n;
    return out.subspan(blocks.displ(r), blocks.count(r));
  };
  copy_bytes(block(rank), in.first(blocks.count(rank)));
  const int right = (rank + 1) % n, left = (rank - 1 + n) % n;
  for (int step = 0; step < n - 1; ++step) {
    x.send(block(rank - step), right);
    x.recv(block(rank - step - 1), left);
    co_await x.all();
  }
}

task allgather_recursive_doubling(exchange x, const_bytes in, bytes out) {
  const int n = x.size(), rank = x.rank();
  const std::size_t block = in.size();
  copy_bytes(out.subspan(static_cast<std::size_t>(rank) * block, block), in);
  // After the step with `mask`, this rank holds the 2*mask blocks of its aligned group.
  for (int mask = 1; mask < n; mask *= 2) {
    const int partner = rank ^ mask;
    const int mine = rank & ~(mask - 1), theirs = partner & ~(mask - 1);
    const std::size_t len = static_cast<std::size_t>(mask) * block;
    x.send(out.subspan(static_cast<std::size_t>(mine) * block, len), partner);
    x.recv(out.subspan(static_cast<std::size_t>(theirs) * block, len), partner);
    co_await x.all();
  }
}

task allgather_bruck(exchange x, const_bytes in, bytes out) {
  const int n = x.size(), rank = x.rank();
  const std::size_t block = in.size();
  // Gathered blocks in the order rank, rank + 1, ..., rank - 1.
  scratch gathered(static_cast<std::size_t>(n) * block);
  copy_bytes(bytes(gathered).first(block), in);
  for (int have = 1; have < n; have *= 2) {
    const int count = std::min(have, n - have);
    const std::size_t len = static_cast<std::size_t>(count) * block;
    x.send(const_bytes(gathered).first(len), (rank - have + n) % n);
    x.recv(bytes(gathered).subspan(static_cast<std::size_t>(have) * block, len), (rank + have) % n);
    co_await x.all();
  }
  for (int j = 0; j < n; ++j) {
    copy_bytes(out.subspan(static_cast<std::size_t>((rank + j) % n) * block, block),
               const_bytes(gathered).subspan(static_cast<std::size_t>(j) * block, block));
  }
}

}  // namespace rmpl::coll
