// The collectives of the C++ API (include/rmpl/rmpl.hpp): each starts the coll layer's operation
// on the communicator's kernel view and hands back the request's id.
#include "coll/collectives.hpp"
#include "api/communicator.hpp"
#include "api/runtime.hpp"

namespace rmpl::detail {
namespace {

coll::target on(const comm_impl& c) {
  // The operation keeps the communicator alive (a handle freed mid-collective) through an aliasing
  // pointer to the kernel view; the view's collective count is the one thing a start changes.
  return coll::target{api::kernel(), c.kernel, c.shared_from_this()};
}

}  // namespace

request_id ibarrier(const comm_impl& c) {
  return coll::start_barrier(on(c))->id();
}
request_id ibroadcast(const comm_impl& c, bytes_out data, int root) {
  return coll::start_broadcast(on(c), data, root)->id();
}
request_id ireduce(const comm_impl& c, bytes_in in, bytes_out out, const reduction& op, int root) {
  return coll::start_reduce(on(c), in, out, op, root)->id();
}
request_id iallreduce(const comm_impl& c, bytes_in in, bytes_out out, const reduction& op) {
  return coll::start_allreduce(on(c), in, out, op)->id();
}
request_id iscan(const comm_impl& c, bytes_in in, bytes_out out, const reduction& op) {
  return coll::start_scan(on(c), in, out, op, false)->id();
}
request_id iexscan(const comm_impl& c, bytes_in in, bytes_out out, const reduction& op) {
  return coll::start_scan(on(c), in, out, op, true)->id();
}
request_id ireduce_scatter_block(const comm_impl& c, bytes_in in, bytes_out out,
                                 const reduction& op) {
  return coll::start_reduce_scatter_block(on(c), in, out, op)->id();
}
request_id ireduce_scatter(const comm_impl& c, bytes_in in, bytes_out out, counts recv_counts,
                           const reduction& op) {
  return coll::start_reduce_scatter(on(c), in, out, recv_counts, op)->id();
}
request_id igather(const comm_impl& c, bytes_in in, bytes_out out, int root) {
  return coll::start_gather(on(c), in, out, root)->id();
}
request_id igatherv(const comm_impl& c, bytes_in in, bytes_out out, counts recv_counts,
                    counts displs, int root) {
  return coll::start_gatherv(on(c), in, out, recv_counts, displs, root)->id();
}
request_id iscatter(const comm_impl& c, bytes_in in, bytes_out out, int root) {
  return coll::start_scatter(on(c), in, out, root)->id();
}
request_id iscatterv(const comm_impl& c, bytes_in in, counts send_counts, counts displs,
                     bytes_out out, int root) {
  return coll::start_scatterv(on(c), in, send_counts, displs, out, root)->id();
}
request_id iallgather(const comm_impl& c, bytes_in in, bytes_out out) {
  return coll::start_allgather(on(c), in, out)->id();
}
request_id iallgatherv(const comm_impl& c, bytes_in in, bytes_out out, counts recv_counts,
                       counts displs) {
  return coll::start_allgatherv(on(c), in, out, recv_counts, displs)->id();
}
request_id ialltoall(const comm_impl& c, bytes_in in, bytes_out out) {
  return coll::start_alltoall(on(c), in, out)->id();
}
request_id ialltoallv(const comm_impl& c, bytes_in in, counts send_counts, counts send_displs,
                      bytes_out out, counts recv_counts, counts recv_displs) {
  return coll::start_alltoallv(on(c), in, send_counts, send_displs, out, recv_counts, recv_displs)
      ->id();
}
request_id ineighbor_exchange(const comm_impl& c, bytes_in in, std::span<const int> destinations,
                              counts send_counts, counts send_displs, bytes_out out,
                              std::span<const int> sources, counts recv_counts,
                              counts recv_displs) {
  return coll::start_neighbor_exchange(on(c), in, destinations, send_counts, send_displs, out,
                                       sources, recv_counts, recv_displs)
      ->id();
}

}  // namespace rmpl::detail
