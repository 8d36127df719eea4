// Collectives on intercommunicators (intercomm.hpp), composed as MPICH composes them: the kernel's
// own algorithms run on each side's local group (the intracommunicator every intercommunicator
// keeps, objects.hpp), and point-to-point joins the groups, between their leaders (local rank 0)
// or straight between peers. Broadcast: the root sends to the remote leader, which broadcasts in
// its group. Reduce: the group reduces to its leader, which sends to the root. Allreduce: each
// group reduces to its leader, the leaders swap, each broadcasts what it got. The all-to-alls
// exchange with every remote peer directly.
//
// One collective is one coroutine over two exchanges: `across`, on the intercommunicator's
// collective context (which no user message uses: its point-to-point has the other context of the
// pair), whose ranks are the remote group's; `within`, on the local group's collective context,
// which runs the local algorithm as a nested step. The whole runs as one kernel activity, so the
// nonblocking forms progress like any other collective and the blocking ones wait for it. The
// local steps use the kernel's tree algorithms (binomial broadcast, reduce, gather and scatter,
// dissemination barrier, linear scatterv) directly rather than through its per-size choice, which
// only the intracommunicator entry points make.
#include "mpi/intercomm.hpp"

#include <cstddef>
#include <memory>
#include <numeric>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "api/communicator.hpp"
#include "api/runtime.hpp"
#include "coll/algorithms.hpp"
#include "coll/combine.hpp"
#include "coll/scratch.hpp"
#include "coll/task.hpp"

namespace rmpl::mpi::inter {
namespace {

using coll::exchange;
using coll::layout;
using coll::scratch;
using coll::task;
using const_bytes = std::span<const std::byte>;
using bytes = std::span<std::byte>;
using detail::reduction;

/// What a collective keeps alive until it ends: both kernel communicators (the program may free
/// the handle while a nonblocking collective still runs).
struct sides {
  detail::comm_ptr inter;
  detail::comm_ptr local;
};

/// Starts `algorithm(across, within)` as one activity of the engine.
template <class Algorithm>
request_id launch(const rmpl_mpi_comm& c, std::string_view collective, std::size_t bytes,
                  Algorithm&& algorithm) {
  core::engine& e = api::kernel();
  auto keep = std::make_shared<const sides>(sides{c.impl, c.local_group});
  auto op = std::make_unique<coll::operation>(
      e, std::move(keep),
      coll::operation::label{collective, "intercommunicator", bytes, c.local_group->kernel.size});
  // Every process of both groups takes the next tag of both communicators at every collective,
  // whatever its part in it, so the counts stay equal everywhere.
  exchange across(*op, e, c.impl->kernel, c.impl->kernel.next_collective_tag());
  exchange within(*op, e, c.local_group->kernel, c.local_group->kernel.next_collective_tag());
  op->run(algorithm(across, within));
  return e.start_activity(std::move(op))->id();
}

/// A built-in operator the kernel cannot apply to the type fails here, on every process, as the
/// intracommunicator collectives fail at their start.
void check_reduction(const reduction& op) {
  if (op.op != detail::builtin_op::none) coll::check_combinable(op);
}

layout blocks_of(counts sizes, counts displs) {
  layout l;
  l.counts.assign(sizes.begin(), sizes.end());
  if (displs.empty()) {
    l.displs.resize(l.counts.size());
    std::exclusive_scan(l.counts.begin(), l.counts.end(), l.displs.begin(), std::size_t{0});
  } else {
    l.displs.assign(displs.begin(), displs.end());
  }
  return l;
}

std::size_t times(std::size_t block, int n) {
  return block * static_cast<std::size_t>(n);
}

// ---- the algorithms (parameters by value: they live in the coroutine's frame) ----

/// Each group meets in a barrier, the leaders swap an empty message, and each leader releases its
/// group: nobody leaves before every process of both groups has arrived.
task barrier(exchange across, exchange within) {
  co_await within.run(coll::barrier_dissemination(within));
  if (within.rank() == 0) {
    across.send({}, 0);
    across.recv({}, 0);
    co_await across.all();
  }
  co_await within.run(coll::broadcast_binomial(within, {}, 0));
}

task broadcast(exchange across, exchange within, bytes data, int root) {
  if (root == MPI_ROOT) {
    across.send(data, 0);
    co_await across.all();
  } else if (root != MPI_PROC_NULL) {
    if (within.rank() == 0) {
      across.recv(data, root);
      co_await across.all();
    }
    co_await within.run(coll::broadcast_binomial(within, data, 0));
  }
}

task reduce(exchange across, exchange within, const_bytes in, bytes out, reduction op, int root) {
  if (root == MPI_ROOT) {
    across.recv(out, 0);
    co_await across.all();
    co_return;
  }
  if (root == MPI_PROC_NULL) co_return;
  const bool leader = within.rank() == 0;
  scratch reduced(leader ? in.size() : 0);
  co_await within.run(coll::reduce_binomial(within, in, reduced, std::move(op), 0));
  if (leader) {
    across.send(reduced, root);
    co_await across.all();
  }
}

task allreduce(exchange across, exchange within, const_bytes in, bytes out, reduction op) {
  const bool leader = within.rank() == 0;
  scratch reduced(leader ? in.size() : 0);
  co_await within.run(coll::reduce_binomial(within, in, reduced, std::move(op), 0));
  if (leader) {
    across.send(reduced, 0);
    across.recv(out, 0);
    co_await across.all();
  }
  co_await within.run(coll::broadcast_binomial(within, out, 0));
}

task reduce_scatter(exchange across, exchange within, const_bytes in, bytes out, layout shares,
                    reduction op) {
  const bool leader = within.rank() == 0;
  scratch reduced(leader ? in.size() : 0), remote(leader ? in.size() : 0);
  co_await within.run(coll::reduce_binomial(within, in, reduced, std::move(op), 0));
  if (leader) {
    across.send(reduced, 0);
    across.recv(remote, 0);
    co_await across.all();
  }
  co_await within.run(coll::scatterv_linear(within, remote, std::move(shares), out, 0));
}

task gather(exchange across, exchange within, const_bytes in, bytes out, int root) {
  if (root == MPI_ROOT) {
    across.recv(out, 0);
    co_await across.all();
    co_return;
  }
  if (root == MPI_PROC_NULL) co_return;
  const bool leader = within.rank() == 0;
  scratch blocks(leader ? times(in.size(), within.size()) : 0);
  co_await within.run(coll::gather_binomial(within, in, blocks, 0));
  if (leader) {
    across.send(blocks, root);
    co_await across.all();
  }
}

/// Every process of the sending group sends its block straight to the root.
task gatherv(exchange across, const_bytes in, bytes out, layout blocks, int root) {
  if (root == MPI_ROOT) {
    for (int r = 0; r < across.size(); ++r) {
      across.recv(out.subspan(blocks.displ(r), blocks.count(r)), r);
    }
  } else if (root != MPI_PROC_NULL) {
    across.send(in, root);
  }
  co_await across.all();
}

task scatter(exchange across, exchange within, const_bytes in, bytes out, int root) {
  if (root == MPI_ROOT) {
    across.send(in, 0);
    co_await across.all();
    co_return;
  }
  if (root == MPI_PROC_NULL) co_return;
  const bool leader = within.rank() == 0;
  scratch blocks(leader ? times(out.size(), within.size()) : 0);
  if (leader) {
    across.recv(blocks, root);
    co_await across.all();
  }
  co_await within.run(coll::scatter_binomial(within, blocks, out, 0));
}

/// The root sends each block straight to its process.
task scatterv(exchange across, const_bytes in, layout blocks, bytes out, int root) {
  if (root == MPI_ROOT) {
    for (int r = 0; r < across.size(); ++r) {
      across.send(in.subspan(blocks.displ(r), blocks.count(r)), r);
    }
  } else if (root != MPI_PROC_NULL) {
    across.recv(out, root);
  }
  co_await across.all();
}

task allgather(exchange across, exchange within, const_bytes in, bytes out) {
  const bool leader = within.rank() == 0;
  scratch blocks(leader ? times(in.size(), within.size()) : 0);
  co_await within.run(coll::gather_binomial(within, in, blocks, 0));
  if (leader) {
    across.send(blocks, 0);
    across.recv(out, 0);
    co_await across.all();
  }
  co_await within.run(coll::broadcast_binomial(within, out, 0));
}

/// Blocks of different sizes: every process sends its own to the remote leader, which knows them
/// all (its receive counts) and broadcasts them in its group.
task allgatherv(exchange across, exchange within, const_bytes in, bytes out, layout blocks) {
  across.send(in, 0);
  if (within.rank() == 0) {
    for (int r = 0; r < across.size(); ++r) {
      across.recv(out.subspan(blocks.displ(r), blocks.count(r)), r);
    }
  }
  co_await across.all();
  co_await within.run(coll::broadcast_binomial(within, out, 0));
}

/// Block r goes to remote rank r and block r comes from it, starting with this rank's own number
/// so that not every process sends to remote rank 0 first.
task alltoallv(exchange across, const_bytes in, layout send, bytes out, layout recv) {
  const int n = across.size();
  for (int i = 0; i < n; ++i) {
    const int r = (across.rank() + i) % n;
    across.recv(out.subspan(recv.displ(r), recv.count(r)), r);
    across.send(in.subspan(send.displ(r), send.count(r)), r);
  }
  co_await across.all();
}

}  // namespace

request_id ibarrier(const rmpl_mpi_comm& c) {
  return launch(c, "barrier", 0, [](exchange a, exchange w) { return barrier(a, w); });
}

request_id ibroadcast(const rmpl_mpi_comm& c, bytes_out data, int root) {
  return launch(c, "broadcast", data.size(),
                [&](exchange a, exchange w) { return broadcast(a, w, data, root); });
}

request_id ireduce(const rmpl_mpi_comm& c, bytes_in in, bytes_out out, const detail::reduction& op,
                   int root) {
  check_reduction(op);
  return launch(c, "reduce", in.size(),
                [&](exchange a, exchange w) { return reduce(a, w, in, out, op, root); });
}

request_id iallreduce(const rmpl_mpi_comm& c, bytes_in in, bytes_out out,
                      const detail::reduction& op) {
  check_reduction(op);
  return launch(c, "allreduce", in.size(),
                [&](exchange a, exchange w) { return allreduce(a, w, in, out, op); });
}

request_id ireduce_scatter(const rmpl_mpi_comm& c, bytes_in in, bytes_out out, counts shares,
                           const detail::reduction& op) {
  check_reduction(op);
  return launch(c, "reduce_scatter", in.size(), [&](exchange a, exchange w) {
    return reduce_scatter(a, w, in, out, blocks_of(shares, {}), op);
  });
}

request_id igather(const rmpl_mpi_comm& c, bytes_in in, bytes_out out, int root) {
  return launch(c, "gather", in.size(),
                [&](exchange a, exchange w) { return gather(a, w, in, out, root); });
}

request_id igatherv(const rmpl_mpi_comm& c, bytes_in in, bytes_out out, counts recv_counts,
                    counts displs, int root) {
  return launch(c, "gatherv", in.size(), [&](exchange a, exchange) {
    return gatherv(a, in, out, blocks_of(recv_counts, displs), root);
  });
}

request_id iscatter(const rmpl_mpi_comm& c, bytes_in in, bytes_out out, int root) {
  return launch(c, "scatter", out.size(),
                [&](exchange a, exchange w) { return scatter(a, w, in, out, root); });
}

request_id iscatterv(const rmpl_mpi_comm& c, bytes_in in, counts send_counts, counts displs,
                     bytes_out out, int root) {
  return launch(c, "scatterv", out.size(), [&](exchange a, exchange) {
    return scatterv(a, in, blocks_of(send_counts, displs), out, root);
  });
}

request_id iallgather(const rmpl_mpi_comm& c, bytes_in in, bytes_out out) {
  return launch(c, "allgather", in.size(),
                [&](exchange a, exchange w) { return allgather(a, w, in, out); });
}

request_id iallgatherv(const rmpl_mpi_comm& c, bytes_in in, bytes_out out, counts recv_counts) {
  return launch(c, "allgatherv", in.size(), [&](exchange a, exchange w) {
    return allgatherv(a, w, in, out, blocks_of(recv_counts, {}));
  });
}

request_id ialltoallv(const rmpl_mpi_comm& c, bytes_in in, counts send_counts, counts send_displs,
                      bytes_out out, counts recv_counts, counts recv_displs) {
  return launch(c, "alltoall", in.size(), [&](exchange a, exchange) {
    return alltoallv(a, in, blocks_of(send_counts, send_displs), out,
                     blocks_of(recv_counts, recv_displs));
  });
}

}  // namespace rmpl::mpi::inter
