// Passes a value around the ring through the installed C++ API.
#include <rmpl/rmpl.hpp>

#include <cstdio>

int main() {
  rmpl::session session;
  auto world = session.world();
  const int next = (world.rank() + 1) % world.size();
  const int prev = (world.rank() + world.size() - 1) % world.size();
  int unused = 0;
  auto incoming = world.irecv(std::span(&unused, 1), prev, 1);  // never matched: cancelled below
  world.send_value(world.rank(), next, 2);
  const int got = world.recv_value<int>(prev, 2);
  incoming.cancel();
  incoming.wait();
  if (got != prev) {
    std::fprintf(stderr, "rank %d got %d from rank %d\n", world.rank(), got, prev);
    return 1;
  }
  return 0;
}
