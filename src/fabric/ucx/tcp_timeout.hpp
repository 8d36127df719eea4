// A bound on how long a TCP connection of UCX's may go unanswered. UCX 1.13 (Debian 12's) cannot
// set one: a link cut while data is in flight is noticed only when the kernel's retransmissions
// give up (net.ipv4.tcp_retries2: about 15 minutes), and UCX's own keepalive sends data, so it
// keeps data in flight. The provider therefore sets TCP_USER_TIMEOUT itself on the TCP sockets UCX
// makes: those that appear while UCX creates the worker (its listening socket, whose option the
// connections it accepts inherit) and an endpoint. A connection whose data stays unacknowledged
// that long is closed by the kernel, UCX reports the endpoint failed, and the ranks report the
// peer unreachable, naming it and its host. The kernel acknowledges for a peer that is busy
// computing, so only a lost link or host trips it. Sockets the program opened itself are left
// alone (only those new across a UCX call are touched).
#pragma once

#include <sys/types.h>

#include <vector>

namespace rmpl::fabric::ucx {

class tcp_timeout {
 public:
  /// RMPL_UCX_TCP_TIMEOUT seconds (default 10; 0: the kernel's). Throws rmpl::error if malformed.
  tcp_timeout();
  /// Call before a UCX call that may open sockets.
  void before();
  /// Call after it: bounds the TCP sockets that appeared meanwhile.
  void after();
  unsigned milliseconds() const noexcept { return ms_; }

 private:
  unsigned ms_;
  std::vector<ino_t> before_;  // the socket inodes open before the call, sorted
};

}  // namespace rmpl::fabric::ucx
