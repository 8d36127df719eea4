// The C++ API's blocking calls, for instruction counts: N times send then recv of one double to
// and from this rank itself, with the session's default option or (second argument "multiple")
// rmpl::threads::multiple. Run under callgrind with two N and difference the totals, which cancels
// start-up and finalize:
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null ./rmpl-bench-cxx-self-sendrecv 10000
//   (and 20000); per iteration = (I(20000) - I(10000)) / 10000
#include <rmpl/rmpl.hpp>

#include <cstdlib>
#include <cstring>
#include <span>

int main(int argc, char** argv) {
  const bool multiple = argc > 2 && std::strcmp(argv[2], "multiple") == 0;
  rmpl::session s(multiple ? rmpl::threads::multiple : rmpl::threads::serialized);
  const rmpl::communicator w = s.world();
  const long n = argc > 1 ? std::atol(argv[1]) : 10000;
  double out = 1.0, in = 0.0;
  for (long i = 0; i < n; ++i) {
    w.send(std::span(&out, 1), w.rank(), 1);
    w.recv(std::span(&in, 1), w.rank(), 1);
  }
  return in == 1.0 ? 0 : 1;
}
