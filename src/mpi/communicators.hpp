// What the other chapters need of communicators (communicators.cpp): a handle for a communicator
// they had the kernel create (topologies), and its release when that fails half-way.
#pragma once

#include "mpi/call.hpp"
#include "mpi/objects.hpp"

namespace rmpl::mpi {

/// A new communicator handle over `impl` (MPI_COMM_NULL when null: a process outside the new
/// communicator), with `parent`'s error handler, as every communicator built from another inherits
/// it.
MPI_Comm make_comm(detail::comm_ptr impl, const rmpl_mpi_comm& parent);

/// Releases a handle from make_comm without running attribute callbacks (a creation that failed
/// after the handle was made).
void discard_comm(MPI_Comm c) noexcept;

/// MPI_Comm_create_from_group's work: a communicator of the group's members (this process must
/// be one), agreed among them alone under `stringtag`, with `errhandler` (MPI_ERRHANDLER_NULL:
/// MPI_ERRORS_ARE_FATAL).
MPI_Comm comm_from_group(const rmpl_mpi_group& members, const char* stringtag,
                         MPI_Errhandler errhandler);
/// MPI_Intercomm_create_from_groups' work: the intercommunicator between `local` (this process's
/// side) and `remote`, their leaders agreeing under `stringtag`.
MPI_Comm intercomm_from_groups(const rmpl_mpi_group& local, int local_leader,
                               const rmpl_mpi_group& remote, int remote_leader,
                               const char* stringtag, MPI_Errhandler errhandler);

/// A live intracommunicator, for what is defined on those only (or not yet on
/// intercommunicators): an intercommunicator fails with MPI_ERR_COMM and the text `refusal`.
inline rmpl_mpi_comm& intracomm(MPI_Comm c, const char* refusal) {
  rmpl_mpi_comm& checked = comm(c);
  if (checked.inter) [[unlikely]] {
    fail(MPI_ERR_COMM, "{}", refusal);
  }
  return checked;
}

}  // namespace rmpl::mpi
