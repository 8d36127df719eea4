// Broadcast: the seeds' hypercube (binomial tree) for short messages; for long ones van de Geijn's
// scatter + allgather, where the root sends each byte once and every rank forwards only its share.
#include <algorithm>

#include "coll/algorithms.hpp"

namespace rmpl::coll {

task broadcast_binomial(exchange x, bytes data, int root) {
  const int n = x.size();
  const int rel = (x.rank() - root + n) % n;
  int mask = 1;
  while (mask < n) {
    if (rel & mask) {
      x.recv(data, (rel - mask + root) % n);
      co_await x.all();
      break;
    }
    mask *= 2;
  }
  for (mask /= 2; mask > 0; mask /= 2) {
    if (rel + mask < n) x.send(data, (rel + mask + root) % n);
  }
  co_await x.all();
}

namespace {

/// Chunks [first, last) of `data` cut in chunks of `chunk` bytes (the last ones may be short or
/// empty).
bytes chunk_range(bytes data, std::size_t chunk, int first, int last) {
  const std::size_t begin = std::min(data.size(), static_cast<std::size_t>(first) * chunk);
  const std::size_t end = std::min(data.size(), static_cast<std::size_t>(last) * chunk);
  return data.subspan(begin, end - begin);
}

}  // namespace

task broadcast_scatter_allgather(exchange x, bytes data, int root) {
  const int n = x.size();
  const int rel = (x.rank() - root + n) % n;
  const std::size_t chunk =
      (data.size() + static_cast<std::size_t>(n) - 1) / static_cast<std::size_t>(n);
  auto real = [&](int r) { return (r + root) % n; };

  // Binomial scatter: relative rank r ends up holding chunks [r, r + lowest set bit of r).
  int mask = 1;
  while (mask < n) {
    if (rel & mask) {
      x.recv(chunk_range(data, chunk, rel, std::min(n, rel + mask)), real(rel - mask));
      co_await x.all();
      break;
    }
    mask *= 2;
  }
  for (mask /= 2; mask > 0; mask /= 2) {
    const int child = rel + mask;
    if (child < n) x.send(chunk_range(data, chunk, child, std::min(n, child + mask)), real(child));
  }
  co_await x.all();

  // Ring allgather of the chunks: in step s, pass on the chunk received in step s - 1.
  const int right = real((rel + 1) % n), left = real((rel - 1 + n) % n);
  for (int step = 0; step < n - 1; ++step) {
    const int send_chunk = (rel - step + n) % n;
    const int recv_chunk = (rel - step - 1 + n) % n;
    x.send(chunk_range(data, chunk, send_chunk, send_chunk + 1), right);
    x.recv(chunk_range(data, chunk, recv_chunk, recv_chunk + 1), left);
    co_await x.all();
  }
}

}  // namespace rmpl::coll
