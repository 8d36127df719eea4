// Thread levels: which threads may drive the kernel, and the one library lock of
// MPI_THREAD_MULTIPLE.
//
// The kernel and the MPI layer hold no per-object locks: under MULTIPLE every call of the MPI layer
// runs holding one process-wide lock (reentrant, since user callbacks such as reduction operators,
// error handlers and attribute callbacks may call MPI again on the same thread), and the kernel's
// one waiting mechanism (engine::wait_until) lets it go between progress passes, so that waits in
// several threads take turns progressing everyone's requests and a blocking call never keeps the
// others out. A per-peer or per-communicator scheme would let threads on different communicators
// run at once, but every call here progresses every ring of the rank: they would meet on the same
// queues anyway.
//
// Below MULTIPLE nothing is locked. Each thread has an initial-exec thread-local `fast` flag, true
// only on the main thread while the level is SINGLE or FUNNELED: that thread's calls cost one
// test of it. Every other case (another thread, SERIALIZED, MULTIPLE, before MPI_Init, after
// MPI_Finalize) goes the out-of-line way, which checks the level: a call from another thread under
// SINGLE or FUNNELED is refused, and under SERIALIZED a plain owner word (relaxed loads and stores,
// no read-modify-write) catches two threads inside at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

namespace rmpl::core::threads {

/// MPI's levels, in MPI's order (MPI_THREAD_SINGLE ... MPI_THREAD_MULTIPLE).
enum class level : int { single = 0, funneled = 1, serialized = 2, multiple = 3 };
const char* name(level l) noexcept;

// __thread rather than thread_local: a C++ thread_local declared extern is read through a wrapper
// call (it might have a dynamic initializer), which cost the 8 B send+recv to self 33 instructions
// under callgrind; __thread with the initial-exec model is one load from the thread pointer.
/// Per thread: whether this thread's calls need no check (the main thread under SINGLE/FUNNELED).
extern __thread bool fast __attribute__((tls_model("initial-exec")));
/// Per thread: whether this is the thread that started the library (MPI_Is_thread_main).
extern __thread bool is_main __attribute__((tls_model("initial-exec")));

/// Whether a level is in force (between start() and stop()), and which.
bool active() noexcept;
level current() noexcept;
/// Whether the library lock is in use (MULTIPLE): read on the kernel's waiting paths.
inline std::atomic<bool> locking{false};

/// SERIALIZED: the thread inside the library, or null (call.hpp).
inline std::atomic<const void*> inside{nullptr};

/// Called on the thread that starts the library (MPI_Init), before any other thread may call.
void start(level l) noexcept;
/// Called when the library ends (MPI_Finalize): every thread's calls go unchecked again.
void stop() noexcept;

/// A token naming the calling thread (the address of a thread-local).
const void* self() noexcept;

// ---- the library lock (MULTIPLE) ----

/// Takes the lock (again, if this thread holds it already).
void lock() noexcept;
/// Releases one level of it; the last wakes this rank's sleeping waiters (the caller may have
/// completed what they wait for: a send to self, a request another thread's pass finished).
void unlock() noexcept;
/// For a waiter: lets the lock go whole (whatever its depth), returning the depth, then takes it
/// back at that depth. `moved` says whether the waiter's last pass completed anything, so that
/// waiters asleep must look again.
unsigned release_all(bool moved) noexcept;
void reacquire(unsigned depth) noexcept;
/// Whether this thread holds the lock.
bool held() noexcept;

/// Threads of this process asleep (or about to sleep) on the rank's doorbell; only read and
/// written holding the lock.
extern unsigned sleepers;
/// Rings this rank's own doorbell (set by the engine: the fabric's wake of itself).
using ring_fn = void (*)(void*) noexcept;
void set_self_ring(ring_fn fn, void* arg) noexcept;

/// RAII: the lock for the span of one call, when MULTIPLE is in force.
class guard {
 public:
  guard() noexcept : on_(locking.load(std::memory_order_relaxed)) {
    if (on_) lock();
  }
  ~guard() {
    if (on_) unlock();
  }
  guard(const guard&) = delete;
  guard& operator=(const guard&) = delete;

 private:
  bool on_;
};

}  // namespace rmpl::core::threads
