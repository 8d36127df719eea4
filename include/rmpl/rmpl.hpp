// rmpl's C++ API: a session (init/finalize by RAII), communicators, typed point-to-point operations
// on contiguous ranges of trivially copyable values, and request objects.
//
//   rmpl::session s;                       // joins the job started by rmplrun (or a job of one)
//   auto world = s.world();
//   std::vector<double> v(100);
//   if (world.rank() == 0) world.send(v, 1, /*tag=*/7);
//   else if (world.rank() == 1) world.recv(v, 0, 7);
//
// Errors are thrown as rmpl::error. A nonblocking operation borrows its buffer: keep the buffer
// alive and untouched until the request completes. Destroying a pending request is a fatal error
// (reported with the operation, peer and tag) rather than a silent write into freed memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ranges>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

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

// The compiled half of the API (src/api/cxx_api.cpp). Byte-level, so the templates below stay thin.
void send(std::uint32_t context, const void* data, std::size_t bytes, int dest, int tag,
          send_mode mode);
status recv(std::uint32_t context, void* data, std::size_t capacity, int source, int tag);
request_id isend(std::uint32_t context, const void* data, std::size_t bytes, int dest, int tag,
                 send_mode mode);
request_id irecv(std::uint32_t context, void* data, std::size_t capacity, int source, int tag);
status sendrecv(std::uint32_t context, const void* sdata, std::size_t sbytes, int dest, int stag,
                void* rdata, std::size_t capacity, int source, int rtag);
status probe(std::uint32_t context, int source, int tag);
bool iprobe(std::uint32_t context, int source, int tag, status* out);
status wait(request_id& id);
bool test(request_id& id, status* out);
bool done(request_id id);  // completed (or empty), without consuming the request
void cancel(request_id id);
void release(request_id& id) noexcept;  // frees a completed request; a pending one is fatal
int world_rank() noexcept;
int world_size() noexcept;
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

  /// Blocks until the operation completes; throws rmpl::error if it failed (e.g. truncation).
  status wait() { return detail::wait(id_); }
  /// The status if the operation has completed (the request becomes empty), nothing otherwise.
  std::optional<status> test() {
    status s;
    if (detail::test(id_, &s)) return s;
    return std::nullopt;
  }
  /// Cancels a posted receive that has not matched yet; wait() then reports status::cancelled.
  void cancel() { detail::cancel(id_); }
  /// True once the operation has completed, without consuming the request (see test()).
  bool done() const { return detail::done(id_); }
  /// True while the request refers to an operation not yet waited or tested to completion.
  bool active() const noexcept { return id_ != detail::null_request; }

 private:
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

/// A group of ranks with its own message space: traffic on one communicator never matches
/// another's.
class communicator {
 public:
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }

  template <send_buffer R>
  void send(const R& data, int dest, int tag = 0, send_mode mode = send_mode::standard) const {
    detail::send(context_, std::ranges::data(data), bytes_of(data), dest, tag, mode);
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
  status recv(R&& data, int source = any_source, int tag = any_tag) const {
    return detail::recv(context_, std::ranges::data(data), bytes_of(data), source, tag);
  }

  /// Sends one value; the receiver takes it with recv_value<T>.
  template <class T>
  requires std::is_trivially_copyable_v<T>
  void send_value(const T& value, int dest, int tag = 0) const {
    detail::send(context_, &value, sizeof(T), dest, tag, send_mode::standard);
  }
  template <class T>
  requires std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T> T
  recv_value(int source = any_source, int tag = any_tag, status* st = nullptr)
  const {
    T value{};
    status s = detail::recv(context_, &value, sizeof(T), source, tag);
    if (st) *st = s;
    return value;
  }

  /// The request borrows `data` until it completes.
  template <send_buffer R>
  [[nodiscard]] request isend(const R& data, int dest, int tag = 0,
                              send_mode mode = send_mode::standard) const {
    return request(
        detail::isend(context_, std::ranges::data(data), bytes_of(data), dest, tag, mode));
  }
  template <send_buffer R>
  [[nodiscard]] request issend(const R& data, int dest, int tag = 0) const {
    return isend(data, dest, tag, send_mode::synchronous);
  }
  template <recv_buffer R>
  [[nodiscard]] request irecv(R&& data, int source = any_source, int tag = any_tag) const {
    return request(detail::irecv(context_, std::ranges::data(data), bytes_of(data), source, tag));
  }

  /// Sends to `dest` and receives from `source` at once (no deadlock when two ranks exchange).
  template <send_buffer S, recv_buffer R>
  status sendrecv(const S& sdata, int dest, int stag, R&& rdata, int source = any_source,
                  int rtag = any_tag) const {
    return detail::sendrecv(context_, std::ranges::data(sdata), bytes_of(sdata), dest, stag,
                            std::ranges::data(rdata), bytes_of(rdata), source, rtag);
  }

  /// Blocks until a matching message is available; tells its source, tag and size without
  /// receiving.
  status probe(int source = any_source, int tag = any_tag) const {
    return detail::probe(context_, source, tag);
  }
  std::optional<status> iprobe(int source = any_source, int tag = any_tag) const {
    status s;
    if (detail::iprobe(context_, source, tag, &s)) return s;
    return std::nullopt;
  }

  /// Byte-level forms for untyped buffers.
  void send_bytes(const void* data, std::size_t bytes, int dest, int tag = 0,
                  send_mode mode = send_mode::standard) const {
    detail::send(context_, data, bytes, dest, tag, mode);
  }
  status recv_bytes(void* data, std::size_t capacity, int source = any_source,
                    int tag = any_tag) const {
    return detail::recv(context_, data, capacity, source, tag);
  }

  std::uint32_t context() const noexcept { return context_; }

 private:
  friend class session;
  communicator(std::uint32_t context, int rank, int size)
      : context_(context), rank_(rank), size_(size) {}
  template <class R>
  static std::size_t bytes_of(const R& r) {
    return std::ranges::size(r) * sizeof(std::ranges::range_value_t<R>);
  }

  std::uint32_t context_ = 0;
  int rank_ = 0;
  int size_ = 1;
};

/// Joins the job for its lifetime: the first session initialises rmpl, the last one finalises it
/// (finalize waits for every rank, so no rank leaves while a peer still reads its memory).
class session {
 public:
  session();
  ~session();
  session(const session&) = delete;
  session& operator=(const session&) = delete;

  communicator world() const noexcept {
    return communicator(0, detail::world_rank(), detail::world_size());
  }
  /// Seconds since an arbitrary point, for timing.
  static double wtime() noexcept;
  /// Room for buffered sends (send_mode::buffered), in bytes. The default is 16 MiB.
  static void attach_buffer(std::size_t bytes);
};

}  // namespace rmpl
