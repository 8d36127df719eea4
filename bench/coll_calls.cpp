// The fixed cost of a short blocking collective, for callgrind: N blocking barrier, broadcast,
// reduce, allreduce, allgather or alltoall calls of one double (8 B; one per rank for the last
// two) back to back (bench/mpi/coll_calls.c is the same through the MPI layer). Instructions per
// call are (I(2N) - I(N)) / N, which leaves start-up and finalize out (docs/benchmarks.md):
//
//   valgrind --tool=callgrind rmpl-bench-coll-calls broadcast 10000      (and 20000)
//   RMPL_SPIN=0 rmplrun -n 2 valgrind --tool=callgrind rmpl-bench-coll-calls broadcast 10000
//
// With 2 ranks every rank writes its own callgrind.out.<pid>; RMPL_SPIN=0 makes a waiting rank
// sleep at once instead of counting its polls (the figures still vary by ~20% from run to run).
#include <rmpl/rmpl.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

std::vector<double> in(1), out(1);
std::vector<double> sent, blocks;  // allgather / alltoall: one double per rank
void barrier(const rmpl::communicator& w) {
  w.barrier();
}
void broadcast(const rmpl::communicator& w) {
  w.broadcast(out, 0);
}
void reduce(const rmpl::communicator& w) {
  w.reduce(in, out, rmpl::ops::sum{}, 0);
}
void allreduce(const rmpl::communicator& w) {
  w.allreduce(in, out, rmpl::ops::sum{});
}
void allgather(const rmpl::communicator& w) {
  w.allgather(in, blocks);
}
void alltoall(const rmpl::communicator& w) {
  w.alltoall(sent, blocks);
}

}  // namespace

int main(int argc, char** argv) {
  void (*call)(const rmpl::communicator&) = nullptr;
  if (argc == 3) {
    const char* what = argv[1];
    call = !std::strcmp(what, "barrier")     ? barrier
           : !std::strcmp(what, "broadcast") ? broadcast
           : !std::strcmp(what, "reduce")    ? reduce
           : !std::strcmp(what, "allreduce") ? allreduce
           : !std::strcmp(what, "allgather") ? allgather
           : !std::strcmp(what, "alltoall")  ? alltoall
                                             : nullptr;
  }
  const long n = argc == 3 ? std::atol(argv[2]) : 0;
  if (call == nullptr || n <= 0) {
    std::fprintf(
        stderr,
        "usage: rmpl-bench-coll-calls barrier|broadcast|reduce|allreduce|allgather|alltoall N\n");
    return 2;
  }
  rmpl::session s;
  rmpl::communicator w = s.world();
  in[0] = 1.0 + w.rank();
  sent.assign(static_cast<std::size_t>(w.size()), in[0]);
  blocks.assign(sent.size(), 0.0);
  w.barrier();
  for (long i = 0; i < n; ++i) call(w);
  w.barrier();
  if (w.rank() == 0) std::printf("%s: %ld calls, last result %g\n", argv[1], n, out[0]);
  return 0;
}
