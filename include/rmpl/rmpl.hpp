// rmpl's C++ API: a session (init/finalize by RAII), communicators, typed point-to-point operations
// on contiguous ranges of trivially copyable values, and request objects.
//
//   rmpl::session s;                       // joins the job started by rmplrun (or a job of one)
//   auto world = s.world();
//   std::vector<double> v(100);
//   if (world.rank() == 0) world.send(v, 1, /*tag=*/7);
//   else if (world.rank() == 1) world.recv(v, 0, 7);
//
// Errors are thrown as rmpl::error, whose what() names the call, the rank and what was wrong (the
// peer and the communicator's size, the tag and the allowed range, the sizes); a communicator can
// instead end the job on error (communicator::set_error_policy). Every argument is checked: ranks
// and roots, tags, null buffers with non-zero sizes, counts, empty or stale requests, null or
// freed communicators; RMPL_CHECK_COLLECTIVES=1 also makes every collective check that all ranks
// called the same one with the same root and sizes. A nonblocking operation borrows its buffer:
// keep the buffer alive and untouched until the request completes. Destroying a pending request is
// a fatal error (reported with the operation, peer and tag) rather than a silent write into freed
// memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <ranges>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "rmpl/group.hpp"
#include "rmpl/operators.hpp"
#include "rmpl/types.hpp"

namespace rmpl {

/// A contiguous, sized range of trivially copyable values: what a send reads.
template <class R>
concept send_buffer = std::ranges::contiguous_range<R> && std::ranges::sized_range<R> &&
    std::is_trivially_copyable_v<std::ranges::range_value_t<R>>;

/// A send_buffer whose elements can be written: what a receive fills.
template <class R>
concept recv_buffer =
    send_buffer<R> && !std::is_const_v<std::remove_reference_t<std::ranges::range_reference_t<R>>>;

namespace detail {
using request_id = std::uint64_t;
inline constexpr request_id null_request = 0;
/// A communicator's state inside the library (src/api/communicator.hpp).
struct comm_impl;
using comm_ptr = std::shared_ptr<const comm_impl>;
using bytes_in = std::span<const std::byte>;
using bytes_out = std::span<std::byte>;
using counts = std::span<const std::size_t>;

// The compiled half of the API (src/api/). Byte-level, so the templates below stay thin.
void send(const comm_impl& c, const void* data, std::size_t bytes, int dest, int tag,
          send_mode mode);
status recv(const comm_impl& c, void* data, std::size_t capacity, int source, int tag);
request_id isend(const comm_impl& c, const void* data, std::size_t bytes, int dest, int tag,
                 send_mode mode);
request_id irecv(const comm_impl& c, void* data, std::size_t capacity, int source, int tag);
status sendrecv(const comm_impl& c, const void* sdata, std::size_t sbytes, int dest, int stag,
                void* rdata, std::size_t capacity, int source, int rtag);
status probe(const comm_impl& c, int source, int tag);
bool iprobe(const comm_impl& c, int source, int tag, status* out);
status wait(request_id& id);
bool test(request_id& id, status* out);
bool done(request_id id);  // completed (or empty), without consuming the request
void cancel(request_id id);
void release(request_id& id) noexcept;  // frees a completed request; a pending one is fatal
/// Throws errc::request_invalid for `operation` on an empty request.
[[noreturn]] void empty_request(const char* operation);
int world_size() noexcept;

// Communicators (collective over `c`; a process outside the new group gets nullptr).
comm_ptr world_comm();
comm_ptr dup(const comm_impl& c);
/// A nonblocking dup: the returned request completes when c's members have agreed on the new
/// communicator's context; finish_dup then makes it (locally). Other communication may go on
/// meanwhile, on c too.
struct pending_dup;
request_id idup(const comm_impl& c, std::shared_ptr<pending_dup>& out);
comm_ptr finish_dup(const pending_dup& d);
comm_ptr split(const comm_impl& c, int color, int key);
comm_ptr create(const comm_impl& c, const group& members);
/// A communicator of `members` (a subgroup of c's members), collective over `members` only
/// (MPI_Comm_create_group): c's other members take no part. Concurrent creations over
/// overlapping groups pass different tags (in [0, tag_ub]). nullptr for a non-member.
comm_ptr create_group(const comm_impl& c, const group& members, int tag);
group members(const comm_impl& c);
// Intercommunicators (the MPI layer's): `local_group` is an intracommunicator of this process's
// group, which the agreement on the new communicator's context runs over. The result's ranks are
// the remote group's (point-to-point names remote ranks) and its rank is this process's in its own
// group; it has no collective area: the MPI layer's collectives on it (src/mpi/intercomm.cpp) are
// local-group algorithms joined by point-to-point on its collective context.
/// Collective over both groups: `local_leader` of `local_group` swaps what the groups need with
/// `remote_leader` of `peer` (significant at the leader only; null there is an error) on `tag`.
comm_ptr intercomm_create(const comm_impl& local_group, int local_leader, const comm_impl* peer,
                          int remote_leader, int tag);
comm_ptr intercomm_dup(const comm_impl& inter, const comm_impl& local_group);
/// A nonblocking intercomm_dup together with the dup of `local_group` that goes with it: the
/// request completes when both agreements have ended; finish_intercomm_dup then makes both
/// (the new intercommunicator, then its local group's communicator).
request_id intercomm_idup(const comm_impl& inter, const comm_impl& local_group,
                          std::shared_ptr<pending_dup>& out);
std::pair<comm_ptr, comm_ptr> finish_intercomm_dup(const pending_dup& d);
/// An intracommunicator of both groups: the one that passed high = false first (if both passed
/// the same, the one whose leader has the lower job rank).
comm_ptr intercomm_merge(const comm_impl& inter, const comm_impl& local_group, bool high);
relation compare(const comm_impl* a, const comm_impl* b);
[[noreturn]] void null_communicator(const char* operation);
/// The error policy of `c` (of the world when c is null: a null communicator, or a call that names
/// no communicator) applied to `e`: returns (the caller rethrows) or ends the job.
void apply_error_policy(const comm_impl* c, const error& e) noexcept;
void set_error_policy(const comm_impl& c, on_error policy);
on_error error_policy(const comm_impl& c);

// Collectives. Counts and displacements are in bytes; an empty displacement list means the blocks
// lie packed in rank order. For the reductions, `in` and `out` may be the same span (in place).
// Each starts the collective and returns its request, or with run::to_end (the blocking forms)
// runs it to its end before returning null_request: no request is made, which is most of the
// fixed cost of a short collective.
enum class run : unsigned char { start, to_end };
request_id ibarrier(const comm_impl& c, run how = run::start);
request_id ibroadcast(const comm_impl& c, bytes_out data, int root, run how = run::start);
request_id ireduce(const comm_impl& c, bytes_in in, bytes_out out, const reduction& op, int root,
                   run how = run::start);
request_id iallreduce(const comm_impl& c, bytes_in in, bytes_out out, const reduction& op,
                      run how = run::start);
request_id iscan(const comm_impl& c, bytes_in in, bytes_out out, const reduction& op,
                 run how = run::start);
request_id iexscan(const comm_impl& c, bytes_in in, bytes_out out, const reduction& op,
                   run how = run::start);
request_id ireduce_scatter_block(const comm_impl& c, bytes_in in, bytes_out out,
                                 const reduction& op, run how = run::start);
request_id ireduce_scatter(const comm_impl& c, bytes_in in, bytes_out out, counts recv_counts,
                           const reduction& op, run how = run::start);
request_id igather(const comm_impl& c, bytes_in in, bytes_out out, int root, run how = run::start);
request_id igatherv(const comm_impl& c, bytes_in in, bytes_out out, counts recv_counts,
                    counts displs, int root, run how = run::start);
request_id iscatter(const comm_impl& c, bytes_in in, bytes_out out, int root, run how = run::start);
request_id iscatterv(const comm_impl& c, bytes_in in, counts send_counts, counts displs,
                     bytes_out out, int root, run how = run::start);
request_id iallgather(const comm_impl& c, bytes_in in, bytes_out out, run how = run::start);
request_id iallgatherv(const comm_impl& c, bytes_in in, bytes_out out, counts recv_counts,
                       counts displs, run how = run::start);
request_id ialltoall(const comm_impl& c, bytes_in in, bytes_out out, run how = run::start);
request_id ialltoallv(const comm_impl& c, bytes_in in, counts send_counts, counts send_displs,
                      bytes_out out, counts recv_counts, counts recv_displs, run how = run::start);
/// Block i of `in` to destinations[i], block i of `out` from sources[i] (proc_null: skipped); the
/// MPI layer's neighbourhood collectives.
request_id ineighbor_exchange(const comm_impl& c, bytes_in in, std::span<const int> destinations,
                              counts send_counts, counts send_displs, bytes_out out,
                              std::span<const int> sources, counts recv_counts, counts recv_displs,
                              run how = run::start);

template <class R>
bytes_in bytes_of(const R& r) {
  return std::as_bytes(std::span(std::ranges::data(r), std::ranges::size(r)));
}
template <class R>
bytes_out writable_bytes_of(R& r) {
  return std::as_writable_bytes(std::span(std::ranges::data(r), std::ranges::size(r)));
}
/// Element counts (or displacements) as byte counts.
template <class T>
std::vector<std::size_t> scaled(std::span<const std::size_t> elements, const char* operation,
                                int rank) {
  std::vector<std::size_t> out(elements.begin(), elements.end());
  for (std::size_t& n : out) {
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) {
      throw_error(errc::invalid_argument,
                  std::string("rmpl: ") + operation + " on rank " + std::to_string(rank) +
                      ": a count of " + std::to_string(n) + " elements of " +
                      std::to_string(sizeof(T)) +
                      " bytes overflows a byte count (a negative count converted to size_t?)");
    }
    n *= sizeof(T);
  }
  return out;
}
template <class S, class R>
constexpr void same_elements() {
  static_assert(std::is_same_v<std::remove_cv_t<std::ranges::range_value_t<S>>,
                               std::ranges::range_value_t<R>>,
                "a collective's send and receive ranges must hold the same element type");
}
}  // namespace detail

/// A pending (or completed, not yet waited) nonblocking operation. Move-only.
class request {
 public:
  request() = default;
  explicit request(detail::request_id id) : id_(id) {}
  request(request&& other) noexcept : id_(std::exchange(other.id_, detail::null_request)) {}
  request& operator=(request&& other) noexcept {
    if (this != &other) {
      detail::release(id_);
      id_ = std::exchange(other.id_, detail::null_request);
    }
    return *this;
  }
  request(const request&) = delete;
  request& operator=(const request&) = delete;
  ~request() { detail::release(id_); }

  // A request's failures go through the world communicator's error policy (the request does not
  // know its communicator). An empty request (default-constructed, moved from, or already waited
  // or tested to completion) is an error for wait(), test() and cancel(), naming the operation.

  /// Blocks until the operation completes; throws rmpl::error if it failed (e.g. truncation).
  status wait() try {
    if (id_ == detail::null_request) detail::empty_request("wait");
    return detail::wait(id_);
  } catch (const error& e) {
    failed(e);
  }
  /// The status if the operation has completed (the request becomes empty), nothing otherwise.
  std::optional<status> test() try {
    if (id_ == detail::null_request) detail::empty_request("test");
    status s;
    if (detail::test(id_, &s)) return s;
    return std::nullopt;
  } catch (const error& e) {
    failed(e);
  }
  /// Cancels a posted receive that has not matched yet; wait() then reports status::cancelled.
  void cancel() try {
    if (id_ == detail::null_request) detail::empty_request("cancel");
    detail::cancel(id_);
  } catch (const error& e) {
    failed(e);
  }
  /// True once the operation has completed, without consuming the request (see test()). True for
  /// an empty request.
  bool done() const try { return detail::done(id_); } catch (const error& e) {
    failed(e);
  }
  /// True while the request refers to an operation not yet waited or tested to completion.
  bool active() const noexcept { return id_ != detail::null_request; }

 private:
  [[noreturn]] static void failed(const error& e) {
    detail::apply_error_policy(nullptr, e);
    throw;
  }
  detail::request_id id_ = detail::null_request;
};

/// Waits for every request; throws the first failure after all have completed.
void wait_all(std::span<request> requests);
/// Waits for one request to complete: its index and status. Inactive requests are skipped;
/// returns {requests.size(), {}} if none is active.
std::pair<std::size_t, status> wait_any(std::span<request> requests);
/// Index and status of one completed request, if any has completed.
std::optional<std::pair<std::size_t, status>> test_any(std::span<request> requests);
/// True (and every status filled) only if all requests have completed.
bool test_all(std::span<request> requests, std::vector<status>* statuses = nullptr);
/// Waits until at least one request completes; returns the index and status of each that has
/// (empty if no request is active).
std::vector<std::pair<std::size_t, status>> wait_some(std::span<request> requests);

/// A group of ranks with its own message space: traffic on one communicator (point-to-point and
/// collective) never matches another's. A communicator is a shared handle: copies refer to the same
/// communicator, which is freed when the last copy goes (or with free()). A default-constructed
/// communicator is null (what split and create return to processes outside the new group).
///
/// Collectives must be called by every rank of the communicator in the same order. Blocking forms
/// return when this rank's part is done; the i-forms return a request and borrow their buffers
/// until it completes. Element types of send and receive ranges must match; counts and
/// displacements are in elements.
class communicator {
 public:
  communicator() = default;

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  /// False for a null communicator.
  explicit operator bool() const noexcept { return impl_ != nullptr; }

  /// What a failing call on this communicator does: throw rmpl::error (the default) or print the
  /// error naming the rank and end the job (on_error::abort), as MPI's MPI_ERRORS_ARE_FATAL. The
  /// policy belongs to the communicator: every handle to it sees the change, and communicators
  /// made from it (dup, split, create) start with it. Calls that name no communicator (a request's
  /// wait, test and cancel; groups) and calls on a null communicator follow the world's policy.
  void set_error_policy(on_error policy) const try {
    detail::set_error_policy(impl("set_error_policy"), policy);
  } catch (const error& e) {
    failed(e);
  }
  on_error error_policy() const try {
    return detail::error_policy(impl("error_policy"));
  } catch (const error& e) {
    failed(e);
  }

  // ---------------------------------------------------------------- point-to-point

  template <send_buffer R>
  void send(const R& data, int dest, int tag = 0, send_mode mode = send_mode::standard) const try {
    detail::send(impl("send"), std::ranges::data(data), bytes_of(data), dest, tag, mode);
  } catch (const error& e) {
    failed(e);
  }
  template <send_buffer R>
  void ssend(const R& data, int dest, int tag = 0) const {
    send(data, dest, tag, send_mode::synchronous);
  }
  template <send_buffer R>
  void bsend(const R& data, int dest, int tag = 0) const {
    send(data, dest, tag, send_mode::buffered);
  }
  template <send_buffer R>
  void rsend(const R& data, int dest, int tag = 0) const {
    send(data, dest, tag, send_mode::ready);
  }
  template <recv_buffer R>
  status recv(R&& data, int source = any_source, int tag = any_tag) const try {
    return detail::recv(impl("recv"), std::ranges::data(data), bytes_of(data), source, tag);
  } catch (const error& e) {
    failed(e);
  }

  /// Sends one value; the receiver takes it with recv_value<T>.
  template <class T>
  requires std::is_trivially_copyable_v<T>
  void send_value(const T& value, int dest, int tag = 0) const try {
    detail::send(impl("send_value"), &value, sizeof(T), dest, tag, send_mode::standard);
  } catch (const error& e) {
    failed(e);
  }
  template <class T>
  requires std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T> T
  recv_value(int source = any_source, int tag = any_tag, status* st = nullptr)
  const try {
    T value{};
    status s = detail::recv(impl("recv_value"), &value, sizeof(T), source, tag);
    if (st) *st = s;
    return value;
  } catch (const error& e) {
    failed(e);
  }

  /// The request borrows `data` until it completes.
  template <send_buffer R>
  [[nodiscard]] request isend(const R& data, int dest, int tag = 0,
                              send_mode mode = send_mode::standard) const try {
    return request(
        detail::isend(impl("isend"), std::ranges::data(data), bytes_of(data), dest, tag, mode));
  } catch (const error& e) {
    failed(e);
  }
  template <send_buffer R>
  [[nodiscard]] request issend(const R& data, int dest, int tag = 0) const {
    return isend(data, dest, tag, send_mode::synchronous);
  }
  template <recv_buffer R>
  [[nodiscard]] request irecv(R&& data, int source = any_source, int tag = any_tag) const try {
    return request(
        detail::irecv(impl("irecv"), std::ranges::data(data), bytes_of(data), source, tag));
  } catch (const error& e) {
    failed(e);
  }

  /// Sends to `dest` and receives from `source` at once (no deadlock when two ranks exchange).
  template <send_buffer S, recv_buffer R>
  status sendrecv(const S& sdata, int dest, int stag, R&& rdata, int source = any_source,
                  int rtag = any_tag) const try {
    return detail::sendrecv(impl("sendrecv"), std::ranges::data(sdata), bytes_of(sdata), dest, stag,
                            std::ranges::data(rdata), bytes_of(rdata), source, rtag);
  } catch (const error& e) {
    failed(e);
  }

  /// Blocks until a matching message is available; tells its source, tag and size without
  /// receiving.
  status probe(int source = any_source, int tag = any_tag) const try {
    return detail::probe(impl("probe"), source, tag);
  } catch (const error& e) {
    failed(e);
  }
  std::optional<status> iprobe(int source = any_source, int tag = any_tag) const try {
    status s;
    if (detail::iprobe(impl("iprobe"), source, tag, &s)) return s;
    return std::nullopt;
  } catch (const error& e) {
    failed(e);
  }

  /// Byte-level forms for untyped buffers.
  void send_bytes(const void* data, std::size_t bytes, int dest, int tag = 0,
                  send_mode mode = send_mode::standard) const try {
    detail::send(impl("send_bytes"), data, bytes, dest, tag, mode);
  } catch (const error& e) {
    failed(e);
  }
  status recv_bytes(void* data, std::size_t capacity, int source = any_source,
                    int tag = any_tag) const try {
    return detail::recv(impl("recv_bytes"), data, capacity, source, tag);
  } catch (const error& e) {
    failed(e);
  }

  // ---------------------------------------------------------------- communicators and groups

  /// The same members in the same order, with a message space of its own (collective).
  communicator dup() const try {
    return communicator(detail::dup(impl("dup")));
  } catch (const error& e) {
    failed(e);
  }
  /// One new communicator per color, ranked by (key, rank here) (collective). A process that
  /// passes rmpl::undefined as its color gets a null communicator.
  communicator split(int color, int key = 0) const try {
    return communicator(detail::split(impl("split"), color, key));
  } catch (const error& e) {
    failed(e);
  }
  /// A communicator of `members` (a subgroup of this one's members), collective over this
  /// communicator; processes outside `members` get a null communicator.
  communicator create(const group& members) const try {
    return communicator(detail::create(impl("create"), members));
  } catch (const error& e) {
    failed(e);
  }
  /// The group of this communicator's members, in rank order.
  group members() const try { return detail::members(impl("members")); } catch (const error& e) {
    failed(e);
  }
  /// Drops this handle; the communicator is freed when no handle refers to it any more.
  void free() noexcept {
    impl_.reset();
    rank_ = undefined;
    size_ = 0;
  }
  friend relation compare(const communicator& a, const communicator& b) {
    return detail::compare(a.impl_.get(), b.impl_.get());
  }

  // ---------------------------------------------------------------- collectives

  void barrier() const try {
    detail::ibarrier(impl("barrier"), detail::run::to_end);
  } catch (const error& e) {
    failed(e);
  }
  [[nodiscard]] request ibarrier() const try {
    return request(detail::ibarrier(impl("ibarrier")));
  } catch (const error& e) {
    failed(e);
  }

  /// Root's `data` into every rank's `data` (the same number of elements everywhere).
  template <recv_buffer R>
  void broadcast(R&& data, int root) const try {
    detail::ibroadcast(impl("broadcast"), detail::writable_bytes_of(data), root,
                       detail::run::to_end);
  } catch (const error& e) {
    failed(e);
  }
  template <recv_buffer R>
  [[nodiscard]] request ibroadcast(R&& data, int root) const try {
    return request(detail::ibroadcast(impl("ibroadcast"), detail::writable_bytes_of(data), root));
  } catch (const error& e) {
    failed(e);
  }

  /// out[i] = in_0[i] op in_1[i] op ... on `root` (out is not touched elsewhere and may be empty).
  template <send_buffer S, recv_buffer R, class Op>
  void reduce(const S& in, R&& out, Op&& op, int root) const try {
    detail::same_elements<S, R>();
    detail::ireduce(impl("reduce"), detail::bytes_of(in), detail::writable_bytes_of(out),
                    make<S>(std::forward<Op>(op)), root, detail::run::to_end);
  } catch (const error& e) {
    failed(e);
  }
  template <send_buffer S, recv_buffer R, class Op>
  [[nodiscard]] request ireduce(const S& in, R&& out, Op&& op, int root) const try {
    detail::same_elements<S, R>();
    return request(detail::ireduce(impl("ireduce"), detail::bytes_of(in),
                                   detail::writable_bytes_of(out), make<S>(std::forward<Op>(op)),
                                   root));
  } catch (const error& e) {
    failed(e);
  }
  /// In place: `data` is the operand, and on `root` it receives the result.
  template <recv_buffer R, class Op>
  void reduce(R&& data, Op&& op, int root) const {
    reduce(data, data, std::forward<Op>(op), root);
  }

  /// Every rank's out = in_0 op in_1 op ... op in_{n-1}.
  template <send_buffer S, recv_buffer R, class Op>
  void allreduce(const S& in, R&& out, Op&& op) const try {
    detail::same_elements<S, R>();
    detail::iallreduce(impl("allreduce"), detail::bytes_of(in), detail::writable_bytes_of(out),
                       make<S>(std::forward<Op>(op)), detail::run::to_end);
  } catch (const error& e) {
    failed(e);
  }
  template <send_buffer S, recv_buffer R, class Op>
  [[nodiscard]] request iallreduce(const S& in, R&& out, Op&& op) const try {
    detail::same_elements<S, R>();
    return request(detail::iallreduce(impl("iallreduce"), detail::bytes_of(in),
                                      detail::writable_bytes_of(out),
                                      make<S>(std::forward<Op>(op))));
  } catch (const error& e) {
    failed(e);
  }
  template <recv_buffer R, class Op>
  void allreduce(R&& data, Op&& op) const {
    allreduce(data, data, std::forward<Op>(op));
  }

  /// Inclusive prefix: rank r's out = in_0 op ... op in_r.
  template <send_buffer S, recv_buffer R, class Op>
  void scan(const S& in, R&& out, Op&& op) const try {
    detail::same_elements<S, R>();
    detail::iscan(impl("scan"), detail::bytes_of(in), detail::writable_bytes_of(out),
                  make<S>(std::forward<Op>(op)), detail::run::to_end);
  } catch (const error& e) {
    failed(e);
  }
  template <send_buffer S, recv_buffer R, class Op>
  [[nodiscard]] request iscan(const S& in, R&& out, Op&& op) const try {
    detail::same_elements<S, R>();
    return request(detail::iscan(impl("iscan"), detail::bytes_of(in),
                                 detail::writable_bytes_of(out), make<S>(std::forward<Op>(op))));
  } catch (const error& e) {
    failed(e);
  }
  /// Exclusive prefix: rank r's out = in_0 op ... op in_{r-1}; rank 0's out is left untouched.
  template <send_buffer S, recv_buffer R, class Op>
  void exscan(const S& in, R&& out, Op&& op) const try {
    detail::same_elements<S, R>();
    detail::iexscan(impl("exscan"), detail::bytes_of(in), detail::writable_bytes_of(out),
                    make<S>(std::forward<Op>(op)), detail::run::to_end);
  } catch (const error& e) {
    failed(e);
  }
  template <send_buffer S, recv_buffer R, class Op>
  [[nodiscard]] request iexscan(const S& in, R&& out, Op&& op) const try {
    detail::same_elements<S, R>();
    return request(detail::iexscan(impl("iexscan"), detail::bytes_of(in),
                                   detail::writable_bytes_of(out), make<S>(std::forward<Op>(op))));
  } catch (const error& e) {
    failed(e);
  }

  /// Reduces size() blocks of out.size() elements; rank r receives block r of the result.
  template <send_buffer S, recv_buffer R, class Op>
  void reduce_scatter_block(const S& in, R&& out, Op&& op) const try {
    detail::same_elements<S, R>();
    detail::ireduce_scatter_block(impl("reduce_scatter_block"), detail::bytes_of(in),
                                  detail::writable_bytes_of(out), make<S>(std::forward<Op>(op)),
                                  detail::run::to_end);
  } catch (const error& e) {
    failed(e);
  }
  template <send_buffer S, recv_buffer R, class Op>
  [[nodiscard]] request ireduce_scatter_block(const S& in, R&& out, Op&& op) const try {
    detail::same_elements<S, R>();
    return request(detail::ireduce_scatter_block(
        impl("ireduce_scatter_block"), detail::bytes_of(in), detail::writable_bytes_of(out),
        make<S>(std::forward<Op>(op))));
  } catch (const error& e) {
    failed(e);
  }
  /// Reduces `in` (sum of counts elements); rank r receives counts[r] elements of the result.
  template <send_buffer S, recv_buffer R, class Op>
  void reduce_scatter(const S& in, R&& out, std::span<const std::size_t> counts, Op&& op) const
      try {
    detail::same_elements<S, R>();
    using T = std::ranges::range_value_t<R>;
    detail::ireduce_scatter(impl("reduce_scatter"), detail::bytes_of(in),
                            detail::writable_bytes_of(out),
                            detail::scaled<T>(counts, "reduce_scatter", rank_),
                            make<S>(std::forward<Op>(op)), detail::run::to_end);
  } catch (const error& e) {
    failed(e);
  }
  template <send_buffer S, recv_buffer R, class Op>
  [[nodiscard]] request ireduce_scatter(const S& in, R&& out, std::span<const std::size_t> counts,
                                        Op&& op) const try {
    detail::same_elements<S, R>();
    using T = std::ranges::range_value_t<R>;
    return request(detail::ireduce_scatter(
        impl("ireduce_scatter"), detail::bytes_of(in), detail::writable_bytes_of(out),
        detail::scaled<T>(counts, "ireduce_scatter", rank_), make<S>(std::forward<Op>(op))));
  } catch (const error& e) {
    failed(e);
  }

  /// Root's out receives every rank's `in` in rank order (out holds size() * in.size()).
  template <send_buffer S, recv_buffer R>
  void gather(const S& in, R&& out, int root) const try {
    detail::same_elements<S, R>();
    detail::igather(impl("gather"), detail::bytes_of(in), detail::writable_bytes_of(out), root,
                    detail::run::to_end);
  } catch (const error& e) {
    failed(e);
  }
  template <send_buffer S, recv_buffer R>
  [[nodiscard]] request igather(const S& in, R&& out, int root) const try {
    detail::same_elements<S, R>();
    return request(detail::igather(impl("igather"), detail::bytes_of(in),
                                   detail::writable_bytes_of(out), root));
  } catch (const error& e) {
    failed(e);
  }
  /// Rank r's `in` (counts[r] elements) lands at out[displs[r]] on root (packed if displs is
  /// empty).
  template <send_buffer S, recv_buffer R>
  void gatherv(const S& in, R&& out, std::span<const std::size_t> counts,
               std::span<const std::size_t> displs, int root) const try {
    detail::same_elements<S, R>();
    using T = std::ranges::range_value_t<R>;
    detail::igatherv(impl("gatherv"), detail::bytes_of(in), detail::writable_bytes_of(out),
                     detail::scaled<T>(counts, "gatherv", rank_),
                     detail::scaled<T>(displs, "gatherv", rank_), root, detail::run::to_end);
  } catch (const error& e) {
    failed(e);
  }
  template <send_buffer S, recv_buffer R>
  [[nodiscard]] request igatherv(const S& in, R&& out, std::span<const std::size_t> counts,
                                 std::span<const std::size_t> displs, int root) const try {
    detail::same_elements<S, R>();
    using T = std::ranges::range_value_t<R>;
    return request(detail::igatherv(impl("igatherv"), detail::bytes_of(in),
                                    detail::writable_bytes_of(out),
                                    detail::scaled<T>(counts, "igatherv", rank_),
                                    detail::scaled<T>(displs, "igatherv", rank_), root));
  } catch (const error& e) {
    failed(e);
  }

  /// Block r of root's `in` (out.size() elements each) to rank r's out.
  template <send_buffer S, recv_buffer R>
  void scatter(const S& in, R&& out, int root) const try {
    detail::same_elements<S, R>();
    detail::iscatter(impl("scatter"), detail::bytes_of(in), detail::writable_bytes_of(out), root,
                     detail::run::to_end);
  } catch (const error& e) {
    failed(e);
  }
  template <send_buffer S, recv_buffer R>
  [[nodiscard]] request iscatter(const S& in, R&& out, int root) const try {
    detail::same_elements<S, R>();
    return request(detail::iscatter(impl("iscatter"), detail::bytes_of(in),
                                    detail::writable_bytes_of(out), root));
  } catch (const error& e) {
    failed(e);
  }
  /// counts[r] elements from in[displs[r]] on root to rank r's out.
  template <send_buffer S, recv_buffer R>
  void scatterv(const S& in, std::span<const std::size_t> counts,
                std::span<const std::size_t> displs, R&& out, int root) const try {
    detail::same_elements<S, R>();
    using T = std::ranges::range_value_t<R>;
    detail::iscatterv(impl("scatterv"), detail::bytes_of(in),
                      detail::scaled<T>(counts, "scatterv", rank_),
                      detail::scaled<T>(displs, "scatterv", rank_), detail::writable_bytes_of(out),
                      root, detail::run::to_end);
  } catch (const error& e) {
    failed(e);
  }
  template <send_buffer S, recv_buffer R>
  [[nodiscard]] request iscatterv(const S& in, std::span<const std::size_t> counts,
                                  std::span<const std::size_t> displs, R&& out, int root) const
      try {
    detail::same_elements<S, R>();
    using T = std::ranges::range_value_t<R>;
    return request(detail::iscatterv(
        impl("iscatterv"), detail::bytes_of(in), detail::scaled<T>(counts, "iscatterv", rank_),
        detail::scaled<T>(displs, "iscatterv", rank_), detail::writable_bytes_of(out), root));
  } catch (const error& e) {
    failed(e);
  }

  /// Every rank's out receives every rank's `in` in rank order.
  template <send_buffer S, recv_buffer R>
  void allgather(const S& in, R&& out) const try {
    detail::same_elements<S, R>();
    detail::iallgather(impl("allgather"), detail::bytes_of(in), detail::writable_bytes_of(out),
                       detail::run::to_end);
  } catch (const error& e) {
    failed(e);
  }
  template <send_buffer S, recv_buffer R>
  [[nodiscard]] request iallgather(const S& in, R&& out) const try {
    detail::same_elements<S, R>();
    return request(detail::iallgather(impl("iallgather"), detail::bytes_of(in),
                                      detail::writable_bytes_of(out)));
  } catch (const error& e) {
    failed(e);
  }
  template <send_buffer S, recv_buffer R>
  void allgatherv(const S& in, R&& out, std::span<const std::size_t> counts,
                  std::span<const std::size_t> displs = {}) const try {
    detail::same_elements<S, R>();
    using T = std::ranges::range_value_t<R>;
    detail::iallgatherv(impl("allgatherv"), detail::bytes_of(in), detail::writable_bytes_of(out),
                        detail::scaled<T>(counts, "allgatherv", rank_),
                        detail::scaled<T>(displs, "allgatherv", rank_), detail::run::to_end);
  } catch (const error& e) {
    failed(e);
  }
  template <send_buffer S, recv_buffer R>
  [[nodiscard]] request iallgatherv(const S& in, R&& out, std::span<const std::size_t> counts,
                                    std::span<const std::size_t> displs = {}) const try {
    detail::same_elements<S, R>();
    using T = std::ranges::range_value_t<R>;
    return request(detail::iallgatherv(impl("iallgatherv"), detail::bytes_of(in),
                                       detail::writable_bytes_of(out),
                                       detail::scaled<T>(counts, "iallgatherv", rank_),
                                       detail::scaled<T>(displs, "iallgatherv", rank_)));
  } catch (const error& e) {
    failed(e);
  }

  /// Block j of rank i's `in` goes to block i of rank j's out (size() equal blocks each).
  template <send_buffer S, recv_buffer R>
  void alltoall(const S& in, R&& out) const try {
    detail::same_elements<S, R>();
    equal_blocks(in);
    detail::ialltoall(impl("alltoall"), detail::bytes_of(in), detail::writable_bytes_of(out),
                      detail::run::to_end);
  } catch (const error& e) {
    failed(e);
  }
  template <send_buffer S, recv_buffer R>
  [[nodiscard]] request ialltoall(const S& in, R&& out) const try {
    detail::same_elements<S, R>();
    equal_blocks(in);
    return request(
        detail::ialltoall(impl("ialltoall"), detail::bytes_of(in), detail::writable_bytes_of(out)));
  } catch (const error& e) {
    failed(e);
  }
  template <send_buffer S, recv_buffer R>
  void alltoallv(const S& in, std::span<const std::size_t> send_counts,
                 std::span<const std::size_t> send_displs, R&& out,
                 std::span<const std::size_t> recv_counts,
                 std::span<const std::size_t> recv_displs) const try {
    detail::same_elements<S, R>();
    using T = std::ranges::range_value_t<R>;
    detail::ialltoallv(
        impl("alltoallv"), detail::bytes_of(in), detail::scaled<T>(send_counts, "alltoallv", rank_),
        detail::scaled<T>(send_displs, "alltoallv", rank_), detail::writable_bytes_of(out),
        detail::scaled<T>(recv_counts, "alltoallv", rank_),
        detail::scaled<T>(recv_displs, "alltoallv", rank_), detail::run::to_end);
  } catch (const error& e) {
    failed(e);
  }
  template <send_buffer S, recv_buffer R>
  [[nodiscard]] request ialltoallv(const S& in, std::span<const std::size_t> send_counts,
                                   std::span<const std::size_t> send_displs, R&& out,
                                   std::span<const std::size_t> recv_counts,
                                   std::span<const std::size_t> recv_displs) const try {
    detail::same_elements<S, R>();
    using T = std::ranges::range_value_t<R>;
    return request(detail::ialltoallv(impl("ialltoallv"), detail::bytes_of(in),
                                      detail::scaled<T>(send_counts, "ialltoallv", rank_),
                                      detail::scaled<T>(send_displs, "ialltoallv", rank_),
                                      detail::writable_bytes_of(out),
                                      detail::scaled<T>(recv_counts, "ialltoallv", rank_),
                                      detail::scaled<T>(recv_displs, "ialltoallv", rank_)));
  } catch (const error& e) {
    failed(e);
  }

 private:
  friend class session;
  explicit communicator(detail::comm_ptr impl);
  /// The communicator's state; a null communicator is an error naming `operation`.
  const detail::comm_impl& impl(const char* operation) const {
    if (!impl_) detail::null_communicator(operation);
    return *impl_;
  }
  template <class R>
  static std::size_t bytes_of(const R& r) {
    return std::ranges::size(r) * sizeof(std::ranges::range_value_t<R>);
  }
  /// An alltoall's `in` must split into size() equal blocks.
  template <class S>
  void equal_blocks(const S& in) const {
    if (size_ > 0 && std::ranges::size(in) % static_cast<std::size_t>(size_) != 0) {
      std::string message = "rmpl: alltoall on rank ";
      message.append(std::to_string(rank_)).append(": ");
      message.append(std::to_string(std::ranges::size(in))).append(" elements do not split into ");
      message.append(std::to_string(size_)).append(" equal blocks");
      detail::throw_error(errc::invalid_argument, message);
    }
  }
  template <class S, class Op>
  static detail::reduction make(Op&& op) {
    return detail::make_reduction<std::remove_cv_t<std::ranges::range_value_t<S>>>(
        std::forward<Op>(op));
  }
  /// Applies this communicator's error policy to `e` (a call on it failed): rethrows it, or ends
  /// the job. The methods above are function-try-blocks that end here, so the policy costs the
  /// calls that succeed nothing.
  [[noreturn]] void failed(const error& e) const {
    detail::apply_error_policy(impl_.get(), e);
    throw;
  }

  detail::comm_ptr impl_;
  int rank_ = undefined;
  int size_ = 0;
};

/// Which threads may call the library (session's option).
enum class threads : unsigned char {
  /// One thread at a time (any thread, under the program's own exclusion); nothing is locked.
  serialized,
  /// Any thread at any time, as MPI_THREAD_MULTIPLE: every call holds the library's one lock, and
  /// waits in several threads take turns progressing everyone's requests.
  multiple,
};

/// Joins the job for its lifetime: the first session initialises rmpl, the last one finalises it
/// (finalize waits for every rank, so no rank leaves while a peer still reads its memory).
class session {
 public:
  session();
  /// threads::multiple makes every call of the C++ and C APIs safe from any thread from now until
  /// the last session ends (create it before the other threads call; unless MPI_Init_thread set a
  /// level first, which then stays: thread_level() says which applies).
  explicit session(threads level);
  ~session();
  session(const session&) = delete;
  session& operator=(const session&) = delete;

  /// Every process of the job.
  communicator world() const;
  /// threads::multiple when the library lock is on (a session or rmpl_init_threads asked for it,
  /// or MPI granted MPI_THREAD_MULTIPLE); threads::serialized otherwise.
  static threads thread_level() noexcept;
  /// Seconds since an arbitrary point, for timing.
  static double wtime() noexcept;
  /// Room for buffered sends (send_mode::buffered), in bytes. The default is 16 MiB.
  static void attach_buffer(std::size_t bytes);
};

}  // namespace rmpl
