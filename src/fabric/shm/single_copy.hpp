// Single copy between processes with Linux cross-memory attach (process_vm_readv): the modern form
// of the seeds' put straight into the receiver's buffer. The kernel may refuse it (containers,
// Yama, another user); rmpl then uses the pipelined copy through shared bounce buffers instead.
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <cstddef>
#include <string>

namespace rmpl::fabric::shm {

/// Copies `bytes` from `remote` in process `pid` into `local`. Returns 0 or the errno that stopped
/// it.
int read_from_process(pid_t pid, const void* remote, void* local, std::size_t bytes) noexcept;

/// Copies from the segments `remote` (in process `pid`) into the segments `local`, as many bytes as
/// the shorter list holds, in type order; at most IOV_MAX entries on each side. The entries are
/// consumed (modified) as the copy goes. Returns 0 or the errno that stopped it.
int read_from_process(pid_t pid, iovec* local, std::size_t nlocal, iovec* remote,
                      std::size_t nremote) noexcept;

/// Copies `bytes` from `local` to `remote` in process `pid`. Returns 0 or the errno that stopped
/// it.
int write_to_process(pid_t pid, void* remote, const void* local, std::size_t bytes) noexcept;

/// Lets any process of ours read this one's memory even under Yama's ptrace_scope=1.
void allow_peer_reads() noexcept;

/// Text for why single copy is off, given the probe's errno (0: it is on).
std::string single_copy_reason(int err);

}  // namespace rmpl::fabric::shm
