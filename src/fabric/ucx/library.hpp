// UCX's UCP library, loaded when a job first needs it (a job whose ranks span hosts), not linked:
// a one-host job, a static program and a machine without UCX pay nothing for it, and librmpl and
// libmpi keep the dependencies they had. The declarations come from Debian's libucx-dev headers;
// the functions from libucp.so.0 through this table.
#pragma once

#include <ucp/api/ucp.h>

#include <string>

namespace rmpl::fabric::ucx {

struct library {
// clang-format off
#define RMPL_UCX_FUNCTIONS(X) \
  X(ucp_config_read) \
  X(ucp_config_release) \
  X(ucp_init_version) \
  X(ucp_cleanup) \
  X(ucp_worker_create) \
  X(ucp_worker_destroy) \
  X(ucp_worker_query) \
  X(ucp_worker_release_address) \
  X(ucp_worker_progress) \
  X(ucp_worker_get_efd) \
  X(ucp_worker_arm) \
  X(ucp_worker_set_am_recv_handler) \
  X(ucp_ep_create) \
  X(ucp_ep_close_nbx) \
  X(ucp_ep_flush_nbx) \
  X(ucp_am_send_nbx) \
  X(ucp_am_recv_data_nbx) \
  X(ucp_am_data_release) \
  X(ucp_mem_map) \
  X(ucp_mem_unmap) \
  X(ucp_rkey_pack) \
  X(ucp_rkey_buffer_release) \
  X(ucp_ep_rkey_unpack) \
  X(ucp_rkey_destroy) \
  X(ucp_put_nbx) \
  X(ucp_get_nbx) \
  X(ucp_atomic_op_nbx) \
  X(ucp_request_check_status) \
  X(ucp_request_free) \
  X(ucs_status_string) \
  X(ucp_get_version_string)
// clang-format on
#define RMPL_UCX_MEMBER(name) decltype(&::name) name = nullptr;
  RMPL_UCX_FUNCTIONS(RMPL_UCX_MEMBER)
#undef RMPL_UCX_MEMBER

  /// The library, loaded on first call (then the same table). Throws rmpl::error naming what is
  /// missing.
  static const library& get();
  /// "1.13.1": the version of the library loaded.
  std::string version() const {
    return ucp_get_version_string();
  }
};

}  // namespace rmpl::fabric::ucx
