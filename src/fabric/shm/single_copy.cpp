#include "fabric/shm/single_copy.hpp"

#include <sys/prctl.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace rmpl::fabric::shm {

namespace {

/// Moves `bytes` between `local` and `remote` in `pid` with process_vm_readv or _writev (`call`),
/// resuming after interruptions and partial transfers.
template <class Call>
int copy_with(Call call, pid_t pid, char* local, std::uintptr_t remote,
              std::size_t bytes) noexcept {
  while (bytes > 0) {
    // The kernel copies at most MAX_RW_COUNT (about 2 GiB) per call and may stop early.
    const std::size_t chunk = std::min<std::size_t>(bytes, std::size_t{1} << 30);
    iovec l{local, chunk};
    iovec r{reinterpret_cast<void*>(remote), chunk};
    ssize_t done = call(pid, &l, 1, &r, 1, 0);
    if (done < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (done == 0) return EFAULT;
    local += done;
    remote += static_cast<std::uintptr_t>(done);
    bytes -= static_cast<std::size_t>(done);
  }
  return 0;
}

}  // namespace

int read_from_process(pid_t pid, const void* remote, void* local, std::size_t bytes) noexcept {
  return copy_with(::process_vm_readv, pid, static_cast<char*>(local),
                   reinterpret_cast<std::uintptr_t>(remote), bytes);
}

int write_to_process(pid_t pid, void* remote, const void* local, std::size_t bytes) noexcept {
  return copy_with(::process_vm_writev, pid, const_cast<char*>(static_cast<const char*>(local)),
                   reinterpret_cast<std::uintptr_t>(remote), bytes);
}

int read_from_process(pid_t pid, iovec* local, std::size_t nlocal, iovec* remote,
                      std::size_t nremote) noexcept {
  // Both lists are consumed from the front: after a partial transfer (the kernel stops at
  // MAX_RW_COUNT, or early for its own reasons) the entries done are dropped and the first
  // remaining one of each side is trimmed.
  auto skip = [](iovec*& v, std::size_t& n, std::size_t bytes) noexcept {
    while (n > 0 && bytes >= v->iov_len) {
      bytes -= v->iov_len;
      ++v;
      --n;
    }
    if (n > 0 && bytes > 0) {
      v->iov_base = static_cast<char*>(v->iov_base) + bytes;
      v->iov_len -= bytes;
    }
  };
  auto total = [](const iovec* v, std::size_t n) noexcept {
    std::size_t sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += v[i].iov_len;
    return sum;
  };
  std::size_t left = std::min(total(local, nlocal), total(remote, nremote));
  while (left > 0) {
    const ssize_t done = ::process_vm_readv(pid, local, nlocal, remote, nremote, 0);
    if (done < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (done == 0) return EFAULT;
    skip(local, nlocal, static_cast<std::size_t>(done));
    skip(remote, nremote, static_cast<std::size_t>(done));
    left -= static_cast<std::size_t>(done);
  }
  return 0;
}

void allow_peer_reads() noexcept {
#ifdef PR_SET_PTRACER
  ::prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
#endif
}

std::string single_copy_reason(int err) {
  if (err == 0) return "process_vm_readv works between the ranks";
  if (err == -1) return "turned off by RMPL_SINGLE_COPY=0";
  if (err == -2) return "a peer rank could not use it";
  return std::string("process_vm_readv refused: ") + std::strerror(err) +
         (err == EPERM ? " (ptrace restrictions, e.g. a container or Yama ptrace_scope)" : "");
}

}  // namespace rmpl::fabric::shm
