// The main() of every multi-process test program, the harness's barrier and the collective fixture.
//
// Output: rank 0 keeps GoogleTest's usual printer; the other ranks print only their own failures,
// prefixed with "[rank r]". After each test the ranks agree on the result, and rank 0 reports which
// ranks failed it.
#include "mp_test.hpp"

#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <thread>
#include <vector>

namespace rmpl_test {
namespace {

constexpr int max_ranks = 4096;  // rmplrun's limit
// Failures added by the result agreement carry this, so that ranks other than 0 do not echo every
// other rank's failure.
constexpr const char* agreement_marker = "[collective] ";
// A rank that failed a test waits this long for the others to finish it, then exits: they are most
// likely blocked on a message it will never send, and exiting lets rmplrun end the job at once.
constexpr double give_up_seconds = 20.0;

/// The harness's shared memory: a sense-reversing barrier and one result flag per rank.
struct sync_area {
  alignas(64) std::atomic<std::uint32_t> arrived{0};
  alignas(64) std::atomic<std::uint32_t> generation{0};  // a futex word
  std::atomic<std::int32_t> pid[max_ranks] = {};
  std::atomic<std::uint8_t> failed[max_ranks] = {};
};
static_assert(std::atomic<std::uint32_t>::is_always_lock_free &&
              sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t));

std::optional<rmpl::session> the_session;
sync_area* area = nullptr;

double seconds_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Process-shared futex calls (std::atomic::wait uses private futexes, which do not cross
// processes).
void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected, int timeout_ms) {
  timespec timeout{timeout_ms / 1000, (timeout_ms % 1000) * 1000000L};
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT, expected, &timeout,
          nullptr, 0);
}
void futex_wake_all(std::atomic<std::uint32_t>& word) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE, INT_MAX, nullptr, nullptr,
          0);
}

[[noreturn]] void quit(const char* why) {
  std::fflush(stdout);
  std::fprintf(stderr, "[rank %d] %s\n", rank(), why);
  std::fflush(stderr);
  std::_Exit(1);
}

// Exits if a peer process is gone: it will never reach the barrier.
void check_peers_alive() {
  for (int r = 0; r < size(); ++r) {
    pid_t pid = area->pid[r].load(std::memory_order_relaxed);
    if (pid > 0 && kill(pid, 0) != 0 && errno == ESRCH) {
      char why[96];
      std::snprintf(why, sizeof why, "rank %d (pid %d) has exited; the test program cannot go on",
                    r, static_cast<int>(pid));
      quit(why);
    }
  }
}

/// The barrier; a rank that has failed passes `give_up` and exits if the others do not come.
void barrier_impl(bool give_up) {
  if (size() == 1) return;
  std::uint32_t generation = area->generation.load(std::memory_order_acquire);
  if (area->arrived.fetch_add(1, std::memory_order_acq_rel) + 1 ==
      static_cast<std::uint32_t>(size())) {
    area->arrived.store(0, std::memory_order_relaxed);
    area->generation.fetch_add(1, std::memory_order_release);
    futex_wake_all(area->generation);
    return;
  }
  double start = seconds_now();
  while (area->generation.load(std::memory_order_acquire) == generation) {
    futex_wait(area->generation, generation, 100);
    if (area->generation.load(std::memory_order_acquire) != generation) break;
    check_peers_alive();
    if (give_up && seconds_now() - start > give_up_seconds) {
      quit(
          "failed a test and the other ranks have not finished it (probably blocked waiting for "
          "this rank); exiting");
    }
  }
}

// Rank 0 creates the segment and sends its name to the others over rmpl, before any test runs (so
// the message cannot meet a test's wildcard receive); the name is unlinked once everyone has it.
void open_sync_area() {
  if (size() == 1) return;
  char name[64] = {};
  int fd = -1;
  if (rank() == 0) {
    std::random_device random;
    std::snprintf(name, sizeof name, "/rmpl-test-%d-%08x", static_cast<int>(getpid()), random());
    fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0 || ftruncate(fd, sizeof(sync_area)) != 0) {
      std::perror("rmpl test harness: shm_open/ftruncate");
      std::exit(1);
    }
  }
  void* memory = nullptr;
  if (rank() == 0) {
    memory = mmap(nullptr, sizeof(sync_area), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (memory == MAP_FAILED) {
      std::perror("rmpl test harness: mmap");
      std::exit(1);
    }
    area = new (memory) sync_area;
    for (int r = 1; r < size(); ++r) world().send(std::span<const char>(name), r, rmpl::tag_ub);
  } else {
    world().recv(std::span<char>(name), 0, rmpl::tag_ub);
    fd = shm_open(name, O_RDWR, 0600);
    if (fd < 0) {
      std::perror("rmpl test harness: shm_open");
      std::exit(1);
    }
    memory = mmap(nullptr, sizeof(sync_area), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (memory == MAP_FAILED) {
      std::perror("rmpl test harness: mmap");
      std::exit(1);
    }
    area = static_cast<sync_area*>(memory);
  }
  close(fd);
  area->pid[rank()].store(getpid());
  barrier_impl(false);
  if (rank() == 0) shm_unlink(name);
}

/// The printer of ranks other than 0: their own failures only, prefixed with the rank.
class rank_failure_printer : public ::testing::EmptyTestEventListener {
 public:
  // The test's name is kept from OnTestStart: asking UnitTest for it inside OnTestPartResult would
  // take a mutex gtest already holds there.
  void OnTestStart(const ::testing::TestInfo& test) override {
    test_name_ = std::string(test.test_suite_name()) + "." + test.name();
  }
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    if (std::strstr(result.message(), agreement_marker) != nullptr) return;
    std::printf("[rank %d] %s: %s:%d: Failure\n[rank %d] %s\n", rank(), test_name_.c_str(),
                result.file_name() ? result.file_name() : "?", result.line_number(), rank(),
                result.message());
    std::fflush(stdout);
  }

 private:
  std::string test_name_ = "(no test)";
};

}  // namespace

rmpl::communicator world() {
  return the_session->world();
}

int host_of(int r) {
  const char* text = std::getenv("RMPL_PRETEND_HOSTS");
  if (text == nullptr || *text == '\0') return 0;
  std::vector<int> hosts;
  for (const char* p = text;;) {
    char* end = nullptr;
    const long host = std::strtol(p, &end, 10);
    if (end == p) break;  // not a number: the library refuses it anyway
    hosts.push_back(static_cast<int>(host));
    if (*end != ',') break;
    p = end + 1;
  }
  return hosts.empty() ? 0 : hosts[static_cast<std::size_t>(r) % hosts.size()];
}

bool spans_hosts(std::initializer_list<int> ranks) {
  for (int r : ranks) {
    if (host_of(r) != host_of(*ranks.begin())) return true;
  }
  return false;
}

void barrier() {
  barrier_impl(false);
}

void collective::SetUp() {
  barrier();
}

void collective::TearDown() {
  bool failed_here = HasFailure();
  if (size() > 1) {
    area->failed[rank()].store(failed_here ? 1 : 0, std::memory_order_relaxed);
    barrier_impl(failed_here);
  }
  std::string failed_ranks;
  for (int r = 0; r < size(); ++r) {
    bool failed = size() > 1 ? area->failed[r].load(std::memory_order_relaxed) != 0 : failed_here;
    if (failed) failed_ranks += (failed_ranks.empty() ? "" : ", ") + std::to_string(r);
  }
  // Every rank records the failure (so that all stop together); only rank 0 prints it.
  if (!failed_ranks.empty()) {
    ADD_FAILURE() << agreement_marker << "this test failed on rank(s) " << failed_ranks << " of "
                  << size();
  }
}

void sleep_ms(int milliseconds) {
  std::this_thread::sleep_for(std::chrono::milliseconds(milliseconds));
}

long env_long(const char* name, long fallback) {
  const char* text = std::getenv(name);
  return text && *text ? std::strtol(text, nullptr, 10) : fallback;
}

std::size_t eager_max() {
  const char* text = std::getenv("RMPL_EAGER_MAX");
  if (text == nullptr || *text == '\0') return 16384;
  char* end = nullptr;
  std::size_t value = std::strtoull(text, &end, 10);
  if (*end == 'k' || *end == 'K') value <<= 10;
  if (*end == 'm' || *end == 'M') value <<= 20;
  return value;
}

}  // namespace rmpl_test

int main(int argc, char** argv) {
  // Stop at the first failed test: the ranks agree on failures, so they all stop at the same test.
  // (--gtest_fail_fast=0 on the command line keeps going.)
  GTEST_FLAG_SET(fail_fast, true);
  ::testing::InitGoogleTest(&argc, argv);
  try {
    rmpl_test::the_session.emplace();
    rmpl_test::open_sync_area();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rmpl test harness: could not start: %s\n", e.what());
    return 1;
  }
  if (rmpl_test::rank() != 0) {
    ::testing::TestEventListeners& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new rmpl_test::rank_failure_printer);
  }
  int result = RUN_ALL_TESTS();
  rmpl_test::the_session.reset();  // finalize: waits for every rank
  return result;
}
