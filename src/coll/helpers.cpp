// The small helpers every algorithm shares (algorithms.hpp).
#include <cstring>

#include "coll/algorithms.hpp"
#include "coll/combine.hpp"

namespace rmpl::coll {

layout layout::uniform(int n, std::size_t block) {
  layout l;
  l.counts.assign(static_cast<std::size_t>(n), block);
  l.displs.resize(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r)
    l.displs[static_cast<std::size_t>(r)] = static_cast<std::size_t>(r) * block;
  return l;
}

task pair_up(exchange x, int rem, bytes acc, bytes incoming, reduction op) {
  const int rank = x.rank();
  if (rank >= 2 * rem) co_return;
  if (rank % 2 == 0) {
    x.send(acc, rank + 1);
  } else {
    x.recv(incoming, rank - 1);
  }
  co_await x.all();
  if (rank % 2 == 1) reduce_into(op, incoming, acc);
}

task hand_back(exchange x, int rem, bytes result) {
  const int rank = x.rank();
  if (rank >= 2 * rem) co_return;
  if (rank % 2 == 1) {
    x.send(result, rank - 1);
  } else {
    x.recv(result, rank + 1);
  }
  co_await x.all();
}

even_blocks::even_blocks(std::size_t count, std::size_t element, int parts)
    : bounds_(static_cast<std::size_t>(parts) + 1, 0) {
  const auto n = static_cast<std::size_t>(parts);
  for (std::size_t i = 0; i < n; ++i) {
    bounds_[i + 1] = bounds_[i] + (count / n + (i < count % n ? 1 : 0)) * element;
  }
}

void reduce_into(const reduction& op, const_bytes in, bytes inout) {
  if (inout.empty()) return;
  combine(op, in.data(), inout.data(), inout.size() / op.element);
}

void reduce_after(const reduction& op, bytes inout, const_bytes in, bytes scratch) {
  if (inout.empty()) return;
  if (op.commutative) {
    combine(op, in.data(), inout.data(), inout.size() / op.element);
    return;
  }
  std::memcpy(scratch.data(), in.data(), in.size());
  combine(op, inout.data(), scratch.data(), inout.size() / op.element);
  std::memcpy(inout.data(), scratch.data(), inout.size());
}

void copy_bytes(bytes to, const_bytes from) noexcept {
  if (!from.empty() && to.data() != from.data()) std::memcpy(to.data(), from.data(), from.size());
}

}  // namespace rmpl::coll
