// The C API (include/rmpl.h), ACLMPL-style: every call returns a code; the text of the last failure
// is kept for rmpl_last_error().
#include "rmpl.h"

#include <string>

#include "api/c_support.hpp"
#include "api/runtime.hpp"
#include "base/error.hpp"
#include "rmpl/rmpl.hpp"

namespace {

using rmpl::api::check_count;
using rmpl::api::guarded;
using rmpl::api::require_output;

using rmpl::api::to_c;
constexpr std::uint32_t world = 0;

}  // namespace

extern "C" {

int rmpl_init(int*, char***) {
  return guarded([] {
    rmpl::api::acquire();
    return RMPL_SUCCESS;
  });
}
int rmpl_init_threads(int*, char***) {
  return guarded([] {
    rmpl::api::acquire_multiple();
    return RMPL_SUCCESS;
  });
}
int rmpl_finalize(void) {
  return guarded([] {
    if (!rmpl::api::initialized()) {
      rmpl::base::fail(rmpl::errc::not_initialized, "rmpl_finalize without rmpl_init");
    }
    rmpl::api::release();
    return RMPL_SUCCESS;
  });
}
int rmpl_self_address(int* rank) {
  return guarded([&] {
    require_output(rank, "rmpl_self_address", "rank");
    *rank = rmpl::api::kernel().rank();
    return RMPL_SUCCESS;
  });
}
int rmpl_partition_size(int* size) {
  return guarded([&] {
    require_output(size, "rmpl_partition_size", "size");
    *size = rmpl::api::kernel().size();
    return RMPL_SUCCESS;
  });
}
int rmpl_send(const void* buf, size_t bytes, int dest, int tag) {
  return guarded([&] {
    check_count(bytes, "rmpl_send", "byte count");
    rmpl::api::kernel().send(world, buf, bytes, dest, tag, rmpl::send_mode::synchronous);
    return RMPL_SUCCESS;
  });
}
int rmpl_receive(void* buf, size_t capacity, int source, int tag, rmpl_status* status) {
  return guarded([&] {
    check_count(capacity, "rmpl_receive", "capacity");
    to_c(rmpl::api::kernel().recv(world, buf, capacity, source, tag), status);
    return RMPL_SUCCESS;
  });
}
int rmpl_send_and_receive(const void* sbuf, size_t sbytes, int dest, int stag, void* rbuf,
                          size_t capacity, int source, int rtag, rmpl_status* status) {
  return guarded([&] {
    check_count(sbytes, "rmpl_send_and_receive", "byte count");
    check_count(capacity, "rmpl_send_and_receive", "capacity");
    to_c(rmpl::detail::sendrecv(*rmpl::api::world(), sbuf, sbytes, dest, stag, rbuf, capacity,
                                source, rtag),
         status);
    return RMPL_SUCCESS;
  });
}
int rmpl_send_async(const void* buf, size_t bytes, int dest, int tag, rmpl_handle* handle) {
  return guarded([&] {
    check_count(bytes, "rmpl_send_async", "byte count");
    require_output(handle, "rmpl_send_async", "handle");
    *handle =
        rmpl::detail::isend(*rmpl::api::world(), buf, bytes, dest, tag, rmpl::send_mode::standard);
    return RMPL_SUCCESS;
  });
}
int rmpl_receive_async(void* buf, size_t capacity, int source, int tag, rmpl_status* status) {
  return guarded([&] {
    check_count(capacity, "rmpl_receive_async", "capacity");
    rmpl::core::engine& e = rmpl::api::kernel();
    rmpl::status probe;
    if (!e.iprobe(world, source, tag, &probe)) return static_cast<int>(RMPL_NO_MESSAGE);
    // The probed message is the earliest match, so the receive takes exactly it.
    to_c(e.recv(world, buf, capacity, probe.source, probe.tag), status);
    return static_cast<int>(RMPL_SUCCESS);
  });
}
int rmpl_receive_async_block(void* buf, size_t capacity, int source, int tag, rmpl_status* status) {
  return rmpl_receive(buf, capacity, source, tag, status);
}
int rmpl_receive_post(void* buf, size_t capacity, int source, int tag, rmpl_handle* handle) {
  return guarded([&] {
    check_count(capacity, "rmpl_receive_post", "capacity");
    require_output(handle, "rmpl_receive_post", "handle");
    *handle = rmpl::detail::irecv(*rmpl::api::world(), buf, capacity, source, tag);
    return RMPL_SUCCESS;
  });
}
int rmpl_test(rmpl_handle* handle, int* done, rmpl_status* status) {
  return guarded([&] {
    require_output(handle, "rmpl_test", "handle");
    require_output(done, "rmpl_test", "done");
    rmpl::status s;
    *done = 0;
    if (*handle == 0) {
      *done = 1;
      return RMPL_SUCCESS;
    }
    if (rmpl::detail::test(*handle, &s)) {
      *done = 1;
      to_c(s, status);
    }
    return RMPL_SUCCESS;
  });
}
int rmpl_wait(rmpl_handle* handle, rmpl_status* status) {
  return guarded([&] {
    require_output(handle, "rmpl_wait", "handle");
    if (*handle != 0) to_c(rmpl::detail::wait(*handle), status);
    return RMPL_SUCCESS;
  });
}
int rmpl_wait_all(rmpl_handle* handles, size_t count) {
  if (handles == nullptr && count > 0) {
    return guarded([&]() -> int {
      rmpl::base::fail(rmpl::errc::invalid_argument,
                       "rmpl_wait_all on rank {}: handles is NULL with a count of {}",
                       rmpl::detail::world_rank(), count);
    });
  }
  int first = RMPL_SUCCESS;
  for (size_t i = 0; i < count; ++i) {
    const int rc = rmpl_wait(&handles[i], nullptr);
    if (rc != RMPL_SUCCESS && first == RMPL_SUCCESS) first = rc;
  }
  return first;
}
int rmpl_set_errors(int mode) {
  return guarded([&] {
    if (mode != RMPL_ERRORS_RETURN && mode != RMPL_ERRORS_ARE_FATAL) {
      rmpl::base::fail(rmpl::errc::invalid_argument,
                       "rmpl_set_errors: {} is neither RMPL_ERRORS_RETURN ({}) nor "
                       "RMPL_ERRORS_ARE_FATAL ({})",
                       mode, RMPL_ERRORS_RETURN, RMPL_ERRORS_ARE_FATAL);
    }
    rmpl::detail::set_error_policy(*rmpl::api::world(), mode == RMPL_ERRORS_ARE_FATAL
                                                            ? rmpl::on_error::abort
                                                            : rmpl::on_error::throw_error);
    return RMPL_SUCCESS;
  });
}
int rmpl_get_errors(int* mode) {
  return guarded([&] {
    require_output(mode, "rmpl_get_errors", "mode");
    rmpl::api::kernel();  // not_initialized before rmpl_init
    *mode = rmpl::api::world_error_policy() == rmpl::on_error::abort ? RMPL_ERRORS_ARE_FATAL
                                                                     : RMPL_ERRORS_RETURN;
    return RMPL_SUCCESS;
  });
}
const char* rmpl_error_string(int code) {
  if (code < 0 || code > RMPL_ERR_EXHAUSTED) return "unknown rmpl error code";
  return rmpl::to_string(static_cast<rmpl::errc>(code));
}
const char* rmpl_last_error(void) {
  return rmpl::api::last_c_error().c_str();
}
double rmpl_wtime(void) {
  return rmpl::session::wtime();
}

}  // extern "C"
