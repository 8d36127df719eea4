// Partitioned point-to-point communication (MPI-4.0 chapter 4): a persistent send whose buffer the
// program fills in partitions, marking each ready (MPI_Pready...), and a persistent receive that
// can say whether a partition has arrived (MPI_Parrived). The transfer is one message: the send
// starts once the last partition is marked (in that call, on the program's thread), and a
// partition has arrived when the whole message has. An activity of the engine stands for the
// send from MPI_Start on, so that MPI_Wait and MPI_Test see it like any request.
#include <climits>
#include <memory>
#include <vector>

#include "api/runtime.hpp"
#include "core/engine.hpp"
#include "mpi/call.hpp"
#include "mpi/info.hpp"
#include "mpi/point_to_point.hpp"
#include "mpi/requests.hpp"

namespace rmpl::mpi {

/// A partitioned request's arguments and the state of its current round.
struct partitioned {
  bool send = false;
  int count = 0;     ///< partitions
  int elements = 0;  ///< of `type` in all partitions
  void* buf = nullptr;
  MPI_Datatype type = nullptr;
  std::shared_ptr<rmpl_mpi_datatype> kept;  ///< the request's copy of a derived type
  int peer = MPI_PROC_NULL, tag = 0;
  MPI_Comm comm = nullptr;
  // The current round (reset by MPI_Start).
  std::vector<unsigned char> marked;  ///< send: partitions marked ready
  int ready = 0;
  bool started = false;                     ///< send: the transfer has begun
  rmpl::core::request* transfer = nullptr;  ///< send: its kernel request, until finished
  std::unique_ptr<std::byte[]> staging;     ///< send: a packed copy of a derived type's data
};

namespace {

/// A partitioned send from MPI_Start on: ends once the transfer, begun when the last partition
/// was marked ready, has completed.
class partitioned_send final : public core::activity {
 public:
  partitioned_send(core::engine& e, std::shared_ptr<partitioned> p) noexcept
      : engine_(e), p_(std::move(p)) {}
  bool advance() override {
    return p_->started && (p_->transfer == nullptr || p_->transfer->done());
  }
  void rethrow_failure() override {
    if (p_->transfer == nullptr) return;
    core::request* t = p_->transfer;
    p_->transfer = nullptr;
    engine_.finish(t);
  }
  std::string describe() const override { return "partitioned send"; }

 private:
  core::engine& engine_;
  std::shared_ptr<partitioned> p_;
};

/// Checks the arguments both initializations share and makes the state.
std::shared_ptr<partitioned> make_state(bool send, void* buf, int partitions, MPI_Count count,
                                        MPI_Datatype type, int peer, int tag, MPI_Comm c,
                                        MPI_Info info, MPI_Request* request) {
  if (request == nullptr) fail(MPI_ERR_ARG, "the request pointer is null");
  comm(c);
  optional_info(info);
  const rmpl_mpi_datatype& t = datatype(type);
  if (partitions < 1) fail(MPI_ERR_ARG, "{} partitions: at least one is needed", partitions);
  if (count < 0) fail(MPI_ERR_COUNT, "the count per partition {} is negative", count);
  if (count > INT_MAX / partitions) {
    fail(MPI_ERR_COUNT, "{} partitions of {} elements exceed {} elements in all", partitions, count,
         INT_MAX);
  }
  if (peer == MPI_ANY_SOURCE || tag == MPI_ANY_TAG) {
    fail(MPI_ERR_ARG, "a partitioned receive names its source and tag (no wildcard)");
  }
  auto p = std::make_shared<partitioned>();
  p->send = send;
  p->count = partitions;
  p->elements = static_cast<int>(count) * partitions;
  p->buf = buf;
  p->kept = keep_type(t);
  p->type = p->kept ? p->kept.get() : type;
  p->peer = peer;
  p->tag = tag;
  p->comm = c;
  return p;
}

/// The active partitioned request `request` of the given direction, or an error that says why not.
rmpl_mpi_request& active_partitioned(MPI_Request request, bool send, const char* what) {
  rmpl_mpi_request* r = live_request(request);
  if (r == nullptr || !r->partitions || r->partitions->send != send) {
    fail(MPI_ERR_REQUEST, "{} needs a partitioned {} request (MPI_P{}_init)", what,
         send ? "send" : "receive", send ? "send" : "recv");
  }
  if (!r->active) fail(MPI_ERR_REQUEST, "the partitioned request is not started (MPI_Start)");
  return *r;
}

/// Marks partition `i` of send `r` ready; the last one starts the transfer.
void mark_ready(rmpl_mpi_request& r, int i) {
  partitioned& p = *r.partitions;
  if (i < 0 || i >= p.count) {
    fail(MPI_ERR_ARG, "partition {} is outside 0..{}", i, p.count - 1);
  }
  if (p.marked[static_cast<std::size_t>(i)]) {
    fail(MPI_ERR_ARG, "partition {} is marked ready already in this round", i);
  }
  p.marked[static_cast<std::size_t>(i)] = 1;
  if (++p.ready < p.count) return;
  MPI_Request inner = send_request(p.buf, p.elements, p.type, p.peer, p.tag, p.comm);
  p.transfer = inner->id ? api::kernel().lookup(inner->id) : nullptr;
  p.staging = std::move(inner->staging);
  p.started = true;
  inner->id = detail::null_request;  // the activity has taken its kernel request
  PMPI_Request_free(&inner);
}

}  // namespace
}  // namespace rmpl::mpi

using namespace rmpl::mpi;
namespace api = rmpl::api;
namespace core = rmpl::core;
namespace detail = rmpl::detail;

namespace rmpl::mpi::impl {
namespace {

int Psend_init(const void* buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest,
               int tag, MPI_Comm c, MPI_Info info, MPI_Request* request) {
  std::shared_ptr<partitioned> p = make_state(true, const_cast<void*>(buf), partitions, count,
                                              datatype, dest, tag, c, info, request);
  if (dest != MPI_PROC_NULL) api::world_dest(*comm(c).impl, dest, "psend_init");
  MPI_Request r = persistent_request(c, request_kind::send, [p](rmpl_mpi_request&) {
    p->marked.assign(static_cast<std::size_t>(p->count), 0);
    p->ready = 0;
    p->started = false;
    p->staging.reset();
    core::engine& e = api::kernel();
    return e.start_activity(std::make_unique<partitioned_send>(e, p))->id();
  });
  r->partitions = std::move(p);
  *request = r;
  return MPI_SUCCESS;
}

int Precv_init(void* buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source,
               int tag, MPI_Comm c, MPI_Info info, MPI_Request* request) {
  std::shared_ptr<partitioned> p =
      make_state(false, buf, partitions, count, datatype, source, tag, c, info, request);
  MPI_Request r = persistent_request(c, request_kind::recv, [p](rmpl_mpi_request& self) {
    return take_over(self, recv_request(p->buf, p->elements, p->type, p->peer, p->tag, p->comm));
  });
  r->partitions = std::move(p);
  *request = r;
  return MPI_SUCCESS;
}

int Pready(int partition, MPI_Request request) {
  mark_ready(active_partitioned(request, true, "MPI_Pready"), partition);
  return MPI_SUCCESS;
}

int Pready_range(int low, int high, MPI_Request request) {
  rmpl_mpi_request& r = active_partitioned(request, true, "MPI_Pready_range");
  if (low > high) fail(MPI_ERR_ARG, "the range {}..{} is empty", low, high);
  for (int i = low; i <= high; ++i) mark_ready(r, i);
  return MPI_SUCCESS;
}

int Pready_list(int length, const int partitions[], MPI_Request request) {
  rmpl_mpi_request& r = active_partitioned(request, true, "MPI_Pready_list");
  if (length < 0) fail(MPI_ERR_ARG, "the list length {} is negative", length);
  if (length > 0 && partitions == nullptr) fail(MPI_ERR_ARG, "the partition list is null");
  for (int i = 0; i < length; ++i) mark_ready(r, partitions[i]);
  return MPI_SUCCESS;
}

int Parrived(MPI_Request request, int partition, int* flag) {
  rmpl_mpi_request& r = active_partitioned(request, false, "MPI_Parrived");
  if (partition < 0 || partition >= r.partitions->count) {
    fail(MPI_ERR_ARG, "partition {} is outside 0..{}", partition, r.partitions->count - 1);
  }
  if (flag == nullptr) fail(MPI_ERR_ARG, "the flag pointer is null");
  // One message carries every partition: each has arrived once it has.
  core::engine& e = api::kernel();
  const core::request* k = r.id ? e.lookup(r.id) : nullptr;
  if (k != nullptr && !k->done()) e.progress();
  *flag = k == nullptr || k->done();
  if (!*flag) e.throw_if_halted();
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace rmpl::mpi::impl

#include "mpi/bindings/partitioned.inc"  // the MPI_ and PMPI_ functions (generated)
