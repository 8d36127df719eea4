// MPI requests (requests.cpp): an MPI_Request wraps a kernel request, plus what must happen when it
// completes (unpacking a staged receive, releasing a staged send's copy).
#pragma once

#include <functional>
#include <memory>

#include "mpi/call.hpp"
#include "mpi/objects.hpp"

namespace rmpl::mpi {

/// A new request for kernel request `id` started on `comm`.
MPI_Request make_request(MPI_Comm comm, request_kind kind, detail::request_id id);
/// Checks the address where a call will write a new request (MPI_ERR_ARG when null).
inline void check_request_out(MPI_Request* request) {
  if (request == nullptr) fail(MPI_ERR_ARG, "the request pointer is null");
}
/// The same, with `on_complete`, which runs once when the kernel request completes successfully
/// (before the status is reported); it may keep state alive (captured) until then.
MPI_Request make_request(MPI_Comm comm, request_kind kind, detail::request_id id,
                         std::function<void(MPI_Status&)> on_complete);
/// A request that is complete already, with status `s` (operations on MPI_PROC_NULL, zero-size
/// collectives that needed no communication).
MPI_Request completed_request(MPI_Comm comm, request_kind kind, const MPI_Status& s);

/// An inactive persistent request; MPI_Start calls `start`, which starts the operation again and
/// returns its kernel request.
MPI_Request persistent_request(MPI_Comm comm, request_kind kind,
                               std::function<detail::request_id(rmpl_mpi_request&)> start);
/// A derived datatype's own copy for a persistent request (null for a predefined one), which
/// the program may free while the request lives.
std::shared_ptr<rmpl_mpi_datatype> keep_type(const rmpl_mpi_datatype& t);
/// What a persistent request's MPI_Start takes over from the request `started` it made: its
/// completion, staging and immediate status; returns its kernel request. `started` is freed.
detail::request_id take_over(rmpl_mpi_request& self, MPI_Request started);
/// The request a handle names (null for MPI_REQUEST_NULL), or an error naming what it is instead.
rmpl_mpi_request* live_request(MPI_Request r);
/// The communicator whose error handler reports a failure of request `r` (null if none).
MPI_Comm request_comm(MPI_Request r) noexcept;
/// Completes the kernel requests of requests freed while pending (MPI_Finalize).
void finalize_requests();

}  // namespace rmpl::mpi
