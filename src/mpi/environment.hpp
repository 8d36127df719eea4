// The layer's view of the MPI environment (environment.cpp): whether MPI is initialised, the
// predefined communicators' objects, and ending the job.
#pragma once

#include "mpi/objects.hpp"

namespace rmpl::mpi {

/// Prints nothing; ends this rank with `code` (non-zero), which makes the launcher end the job.
[[noreturn]] void abort_job(int code) noexcept;

/// Between MPI_Init and MPI_Finalize.
bool running() noexcept;

}  // namespace rmpl::mpi
