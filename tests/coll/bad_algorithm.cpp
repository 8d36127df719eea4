// Run with RMPL_COLL_ALLREDUCE set to a name that is no algorithm: the job must fail with an error
// that names the collective (or its variable) and the bad value, not run some default silently.
// Registered through tests/cmake/expect_failure.cmake, which checks the exit status and the output.
#include <rmpl/rmpl.hpp>

#include <cstdio>
#include <cstdlib>
#include <vector>

int main() {
  const char* choice = std::getenv("RMPL_COLL_ALLREDUCE");
  try {
    rmpl::session session;
    auto world = session.world();
    std::vector<int> data{1};
    world.allreduce(data, rmpl::ops::sum{});
    std::printf("allreduce ran (result %d) with RMPL_COLL_ALLREDUCE=%s\n", data[0],
                choice ? choice : "(unset)");
    return 0;
  } catch (const rmpl::error& e) {
    std::fprintf(stderr, "rmpl::error (%s): %s\n", rmpl::to_string(e.code()), e.what());
    return 1;
  }
}
