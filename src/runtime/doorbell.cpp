#include "runtime/doorbell.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <climits>

namespace rmpl::runtime {

void ring_one(doorbell& b) noexcept {
  b.ring.fetch_add(1, std::memory_order_release);
  ::syscall(SYS_futex, &b.ring, FUTEX_WAKE, 1, nullptr, nullptr, 0);
}

void ring_all(doorbell& b) noexcept {
  b.ring.fetch_add(1, std::memory_order_release);
  ::syscall(SYS_futex, &b.ring, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

void sleep_on(doorbell& b, std::uint32_t value, int timeout_ms) noexcept {
  timespec ts{timeout_ms / 1000, static_cast<long>(timeout_ms % 1000) * 1000000L};
  ::syscall(SYS_futex, &b.ring, FUTEX_WAIT, value, &ts, nullptr, 0);
}

}  // namespace rmpl::runtime
