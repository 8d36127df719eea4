// The layer's view of the MPI environment (environment.cpp): whether MPI is initialised, the
// predefined communicators' objects, and ending the job.
#pragma once

#include "mpi/objects.hpp"

namespace rmpl::mpi {

/// Prints nothing; ends this rank with `code` (non-zero), which makes the launcher end the job.
[[noreturn]] void abort_job(int code) noexcept;

/// Whether the library runs: between the first MPI_Init or MPI_Session_init and the end of the
/// last of them.
bool running() noexcept;

/// MPI_Session_init's start (the library's too when it is the first way in, at thread level
/// `required`); returns the library's thread level.
int open_session(int required);
/// MPI_Session_finalize's end: stops the library when it was the last way in (see
/// environment.cpp); returns what the stop returned.
int close_session();

}  // namespace rmpl::mpi
