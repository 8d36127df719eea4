// The ucx provider: one UCP worker per rank, an endpoint per peer created on first use (a job of
// thousands of ranks does not connect every pair), every message one active message (UCX picks
// short, eager or its own rendezvous by size; a rendezvous arrives as a deferred payload that the
// kernel fetches into the receive buffer once matched: UCX then reads the sender's registered
// buffer and tells the sender). Waiting: before its rank sleeps on the doorbell, arm() arms the
// worker's event descriptor, and a watcher thread that sleeps in poll() on it rings the doorbell
// when UCX has something, so a rank that waits for both shm peers and remote ones sleeps on one
// thing and burns nothing when idle.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "fabric/provider.hpp"
#include "fabric/ucx/descriptors.hpp"
#include "fabric/ucx/library.hpp"

namespace rmpl::fabric::ucx {

class provider final : public fabric::provider {
 public:
  /// The worker of `rank` in a job of `size`. `address_of(peer)` gives a peer's published address
  /// (asked on first use of that peer), `wake()` rings this rank's doorbell (from the watcher
  /// thread), `where(peer)` names a peer in messages ("rank 3 on host b"). Throws rmpl::error.
  provider(int rank, int size, events& ev,
           std::function<std::span<const std::byte>(int)> address_of, std::function<void()> wake,
           std::function<std::string(int)> where);
  ~provider() override;

  std::string name() const override { return "ucx"; }
  std::vector<std::pair<std::string, std::string>> describe() const override;
  std::vector<std::byte> address() const override { return address_; }
  bool send(int dest, std::span<const std::byte> header, const void* data, std::size_t bytes,
            std::uint64_t cookie, bool eager) override;
  bool flush(int dest, std::uint64_t cookie) override;
  bool fetch(void* deferred, void* to, std::size_t bytes, std::uint64_t cookie) override;
  void drop(void* deferred) noexcept override;
  exposure expose(void* base, std::size_t bytes) override;
  void unexpose(void* handle) noexcept override;
  void* reach(int peer, std::span<const std::byte> key) override;
  void forget(void* remote) noexcept override;
  bool put(int peer, void* remote, std::size_t at, const void* from, std::size_t bytes,
           std::uint64_t cookie) override;
  bool get(int peer, void* remote, std::size_t at, void* to, std::size_t bytes,
           std::uint64_t cookie) override;
  bool atomic(int peer, void* remote, std::size_t at, atomic_op op, std::size_t width,
              std::uint64_t operand, std::uint64_t compare, void* result,
              std::uint64_t cookie) override;
  bool progress() override;
  void wired_up() noexcept override { descriptors_.sweep(true); }
  bool arm() override;
  void close() noexcept override;

 private:
  /// What an endpoint's error handler is given: which peer it was.
  struct peer_slot {
    provider* self;
    int rank;
  };
  /// A send, fetch or one-sided operation in flight: what its completion callback needs (UCX
  /// gives it one pointer).
  struct operation {
    enum class kind : std::uint8_t { send, fetch, one_sided };
    provider* self;
    std::uint64_t cookie;
    int peer;  ///< a send's, flush's or one-sided operation's peer (-1 for a fetch)
    kind what;
    std::uint64_t operand;  ///< an atomic's operand, which UCX reads until the operation ends
  };
  /// A peer's exposed memory as this rank reaches it: its address there and its unpacked key.
  struct remote_memory {
    std::uint64_t base;
    std::uint64_t bytes;
    ucp_rkey_h rkey;
    int peer;
  };
  operation* start_operation(std::uint64_t cookie, int peer,
                             operation::kind what = operation::kind::send);
  /// What a send, flush or fetch call returned: true if it ended at once (`op` freed), false if
  /// its callback will come; throws rmpl::error (naming what()) if it failed. A template: a
  /// std::function of the callers' lambdas would allocate on every send.
  template <class What>
  bool started(ucs_status_ptr_t request, operation* op, const What& what) {
    if (request != nullptr && !UCS_PTR_IS_ERR(request)) return false;  // its callback will come
    end_operation(op);
    if (request == nullptr) return true;  // ended already: no callback
    fail(what(), UCS_PTR_STATUS(request));
  }
  void end_operation(operation* op) noexcept;
  ucp_ep_h endpoint(int peer);
  [[noreturn]] void fail(const std::string& what, ucs_status_t status) const;
  static ucs_status_t on_message(void* arg, const void* header, std::size_t header_length,
                                 void* data, std::size_t length, const ucp_am_recv_param_t* param);
  /// A send, flush, fetch or one-sided operation ended: its operation freed, the kernel told.
  static void operation_ended(void* request, ucs_status_t status, void* user_data) noexcept;
  static void on_sent(void* request, ucs_status_t status, void* user_data);
  /// `remote` checked: a handle of `peer`'s memory (what put, get and atomic have in common).
  remote_memory& reached(void* remote, int peer, const char* what) const;
  /// put() (from `local`) or, with `get`, get() (into `local`).
  bool transfer(int peer, void* remote, std::size_t at, void* local, std::size_t bytes,
                std::uint64_t cookie, bool get);
  static void on_fetched(void* request, ucs_status_t status, std::size_t length, void* user_data);
  static void on_peer_error(void* arg, ucp_ep_h ep, ucs_status_t status);
  void watch() noexcept;

  const library& ucx_;
  int rank_;
  int size_;
  events& events_;
  std::function<std::span<const std::byte>(int)> address_of_;
  std::function<void()> wake_;
  std::function<std::string(int)> where_;
  descriptors descriptors_;  ///< UCX's descriptors put right (fabric/ucx/descriptors.hpp)
  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  std::vector<std::byte> address_;
  std::vector<ucp_ep_h> endpoints_;  ///< by job rank; null until first used
  std::unique_ptr<peer_slot[]> slots_;
  std::size_t connected_ = 0;
  std::deque<operation> operations_;  ///< never shrinks: callbacks point into it
  std::vector<operation*> free_operations_;
  bool closing_ = false;  ///< close() has begun: peers that leave are not failures
  /// Set by an event handled inside progress() (an arrival, a completion, a failure).
  bool worked_ = false;
  // The watcher: sleeps in poll() on the worker's event descriptor while `armed_`.
  int event_fd_ = -1;
  int stop_fd_ = -1;
  std::atomic<bool> armed_{false};
  std::atomic<bool> stopping_{false};
  std::thread watcher_;
};

}  // namespace rmpl::fabric::ucx
