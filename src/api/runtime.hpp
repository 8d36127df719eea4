// The process's one kernel instance, shared by the C++ and C APIs: created by the first session (or
// rmpl_init) and destroyed (finalize) by the last.
#pragma once

#include "core/engine.hpp"
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
