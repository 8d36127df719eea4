#include "core/threads.hpp"

#include <sched.h>

namespace rmpl::core::threads {

__thread bool fast __attribute__((tls_model("initial-exec"))) = false;
__thread bool is_main __attribute__((tls_model("initial-exec"))) = false;
unsigned sleepers = 0;

namespace {

// Read by every thread's slow path; written by start() and stop(), which MPI calls when no other
// thread may be inside (before MPI_Init returns, inside MPI_Finalize).
std::atomic<int> level_now{-1};

__thread char token __attribute__((tls_model("initial-exec")));

std::mutex mutex;
std::atomic<const void*> owner{nullptr};
unsigned depth = 0;
// Threads blocked in lock(): a waiter that lets the lock go between passes yields when there are
// some, so that one of them gets it (a mutex does not hand itself over; the releasing thread
// would often take it back at once and starve them).
std::atomic<unsigned> contenders{0};

ring_fn self_ring = nullptr;
void* self_ring_arg = nullptr;

void take() noexcept {
  if (!mutex.try_lock()) {
    contenders.fetch_add(1, std::memory_order_relaxed);
    mutex.lock();
    contenders.fetch_sub(1, std::memory_order_relaxed);
  }
  owner.store(self(), std::memory_order_relaxed);
}

void give(bool wake) noexcept {
  if (wake && sleepers > 0 && self_ring != nullptr) self_ring(self_ring_arg);
  owner.store(nullptr, std::memory_order_relaxed);
  mutex.unlock();
}

}  // namespace

const char* name(level l) noexcept {
  switch (l) {
    case level::single:
      return "MPI_THREAD_SINGLE";
    case level::funneled:
      return "MPI_THREAD_FUNNELED";
    case level::serialized:
      return "MPI_THREAD_SERIALIZED";
    case level::multiple:
      return "MPI_THREAD_MULTIPLE";
  }
  return "an unknown thread level";
}

bool active() noexcept {
  return level_now.load(std::memory_order_relaxed) >= 0;
}
level current() noexcept {
  return static_cast<level>(level_now.load(std::memory_order_relaxed));
}

void start(level l) noexcept {
  is_main = true;
  fast = l <= level::funneled;
  level_now.store(static_cast<int>(l), std::memory_order_relaxed);
  locking.store(l == level::multiple, std::memory_order_relaxed);
}

void stop() noexcept {
  fast = false;
  level_now.store(-1, std::memory_order_relaxed);
  locking.store(false, std::memory_order_relaxed);
}

const void* self() noexcept {
  return &token;
}

void lock() noexcept {
  if (owner.load(std::memory_order_relaxed) == self()) {
    ++depth;
    return;
  }
  take();
  depth = 1;
}

void unlock() noexcept {
  if (--depth > 0) return;
  give(true);
}

unsigned release_all(bool moved) noexcept {
  const unsigned d = depth;
  depth = 0;
  give(moved);
  if (contenders.load(std::memory_order_relaxed) > 0) sched_yield();
  return d;
}

void reacquire(unsigned d) noexcept {
  take();
  depth = d;
}

bool held() noexcept {
  return owner.load(std::memory_order_relaxed) == self();
}

void set_self_ring(ring_fn fn, void* arg) noexcept {
  self_ring = fn;
  self_ring_arg = arg;
}

}  // namespace rmpl::core::threads
