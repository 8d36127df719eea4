#include "fabric/ucx/provider.hpp"

#include "fabric/ucx/make.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "base/error.hpp"

namespace rmpl::fabric::ucx {
namespace {

/// Every message is one active message of this id; the kernel's header says what it is.
constexpr unsigned message_id = 0;

}  // namespace

provider::provider(int rank, int size, events& ev,
                   std::function<std::span<const std::byte>(int)> address_of,
                   std::function<void()> wake, std::function<std::string(int)> where)
    : ucx_(library::get()),
      rank_(rank),
      size_(size),
      events_(ev),
      address_of_(std::move(address_of)),
      wake_(std::move(wake)),
      where_(std::move(where)),
      endpoints_(static_cast<std::size_t>(size), nullptr),
      slots_(std::make_unique<peer_slot[]>(static_cast<std::size_t>(size))) {
  ucp_config_t* config = nullptr;
  if (ucs_status_t s = ucx_.ucp_config_read(nullptr, nullptr, &config); s != UCS_OK) {
    fail("reading UCX's configuration (UCX_* variables)", s);
  }
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_NAME;
  // RMA and atomics for one-sided operations (fabric/ucx/one_sided.cpp).
  params.features =
      UCP_FEATURE_AM | UCP_FEATURE_WAKEUP | UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64;
  params.name = "rmpl";
  descriptors_.before();
  const ucs_status_t init =
      ucx_.ucp_init_version(UCP_API_MAJOR, UCP_API_MINOR, &params, config, &context_);
  descriptors_.after();
  ucx_.ucp_config_release(config);
  if (init != UCS_OK) fail("ucp_init", init);
  // Serialized: the kernel calls in from one thread at a time (MPI_THREAD_MULTIPLE holds the
  // library lock); the watcher thread only polls the event descriptor.
  ucp_worker_params_t wp{};
  wp.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  wp.thread_mode = UCS_THREAD_MODE_SERIALIZED;
  descriptors_.before();
  if (ucs_status_t s = ucx_.ucp_worker_create(context_, &wp, &worker_); s != UCS_OK) {
    ucx_.ucp_cleanup(context_);
    fail("ucp_worker_create", s);
  }
  descriptors_.after();
  ucp_worker_attr_t attr{};
  attr.field_mask = UCP_WORKER_ATTR_FIELD_ADDRESS | UCP_WORKER_ATTR_FIELD_ADDRESS_FLAGS;
  attr.address_flags = UCP_WORKER_ADDRESS_FLAG_NET_ONLY;  // peers are on other hosts
  if (ucs_status_t s = ucx_.ucp_worker_query(worker_, &attr); s != UCS_OK) {
    ucx_.ucp_worker_destroy(worker_);
    ucx_.ucp_cleanup(context_);
    fail("ucp_worker_query (this worker's address)", s);
  }
  const auto* bytes = reinterpret_cast<const std::byte*>(attr.address);
  address_.assign(bytes, bytes + attr.address_length);
  ucx_.ucp_worker_release_address(worker_, attr.address);

  ucp_am_handler_param_t hp{};
  hp.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
                  UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
  hp.id = message_id;
  hp.flags = UCP_AM_FLAG_WHOLE_MSG;
  hp.cb = on_message;
  hp.arg = this;
  if (ucs_status_t s = ucx_.ucp_worker_set_am_recv_handler(worker_, &hp); s != UCS_OK) {
    ucx_.ucp_worker_destroy(worker_);
    ucx_.ucp_cleanup(context_);
    fail("ucp_worker_set_am_recv_handler", s);
  }
  for (int r = 0; r < size_; ++r) slots_[static_cast<std::size_t>(r)] = peer_slot{this, r};

  descriptors_.before();
  if (ucs_status_t s = ucx_.ucp_worker_get_efd(worker_, &event_fd_); s != UCS_OK) {
    ucx_.ucp_worker_destroy(worker_);
    ucx_.ucp_cleanup(context_);
    fail("ucp_worker_get_efd", s);
  }
  descriptors_.after();
  stop_fd_ = ::eventfd(0, EFD_CLOEXEC);
  if (stop_fd_ < 0) {
    const int err = errno;
    ucx_.ucp_worker_destroy(worker_);
    ucx_.ucp_cleanup(context_);
    base::fail_errno("eventfd (the ucx provider's watcher)", err);
  }
  watcher_ = std::thread([this] { watch(); });
}

provider::~provider() {
  close();
  stopping_.store(true);
  armed_.store(true);
  armed_.notify_one();
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(stop_fd_, &one, sizeof one);
  watcher_.join();
  ::close(stop_fd_);
  ucx_.ucp_worker_destroy(worker_);
  ucx_.ucp_cleanup(context_);
}

void provider::fail(const std::string& what, ucs_status_t status) const {
  base::fail(errc::system, "rank {}: UCX: {} failed: {}", rank_, what,
             ucx_.ucs_status_string(status));
}

std::vector<std::pair<std::string, std::string>> provider::describe() const {
  const char* tls = std::getenv("UCX_TLS");
  return {
      {"provider", fmt::format("ucx (UCX {}), to ranks on other hosts", ucx_.version())},
      {"ucx transports", tls != nullptr ? fmt::format("UCX_TLS={}", tls)
                                        : std::string("UCX's choice (UCX_TLS unset)")},
      {"ucx endpoints", fmt::format("{} connected", connected_)},
      {"ucx tcp timeout",
       descriptors_.tcp_timeout_ms() == 0
           ? std::string("the kernel's (RMPL_UCX_TCP_TIMEOUT=0)")
           : fmt::format("{} s without acknowledgement ends a connection (RMPL_UCX_TCP_TIMEOUT)",
                         descriptors_.tcp_timeout_ms() / 1000)},
  };
}

ucp_ep_h provider::endpoint(int peer) {
  ucp_ep_h& ep = endpoints_[static_cast<std::size_t>(peer)];
  if (ep != nullptr) [[likely]] {
    return ep;
  }
  const std::span<const std::byte> address = address_of_(peer);
  if (address.empty()) {
    base::fail(errc::internal, "rank {}: {} published no UCX address", rank_, where_(peer));
  }
  ucp_ep_params_t ep_params{};
  ep_params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                         UCP_EP_PARAM_FIELD_ERR_HANDLER;
  ep_params.address = reinterpret_cast<const ucp_address_t*>(address.data());
  // Peer mode: a peer that dies or whose host goes away is reported (on_peer_error), not waited
  // for.
  ep_params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
  ep_params.err_handler.cb = on_peer_error;
  ep_params.err_handler.arg = &slots_[static_cast<std::size_t>(peer)];
  descriptors_.before();
  if (ucs_status_t s = ucx_.ucp_ep_create(worker_, &ep_params, &ep); s != UCS_OK) {
    ep = nullptr;
    fail(fmt::format("connecting to {} (ucp_ep_create)", where_(peer)), s);
  }
  descriptors_.after();
  descriptors_.sweep();
  ++connected_;
  return ep;
}

bool provider::send(int dest, std::span<const std::byte> header, const void* data,
                    std::size_t bytes, std::uint64_t cookie, bool eager) {
  ucp_request_param_t rp{};
  rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  if (eager) {
    rp.op_attr_mask |= UCP_OP_ATTR_FIELD_FLAGS;
    rp.flags = UCP_AM_SEND_FLAG_EAGER;
  }
  rp.cb.send = on_sent;
  ucp_ep_h ep = endpoint(dest);
  operation* op = start_operation(cookie, dest);
  rp.user_data = op;
  return started(
      ucx_.ucp_am_send_nbx(ep, message_id, header.data(), header.size(), data, bytes, &rp), op,
      [&] {
        return fmt::format("a send of {} bytes to {} (ucp_am_send_nbx)", bytes, where_(dest));
      });
}

bool provider::flush(int dest, std::uint64_t cookie) {
  ucp_request_param_t rp{};
  rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  rp.cb.send = on_sent;
  ucp_ep_h ep = endpoint(dest);
  operation* op = start_operation(cookie, dest);
  rp.user_data = op;
  return started(ucx_.ucp_ep_flush_nbx(ep, &rp), op, [&] {
    return fmt::format("flushing the endpoint to {} (ucp_ep_flush_nbx)", where_(dest));
  });
}

bool provider::fetch(void* deferred, void* to, std::size_t bytes, std::uint64_t cookie) {
  ucp_request_param_t rp{};
  rp.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  rp.cb.recv_am = on_fetched;
  // The engine knows whose message it fetches.
  operation* op = start_operation(cookie, -1, operation::kind::fetch);
  rp.user_data = op;
  return started(ucx_.ucp_am_recv_data_nbx(worker_, deferred, to, bytes, &rp), op, [&] {
    return fmt::format("fetching a message of {} bytes (ucp_am_recv_data_nbx)", bytes);
  });
}

void provider::drop(void* deferred) noexcept {
  ucx_.ucp_am_data_release(worker_, deferred);
}

bool provider::progress() {
  // One call, not until it finds nothing: over TCP each call polls the sockets (an epoll_wait), and
  // the engine's next pass calls again anyway; looping cost a received message one more system
  // call on the way to its receive (0.6 us of a 9 us ping-pong between namespace hosts).
  worked_ = false;
  if (ucx_.ucp_worker_progress(worker_) != 0) worked_ = true;
  return worked_;
}

bool provider::arm() {
  descriptors_.sweep();  // on the way to sleep: at most once a second
  const ucs_status_t s = ucx_.ucp_worker_arm(worker_);
  if (s == UCS_ERR_BUSY) return false;  // events pending: progress first
  if (s != UCS_OK) fail("ucp_worker_arm", s);
  armed_.store(true, std::memory_order_release);
  armed_.notify_one();
  return true;
}

void provider::watch() noexcept {
  for (;;) {
    armed_.wait(false, std::memory_order_acquire);
    if (stopping_.load()) return;
    pollfd fds[2] = {{event_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    const int n = ::poll(fds, 2, -1);
    if (stopping_.load()) return;
    if (n < 0) continue;  // EINTR
    // Not again until the rank arms the worker once more (the descriptor stays readable until
    // then).
    armed_.store(false, std::memory_order_release);
    wake_();
  }
}

void provider::close() noexcept {
  if (closing_) return;
  closing_ = true;
  // After the job's last barrier: nothing is in flight, every peer is leaving too. Forced, so that
  // no peer needs to answer (the first to leave would otherwise wait for the last).
  for (ucp_ep_h& ep : endpoints_) {
    if (ep == nullptr) continue;
    ucp_request_param_t rp{};
    rp.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    rp.flags = UCP_EP_CLOSE_FLAG_FORCE;
    const ucs_status_ptr_t request = ucx_.ucp_ep_close_nbx(ep, &rp);
    if (request != nullptr && !UCS_PTR_IS_ERR(request)) {
      while (ucx_.ucp_request_check_status(request) == UCS_INPROGRESS) {
        ucx_.ucp_worker_progress(worker_);
      }
      ucx_.ucp_request_free(request);
    }
    ep = nullptr;
  }
}

ucs_status_t provider::on_message(void* arg, const void* header, std::size_t header_length,
                                  void* data, std::size_t length,
                                  const ucp_am_recv_param_t* param) {
  auto* self = static_cast<provider*>(arg);
  self->worked_ = true;
  const bool deferred = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
  std::int32_t source = -1;
  if (header_length >= sizeof source) std::memcpy(&source, header, sizeof source);
  if (source < 0 || source >= self->size_) {
    // Not from a rank of this job (or cut short): nothing to answer it with.
    std::fprintf(stderr,
                 "rmpl: rank %d: dropped a UCX message of %zu bytes with a %zu-byte header naming "
                 "sender %d, not a rank of this job (of %d)\n",
                 self->rank_, length, header_length, source, self->size_);
    if (deferred) self->ucx_.ucp_am_data_release(self->worker_, data);
    return UCS_OK;
  }
  arrival a;
  a.source = source;
  a.header = {static_cast<const std::byte*>(header), header_length};
  a.bytes = length;
  if (deferred) {
    a.deferred = data;
  } else {
    a.data = static_cast<const std::byte*>(data);
  }
  self->events_.arrived(a);
  // A deferred payload stays with UCX until the kernel fetches or drops it.
  return deferred ? UCS_INPROGRESS : UCS_OK;
}

provider::operation* provider::start_operation(std::uint64_t cookie, int peer,
                                               operation::kind what) {
  operation* op;
  if (!free_operations_.empty()) {
    op = free_operations_.back();
    free_operations_.pop_back();
  } else {
    op = &operations_.emplace_back();
  }
  op->self = this;
  op->cookie = cookie;
  op->peer = peer;
  op->what = what;
  return op;
}

void provider::end_operation(operation* op) noexcept {
  free_operations_.push_back(op);
}

void provider::operation_ended(void* request, ucs_status_t status, void* user_data) noexcept {
  auto* op = static_cast<operation*>(user_data);
  provider* self = op->self;
  const std::uint64_t cookie = op->cookie;
  const int peer = op->peer;
  const operation::kind what = op->what;
  self->end_operation(op);
  self->ucx_.ucp_request_free(request);
  self->worked_ = true;
  const std::string error = status == UCS_OK ? std::string() : self->ucx_.ucs_status_string(status);
  switch (what) {
    case operation::kind::send:
      self->events_.sent(cookie, peer, error);
      break;
    case operation::kind::fetch:
      self->events_.fetched(cookie, error);
      break;
    case operation::kind::one_sided:
      self->events_.completed(cookie, peer, error);
      break;
  }
}

void provider::on_sent(void* request, ucs_status_t status, void* user_data) {
  operation_ended(request, status, user_data);
}

void provider::on_fetched(void* request, ucs_status_t status, std::size_t /*length*/,
                          void* user_data) {
  operation_ended(request, status, user_data);
}

void provider::on_peer_error(void* arg, ucp_ep_h ep, ucs_status_t status) {
  (void)ep;
  auto* slot = static_cast<peer_slot*>(arg);
  provider* self = slot->self;
  self->worked_ = true;
  if (self->closing_) return;
  self->events_.peer_failed(slot->rank,
                            fmt::format("UCX reports {} lost: {}", self->where_(slot->rank),
                                        self->ucx_.ucs_status_string(status)));
}

}  // namespace rmpl::fabric::ucx

namespace rmpl::fabric::ucx {

std::unique_ptr<fabric::provider> make_provider(
    int rank, int size, events& ev, std::function<std::span<const std::byte>(int)> address_of,
    std::function<void()> wake, std::function<std::string(int)> where) {
  return std::make_unique<provider>(rank, size, ev, std::move(address_of), std::move(wake),
                                    std::move(where));
}

}  // namespace rmpl::fabric::ucx
