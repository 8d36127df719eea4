// Room for buffered sends (MPI_Bsend, MPI_Ibsend, MPI_Bsend_init): the size of an attached buffer
// and what the copies of its messages not yet delivered use. The engine keeps the process's
// (MPI_Buffer_attach) and the ones a communicator or a session attaches (MPI-4.1
// MPI_Comm_attach_buffer, MPI_Session_attach_buffer): a buffered send draws on its
// communicator's, else its session's, else the process's, and fails when its message does not fit.
#pragma once

#include <cstddef>
#include <limits>

namespace rmpl::core {

struct buffer_account {
  /// Bytes the buffer holds (MPI_BUFFER_AUTOMATIC: without bound).
  std::size_t limit = 0;
  /// Bytes of its messages not delivered yet (a detach waits until none are left).
  std::size_t used = 0;
  /// Whether a buffer is attached now: a communicator's or session's account stays known to the
  /// engine between a detach and the next attach, and sends draw on the next one meanwhile.
  bool attached = false;

  static constexpr std::size_t unbounded = std::numeric_limits<std::size_t>::max();
};

}  // namespace rmpl::core
