// The way in and out of an MPI call that is not the main thread's under SINGLE or FUNNELED
// (call.hpp): the thread level in force decides whether the call runs, and under what.
#include <atomic>

#include "core/threads.hpp"
#include "mpi/call.hpp"

namespace rmpl::mpi {

checked_entry enter_checked(MPI_Comm comm, const char* function) noexcept {
  namespace threads = core::threads;
  checked_entry e{-1, false, false, nullptr};
  if (!threads::active()) return e;  // before MPI_Init, after MPI_Finalize: nothing to check
  switch (threads::current()) {
    case threads::level::multiple:
      threads::lock();
      e.locked = true;
      return e;
    case threads::level::serialized: {
      // Best effort, with plain loads and stores: a thread that finds another's mark is refused
      // before it does anything; one whose mark was overwritten while it ran (the other came in
      // between its look and its mark) reports it on its way out. Either way two threads that
      // keep calling at once are caught.
      const void* me = threads::self();
      e.before = threads::inside.load(std::memory_order_relaxed);
      if (e.before != nullptr && e.before != me) {
        e.refused = thread_misuse(comm, function, true);
        return e;
      }
      threads::inside.store(me, std::memory_order_relaxed);
      e.marked = true;
      return e;
    }
    default:  // SINGLE, FUNNELED, from another thread than the main one
      e.refused = thread_misuse(comm, function, false);
      return e;
  }
}

int leave_checked(const checked_entry& e, MPI_Comm comm, const char* function,
                  int result) noexcept {
  namespace threads = core::threads;
  if (e.locked) threads::unlock();
  if (e.marked) {
    const void* after = threads::inside.load(std::memory_order_relaxed);
    threads::inside.store(e.before, std::memory_order_relaxed);
    if (after != threads::self() && result == MPI_SUCCESS) {
      return thread_misuse(comm, function, true);
    }
  }
  return result;
}

}  // namespace rmpl::mpi
