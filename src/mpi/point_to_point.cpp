// Point-to-point communication (MPI-3.1 chapter 3) over the kernel's sends and receives. Data of
// a contiguous datatype goes straight from and to the program's buffer. Other datatypes go to the
// kernel as lists of (address, length) segments (mpi/datatypes.hpp segments_of), which it gathers
// into cells and slots, scatters out of them, and moves with process_vm_readv between the two
// lists for a rendezvous: no staging copy. They are packed into a staging copy before a send and
// unpacked after a receive only when single copy is off (the bounce chunks take one buffer), for
// buffered sends (the kernel copies those anyway), and for a rendezvous whose segments are too
// short to pay (RMPL_SEGMENT_MIN, pack.cpp).
#include <cstring>
#include <limits>
#include <memory>

#include "api/communicator.hpp"
#include "api/runtime.hpp"
#include "core/engine.hpp"
#include "core/request_pair.hpp"
#include "mpi/call.hpp"
#include "mpi/datatypes.hpp"
#include "mpi/point_to_point.hpp"
#include "mpi/pool.hpp"
#include "mpi/requests.hpp"

struct rmpl_mpi_message rmpl_mpi_message_no_proc;

namespace rmpl::mpi {
namespace {

/// Whether the kernel takes data in segments now (it needs single copy).
bool segments_allowed() {
  return api::kernel().single_copy();
}

/// What a send puts on the wire: the program's own bytes, their segments (`segments.count` > 0,
/// `data` null), or a packed copy (held in `staging`).
struct outgoing {
  const void* data;
  std::size_t bytes;
  std::unique_ptr<std::byte[]> staging;
  core::segment_list segments;
};

outgoing outgoing_of(const void* buf, MPI_Count n, MPI_Datatype type, send_mode mode) {
  const rmpl_mpi_datatype& t = datatype(type);
  count(n);
  buffer(buf, n, t);
  const std::size_t bytes = data_bytes(t, n);
  if (t.contiguous) return {data_start(buf, t), bytes, nullptr, {}};
  if (mode != send_mode::buffered && segments_allowed()) {
    if (core::segment_list parts = segments_of(buf, n, t, api::kernel().tune().eager_max);
        parts.count != 0) {
      return {nullptr, bytes, nullptr, std::move(parts)};
    }
  }
  auto staging = std::make_unique<std::byte[]>(bytes ? bytes : 1);
  pack(buf, n, t, staging.get());
  return {staging.get(), bytes, std::move(staging), {}};
}

/// What MPI_Sendrecv_replace and MPI_Isendrecv_replace send: a packed copy of the `n` elements
/// of `type` at `buf`, taken first because the incoming message lands in the same buffer.
outgoing packed_copy(const void* buf, MPI_Count n, MPI_Datatype type) {
  const rmpl_mpi_datatype& t = datatype(type);
  count(n);
  buffer(buf, n, t);
  const std::size_t bytes = data_bytes(t, n);
  auto copy = std::make_unique<std::byte[]>(bytes ? bytes : 1);
  pack(buf, n, t, copy.get());
  const std::byte* data = copy.get();
  return {data, bytes, std::move(copy), {}};
}

/// Where a receive puts the message: the program's buffer, its segments (`segments.count` > 0,
/// `data` null), or a staging copy unpacked afterwards.
struct incoming {
  void* data;
  std::size_t capacity;
  std::unique_ptr<std::byte[]> staging;
  core::segment_list segments;
  const rmpl_mpi_datatype* type;
  void* user;
  MPI_Count count;
  /// A nonblocking receive's own copy of a derived type's layout: the program may free the type
  /// before the receive completes (MPI allows it).
  std::unique_ptr<rmpl_mpi_datatype> kept;

  /// After the receive: the staged bytes into the program's elements.
  void deliver(std::size_t received) const {
    if (staging) unpack(staging.get(), received, user, count, *type);
  }
};

incoming incoming_of(void* buf, MPI_Count n, MPI_Datatype type) {
  const rmpl_mpi_datatype& t = datatype(type);
  count(n);
  buffer(buf, n, t);
  const std::size_t bytes = data_bytes(t, n);
  if (t.contiguous) return {data_start(buf, t), bytes, nullptr, {}, &t, buf, n, nullptr};
  if (segments_allowed()) {
    if (core::segment_list parts = segments_of(buf, n, t, api::kernel().tune().eager_max);
        parts.count != 0) {
      return {nullptr, bytes, nullptr, std::move(parts), &t, buf, n, nullptr};
    }
  }
  auto staging = std::make_unique<std::byte[]>(bytes ? bytes : 1);
  std::byte* data = staging.get();
  return {data, bytes, std::move(staging), {}, &t, buf, n, nullptr};
}

/// Starts the kernel send of `out` (in segments, or from one buffer: its own or the staging copy)
/// to rank `dest` of `c`; `operation` names the call in a rank error.
core::request* kernel_send(const rmpl_mpi_comm& c, outgoing& out, int dest, int tag, send_mode mode,
                           const char* operation) {
  core::engine& e = api::kernel();
  const int to = api::world_dest(*c.impl, dest, operation);
  if (out.segments.count != 0) {
    return e.start_send(c.impl->kernel.context, std::move(out.segments), out.bytes, to, tag, mode);
  }
  return e.start_send(c.impl->kernel.context, out.data, out.bytes, to, tag, mode);
}

/// Starts the kernel receive into `in` from rank `source` of `c` (or a wildcard); its status's
/// source comes back as a rank of `c`.
core::request* kernel_recv(const rmpl_mpi_comm& c, incoming& in, int source, int tag,
                           const char* operation) {
  core::engine& e = api::kernel();
  const int from = api::world_peer(*c.impl, source, operation);
  core::request* r =
      in.segments.count != 0
          ? e.start_recv(c.impl->kernel.context, std::move(in.segments), in.capacity, from, tag)
          : e.start_recv(c.impl->kernel.context, in.data, in.capacity, from, tag);
  r->source_ranks = c.impl->kernel.local;
  return r;
}

/// Waits for kernel request `r` and takes its status (throws its error).
rmpl::status complete_kernel(core::request* r) {
  core::engine& e = api::kernel();
  e.wait(r);
  return e.finish(r);
}

/// The general MPI_Sendrecv: receive posted first, then the send, then the receive waited for.
rmpl::status exchange_with(const rmpl_mpi_comm& c, outgoing& out, int dest, int sendtag,
                           incoming& in, int source, int recvtag) {
  if (out.segments.count == 0 && in.segments.count == 0) {
    return detail::sendrecv(*c.impl, out.data, out.bytes, dest, sendtag, in.data, in.capacity,
                            source, recvtag);
  }
  core::engine& e = api::kernel();
  api::world_dest(*c.impl, dest, "sendrecv");  // a bad destination fails before the receive
  core::request* r = kernel_recv(c, in, source, recvtag, "sendrecv");
  try {
    complete_kernel(kernel_send(c, out, dest, sendtag, send_mode::standard, "sendrecv"));
  } catch (...) {
    e.cancel(r);
    if (r->done()) e.free_request(r);
    throw;
  }
  return complete_kernel(r);
}

/// Whether `n` elements of the committed datatype `t` at `buf` go to the kernel as they are (the
/// common case, checked first so that it costs a few compares). `t.plain` (set by commit():
/// contiguous, at most 2^32 bytes an element) keeps n * size (n < 2^31) below 2^63; a larger
/// count (MPI_X_c) takes the general path, whose data_bytes() checks the product.
template <class Count>
inline bool plain(const void* buf, Count n, const rmpl_mpi_datatype& t) noexcept {
  if constexpr (large_count<Count>) {
    if (n > INT32_MAX) return false;
  }
  return t.plain && n >= 0 && (buf != nullptr || n == 0);
}

/// Whether `type` is a live committed datatype whose `n` elements at `buf` go to the kernel as they
/// are: the handle test of datatype() and plain(), inline and without a throw.
template <class Count>
inline bool plain_type(const void* buf, Count n, MPI_Datatype type) noexcept {
  return fast_live_object(type, magic::datatype) && plain(buf, n, *type);
}

/// The kernel's communicator of `c` when `c` is live and `n` elements of `type` at `buf` go to
/// the kernel as they are: the fast paths' test at a glance (comm()'s and plain_type()). Null
/// otherwise: the general path then runs the checks in turn and reports the first that fails.
template <class Count>
inline const core::communicator* fast_comm(const void* buf, Count n, MPI_Datatype type,
                                           MPI_Comm c) noexcept {
  if (fast_live_object(c, magic::comm) && plain_type(buf, n, type)) [[likely]] {
    return &c->impl->kernel;
  }
  return nullptr;
}

/// Whether `peer` is a rank of `k` (not MPI_PROC_NULL, not a wildcard).
inline bool rank_of(const core::communicator& k, int peer) noexcept {
  return static_cast<unsigned>(peer) < static_cast<unsigned>(k.size);
}

/// The bytes of `n` elements of `type` (plain_type() holds: no overflow).
template <class Count>
inline std::size_t plain_bytes(Count n, MPI_Datatype type) noexcept {
  return static_cast<std::size_t>(n) * static_cast<std::size_t>(type->size);
}

/// Every blocking send but the fast one: the checks in turn, then the kernel's send (in place or
/// from a packed copy). Out of line, so that the fast path's frame stays small.
[[gnu::noinline]] void blocking_send(const void* buf, MPI_Count n, MPI_Datatype type, int dest,
                                     int tag, MPI_Comm c, send_mode mode) {
  const rmpl_mpi_comm& target = comm(c);
  const rmpl_mpi_datatype& t = datatype(type);
  const core::communicator& k = target.impl->kernel;
  if (plain(buf, n, t) && rank_of(k, dest)) [[likely]] {
    // Straight to the kernel (what detail::send does after its checks of `dest`, done here).
    api::kernel().send(k.context, data_start(buf, t), static_cast<std::size_t>(n) * t.size,
                       k.to_world(dest), tag, mode);
    return;
  }
  outgoing out = outgoing_of(buf, n, type, mode);
  if (out.segments.count != 0) {
    complete_kernel(kernel_send(target, out, dest, tag, mode, "send"));
    return;
  }
  detail::send(*target.impl, out.data, out.bytes, dest, tag, mode);
}

/// Every blocking receive but the fast one (MPI_Recv tried that when `source` is a rank of the
/// communicator): the checks in turn, then the kernel's receive (in place or into a staging copy).
[[gnu::noinline]] void blocking_recv(void* buf, MPI_Count n, MPI_Datatype type, int source, int tag,
                                     MPI_Comm c, MPI_Status* status) {
  const rmpl_mpi_comm& target = comm(c);
  const rmpl_mpi_datatype& t = datatype(type);
  const core::communicator& k = target.impl->kernel;
  if (plain(buf, n, t) && (source == MPI_ANY_SOURCE || rank_of(k, source))) [[likely]] {
    // The rest of engine::recv (its fast attempt is made already, or cannot apply to any_source),
    // ranks translated here (what detail::recv does after its checks).
    core::engine& e = api::kernel();
    core::request* r =
        e.start_recv(k.context, data_start(buf, t), static_cast<std::size_t>(n) * t.size,
                     source < 0 ? source : k.to_world(source), tag);
    e.wait(r);
    rmpl::status s = e.finish(r);
    if (s.source >= 0) s.source = k.from_world(s.source);
    to_mpi(s, status);
    return;
  }
  incoming in = incoming_of(buf, n, type);
  const rmpl::status s = in.segments.count != 0
                             ? complete_kernel(kernel_recv(target, in, source, tag, "recv"))
                             : detail::recv(*target.impl, in.data, in.capacity, source, tag);
  in.deliver(s.bytes);
  to_mpi(s, status);
}

/// MPI_Sendrecv but its fast path: the checks in turn, then the kernel's exchange (from and into
/// the buffers in place, or a packed copy and a staging copy).
[[gnu::noinline]] void exchange(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                int dest, int sendtag, void* recvbuf, MPI_Count recvcount,
                                MPI_Datatype recvtype, int source, int recvtag, MPI_Comm c,
                                MPI_Status* status) {
  const rmpl_mpi_comm& target = comm(c);
  outgoing out = outgoing_of(sendbuf, sendcount, sendtype, send_mode::standard);
  incoming in = incoming_of(recvbuf, recvcount, recvtype);
  const rmpl::status s = exchange_with(target, out, dest, sendtag, in, source, recvtag);
  in.deliver(s.bytes);
  to_mpi(s, status);
}

template <class Count>
MPI_Request start_send(const void* buf, Count n, MPI_Datatype type, int dest, int tag, MPI_Comm c,
                       send_mode mode) {
  if (const core::communicator* k = fast_comm(buf, n, type, c); k && rank_of(*k, dest)) {
    // In place, straight to the kernel (detail::isend after its checks of `dest`, done here).
    const core::request* r = api::kernel().start_send(
        k->context, data_start(buf, *type), plain_bytes(n, type), k->to_world(dest), tag, mode);
    return make_request(c, request_kind::send, r->id());
  }
  const rmpl_mpi_comm& target = comm(c);
  outgoing out = outgoing_of(buf, n, type, mode);
  if (out.segments.count != 0) {
    // The kernel request owns the segment list: the program may free the type meanwhile.
    return make_request(c, request_kind::send,
                        kernel_send(target, out, dest, tag, mode, "isend")->id());
  }
  const detail::request_id id = detail::isend(*target.impl, out.data, out.bytes, dest, tag, mode);
  MPI_Request r = make_request(c, request_kind::send, id);
  r->staging = std::move(out.staging);
  return r;
}

template <class Count>
MPI_Request start_recv(void* buf, Count n, MPI_Datatype type, int source, int tag, MPI_Comm c) {
  if (const core::communicator* k = fast_comm(buf, n, type, c);
      k && (source == MPI_ANY_SOURCE || rank_of(*k, source))) {
    // In place, straight to the kernel (detail::irecv after its checks of `source`, done here).
    core::request* r =
        api::kernel().start_recv(k->context, data_start(buf, *type), plain_bytes(n, type),
                                 source < 0 ? source : k->to_world(source), tag);
    r->source_ranks = k->local;
    return make_request(c, request_kind::recv, r->id());
  }
  const rmpl_mpi_comm& target = comm(c);
  incoming in = incoming_of(buf, n, type);
  if (in.segments.count != 0) {
    return make_request(c, request_kind::recv, kernel_recv(target, in, source, tag, "irecv")->id());
  }
  const detail::request_id id = detail::irecv(*target.impl, in.data, in.capacity, source, tag);
  if (!in.staging) return make_request(c, request_kind::recv, id);
  auto staged = std::make_shared<incoming>(std::move(in));
  if (!staged->type->predefined) {
    staged->kept = std::make_unique<rmpl_mpi_datatype>(*staged->type);
    staged->type = staged->kept.get();
  }
  return make_request(c, request_kind::recv, id, [staged](MPI_Status& s) {
    staged->deliver(static_cast<std::size_t>(s.rmpl_bytes));
  });
}

/// A persistent send or receive: MPI_Start runs `start_send`/`start_recv` with the same
/// arguments (the datatype a copy of the program's, which may be freed meanwhile), and the
/// request takes over the new kernel request and its staging.
template <class Count>
MPI_Request send_init(const void* buf, Count n, MPI_Datatype type, int dest, int tag, MPI_Comm c,
                      send_mode mode) {
  comm(c);
  std::shared_ptr<rmpl_mpi_datatype> kept = keep_type(datatype(type));
  count(n);
  return persistent_request(c, request_kind::send, [=](rmpl_mpi_request& self) {
    return take_over(self, start_send(buf, n, kept ? kept.get() : type, dest, tag, c, mode));
  });
}

template <class Count>
MPI_Request recv_init(void* buf, Count n, MPI_Datatype type, int source, int tag, MPI_Comm c) {
  comm(c);
  std::shared_ptr<rmpl_mpi_datatype> kept = keep_type(datatype(type));
  count(n);
  return persistent_request(c, request_kind::recv, [=](rmpl_mpi_request& self) {
    return take_over(self, start_recv(buf, n, kept ? kept.get() : type, source, tag, c));
  });
}

/// MPI_Isendrecv: the receive posted first, then the send (as MPI_Sendrecv), both held by one
/// request whose kernel request is a pair of them (core/request_pair.hpp) and whose status is the
/// receive's. `keep` (MPI_Isendrecv_replace's packed copy of the outgoing data) lives as long as
/// the request.
MPI_Request start_sendrecv(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                           int dest, int sendtag, void* recvbuf, MPI_Count recvcount,
                           MPI_Datatype recvtype, int source, int recvtag, MPI_Comm c,
                           std::unique_ptr<std::byte[]> keep) {
  // The send's arguments are checked before the receive is posted: a receive that found its
  // message at once could not be withdrawn when the send then failed.
  const rmpl_mpi_comm& target = comm(c);
  const rmpl_mpi_datatype& t = datatype(sendtype);
  count(sendcount);
  buffer(sendbuf, sendcount, t);
  if (dest != MPI_PROC_NULL) api::world_dest(*target.impl, dest, "isendrecv");
  core::engine& e = api::kernel();
  MPI_Request recv = start_recv(recvbuf, recvcount, recvtype, source, recvtag, c);
  MPI_Request send = nullptr;
  try {
    send = start_send(sendbuf, sendcount, sendtype, dest, sendtag, c, send_mode::standard);
  } catch (...) {
    if (core::request* k = recv->id ? e.lookup(recv->id) : nullptr) {
      e.cancel(k);
      if (k->done()) e.free_request(k);
    }
    recv->id = detail::null_request;
    recv->on_complete = nullptr;
    PMPI_Request_free(&recv);
    throw;
  }
  core::request* ks = send->id ? e.lookup(send->id) : nullptr;
  core::request* kr = recv->id ? e.lookup(recv->id) : nullptr;
  // Both ranks MPI_PROC_NULL: nothing to wait for.
  MPI_Request pair =
      ks == nullptr && kr == nullptr
          ? completed_request(c, request_kind::recv, recv->immediate)
          : make_request(
                c, request_kind::recv,
                e.start_activity(std::make_unique<core::request_pair>(e, ks, kr, rmpl::status{}))
                    ->id(),
                std::move(recv->on_complete));
  if (kr == nullptr && ks != nullptr) pair->immediate = recv->immediate;
  pair->staging = keep ? std::move(keep) : std::move(send->staging);
  for (MPI_Request* part : {&send, &recv}) {
    (*part)->id = detail::null_request;  // the pair has taken its kernel request
    PMPI_Request_free(part);
  }
  return pair;
}

pool<rmpl_mpi_message>& messages() {
  static pool<rmpl_mpi_message> p;
  return p;
}

/// Takes the message `probed` announced on `c`: receives it whole into the message object, so no
/// later receive can match it.
MPI_Message take_message(const rmpl_mpi_comm& c, MPI_Comm handle, const rmpl::status& probed) {
  rmpl_mpi_message* m = messages().make();
  m->data = std::make_unique<std::byte[]>(probed.bytes ? probed.bytes : 1);
  m->comm = handle;
  const rmpl::status got =
      detail::recv(*c.impl, m->data.get(), probed.bytes, probed.source, probed.tag);
  to_mpi(got, &m->status);
  return m;
}

/// The communicator whose error handler reports a failure of a receive of `*message`: the
/// message's, when it is one (else MPI_COMM_WORLD's).
MPI_Comm comm_of(const MPI_Message* message) noexcept {
  return message != nullptr && live_object(*message, magic::message) ? (*message)->comm : nullptr;
}

/// The message a handle names; the handle becomes MPI_MESSAGE_NULL (a message is received once).
rmpl_mpi_message* claim_message(MPI_Message* message) {
  if (message == nullptr) fail(MPI_ERR_ARG, "the message pointer is null");
  rmpl_mpi_message* m = *message;
  if (m == MPI_MESSAGE_NULL) fail(MPI_ERR_REQUEST, "the message is MPI_MESSAGE_NULL");
  if (!live_object(m, magic::message)) {
    fail(MPI_ERR_REQUEST, "{} is not a message (received already?)", static_cast<const void*>(m));
  }
  *message = MPI_MESSAGE_NULL;
  return m;
}

/// Copies a taken message into the program's buffer; the status of the receive.
MPI_Status receive_message(rmpl_mpi_message& m, void* buf, MPI_Count n, MPI_Datatype type) {
  MPI_Status s = m.status;
  if (&m == &rmpl_mpi_message_no_proc) {
    proc_null_status(&s);
    return s;
  }
  const rmpl_mpi_datatype& t = datatype(type);
  count(n);
  const auto bytes = static_cast<std::size_t>(s.rmpl_bytes);
  const std::size_t capacity = data_bytes(t, n);
  if (bytes > capacity) {
    const int source = s.MPI_SOURCE, tag = s.MPI_TAG;
    messages().recycle(&m);
    fail(MPI_ERR_TRUNCATE, "the message from rank {} (tag {}) has {} bytes, the buffer holds {}",
         source, tag, bytes, capacity);
  }
  if (t.contiguous) {
    if (bytes) std::memcpy(data_start(buf, t), m.data.get(), bytes);
  } else {
    unpack(m.data.get(), bytes, buf, n, t);
  }
  messages().recycle(&m);
  return s;
}

/// MPI_Send and MPI_Rsend but their fast path: every check in turn, then the kernel's send (in
/// place or from a packed copy). Out of line and on the original arguments (a tail call), so the
/// fast path needs no frame of its own.
template <send_mode mode, class Count>
constexpr const char* send_name() noexcept {
  return mode == send_mode::ready ? binding_name<Count>("MPI_Rsend", "MPI_Rsend_c")
                                  : binding_name<Count>("MPI_Send", "MPI_Send_c");
}

template <send_mode mode, class Count>
[[gnu::noinline]] int send_in_full(const void* buf, Count n, MPI_Datatype type, int dest, int tag,
                                   MPI_Comm c) noexcept {
  return call(c, send_name<mode, Count>(), [&]() -> int {
    blocking_send(buf, n, type, dest, tag, c, mode);
    return MPI_SUCCESS;
  });
}

/// MPI_Send and MPI_Rsend at their cheapest: contiguous data on a live communicator to one of its
/// ranks goes straight to the kernel's send (which writes a small message inline into the ring at
/// once). The checks are the inline ones of fast_comm(); anything less simple takes send_in_full().
template <send_mode mode, class Count>
inline int send_direct(const void* buf, Count n, MPI_Datatype type, int dest, int tag,
                       MPI_Comm c) noexcept {
  core::engine* e = api::live_engine;
  const core::communicator* k = fast_comm(buf, n, type, c);
  if (e != nullptr && k != nullptr && rank_of(*k, dest)) [[likely]] {
    try {
      e->send(k->context, data_start(buf, *type), plain_bytes(n, type), k->to_world(dest), tag,
              mode);
      return MPI_SUCCESS;
    } catch (...) {
      return raise_current(c, send_name<mode, Count>());
    }
  }
  return send_in_full<mode>(buf, n, type, dest, tag, c);
}

/// MPI_Send from a thread that is not the main one below MULTIPLE: under MULTIPLE the same fast
/// path holding the lock (the general path would cost twice its instructions), otherwise call()'s
/// checks.
template <send_mode mode, class Count>
[[gnu::noinline]] int send_threaded(const void* buf, Count n, MPI_Datatype type, int dest, int tag,
                                    MPI_Comm c) noexcept {
  if (!core::threads::locking.load(std::memory_order_relaxed)) {
    return send_in_full<mode>(buf, n, type, dest, tag, c);
  }
  core::threads::guard locked;
  return send_direct<mode>(buf, n, type, dest, tag, c);
}

template <send_mode mode, class Count>
inline int send_fast(const void* buf, Count n, MPI_Datatype type, int dest, int tag,
                     MPI_Comm c) noexcept {
  // threads::fast: the main thread below MULTIPLE; any other goes locked or checked.
  if (core::threads::fast) [[likely]] {
    return send_direct<mode>(buf, n, type, dest, tag, c);
  }
  return send_threaded<mode>(buf, n, type, dest, tag, c);
}

/// MPI_Recv but its fast path (out of line, so the fast path's frame stays small).
template <class Count>
[[gnu::noinline]] int recv_in_full(void* buf, Count n, MPI_Datatype type, int source, int tag,
                                   MPI_Comm c, MPI_Status* status) noexcept {
  return call(c, binding_name<Count>("MPI_Recv", "MPI_Recv_c"), [&]() -> int {
    blocking_recv(buf, n, type, source, tag, c, status);
    return MPI_SUCCESS;
  });
}

/// MPI_Recv's fast path, or the general one (recv_in_full).
template <class Count>
inline int recv_direct(void* buf, Count n, MPI_Datatype type, int source, int tag, MPI_Comm c,
                       MPI_Status* status) noexcept {
  // Contiguous data from one rank of a live communicator goes straight to the kernel's receive
  // (which takes a small message that is the next cell of its ring at once).
  core::engine* e = api::live_engine;
  const core::communicator* k = fast_comm(buf, n, type, c);
  if (e != nullptr && k != nullptr && rank_of(*k, source)) [[likely]] {
    try {
      const rmpl::status s = e->recv(k->context, data_start(buf, *type), plain_bytes(n, type),
                                     k->to_world(source), tag);
      if (status != MPI_STATUS_IGNORE) {  // all but MPI_ERROR (call.hpp)
        status->MPI_SOURCE = source;
        status->MPI_TAG = s.tag;
        status->rmpl_cancelled = 0;
        status->rmpl_bytes = static_cast<MPI_Count>(s.bytes);
      }
      return MPI_SUCCESS;
    } catch (...) {
      return raise_current(c, binding_name<Count>("MPI_Recv", "MPI_Recv_c"));
    }
  }
  return recv_in_full(buf, n, type, source, tag, c, status);
}

/// MPI_Recv from a thread that is not the main one below MULTIPLE (as send_threaded).
template <class Count>
[[gnu::noinline]] int recv_threaded(void* buf, Count n, MPI_Datatype type, int source, int tag,
                                    MPI_Comm c, MPI_Status* status) noexcept {
  if (!core::threads::locking.load(std::memory_order_relaxed)) {
    return recv_in_full(buf, n, type, source, tag, c, status);
  }
  core::threads::guard locked;
  return recv_direct(buf, n, type, source, tag, c, status);
}

}  // namespace

MPI_Request send_request(const void* buf, int n, MPI_Datatype type, int dest, int tag, MPI_Comm c) {
  return start_send(buf, n, type, dest, tag, c, send_mode::standard);
}
MPI_Request recv_request(void* buf, int n, MPI_Datatype type, int source, int tag, MPI_Comm c) {
  return start_recv(buf, n, type, source, tag, c);
}

}  // namespace rmpl::mpi

using namespace rmpl::mpi;
namespace api = rmpl::api;
namespace core = rmpl::core;
namespace detail = rmpl::detail;
using rmpl::send_mode;

namespace rmpl::mpi::impl {
namespace {

// Every function with a count is a template over its binding's count type (call.hpp,
// large_count): int for MPI_X, MPI_Count for MPI_X_c.

// ---------------------------------------------------------------- blocking sends and receive

template <class Count>
int Send(const void* buf, Count n, MPI_Datatype type, int dest, int tag, MPI_Comm c) {
  return send_fast<send_mode::standard>(buf, n, type, dest, tag, c);
}
/// MPI_Ssend and MPI_Bsend (the spec's impl(blocking<mode>)).
template <send_mode mode, class Count>
int blocking(const void* buf, Count n, MPI_Datatype type, int dest, int tag, MPI_Comm c) {
  blocking_send(buf, n, type, dest, tag, c, mode);
  return MPI_SUCCESS;
}
template <class Count>
int Rsend(const void* buf, Count n, MPI_Datatype type, int dest, int tag, MPI_Comm c) {
  return send_fast<send_mode::ready>(buf, n, type, dest, tag, c);
}

template <class Count>
int Recv(void* buf, Count n, MPI_Datatype type, int source, int tag, MPI_Comm c,
         MPI_Status* status) {
  if (core::threads::fast) [[likely]] {
    return recv_direct(buf, n, type, source, tag, c, status);
  }
  return recv_threaded(buf, n, type, source, tag, c, status);
}

// ---------------------------------------------------------------- nonblocking

/// MPI_Isend, MPI_Issend, MPI_Ibsend and MPI_Irsend (the spec's impl(send_request<mode>)).
template <send_mode mode, class Count>
int send_request(const void* buf, Count n, MPI_Datatype type, int dest, int tag, MPI_Comm c,
                 MPI_Request* request) {
  check_request_out(request);
  *request = start_send(buf, n, type, dest, tag, c, mode);
  return MPI_SUCCESS;
}
template <class Count>
int Irecv(void* buf, Count n, MPI_Datatype type, int source, int tag, MPI_Comm c,
          MPI_Request* request) {
  check_request_out(request);
  *request = start_recv(buf, n, type, source, tag, c);
  return MPI_SUCCESS;
}

// ---------------------------------------------------------------- persistent

/// MPI_Send_init, MPI_Ssend_init, MPI_Bsend_init and MPI_Rsend_init (the spec's
/// impl(persistent_send<mode>)).
template <send_mode mode, class Count>
int persistent_send(const void* buf, Count n, MPI_Datatype type, int dest, int tag, MPI_Comm c,
                    MPI_Request* request) {
  check_request_out(request);
  *request = send_init(buf, n, type, dest, tag, c, mode);
  return MPI_SUCCESS;
}
template <class Count>
int Recv_init(void* buf, Count n, MPI_Datatype type, int source, int tag, MPI_Comm c,
              MPI_Request* request) {
  check_request_out(request);
  *request = recv_init(buf, n, type, source, tag, c);
  return MPI_SUCCESS;
}

// ---------------------------------------------------------------- send and receive at once

template <class Count>
int Sendrecv(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
             void* recvbuf, Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
             MPI_Comm c, MPI_Status* status) {
  const core::communicator* k = fast_comm(sendbuf, sendcount, sendtype, c);
  if (k != nullptr && plain_type(recvbuf, recvcount, recvtype) && rank_of(*k, dest) &&
      (source == MPI_ANY_SOURCE || rank_of(*k, source))) [[likely]] {
    // Both buffers in place, both peers ranks: straight to the kernel (what detail::sendrecv does
    // after its checks of the ranks, done here).
    core::engine& e = api::kernel();
    core::request* r =
        e.start_recv(k->context, data_start(recvbuf, *recvtype), plain_bytes(recvcount, recvtype),
                     source < 0 ? source : k->to_world(source), recvtag);
    try {
      const void* data = data_start(sendbuf, *sendtype);
      const std::size_t bytes = plain_bytes(sendcount, sendtype);
      const int to = k->to_world(dest);
      if (!e.try_send_inline(k->context, data, bytes, to, sendtag)) {
        e.send(k->context, data, bytes, to, sendtag, send_mode::standard);
      }
    } catch (...) {
      e.cancel(r);
      if (r->done()) e.free_request(r);
      throw;
    }
    e.wait(r);
    rmpl::status s = e.finish(r);
    if (s.source >= 0) s.source = k->from_world(s.source);
    to_mpi(s, status);
    return MPI_SUCCESS;
  }
  exchange(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source,
           recvtag, c, status);
  return MPI_SUCCESS;
}

template <class Count>
int Isendrecv(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
              void* recvbuf, Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
              MPI_Comm c, MPI_Request* request) {
  check_request_out(request);
  *request = start_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                            recvtype, source, recvtag, c, nullptr);
  return MPI_SUCCESS;
}

template <class Count>
int Isendrecv_replace(void* buf, Count n, MPI_Datatype type, int dest, int sendtag, int source,
                      int recvtag, MPI_Comm c, MPI_Request* request) {
  check_request_out(request);
  comm(c);
  outgoing out = packed_copy(buf, n, type);
  *request = start_sendrecv(out.data, static_cast<MPI_Count>(out.bytes), MPI_BYTE, dest, sendtag,
                            buf, n, type, source, recvtag, c, std::move(out.staging));
  return MPI_SUCCESS;
}

template <class Count>
int Sendrecv_replace(void* buf, Count n, MPI_Datatype type, int dest, int sendtag, int source,
                     int recvtag, MPI_Comm c, MPI_Status* status) {
  const rmpl_mpi_comm& target = comm(c);
  outgoing out = packed_copy(buf, n, type);
  incoming in = incoming_of(buf, n, type);
  const rmpl::status s = exchange_with(target, out, dest, sendtag, in, source, recvtag);
  in.deliver(s.bytes);
  to_mpi(s, status);
  return MPI_SUCCESS;
}

// ---------------------------------------------------------------- probes and matched receives

int Probe(int source, int tag, MPI_Comm c, MPI_Status* status) {
  const rmpl_mpi_comm& target = comm(c);
  to_mpi(rmpl::detail::probe(*target.impl, source, tag), status);
  return MPI_SUCCESS;
}

int Iprobe(int source, int tag, MPI_Comm c, int* flag, MPI_Status* status) {
  const rmpl_mpi_comm& target = comm(c);
  rmpl::status s;
  *flag = rmpl::detail::iprobe(*target.impl, source, tag, &s);
  if (*flag) to_mpi(s, status);
  return MPI_SUCCESS;
}

int Mprobe(int source, int tag, MPI_Comm c, MPI_Message* message, MPI_Status* status) {
  const rmpl_mpi_comm& target = comm(c);
  if (message == nullptr) fail(MPI_ERR_ARG, "the message pointer is null");
  if (source == MPI_PROC_NULL) {
    proc_null_status(status);
    *message = MPI_MESSAGE_NO_PROC;
    return MPI_SUCCESS;
  }
  const rmpl::status probed = rmpl::detail::probe(*target.impl, source, tag);
  *message = take_message(target, c, probed);
  store_status((*message)->status, status);
  return MPI_SUCCESS;
}

int Improbe(int source, int tag, MPI_Comm c, int* flag, MPI_Message* message, MPI_Status* status) {
  const rmpl_mpi_comm& target = comm(c);
  if (message == nullptr) fail(MPI_ERR_ARG, "the message pointer is null");
  if (source == MPI_PROC_NULL) {
    *flag = 1;
    proc_null_status(status);
    *message = MPI_MESSAGE_NO_PROC;
    return MPI_SUCCESS;
  }
  rmpl::status probed;
  *flag = rmpl::detail::iprobe(*target.impl, source, tag, &probed);
  if (!*flag) return MPI_SUCCESS;
  *message = take_message(target, c, probed);
  store_status((*message)->status, status);
  return MPI_SUCCESS;
}

template <class Count>
int Mrecv(void* buf, Count n, MPI_Datatype type, MPI_Message* message, MPI_Status* status) {
  rmpl_mpi_message* m = claim_message(message);
  store_status(receive_message(*m, buf, n, type), status);
  return MPI_SUCCESS;
}

template <class Count>
int Imrecv(void* buf, Count n, MPI_Datatype type, MPI_Message* message, MPI_Request* request) {
  check_request_out(request);
  rmpl_mpi_message* m = claim_message(message);
  MPI_Comm c = m->comm;
  const MPI_Status s = receive_message(*m, buf, n, type);
  *request = completed_request(c, request_kind::recv, s);
  return MPI_SUCCESS;
}

// ---------------------------------------------------------------- statuses

template <class Count>
int Get_count(const MPI_Status* status, MPI_Datatype type, Count* n) {
  if (status == nullptr) fail(MPI_ERR_ARG, "the status is null (MPI_STATUS_IGNORE?)");
  const rmpl_mpi_datatype& t = datatype(type, false);
  if (t.size == 0) {
    *n = status->rmpl_bytes == 0 ? 0 : MPI_UNDEFINED;
  } else if (status->rmpl_bytes % t.size != 0 ||
             status->rmpl_bytes / t.size > std::numeric_limits<Count>::max()) {
    *n = MPI_UNDEFINED;
  } else {
    *n = static_cast<Count>(status->rmpl_bytes / t.size);
  }
  return MPI_SUCCESS;
}

int Get_elements_x(const MPI_Status* status, MPI_Datatype type, MPI_Count* n) {
  if (status == nullptr) fail(MPI_ERR_ARG, "the status is null (MPI_STATUS_IGNORE?)");
  const rmpl_mpi_datatype& t = datatype(type, false);
  *n = basic_elements(t, status->rmpl_bytes);
  return MPI_SUCCESS;
}

template <class Count>
int Get_elements(const MPI_Status* status, MPI_Datatype type, Count* n) {
  MPI_Count elements = 0;
  Get_elements_x(status, type, &elements);
  *n = elements > std::numeric_limits<Count>::max() ? MPI_UNDEFINED : static_cast<Count>(elements);
  return MPI_SUCCESS;
}

int Status_set_elements_x(MPI_Status* status, MPI_Datatype type, MPI_Count n) {
  if (status == nullptr) fail(MPI_ERR_ARG, "the status is null");
  const rmpl_mpi_datatype& t = datatype(type, false);
  if (n < 0) fail(MPI_ERR_COUNT, "the count {} is negative", n);
  const MPI_Count unit = t.basic_size > 0 ? t.basic_size : t.size;
  if (unit != 0 && n > INT64_MAX / unit) {
    fail(MPI_ERR_COUNT, "{} elements of {} bytes do not fit an MPI_Count of bytes", n, unit);
  }
  if (value_index_pairs(t)) {
    // Pairs: each is two basic elements (MPI_Get_elements' count), an odd one is a value alone.
    status->rmpl_bytes = unit * (n / 2) + (n % 2) * (unit - MPI_Count{sizeof(int)});
  } else {
    status->rmpl_bytes = unit * n;
  }
  return MPI_SUCCESS;
}

template <class Count>
int Status_set_elements(MPI_Status* status, MPI_Datatype type, Count n) {
  return Status_set_elements_x(status, type, n);
}

// The status's public fields (MPI-4.1: for languages and tools that cannot reach the fields):
// one getter and one setter, over the field.
template <int MPI_Status::*field>
int get_field(const MPI_Status* status, int* value) {
  if (status == nullptr || value == nullptr) fail(MPI_ERR_ARG, "the status or result is null");
  *value = status->*field;
  return MPI_SUCCESS;
}
template <int MPI_Status::*field>
int set_field(MPI_Status* status, int value) {
  if (status == nullptr) fail(MPI_ERR_ARG, "the status is null");
  status->*field = value;
  return MPI_SUCCESS;
}
int Status_get_source(const MPI_Status* status, int* source) {
  return get_field<&MPI_Status::MPI_SOURCE>(status, source);
}
int Status_set_source(MPI_Status* status, int source) {
  return set_field<&MPI_Status::MPI_SOURCE>(status, source);
}
int Status_get_tag(const MPI_Status* status, int* tag) {
  return get_field<&MPI_Status::MPI_TAG>(status, tag);
}
int Status_set_tag(MPI_Status* status, int tag) {
  return set_field<&MPI_Status::MPI_TAG>(status, tag);
}
int Status_get_error(const MPI_Status* status, int* error) {
  return get_field<&MPI_Status::MPI_ERROR>(status, error);
}
int Status_set_error(MPI_Status* status, int error) {
  return set_field<&MPI_Status::MPI_ERROR>(status, error);
}

int Status_set_cancelled(MPI_Status* status, int flag) {
  if (status == nullptr) fail(MPI_ERR_ARG, "the status is null");
  status->rmpl_cancelled = flag ? 1 : 0;
  return MPI_SUCCESS;
}

int Test_cancelled(const MPI_Status* status, int* flag) {
  if (status == nullptr) fail(MPI_ERR_ARG, "the status is null");
  *flag = status->rmpl_cancelled;
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace rmpl::mpi::impl

#include "mpi/bindings/point_to_point.inc"  // the MPI_ and PMPI_ functions (generated)
