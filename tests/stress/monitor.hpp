// The stress program's watchdog: a lost message shows up as a receive that never completes, so
// rather than hang until the launcher's timeout the program notices that it made no progress for a
// while, says where it was (round, phase, what was pending) and exits with status 3.
//
// The watchdog thread never calls rmpl: it reads an atomic progress counter and a description the
// main thread updates at each phase (under a mutex), so it cannot disturb the library.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

namespace stress {

class monitor {
 public:
  monitor(int rank, double stall_seconds) : rank_(rank), stall_(stall_seconds) {
    if (stall_ > 0) thread_ = std::thread([this] { watch(); });
  }
  ~monitor() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  monitor(const monitor&) = delete;
  monitor& operator=(const monitor&) = delete;

  /// Something completed.
  void tick() noexcept { ticks_.fetch_add(1, std::memory_order_relaxed); }
  /// What the rank is doing now (printed if it stalls there).
  void where(std::string text) {
    std::lock_guard lock(mutex_);
    where_ = std::move(text);
    ticks_.fetch_add(1, std::memory_order_relaxed);
  }

 private:
  void watch() {
    using clock = std::chrono::steady_clock;
    std::uint64_t seen = ticks_.load(std::memory_order_relaxed);
    auto since = clock::now();
    std::unique_lock lock(mutex_);
    while (!stop_) {
      wake_.wait_for(lock, std::chrono::milliseconds(500));
      const std::uint64_t now_ticks = ticks_.load(std::memory_order_relaxed);
      if (now_ticks != seen) {
        seen = now_ticks;
        since = clock::now();
        continue;
      }
      const double idle = std::chrono::duration<double>(clock::now() - since).count();
      if (idle >= stall_ && !stop_) {
        std::fprintf(stderr,
                     "stress: rank %d: no progress for %.0f s (a message lost, or a deadlock): "
                     "%s\n",
                     rank_, idle, where_.c_str());
        std::fflush(stderr);
        std::_Exit(3);
      }
    }
  }

  int rank_;
  double stall_;
  std::atomic<std::uint64_t> ticks_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string where_ = "starting";
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace stress
