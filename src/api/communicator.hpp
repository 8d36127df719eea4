// What a public rmpl::communicator handle refers to: the kernel's view of the communicator, and the
// return of its context ids to the pool when the last handle goes.
#pragma once

#include <memory>
#include <string_view>

#include "core/communicator.hpp"
#include "rmpl/rmpl.hpp"

namespace rmpl::detail {

struct comm_impl : std::enable_shared_from_this<comm_impl> {
  explicit comm_impl(core::communicator k);
  ~comm_impl();
  comm_impl(const comm_impl&) = delete;
  comm_impl& operator=(const comm_impl&) = delete;

  /// Mutable because starting a collective counts it (collectives_started) on a const handle.
  mutable core::communicator kernel;
  /// What a failing call does (communicator::set_error_policy); shared by every handle, and
  /// inherited by the communicators made from this one.
  mutable on_error policy = on_error::throw_error;
};

/// Gives `c` its two levels (core::hierarchy) when its members span hosts with several on one:
/// two splits of `c` (by host; the first member of each host), which every member makes alike.
/// Collective over `c`; nothing to do (and no communication) for a communicator on one host or
/// with every member on a host of its own.
void add_hierarchy(const comm_impl& c);

/// What splitting an intercommunicator gives this process: the new intercommunicator (as
/// intercomm_create makes one) and the intracommunicator of its local group; both null where the
/// result is MPI_COMM_NULL.
struct intercomm_parts {
  comm_ptr inter;
  comm_ptr local_group;
};

/// MPI_Comm_split on an intercommunicator (MPI_Comm_create is the split by membership, with the
/// rank in the group as key): the members of `local_group` of this color, by (key, rank), and the
/// remote group's of the same color, by (key, remote rank). Collective over both groups; null
/// parts for color `undefined` and for a color the remote group does not have.
intercomm_parts intercomm_split(const comm_impl& inter, const comm_impl& local_group, int color,
                                int key);

}  // namespace rmpl::detail

namespace rmpl::api {

/// The job rank of `peer` (a rank of `c`, proc_null or any_source), or an invalid_rank error that
/// names the operation, the rank and the communicator's size.
int world_peer(const detail::comm_impl& c, int peer, std::string_view operation);
/// world_peer for a destination, where any_source is an invalid_rank error too.
int world_dest(const detail::comm_impl& c, int dest, std::string_view operation);

}  // namespace rmpl::api
