// The collectives of the C++ API (include/rmpl/rmpl.hpp): each starts the coll layer's operation
// on the communicator's kernel view and hands back the request's id.
#include "coll/collectives.hpp"
#include "api/communicator.hpp"
#include "api/runtime.hpp"

namespace rmpl::detail {
namespace {

coll::target on(const comm_impl& c, run how) {
  // A blocking collective ends before its caller returns, so the caller's handle keeps the
  // communicator alive; a started one keeps it alive itself (a handle freed mid-collective)
  // through an aliasing pointer to the kernel view, whose collective count is the one thing a
  // start changes.
  if (how == run::to_end) return coll::target{api::kernel(), c.kernel, nullptr, true};
  return coll::target{api::kernel(), c.kernel, c.shared_from_this()};
}

/// The request of a started collective; null_request for one that ran to its end.
request_id id_of(core::request* r) noexcept {
  return r != nullptr ? r->id() : null_request;
}

}  // namespace

// Each iX_now starts the collective; iX takes the library lock around it under MULTIPLE
// (api::locked: a test of the flag on the unlocked way, not a guard object).
static request_id ibarrier_now(const comm_impl& c, run how) {
  return id_of(coll::start_barrier(on(c, how)));
}
request_id ibarrier(const comm_impl& c, run how) {
  return api::locked<ibarrier_now>(c, how);
}
static request_id ibroadcast_now(const comm_impl& c, bytes_out data, int root, run how) {
  return id_of(coll::start_broadcast(on(c, how), data, root));
}
request_id ibroadcast(const comm_impl& c, bytes_out data, int root, run how) {
  return api::locked<ibroadcast_now>(c, data, root, how);
}
static request_id ireduce_now(const comm_impl& c, bytes_in in, bytes_out out, const reduction& op,
                              int root, run how) {
  return id_of(coll::start_reduce(on(c, how), in, out, op, root));
}
request_id ireduce(const comm_impl& c, bytes_in in, bytes_out out, const reduction& op, int root,
                   run how) {
  return api::locked<ireduce_now>(c, in, out, op, root, how);
}
static request_id iallreduce_now(const comm_impl& c, bytes_in in, bytes_out out,
                                 const reduction& op, run how) {
  return id_of(coll::start_allreduce(on(c, how), in, out, op));
}
request_id iallreduce(const comm_impl& c, bytes_in in, bytes_out out, const reduction& op,
                      run how) {
  return api::locked<iallreduce_now>(c, in, out, op, how);
}
static request_id iscan_now(const comm_impl& c, bytes_in in, bytes_out out, const reduction& op,
                            run how) {
  return id_of(coll::start_scan(on(c, how), in, out, op, false));
}
request_id iscan(const comm_impl& c, bytes_in in, bytes_out out, const reduction& op, run how) {
  return api::locked<iscan_now>(c, in, out, op, how);
}
static request_id iexscan_now(const comm_impl& c, bytes_in in, bytes_out out, const reduction& op,
                              run how) {
  return id_of(coll::start_scan(on(c, how), in, out, op, true));
}
request_id iexscan(const comm_impl& c, bytes_in in, bytes_out out, const reduction& op, run how) {
  return api::locked<iexscan_now>(c, in, out, op, how);
}
static request_id ireduce_scatter_block_now(const comm_impl& c, bytes_in in, bytes_out out,
                                            const reduction& op, run how) {
  return id_of(coll::start_reduce_scatter_block(on(c, how), in, out, op));
}
request_id ireduce_scatter_block(const comm_impl& c, bytes_in in, bytes_out out,
                                 const reduction& op, run how) {
  return api::locked<ireduce_scatter_block_now>(c, in, out, op, how);
}
static request_id ireduce_scatter_now(const comm_impl& c, bytes_in in, bytes_out out,
                                      counts recv_counts, const reduction& op, run how) {
  return id_of(coll::start_reduce_scatter(on(c, how), in, out, recv_counts, op));
}
request_id ireduce_scatter(const comm_impl& c, bytes_in in, bytes_out out, counts recv_counts,
                           const reduction& op, run how) {
  return api::locked<ireduce_scatter_now>(c, in, out, recv_counts, op, how);
}
static request_id igather_now(const comm_impl& c, bytes_in in, bytes_out out, int root, run how) {
  return id_of(coll::start_gather(on(c, how), in, out, root));
}
request_id igather(const comm_impl& c, bytes_in in, bytes_out out, int root, run how) {
  return api::locked<igather_now>(c, in, out, root, how);
}
static request_id igatherv_now(const comm_impl& c, bytes_in in, bytes_out out, counts recv_counts,
                               counts displs, int root, run how) {
  return id_of(coll::start_gatherv(on(c, how), in, out, recv_counts, displs, root));
}
request_id igatherv(const comm_impl& c, bytes_in in, bytes_out out, counts recv_counts,
                    counts displs, int root, run how) {
  return api::locked<igatherv_now>(c, in, out, recv_counts, displs, root, how);
}
static request_id iscatter_now(const comm_impl& c, bytes_in in, bytes_out out, int root, run how) {
  return id_of(coll::start_scatter(on(c, how), in, out, root));
}
request_id iscatter(const comm_impl& c, bytes_in in, bytes_out out, int root, run how) {
  return api::locked<iscatter_now>(c, in, out, root, how);
}
static request_id iscatterv_now(const comm_impl& c, bytes_in in, counts send_counts, counts displs,
                                bytes_out out, int root, run how) {
  return id_of(coll::start_scatterv(on(c, how), in, send_counts, displs, out, root));
}
request_id iscatterv(const comm_impl& c, bytes_in in, counts send_counts, counts displs,
                     bytes_out out, int root, run how) {
  return api::locked<iscatterv_now>(c, in, send_counts, displs, out, root, how);
}
static request_id iallgather_now(const comm_impl& c, bytes_in in, bytes_out out, run how) {
  return id_of(coll::start_allgather(on(c, how), in, out));
}
request_id iallgather(const comm_impl& c, bytes_in in, bytes_out out, run how) {
  return api::locked<iallgather_now>(c, in, out, how);
}
static request_id iallgatherv_now(const comm_impl& c, bytes_in in, bytes_out out,
                                  counts recv_counts, counts displs, run how) {
  return id_of(coll::start_allgatherv(on(c, how), in, out, recv_counts, displs));
}
request_id iallgatherv(const comm_impl& c, bytes_in in, bytes_out out, counts recv_counts,
                       counts displs, run how) {
  return api::locked<iallgatherv_now>(c, in, out, recv_counts, displs, how);
}
static request_id ialltoall_now(const comm_impl& c, bytes_in in, bytes_out out, run how) {
  return id_of(coll::start_alltoall(on(c, how), in, out));
}
request_id ialltoall(const comm_impl& c, bytes_in in, bytes_out out, run how) {
  return api::locked<ialltoall_now>(c, in, out, how);
}
static request_id ialltoallv_now(const comm_impl& c, bytes_in in, counts send_counts,
                                 counts send_displs, bytes_out out, counts recv_counts,
                                 counts recv_displs, run how) {
  return id_of(coll::start_alltoallv(on(c, how), in, send_counts, send_displs, out, recv_counts,
                                     recv_displs));
}
request_id ialltoallv(const comm_impl& c, bytes_in in, counts send_counts, counts send_displs,
                      bytes_out out, counts recv_counts, counts recv_displs, run how) {
  return api::locked<ialltoallv_now>(c, in, send_counts, send_displs, out, recv_counts, recv_displs,
                                     how);
}
static request_id ineighbor_exchange_now(const comm_impl& c, bytes_in in,
                                         std::span<const int> destinations, counts send_counts,
                                         counts send_displs, bytes_out out,
                                         std::span<const int> sources, counts recv_counts,
                                         counts recv_displs, run how) {
  return id_of(coll::start_neighbor_exchange(on(c, how), in, destinations, send_counts, send_displs,
                                             out, sources, recv_counts, recv_displs));
}
request_id ineighbor_exchange(const comm_impl& c, bytes_in in, std::span<const int> destinations,
                              counts send_counts, counts send_displs, bytes_out out,
                              std::span<const int> sources, counts recv_counts, counts recv_displs,
                              run how) {
  return api::locked<ineighbor_exchange_now>(c, in, destinations, send_counts, send_displs, out,
                                             sources, recv_counts, recv_displs, how);
}

}  // namespace rmpl::detail
