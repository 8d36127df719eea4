// The error policy on_error::abort (and the C API's RMPL_ERRORS_ARE_FATAL): a failing call must
// print its error naming the rank and end the job with a non-zero status, which rmplrun reports.
// Registered through tests/cmake/expect_failure.cmake, which checks the status and the output.
//   abort_policy cxx     the world's policy set to abort, then a send to rank size() on the last
//   rank abort_policy dup     the policy set on the world, inherited by a dup, a bad root there
//   abort_policy request the world's policy, a wait on an empty request
//   abort_policy c       rmpl_set_errors(RMPL_ERRORS_ARE_FATAL), then rmpl_send with tag -4
#include <rmpl.h>

#include <cstdio>
#include <cstring>
#include <rmpl/rmpl.hpp>
#include <vector>

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "cxx";
  rmpl::session session;
  auto world = session.world();
  const bool last = world.rank() == world.size() - 1;
  int value = 4242;
  if (std::strcmp(mode, "cxx") == 0) {
    world.set_error_policy(rmpl::on_error::abort);
    if (last) world.send(std::span(&value, 1), world.size(), 0);
    world.barrier();  // the others wait here until the job is ended
  } else if (std::strcmp(mode, "dup") == 0) {
    world.set_error_policy(rmpl::on_error::abort);
    auto copy = world.dup();
    std::vector<int> data{1};
    copy.broadcast(data, world.size() + 4242);
  } else if (std::strcmp(mode, "request") == 0) {
    world.set_error_policy(rmpl::on_error::abort);
    rmpl::request none;
    if (last) none.wait();
    world.barrier();
  } else if (std::strcmp(mode, "c") == 0) {
    if (rmpl_set_errors(RMPL_ERRORS_ARE_FATAL) != RMPL_SUCCESS) return 3;
    if (last) rmpl_send(&value, sizeof value, 0, -4242);
    rmpl_barrier();
  }
  std::printf("rank %d: the bad call returned: the error policy did not end the job\n",
              world.rank());
  return 0;
}
