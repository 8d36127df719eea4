// All-to-all: linear (every send and receive posted at once: the kernel's flow control and single
// copy do the scheduling), pairwise exchange (n - 1 steps, one partner at a time: bounded memory
// and no contention for long blocks), and Bruck's algorithm (log n steps of packed blocks: fewest
// messages for short blocks).
#include <vector>

#include "coll/algorithms.hpp"
#include "coll/scratch.hpp"

namespace rmpl::coll {

task alltoall_linear(exchange x, const_bytes in, layout send, bytes out, layout recv) {
  const int n = x.size(), rank = x.rank();
  // Post in the order of the pairwise schedule, so early messages meet their receives early.
  for (int step = 1; step < n; ++step) {
    const int from = (rank - step + n) % n;
    x.recv(out.subspan(recv.displ(from), recv.count(from)), from);
  }
  for (int step = 1; step < n; ++step) {
    const int to = (rank + step) % n;
    x.send(in.subspan(send.displ(to), send.count(to)), to);
  }
  copy_bytes(out.subspan(recv.displ(rank), recv.count(rank)),
             in.subspan(send.displ(rank), send.count(rank)));
  co_await x.all();
}

task alltoall_pairwise(exchange x, const_bytes in, layout send, bytes out, layout recv) {
  const int n = x.size(), rank = x.rank();
  copy_bytes(out.subspan(recv.displ(rank), recv.count(rank)),
             in.subspan(send.displ(rank), send.count(rank)));
  for (int step = 1; step < n; ++step) {
    const int to = (rank + step) % n, from = (rank - step + n) % n;
    x.send(in.subspan(send.displ(to), send.count(to)), to);
    x.recv(out.subspan(recv.displ(from), recv.count(from)), from);
    co_await x.all();
  }
}

task alltoall_bruck(exchange x, const_bytes in, bytes out) {
  const int n = x.size(), rank = x.rank();
  const std::size_t block = in.size() / static_cast<std::size_t>(n);
  auto at = [block](int j) { return static_cast<std::size_t>(j) * block; };
  // Slot j holds the block that must travel j ranks up.
  scratch slots(in.size()), packed, unpacked;
  for (int j = 0; j < n; ++j) {
    copy_bytes(bytes(slots).subspan(at(j), block), in.subspan(at((rank + j) % n), block));
  }
  for (int hop = 1; hop < n; hop *= 2) {
    // Every slot whose distance has this bit moves `hop` ranks up, packed in one message.
    std::size_t len = 0;
    for (int j = 1; j < n; ++j) len += (j & hop) ? block : 0;
    packed = scratch(len);
    unpacked = scratch(len);
    std::size_t pos = 0;
    for (int j = 1; j < n; ++j) {
      if (!(j & hop)) continue;
      copy_bytes(bytes(packed).subspan(pos, block), bytes(slots).subspan(at(j), block));
      pos += block;
    }
    x.send(packed, (rank + hop) % n);
    x.recv(unpacked, (rank - hop + n) % n);
    co_await x.all();
    pos = 0;
    for (int j = 1; j < n; ++j) {
      if (!(j & hop)) continue;
      copy_bytes(bytes(slots).subspan(at(j), block), bytes(unpacked).subspan(pos, block));
      pos += block;
    }
  }
  // Slot j now holds the block rank - j sent here.
  for (int j = 0; j < n; ++j) {
    copy_bytes(out.subspan(at((rank - j + n) % n), block), bytes(slots).subspan(at(j), block));
  }
}

}  // namespace rmpl::coll
