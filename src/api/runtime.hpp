// The process's one kernel instance, shared by the C++ and C APIs: created by the first session (or
// rmpl_init) and destroyed (finalize) by the last.
#pragma once

#include <utility>

#include "core/engine.hpp"
#include "core/threads.hpp"
#include "rmpl/rmpl.hpp"

namespace rmpl::api {

/// The live engine, or null (set by acquire and release); read it through kernel().
extern core::engine* live_engine;
/// Throws errc::not_initialized (kernel()'s failure, out of line).
[[noreturn]] void not_initialized();
/// The live engine; throws errc::not_initialized when there is none. Inline: every operation of
/// both APIs starts here, so the check costs a load and a branch, not a call.
inline core::engine& kernel() {
  if (live_engine != nullptr) [[likely]] {
    return *live_engine;
  }
  not_initialized();
}
/// Calls Fn(a...) holding the library lock when MULTIPLE is on (core/threads.hpp): the C++ API's
/// point-to-point and request calls. The flag is tested before anything else and the locked way
/// is out of line and takes Fn's own parameter types (references as pointers, values in
/// registers), so that the unlocked way costs a load and a branch. A core::threads::guard there
/// (whose flag lives across the call) cost the 8 B send + recv to self 44 instructions under
/// callgrind; a closure, or forwarding references, passed to the locked way 20 (the compiler
/// stored the arguments on the stack before the test).
template <auto Fn, class Sig = decltype(Fn)>
struct lock_around;
template <auto Fn, bool Noexcept, class R, class... P>
struct lock_around_of {
  [[gnu::noinline]] static R slow(P... a) noexcept(Noexcept) {
    struct unlock_at_end {
      ~unlock_at_end() { core::threads::unlock(); }
    };
    core::threads::lock();
    const unlock_at_end unlock;
    return Fn(static_cast<P>(a)...);
  }
  static R call(P... a) noexcept(Noexcept) {
    if (!core::threads::locking.load(std::memory_order_relaxed)) [[likely]] {
      return Fn(static_cast<P>(a)...);
    }
    return slow(static_cast<P>(a)...);
  }
};
template <auto Fn, class R, class... P>
struct lock_around<Fn, R (*)(P...)> : lock_around_of<Fn, false, R, P...> {};
template <auto Fn, class R, class... P>
struct lock_around<Fn, R (*)(P...) noexcept> : lock_around_of<Fn, true, R, P...> {};
template <auto Fn, class... A>
inline decltype(auto) locked(A&&... a) {
  return lock_around<Fn>::call(std::forward<A>(a)...);
}
/// Counts an init; the first creates the engine.
void acquire();
/// acquire(), then the library lock from now until the last release (rmpl::threads::multiple,
/// rmpl_init_threads), unless MPI set a thread level first.
void acquire_multiple();
/// Counts a finalize; the last destroys the engine (which waits for every rank, and prints the
/// error if a rank died first).
void release() noexcept;
/// When the next release() is the last: finalizes the engine now (waits for every rank) and throws
/// its errc::dead_rank if a rank died first, while the engine is still alive to name this rank in
/// the report. release() must follow either way. For the finalize calls that return an error.
void finalize_if_last();
bool initialized() noexcept;
/// The world communicator of the live engine.
detail::comm_ptr world();
/// The world communicator's error policy (throw_error when not initialized), which the C API and
/// the calls that name no communicator follow.
on_error world_error_policy() noexcept;

}  // namespace rmpl::api
