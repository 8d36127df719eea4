// What a public rmpl::communicator handle refers to: the kernel's view of the communicator, and the
// return of its context ids to the pool when the last handle goes.
#pragma once

#include <memory>
#include <string_view>

#include "core/communicator.hpp"
#include "rmpl/rmpl.hpp"

namespace rmpl::detail {

struct comm_impl : std::enable_shared_from_this<comm_impl> {
  explicit comm_impl(core::communicator k) : kernel(std::move(k)) {}
  ~comm_impl();
  comm_impl(const comm_impl&) = delete;
  comm_impl& operator=(const comm_impl&) = delete;

  /// Mutable because starting a collective counts it (collectives_started) on a const handle.
  mutable core::communicator kernel;
};

}  // namespace rmpl::detail

namespace rmpl::api {

/// The job rank of `peer` (a rank of `c`, proc_null or any_source), or an invalid_rank error that
/// names the operation, the rank and the communicator's size.
int world_peer(const detail::comm_impl& c, int peer, std::string_view operation);

}  // namespace rmpl::api
