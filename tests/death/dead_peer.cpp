// One rank dies; every other rank is blocked in an operation and must get an error naming it, soon.
// Run by tests/death/death_test.sh under rmplrun (it checks the output, the timing, rmplrun's
// status and message, and that nothing is left behind).
//
//   dead_peer DEATH OP STAMP [VICTIM] [MARKER]
//
//   DEATH   how the victim (rank VICTIM, the last rank by default) ends: segv, abort, exit0
//   (exit(0)
//           without finalizing), exit3, sigkill (raise(SIGKILL)), hang (waits to be killed from
//           outside; the script writes STAMP), exit0_on_stamp (waits for the script to write STAMP,
//           then exits 0 without finalizing)
//   OP      what the others are blocked in when it dies: recv, irecv (wait on an irecv), probe,
//           ssend, sendrecv, barrier, broadcast, reduce, allreduce, alltoall, gather, scatter,
//           allgather, scan, reduce_scatter, finalize (the session's end); or startup (the victim
//           dies before joining, the others are in the start-up barrier)
//   STAMP   a file the victim writes its time of death into (CLOCK_REALTIME ns) just before dying
//   MARKER  ignored: a number that makes the job's processes findable with pgrep
//
// Each survivor repeats OP until it fails (some ranks finish a collective without the victim, e.g.
// a broadcast root, and block only in a later one) and prints one line:
//   rank R: OP failed 3.2 ms after the death (call 4 blocked 154.1 ms): <error text>
// where "after the death" counts from the later of the death and the start of the failing call.
// It exits 0 when the error was errc::dead_rank (DEAD_PEER_SURVIVOR_STATUS if set), 1 for any
// other error, 4 when OP never failed within 10 s.
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <rmpl/rmpl.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace {

using steady = std::chrono::steady_clock;

double realtime_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

double ms_since(steady::time_point t) {
  return std::chrono::duration<double, std::milli>(steady::now() - t).count();
}

/// The victim's time of death in ms (CLOCK_REALTIME), if it wrote one.
std::optional<double> death_time(const char* stamp) {
  std::ifstream in(stamp);
  long long ns = 0;
  if (!(in >> ns)) return std::nullopt;
  return static_cast<double>(ns) * 1e-6;
}

[[noreturn]] void die(const std::string& death, const char* stamp) {
  if (death == "hang") {
    for (;;) ::pause();  // killed from outside; the script writes the stamp
  }
  if (death == "exit0_on_stamp") {
    while (!death_time(stamp)) ::usleep(5'000);  // the script chooses the moment
    std::exit(0);  // the session is still alive: rmpl is not finalized
  }
  {
    timespec ts{};
    ::clock_gettime(CLOCK_REALTIME, &ts);
    std::ofstream out(stamp);
    out << static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec << "\n";
  }
  if (death == "segv") {
    // A page that may not be written, rather than a null pointer: UBSan would report a null store
    // and exit before the fault.
    ::signal(SIGSEGV, SIG_DFL);
    void* page = ::mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    *static_cast<volatile int*>(page) = 1;
  } else if (death == "abort") {
    std::abort();
  } else if (death == "exit0") {
    std::exit(0);  // the session is still alive: rmpl is not finalized
  } else if (death == "exit3") {
    std::exit(3);
  } else if (death == "sigkill") {
    ::raise(SIGKILL);
  }
  std::fprintf(stderr, "dead_peer: unknown way of dying '%s'\n", death.c_str());
  std::_Exit(2);
}

/// One call of `op` on `world`, the victim being `victim`.
void run_once(const std::string& op, const rmpl::communicator& world, int victim) {
  const int n = world.size();
  std::vector<int> in(static_cast<std::size_t>(n), world.rank()), out(in.size());
  std::vector<int> one(1, world.rank()), got(1);
  if (op == "recv") {
    world.recv(got, victim, 7);
  } else if (op == "irecv") {
    rmpl::request r = world.irecv(got, rmpl::any_source, 7);
    r.wait();
  } else if (op == "probe") {
    world.probe(victim, 7);
  } else if (op == "ssend") {
    world.ssend(one, victim, 7);
  } else if (op == "sendrecv") {
    world.sendrecv(one, victim, 7, got, victim, 7);
  } else if (op == "barrier") {
    world.barrier();
  } else if (op == "broadcast") {
    world.broadcast(in, 0);
  } else if (op == "reduce") {
    world.reduce(in, out, rmpl::ops::sum{}, 0);
  } else if (op == "allreduce") {
    world.allreduce(in, out, rmpl::ops::sum{});
  } else if (op == "alltoall") {
    world.alltoall(in, out);
  } else if (op == "gather") {
    world.gather(one, out, 0);
  } else if (op == "scatter") {
    world.scatter(in, got, 0);
  } else if (op == "allgather") {
    world.allgather(one, out);
  } else if (op == "scan") {
    world.scan(in, out, rmpl::ops::sum{});
  } else if (op == "reduce_scatter") {
    world.reduce_scatter_block(in, got, rmpl::ops::sum{});
  } else {
    std::fprintf(stderr, "dead_peer: unknown operation '%s'\n", op.c_str());
    std::_Exit(2);
  }
}

void print_segment_inode(int rank) {
  const char* fd = std::getenv("RMPL_SHM_FD");
  struct stat st {};
  if (rank == 0 && fd && ::fstat(std::atoi(fd), &st) == 0) {
    std::printf("segment inode %llu\n", static_cast<unsigned long long>(st.st_ino));
  }
}

/// Prints the survivor's report of `e`, caught `late_ms` after the later of the death and the
/// failing call's start; returns the exit status.
int report(int rank, const std::string& op, const rmpl::error& e, steady::time_point call,
           int calls, const char* stamp) {
  const double blocked = ms_since(call);
  const double now = realtime_ms();
  const auto died = death_time(stamp);
  if (died) {
    const double since = now - std::max(*died, now - blocked);
    std::printf("rank %d: %s failed %.1f ms after the death (call %d blocked %.1f ms): %s\n", rank,
                op.c_str(), since, calls, blocked, e.what());
  } else {
    std::printf("rank %d: %s failed with no death stamp (call %d blocked %.1f ms): %s\n", rank,
                op.c_str(), calls, blocked, e.what());
  }
  std::fflush(stdout);
  if (e.code() != rmpl::errc::dead_rank) return 1;
  // As a program that ends with an error status of its own once a peer has died.
  const char* status = std::getenv("DEAD_PEER_SURVIVOR_STATUS");
  return status ? std::atoi(status) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s DEATH OP STAMP [VICTIM] [MARKER]\n", argv[0]);
    return 2;
  }
  const std::string death = argv[1], op = argv[2];
  const char* stamp = argv[3];
  const int size = std::atoi(std::getenv("RMPL_SIZE") ? std::getenv("RMPL_SIZE") : "1");
  const int me = std::atoi(std::getenv("RMPL_RANK") ? std::getenv("RMPL_RANK") : "0");
  const int victim = argc > 4 ? std::atoi(argv[4]) : size - 1;
  setvbuf(stdout, nullptr, _IOLBF, 0);

  if (op == "startup") {
    print_segment_inode(me);
    if (me == victim) {
      if (death == "hang")
        std::printf("rank %d: victim pid %d\n", me, static_cast<int>(::getpid()));
      ::usleep(100'000);  // the others are waiting for it at start-up by now
      die(death, stamp);
    }
    const auto call = steady::now();
    try {
      std::printf("rank %d: blocking in startup\n", me);
      rmpl::session session;
      std::printf("rank %d: startup completed without the victim\n", me);
      return 4;
    } catch (const rmpl::error& e) {
      return report(me, op, e, call, 1, stamp);
    }
  }

  std::optional<rmpl::session> session(std::in_place);
  const rmpl::communicator world = session->world();
  print_segment_inode(me);
  world.barrier();  // everyone joined: the death happens inside the job
  if (me == victim) {
    if (death == "hang" || death == "exit0_on_stamp") {
      std::printf("rank %d: victim pid %d\n", me, static_cast<int>(::getpid()));
    }
    ::usleep(50'000);  // the others are blocked by now (or block later: timed from then)
    die(death, stamp);
  }

  std::printf("rank %d: blocking in %s\n", me, op.c_str());
  if (op == "finalize") {
    // The error is reported by the session's end itself (on stderr, "during finalize"): what is
    // checked here is that it returns instead of waiting for the dead rank.
    const auto call = steady::now();
    session.reset();
    const auto died = death_time(stamp);
    const double blocked = ms_since(call), now = realtime_ms();
    std::printf("rank %d: finalize returned %.1f ms after the death (blocked %.1f ms)\n", me,
                died ? now - std::max(*died, now - blocked) : -1.0, blocked);
    return 0;
  }
  const auto start = steady::now();
  for (int calls = 1;; ++calls) {
    const auto call = steady::now();
    try {
      run_once(op, world, victim);
    } catch (const rmpl::error& e) {
      return report(me, op, e, call, calls, stamp);
    }
    if (ms_since(start) > 10'000) {
      std::printf("rank %d: %s never failed (%d calls in 10 s)\n", me, op.c_str(), calls);
      return 4;
    }
  }
}
