// The C API's global operations (include/rmpl.h), on the job's world communicator. Each blocking
// call is its i-form followed by a wait. Operators: the built-ins by number, user operators from a
// table (rmpl_op_create returns its index + user_base).
#include <cstring>
#include <string>
#include <vector>

#include "api/c_support.hpp"
#include "api/communicator.hpp"
#include "api/runtime.hpp"
#include "base/error.hpp"
#include "rmpl.h"

namespace {

using rmpl::api::guarded;
using rmpl::detail::builtin_op;
using rmpl::detail::reduction;
using rmpl::detail::request_id;
using rmpl::detail::scalar;

constexpr rmpl_op user_base = 1000;
std::vector<reduction> user_ops;  // index op - user_base; element == 0 once freed

const rmpl::detail::comm_impl& world() {
  return *rmpl::api::world();
}

/// The C function running on this thread, for the messages of the checks below.
thread_local std::string function;
int rank_here() {
  return world().kernel.rank;
}

struct type_info {
  scalar kind;
  std::size_t size;
};

/// The int a C caller passed as an rmpl_type. Read through memcpy: in C any int converts to the
/// enum, but in C++ loading an rmpl_type outside its enumerators' range is undefined behaviour.
int raw(const rmpl_type& t) {
  static_assert(sizeof(rmpl_type) == sizeof(int));
  int value = 0;
  std::memcpy(&value, &t, sizeof value);
  return value;
}

type_info info_of(int t) {
  // clang-format off
  switch (t) {
    case RMPL_INT8: return {scalar::i8, 1};
    case RMPL_INT16: return {scalar::i16, 2};
    case RMPL_INT32: return {scalar::i32, 4};
    case RMPL_INT64: return {scalar::i64, 8};
    case RMPL_UINT8: return {scalar::u8, 1};
    case RMPL_UINT16: return {scalar::u16, 2};
    case RMPL_UINT32: return {scalar::u32, 4};
    case RMPL_UINT64: return {scalar::u64, 8};
    case RMPL_FLOAT: return {scalar::f32, sizeof(float)};
    case RMPL_DOUBLE: return {scalar::f64, sizeof(double)};
    case RMPL_LONG_DOUBLE: return {scalar::f80, sizeof(long double)};
    case RMPL_BOOL: return {scalar::boolean, sizeof(bool)};
    case RMPL_SHORT_INT: return {scalar::vi_i16, sizeof(rmpl::value_index<short>)};
    case RMPL_INT_INT: return {scalar::vi_i32, sizeof(rmpl::value_index<int>)};
    case RMPL_LONG_INT: return {scalar::vi_i64, sizeof(rmpl::value_index<long>)};
    case RMPL_FLOAT_INT: return {scalar::vi_f32, sizeof(rmpl::value_index<float>)};
    case RMPL_DOUBLE_INT: return {scalar::vi_f64, sizeof(rmpl::value_index<double>)};
    case RMPL_LONG_DOUBLE_INT: return {scalar::vi_f80, sizeof(rmpl::value_index<long double>)};
    case RMPL_TYPE_NONE: break;
  }
  // clang-format on
  rmpl::base::fail(rmpl::errc::invalid_argument, "{} on rank {}: {} is not an rmpl_type", function,
                   rank_here(), t);
}

/// The reduction of operator `op` on `type` (ignored for user operators).
reduction reduction_of(int type, rmpl_op op) {
  if (op >= user_base) {
    const auto index = static_cast<std::size_t>(op - user_base);
    if (index >= user_ops.size() || user_ops[index].element == 0) {
      rmpl::base::fail(rmpl::errc::invalid_argument,
                       "{} on rank {}: operator {} is not a live user operator (never created or "
                       "freed)",
                       function, rank_here(), op);
    }
    return user_ops[index];
  }
  if (op < RMPL_SUM || op > RMPL_MAXLOC) {
    rmpl::base::fail(rmpl::errc::invalid_argument, "{} on rank {}: {} is not an rmpl_op", function,
                     rank_here(), op);
  }
  const type_info t = info_of(type);
  reduction r;
  r.op = static_cast<builtin_op>(op - RMPL_SUM + static_cast<int>(builtin_op::sum));
  r.type = t.kind;
  r.element = t.size;
  r.commutative = true;
  return r;
}

/// Byte spans of a C buffer: a null pointer with a non-zero size, or a size no buffer can have,
/// is an error.
rmpl::detail::bytes_in in_bytes(const void* p, std::size_t n) {
  rmpl::api::check_count(n, function.c_str(), "send buffer size");
  if (p == nullptr && n > 0) {
    rmpl::base::fail(rmpl::errc::invalid_argument, "{} on rank {}: null send buffer of {} bytes",
                     function, rank_here(), n);
  }
  return {static_cast<const std::byte*>(p), n};
}
rmpl::detail::bytes_out out_bytes(void* p, std::size_t n) {
  rmpl::api::check_count(n, function.c_str(), "receive buffer size");
  if (p == nullptr && n > 0) {
    rmpl::base::fail(rmpl::errc::invalid_argument, "{} on rank {}: null receive buffer of {} bytes",
                     function, rank_here(), n);
  }
  return {static_cast<std::byte*>(p), n};
}

/// count * element bytes, checked for overflow.
std::size_t times(std::size_t count, std::size_t element, const char* what) {
  return rmpl::api::checked_product(count, element, function.c_str(), what);
}

/// Per-rank counts (or displacements) from a C array: size entries, or none for NULL displs.
std::vector<std::size_t> per_rank(const std::size_t* values, bool required, const char* what) {
  const int n = world().kernel.size;
  if (values == nullptr) {
    if (required) {
      rmpl::base::fail(rmpl::errc::invalid_argument, "{} on rank {}: {} is NULL", function,
                       rank_here(), what);
    }
    return {};
  }
  std::vector<std::size_t> out(values, values + n);
  for (std::size_t r = 0; r < out.size(); ++r) {
    if (out[r] > rmpl::api::max_bytes) {
      rmpl::base::fail(rmpl::errc::invalid_argument,
                       "{} on rank {}: {}[{}] = {} is larger than any buffer (at most {}; a "
                       "negative count converted to size_t?)",
                       function, rank_here(), what, r, out[r], rmpl::api::max_bytes);
    }
  }
  return out;
}
/// The sum of counts (each at most max_bytes), failing when it exceeds max_bytes.
std::size_t total_of(const std::vector<std::size_t>& v) {
  std::size_t t = 0;
  for (std::size_t x : v) {
    if (x > rmpl::api::max_bytes - t) {
      rmpl::base::fail(rmpl::errc::invalid_argument,
                       "{} on rank {}: the counts add up to more than {} bytes", function,
                       rank_here(), rmpl::api::max_bytes);
    }
    t += x;
  }
  return t;
}
std::size_t extent_of(const std::vector<std::size_t>& counts,
                      const std::vector<std::size_t>& displs) {
  if (displs.empty()) return total_of(counts);
  std::size_t end = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    // Both are at most max_bytes (per_rank), so the sum cannot wrap; the buffer's size check
    // (out_bytes, in_bytes) rejects an end beyond max_bytes.
    end = std::max(end, displs[r] + counts[r]);
  }
  return end;
}

/// Starts through `start(how)` (returning a request id) and hands the handle back, or, for the
/// blocking form (no handle), runs the collective to its end (run::to_end). `name` is the C
/// function's, for the messages.
template <class Start>
int run(const char* name, rmpl_handle* handle, Start&& start) {
  return guarded([&] {
    // The blocking forms run the i-forms without a handle: name the function the program called.
    function = handle != nullptr ? std::string(name) : "rmpl_" + std::string(name + 6);
    if (handle != nullptr) {
      *handle = start(rmpl::detail::run::start);
    } else {
      start(rmpl::detail::run::to_end);
    }
    return RMPL_SUCCESS;
  });
}

}  // namespace

extern "C" {

int rmpl_op_create(rmpl_user_function fn, size_t element_size, int commutative, void* context,
                   rmpl_op* op) {
  return guarded([&] {
    if (fn == nullptr || element_size == 0 || op == nullptr) {
      rmpl::base::fail(rmpl::errc::invalid_argument,
                       "rmpl_op_create: needs a function, a non-zero element size and an output");
    }
    reduction r;
    r.element = element_size;
    r.commutative = commutative != 0;
    r.user = [fn, context](const void* in, void* inout, std::size_t count) {
      fn(in, inout, count, context);
    };
    user_ops.push_back(std::move(r));
    *op = user_base + static_cast<rmpl_op>(user_ops.size() - 1);
    return RMPL_SUCCESS;
  });
}

int rmpl_op_free(rmpl_op* op) {
  return guarded([&] {
    function = "rmpl_op_free";
    rmpl::api::require_output(op, "rmpl_op_free", "op");
    reduction_of(RMPL_TYPE_NONE, *op);  // checks it is a live user operator
    if (*op < user_base) {
      rmpl::base::fail(rmpl::errc::invalid_argument, "rmpl_op_free: {} is a built-in operator",
                       *op);
    }
    user_ops[static_cast<std::size_t>(*op - user_base)] = reduction{};
    *op = 0;
    return RMPL_SUCCESS;
  });
}

int rmpl_ibarrier(rmpl_handle* handle) {
  return run("rmpl_ibarrier", handle,
             [&](rmpl::detail::run how) { return rmpl::detail::ibarrier(world(), how); });
}
int rmpl_barrier(void) {
  return rmpl_ibarrier(nullptr);
}

int rmpl_ibroadcast(void* buf, size_t bytes, int root, rmpl_handle* handle) {
  return run("rmpl_ibroadcast", handle, [&](rmpl::detail::run how) {
    return rmpl::detail::ibroadcast(world(), out_bytes(buf, bytes), root, how);
  });
}
int rmpl_broadcast(void* buf, size_t bytes, int root) {
  return rmpl_ibroadcast(buf, bytes, root, nullptr);
}

int rmpl_ireduce(const void* in, void* out, size_t count, rmpl_type type, rmpl_op op, int root,
                 rmpl_handle* handle) {
  return run("rmpl_ireduce", handle, [&](rmpl::detail::run how) {
    const reduction r = reduction_of(raw(type), op);
    const std::size_t bytes = times(count, r.element, "elements");
    const bool root_here = world().kernel.rank == root;
    return rmpl::detail::ireduce(world(), in_bytes(in, bytes),
                                 root_here ? out_bytes(out, bytes) : rmpl::detail::bytes_out{}, r,
                                 root, how);
  });
}
int rmpl_reduce(const void* in, void* out, size_t count, rmpl_type type, rmpl_op op, int root) {
  return rmpl_ireduce(in, out, count, type, op, root, nullptr);
}

int rmpl_iallreduce(const void* in, void* out, size_t count, rmpl_type type, rmpl_op op,
                    rmpl_handle* handle) {
  return run("rmpl_iallreduce", handle, [&](rmpl::detail::run how) {
    const reduction r = reduction_of(raw(type), op);
    const std::size_t bytes = times(count, r.element, "elements");
    return rmpl::detail::iallreduce(world(), in_bytes(in, bytes), out_bytes(out, bytes), r, how);
  });
}
int rmpl_allreduce(const void* in, void* out, size_t count, rmpl_type type, rmpl_op op) {
  return rmpl_iallreduce(in, out, count, type, op, nullptr);
}

int rmpl_iscan(const void* in, void* out, size_t count, rmpl_type type, rmpl_op op,
               rmpl_handle* handle) {
  return run("rmpl_iscan", handle, [&](rmpl::detail::run how) {
    const reduction r = reduction_of(raw(type), op);
    const std::size_t bytes = times(count, r.element, "elements");
    return rmpl::detail::iscan(world(), in_bytes(in, bytes), out_bytes(out, bytes), r, how);
  });
}
int rmpl_scan(const void* in, void* out, size_t count, rmpl_type type, rmpl_op op) {
  return rmpl_iscan(in, out, count, type, op, nullptr);
}

int rmpl_iexscan(const void* in, void* out, size_t count, rmpl_type type, rmpl_op op,
                 rmpl_handle* handle) {
  return run("rmpl_iexscan", handle, [&](rmpl::detail::run how) {
    const reduction r = reduction_of(raw(type), op);
    const std::size_t bytes = times(count, r.element, "elements");
    return rmpl::detail::iexscan(world(), in_bytes(in, bytes), out_bytes(out, bytes), r, how);
  });
}
int rmpl_exscan(const void* in, void* out, size_t count, rmpl_type type, rmpl_op op) {
  return rmpl_iexscan(in, out, count, type, op, nullptr);
}

int rmpl_ireduce_scatter_block(const void* in, void* out, size_t count, rmpl_type type, rmpl_op op,
                               rmpl_handle* handle) {
  return run("rmpl_ireduce_scatter_block", handle, [&](rmpl::detail::run how) {
    const reduction r = reduction_of(raw(type), op);
    const std::size_t block = times(count, r.element, "elements");
    const auto n = static_cast<std::size_t>(world().kernel.size);
    return rmpl::detail::ireduce_scatter_block(world(), in_bytes(in, times(n, block, "blocks")),
                                               out_bytes(out, block), r, how);
  });
}
int rmpl_reduce_scatter_block(const void* in, void* out, size_t count, rmpl_type type, rmpl_op op) {
  return rmpl_ireduce_scatter_block(in, out, count, type, op, nullptr);
}

int rmpl_ireduce_scatter(const void* in, void* out, const size_t* counts, rmpl_type type,
                         rmpl_op op, rmpl_handle* handle) {
  return run("rmpl_ireduce_scatter", handle, [&](rmpl::detail::run how) {
    const reduction r = reduction_of(raw(type), op);
    std::vector<std::size_t> bytes = per_rank(counts, true, "counts");
    for (std::size_t& b : bytes) b = times(b, r.element, "elements");
    const std::size_t mine = bytes[static_cast<std::size_t>(world().kernel.rank)];
    return rmpl::detail::ireduce_scatter(world(), in_bytes(in, total_of(bytes)),
                                         out_bytes(out, mine), bytes, r, how);
  });
}
int rmpl_reduce_scatter(const void* in, void* out, const size_t* counts, rmpl_type type,
                        rmpl_op op) {
  return rmpl_ireduce_scatter(in, out, counts, type, op, nullptr);
}

int rmpl_igather(const void* in, size_t bytes, void* out, int root, rmpl_handle* handle) {
  return run("rmpl_igather", handle, [&](rmpl::detail::run how) {
    const bool root_here = world().kernel.rank == root;
    const auto n = static_cast<std::size_t>(world().kernel.size);
    return rmpl::detail::igather(
        world(), in_bytes(in, bytes),
        root_here ? out_bytes(out, times(n, bytes, "blocks")) : rmpl::detail::bytes_out{}, root,
        how);
  });
}
int rmpl_gather(const void* in, size_t bytes, void* out, int root) {
  return rmpl_igather(in, bytes, out, root, nullptr);
}

int rmpl_igatherv(const void* in, size_t bytes, void* out, const size_t* counts,
                  const size_t* displs, int root, rmpl_handle* handle) {
  return run("rmpl_igatherv", handle, [&](rmpl::detail::run how) {
    std::vector<std::size_t> c, d;
    rmpl::detail::bytes_out place;
    if (world().kernel.rank == root) {
      c = per_rank(counts, true, "counts");
      d = per_rank(displs, false, "displs");
      place = out_bytes(out, extent_of(c, d));
    }
    return rmpl::detail::igatherv(world(), in_bytes(in, bytes), place, c, d, root, how);
  });
}
int rmpl_gatherv(const void* in, size_t bytes, void* out, const size_t* counts,
                 const size_t* displs, int root) {
  return rmpl_igatherv(in, bytes, out, counts, displs, root, nullptr);
}

int rmpl_iscatter(const void* in, void* out, size_t bytes, int root, rmpl_handle* handle) {
  return run("rmpl_iscatter", handle, [&](rmpl::detail::run how) {
    const bool root_here = world().kernel.rank == root;
    const auto n = static_cast<std::size_t>(world().kernel.size);
    return rmpl::detail::iscatter(
        world(), root_here ? in_bytes(in, times(n, bytes, "blocks")) : rmpl::detail::bytes_in{},
        out_bytes(out, bytes), root, how);
  });
}
int rmpl_scatter(const void* in, void* out, size_t bytes, int root) {
  return rmpl_iscatter(in, out, bytes, root, nullptr);
}

int rmpl_iscatterv(const void* in, const size_t* counts, const size_t* displs, void* out,
                   size_t bytes, int root, rmpl_handle* handle) {
  return run("rmpl_iscatterv", handle, [&](rmpl::detail::run how) {
    std::vector<std::size_t> c, d;
    rmpl::detail::bytes_in source;
    if (world().kernel.rank == root) {
      c = per_rank(counts, true, "counts");
      d = per_rank(displs, false, "displs");
      source = in_bytes(in, extent_of(c, d));
    }
    return rmpl::detail::iscatterv(world(), source, c, d, out_bytes(out, bytes), root, how);
  });
}
int rmpl_scatterv(const void* in, const size_t* counts, const size_t* displs, void* out,
                  size_t bytes, int root) {
  return rmpl_iscatterv(in, counts, displs, out, bytes, root, nullptr);
}

int rmpl_iallgather(const void* in, size_t bytes, void* out, rmpl_handle* handle) {
  return run("rmpl_iallgather", handle, [&](rmpl::detail::run how) {
    const auto n = static_cast<std::size_t>(world().kernel.size);
    return rmpl::detail::iallgather(world(), in_bytes(in, bytes),
                                    out_bytes(out, times(n, bytes, "blocks")), how);
  });
}
int rmpl_allgather(const void* in, size_t bytes, void* out) {
  return rmpl_iallgather(in, bytes, out, nullptr);
}

int rmpl_iallgatherv(const void* in, size_t bytes, void* out, const size_t* counts,
                     const size_t* displs, rmpl_handle* handle) {
  return run("rmpl_iallgatherv", handle, [&](rmpl::detail::run how) {
    std::vector<std::size_t> c = per_rank(counts, true, "counts");
    std::vector<std::size_t> d = per_rank(displs, false, "displs");
    return rmpl::detail::iallgatherv(world(), in_bytes(in, bytes), out_bytes(out, extent_of(c, d)),
                                     c, d, how);
  });
}
int rmpl_allgatherv(const void* in, size_t bytes, void* out, const size_t* counts,
                    const size_t* displs) {
  return rmpl_iallgatherv(in, bytes, out, counts, displs, nullptr);
}

int rmpl_ialltoall(const void* in, void* out, size_t block_bytes, rmpl_handle* handle) {
  return run("rmpl_ialltoall", handle, [&](rmpl::detail::run how) {
    const auto n = static_cast<std::size_t>(world().kernel.size);
    return rmpl::detail::ialltoall(world(), in_bytes(in, times(n, block_bytes, "blocks")),
                                   out_bytes(out, times(n, block_bytes, "blocks")), how);
  });
}
int rmpl_alltoall(const void* in, void* out, size_t block_bytes) {
  return rmpl_ialltoall(in, out, block_bytes, nullptr);
}

int rmpl_ialltoallv(const void* in, const size_t* send_counts, const size_t* send_displs, void* out,
                    const size_t* recv_counts, const size_t* recv_displs, rmpl_handle* handle) {
  return run("rmpl_ialltoallv", handle, [&](rmpl::detail::run how) {
    std::vector<std::size_t> sc = per_rank(send_counts, true, "send_counts");
    std::vector<std::size_t> sd = per_rank(send_displs, false, "send_displs");
    std::vector<std::size_t> rc = per_rank(recv_counts, true, "recv_counts");
    std::vector<std::size_t> rd = per_rank(recv_displs, false, "recv_displs");
    return rmpl::detail::ialltoallv(world(), in_bytes(in, extent_of(sc, sd)), sc, sd,
                                    out_bytes(out, extent_of(rc, rd)), rc, rd, how);
  });
}
int rmpl_alltoallv(const void* in, const size_t* send_counts, const size_t* send_displs, void* out,
                   const size_t* recv_counts, const size_t* recv_displs) {
  return rmpl_ialltoallv(in, send_counts, send_displs, out, recv_counts, recv_displs, nullptr);
}

}  // extern "C"
