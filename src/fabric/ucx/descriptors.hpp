// The descriptors UCX opens in a rank, put right after each UCX call that may open some (context,
// worker and endpoint creation): those that appeared meanwhile are UCX's, and the program's own are
// left alone.
// - Close-on-exec: UCX opens its pipes, event descriptors and sockets without it, and a program the
//   rank starts (system(), fork and exec) would inherit them, keeping the job's connections open
//   after the job.
// - A bound on how long a TCP connection may go unanswered (TCP_USER_TIMEOUT). UCX 1.13 (Debian
//   12's) cannot set one: a link cut while data is in flight is noticed only when the kernel's
//   retransmissions give up (net.ipv4.tcp_retries2: about 15 minutes), and UCX's own keepalive
//   sends data, so it keeps data in flight. With the bound, a connection whose data stays
//   unacknowledged that long is closed by the kernel, UCX reports the endpoint failed, and the
//   ranks report the peer unreachable, naming it and its host. The kernel acknowledges for a peer
//   that is busy computing, so only a lost link or host trips it. The connections UCX accepts
//   inherit the option from its listening socket, made with the worker.
// The connections UCX accepts later (its own thread accepts them, without close-on-exec) are found
// by sweep(): TCP sockets on the port of one of UCX's listening sockets.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace rmpl::fabric::ucx {

class descriptors {
 public:
  /// RMPL_UCX_TCP_TIMEOUT seconds (default 10; 0: the kernel's). Throws rmpl::error if malformed.
  descriptors();
  /// Call before a UCX call that may open descriptors.
  void before();
  /// Call after it: puts the descriptors that appeared meanwhile right.
  void after();
  /// Sets close-on-exec on the connections UCX has accepted since the last sweep; unless `now`, at
  /// most once a second (call it as often as convenient).
  void sweep(bool now = false);
  /// The TCP bound in milliseconds (0: none of ours).
  unsigned tcp_timeout_ms() const noexcept { return tcp_ms_; }

 private:
  unsigned tcp_ms_;
  /// The descriptors open before the call, with what each was (its inode; anonymous ones, eventfd
  /// and epoll, share one, hence the number too), sorted.
  std::vector<std::pair<int, ino_t>> before_;
  std::vector<unsigned> listening_ports_;  ///< of UCX's listening TCP sockets
  std::int64_t last_sweep_ns_ = 0;
};

}  // namespace rmpl::fabric::ucx
