// Run with one RMPL_* variable set to a bad value: the session must fail to start, with an error
// that names the variable, its value and what it accepts, rather than start and fail at the first
// collective (under that collective's name) or never, when the program runs none. The program
// says where it failed ("at start" or "later"); tests/CMakeLists.txt checks the exit status and
// that the failure came at start.
#include <rmpl/rmpl.hpp>

#include <cstdio>
#include <vector>

int main() {
  try {
    rmpl::session session;
    auto world = session.world();
    // Point-to-point only, then one collective: a bad RMPL_COLL_<NAME> used to pass unnoticed
    // until then.
    std::vector<int> v{world.rank()};
    const int next = (world.rank() + 1) % world.size();
    const int prev = (world.rank() + world.size() - 1) % world.size();
    auto r = world.irecv(v, prev, 1);
    world.send(std::vector<int>{world.rank()}, next, 1);
    r.wait();
    std::printf("rank %d: started with a bad variable\n", world.rank());
    try {
      world.allreduce(v, rmpl::ops::sum{});
      world.barrier();
    } catch (const rmpl::error& e) {
      std::fprintf(stderr, "failed later: %s\n", e.what());
      return 2;
    }
    return 0;
  } catch (const rmpl::error& e) {
    std::fprintf(stderr, "failed at start: %s\n", e.what());
    return 1;
  }
}
