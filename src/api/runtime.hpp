// The process's one kernel instance, shared by the C++ and C APIs: created by the first session (or
// rmpl_init) and destroyed (finalize) by the last.
#pragma once

#include "core/engine.hpp"
#include "rmpl/rmpl.hpp"

namespace rmpl::api {

/// The live engine; throws errc::not_initialized when there is none.
core::engine& kernel();
/// Counts an init; the first creates the engine.
void acquire();
/// Counts a finalize; the last destroys the engine (which waits for every rank).
void release() noexcept;
bool initialized() noexcept;
/// The world communicator of the live engine.
detail::comm_ptr world();

}  // namespace rmpl::api
