// Collectives on intercommunicators (MPI-3.1 5.2.2), at the byte level the kernel's collectives
// take (intercomm.cpp): collectives.cpp turns the typed buffers into byte ranges and calls these
// for an intercommunicator as it calls rmpl::detail's for an intracommunicator. Each starts one
// kernel activity and returns its request, so blocking and nonblocking forms share them.
//
// `root` of the rooted ones is MPI's: MPI_ROOT on the root, MPI_PROC_NULL on the rest of its group,
// the root's rank in the remote group on the other group (checked by the caller). Counts and
// displacements are in bytes; block r of a gather, scatter or all-to-all is remote rank r's.
#pragma once

#include "mpi/objects.hpp"

namespace rmpl::mpi::inter {

using detail::bytes_in;
using detail::bytes_out;
using detail::counts;
using detail::request_id;

request_id ibarrier(const rmpl_mpi_comm& c);
request_id ibroadcast(const rmpl_mpi_comm& c, bytes_out data, int root);
/// `in` on the group that sends, `out` at the root.
request_id ireduce(const rmpl_mpi_comm& c, bytes_in in, bytes_out out, const detail::reduction& op,
                   int root);
/// out = the remote group's `in` reduced.
request_id iallreduce(const rmpl_mpi_comm& c, bytes_in in, bytes_out out,
                      const detail::reduction& op);
/// The remote group's `in` reduced, scattered over this group: `shares` (one per local rank,
/// packed in rank order) must add up to in.size(), which both groups pass alike.
request_id ireduce_scatter(const rmpl_mpi_comm& c, bytes_in in, bytes_out out, counts shares,
                           const detail::reduction& op);
/// At the root, `out` holds the remote group's blocks of equal size, in rank order.
request_id igather(const rmpl_mpi_comm& c, bytes_in in, bytes_out out, int root);
request_id igatherv(const rmpl_mpi_comm& c, bytes_in in, bytes_out out, counts recv_counts,
                    counts displs, int root);
/// At the root, `in` holds the remote group's blocks of equal size, in rank order.
request_id iscatter(const rmpl_mpi_comm& c, bytes_in in, bytes_out out, int root);
request_id iscatterv(const rmpl_mpi_comm& c, bytes_in in, counts send_counts, counts displs,
                     bytes_out out, int root);
/// `out` receives the remote group's blocks packed in rank order (`recv_counts` of them for the
/// v-form): it is broadcast whole within the group, so it may have no gaps.
request_id iallgather(const rmpl_mpi_comm& c, bytes_in in, bytes_out out);
request_id iallgatherv(const rmpl_mpi_comm& c, bytes_in in, bytes_out out, counts recv_counts);
request_id ialltoallv(const rmpl_mpi_comm& c, bytes_in in, counts send_counts, counts send_displs,
                      bytes_out out, counts recv_counts, counts recv_displs);

}  // namespace rmpl::mpi::inter
